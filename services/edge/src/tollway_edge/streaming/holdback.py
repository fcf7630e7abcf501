"""Answer redaction in a stream (issue 11, "Answers too"): a hold-back buffer
per choice and field that releases text once no match can still need it,
scanned through the redactor before it is released.

The rule (:func:`release_point`): of the text not yet released, everything
up to the last sentence end (``.``/``!``/``?`` and closing quotes or brackets
followed by white space; ``。！？``; a line break) is released, and at most
``window`` characters (64 by default, ``TOLLWAY_EDGE_ANSWER_HOLDBACK_CHARS``)
are held after it; all of it at the field's end (a choice's
``finish_reason``, ``[DONE]``, Anthropic's ``content_block_stop``). What is
released is scanned together with the held text after it, so an entity that
crosses the release point is seen whole as far as it has arrived; such an
entity is released at once, as its placeholder (the held text never exceeds
the window). An entity no longer than the window is therefore always scanned
whole, whatever the split of the stream.

One redactor round trip per upstream read that releases anything (every
field of every choice batched): that round trip is the delay added to the
chunk's delivery (``services/edge/bench/answer_holdback.py``,
``docs/redaction-bench.md``). Held text leaves as empty deltas in the events
that brought it (each keeps its completion-token count: billing is for what
the provider produced) and is released into the field's latest event, or into
an event inserted before the end marker.

Formats: OpenAI chat chunks (``content``, ``refusal``, each tool call's
``arguments`` as raw JSON), legacy completion chunks (``text``), Anthropic's
``content_block_delta`` (``text_delta``, ``thinking_delta``,
``input_json_delta``), OpenAI's Responses events (``holdback_responses``:
deltas held back, the events repeating the text rewritten to what the deltas
delivered) — the client's format, after any translation.

``answers: block``: the first detection ends the stream (:attr:`StreamScanner.refusal`,
502-equivalent ``answer_blocked``; the relay writes the terminator's error
event); a redactor failure ends it likewise (fail closed). When the provider's
stream breaks off (its failure, the drain deadline) the held text is scanned
and released before the terminator's error event (``scan(flush=True)``); on
admission's cut it is not (module ``relay``).
"""

from __future__ import annotations

import time
from collections import Counter, deque
from typing import Any

from tollway_edge.errors import EdgeError
from tollway_edge.redaction.answers import (
    AnswerCall,
    answer_blocked,
    answers_on,
    placeholders_for,
    redact_text,
    scan_failure,
    scan_policy,
)
from tollway_edge.redaction.client import RedactionRejected
from tollway_edge.redaction.request import RedactorLike
from tollway_edge.redaction.restore_anthropic import anthropic_event
from tollway_edge.redaction.step import EdgeRedaction
from tollway_edge.redaction.texts import RedactionUnavailable, TextRef
from tollway_edge.streaming.holdback_responses import (
    ResponsesBuffers,
    delta_key,
    delta_template,
    is_responses_event,
)
from tollway_edge.streaming.release import DEFAULT_WINDOW, Key, Sink, append_final, release_point
from tollway_edge.streaming.sse import SSEEvent

__all__ = ["DEFAULT_WINDOW", "StreamScanner", "release_point", "stream_scanner"]

_ANTHROPIC_FIELDS = {"text_delta": "text", "thinking_delta": "thinking", "input_json_delta": "partial_json"}


