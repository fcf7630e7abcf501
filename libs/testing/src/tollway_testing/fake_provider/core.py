"""What every API shares: configuration, the request log, one call's context and its record.

A :class:`Call` is made per request: it knows its request id, its deployment
(from the URL), its fault, and writes exactly one record to the
:class:`RequestLog` (and one structlog line) however the request ends.
"""

from __future__ import annotations

import asyncio
import collections
import time
import uuid
from dataclasses import dataclass
from typing import Any, Literal, NoReturn

import orjson
from aiohttp import web

from tollway_testing.fake_provider.faults import FAULTS, Fault, fault_from_headers

DEFAULT_MODELS = ("fake-model", "fake-model-large", "fake-embedding")
DEFAULT_DEPLOYMENT = "default"
"""The deployment of a request on a plain path (``/v1/...``, no ``/d/<deployment>`` prefix)."""


@dataclass(slots=True)
class FakeProviderConfig:
    """Behaviour of one fake provider instance; headers override per request."""

    host: str = "127.0.0.1"
    port: int = 9000
    ttft_ms: float = 0.0
    chunk_interval_ms: float = 0.0
    completion_tokens: int = 20
    embedding_dimensions: int = 8
    models: tuple[str, ...] = DEFAULT_MODELS
    max_records: int = 10_000
    access_log: bool = True
    echo: bool = False
    backlog: int = 4096
    """Listen backlog of ``python -m tollway_testing.fake_provider`` (aiohttp's default is
    128: a burst of 1,000 streams overflowed it, and each dropped SYN is retried after 1 s)."""


class RequestLog:
    """Bounded, thread-safe record of received requests (a deque append/iter).

    Each record: ``request_id, method, path, deployment, api, headers, body,
    stream, status, prompt_tokens, completion_tokens, cached_tokens,
    cache_write_tokens, finish_reason, billable, usage_reported, usage,
    chunks_sent, fault, received_at`` (meanings in libs/testing/README.md).
    """

    def __init__(self, max_records: int = 10_000) -> None:
        self._records: collections.deque[dict[str, Any]] = collections.deque(maxlen=max_records)

    def append(self, record: dict[str, Any]) -> None:
        """Add one record (the oldest goes when full)."""
        self._records.append(record)

    def clear(self) -> None:
        """Forget every record."""
        self._records.clear()

    def all(self, request_id: str | None = None, **match: Any) -> list[dict[str, Any]]:
        """Records oldest first, optionally only one request id and/or equal fields
        (``deployment="east"``, ``api="messages"``, ``billable=True``)."""
        records = list(self._records)
        if request_id is not None:
            records = [r for r in records if r["request_id"] == request_id]
        for key, value in match.items():
            records = [r for r in records if r.get(key) == value]
        return records

    def __len__(self) -> int:
        return len(self._records)


CONFIG_KEY = web.AppKey("fake_provider_config", FakeProviderConfig)
RECORDER = web.AppKey("fake_provider_requests", RequestLog)

ErrorStyle = Literal["openai", "anthropic"]
_OPENAI_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_exceeded",
}
_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def error_body(
    message: str, type_: str | None, status: int, style: ErrorStyle = "openai", param: str | None = None
) -> bytes:
    """An error body in OpenAI's (``{"error": {message, type, param, code}}``) or Anthropic's
    (``{"type": "error", "error": {type, message}}``) format; ``type_`` None = from the status."""
    if style == "anthropic":
        kind = type_ or _ANTHROPIC_ERROR_TYPES.get(status, "api_error")
        return orjson.dumps({"type": "error", "error": {"type": kind, "message": message}})
    kind = type_ or _OPENAI_ERROR_TYPES.get(status, "server_error")
    return orjson.dumps({"error": {"message": message, "type": kind, "param": param, "code": None}})


class Reject(Exception):
    """Ends a request early with a ready response (turned into it by the middleware)."""

    def __init__(self, response: web.StreamResponse) -> None:
        super().__init__(response.status)
        self.response = response


@web.middleware
async def reject_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    """Turn a raised :class:`Reject` into its response."""
    try:
        result: web.StreamResponse = await handler(request)
        return result
    except Reject as r:
        return r.response


def number_or(value: float | None, default: Any) -> Any:
    """``default`` when ``value`` is None."""
    return default if value is None else value


async def pause(request: web.Request, seconds: float) -> bool:
    """Sleep up to ``seconds``; False as soon as the client has gone (checked every 50 ms)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while True:
        left = end - loop.time()
        if left <= 0:
            return True
        await asyncio.sleep(min(left, 0.05))
        if request.transport is None or request.transport.is_closing():
            return False


def drop_connection(request: web.Request) -> None:
    """Abort the TCP connection (no more bytes) and end the handler quietly."""
    if request.transport is not None:
        request.transport.abort()
    raise asyncio.CancelledError


@dataclass(slots=True)
class Usage:
    """Tokens in OpenAI's meaning: ``prompt_tokens`` includes cached and cache-write tokens."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0


