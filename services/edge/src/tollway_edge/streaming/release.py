"""The hold-back's pure pieces (``streaming.holdback``): the release rule,
where released text goes (:class:`Sink`), and released text appended to a
chunk's choice."""

from __future__ import annotations

import re
from typing import Any

from tollway_edge.streaming.sse import SSEEvent

DEFAULT_WINDOW = 64
"""Characters held at most after the last sentence end (the issue's default)."""

_SENTENCE_END = re.compile(r"[.!?\u2026]+[\"'\u201d\u2019)\]]*\s+|[\u3002\uff01\uff1f]+|\n+")

Key = tuple[Any, ...]


def release_point(held: str, window: int, final: bool) -> int:
    """How much of ``held`` (text not yet released) may be released now, before
    scanning: all of it when ``final``; else up to the last sentence end, and at
    least all but the last ``window`` characters."""
    if final:
        return len(held)
    end = 0
    for m in _SENTENCE_END.finditer(held):
        end = m.end()
    return max(end, len(held) - window, 0)


class Sink:
    """Where a field's released text goes: the container (a delta, a choice, a
    tool call's function) and the event that carries it."""

    __slots__ = ("event", "obj", "container", "field")

    def __init__(self, event: SSEEvent, obj: Any, container: dict[str, Any], field: str) -> None:
        self.event, self.obj, self.container, self.field = event, obj, container, field


def append_final(key: Key, choice: dict[str, Any], text: str) -> None:
    """Released text appended to a chunk's choice (its delta, or ``text`` for legacy completions)."""
    if key[1] == "text":
        choice["text"] = (choice.get("text") or "") + text
        return
    delta = choice.get("delta")
    if not isinstance(delta, dict):
        delta = choice["delta"] = {}
    if key[1] == "tool":
        delta.setdefault("tool_calls", []).append({"index": key[2], "function": {"arguments": text}})
    else:
        delta[key[1]] = (delta.get(key[1]) or "") + text
