"""Answer scanning of OpenAI's Responses stream events (``/v1/responses``,
``stream: true``), the part of :class:`~tollway_edge.streaming.holdback.StreamScanner`
that knows their shapes (pure bookkeeping; the scanner does the round trips).

- **Deltas** (``response.output_text.delta``, ``response.refusal.delta``,
  ``response.function_call_arguments.delta`` (raw JSON),
  ``response.reasoning_summary_text.delta``, ``response.reasoning_text.delta``):
  held back and released like a chat chunk's ``content``, one buffer per
  output item and part (``output_index``, ``content_index`` /
  ``summary_index``). Held text is released into the field's latest delta
  in the same read, else into a delta inserted before the event that ends it.
- **Repeats** (``*.done``, ``response.content_part.done``,
  ``response.output_item.added``/``.done``, and the ``response`` of
  ``response.completed``/``.incomplete``/``.failed``): they repeat the whole
  text. A repeat ends its buffer (all of it is released first) and then
  carries exactly what the client received through the deltas (redacted),
  so the SDK's accumulated text and its final ``response`` agree. A repeat of
  a text that came in no delta is scanned itself (nothing unscanned passes).
- **Sequence numbers**: each inserted delta takes the next number and every
  later event is renumbered, so ``sequence_number`` stays strictly
  increasing by one (the terminator's ``error`` event continues it).
"""

from __future__ import annotations

from typing import Any

Key = tuple[Any, ...]
Slot = tuple[dict[str, Any], str, Key]
"""Where a repeat carries a text: ``(container, field, buffer key)``."""

DELTAS: dict[str, str] = {
    "response.output_text.delta": "text",
    "response.refusal.delta": "refusal",
    "response.function_call_arguments.delta": "arguments",
    "response.reasoning_summary_text.delta": "summary",
    "response.reasoning_text.delta": "reasoning",
}
_DONES: dict[str, tuple[str, str]] = {  # event type -> (buffer kind, field holding the whole text)
    "response.output_text.done": ("text", "text"),
    "response.refusal.done": ("refusal", "refusal"),
    "response.function_call_arguments.done": ("arguments", "arguments"),
    "response.reasoning_summary_text.done": ("summary", "text"),
    "response.reasoning_text.done": ("reasoning", "text"),
}
_FINAL_RESPONSES = ("response.completed", "response.incomplete", "response.failed")


def is_responses_event(obj: dict[str, Any]) -> bool:
    """True for a Responses stream event (``type`` ``response.*``)."""
    kind = obj.get("type")
    return type(kind) is str and kind.startswith("response.")


def delta_key(obj: dict[str, Any]) -> Key | None:
    """The buffer of a Responses delta event, or None when ``obj`` is no delta."""
    kind = DELTAS.get(obj.get("type"))  # type: ignore[arg-type]
    if kind is None:
        return None
    part = obj.get("summary_index") if kind == "summary" else obj.get("content_index", 0)
    return ("r", obj.get("output_index", 0), part if kind != "arguments" else 0, kind)


def delta_template(obj: dict[str, Any]) -> dict[str, Any]:
    """The fields an inserted delta of the same buffer copies (no text, no sequence number)."""
    fields = ("type", "item_id", "output_index", "content_index", "summary_index")
    out: dict[str, Any] = {k: obj[k] for k in fields if k in obj}
    if "logprobs" in obj:
        out["logprobs"] = []
    return out


def _part_slot(oi: Any, ci: Any, part: Any) -> list[Slot]:
    if type(part) is not dict:
        return []
    kind = part.get("type")
    if kind == "output_text" or kind == "reasoning_text":
        return [(part, "text", ("r", oi, ci, "text" if kind == "output_text" else "reasoning"))]
    if kind == "refusal":
        return [(part, "refusal", ("r", oi, ci, "refusal"))]
    return []


