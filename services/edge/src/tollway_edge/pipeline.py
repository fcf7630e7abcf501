"""The one request pipeline every endpoint shares (DESIGN.md "The request
path"; CONVENTIONS habit 18):

authenticate from the headers (401, no event) → read ≤ ``max_body_bytes``
and parse once (the endpoint's adapter; 400/413) → catalogue model (404) →
allow-list (403) → admit (429/503) → redact (400/413/502/503) → forward with
fallback (502) → relay the stream or return the answer → the terminal event.

A refusal after authentication emits one ``failed`` event and no
``started``; admission's concurrency slot is released when the response ends.
An endpoint is an :class:`Endpoint` (``endpoints/``): it parses its body and
reads its answers; a new endpoint adds a file, not branches here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import orjson
from aiohttp import web

from tollway_contracts.catalogue import Prices, Route
from tollway_edge.auth import authenticate
from tollway_edge.call import Call
from tollway_edge.errors import (
    EdgeError,
    model_not_allowed,
    model_not_found,
    redaction_not_covered,
    too_large,
    unsupported,
    upstream_error,
)
from tollway_edge.routing.forward import forward
from tollway_edge.state import CALL_KEY, STATE, EdgeState
from tollway_edge.streaming.relay import relay_stream
from tollway_edge.streaming.terminator import Terminator
from tollway_edge.tracing import OPERATIONS
from tollway_edge.usage import Tokens

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


class Endpoint(Protocol):
    """One client-facing API (OpenAI chat completions today).

    Attributes:
        upstream_path: the API path, e.g. ``/chat/completions``; each
            route's provider kind (``routing.kinds``) turns it into a URL,
            and a model none of whose kinds serves it is a 400 ``unsupported``.
        redaction_covered: the redaction step reaches every text of this
            endpoint's bodies; when False, a key whose policy is ``redact``
            or ``block`` gets a 400 ``redaction_unsupported`` (fail closed).
        fallback: False pins the call to the first serving route (state
            kept by the provider, e.g. stored responses).
    """

    upstream_path: str
    redaction_covered: bool
    fallback: bool

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


async def _read_body(request: web.Request, max_body_bytes: int) -> bytes:
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
    call.principal = await authenticate(state.snapshot, state.sync, state.pepper, request.headers)
    try:
        parsed = endpoint.parse(await _read_body(request, state.max_body_bytes), call)
        if call.span is not None:
            call.span.set_attributes(
                {
                    "gen_ai.operation.name": OPERATIONS.get(endpoint.upstream_path, endpoint.upstream_path),
                    "gen_ai.request.model": parsed.model,
                }
            )
        entry = state.catalogue.models.get(parsed.model)
        if entry is None:
            raise model_not_found(parsed.model)
        if not call.principal.may_use(parsed.model):
            raise model_not_allowed(parsed.model)
        routes = _serving_routes(state, entry.routes, endpoint.upstream_path, parsed.model)
        if not endpoint.fallback:
            routes = routes[:1]
        policy = call.principal.redaction_policy
        if not endpoint.redaction_covered and policy is not None and policy.mode in ("redact", "block"):
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
            body = await state.redaction.apply(call, parsed.body)
            if body is not parsed.body:
                parsed.replace_body(body)
        resp, raw = await forward(
            call, state.upstreams, routes, parsed, endpoint.upstream_path, parsed.stream
        )
    except EdgeError as err:
        call.fail(err.status, err.code)
        await call.release()
        raise
    try:
        if raw is None:
            return await relay_stream(
                request,
                call,
                resp,
                terminator=endpoint.terminator(call),
                client_wants_usage=parsed.wants_usage,
                prices=entry.prices,
                admission=state.admission,
                redaction=state.redaction,
            )
        return _answer(state, call, endpoint, resp.status, raw, resp.content_type, entry.prices)
    finally:
        if call.upstream_span is not None:  # a relayed stream's provider span ends with the relay
            call.upstream_span.end()
        await call.release()


def _serving_routes(state: EdgeState, routes: Sequence[Route], path: str, model: str) -> list[Route]:
    """The routes whose provider kind serves ``path`` (``routing.kinds``), in order.

    Raises:
        tollway_edge.errors.EdgeError: 400 ``unsupported`` when there is none.
    """
    upstreams = state.upstreams
    serving = [r for r in routes if upstreams[r.provider].kind.serves(path)]
    if not serving:
        kinds = ", ".join(sorted({upstreams[r.provider].kind.name for r in routes}))
        raise unsupported(path, model, kinds)
    return serving


def _answer(
    state: EdgeState,
    call: Call,
    endpoint: Endpoint,
    status: int,
    raw: bytes,
    content_type: str,
    prices: Prices,
) -> web.Response:
    """A non-streamed answer: parsed once for its usage (and restoration)."""
    if status == 200:
        obj = None
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
        tokens = endpoint.usage_of(obj) if type(obj) is dict else None
        if call.span is not None and type(obj) is dict:
            _trace_finish_reasons(call, obj)
        if type(obj) is dict and call.redaction_policy is not None and state.redaction is not None:
            raw = state.redaction.restore_plain(call, obj, raw)  # reversible: values back; prime the cache
        call.completed(200, tokens, None if tokens is None else tokens.cost(prices))
        return web.Response(body=raw, status=200, content_type=JSON)
    if status < 400:
        call.completed(status)
        return web.Response(body=raw, status=status, content_type=content_type or JSON)
    out, code = _provider_error_body(status, raw)
    call.fail(status, code)
    return web.Response(body=out, status=status, content_type=JSON)


def _trace_finish_reasons(call: Call, answer: dict[str, Any]) -> None:
    """``gen_ai.response.finish_reasons`` on the server span: each choice's
    ``finish_reason`` of an OpenAI-format answer (streams: not read)."""
    choices = answer.get("choices")
    if type(choices) is not list:
        return
    reasons = [str(c["finish_reason"]) for c in choices if type(c) is dict and c.get("finish_reason")]
    if reasons and call.span is not None:
        call.span.set_attribute("gen_ai.response.finish_reasons", reasons)


def _provider_error_body(status: int, raw: bytes) -> tuple[bytes, str]:
    """The provider's body when it is OpenAI-format, else ours; and the error code."""
    try:
        obj = orjson.loads(raw)
        err = obj.get("error") if type(obj) is dict else None
        if type(err) is dict and "message" in err:
            code = err.get("code") or err.get("type")
            return raw, str(code) if code else "upstream_error"
    except orjson.JSONDecodeError:
        pass
    return upstream_error(status).body(), "upstream_error"
