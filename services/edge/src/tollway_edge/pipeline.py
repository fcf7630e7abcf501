"""The one request pipeline every endpoint shares (DESIGN.md "The request
path"; CONVENTIONS habit 18):

authenticate from the headers (401, no event) → read ≤ ``max_body_bytes``
and parse once (the endpoint's adapter; 400/413) → catalogue model (404) →
allow-list (403) → admit (429/503) → redact (400/413/502/503) → forward with
fallback (502) → relay the stream or return the answer → the terminal event.

A refusal after authentication emits one ``failed`` event and no
``started``; admission's concurrency slot is released when the response ends.
An endpoint is an :class:`Endpoint` (``endpoints/``): it parses its body and
reads its answers; a new endpoint adds a file, not branches here. A route
whose provider kind does not serve the endpoint natively is served through
the endpoint's :class:`Translation` for that kind, if it has one
(``endpoints/translated.py``: OpenAI chat <-> Anthropic Messages): the body
is translated after redaction and before the provider hears of the call (a
body the other API cannot express is a 400 with no ``started``), the answer
or stream is translated back, and tokens keep OpenAI's meaning.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import orjson
from aiohttp import web

from tollway_contracts.catalogue import Deployment, Model, Prices, Provider
from tollway_edge.auth import authenticate
from tollway_edge.cache import (
    CacheUse,
    Entry,
    ResponseCache,
    StreamCollector,
    cache_key,
    cacheable,
    directives,
    replay_stream,
)
from tollway_edge.call import Call
from tollway_edge.errors import (
    EdgeError,
    anthropic_error_type,
    from_translation,
    model_not_allowed,
    model_not_found,
    model_not_in_allowed_regions,
    redaction_not_covered,
    too_large,
    unsupported,
    upstream_error,
)
from tollway_edge.metrics import RESPONSE_CACHE
from tollway_edge.redaction.fields import FieldTable
from tollway_edge.routing.forward import Outbound, Target, forward
from tollway_edge.routing.plan import plan
from tollway_edge.routing.upstream import Upstream
from tollway_edge.state import CALL_KEY, STATE, EdgeState
from tollway_edge.streaming.formats import AnthropicReader
from tollway_edge.streaming.relay import CLIENT_GONE, STREAM_HEADERS, StreamReader, UsageReader, relay_stream
from tollway_edge.streaming.terminator import Terminator
from tollway_edge.tracing import OPERATIONS
from tollway_edge.translate import TranslationError
from tollway_edge.usage import Tokens, estimate_prompt_tokens, estimated_tokens

JSON = "application/json"


class ParsedRequest(Protocol):
    """A request body parsed once by its endpoint.

    Attributes:
        body: the decoded JSON object (redaction reads and replaces it).
        model: the requested model; stream: a streamed answer was asked for;
        wants_usage: the client itself asked for the stream's usage chunk.
    """

    body: dict[str, Any]
    model: str
    stream: bool
    wants_usage: bool

    def prompt_bound(self) -> int:
        """Upper bound on the prompt's tokens (``admission.bounds``)."""

    def output_bound(self, model_cap: int) -> int:
        """Completion tokens the call may produce (``admission.bounds``)."""

    def replace_body(self, body: dict[str, Any]) -> None:
        """Forward ``body`` instead (redaction's copy)."""

    def encoded(self, upstream_model: str) -> bytes:
        """The body to send, naming ``upstream_model``."""


class Translation(Protocol):
    """An endpoint served by a provider kind that speaks another API.

    Attributes:
        path: the provider API path the translated body goes to.
    """

    path: str

    def outbound(
        self, parsed: ParsedRequest, entry: Model, headers: Mapping[str, str], provider: Provider
    ) -> Target:
        """The translated body (and headers) for ``provider`` (its ``api_version``
        may change what the translation may send).

        Raises:
            TranslationError: 400, the request cannot be expressed in the provider's API.
        """

    def answer(self, obj: dict[str, Any]) -> tuple[dict[str, Any], Tokens]:
        """The client's answer for a provider's 200 JSON, and its tokens.

        Raises:
            TranslationError: 502, the answer cannot be translated.
        """

    def reader(self, parsed: ParsedRequest) -> StreamReader:
        """The stream translator for this call."""


