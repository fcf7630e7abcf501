"""A request body through the redactor (pure over a client; issue 4):
:func:`redact_request` — the body walk, the redactor's answer, application,
block and reversible mapping, in the order the edge needs — and its pieces
(:func:`entity_counts`, :func:`block_error`, :func:`language_blocked`,
:func:`rejection_error`: the client's answer to a redactor's 4xx,
:func:`summarize`: the usage event's ``redaction`` object).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from tollway_contracts.events import RedactionSummary
from tollway_contracts.redaction import (
    AppliedLanguagePolicy,
    RedactionPolicy,
    RedactionText,
    RedactResponse,
    strictest_language_policy,
)
from tollway_edge.errors import (
    EdgeError,
    pii_detected,
    redaction_rejected,
    redaction_too_large,
    unknown_field_refused,
    unscannable_content,
)
from tollway_edge.redaction.apply import apply_texts
from tollway_edge.redaction.client import RedactionRejected
from tollway_edge.redaction.fields import CHAT_FIELDS, FieldTable
from tollway_edge.redaction.restore import build_mapping
from tollway_edge.redaction.texts import TextRef, check_answer
from tollway_edge.redaction.walk import walk_body


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
