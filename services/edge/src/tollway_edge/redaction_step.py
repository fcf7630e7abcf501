"""The redaction step of the request path (DESIGN.md "The request path" 4):
the adapter between the handlers and ``tollway_edge.redaction``.

- :class:`RedactorPool` — the redactor processes behind the edge
  (``TOLLWAY_EDGE_REDACTOR_URLS``): round-robin, failing over to the next URL
  on a connection error, all within ONE deadline; every other failure is
  :class:`RedactionUnavailable` (fail closed).
- :class:`EdgeRedaction` — per call: the principal's effective policy →
  :func:`redact_request` → the body to forward, or a 400 (``block``) / 503
  (redactor unavailable) ``EdgeError``; records the ``RedactionSummary`` and
  the reversible mapping on the call.
- :class:`SSERestorer` — reversible mode on the stream relay: restores
  placeholders in complete SSE events, holding back at most the longest
  placeholder minus one character, never a whole event.

Rules (issue 4): personal data never reaches the provider unless the policy
allows it; every failure of the redactor fails the call closed (nothing is
sent to the provider).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Sequence
from typing import Any, Protocol

import aiohttp
import orjson
import structlog
from pydantic import ValidationError

from tollway_contracts.events import RedactionSummary
from tollway_contracts.redaction import RedactionPolicy, RedactionText, RedactResponse
from tollway_edge.errors import EdgeError
from tollway_edge.principals import Principal
from tollway_edge.redaction import (
    ChunkRestorer,
    RedactionUnavailable,
    RedactorClient,
    TextRef,
    redact_request,
    restore_response,
    summarize,
)
from tollway_edge.sse import _data_of, _split_events

log = structlog.get_logger("tollway_edge.redaction")

OFF = RedactionPolicy(mode="off")


class RedactionCall(Protocol):
    """What the step reads and writes on the handler's per-call object."""

    request_id: str
    principal: Principal | None
    redaction: RedactionSummary | None
    redaction_mapping: dict[str, str] | None
    redaction_policy: RedactionPolicy | None