class Endpoint(Protocol):
    """One client-facing API (OpenAI's chat completions, embeddings...; Anthropic's Messages).

    Attributes:
        upstream_path: the API path, e.g. ``/chat/completions``; each
            route's provider kind (``routing.kinds``) turns it into a URL,
            and a model none of whose kinds serves it is a 400 ``unsupported``.
        redaction_fields: the field table of this endpoint's bodies
            (``redaction.fields``), which the redaction step walks; None
            when there is none yet: a key whose policy is ``redact`` or
            ``block`` gets a 400 ``redaction_unsupported`` (fail closed).
        fallback: False pins the call to the first serving route (state
            kept by the provider, e.g. stored responses).
        translations: by provider kind name, how a kind that does not serve
            ``upstream_path`` natively serves this endpoint anyway.
        anthropic_format: the client speaks Anthropic's API (its errors are
            Anthropic-format).
        client_headers: request headers passed through to a native provider
            (lower case; e.g. ``anthropic-version``).
        response_cache: the endpoint's answers may be served from the exact
            response cache (``tollway_edge.cache``; OpenAI chat completions).
    """

    upstream_path: str
    redaction_fields: FieldTable | None
    fallback: bool
    translations: Mapping[str, Translation]
    anthropic_format: bool
    client_headers: tuple[str, ...]
    response_cache: bool

    def parse(self, raw: bytes, call: Call) -> ParsedRequest:
        """Parse and check the body, recording ``call.model``/``call.stream``
        as soon as they are known (also when a later check fails).

        Raises:
            tollway_edge.errors.EdgeError: 400 naming the field at fault.
        """

    def usage_of(self, answer: Any) -> Tokens | None:
        """The tokens of a parsed non-streamed answer, or None."""

    def terminator(self, call: Call) -> Terminator:
        """The terminator of this endpoint's stream format."""


async def read_body(request: web.Request, max_body_bytes: int) -> bytes:
    """The request body, at most ``max_body_bytes`` bytes.

    Raises:
        tollway_edge.errors.EdgeError: 413 ``request_too_large``.
    """
    length = request.content_length
    if length is not None and length > max_body_bytes:
        raise too_large(max_body_bytes)
    try:
        return await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise too_large(max_body_bytes) from None


