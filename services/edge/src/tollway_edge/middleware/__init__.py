"""What wraps every request: the call's id, load shedding, the journal-full
refusal, errors turned into responses (``responses``), metrics, the
canonical log line, and the ``x-request-id``/``x-tollway-overhead-ms``
headers on every response."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import structlog
from aiohttp import web
from aiohttp.typedefs import Handler

from tollway_edge.call import Call
from tollway_edge.errors import EdgeError, journal_full, overloaded
from tollway_edge.metrics import DURATION, IN_FLIGHT, OVERHEAD, REQUESTS, SHED, TTFT
from tollway_edge.middleware.responses import (
    anthropic_path,
    error_response,
    http_error_response,
    internal_error_response,
)
from tollway_edge.state import CALL_KEY, STATE
from tollway_edge.tracing import adopt_server_span

log = structlog.get_logger("tollway_edge.request")


async def on_prepare(request: web.Request, response: web.StreamResponse) -> None:
    """Stamp ``x-request-id``, ``x-tollway-overhead-ms`` (ms), the
    admission's ``x-ratelimit-*`` headers on every response, and
    ``x-tollway-cache: hit|miss`` on a call that used the response cache."""
    call = request.get(CALL_KEY)
    if call is None:
        call = request.app[STATE].new_call()
        request[CALL_KEY] = call
    headers = response.headers
    headers["x-request-id"] = call.request_id
    headers["x-tollway-overhead-ms"] = f"{call.overhead_ms():.3f}"
    if call.cache_status is not None:
        headers["x-tollway-cache"] = call.cache_status
    if call.ticket is not None and call.ticket.headers:
        headers.update(call.ticket.headers)


@web.middleware
async def edge_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Request id, load shedding (503 beyond ``max_in_flight``), the journal's
    503 (``journal_full``, no event, like a shed call) while the usage journal
    has no room (``refuse`` policy), errors to responses, the catch-all 500,
    metrics, and one log line per ``/v1/`` call.

    A non-streamed answer leaves only once its terminal event is written to
    the journal (``Call.journaled``; a stream's relay does the same before
    its last bytes)."""
    state = request.app[STATE]
    call = state.new_call()
    request[CALL_KEY] = call
    is_api = request.path.startswith("/v1/")
    if state.tracer is not None and is_api:
        adopted = adopt_server_span()  # tollway_runtime's tracing middleware runs outside this one
        if adopted is not None:
            call.span, call.trace_id, call.trace_context = adopted
    anthropic = anthropic_path(request.path)
    if is_api and state.in_flight >= state.max_in_flight:
        SHED.inc()
        call.status = 503
        return error_response(overloaded(), anthropic=anthropic)
    if is_api and not state.journal.has_room():
        full = journal_full()
        call.status, call.error_type = full.status, full.code
        _account(request, call, state.catalogue.models)
        return error_response(full, anthropic=anthropic)
    state.in_flight += 1
    IN_FLIGHT.inc()
    try:
        try:
            resp = await handler(request)
        except EdgeError as err:
            resp = error_response(err, anthropic=anthropic)
        except web.HTTPException as exc:
            resp = http_error_response(exc, anthropic=anthropic)
        except Exception:
            log.exception("unhandled_error", request_id=call.request_id, path=request.path)
            resp = internal_error_response(anthropic=anthropic)
            if call.model is not None:
                call.fail(500, "internal_error")
        if call.status == 0:
            call.status = resp.status
        await call.journaled()  # the terminal event is written before the answer's first byte
        return resp
    finally:
        state.in_flight -= 1
        IN_FLIGHT.dec()
        if is_api:
            _account(request, call, state.catalogue.models)


def _account(request: web.Request, call: Call, models: Mapping[str, Any]) -> None:
    """Metrics and the canonical log line of one ``/v1/`` call (never keys or prompt text)."""
    status = call.status or 500
    latency = time.perf_counter() - call.t0
    model = call.model if call.model in models else "other" if call.model else "none"
    REQUESTS.labels(str(status), model).inc()
    DURATION.observe(latency)
    overhead_ms = call.overhead_ms()
    OVERHEAD.observe(overhead_ms / 1000.0)
    p = call.principal
    ttft = call.ttft_ms()
    if ttft is not None:
        TTFT.observe(max(ttft, 0.0) / 1000.0)
    shadow = call.ticket.shadow_refusals if call.ticket is not None else None
    log.info(
        "request",
        request_id=call.request_id,
        method=request.method,
        path=request.path,
        key_id=p.key_id if p else None,
        tenant_id=p.tenant_id if p else None,
        model=call.model,
        stream=call.stream,
        status=status,
        error_type=call.error_type,
        provider=call.provider,
        attempts=call.attempts,
        latency_ms=round(latency * 1000.0, 3),
        ttft_ms=None if ttft is None else round(ttft, 3),
        overhead_ms=round(overhead_ms, 3),
        trace_id=call.trace_id,
        # "<scope>:<id> <limit>" of each shadow limit that would have refused (it refused nothing)
        shadow_refusals=None if not shadow else [f"{r.scope} {r.limit}" for r in shadow],
    )
