"""What the stream translators consume and produce: SSE events.

Habit 16 (frame once, parse once): the edge's splitter cuts the provider's
bytes into events; the translators only read complete events through the
:class:`SSEEvent` protocol (any object with a ``data`` attribute, such as the
edge splitter's ``SSEEvent``) and parse each event's data once. They return
the client's events as a list of framed byte strings, exactly one complete
event each, so the edge can wrap each as an event of its own without
splitting again. Framing follows the WHATWG server-sent events format
(``event:`` line, ``data:`` line, blank line).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from tollway_edge.translate.errors import bad_provider

DONE = b"[DONE]"


class SSEEvent(Protocol):
    """One complete server-sent event as a splitter yields it.

    Attributes:
        data: the ``data:`` lines joined by ``\\n``, without the ``data:`` prefix (bytes), or
            None for an event without data. The ``event:`` name is not needed: Anthropic
            repeats it as the data's ``type``.
    """

    @property
    def data(self) -> bytes | None: ...


@dataclass(frozen=True, slots=True)
class Event:
    """A plain :class:`SSEEvent` (for callers and tests that have none of their own)."""

    data: bytes | None
    event: str | None = None


def json_of(event: SSEEvent) -> dict[str, Any]:
    """The event's data as a JSON object.

    Raises:
        TranslationError: (502) the data is not a JSON object.
    """
    try:
        obj = orjson.loads(event.data or b"")
    except orjson.JSONDecodeError:
        raise bad_provider("a stream event's data is not JSON") from None
    if not isinstance(obj, dict):
        raise bad_provider("a stream event's data is not a JSON object")
    return obj


def openai_frame(obj: dict[str, Any]) -> bytes:
    """One OpenAI stream event: ``data: {json}\\n\\n``."""
    return b"data: " + orjson.dumps(obj) + b"\n\n"


OPENAI_DONE = b"data: [DONE]\n\n"


def anthropic_frame(obj: dict[str, Any]) -> bytes:
    """One Anthropic stream event: ``event: <type>\\ndata: {json}\\n\\n`` (the name is ``obj["type"]``)."""
    return b"event: " + str(obj["type"]).encode() + b"\ndata: " + orjson.dumps(obj) + b"\n\n"
