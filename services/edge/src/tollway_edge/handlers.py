"""HTTP handlers and middleware of the data plane.

Order on ``POST /v1/chat/completions`` (DESIGN.md "The request path"):
authenticate from the headers (401, no event) → read and validate the body
(400/413/404/403: one ``failed`` event, no ``started``) → admit → redact →
``started`` → forward with fallback → ``completed``/``failed``.
Every response carries ``x-request-id`` and ``x-tollway-overhead-ms``.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import orjson
import structlog
from aiohttp import web

from tollway_contracts.catalogue import Catalogue
from tollway_contracts.errors import error_json
from tollway_contracts.events import RedactionSummary
from tollway_contracts.redaction import RedactionPolicy
from tollway_edge import hooks
from tollway_edge.admission import EdgeAdmission, Ticket
from tollway_edge.bounds import completion_tokens_in
from tollway_edge.emitter import UsageEmitter
from tollway_edge.errors import EdgeError
from tollway_edge.ids import now_ts, uuid4_str
from tollway_edge.metrics import DURATION, IN_FLIGHT, REQUESTS, SHED
from tollway_edge.principals import (
    Principal,
    Snapshot,
    check_principal,
    split_presented,
    unauthorized,
)
from tollway_edge.principals_sync import PrincipalsSync
from tollway_edge.redaction_step import EdgeRedaction
from tollway_edge.sse import SSERelay, _split_events
from tollway_edge.upstream import Upstream
from tollway_edge.usage import Tokens, build_event, extract_usage
from tollway_edge.validation import model_not_allowed, model_not_found, parse_chat_body, wants_usage

log = structlog.get_logger("tollway_edge.request")

JSON = "application/json"
CLIENT_CLOSED = 499  # nginx's convention, for metrics and events only


@dataclass(slots=True)
class EdgeState:
    """Everything a handler needs, built once by ``create_app``."""

    catalogue: Catalogue
    snapshot: Snapshot
    sync: PrincipalsSync | None
    pepper: bytes
    emitter: UsageEmitter
    upstreams: dict[str, Upstream] = field(default_factory=dict)
    max_body_bytes: int = 4 * 1024 * 1024
    max_in_flight: int = 4096
    in_flight: int = 0
    admission: EdgeAdmission | None = None
    redaction: EdgeRedaction | None = None


STATE: web.AppKey[EdgeState] = web.AppKey("edge_state", EdgeState)
CALL_KEY: web.RequestKey[Any] = web.RequestKey("tollway_call", object)


class Call:
    """Per-call bookkeeping (one per HTTP request).

    Times are ``time.perf_counter()`` seconds; ``upstream_wait`` sums the time
    spent waiting on the provider (connect, headers, body reads).
    """

    __slots__ = (
        "request_id",
        "t0",
        "ts_start",
        "upstream_wait",
        "principal",
        "model",
        "stream",
        "provider",
        "upstream_model",
        "attempts",
        "status",
        "error_type",
        "ttft",
        "terminal_sent",
        "ticket",
        "sent_tokens",
        "redaction",
        "redaction_mapping",
        "redaction_policy",
    )

    def __init__(self) -> None:
        self.request_id = uuid4_str()
        self.t0 = time.perf_counter()
        self.ts_start = now_ts()
        self.upstream_wait = 0.0
        self.principal: Principal | None = None
        self.model: str | None = None
        self.stream = False
        self.provider: str | None = None
        self.upstream_model: str | None = None
        self.attempts = 0
        self.status = 0
        self.error_type: str | None = None
        self.ttft: float | None = None
        self.terminal_sent = False
        self.ticket: Ticket | None = None
        self.sent_tokens = 0
        self.redaction: RedactionSummary | None = None  # on every event of the call
        self.redaction_mapping: dict[str, str] | None = None  # reversible mode only; never logged
        self.redaction_policy: RedactionPolicy | None = None  # None when off

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.t0) * 1000.0

    def overhead_ms(self) -> float:
        return max(self.elapsed_ms() - self.upstream_wait * 1000.0, 0.0)


def _error_response(err: EdgeError) -> web.Response:
    resp = web.Response(body=err.body(), status=err.status, content_type=JSON)
    if err.headers:
        resp.headers.update(err.headers)
    if err.status in (429, 503) and "Retry-After" not in resp.headers:
        resp.headers["Retry-After"] = "1"
    return resp


def _emit(
    state: EdgeState, call: Call, type_: str, *, tokens: Tokens | None = None, cost: int | None = None
) -> None:
    p = call.principal
    if p is None:
        return  # unauthenticated: metrics only, never an event
    terminal = type_ != "started"
    if terminal:
        if call.terminal_sent:
            return
        call.terminal_sent = True
    ticket = call.ticket
    if ticket is not None and terminal and state.admission is not None:
        state.admission.finish(ticket, None if tokens is None else tokens.total_tokens, cost)
    value = build_event(
        type_,
        request_id=call.request_id,
        ts_start=call.ts_start,
        ts_end=now_ts() if terminal else None,
        tenant_id=p.tenant_id,
        team_id=p.team_id,
        user_id=p.user_id,
        key_id=p.key_id,
        model=call.model or "unknown",
        stream=call.stream,
        provider=call.provider,
        upstream_model=call.upstream_model,
        status_code=call.status if terminal else None,
        error_type=call.error_type if terminal else None,
        attempts=call.attempts,
        tokens=tokens,
        cost=cost,
        latency_ms=call.elapsed_ms() if terminal else None,
        ttft_ms=None if call.ttft is None or not terminal else (call.ttft - call.t0) * 1000.0,
        overhead_ms=call.overhead_ms() if terminal else None,
        reservation=None if ticket is None else ticket.reservation_field(),
        redaction=call.redaction,
    )
    state.emitter.emit(call.request_id.encode(), value)


def _fail(state: EdgeState, call: Call, status: int, error_type: str | None) -> None:
    call.status = status
    call.error_type = error_type
    _emit(state, call, "failed")


# --- middleware ------------------------------------------------------------


async def on_prepare(request: web.Request, response: web.StreamResponse) -> None:
    """Stamp ``x-request-id`` and ``x-tollway-overhead-ms`` on every response."""
    call: Call | None = request.get(CALL_KEY)
    if call is None:
        call = Call()
        request[CALL_KEY] = call
    response.headers["x-request-id"] = call.request_id
    response.headers["x-tollway-overhead-ms"] = f"{call.overhead_ms():.3f}"
    if call.ticket is not None and call.ticket.headers:
        response.headers.update(call.ticket.headers)


def _http_error(exc: web.HTTPException) -> web.Response:
    status = exc.status
    if status == 404:
        body = error_json("Unknown request URL.", type="invalid_request_error", code="unknown_url")
    elif status == 405:
        body = error_json("Method not allowed.", type="invalid_request_error", code="method_not_allowed")
    elif status == 413:
        body = error_json(
            "The request body is too large.", type="invalid_request_error", code="request_too_large"
        )
    else:
        body = error_json(
            exc.reason or "Error.", type="invalid_request_error" if status < 500 else "api_error"
        )
    resp = web.Response(body=body, status=status, content_type=JSON)
    for name in ("Allow", "Retry-After"):
        if name in exc.headers:
            resp.headers[name] = exc.headers[name]
    return resp


@web.middleware
async def edge_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    """Request id, load shedding, the catch-all 500, metrics, and the canonical log line."""
    call = Call()
    request[CALL_KEY] = call
    state = request.app[STATE]
    is_api = request.path.startswith("/v1/")
    if is_api and state.in_flight >= state.max_in_flight:
        SHED.inc()
        call.status = 503
        resp = _error_response(
            EdgeError(503, "The gateway is at capacity; retry shortly.", type="api_error", code="overloaded")
        )
        return resp
    state.in_flight += 1
    IN_FLIGHT.inc()
    resp: web.StreamResponse | None = None
    try:
        try:
            resp = await handler(request)
        except EdgeError as err:
            resp = _error_response(err)
        except web.HTTPException as exc:
            resp = _http_error(exc)
        except Exception:
            log.exception("unhandled_error", request_id=call.request_id, path=request.path)
            resp = web.Response(
                body=error_json(
                    "The server had an error while processing your request.",
                    type="api_error",
                    code="internal_error",
                ),
                status=500,
                content_type=JSON,
            )
            if call.principal is not None and call.model is not None:
                _fail(state, call, 500, "internal_error")
        if call.status == 0:
            call.status = resp.status
        return resp
    finally:
        state.in_flight -= 1
        IN_FLIGHT.dec()
        if is_api:
            status = call.status or 500
            latency = time.perf_counter() - call.t0
            model = call.model if call.model in state.catalogue.models else "other" if call.model else "none"
            REQUESTS.labels(str(status), model).inc()
            DURATION.observe(latency)
            p = call.principal
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
                ttft_ms=None if call.ttft is None else round((call.ttft - call.t0) * 1000.0, 3),
                overhead_ms=round(call.overhead_ms(), 3),
            )


# --- authentication --------------------------------------------------------


async def authenticate(state: EdgeState, headers: Any) -> Principal:
    """The caller's principal, from memory (one Postgres lookup for an unknown id).

    Raises:
        EdgeError: 401 missing/malformed/unknown/revoked/expired key; 503 when
            an unknown id cannot be looked up (Postgres down).
    """
    key_id, secret = split_presented(headers)
    if not state.snapshot.loaded:
        raise EdgeError(
            503, "Authentication is temporarily unavailable.", type="api_error", code="auth_unavailable"
        )
    principal = state.snapshot.by_key_id.get(key_id)
    if principal is None:
        if state.snapshot.is_known_unknown(key_id) or state.sync is None:
            raise unauthorized("Incorrect API key provided.")
        try:
            principal = await state.sync.lookup_unknown(key_id)
        except Exception:  # noqa: BLE001
            log.warning("key_lookup_failed", key_id=key_id, exc_info=True)
            raise EdgeError(
                503, "Authentication is temporarily unavailable.", type="api_error", code="auth_unavailable"
            ) from None
        if principal is None:
            raise unauthorized("Incorrect API key provided.")
    return check_principal(state.pepper, principal, key_id, secret)


# --- handlers --------------------------------------------------------------


async def list_models(request: web.Request) -> web.Response:
    """``GET /v1/models``: the catalogue models the key may use, OpenAI list shape."""
    state = request.app[STATE]
    call: Call = request[CALL_KEY]
    principal = await authenticate(state, request.headers)
    call.principal = principal
    data = [
        {"id": name, "object": "model", "created": 0, "owned_by": model.owned_by}
        for name, model in state.catalogue.models.items()
        if principal.may_use(name)
    ]
    return web.Response(body=orjson.dumps({"object": "list", "data": data}), content_type=JSON)


async def chat_completions(request: web.Request) -> web.StreamResponse:
    """``POST /v1/chat/completions``: the whole request path."""
    state = request.app[STATE]
    call: Call = request[CALL_KEY]
    call.principal = await authenticate(state, request.headers)
    try:
        length = request.content_length
        if length is not None and length > state.max_body_bytes:
            raise _too_large(state)
        try:
            raw = await request.read()
        except web.HTTPRequestEntityTooLarge:
            raise _too_large(state) from None
        body = parse_chat_body_keep_model(raw, call)
        model = body["model"]
        entry = state.catalogue.models.get(model)
        if entry is None:
            raise model_not_found(model)
        if not call.principal.may_use(model):
            raise model_not_allowed(model)
        call.stream = body.get("stream") is True
        if state.admission is not None:
            call.ticket = await hooks.admit(
                state.admission, call.principal, model, entry, body, call.request_id, call.stream
            )
        body = await hooks.redact(state.redaction, call, body)
    except EdgeError as err:
        _fail(state, call, err.status, err.code)
        if call.ticket is not None and state.admission is not None:
            await state.admission.release(call.ticket)
        raise
    try:
        return await _forward(request, state, call, body, entry)
    finally:
        if call.ticket is not None and state.admission is not None:
            await state.admission.release(call.ticket)


def parse_chat_body_keep_model(raw: bytes, call: Call) -> dict[str, Any]:
    """:func:`parse_chat_body`, remembering the requested model even when a later check fails."""
    try:
        return _record_model(parse_chat_body(raw), call)
    except EdgeError:
        try:
            obj = orjson.loads(raw)
            if type(obj) is dict and type(obj.get("model")) is str:
                call.model = obj["model"]
            if type(obj) is dict and obj.get("stream") is True:
                call.stream = True
        except orjson.JSONDecodeError:
            pass
        raise


def _record_model(body: dict[str, Any], call: Call) -> dict[str, Any]:
    call.model = body["model"]
    return body


def _too_large(state: EdgeState) -> EdgeError:
    return EdgeError(
        413,
        f"The request body exceeds {state.max_body_bytes} bytes.",
        code="request_too_large",
    )


class _Retry(Exception):
    """An attempt that may fall back to the next route."""


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
    return (
        error_json(f"The provider answered HTTP {status}.", type="api_error", code="upstream_error"),
        "upstream_error",
    )


async def _forward(
    request: web.Request, state: EdgeState, call: Call, body: dict[str, Any], entry: Any
) -> web.StreamResponse:
    stream = call.stream
    client_wants_usage = wants_usage(body)
    if stream:
        options = dict(body.get("stream_options") or {})
        options["include_usage"] = True
        body["stream_options"] = options
    routes = entry.routes
    last = len(routes) - 1
    started = False
    last_error = "upstream_unavailable"
    for index, route in enumerate(routes):
        upstream = state.upstreams[route.provider]
        call.provider = upstream.name
        call.upstream_model = route.upstream_model
        if not started:
            _emit(state, call, "started")
            started = True
        call.attempts += 1
        if not upstream.usable:
            last_error = "upstream_credential_missing"
            continue
        body["model"] = route.upstream_model
        headers = dict(upstream.headers)
        headers["x-request-id"] = call.request_id
        t = time.perf_counter()
        resp: aiohttp.ClientResponse | None = None
        try:
            async with asyncio.timeout(upstream.timeout_seconds):
                resp = await upstream.session.post(upstream.url, data=orjson.dumps(body), headers=headers)
                if not (stream and resp.status == 200):
                    raw = await resp.read()
        except TimeoutError:
            last_error = "upstream_timeout"
            if resp is not None:
                resp.close()
            continue
        except (aiohttp.ClientError, OSError):
            last_error = "upstream_unavailable"
            if resp is not None:
                resp.close()
            continue
        finally:
            call.upstream_wait += time.perf_counter() - t
        status = resp.status
        if (status == 429 or status >= 500) and index < last:
            last_error = f"upstream_{status}"
            resp.release()
            continue
        if stream and status == 200:
            return await _relay_stream(request, state, call, resp, entry, client_wants_usage)
        return _finish_plain(state, call, status, raw, resp.content_type, entry)
    err = EdgeError(
        502,
        "The provider could not be reached.",
        type="api_error",
        code=last_error if last_error.startswith("upstream_") else "upstream_unavailable",
    )
    _fail(state, call, 502, err.code)
    raise err


def _finish_plain(
    state: EdgeState, call: Call, status: int, raw: bytes, content_type: str, entry: Any
) -> web.Response:
    if status == 200:
        tokens = None
        try:
            obj = orjson.loads(raw)
            if type(obj) is dict:
                tokens = extract_usage(obj.get("usage"))
        except orjson.JSONDecodeError:
            pass
        call.status = 200
        if call.redaction_policy is not None and state.redaction is not None:
            raw = state.redaction.restore_plain(
                call, raw
            )  # reversible: original values back; prime the cache
        _emit(
            state,
            call,
            "completed",
            tokens=tokens,
            cost=None if tokens is None else tokens.cost(entry.prices),
        )
        return web.Response(body=raw, status=200, content_type=JSON)
    if status < 400:
        call.status = status
        _emit(state, call, "completed")
        return web.Response(body=raw, status=status, content_type=content_type or JSON)
    out, code = _provider_error_body(status, raw)
    _fail(state, call, status, code)
    return web.Response(body=out, status=status, content_type=JSON)


async def _relay_stream(
    request: web.Request,
    state: EdgeState,
    call: Call,
    upstream_resp: aiohttp.ClientResponse,
    entry: Any,
    client_wants_usage: bool,
) -> web.StreamResponse:
    relay = SSERelay(forward_usage_chunk=client_wants_usage)
    restorer = state.redaction.stream_restorer(call) if state.redaction is not None else None
    ticket = call.ticket
    first_event: bytes | None = None
    out = web.StreamResponse(
        status=200,
        headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
    outcome = "failed"
    call.status = 200
    try:
        try:
            await out.prepare(request)
        except (ConnectionResetError, aiohttp.ClientConnectionResetError):
            call.status, call.error_type = CLIENT_CLOSED, "client_disconnected"
            return out
        content = upstream_resp.content
        while True:
            t = time.perf_counter()
            try:
                chunk = await content.readany()
            except (aiohttp.ClientError, OSError, TimeoutError):
                call.error_type = "upstream_stream_error"
                break
            finally:
                call.upstream_wait += time.perf_counter() - t
            if not chunk:
                data = relay.finish()
            else:
                if call.ttft is None:
                    call.ttft = time.perf_counter()
                data = relay.feed(chunk)
            if data and restorer is not None:
                data = restorer.feed(
                    data
                )  # reversible: restore placeholders, holding back only a partial one
            if data and ticket is not None:
                if first_event is None:
                    first_event = data
                n = completion_tokens_in(data)
                cut = False
                if n and call.sent_tokens + n > ticket.reserved_out:
                    data, n, cut = await _cover(state, call, ticket, data, n)
                call.sent_tokens += n
                if cut:
                    data += _cut_tail(first_event, call, ticket, client_wants_usage)
                    outcome = "cut"
                    call.error_type = "stream_limit_reached"
            if data:
                try:
                    await out.write(data)
                except (ConnectionResetError, aiohttp.ClientConnectionResetError, RuntimeError):
                    call.status, call.error_type = CLIENT_CLOSED, "client_disconnected"
                    outcome = "failed"
                    break
            if outcome == "cut":
                break
            if not chunk:
                outcome = "completed"
                break
        if outcome in ("completed", "cut"):
            try:
                await out.write_eof()
            except (ConnectionResetError, aiohttp.ClientConnectionResetError, RuntimeError):
                pass
        return out
    finally:
        upstream_resp.release() if outcome == "completed" else upstream_resp.close()
        tokens = extract_usage(relay.usage)
        if outcome == "cut" and ticket is not None:
            # The provider's usage never arrives: bill what the client received.
            tokens = Tokens(
                ticket.prompt_tokens, call.sent_tokens, 0, 0, ticket.prompt_tokens + call.sent_tokens
            )
        cost = None if tokens is None else tokens.cost(entry.prices)
        if outcome in ("completed", "cut"):
            if restorer is not None and state.redaction is not None:
                state.redaction.prime(call, [restorer.answer])
            _emit(state, call, "completed", tokens=tokens, cost=cost)
        else:
            if call.error_type is None:
                call.status, call.error_type = CLIENT_CLOSED, "client_disconnected"
            _emit(state, call, "failed", tokens=tokens, cost=cost)


async def _cover(
    state: EdgeState, call: Call, ticket: Ticket, data: bytes, n: int
) -> tuple[bytes, int, bool]:
    """Extend the stream's reservation to cover ``n`` more completion tokens.

    Asks for the whole deficit (at least ``stream_extend_tokens``) at once;
    when that is refused, goes event by event, asking for exactly what each
    event needs, so the client gets every token the limits allow.

    Returns:
        ``(data to forward, its tokens, cut)``: all of ``data`` when covered;
        otherwise the leading events that fit, and ``cut=True`` (the edge ends
        the stream).
    """
    adm = state.admission
    assert adm is not None
    need = call.sent_tokens + n - ticket.reserved_out
    if await adm.extend(ticket, max(need, adm.stream_step)):
        return data, n, False
    kept: list[bytes] = []
    used = 0
    for event in _split_events(data):
        k = completion_tokens_in(event)
        short = call.sent_tokens + used + k - ticket.reserved_out
        if short > 0 and not await adm.extend(ticket, short):
            return b"".join(kept), used, True
        kept.append(event)
        used += k
    return b"".join(kept), used, False


def _cut_tail(first_event: bytes, call: Call, ticket: Ticket, client_wants_usage: bool) -> bytes:
    """The end of a stream the edge cuts: a chunk with ``finish_reason: "length"``,
    the usage chunk if the client asked for usage (the tokens it received), ``[DONE]``."""
    ident: dict[str, Any] = {
        "id": f"chatcmpl-{call.request_id}",
        "model": call.model,
        "created": int(time.time()),
    }
    for event in _split_events(first_event):
        try:
            first = orjson.loads(event.split(b"data:", 1)[1])
        except (IndexError, orjson.JSONDecodeError):
            continue
        if type(first) is dict:
            for k in ident:
                if k in first:
                    ident[k] = first[k]
            break
    base = {
        "id": ident["id"],
        "object": "chat.completion.chunk",
        "created": ident["created"],
        "model": ident["model"],
    }
    out = (
        b"data: "
        + orjson.dumps(
            {**base, "choices": [{"index": 0, "delta": {}, "logprobs": None, "finish_reason": "length"}]}
        )
        + b"\n\n"
    )
    if client_wants_usage:
        usage = {
            "prompt_tokens": ticket.prompt_tokens,
            "completion_tokens": call.sent_tokens,
            "total_tokens": ticket.prompt_tokens + call.sent_tokens,
        }
        out += b"data: " + orjson.dumps({**base, "choices": [], "usage": usage}) + b"\n\n"
    return out + b"data: [DONE]\n\n"