class StreamScanner:
    """Scans one stream's answer text (module doc) as the relay forwards its events.

    Args:
        call: the call (its policy's ``answers``, its prompt's placeholders, logs).
        client: the redactor pool.
        deadline_ms: time allowed per redactor round trip, ms.
        window: characters held at most after the last sentence end.

    Attributes:
        refusal: set when the stream must end (``answer_blocked``, or the
            redactor failed); the relay ends it with the terminator's error event.
        entities: detections per entity type so far (never values).
        scans: redactor round trips made.
        scan_ms: durations of the latest 4,096 of them, ms.
    """

    def __init__(self, call: AnswerCall, client: RedactorLike, deadline_ms: float, window: int) -> None:
        assert call.redaction_policy is not None
        self._call = call
        self._policy = call.redaction_policy
        self._client = client
        self._deadline_ms = deadline_ms
        self._window = window
        self._placeholders = placeholders_for(call)
        self._held: dict[Key, str] = {}
        self._json: set[Key] = set()
        self._template: dict[str, Any] | None = None
        self._r = ResponsesBuffers()
        self.refusal: EdgeError | None = None
        self.entities: Counter[str] = Counter()
        self.scans = 0
        self.scan_ms: deque[float] = deque(maxlen=4096)  # the latest scans' durations (bench)

    def _take(self, key: Key, container: dict[str, Any], field: str, json_text: bool = False) -> bool:
        """Move a delta's text into the key's hold-back buffer (the delta keeps ``""``)."""
        text = container.get(field)
        if not isinstance(text, str):
            return False
        self._held[key] = self._held.get(key, "") + text
        if json_text:
            self._json.add(key)
        container[field] = ""
        return True

    async def scan(self, events: list[SSEEvent], flush: bool = False) -> list[SSEEvent]:
        """The events to forward for ``events``: text held back or released
        (redacted) per the module doc; ``flush`` (the stream breaks off): every
        buffer is released too, scanned, in events appended. After a refusal: ``[]``."""
        if self.refusal is not None:
            return []
        sinks: dict[Key, Sink] = {}
        finals: dict[
            Key, tuple[int, dict[str, Any] | None]
        ] = {}  # key -> (event index to insert before, sink)
        changed: dict[int, tuple[Any, int]] = {}
        repeats: list[tuple[dict[str, Any], str, Key]] = []
        for i, event in enumerate(events):
            if event.is_done:
                for key in self._held:
                    finals.setdefault(key, (i, None))
                continue
            obj = event.json()
            if type(obj) is not dict:
                continue
            tokens = event.completion_tokens
            if obj.get("type") in ("content_block_delta", "content_block_stop"):
                if self._anthropic(i, event, obj, sinks, finals):
                    changed[i] = (obj, tokens)
            elif isinstance(obj.get("choices"), list):
                if self._template is None:
                    self._template = {k: obj[k] for k in ("id", "object", "created", "model") if k in obj}
                if self._chunk(i, event, obj, sinks, finals):
                    changed[i] = (obj, tokens)
            elif is_responses_event(obj) and self._responses(i, event, obj, sinks, finals, repeats):
                changed[i] = (obj, tokens)
        for key in self._held if flush else ():
            finals.setdefault(key, (len(events), None))
        released = await self._release(finals)
        if released is None:
            return []
        inserts: dict[int, list[SSEEvent]] = {}
        for key, text in released.items():
            if key[0] == "r" and self._r.released(key, text):
                continue  # a repeat's own text: it goes back into the repeat only
            if not text:
                continue
            final = finals.get(key)
            sink = sinks.get(key)
            if final is not None and final[1] is not None:
                append_final(key, final[1], text)
                changed.setdefault(final[0], (events[final[0]].json(), events[final[0]].completion_tokens))
            elif final is None and sink is not None:
                sink.container[sink.field] += text
            else:
                at = final[0] if final is not None else len(events)
                inserts.setdefault(at, []).append(self._new_event(key, text))
        for container, field, key in repeats:  # what the client got through the deltas
            container[field] = self._r.sent.get(key, "")
        out: list[SSEEvent] = []
        tail: list[SSEEvent | None] = [*events, None]  # None: the end (a final flush inserts there)
        for i, relayed in enumerate(tail):
            for new in inserts.get(i, ()):
                obj = new.json()
                if is_responses_event(obj):
                    obj["sequence_number"] = self._r.seq.inserted()
                    new = anthropic_event(obj)
                    new.count_as(0)
                out.append(new)
            if relayed is None:
                break
            event = relayed
            obj = event.json()
            renumbered = type(obj) is dict and is_responses_event(obj) and self._r.seq.relayed(obj)
            if renumbered and i not in changed:
                changed[i] = (obj, event.completion_tokens)
            if i in changed:
                obj, tokens = changed[i]
                if obj.get("type") == "content_block_delta" or is_responses_event(obj):
                    event = anthropic_event(obj)
                else:
                    event.replace(obj)
                event.count_as(tokens)  # the provider produced them, whenever they are released
            out.append(event)
        return out

    def _chunk(
        self,
        i: int,
        event: SSEEvent,
        obj: dict[str, Any],
        sinks: dict[Key, Sink],
        finals: dict[Key, tuple[int, dict[str, Any] | None]],
    ) -> bool:
        """An OpenAI chunk: take each choice's texts; a ``finish_reason`` ends the choice's fields."""
        took = False
        for choice in obj["choices"]:
            if not isinstance(choice, dict):
                continue
            idx = choice.get("index", 0)
            if self._take((idx, "text"), choice, "text"):
                sinks[(idx, "text")] = Sink(event, obj, choice, "text")
                took = True
            delta = choice.get("delta")
            if isinstance(delta, dict):
                for field in ("content", "refusal"):
                    if self._take((idx, field), delta, field):
                        sinks[(idx, field)] = Sink(event, obj, delta, field)
                        took = True
                for tc in delta.get("tool_calls") or []:
                    fn = tc.get("function") if isinstance(tc, dict) else None
                    key = (idx, "tool", tc.get("index", 0) if isinstance(tc, dict) else 0)
                    if isinstance(fn, dict) and self._take(key, fn, "arguments", json_text=True):
                        sinks[key] = Sink(event, obj, fn, "arguments")
                        took = True
            if choice.get("finish_reason") is not None:
                for key in self._held:
                    if key[0] == idx:
                        finals[key] = (i, choice)
        return took

    def _anthropic(
        self,
        i: int,
        event: SSEEvent,
        obj: dict[str, Any],
        sinks: dict[Key, Sink],
        finals: dict[Key, tuple[int, dict[str, Any] | None]],
    ) -> bool:
        """Anthropic's block deltas: take their text; ``content_block_stop`` ends the block's fields."""
        index = obj.get("index", 0)
        if obj["type"] == "content_block_stop":
            for key in self._held:
                if key[0] == "a" and key[1] == index:
                    finals[key] = (i, None)
            return False
        delta = obj.get("delta")
        field = _ANTHROPIC_FIELDS.get(str(delta.get("type"))) if isinstance(delta, dict) else None
        if field is None or not isinstance(delta, dict):
            return False
        key = ("a", index, field, delta["type"])
        if not self._take(key, delta, field, json_text=field == "partial_json"):
            return False
        sinks[key] = Sink(event, obj, delta, field)
        return True

    def _responses(
        self,
        i: int,
        event: SSEEvent,
        obj: dict[str, Any],
        sinks: dict[Key, Sink],
        finals: dict[Key, tuple[int, dict[str, Any] | None]],
        repeats: list[tuple[dict[str, Any], str, Key]],
    ) -> bool:
        """A Responses event (``holdback_responses``): take a delta's text; a
        repeat ends its buffers and is rewritten after the release."""
        key = delta_key(obj)
        if key is not None:
            if not self._take(key, obj, "delta", json_text=key[3] == "arguments"):
                return False
            sinks[key] = Sink(event, obj, obj, "delta")
            self._r.templates[key] = delta_template(obj)
            return True
        return self._r.repeats(i, obj, self._held, self._json, finals, repeats)

    async def _release(self, finals: dict[Key, tuple[int, dict[str, Any] | None]]) -> dict[Key, str] | None:
        """One redactor round trip over every buffer with text to release; the
        released (redacted) text per key; None (and :attr:`refusal` set) on a
        block or a failure."""
        cuts: dict[Key, int] = {}
        for key, held in self._held.items():
            cut = release_point(held, self._window, key in finals)
            if cut > 0:
                cuts[key] = cut
        out: dict[Key, str] = {}
        if not cuts:
            for key in finals:
                self._held.pop(key, None)
            return out
        keys = list(cuts)
        texts = [TextRef(str(n), self._held[k]) for n, k in enumerate(keys)]
        started = time.perf_counter()
        try:
            answer = await self._client.redact(scan_policy(self._policy), texts, self._deadline_ms)
        except (RedactionUnavailable, RedactionRejected) as exc:
            self.refusal = scan_failure(self._call, exc)
            return None
        finally:
            self.scans += 1
            self.scan_ms.append((time.perf_counter() - started) * 1000.0)
        by_id = {r.id: r.detections for r in answer.results}
        for n, key in enumerate(keys):
            held, cut = self._held[key], cuts[key]
            detections = by_id.get(str(n), [])
            self.entities.update(d.entity_type for d in detections)
            for d in detections:
                if d.start < cut < d.end:
                    cut = d.end  # an entity across the release point goes out whole, as its placeholder
            inside = [d for d in detections if d.end <= cut]
            out[key] = redact_text(held[:cut], inside, self._placeholders, key in self._json)
            self._held[key] = held[cut:]
        for key in finals:
            self._held.pop(key, None)
        if self.entities and self._policy.answers == "block":
            self.refusal = answer_blocked(self.entities)
            return None
        return out

    def _new_event(self, key: Key, text: str) -> SSEEvent:
        """An event of its own carrying released text (before an end marker)."""
        if key[0] == "r":
            event = anthropic_event({**self._r.templates.get(key, {}), "delta": text})
        elif key[0] == "a":
            event = anthropic_event(
                {"type": "content_block_delta", "index": key[1], "delta": {"type": key[3], key[2]: text}}
            )
        else:
            choice: dict[str, Any] = {"index": key[0], "finish_reason": None}
            append_final(key, choice, text)
            base = self._template or {"object": "chat.completion.chunk"}
            event = SSEEvent.from_json({**base, "choices": [choice]})
        event.count_as(0)
        return event


def stream_scanner(redaction: EdgeRedaction, call: AnswerCall) -> StreamScanner | None:
    """The answer scanner of a stream of this call, or None when its policy does
    not scan answers (or no redactor is configured: the call was refused before)."""
    client = redaction.answer_client or redaction.pool
    if not answers_on(call.redaction_policy) or client is None:
        return None
    return StreamScanner(call, client, redaction.deadline_ms, redaction.answer_window)
