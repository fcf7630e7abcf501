"""Scanning the provider's answer (issue 11, "Answers too"; the policy's
``answers``: ``off`` | ``redact`` | ``block``, ``tollway_contracts.redaction.AnswerPolicy``).

- :class:`Placeholders` — one call's answer placeholders: the same value gets
  the same ``<TYPE_n>`` in every text and chunk of the answer, numbered after
  the prompt's placeholders of that type (so a reversible policy's
  restoration, which knows only the prompt's, never rewrites an answer's);
- :func:`redact_text` — detections applied to one text;
- :func:`answer_slots` — every text field of a non-streamed answer: chat
  (``message.content`` string or parts, ``refusal``, each tool call's
  ``arguments`` as one string, ``function_call.arguments``), legacy
  completions (``text``), Anthropic's ``Message`` (``text``/``thinking``
  blocks, every string of a ``tool_use`` ``input``), the Responses API's
  ``output`` (content parts' ``text``/``refusal``, a function call's ``arguments``);
- :func:`scan_plain` — a non-streamed answer scanned in place (one redactor
  round trip), or the call refused: 502 ``answer_blocked``.

Order with reversible restoration: the answer is scanned as the provider
wrote it (holding the prompt's placeholders), and restored afterwards: a
restored value is the caller's own and is never re-redacted.

The redactor is asked with the key's policy as ``redact`` (detections and
placeholders whatever ``mode`` says); its own numbering is not used (it
restarts at 1 per request). A redactor that fails fails the answer closed
(503 ``redaction_unavailable``; a stream ends with the error event); the
call is billed for what the provider produced in every case.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec
import orjson
import structlog

from tollway_contracts.redaction import Detection, RedactionPolicy
from tollway_edge.errors import EdgeError
from tollway_edge.metrics import REDACTION_FAILURES
from tollway_edge.redaction.client import RedactionRejected
from tollway_edge.redaction.step import EdgeRedaction, RedactionCall
from tollway_edge.redaction.texts import RedactionUnavailable, TextRef
from tollway_edge.usage import Tokens

log = structlog.get_logger("tollway_edge.redaction")


class AnswerCall(RedactionCall, Protocol):
    """What answer scanning reads on the call (``tollway_edge.call.Call``) and how it fails it."""

    def fail(
        self, status: int, error_type: str | None, tokens: Tokens | None = None, cost: int | None = None
    ) -> None:
        """Emit the terminal ``failed`` event."""


ANSWER_BLOCKED = "answer_blocked"
"""``error.code`` (and the usage event's ``error_type``) of an answer the policy blocks."""

_PLACEHOLDER = re.compile(r"<([A-Z][A-Z0-9_]*)_(\d+)>")


def answers_on(policy: RedactionPolicy | None) -> bool:
    """True when the policy scans answers (``answers`` is ``redact`` or ``block``)."""
    return policy is not None and policy.answers != "off"


def scan_policy(policy: RedactionPolicy) -> RedactionPolicy:
    """The policy the redactor is asked with for answer texts: the key's entity
    types, threshold and language policy; ``redact`` (placeholders wanted), not reversible."""
    return msgspec.structs.replace(policy, mode="redact", reversible=False)


def answer_blocked(entity_types: Iterable[str]) -> EdgeError:
    """502 ``answer_blocked``: the provider answered with personal data the key's
    policy blocks; the answer is not delivered. The message names entity types,
    never values. 502 because the upstream's answer is what is refused (the
    client's request was valid); ``x-should-retry: false`` keeps the OpenAI and
    Anthropic SDKs from retrying (and paying for) the same call."""
    types = ", ".join(sorted(set(entity_types))) or "personal data"
    return EdgeError(
        502,
        f"The provider's answer contained personal data ({types}) that this API key's "
        "redaction policy blocks; it was not delivered.",
        type="api_error",
        code=ANSWER_BLOCKED,
        headers={"x-should-retry": "false"},
    )


class Placeholders:
    """One call's answer placeholders (module doc).

    Args:
        prompt_entities: the prompt's detections per entity type (the usage
            event's ``redaction.entities``): an upper bound on the numbers the
            prompt's placeholders use.
        prompt_placeholders: the reversible mapping's placeholders, if any.
    """

    __slots__ = ("_last", "_given")

    def __init__(
        self, prompt_entities: Mapping[str, int] | None = None, prompt_placeholders: Iterable[str] = ()
    ) -> None:
        self._last: dict[str, int] = dict(prompt_entities or {})
        for key in prompt_placeholders:
            m = _PLACEHOLDER.fullmatch(key)
            if m is not None:
                self._last[m.group(1)] = max(self._last.get(m.group(1), 0), int(m.group(2)))
        self._given: dict[tuple[str, str], str] = {}

    def of(self, entity_type: str, value: str) -> str:
        """The placeholder of ``value`` (case and spacing ignored), e.g. ``<PERSON_3>``."""
        key = (entity_type, " ".join(value.split()).casefold())
        given = self._given.get(key)
        if given is None:
            n = self._last.get(entity_type, 0) + 1
            self._last[entity_type] = n
            given = self._given[key] = f"<{entity_type}_{n}>"
        return given


def _json_clip(text: str, start: int, end: int) -> tuple[int, int]:
    """A detection inside raw JSON text (tool-call arguments) narrowed so its
    placeholder keeps the JSON valid: never a quote (which ends the string
    literal), never half of a backslash escape."""
    while start < end and text[start] == '"':
        start += 1
    quote = text.find('"', start, end)
    if quote != -1:
        end = quote
    if start > 0 and text[start - 1] == "\\":
        start -= 1  # the escape's backslash goes with it
    while end > start and text[end - 1] == "\\":
        end -= 1
    return start, end


def redact_text(
    text: str, detections: Sequence[Detection], placeholders: Placeholders, json_text: bool = False
) -> str:
    """``text`` with each detection replaced by its call-wide placeholder
    (overlaps: the earlier detection wins).

    Args:
        json_text: ``text`` is raw JSON (tool-call arguments): spans are
            narrowed by :func:`_json_clip`.
    """
    if not detections:
        return text
    out: list[str] = []
    pos = 0
    for d in sorted(detections, key=lambda d: d.start):
        start, end = (d.start, d.end) if not json_text else _json_clip(text, d.start, d.end)
        if start < pos or start >= end:
            continue
        out.append(text[pos:start])
        out.append(placeholders.of(d.entity_type, text[start:end]))
        pos = end
    out.append(text[pos:])
    return "".join(out)


@dataclass(slots=True)
class Slot:
    """One text field of an answer: its id, text, whether it is raw JSON, and its setter."""

    id: str
    text: str
    json_text: bool
    put: Callable[[str], None]


def _setter(container: Any, key: Any) -> Callable[[str], None]:
    def put(value: str) -> None:
        container[key] = value

    return put


def _strings(value: Any, path: str, out: list[Slot]) -> None:
    """Every string leaf under ``value`` (a ``tool_use`` input) as a slot."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        if isinstance(v, str):
            if v:
                out.append(Slot(f"{path}/{k}", v, False, _setter(value, k)))
        else:
            _strings(v, f"{path}/{k}", out)


def _add(out: list[Slot], path: str, container: Any, key: Any, json_text: bool = False) -> None:
    if isinstance(container, dict) and isinstance(container.get(key), str) and container[key]:
        out.append(Slot(path, container[key], json_text, _setter(container, key)))


def answer_slots(obj: dict[str, Any]) -> list[Slot]:
    """Every text field of a non-streamed answer (module doc), in order."""
    out: list[Slot] = []
    for i, choice in enumerate(obj.get("choices") or []):
        if not isinstance(choice, dict):
            continue
        _add(out, f"/choices/{i}/text", choice, "text")
        msg = choice.get("message")
        if not isinstance(msg, dict):
            continue
        base = f"/choices/{i}/message"
        content = msg.get("content")
        if isinstance(content, list):
            for j, part in enumerate(content):
                _add(out, f"{base}/content/{j}/text", part, "text")
        else:
            _add(out, f"{base}/content", msg, "content")
        _add(out, f"{base}/refusal", msg, "refusal")
        for j, call in enumerate(msg.get("tool_calls") or []):
            fn = call.get("function") if isinstance(call, dict) else None
            _add(out, f"{base}/tool_calls/{j}/function/arguments", fn, "arguments", True)
        _add(out, f"{base}/function_call/arguments", msg.get("function_call"), "arguments", True)
    if obj.get("type") == "message" and isinstance(obj.get("content"), list):  # Anthropic's Message
        for j, block in enumerate(obj["content"]):
            if not isinstance(block, dict):
                continue
            _add(out, f"/content/{j}/text", block, "text")
            _add(out, f"/content/{j}/thinking", block, "thinking")
            if isinstance(block.get("input"), (dict, list)):
                _strings(block["input"], f"/content/{j}/input", out)
    for j, item in enumerate(obj.get("output") or [] if isinstance(obj.get("output"), list) else []):
        if not isinstance(item, dict):
            continue
        for k, part in enumerate(item.get("content") or [] if isinstance(item.get("content"), list) else []):
            _add(out, f"/output/{j}/content/{k}/text", part, "text")
            _add(out, f"/output/{j}/content/{k}/refusal", part, "refusal")
        _add(out, f"/output/{j}/arguments", item, "arguments", True)
    return out


@dataclass(slots=True)
class AnswerScan:
    """What scanning found: detections per entity type (never values)."""

    entities: Counter[str]


async def scan_slots(
    slots: Sequence[Slot],
    policy: RedactionPolicy,
    client: Any,
    deadline_ms: float,
    placeholders: Placeholders,
) -> AnswerScan:
    """Scan ``slots`` in one redactor round trip; under ``answers: redact``,
    write each slot's redacted text back (``block``: the caller refuses when
    ``entities`` is not empty; nothing is rewritten).

    Args:
        client: a ``RedactorPool`` (``redact(policy, texts, deadline_ms)``).

    Raises:
        RedactionUnavailable, RedactionRejected: the redactor failed (fail closed).
    """
    if not slots:
        return AnswerScan(Counter())
    texts = [TextRef(s.id, s.text) for s in slots]
    answer = await client.redact(scan_policy(policy), texts, deadline_ms)
    by_id = {r.id: r.detections for r in answer.results}
    entities: Counter[str] = Counter()
    for slot in slots:
        detections = by_id.get(slot.id, [])
        entities.update(d.entity_type for d in detections)
        if detections and policy.answers == "redact":
            slot.put(redact_text(slot.text, detections, placeholders, slot.json_text))
    return AnswerScan(entities)


def placeholders_for(call: AnswerCall) -> Placeholders:
    """A call's answer placeholders, numbered after its prompt's (:class:`Placeholders`)."""
    summary = call.redaction
    return Placeholders(summary.entities if summary is not None else None, call.redaction_mapping or ())


def scan_failure(call: AnswerCall, exc: Exception) -> EdgeError:
    """The error of an answer the redactor could not scan (fail closed; the answer
    is not delivered): the redactor's 4xx → 502 ``redaction_rejected`` (every
    redactor answers the same: ``x-should-retry: false``), anything else → 503
    ``redaction_unavailable`` (transient), as for a prompt but naming the answer."""
    log.warning("answer_redaction_failed", request_id=call.request_id, reason=type(exc).__name__)
    REDACTION_FAILURES.labels("answer_unavailable").inc()
    if isinstance(exc, RedactionRejected):
        return EdgeError(
            502,
            f"The redactor refused to scan the provider's answer ({exc.code}); it was not delivered.",
            type="api_error",
            code="redaction_rejected",
            headers={"x-should-retry": "false"},
        )
    return EdgeError(
        503,
        "Personal-data redaction is temporarily unavailable; the provider's answer was not delivered.",
        type="api_error",
        code="redaction_unavailable",
    )


async def scan_plain(
    redaction: EdgeRedaction, call: AnswerCall, obj: dict[str, Any], tokens: Tokens | None, cost: int | None
) -> bytes:
    """A non-streamed answer (``obj``, the client's format) scanned under the
    call's ``answers`` policy: redacted in place, returned encoded.

    Raises:
        EdgeError: 502 ``answer_blocked`` (``block`` and a detection), or the
            redactor's failure (:func:`scan_failure`); the ``failed`` event is
            emitted first, billed for what the provider produced (``tokens``,
            ``cost`` in micro-USD; 0 for an answer from the response cache).
    """
    policy = call.redaction_policy
    assert policy is not None and redaction.pool is not None
    try:
        scan = await scan_slots(
            answer_slots(obj), policy, redaction.pool, redaction.deadline_ms, placeholders_for(call)
        )
        err = answer_blocked(scan.entities) if scan.entities and policy.answers == "block" else None
    except (RedactionUnavailable, RedactionRejected) as exc:
        err = scan_failure(call, exc)
    if err is not None:
        call.fail(err.status, err.code, tokens, cost)
        raise err
    if scan.entities:
        log.info("answer_redacted", request_id=call.request_id, entities=dict(scan.entities))
    return orjson.dumps(obj)
