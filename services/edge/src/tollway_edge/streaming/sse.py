"""The one SSE splitter of the edge (pure): upstream bytes in, events out.

Every later stage — relay, redaction restoration, completion-token counting,
reservation extension, the clean cut — consumes the :class:`SSEEvent` objects
this module yields; none of them frames bytes again (CONVENTIONS habit 16).

Framing follows the WHATWG server-sent events spec: lines end in CRLF, LF or
CR; a blank line ends an event. Line ends are normalised to LF as bytes
arrive (a trailing CR is held until the next chunk shows whether an LF
follows), so any split of a stream yields the same events.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

_UNPARSED: Any = object()
DELTA_TOKEN = re.compile(rb'"(?:content|arguments|text|partial_json)": ?"(?!")')
"""A non-empty ``content``, ``arguments`` or ``text`` (legacy completions'
chunks; Anthropic's ``text_delta``) or ``partial_json`` (Anthropic's
``input_json_delta``) string: one completion token (one scan)."""


class SSEEvent:
    """One complete event.

    Attributes:
        raw: the event's bytes as forwarded (LF line ends, ending in a blank
            line). Stages that rewrite an event replace ``raw`` (and the
            parsed JSON with it, via :meth:`replace`).

    ``data``, ``json()``, ``is_done`` and ``completion_tokens`` are computed
    on first use and kept: an event is parsed at most once, and only when a
    stage needs it.
    """

    __slots__ = ("raw", "_data", "_json", "_tokens")

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self._data: Any = _UNPARSED
        self._json: Any = _UNPARSED
        self._tokens = -1

    @classmethod
    def from_json(cls, obj: Any) -> SSEEvent:
        """A ``data:`` event carrying ``obj`` (already parsed: no re-parse later)."""
        event = cls(b"data: " + orjson.dumps(obj) + b"\n\n")
        event._json = obj
        return event

    def replace(self, obj: Any) -> None:
        """Rewrite this event to carry ``obj`` (the JSON of its data)."""
        self.raw = b"data: " + orjson.dumps(obj) + b"\n\n"
        self._data = _UNPARSED
        self._json = obj
        self._tokens = -1

    @property
    def data(self) -> bytes | None:
        """The event's ``data`` field (its ``data:`` lines joined by LF), or None."""
        if self._data is _UNPARSED:
            raw = self.raw
            if raw.startswith(b"data: ") and raw.find(b"\n") == len(raw) - 2:
                self._data = raw[6:-2]  # the common shape: one "data: ..." line
            else:
                lines = [
                    line[5:].removeprefix(b" ") for line in raw.split(b"\n") if line.startswith(b"data:")
                ]
                self._data = b"\n".join(lines) if lines else None
        return self._data  # type: ignore[no-any-return]  # _data is bytes | None once set

    @property
    def is_done(self) -> bool:
        """True for OpenAI's ``data: [DONE]`` end marker."""
        data = self.data
        return data is not None and data.strip() == b"[DONE]"

    def json(self) -> Any:
        """The data parsed as JSON (once), or None when absent, ``[DONE]`` or not JSON."""
        if self._json is _UNPARSED:
            data = self.data
            obj = None
            if data is not None and not self.is_done:
                try:
                    obj = orjson.loads(data)
                except orjson.JSONDecodeError:
                    obj = None
            self._json = obj
        return self._json

    def may_carry_usage(self) -> bool:
        """True when the raw bytes may hold a non-null ``usage`` (a substring test, no parse)."""
        raw = self.raw
        return b'"usage"' in raw and b'"usage":null' not in raw

    def count_as(self, tokens: int) -> None:
        """Set :attr:`completion_tokens` (a reader that knows its format's deltas,
        e.g. ``formats.ResponsesReader``, instead of the byte scan)."""
        self._tokens = tokens

    @property
    def completion_tokens(self) -> int:
        """Completion tokens this event carries: one per non-empty ``content``,
        ``arguments``, ``text`` (legacy completions, Anthropic) or ``partial_json`` delta (the rule of ``admission.bounds``; a byte scan, no parse)."""
        if self._tokens < 0:
            self._tokens = len(DELTA_TOKEN.findall(self.raw))
        return self._tokens


class SSESplitter:
    """Feeds upstream chunks, yields complete events (each once, in order).

    Keeps only the incomplete tail of the stream; never holds back a
    complete event.
    """

    __slots__ = ("_buf", "_cr", "_scan")

    def __init__(self) -> None:
        self._buf = b""
        self._cr = False  # the previous chunk ended in CR
        self._scan = 0  # where the next search for a blank line starts

    @property
    def empty(self) -> bool:
        """True when no part of an event is kept (the bytes fed so far were whole events)."""
        return not self._buf and not self._cr

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Add upstream bytes; return the events they complete (maybe none)."""
        if not self._buf and not self._cr and chunk.endswith(b"\n\n") and b"\r" not in chunk:
            i = chunk.find(b"\n\n")
            if i == len(chunk) - 2:  # the common case: exactly one whole event
                return [SSEEvent(chunk)]
        if self._cr:
            chunk = b"\r" + chunk
            self._cr = False
        if b"\r" in chunk:
            if chunk.endswith(b"\r"):
                chunk = chunk[:-1]
                self._cr = True
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        buf = self._buf + chunk if self._buf else chunk
        events: list[SSEEvent] = []
        start = 0
        i = buf.find(b"\n\n", self._scan)
        while i != -1:
            events.append(SSEEvent(buf[start : i + 2]))
            start = i + 2
            i = buf.find(b"\n\n", start)
        self._buf = buf[start:] if start else buf
        # A blank line may begin with the tail's last LF: rescan from there.
        self._scan = max(len(self._buf) - 1, 0)
        return events

    def finish(self) -> list[SSEEvent]:
        """At the end of the stream: the unterminated last event, if it holds anything."""
        rest = self._buf + (b"\n" if self._cr else b"")
        self._buf, self._cr, self._scan = b"", False, 0
        if not rest.strip():
            return []
        return [SSEEvent(rest.rstrip(b"\n") + b"\n\n")]


def split_events(data: bytes) -> list[SSEEvent]:
    """All events of a complete SSE text (tests and one-shot callers)."""
    splitter = SSESplitter()
    return splitter.feed(data) + splitter.finish()