def _item_slots(oi: Any, item: Any) -> list[Slot]:
    """The texts of one output item (a message's parts, a call's arguments, a reasoning summary)."""
    if type(item) is not dict:
        return []
    out: list[Slot] = []
    if type(item.get("arguments")) is str:
        out.append((item, "arguments", ("r", oi, 0, "arguments")))
    content = item.get("content")
    if type(content) is list:
        for ci, part in enumerate(content):
            out.extend(_part_slot(oi, ci, part))
    summary = item.get("summary")
    if type(summary) is list:
        for si, part in enumerate(summary):
            if type(part) is dict and type(part.get("text")) is str:
                out.append((part, "text", ("r", oi, si, "summary")))
    return out


def repeat_slots(obj: dict[str, Any]) -> list[Slot]:
    """Every text a non-delta Responses event repeats (module doc), with its buffer key."""
    kind = obj.get("type")
    oi = obj.get("output_index", 0)
    done = _DONES.get(kind)  # type: ignore[arg-type]
    if done is not None:
        buf, field = done
        part = obj.get("summary_index") if buf == "summary" else obj.get("content_index", 0)
        if type(obj.get(field)) is str:
            return [(obj, field, ("r", oi, part if buf != "arguments" else 0, buf))]
        return []
    if kind in ("response.content_part.added", "response.content_part.done"):
        return _part_slot(oi, obj.get("content_index", 0), obj.get("part"))
    if kind in ("response.reasoning_summary_part.added", "response.reasoning_summary_part.done"):
        part = obj.get("part")
        if type(part) is dict and type(part.get("text")) is str:
            return [(part, "text", ("r", oi, obj.get("summary_index", 0), "summary"))]
        return []
    if kind in ("response.output_item.added", "response.output_item.done"):
        return _item_slots(oi, obj.get("item"))
    if kind in _FINAL_RESPONSES or kind in ("response.created", "response.in_progress"):
        response = obj.get("response")
        output = response.get("output") if type(response) is dict else None
        if type(output) is list:
            return [s for i, item in enumerate(output) for s in _item_slots(i, item)]
    return []


class Sequence:
    """Renumbers ``sequence_number`` around inserted events (module doc)."""

    __slots__ = ("shift", "last")

    def __init__(self) -> None:
        self.shift = 0
        self.last = -1

    def inserted(self) -> int:
        """The number of an event inserted now (the next one); later events move up by one."""
        self.shift += 1
        self.last += 1
        return self.last

    def relayed(self, obj: dict[str, Any]) -> bool:
        """Give a relayed event its number; True when it changed (the event must be re-encoded)."""
        seq = obj.get("sequence_number")
        if type(seq) is not int:
            return False
        self.last = seq + self.shift
        if self.shift:
            obj["sequence_number"] = self.last
            return True
        return False


class ResponsesBuffers:
    """One stream's Responses bookkeeping beside the scanner's buffers.

    Attributes:
        templates: per buffer, the fields an inserted delta copies.
        sent: per buffer, the (redacted) text released to the client so far.
        silent: buffers holding a repeat's own text (no delta brought it).
        seq: the stream's renumbering.
    """

    __slots__ = ("templates", "sent", "silent", "seq")

    def __init__(self) -> None:
        self.templates: dict[Key, dict[str, Any]] = {}
        self.sent: dict[Key, str] = {}
        self.silent: set[Key] = set()
        self.seq = Sequence()

    def repeats(
        self,
        i: int,
        obj: dict[str, Any],
        held: dict[Key, str],
        json_keys: set[Key],
        finals: dict[Key, tuple[int, dict[str, Any] | None]],
        out: list[Slot],
    ) -> bool:
        """Note the texts event ``i`` repeats (in ``out``, rewritten after the
        release) and end their buffers at it (``finals``); a text no delta
        brought is put into ``held`` to be scanned. True when it repeats any."""
        slots = [s for s in repeat_slots(obj) if s[0][s[1]]]
        for container, field, key in slots:
            if key not in held and key not in self.sent:
                held[key] = container[field]
                if key[3] == "arguments":
                    json_keys.add(key)
                self.silent.add(key)
            if key in held:
                finals.setdefault(key, (i, None))
            out.append((container, field, key))
        return bool(slots)

    def released(self, key: Key, text: str) -> bool:
        """Record a buffer's released text; True when it goes to no delta (a silent buffer)."""
        self.sent[key] = self.sent.get(key, "") + text
        if key in self.silent:
            self.silent.discard(key)
            return True
        return False
