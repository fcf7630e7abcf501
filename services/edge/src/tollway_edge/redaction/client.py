"""The redactor client: ``POST /v1/redact`` with a deadline, over one or
several redactor processes with failover (``TOLLWAY_EDGE_REDACTOR_URLS``).

Two kinds of failure, both failing the call closed (nothing is sent to the
provider):

- :class:`RedactionUnavailable` — connection error, timeout, a 5xx, a
  malformed answer: another redactor may answer (the pool fails over on
  connection errors and 5xx), else the edge answers 503 with ``Retry-After``;
- :class:`RedactionRejected` — the redactor's definitive 4xx
  (413 ``redaction_request_too_large``, 400 ``invalid_redaction_request`` /
  ``unknown_entity_type``): every redactor would answer the same, so no
  failover and no retry advice.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Sequence

import aiohttp
import msgspec
import orjson
import structlog
from opentelemetry import trace
from opentelemetry.trace import Tracer
from yarl import URL

from tollway_contracts.redaction import (
    REDACT_PATH,
    RedactionPolicy,
    RedactionText,
    RedactRequest,
    RedactResponse,
    decode_response,
)
from tollway_edge import tracing
from tollway_edge.redaction.texts import RedactionUnavailable, TextRef, check_answer

log = structlog.get_logger("tollway_edge.redaction")


class RedactorServerError(RedactionUnavailable):
    """The redactor answered a 5xx (its workers cannot answer): another
    redactor may; :class:`RedactorPool` fails over to the next URL."""


class RedactionRejected(Exception):
    """The redactor refused the request with a 4xx: the same request fails
    on every redactor, every time (not retryable, no failover).

    Attributes:
        status: the redactor's HTTP status (413, 400, ...).
        code: its ``error.code`` (``redaction_request_too_large``,
            ``invalid_redaction_request``, ``unknown_entity_type``), or
            ``redactor_<status>`` when the body does not name one.
    """

    def __init__(self, status: int, code: str) -> None:
        super().__init__(f"redactor answered {status} {code}")
        self.status = status
        self.code = code


_EDGE_ONLY_POLICY_FIELDS = ("unknown_fields", "answers")


def _request_body(payload: RedactRequest) -> bytes:
    """The JSON body of ``POST /v1/redact``: the request without the policy's
    edge-only fields (:data:`_EDGE_ONLY_POLICY_FIELDS`)."""
    body = msgspec.to_builtins(payload)
    for name in _EDGE_ONLY_POLICY_FIELDS:
        del body["policy"][name]
    return orjson.dumps(body)


def _error_code(status: int, raw: bytes) -> str:
    """The OpenAI-format ``error.code`` of a redactor's error body, else ``redactor_<status>``."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return f"redactor_{status}"
    err = obj.get("error") if isinstance(obj, dict) else None
    code = err.get("code") if isinstance(err, dict) else None
    return code if isinstance(code, str) and code else f"redactor_{status}"