async def handle(request: web.Request, endpoint: Endpoint) -> web.StreamResponse:
    """Run the whole request path for ``endpoint`` (see module doc).

    Raises:
        tollway_edge.errors.EdgeError: every refusal, turned into a response
            by the middleware (the ``failed`` event is already emitted).
    """
    state = request.app[STATE]
    call = request[CALL_KEY]
    # the call keeps the catalogue it started with (catalogue_live swaps all three at once)
    catalogue, version, upstreams = state.catalogue, state.catalogue_version, state.upstreams
    call.principal = await authenticate(state.snapshot, state.sync, state.pepper, request.headers)
    parsed: ParsedRequest | None = None
    use: CacheUse | None = None
    hit: Entry | None = None
    try:
        parsed = endpoint.parse(await read_body(request, state.max_body_bytes), call)
        if call.span is not None:
            call.span.set_attributes(
                {
                    "gen_ai.operation.name": OPERATIONS.get(endpoint.upstream_path, endpoint.upstream_path),
                    "gen_ai.request.model": parsed.model,
                }
            )
        entry = catalogue.models.get(parsed.model)
        if entry is None:
            raise model_not_found(parsed.model)
        if not call.principal.may_use(parsed.model):
            raise model_not_allowed(parsed.model)
        deployments = _plan(
            upstreams, endpoint, entry.deployments, parsed.model, call.principal.allowed_regions
        )
        if not endpoint.fallback:
            deployments = deployments[:1]
        policy = call.principal.redaction_policy
        if endpoint.redaction_fields is None and policy is not None and policy.mode in ("redact", "block"):
            raise redaction_not_covered(endpoint.upstream_path, policy.mode)
        if state.admission is not None:
            call.ticket = await state.admission.admit(
                call.principal,
                parsed.model,
                entry,
                parsed.prompt_bound(),
                parsed.output_bound(entry.max_output_tokens),
                call.request_id,
                parsed.stream,
            )
        if state.redaction is not None:
            body = await state.redaction.apply(call, parsed.body, endpoint.redaction_fields or {})
            if body is not parsed.body:
                parsed.replace_body(body)
        call.catalogue_version = version
        ttl = call.principal.response_cache_ttl_seconds
        if ttl is not None and endpoint.response_cache and state.response_cache is not None:
            if cacheable(parsed.body):  # the default path (no policy) never reaches Valkey
                use = CacheUse(
                    cache_key(call.principal.tenant_id, endpoint.upstream_path, parsed.body),
                    ttl,
                    directives(request.headers),
                )
                if use.directives.lookup:
                    hit = await state.response_cache.get(use.key)
                    if hit is not None and not hit.admitted_by(call.principal.allowed_regions):
                        hit = None  # answered outside the caller's regions: never served to it
                call.cache_status = "miss" if hit is None else "hit"
                outcome = call.cache_status if use.directives.lookup else "bypass"
                RESPONSE_CACHE.labels(outcome).inc()
        if hit is not None:
            return await _serve_hit(request, state, call, hit, parsed.wants_usage)
        try:
            targets = _targets(upstreams, endpoint, deployments, parsed, entry, request.headers)
        except TranslationError as err:
            raise from_translation(err) from None
        answer = await forward(
            call,
            upstreams,
            deployments,
            targets,
            parsed.stream,
            catalogue.retry_of,
            state.breakers,
        )
    except EdgeError as err:
        call.fail(err.status, err.code)
        await call.release()
        raise
    except asyncio.CancelledError:
        # Only the stop cancels a handler (handler_cancellation is off): a call
        # the provider already heard of is billed for its estimated prompt.
        model = catalogue.models.get(parsed.model) if parsed is not None else None
        if call.started_sent and parsed is not None and model is not None:
            tokens = estimated_tokens(estimate_prompt_tokens(parsed.body), 0)
            call.usage_estimated = True
            call.fail(503, "server_shutting_down", tokens, tokens.cost(model.prices))
        await call.release()
        raise
    translation = _translation(upstreams, endpoint, call.provider)
    try:
        resp, raw = answer.response, answer.body
        if raw is None:
            reader = _reader(endpoint, translation, parsed)
            collector = None
            if use is not None and use.directives.store:
                collector = StreamCollector(reader or UsageReader(forward_usage_chunk=parsed.wants_usage))
                reader = collector
            out = await relay_stream(
                request,
                call,
                resp,
                first=answer.first,
                terminator=endpoint.terminator(call),
                client_wants_usage=parsed.wants_usage,
                prices=entry.prices,
                admission=state.admission,
                redaction=state.redaction,
                prompt_estimate=lambda: estimate_prompt_tokens(parsed.body),  # the body the provider got
                live=state.streams,
                reader=reader,
            )
            if collector is not None and use is not None and state.response_cache is not None:
                await _store_stream(state.response_cache, call, use, collector, deployments)
            if call.error_type == "upstream_stream_error" and state.breakers is not None and answer.breaker:
                state.breakers.record(answer.breaker, False)  # failed after its first byte
            return out
        out_json = _answer(
            state,
            call,
            endpoint,
            translation,
            resp.status,
            raw,
            resp.content_type,
            entry.prices,
            use,
            deployments,
        )
        if use is not None and use.pending is not None and state.response_cache is not None:
            await state.response_cache.put(use.key, use.pending, use.ttl_seconds)
        return out_json
    finally:
        if call.upstream_span is not None:  # a relayed stream's provider span ends with the relay
            call.upstream_span.end()
        await call.release()


def _reader(
    endpoint: Endpoint, translation: Translation | None, parsed: ParsedRequest
) -> StreamReader | None:
    """The stream's format: the translation's, Anthropic's events relayed as they
    are, or (None) OpenAI chunks relayed as they are."""
    if translation is not None:
        return translation.reader(parsed)
    return AnthropicReader() if endpoint.anthropic_format else None


def _translation(
    upstreams: Mapping[str, Upstream], endpoint: Endpoint, provider: str | None
) -> Translation | None:
    """The translation the answering provider needs, or None (native)."""
    if provider is None:
        return None
    kind = upstreams[provider].kind
    return None if kind.serves(endpoint.upstream_path) else endpoint.translations.get(kind.name)


