"""Reversible mode, streamed, in the wire format of Anthropic's Messages API:
:class:`AnthropicRestorer` rewrites ``content_block_delta`` events over the
core :class:`~tollway_edge.redaction.restore.StreamRestorer`;
:func:`anthropic_event` frames a rewritten event.

The mapping lives in the call's memory only; never log or persist it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from tollway_edge.redaction.restore import StreamRestorer
from tollway_edge.streaming.sse import SSEEvent

_ANTHROPIC_DELTA_FIELDS = {
    "text_delta": "text",
    "thinking_delta": "thinking",
    "input_json_delta": "partial_json",
}


def anthropic_event(obj: dict[str, Any]) -> SSEEvent:
    """An Anthropic SSE event (``event: <type>`` + ``data:``) carrying ``obj``."""
    event = SSEEvent(b"event: " + str(obj.get("type")).encode() + b"\ndata: " + orjson.dumps(obj) + b"\n\n")
    event._json = obj  # noqa: SLF001 - already parsed: no re-parse later
    return event


class AnthropicRestorer:
    """Restores placeholders in Anthropic ``content_block_delta`` events of one
    stream: ``text_delta``, ``thinking_delta`` and ``input_json_delta``
    (JSON-escaped) per content block. Held-back text is released in a
    ``content_block_delta`` inserted before the block's ``content_block_stop``.
    """

    def __init__(self, mapping: Mapping[str, str]) -> None:
        self._mapping = dict(mapping)
        self._streams: dict[tuple[int, str], tuple[StreamRestorer, str]] = {}

    def restore(self, obj: dict[str, Any]) -> list[dict[str, Any]]:
        """The events to send for ``obj`` (a delta rewritten in place; a
        ``content_block_stop`` preceded by the block's held-back text)."""
        kind = obj.get("type")
        index = obj.get("index", 0)
        if kind == "content_block_delta" and isinstance(obj.get("delta"), dict):
            delta = obj["delta"]
            field = _ANTHROPIC_DELTA_FIELDS.get(str(delta.get("type")))
            if field is not None and isinstance(delta.get(field), str):
                key = (index, field)
                if key not in self._streams:
                    self._streams[key] = (
                        StreamRestorer(self._mapping, json_escape=field == "partial_json"),
                        delta["type"],
                    )
                delta[field] = self._streams[key][0].feed(delta[field])
            return [obj]
        if kind == "content_block_stop":
            return [*self._release(index), obj]
        return [obj]

    def _release(self, index: Any) -> list[dict[str, Any]]:
        out = []
        for (idx, field), (stream, delta_type) in self._streams.items():
            if idx == index and stream.held:
                delta = {"type": delta_type, field: stream.flush()}
                out.append({"type": "content_block_delta", "index": idx, "delta": delta})
        return out