@dataclass(slots=True)
class Call:
    """One request being answered: identity, deployment, fault, and its one record."""

    request: web.Request
    api: str
    style: ErrorStyle
    config: FakeProviderConfig
    recorder: RequestLog
    log: Any
    request_id: str = ""
    deployment: str = DEFAULT_DEPLOYMENT
    started: float = 0.0
    body: Any = None
    raw: bytes = b""
    fault: Fault | None = None
    stream: bool = False
    recorded: bool = False

    @classmethod
    async def begin(
        cls, handlers: Any, request: web.Request, api: str, style: ErrorStyle = "openai", read: bool = True
    ) -> Call:
        """Start a call: its id, deployment and (``read``) JSON body; a 400 on a body that is not JSON."""
        call = cls(request, api, style, handlers.config, handlers.recorder, handlers.log)
        call.started = time.time()
        call.request_id = request.headers.get("x-request-id") or str(uuid.uuid4())
        info = request.match_info
        call.deployment = info.get("deployment") or info.get("azure_deployment") or DEFAULT_DEPLOYMENT
        if read:
            call.raw = await request.read()
            try:
                call.body = orjson.loads(call.raw)
            except orjson.JSONDecodeError:
                call.reject(400, "request body is not valid JSON")
        return call

    def headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        """Response headers: ``x-request-id`` (+ extra)."""
        h = {"x-request-id": self.request_id}
        if extra:
            h.update(extra)
        return h

    def json(self, payload: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
        """A JSON response with this call's headers."""
        return web.Response(
            body=orjson.dumps(payload),
            status=status,
            content_type="application/json",
            headers=self.headers(headers),
        )

    def reject(
        self,
        status: int,
        message: str,
        type_: str | None = None,
        param: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> NoReturn:
        """Record the call with ``status`` and end it with an error body in its API's format."""
        self.finish(status)
        raise Reject(
            web.Response(
                body=error_body(message, type_, status, self.style, param),
                status=status,
                content_type="application/json",
                headers=self.headers(headers),
            )
        )

    def header_number(self, name: str, default: float) -> float:
        """A numeric ``x-fake-*`` header, or ``default``; a 400 when it is not a number."""
        raw = self.request.headers.get(name)
        if raw is None:
            return default
        try:
            return float(raw)
        except ValueError:
            self.reject(400, f"header {name} must be a number")

    async def apply_fault(self, model: str | None) -> None:
        """Resolve this call's fault (headers, then the run-time table) and act on the parts that
        end it before any answer: refuse, stall before headers when a status follows, status."""
        try:
            fault = fault_from_headers(self.request.headers)
        except ValueError as exc:
            self.reject(400, str(exc))
        if fault is None:
            fault = self.request.app[FAULTS].take(self.deployment, model)
        self.fault = fault
        if fault is None:
            return
        if fault.refuse:
            self.finish(0, finish_reason="refused")
            drop_connection(self.request)
        if fault.status is not None:
            if fault.stall_before_headers_ms and not await pause(
                self.request, fault.stall_before_headers_ms / 1000
            ):
                self.finish(499, finish_reason="client_disconnected")
                raise Reject(web.Response(status=499))
            headers = {}
            if fault.retry_after is not None:
                ra = fault.retry_after
                headers["retry-after"] = str(int(ra)) if float(ra).is_integer() else str(ra)
            self.reject(fault.status, f"fake provider: forced status {fault.status}", headers=headers)

    def finish(
        self,
        status: int,
        usage: Usage | None = None,
        finish_reason: str | None = None,
        *,
        billable: bool = False,
        usage_object: Any = None,
        chunks_sent: int | None = None,
    ) -> None:
        """Write this call's one record and log line (later calls do nothing).

        ``usage`` is what the provider counted for the answer (for a cut stream:
        the prompt and the completion tokens sent before the cut);
        ``usage_object`` the exact usage it reported on the wire, None if none
        reached the client.
        """
        if self.recorded:
            return
        self.recorded = True
        u = usage or Usage()
        self.recorder.append(
            {
                "request_id": self.request_id,
                "method": self.request.method,
                "path": self.request.path,
                "deployment": self.deployment,
                "api": self.api,
                "headers": {str(k): v for k, v in self.request.headers.items()},
                "body": self.body,
                "stream": self.stream,
                "status": status,
                "prompt_tokens": usage.prompt_tokens if usage else None,
                "completion_tokens": usage.completion_tokens if usage else None,
                "cached_tokens": u.cached_tokens,
                "cache_write_tokens": u.cache_write_tokens,
                "finish_reason": finish_reason,
                "billable": billable,
                "usage_reported": usage_object is not None,
                "usage": usage_object,
                "chunks_sent": chunks_sent,
                "fault": self.fault.to_json() if self.fault else None,
                "received_at": self.started,
            }
        )
        if self.config.access_log:
            self.log.info(
                "request",
                request_id=self.request_id,
                path=self.request.path,
                deployment=self.deployment,
                status=status,
                stream=self.stream,
                prompt_tokens=usage.prompt_tokens if usage else None,
                completion_tokens=usage.completion_tokens if usage else None,
                billable=billable,
                duration_ms=round((time.time() - self.started) * 1000, 3),
            )