def _targets(
    upstreams: Mapping[str, Upstream],
    endpoint: Endpoint,
    deployments: Sequence[Deployment],
    parsed: ParsedRequest,
    entry: Model,
    headers: Mapping[str, str],
) -> dict[str, Target]:
    """What each provider among ``deployments`` is sent: the body as is, or translated
    (after redaction; once per provider).

    Raises:
        TranslationError: 400, the body cannot be expressed in a route's API.
    """
    targets: dict[str, Target] = {}
    for deployment in deployments:
        upstream = upstreams[deployment.provider]
        if upstream.name in targets:
            continue
        kind = upstream.kind
        translation = None if kind.serves(endpoint.upstream_path) else endpoint.translations.get(kind.name)
        if translation is None:
            passed = {h: headers[h] for h in endpoint.client_headers if h in headers}
            outbound: Outbound = parsed
            targets[upstream.name] = Target(endpoint.upstream_path, outbound, passed)
        else:
            targets[upstream.name] = translation.outbound(parsed, entry, headers, upstream.provider)
    return targets


def _plan(
    upstreams: Mapping[str, Upstream],
    endpoint: Endpoint,
    deployments: Sequence[Deployment],
    model: str,
    allowed_regions: frozenset[str] | None,
) -> list[Deployment]:
    """The call's plan (``routing.plan``): the deployments whose provider kind
    serves the endpoint (``routing.kinds``) natively or through one of its
    translations and that the key's residency policy admits, by priority,
    weighted within a level. Retries and fallback only ever walk this list,
    so they never leave the allowed regions.

    Raises:
        tollway_edge.errors.EdgeError: 400 ``unsupported`` when no deployment
            serves ``path``; 403 ``model_not_in_allowed_regions`` when some
            do but none is in the allowed regions.
    """
    path = endpoint.upstream_path

    def serves(d: Deployment) -> bool:
        kind = upstreams[d.provider].kind
        translation = endpoint.translations.get(kind.name)
        return kind.serves(path) or (translation is not None and kind.serves(translation.path))

    planned = plan(deployments, allowed_regions=allowed_regions, serves=serves)
    if not planned:
        if not any(serves(d) for d in deployments):
            kinds = ", ".join(sorted({upstreams[d.provider].kind.name for d in deployments}))
            raise unsupported(path, model, kinds)
        raise model_not_in_allowed_regions(model)
    return planned


def _answer(
    state: EdgeState,
    call: Call,
    endpoint: Endpoint,
    translation: Translation | None,
    status: int,
    raw: bytes,
    content_type: str,
    prices: Prices,
    use: CacheUse | None = None,
    deployments: Sequence[Deployment] = (),
) -> web.Response:
    """A non-streamed answer: parsed once for its usage (and restoration), translated
    into the client's API when the provider speaks another. With ``use`` (the call
    may store its answer), a 200 with usage becomes ``use.pending``: the answer
    as the provider gave it, before restoration (``tollway_edge.cache``).

    Raises:
        tollway_edge.errors.EdgeError: 502 when a translated provider's answer cannot
            be translated (the ``failed`` event is emitted).
    """
    if status == 200:
        obj = None
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
        if translation is not None:
            try:
                if type(obj) is not dict:
                    raise TranslationError(
                        "the provider's answer is not a JSON object",
                        status=502,
                        code="invalid_provider_response",
                    )
                obj, translated_tokens = translation.answer(obj)
            except TranslationError as err:
                call.fail(err.status, err.code)
                raise from_translation(err) from None
            raw = orjson.dumps(obj)
            tokens: Tokens | None = translated_tokens
        else:
            tokens = endpoint.usage_of(obj) if type(obj) is dict else None
        if call.span is not None and type(obj) is dict:
            _trace_finish_reasons(call, obj)
        if use is not None and use.directives.store and tokens is not None and type(obj) is dict:
            use.pending = _entry(call, obj, tokens, deployments).encode()  # before restoration
        if type(obj) is dict and call.redaction_policy is not None and state.redaction is not None:
            raw = state.redaction.restore_plain(call, obj, raw)  # reversible: values back; prime the cache
        call.completed(200, tokens, None if tokens is None else tokens.cost(prices))
        return web.Response(body=raw, status=200, content_type=JSON)
    if status < 400:
        call.completed(status)
        return web.Response(body=raw, status=status, content_type=content_type or JSON)
    out, code = provider_error_body(status, raw, endpoint.anthropic_format, translation is not None)
    call.fail(status, code)
    return web.Response(body=out, status=status, content_type=JSON)


