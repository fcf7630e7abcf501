"""The request path itself: :func:`handle` (authenticate → parse → model →
allow-list → admit → redact → cache → forward → relay or answer; see the
package doc) and :func:`read_body`."""

from __future__ import annotations

import asyncio

from aiohttp import web

from tollway_edge.auth import authenticate
from tollway_edge.cache import (
    CacheUse,
    Entry,
    StreamCollector,
    cache_key,
    cacheable,
    directives,
)
from tollway_edge.errors import (
    EdgeError,
    from_translation,
    model_not_allowed,
    model_not_found,
    redaction_not_covered,
    too_large,
)
from tollway_edge.metrics import RESPONSE_CACHE
from tollway_edge.pipeline.answer import answer_json
from tollway_edge.pipeline.cached import serve_hit, store_stream
from tollway_edge.pipeline.protocols import Endpoint, ParsedRequest
from tollway_edge.pipeline.routes import build_targets, plan_call, stream_reader, translation_for
from tollway_edge.routing.forward import forward
from tollway_edge.state import CALL_KEY, STATE
from tollway_edge.streaming.readers import UsageReader
from tollway_edge.streaming.relay import relay_stream
from tollway_edge.tracing import OPERATIONS
from tollway_edge.translate import TranslationError
from tollway_edge.usage import estimate_prompt_tokens, estimated_tokens


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
        deployments = plan_call(
            upstreams, endpoint, entry.deployments, parsed.model, call.principal.allowed_regions
        )
        if endpoint.pins is not None:  # a follow-up reaches the one deployment holding its state
            deployments = await endpoint.pins.pin(state, call, parsed.body, entry, deployments)
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
            return await serve_hit(request, state, call, hit, parsed.wants_usage)
        try:
            targets = build_targets(upstreams, endpoint, deployments, parsed, entry, request.headers)
        except TranslationError as err:
            raise from_translation(err) from None
        call.recovery = (lambda: estimate_prompt_tokens(parsed.body), entry.prices)  # the body sent
        answer = await forward(
            call,
            upstreams,
            deployments,
            targets,
            parsed.stream,
            catalogue.retry_of,
            state.breakers,
        )
        if endpoint.pins is not None:
            await endpoint.pins.created(state, call, parsed.body, answer)
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
    translation = translation_for(upstreams, endpoint, call.provider)
    try:
        resp, raw = answer.response, answer.body
        if raw is None:
            reader = stream_reader(endpoint, translation, parsed)
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
                await store_stream(state.response_cache, call, use, collector, deployments)
            if call.error_type == "upstream_stream_error" and state.breakers is not None and answer.breaker:
                state.breakers.record(answer.breaker, False)  # failed after its first byte
            return out
        out_json = await answer_json(
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
