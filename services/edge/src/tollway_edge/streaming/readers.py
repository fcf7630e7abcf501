"""The relay's readers (pure): :class:`StreamReader`, the relay's view of one
stream format (provider format -> client format), and :class:`UsageReader`,
OpenAI chunks relayed as they are (the provider's usage read, the usage-only
chunk dropped unless the client asked). Other formats: ``streaming.formats``.
"""

from __future__ import annotations

from typing import Any, Protocol

from tollway_edge.streaming.sse import SSEEvent
from tollway_edge.usage import Tokens, extract_usage


class StreamReader(Protocol):
    """The relay's view of one stream format (provider format -> client format).

    Attributes:
        done: True once the provider's stream ended as a whole answer.
    """

    done: bool

    def filter(self, events: list[SSEEvent]) -> list[SSEEvent]:
        """The client's events for these provider events (maybe rewritten, maybe none)."""

    def close(self) -> list[SSEEvent]:
        """The provider's bytes ended: any events that end the answer (maybe none)."""

    def tokens(self) -> Tokens | None:
        """The provider's usage so far (OpenAI's meaning), or None."""


class UsageReader:
    """OpenAI chunks, relayed as they are: reads the provider's ``usage`` from the
    events and drops the usage-only chunk (``choices: []``) unless the client asked
    for usage.

    Attributes:
        usage: the last ``usage`` object seen (a dict), or None.
        done: True once ``[DONE]`` passed.
    """

    __slots__ = ("_forward_usage", "usage", "done")

    def __init__(self, forward_usage_chunk: bool) -> None:
        self._forward_usage = forward_usage_chunk
        self.usage: dict[str, Any] | None = None
        self.done = False

    def filter(self, events: list[SSEEvent]) -> list[SSEEvent]:
        """The events to forward (``events`` itself when none is dropped).
        A content event is never parsed here: only events whose bytes may
        hold a non-null ``usage``."""
        if len(events) == 1:
            raw = events[0].raw
            if b'"usage"' not in raw and b"[DONE]" not in raw:
                return events  # the common case: one content event
        kept: list[SSEEvent] | None = None
        for i, event in enumerate(events):
            drop = False
            if b"[DONE]" in event.raw and event.is_done:
                self.done = True
            elif event.may_carry_usage():
                obj = event.json()
                usage = obj.get("usage") if type(obj) is dict else None
                if type(usage) is dict:
                    self.usage = usage
                    drop = not self._forward_usage and not obj.get("choices")
            if drop:
                if kept is None:
                    kept = events[:i]
            elif kept is not None:
                kept.append(event)
        return events if kept is None else kept

    def close(self) -> list[SSEEvent]:
        """Nothing: an OpenAI stream ends with the provider's own ``[DONE]``."""
        return []

    def tokens(self) -> Tokens | None:
        """The last ``usage`` seen, read (``usage.extract_usage``)."""
        return extract_usage(self.usage)