class RedactorPool:
    """Several redactor processes used as one ``RedactorClient`` (duck-typed:
    ``redact`` and ``prime`` have the same signatures).

    Args:
        urls: base URLs, e.g. ``["http://127.0.0.1:8081", "http://127.0.0.1:8082"]``.
        session: the shared HTTP session (owned by the caller).

    Calls go round-robin; a connection error (refused, reset, DNS) moves to
    the next URL with what is left of the deadline; a timeout, a non-200 or a
    malformed answer does not fail over (the deadline is the caller's).
    """

    def __init__(self, urls: Sequence[str], session: aiohttp.ClientSession) -> None:
        if not urls:
            raise ValueError("at least one redactor URL is required")
        self.clients = [RedactorClient(u, session) for u in urls]
        self._next = itertools.cycle(range(len(self.clients)))

    async def redact(
        self, policy: RedactionPolicy, texts: Sequence[TextRef | RedactionText], deadline_ms: float
    ) -> RedactResponse:
        """As :meth:`RedactorClient.redact`, over the pool.

        Raises:
            RedactionUnavailable: every tried URL failed, or the deadline passed.
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
                if not isinstance(exc.__cause__, aiohttp.ClientConnectionError) or isinstance(
                    exc.__cause__, aiohttp.ServerTimeoutError
                ):
                    raise
                log.warning("redactor_unreachable", url_index=(first + i) % len(self.clients))
        raise last_exc or RedactionUnavailable("redaction deadline passed")

    async def prime(
        self, policy: RedactionPolicy, texts: Sequence[TextRef | RedactionText], deadline_ms: float
    ) -> bool:
        """As :meth:`RedactorClient.prime` (never raises)."""
        if not texts or policy.mode == "off":
            return False
        try:
            await self.redact(policy, texts, deadline_ms)
        except RedactionUnavailable:
            return False
        return True


def effective_policy(principal: Principal) -> RedactionPolicy:
    """The principal's policy (``catalog.edge_principals.redaction_policy``,
    already the key's, else the team's); None → ``off``.

    Raises:
        ValueError: the stored value is not a ``RedactionPolicy``.
    """
    raw = principal.redaction_policy
    if raw is None:
        return OFF
    if isinstance(raw, RedactionPolicy):
        return raw
    if isinstance(raw, (str, bytes)):
        raw = orjson.loads(raw)
    return RedactionPolicy.model_validate(raw)


def _unavailable() -> EdgeError:
    return EdgeError(
        503,
        "Personal-data redaction is temporarily unavailable; the request was not sent to the provider.",
        type="api_error",
        code="redaction_unavailable",
    )


class EdgeRedaction:
    """The redaction step, built once by ``create_app``.

    Args:
        urls: redactor base URLs (``TOLLWAY_EDGE_REDACTOR_URLS``).
        deadline_ms: time allowed for the redactor's answer, ms
            (``TOLLWAY_EDGE_REDACTION_DEADLINE_MS``); beyond it → 503.
        prime_deadline_ms: time allowed for a cache-priming call, ms.
    """

    def __init__(self, urls: Sequence[str], deadline_ms: float, prime_deadline_ms: float = 10_000.0) -> None:
        self.urls = list(urls)
        self.deadline_ms = deadline_ms
        self.prime_deadline_ms = prime_deadline_ms
        self.pool: RedactorPool | None = None
        self._session: aiohttp.ClientSession | None = None
        self._policies: dict[tuple[str, int], RedactionPolicy] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    async def start(self) -> None:
        """Open the HTTP session to the redactors (no network until a call needs it)."""
        if not self.urls:
            return
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=256, keepalive_timeout=30),
            json_serialize=lambda o: orjson.dumps(o).decode(),
        )
        self.pool = RedactorPool(self.urls, self._session)

    async def stop(self) -> None:
        """Wait briefly for priming calls, then close the session."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2)
        if self._session is not None:
            await self._session.close()
            self._session = None

    def policy_of(self, principal: Principal) -> RedactionPolicy:
        """The parsed policy, memoised per (key id, principals version)."""
        k = (principal.key_id, principal.version)
        policy = self._policies.get(k)
        if policy is None:
            policy = effective_policy(principal)
            if len(self._policies) > 100_000:
                self._policies.clear()
            self._policies[k] = policy
        return policy

    async def apply(self, call: RedactionCall, body: dict[str, Any]) -> dict[str, Any]:
        """The body to forward for this call.

        Sets ``call.redaction`` (summary for every event of the call),
        ``call.redaction_policy`` and, in reversible ``redact`` mode,
        ``call.redaction_mapping``.

        Raises:
            EdgeError: 400 ``pii_detected`` (``block`` mode, naming entity
                types only); 503 ``redaction_unavailable`` (redactor down,
                past the deadline, erroring, not configured, or a malformed
                stored policy) — the provider receives nothing.
        """
        assert call.principal is not None
        try:
            policy = self.policy_of(call.principal)
        except (ValueError, ValidationError):
            log.error("redaction_policy_invalid", key_id=call.principal.key_id, request_id=call.request_id)
            raise _unavailable() from None
        if policy.mode == "off":
            return body
        call.redaction_policy = policy
        started = time.perf_counter()
        if self.pool is None:
            call.redaction = summarize(policy, None, 0.0)
            log.error("redactor_not_configured", request_id=call.request_id)
            raise _unavailable()
        try:
            outcome = await redact_request(body, policy, self.pool, self.deadline_ms)  # type: ignore[arg-type]
        except RedactionUnavailable as exc:
            call.redaction = summarize(policy, None, (time.perf_counter() - started) * 1000.0)
            log.warning("redaction_unavailable", request_id=call.request_id, reason=str(exc))
            raise _unavailable() from None
        call.redaction = outcome.summary
        if outcome.blocked is not None:
            err = outcome.blocked["error"]
            raise EdgeError(400, err["message"], type=err["type"], code=err["code"])
        if outcome.mapping:
            call.redaction_mapping = outcome.mapping
        return outcome.body

    def restore_plain(self, call: RedactionCall, raw: bytes) -> bytes:
        """A non-streamed 200 answer with placeholders restored (reversible
        mode); primes the cache with the answer as the client receives it."""
        mapping = call.redaction_mapping
        if mapping is None and call.redaction_policy is None:
            return raw
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return raw
        if type(obj) is not dict:
            return raw
        if mapping:
            obj = restore_response(obj, mapping)
            raw = orjson.dumps(obj)
        texts = []
        for choice in obj.get("choices") or []:
            msg = choice.get("message") if isinstance(choice, dict) else None
            if isinstance(msg, dict) and isinstance(msg.get("content"), str) and msg["content"]:
                texts.append(msg["content"])
        self.prime(call, texts)
        return raw

    def stream_restorer(self, call: RedactionCall) -> SSERestorer | None:
        """The SSE restorer for a stream of this call (None when redaction is off)."""
        if call.redaction_policy is None:
            return None
        return SSERestorer(call.redaction_mapping or {})

    def prime(self, call: RedactionCall, answers: Sequence[str]) -> None:
        """Fire and forget: analyse the assistant's answer(s) under the call's
        policy so the next turn, which sends them back, is a cache hit."""
        policy = call.redaction_policy
        if policy is None or self.pool is None or not answers:
            return
        texts = [TextRef(f"/prime/{i}", t) for i, t in enumerate(answers) if t]
        if not texts:
            return
        task = asyncio.get_running_loop().create_task(self.pool.prime(policy, texts, self.prime_deadline_ms))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


class SSERestorer:
    """Restores placeholders in the complete SSE events the relay forwards.

    Args:
        mapping: placeholder -> original value; empty = pass events through
            (the answer text is still collected for priming).

    Attributes:
        answer: the content of choice 0 as the client received it.
    """

    def __init__(self, mapping: dict[str, str]) -> None:
        self._chunks = ChunkRestorer(mapping) if mapping else None
        self._answer: list[str] = []

    @property
    def answer(self) -> str:
        return "".join(self._answer)

    def feed(self, data: bytes) -> bytes:
        """Complete events in, events with restored deltas out (same count,
        plus one chunk carrying held-back text before ``[DONE]``)."""
        out: list[bytes] = []
        for event in _split_events(data):
            payload = _data_of(event)
            if payload is None:
                out.append(event)
                continue
            if payload.strip() == b"[DONE]":
                if self._chunks is not None:
                    tail = self._chunks.flush()
                    if tail is not None:
                        self._collect(tail)
                        out.append(b"data: " + orjson.dumps(tail) + b"\n\n")
                out.append(event)
                continue
            try:
                obj = orjson.loads(payload)
            except orjson.JSONDecodeError:
                out.append(event)
                continue
            if type(obj) is not dict or not obj.get("choices"):
                out.append(event)
                continue
            if self._chunks is not None:
                obj = self._chunks.restore_chunk(obj)
                event = b"data: " + orjson.dumps(obj) + b"\n\n"
            self._collect(obj)
            out.append(event)
        return b"".join(out)

    def _collect(self, obj: dict[str, Any]) -> None:
        for choice in obj.get("choices") or []:
            if isinstance(choice, dict) and choice.get("index", 0) == 0:
                delta = choice.get("delta")
                if isinstance(delta, dict) and isinstance(delta.get("content"), str):
                    self._answer.append(delta["content"])