class RedactorClient:
    """Async client of the redactor's ``POST /v1/redact``.

    Args:
        base_url: e.g. ``http://127.0.0.1:8081``.
        session: a shared ``aiohttp.ClientSession`` (the edge's; not closed
            here). When None, the client creates its own; call :meth:`close`.
    """

    def __init__(
        self, base_url: str, session: aiohttp.ClientSession | None = None, tracer: Tracer | None = None
    ) -> None:
        self._url = base_url.rstrip("/") + REDACT_PATH
        self._host = URL(self._url).host or ""
        self._session = session
        self._owns_session = session is None
        self._tracer = tracer

    async def redact(
        self, policy: RedactionPolicy, texts: Sequence[TextRef | RedactionText], deadline_ms: float
    ) -> RedactResponse:
        """Analyse and anonymise ``texts`` (all texts of one call) under ``policy``.

        Args:
            deadline_ms: total time allowed for the call, ms (connect + answer).

        Returns:
            The redactor's answer, checked to contain every text id.

        Raises:
            RedactionUnavailable: connection error, no answer within the
                deadline, a 5xx (:class:`RedactorServerError`) or other
                non-200, non-4xx status, a malformed body, or a missing text.
            RedactionRejected: a 4xx (413 too large, 400 invalid request or
                unknown entity type): not retryable.
        """
        if self._session is None:
            self._session = aiohttp.ClientSession()
        payload = RedactRequest(policy=policy, texts=[RedactionText(id=t.id, text=t.text) for t in texts])
        timeout = aiohttp.ClientTimeout(total=max(deadline_ms, 1.0) / 1000.0)
        headers = {"content-type": "application/json"}
        span = None
        if self._tracer is not None and trace.get_current_span().get_span_context().is_valid:
            span = tracing.client_span(
                self._tracer,
                f"POST {REDACT_PATH}",
                {
                    "http.request.method": "POST",
                    "server.address": self._host,
                    "tollway.redaction.texts": len(texts),
                    "tollway.redaction.mode": policy.mode,
                },
            )
            tracing.inject(span, headers)
        try:
            async with self._session.post(
                self._url,
                # unknown_fields and answers are the edge's business, not the redactor's: left
                # out so that a redactor of the previous contract accepts the request.
                data=_request_body(payload),
                headers=headers,
                timeout=timeout,
            ) as resp:
                raw = await resp.read()
                status = resp.status
        except (TimeoutError, aiohttp.ClientError, OSError, asyncio.CancelledError) as exc:
            if span is not None:
                tracing.end_client_span(span, None, type(exc).__name__)
            if isinstance(exc, asyncio.CancelledError):
                raise
            raise RedactionUnavailable(f"redactor unreachable: {type(exc).__name__}") from exc
        if span is not None:
            tracing.end_client_span(span, status)
        if 400 <= status < 500:
            raise RedactionRejected(status, _error_code(status, raw))
        if status >= 500:
            raise RedactorServerError(f"redactor answered {status}")
        if status != 200:
            raise RedactionUnavailable(f"redactor answered {status}")
        try:
            answer = decode_response(raw)
        except ValueError as exc:  # msgspec's DecodeError, ValidationError
            raise RedactionUnavailable("malformed redactor answer") from exc
        check_answer(list(payload.texts), answer)
        return answer

    async def prime(
        self, policy: RedactionPolicy, texts: Sequence[TextRef | RedactionText], deadline_ms: float
    ) -> bool:
        """Warm the redactor's detection cache with texts the client will send
        back next turn (the assistant's answer as the client received it),
        so the next call analyses only the new user message.

        Meant for ``asyncio.create_task`` after a response completes; never
        raises.

        Returns:
            True when the redactor analysed (or already had) the texts.
        """
        if not texts or policy.mode == "off":
            return False
        try:
            await self.redact(policy, texts, deadline_ms)
        except (RedactionUnavailable, RedactionRejected):
            return False
        return True

    async def close(self) -> None:
        """Close the session if this client created it."""
        if self._owns_session and self._session is not None:
            await self._session.close()
            self._session = None


class RedactorPool:
    """Several redactor processes used as one client (``redact`` and ``prime``
    have :class:`RedactorClient`'s signatures).

    Args:
        urls: base URLs, e.g. ``["http://127.0.0.1:8081", "http://127.0.0.1:8082"]``.
        session: the shared HTTP session (owned by the caller).

    Calls go round-robin; a connection error (refused, reset, DNS) or a 5xx
    moves to the next URL with what is left of the deadline; a timeout (the
    deadline is the caller's), a malformed answer or a 4xx
    (:class:`RedactionRejected`: every redactor would answer the same) does
    not fail over.
    """

    def __init__(
        self, urls: Sequence[str], session: aiohttp.ClientSession, tracer: Tracer | None = None
    ) -> None:
        if not urls:
            raise ValueError("at least one redactor URL is required")
        self.clients = [RedactorClient(u, session, tracer) for u in urls]
        self._next = itertools.cycle(range(len(self.clients)))

    async def redact(
        self, policy: RedactionPolicy, texts: Sequence[TextRef | RedactionText], deadline_ms: float
    ) -> RedactResponse:
        """As :meth:`RedactorClient.redact`, over the pool.

        Raises:
            RedactionUnavailable: every tried URL failed, or the deadline passed.
            RedactionRejected: a redactor refused the request (4xx); raised at
                once, never retried on another URL.
        """
        end = time.perf_counter() + deadline_ms / 1000.0
        first = next(self._next)
        last_exc: RedactionUnavailable | None = None
        for i in range(len(self.clients)):
            left_ms = (end - time.perf_counter()) * 1000.0
            if left_ms <= 0:
                break
            client = self.clients[(first + i) % len(self.clients)]
            try:
                return await client.redact(policy, texts, left_ms)
            except RedactionUnavailable as exc:
                last_exc = exc
                server_error = isinstance(exc, RedactorServerError)
                connection_error = isinstance(
                    exc.__cause__, aiohttp.ClientConnectionError
                ) and not isinstance(exc.__cause__, aiohttp.ServerTimeoutError)
                if not (server_error or connection_error):
                    raise
                log.warning(
                    "redactor_unreachable" if connection_error else "redactor_server_error",
                    url_index=(first + i) % len(self.clients),
                )
        raise last_exc or RedactionUnavailable("redaction deadline passed")

    async def prime(
        self, policy: RedactionPolicy, texts: Sequence[TextRef | RedactionText], deadline_ms: float
    ) -> bool:
        """As :meth:`RedactorClient.prime` (never raises)."""
        if not texts or policy.mode == "off":
            return False
        try:
            await self.redact(policy, texts, deadline_ms)
        except (RedactionUnavailable, RedactionRejected):
            return False
        return True