def _entry(call: Call, obj: dict[str, Any], tokens: Tokens, deployments: Sequence[Deployment]) -> Entry:
    """The cache entry of a call's answer, naming the deployment that answered and its regions."""
    answered = next(
        (
            d
            for d in deployments
            if (d.name is not None and d.name == call.deployment)
            or (d.name is None and d.provider == call.provider and d.upstream_model == call.upstream_model)
        ),
        None,
    )
    return Entry(
        answer=obj,
        tokens=tokens,
        provider=call.provider,
        upstream_model=call.upstream_model,
        deployment=call.deployment,
        regions=frozenset() if answered is None else answered.regions,
    )


async def _store_stream(
    cache: ResponseCache,
    call: Call,
    use: CacheUse,
    collector: StreamCollector,
    deployments: Sequence[Deployment],
) -> None:
    """Store a streamed miss's answer (assembled by ``collector``) when the stream
    completed whole with the provider's usage."""
    tokens = collector.tokens()
    if not collector.done or call.error_type is not None or call.status != 200 or tokens is None:
        return
    answer = collector.answer(tokens)
    if answer is not None:
        await cache.put(use.key, _entry(call, answer, tokens, deployments).encode(), use.ttl_seconds)


async def _serve_hit(
    request: web.Request, state: EdgeState, call: Call, hit: Entry, wants_usage: bool
) -> web.StreamResponse:
    """Answer from the cache: the stored answer, restored with this call's own
    redaction mapping, as JSON or replayed as a stream; metered as a call with the
    original tokens, zero provider attempts and cost 0 (``response_cache_hit``)."""
    call.provider, call.upstream_model, call.deployment = hit.provider, hit.upstream_model, hit.deployment
    call.response_cache_hit = True
    call.started()
    try:
        obj = hit.answer
        raw = orjson.dumps(obj)
        if call.redaction_policy is not None and state.redaction is not None:
            raw = state.redaction.restore_plain(call, obj, raw)
            obj = orjson.loads(raw)
        call.completed(200, hit.tokens, 0)
        if not call.stream:
            return web.Response(body=raw, status=200, content_type=JSON)
        resp = web.StreamResponse(status=200, headers=STREAM_HEADERS)
        with contextlib.suppress(*CLIENT_GONE):  # a client that left was still served (and billed) in full
            await resp.prepare(request)
            await resp.write(replay_stream(obj, wants_usage))
            await resp.write_eof()
        return resp
    finally:
        await call.release()


def _trace_finish_reasons(call: Call, answer: dict[str, Any]) -> None:
    """``gen_ai.response.finish_reasons`` on the server span: each choice's
    ``finish_reason`` of an OpenAI-format answer (streams: not read)."""
    choices = answer.get("choices")
    if type(choices) is not list:
        return
    reasons = [str(c["finish_reason"]) for c in choices if type(c) is dict and c.get("finish_reason")]
    if reasons and call.span is not None:
        call.span.set_attribute("gen_ai.response.finish_reasons", reasons)


def provider_error_body(status: int, raw: bytes, anthropic: bool, translated: bool) -> tuple[bytes, str]:
    """The provider's error body and its code, in the client's format.

    Native: the body as is when it is an error object (OpenAI's
    ``{"error": {...}}``; Anthropic's ``{"type": "error", "error": {...}}``).
    Translated: its ``message`` and ``type`` re-rendered in the client's format.
    Anything else: the edge's own ``upstream_error``.
    """
    err: Any = None
    try:
        obj = orjson.loads(raw)
        err = obj.get("error") if type(obj) is dict else None
    except orjson.JSONDecodeError:
        pass
    if type(err) is not dict or "message" not in err:
        fallback = upstream_error(status)
        return (fallback.anthropic_body() if anthropic else fallback.body()), "upstream_error"
    code = str(err.get("code") or err.get("type") or "upstream_error")
    if not translated:
        return raw, code
    message = str(err.get("message"))
    if anthropic:
        body = {"type": "error", "error": {"type": anthropic_error_type(status), "message": message}}
    else:
        kind = err.get("type") if type(err.get("type")) is str else "api_error"
        body = {"error": {"message": message, "type": kind, "param": None, "code": None}}
    return orjson.dumps(body), code
