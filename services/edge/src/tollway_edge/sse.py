"""Server-sent events relay (pure): pass events through, read the usage chunk.

The edge asks the provider for ``stream_options.include_usage`` so every
stream ends with a chunk carrying ``usage`` (and ``choices: []``). The relay
forwards every complete event as soon as its bytes arrive — never holding a
complete event back — and keeps only an incomplete trailing event until its
end arrives. Only events that may carry usage are parsed (``"usage"`` present
and not ``"usage":null``), so ordinary content chunks cost a substring search.
When the client did not ask for usage itself, the usage-only chunk is dropped,
so the client sees exactly what the provider would have sent it.
"""

from __future__ import annotations

from typing import Any

import orjson

_SEPARATORS = (b"\n\n", b"\r\n\r\n", b"\r\r")


def _find_boundary(buf: bytes | bytearray, start: int) -> tuple[int, int]:
    """Index just past the last complete event in ``buf``, and that index; (-1, -1) if none."""
    best = -1
    for sep in _SEPARATORS:
        i = buf.rfind(sep, start)
        if i != -1 and i + len(sep) > best:
            best = i + len(sep)
    return best, best


class SSERelay:
    """Feeds upstream bytes, returns the bytes to forward.

    Attributes:
        usage: the last ``usage`` object seen (a dict), or None.
        events: complete events seen.
        first_content: True once an event has been forwarded.
    """

    __slots__ = ("_buf", "_forward_usage", "usage", "events", "done")

    def __init__(self, forward_usage_chunk: bool) -> None:
        self._buf = bytearray()
        self._forward_usage = forward_usage_chunk
        self.usage: dict[str, Any] | None = None
        self.events = 0
        self.done = False

    def feed(self, chunk: bytes) -> bytes:
        """Add upstream bytes; return the complete events to forward now (maybe b"")."""
        self._buf += chunk
        end, _ = _find_boundary(self._buf, 0)
        if end == -1:
            return b""
        complete = bytes(self._buf[:end])
        del self._buf[:end]
        return self._filter(complete)

    def finish(self) -> bytes:
        """The trailing bytes when upstream ends (an unterminated last event)."""
        rest = bytes(self._buf)
        self._buf.clear()
        if not rest.strip():
            return rest
        return self._filter(rest + b"\n\n")

    def _filter(self, complete: bytes) -> bytes:
        if b'"usage"' not in complete and b"[DONE]" not in complete:
            self.events += complete.count(b"data:")
            return complete
        out: list[bytes] = []
        for event in _split_events(complete):
            if self._keep(event):
                out.append(event)
        return b"".join(out)

    def _keep(self, event: bytes) -> bool:
        self.events += 1
        if b"[DONE]" in event:
            self.done = True
            return True
        if b'"usage"' not in event:
            return True
        data = _data_of(event)
        if data is None:
            return True
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError:
            return True
        if type(obj) is not dict:
            return True
        usage = obj.get("usage")
        if type(usage) is dict:
            self.usage = usage
            choices = obj.get("choices")
            if not self._forward_usage and not choices:
                return False
        return True


def _split_events(data: bytes) -> list[bytes]:
    """Split complete SSE text into events, each keeping its own separator."""
    events: list[bytes] = []
    normalized_sep = b"\n\n"
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    start = 0
    while True:
        i = data.find(normalized_sep, start)
        if i == -1:
            if start < len(data):
                events.append(data[start:])
            return events
        events.append(data[start : i + 2])
        start = i + 2


def _data_of(event: bytes) -> bytes | None:
    """The joined ``data:`` lines of one event, or None."""
    lines = [line[5:].lstrip(b" ") for line in event.split(b"\n") if line.startswith(b"data:")]
    if not lines:
        return None
    return b"\n".join(lines)
