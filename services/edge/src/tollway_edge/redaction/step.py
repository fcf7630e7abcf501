"""The redaction step of the request path (DESIGN.md "The request path" 4).

Rules (issue 4): personal data never reaches the provider unless the policy
allows it; every failure of the redactor fails the call closed (nothing is
sent to the provider).

- :func:`~tollway_edge.redaction.request.redact_request` (``request``) — the
  body walk, the redactor's answer, application, block and reversible mapping,
  in the order the edge needs (pure over a client);
- :class:`EdgeRedaction` — per call: the principal's policy (typed when the
  snapshot loaded) → :func:`redact_request` → the body to forward, or an
  ``EdgeError`` (``request.rejection_error`` maps the redactor's answers):
  400 ``unscannable_content`` / ``unknown_field`` (the walk's refusals),
  400 ``pii_detected`` (``block``), 400 ``unsupported_language`` (language
  policy ``block``), 413 ``redaction_request_too_large`` (redactor 413),
  502 ``redaction_rejected`` (redactor 400), 503 ``redaction_unavailable``
  (redactor down, late, 5xx, malformed); records the ``RedactionSummary``
  and the reversible mapping on the call; restores and primes the answer.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any, Protocol

import aiohttp
import orjson
import structlog
from opentelemetry.trace import Tracer

from tollway_contracts.events import RedactionSummary
from tollway_contracts.redaction import (
    AppliedLanguagePolicy,
    RedactionPolicy,
)
from tollway_edge.auth.principals import Principal
from tollway_edge.errors import (
    EdgeError,
    pii_detected,
    redaction_unavailable,
    unsupported_language_blocked,
)
from tollway_edge.metrics import REDACTION_FAILURES
from tollway_edge.redaction.client import RedactionRejected, RedactorPool
from tollway_edge.redaction.coalesce import CoalescingRedactor
from tollway_edge.redaction.fields import CHAT_FIELDS, FieldTable
from tollway_edge.redaction.request import RedactorLike, redact_request, rejection_error, summarize
from tollway_edge.redaction.restore import restore_response_in_place
from tollway_edge.redaction.restore_stream import SSERestorer
from tollway_edge.redaction.texts import RedactionUnavailable, TextRef

log = structlog.get_logger("tollway_edge.redaction")


class RedactionCall(Protocol):
    """What the step reads and writes on the per-call object (``tollway_edge.call.Call``)."""

    request_id: str
    principal: Principal | None
    redaction: RedactionSummary | None
    redaction_mapping: dict[str, str] | None
    redaction_policy: RedactionPolicy | None
    redaction_language_policy: AppliedLanguagePolicy | None


class EdgeRedaction:
    """The redaction step, built once by ``create_app``.

    Args:
        urls: redactor base URLs (``TOLLWAY_EDGE_REDACTOR_URLS``).
        deadline_ms: time allowed for the redactor's answer, ms
            (``TOLLWAY_EDGE_REDACTION_DEADLINE_MS``); beyond it → 503.
        prime_deadline_ms: time allowed for a cache-priming call, ms.
        tracer: makes a CLIENT span per redactor request when tracing is on
            (``tollway_edge.tracing``); None when off.
        answer_window: characters a stream's answer scan holds at most after
            the last sentence end (``streaming.holdback``).
    """

    def __init__(
        self,
        urls: Sequence[str],
        deadline_ms: float,
        prime_deadline_ms: float = 10_000.0,
        tracer: Tracer | None = None,
        answer_window: int = 64,
    ) -> None:
        self.answer_window = answer_window
        self.urls = list(urls)
        self.tracer = tracer
        self.deadline_ms = deadline_ms
        self.prime_deadline_ms = prime_deadline_ms
        self.pool: RedactorPool | None = None
        self.answer_client: RedactorLike | None = None
        self._session: aiohttp.ClientSession | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    async def start(self) -> None:
        """Open the HTTP session to the redactors (no network until a call needs it)."""
        if not self.urls:
            return
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=256, keepalive_timeout=30),
            json_serialize=lambda o: orjson.dumps(o).decode(),
        )
        self.pool = RedactorPool(self.urls, self._session, self.tracer)
        self.answer_client = CoalescingRedactor(self.pool, 2 * len(self.urls))  # streams' answer scans

    async def stop(self) -> None:
        """Wait briefly for priming calls, then close the session."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2)
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def apply(
        self, call: RedactionCall, body: dict[str, Any], fields: FieldTable = CHAT_FIELDS
    ) -> dict[str, Any]:
        """The body to forward for this call (``body`` itself when the policy is
        off); ``fields`` is the endpoint's field table.

        Sets ``call.redaction`` (summary for every event of the call),
        ``call.redaction_language_policy`` (the strictest applied language
        policy), ``call.redaction_policy`` and, in reversible ``redact`` mode,
        ``call.redaction_mapping``.

        Raises:
            tollway_edge.errors.EdgeError: 400 ``unscannable_content`` and
                ``unknown_field`` (:func:`redact_request`); 400 ``pii_detected``
                (``block`` mode, naming entity types only); 400 ``unsupported_language``
                (:func:`language_blocked`); 413 ``redaction_request_too_large``
                and 502 ``redaction_rejected`` (the redactor's 4xx,
                :func:`rejection_error`); 503 ``redaction_unavailable``
                (redactor down, past the deadline, 5xx, not configured,
                or a malformed stored policy) — the provider receives nothing.
        """
        principal = call.principal
        assert principal is not None
        policy = principal.redaction_policy
        if policy is None:
            if "redaction_policy" in principal.unreadable:
                log.error("redaction_policy_invalid", key_id=principal.key_id, request_id=call.request_id)
                REDACTION_FAILURES.labels("policy_invalid").inc()
                raise redaction_unavailable()
            return body
        call.redaction_policy = policy
        started = time.perf_counter()
        if self.pool is None:
            call.redaction = summarize(policy, None, 0.0)
            log.error("redactor_not_configured", request_id=call.request_id)
            REDACTION_FAILURES.labels("not_configured").inc()
            raise redaction_unavailable()
        try:
            outcome = await redact_request(body, policy, self.pool, self.deadline_ms, fields)
        except EdgeError:
            call.redaction = summarize(policy, None, (time.perf_counter() - started) * 1000.0)
            raise
        except RedactionUnavailable as exc:
            call.redaction = summarize(policy, None, (time.perf_counter() - started) * 1000.0)
            log.warning("redaction_unavailable", request_id=call.request_id, reason=str(exc))
            REDACTION_FAILURES.labels("unavailable").inc()
            raise redaction_unavailable() from None
        except RedactionRejected as exc:
            call.redaction = summarize(policy, None, (time.perf_counter() - started) * 1000.0)
            log.warning("redaction_rejected", request_id=call.request_id, status=exc.status, code=exc.code)
            REDACTION_FAILURES.labels("rejected").inc()
            raise rejection_error(exc) from None
        call.redaction = outcome.summary
        call.redaction_language_policy = outcome.language_policy
        if outcome.language_blocked:
            raise unsupported_language_blocked()
        if outcome.blocked is not None:
            raise pii_detected(", ".join(sorted(outcome.summary.entities if outcome.summary else {})))
        if outcome.mapping:
            call.redaction_mapping = outcome.mapping
        return outcome.body

    def restore_plain(self, call: RedactionCall, obj: dict[str, Any], raw: bytes) -> bytes:
        """A non-streamed 200 answer (``obj``, parsed once by the caller, and its
        ``raw`` bytes) with placeholders restored (reversible mode); primes
        the cache with the answer as the client receives it."""
        mapping = call.redaction_mapping
        if mapping:
            obj = restore_response_in_place(obj, mapping)
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
