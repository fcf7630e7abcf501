"""The relay's write path and its common path (issue 9: relay CPU per chunk).

:class:`ClientWire` writes a prepared stream response's body straight to the
client's transport (HTTP/1.1 chunked framing, one ``transport.write`` per
batch) instead of ``StreamResponse.write`` (chunked encoder, size
accounting and drain check per write), with aiohttp's flow control: when the
client's socket buffer is over its high-water mark the protocol is paused and
a write waits for it to resume (``StreamWriter.drain``).

:class:`DirectRelay` is the common case of an OpenAI stream relayed as it is
(no answer scan, no restoration, no format translation, no response to
store): called by the provider connection's read callback
(``UpstreamResponse.sink``) with the body bytes of one socket read, it writes
them to the client at once when they are whole events that need nothing but
forwarding and counting — no usage (only ``"usage":null``), no ``[DONE]``,
completion tokens within the reservation, the client writable and not gone,
no drain under way. Anything else returns False and the relay's task takes
the bytes through the full loop (``streaming.relay``), so every invariant of
the loop holds: no event held back (the bytes are written in the callback
that read them), the cut and the terminal events are the loop's, billing on
an early end is the loop's.
"""

from __future__ import annotations

import time

import aiohttp
from aiohttp import web
from aiohttp.http_writer import StreamWriter

from tollway_edge.admission import Ticket
from tollway_edge.call import Call
from tollway_edge.streaming.live import LiveStream
from tollway_edge.streaming.sse import DELTA_TOKEN, SSESplitter
from tollway_edge.streaming.terminator import OpenAITerminator


class ClientWire:
    """The body of a prepared ``web.StreamResponse``, written to its transport.

    The first write goes through ``StreamResponse.write`` (aiohttp sends the
    buffered head with it); later ones are framed here (``<size hex>\\r\\n<data>\\r\\n``
    when the response is chunked, the bytes as they are when it is not: an
    HTTP/1.0 client, read until close). A response aiohttp compresses is
    always written through aiohttp.

    Args:
        request: the request being answered (its protocol and transport).
        out: its response, already prepared.
    """

    __slots__ = ("_out", "_protocol", "_writer", "_chunked", "started")

    def __init__(self, request: web.Request, out: web.StreamResponse) -> None:
        self._out = out
        self._protocol = request.protocol
        writer = request._payload_writer  # what out.prepare() writes through
        self._writer = writer if type(writer) is StreamWriter and writer._compress is None else None
        self._chunked = self._writer is not None and self._writer.chunked
        self.started = False  # the head went out (with the first write)

    def frame(self, data: bytes) -> bytes | None:
        """``data`` framed for the wire, or None when it cannot be written
        straight away (the head not sent yet, the client's buffer full, the
        transport closing, or aiohttp must write it)."""
        protocol = self._protocol
        if not self.started or protocol._paused or self._writer is None:
            return None
        transport = protocol.transport
        if transport is None or transport.is_closing():
            return None
        return b"%x\r\n%b\r\n" % (len(data), data) if self._chunked else data

    def write_now(self, data: bytes) -> bool:
        """Write ``data`` now if :meth:`frame` allows it (True), else nothing (False)."""
        framed = self.frame(data)
        if framed is None:
            return False
        self._protocol.transport.write(framed)  # type: ignore[union-attr]  # checked by frame()
        self._writer.output_size += len(framed)  # type: ignore[union-attr]  # the response's body_length
        return True

    async def write(self, data: bytes) -> None:
        """Write ``data``, then wait while the client's buffer is over its high-water mark.

        Raises:
            aiohttp.ClientConnectionResetError: the client's connection is closing
                or was lost while the write waited (as ``StreamResponse.write``);
                ``RuntimeError`` from aiohttp likewise.
        """
        if not self.started or self._writer is None:
            await self._out.write(data)
            self.started = True
            return
        transport = self._protocol.transport
        if transport is None or transport.is_closing():
            raise aiohttp.ClientConnectionResetError("Cannot write to closing transport")
        framed = b"%x\r\n%b\r\n" % (len(data), data) if self._chunked else data
        transport.write(framed)
        self._writer.output_size += len(framed)
        if self._protocol._paused:
            try:
                await self._writer.drain()
            except ConnectionError as exc:  # lost while paused: aiohttp wakes the drain with it
                raise aiohttp.ClientConnectionResetError(str(exc)) from exc


class DirectRelay:
    """The relay's common path, run in the provider connection's read callback
    (see the module doc). Armed by the relay (``UpstreamResponse.sink = direct``)
    only while its task waits for the provider, after its first write.

    Args:
        wire: the client side.
        call: the call (completion tokens sent, progress, upstream wait).
        ticket: the stream's admission ticket (its reservation), or None.
        splitter: the relay's splitter (bytes are taken only when it holds none).
        stream: the stream as the live-stream watch sees it (client gone, drain).
        terminator: the stream's terminator (the first event must have been
            shown to it: the end events echo its id).
    """

    __slots__ = ("_wire", "_call", "_ticket", "_splitter", "_stream", "_terminator")

    def __init__(
        self,
        wire: ClientWire,
        call: Call,
        ticket: Ticket | None,
        splitter: SSESplitter,
        stream: LiveStream,
        terminator: OpenAITerminator,
    ) -> None:
        self._wire = wire
        self._call = call
        self._ticket = ticket
        self._splitter = splitter
        self._stream = stream
        self._terminator = terminator

    @property
    def ready(self) -> bool:
        """True once the head and a first event went out through the loop."""
        return self._wire.started and self._terminator.observed

    def __call__(self, data: bytes) -> bool:
        """Relay ``data`` (the body bytes of one provider read) now; False: the
        relay's loop must take them (nothing was written or counted)."""
        t0 = time.perf_counter()
        if (
            not data.endswith(b"\n\n")  # an event left incomplete: the splitter keeps it
            or not self._splitter.empty
            or b"\r" in data  # line ends to normalise
            or b"[DONE]" in data
            or data.count(b'"usage"') != data.count(b'"usage":null')  # usage to read, maybe to drop
        ):
            return False
        stream = self._stream
        if stream.gone_at is not None or stream.shutdown:
            return False
        call, ticket = self._call, self._ticket
        n = len(DELTA_TOKEN.findall(data))  # the sum of the events' SSEEvent.completion_tokens
        if ticket is not None and n and call.sent_tokens + n > ticket.reserved_out:
            return False  # the loop extends the reservation (or cuts)
        if not self._wire.write_now(data):
            return False
        if n:
            call.sent_tokens += n
            call.progress()
        # The relay's task adds its whole wait for the provider; this part was the edge's.
        call.upstream_wait -= time.perf_counter() - t0
        return True
