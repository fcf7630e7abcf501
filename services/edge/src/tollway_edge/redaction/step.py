"""The redaction step of the request path (DESIGN.md "The request path" 4).

Rules (issue 4): personal data never reaches the provider unless the policy
allows it; every failure of the redactor fails the call closed (nothing is
sent to the provider).

- :func:`redact_request` — the body walk, the redactor's answer, application,
  block and reversible mapping, in the order the edge needs (pure over a client);
- :class:`EdgeRedaction` — per call: the principal's policy (typed when the
  snapshot loaded) → :func:`redact_request` → the body to forward, or an
  ``EdgeError`` (:func:`rejection_error` maps the redactor's answers):
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
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import aiohttp
import orjson
import structlog
from opentelemetry.trace import Tracer

from tollway_contracts.events import RedactionSummary
from tollway_contracts.redaction import (
    AppliedLanguagePolicy,
    RedactionPolicy,
    RedactionText,
    RedactResponse,
    strictest_language_policy,
)
from tollway_edge.auth.principals import Principal
from tollway_edge.errors import (
    EdgeError,
    pii_detected,
    redaction_rejected,
    redaction_too_large,
    redaction_unavailable,
    unknown_field_refused,
    unscannable_content,
    unsupported_language_blocked,
)
from tollway_edge.metrics import REDACTION_FAILURES
from tollway_edge.redaction.apply import apply_texts
from tollway_edge.redaction.client import RedactionRejected, RedactorPool
from tollway_edge.redaction.fields import CHAT_FIELDS, FieldTable
from tollway_edge.redaction.restore import build_mapping, restore_response_in_place
from tollway_edge.redaction.restore_stream import SSERestorer
from tollway_edge.redaction.texts import RedactionUnavailable, TextRef, check_answer
from tollway_edge.redaction.walk import walk_body

log = structlog.get_logger("tollway_edge.redaction")


class RedactorLike(Protocol):
    """A redactor client (:class:`RedactorClient` or :class:`RedactorPool`)."""

    async def redact(
        self, policy: RedactionPolicy, texts: Sequence[TextRef | RedactionText], deadline_ms: float
    ) -> RedactResponse:
        """Analyse and anonymise ``texts``; raises ``RedactionUnavailable``."""


def entity_counts(answer: RedactResponse) -> dict[str, int]:
    """Detections per entity type over all texts, e.g. ``{"PERSON": 2}``."""
    return dict(Counter(d.entity_type for r in answer.results for d in r.detections))


def block_error(answer: RedactResponse) -> dict[str, Any] | None:
    """The 400 body for ``block`` mode, or None when nothing was detected.

    The message names the entity types found, never a value; OpenAI error
    format, ``code = "pii_detected"``, ``type = "invalid_request_error"``
    (``tollway_edge.errors.pii_detected``).
    """
    counts = entity_counts(answer)
    if not counts:
        return None
    return pii_detected(", ".join(sorted(counts))).body_dict()


def language_blocked(policy: RedactionPolicy, answer: RedactResponse) -> bool:
    """True when the call must be refused for its language: the policy
    redacts or blocks and some text came back with ``language_policy ==
    "block"`` (the key's ``unsupported_language: block``, or the redactor's
    default when the key says nothing). ``detect`` only records."""
    if policy.mode not in ("redact", "block"):
        return False
    return any(r.language_policy == "block" for r in answer.results)


def rejection_error(exc: RedactionRejected) -> EdgeError:
    """The client's answer to a redactor's 4xx: its 413 → 413
    ``redaction_request_too_large`` (the request can never pass; no
    ``Retry-After``); any other 4xx (400 ``invalid_redaction_request``,
    ``unknown_entity_type``) → 502 ``redaction_rejected`` (the client's
    request is valid, the gateway's policy or request is not; no retry advice)."""
    if exc.status == 413:
        return redaction_too_large()
    return redaction_rejected(exc.code)


def summarize(policy: RedactionPolicy, answer: RedactResponse | None, duration_ms: float) -> RedactionSummary:
    """The usage event's ``redaction`` object: counts by type, cache use, time (ms)."""
    if answer is None:
        return RedactionSummary(mode=policy.mode, duration_ms=round(max(duration_ms, 0.0), 3))
    total = len(answer.results)
    return RedactionSummary(
        mode=policy.mode,
        entities=entity_counts(answer),
        cache_hit=total > 0 and answer.cache.hits == total,
        cached_texts=answer.cache.hits,
        total_texts=total,
        duration_ms=round(max(duration_ms, 0.0), 3),
    )


@dataclass(slots=True)
class RedactionOutcome:
    """What the edge does next.

    Attributes:
        body: the body to forward (a redacted copy in ``redact`` mode, else
            the original).
        blocked: in ``block`` mode with detections, the 400 error body to
            return instead of forwarding; else None.
        language_blocked: some text is in a language or script the policy's
            ``unsupported_language: block`` refuses (:func:`language_blocked`);
            the call is refused with 400 ``unsupported_language``.
        mapping: placeholder -> original for reversible ``redact`` (empty
            otherwise); use with ``restore.restore_response`` / :class:`SSERestorer`.
        summary: for the usage event; None when the policy is ``off``.
        language_policy: the strictest ``language_policy`` of the answer's
            texts (the usage event's ``redaction_language_policy``); None
            when nothing was analysed.
    """

    body: dict[str, Any]
    blocked: dict[str, Any] | None = None
    language_blocked: bool = False
    mapping: dict[str, str] = field(default_factory=dict)
    summary: RedactionSummary | None = None
    language_policy: AppliedLanguagePolicy | None = None


async def redact_request(
    body: dict[str, Any],
    policy: RedactionPolicy | None,
    client: RedactorLike,
    deadline_ms: float,
    fields: FieldTable = CHAT_FIELDS,
) -> RedactionOutcome:
    """Apply ``policy`` to a request body whose fields ``fields`` describes
    (the body walk, :func:`~tollway_edge.redaction.walk.walk_body`).

    ``off`` (or no policy): unchanged, no call. ``detect``: unchanged, counts.
    ``redact``: placeholders (+ mapping when reversible), applied
    copy-on-write. ``block``: a 400 body when anything is found in any
    field, else unchanged.

    Raises:
        tollway_edge.errors.EdgeError: under ``redact``/``block``, 400
            ``unscannable_content`` (a ``file`` part, token ids) or 400
            ``unknown_field`` (a string in an unknown field under
            ``unknown_fields: refuse``), before the redactor is asked.
        RedactionUnavailable: the redactor failed; answer 503 and forward nothing.
        RedactionRejected: the redactor refused the request (4xx); forward
            nothing (:func:`rejection_error`).
    """
    if policy is None or policy.mode == "off":
        return RedactionOutcome(body=body)
    started = time.perf_counter()
    walk = walk_body(body, fields)
    if policy.mode in ("redact", "block"):
        if walk.unscannable:
            raise unscannable_content(walk.unscannable[0])
        if policy.unknown_fields == "refuse" and walk.unknown:
            raise unknown_field_refused(walk.unknown[0])
    texts = walk.texts
    if not texts:
        return RedactionOutcome(body=body, summary=summarize(policy, None, 0.0))
    answer = await client.redact(policy, texts, deadline_ms)
    outcome = RedactionOutcome(
        body=body,
        language_blocked=language_blocked(policy, answer),
        language_policy=strictest_language_policy(r.language_policy for r in answer.results),
    )
    if policy.mode == "redact" and not outcome.language_blocked:  # a refused call needs no copy
        outcome.body = apply_texts(body, check_answer(texts, answer), texts)
        if policy.reversible:
            outcome.mapping = build_mapping(texts, answer)
    elif policy.mode == "block":
        outcome.blocked = block_error(answer)
    outcome.summary = summarize(policy, answer, (time.perf_counter() - started) * 1000)
    return outcome


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
    """

    def __init__(
        self,
        urls: Sequence[str],
        deadline_ms: float,
        prime_deadline_ms: float = 10_000.0,
        tracer: Tracer | None = None,
    ) -> None:
        self.urls = list(urls)
        self.tracer = tracer
        self.deadline_ms = deadline_ms
        self.prime_deadline_ms = prime_deadline_ms
        self.pool: RedactorPool | None = None
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
