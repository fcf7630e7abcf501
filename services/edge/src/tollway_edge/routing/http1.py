"""A lean HTTP/1.1 client for provider calls (issue 9: edge CPU per call).

One asyncio ``Protocol`` per connection with ``httptools``' response parser
(llhttp): no ``StreamReader``, no per-read timer reschedule, one ``write`` per
request (head and body together). Keep-alive pool per (scheme, host, port),
TLS through ``loop.create_connection(ssl=...)``, ``Accept-Encoding:
identity`` (bodies are never compressed, so never decompressed), chunked and
Content-Length bodies (and read-until-close). Timeouts: connect
(``TimeoutError``), idle between reads of a body (``TimeoutError``, checked
by one lazily re-armed timer per response), a whole response's total.

Errors: :class:`UpstreamConnectError` (refused, DNS, TLS: retryable, nothing
was sent), :class:`UpstreamError` (the connection failed or closed before
the response was complete, or it was malformed); both are ``OSError``. A
request cancelled mid-way (the client went away) closes its connection.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import httptools
from multidict import CIMultiDict, CIMultiDictProxy

if TYPE_CHECKING:
    from tollway_edge.routing.http1_pool import Pool

HIGH_WATER = 1 << 20
"""Unread body bytes above which reading from the socket pauses."""


class UpstreamError(OSError):
    """The provider's connection failed, closed early, or sent a malformed response."""


class UpstreamConnectError(UpstreamError):
    """No connection could be opened (refused, unreachable, DNS, TLS)."""


@dataclass(frozen=True, slots=True)
class Timeouts:
    """A request's timeouts, s (None = none).

    Attributes:
        connect: opening a new connection (TLS included).
        idle: between two reads of the response (status line included).
        total: the whole response, from the request to its last byte.
    """

    connect: float | None = None
    idle: float | None = None
    total: float | None = None


class UpstreamResponse:
    """One response: status and headers, its body read with :meth:`readany`/:meth:`read`.

    ``content`` is the response itself (``response.content.readany()``). Call
    :meth:`release` (connection back to the pool when the body was read whole)
    or :meth:`close` (connection closed; a pending read fails) when done.

    Attributes:
        sink: while a :meth:`readany` waits, the body bytes of each socket read
            (all of them, joined) are first offered to ``sink(data)``, called
            from the connection's read callback: True means it consumed them
            (the reader stays asleep), False that the reader gets them as usual.
            The stream relay's common path (``streaming.direct``); None: off.
    """

    __slots__ = (
        "status",
        "headers",
        "sink",
        "_conn",
        "_chunks",
        "_size",
        "_done",
        "_error",
        "_waiter",
    )

    def __init__(self, conn: Connection) -> None:
        self.status = 0
        self.headers: CIMultiDictProxy[str] = CIMultiDictProxy(CIMultiDict())
        self.sink: Callable[[bytes], bool] | None = None
        self._conn: Connection | None = conn
        self._chunks: list[bytes] = []
        self._size = 0
        self._done = False
        self._error: BaseException | None = None
        self._waiter: asyncio.Future[None] | None = None

    @property
    def content(self) -> UpstreamResponse:
        """The response itself; a property: an attribute holding ``self`` was a reference cycle."""
        return self

    @property
    def content_type(self) -> str:
        """The media type of ``Content-Type`` in lower case, without parameters
        (``application/octet-stream`` when absent)."""
        raw = self.headers.get("Content-Type")
        return raw.split(";", 1)[0].strip().lower() if raw else "application/octet-stream"

    async def readany(self) -> bytes:
        """The body bytes received since the last read (at least one), b"" at its end.

        Raises:
            UpstreamError: the connection failed or was closed before the end.
            TimeoutError: the idle or total timeout passed.
        """
        while not self._chunks:
            if self._error is not None:
                raise self._error
            if self._done:
                return b""
            conn = self._conn
            assert conn is not None
            self._waiter = conn.loop.create_future()
            conn.waiting()
            try:
                await self._waiter
            finally:
                self._waiter = None
        chunks = self._chunks
        data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        chunks.clear()
        if self._size > HIGH_WATER and self._conn is not None:
            self._conn.transport.resume_reading()
        self._size = 0
        return data

    def at_eof(self) -> bool:
        """True when the body ended and every byte of it was read (:meth:`readany` returns b"" at once)."""
        return self._done and not self._chunks

    async def read(self) -> bytes:
        """The whole (rest of the) body (raises as :meth:`readany`)."""
        parts = []
        while chunk := await self.readany():
            parts.append(chunk)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def release(self) -> None:
        """Done with the response: its connection goes back to the pool when the
        body was read whole and the provider keeps it alive, else it is closed."""
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.finish(self._done and not self._chunks and self._error is None)

    def close(self) -> None:
        """Close the connection now (a pending :meth:`readany` raises :class:`UpstreamError`)."""
        if self._error is None and not self._done:
            self._fail(UpstreamError("upstream response closed"))
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.finish(False)

    def _feed(self, data: bytes) -> None:
        self._chunks.append(data)
        self._size += len(data)
        if self._size > HIGH_WATER and self._conn is not None:
            self._conn.transport.pause_reading()
        if self.sink is None:
            self._wake()  # else the connection calls _offer once the whole read is parsed

    def _offer(self) -> None:
        """A socket read's body bytes are parsed: to the sink if the reader waits
        and it takes them, else to the reader (woken)."""
        sink, waiter, chunks = self.sink, self._waiter, self._chunks
        if sink is not None and waiter is not None and not waiter.done():
            data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
            if sink(data):
                chunks.clear()
                if self._size > HIGH_WATER and self._conn is not None:
                    self._conn.transport.resume_reading()
                self._size = 0
                return
            chunks[:] = [data]
        self._wake()

    def _end(self) -> None:
        self._done = True
        self._wake()

    def _fail(self, exc: BaseException) -> None:
        if self._error is None and not self._done:
            self._error = exc
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


class Connection(asyncio.Protocol):
    """One connection: parser callbacks fill the current :class:`UpstreamResponse`."""

    def __init__(self, pool: Pool) -> None:  # the pool it returns to (``http1_pool``)
        self.pool = pool
        self.loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport = None  # type: ignore[assignment]  # set by connection_made
        self.parser = httptools.HttpResponseParser(self)
        self.response: UpstreamResponse | None = None
        self.head: asyncio.Future[UpstreamResponse] | None = None
        self.closed = False
        self.received = False  # a byte of the current response arrived
        self.idle_since = 0.0
        self.idle = False  # in the pool's idle set: its loss is the pool's to count
        self.timeouts = Timeouts()
        self.activity = 0.0  # loop time of the last bytes received or of a read starting to wait
        self._deadline = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._fields: list[tuple[str, str]] = []
        self._framed = False  # Content-Length or chunked: the end is in the stream, not the close

    # -- asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        if self.closed:
            return  # after a malformed answer or a close: nothing more is parsed
        self.activity = self.loop.time()
        self.received = True
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._abort(UpstreamError(f"malformed upstream response: {exc}"))
            return
        resp = self.response  # None once the response ended (its reader was woken)
        if resp is not None and resp.sink is not None and resp._chunks:
            resp._offer()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.idle:  # the provider closed an idle pooled connection
            self.pool.idle_lost(self)
        resp = self.response
        if resp is not None and self.head is None and not self._framed and not resp._done:
            resp._end()  # body delimited by the close
        self._abort(
            UpstreamError("upstream closed the connection") if exc is None else UpstreamError(str(exc))
        )

    # -- httptools callbacks
    def on_header(self, name: bytes, value: bytes) -> None:
        self._fields.append((name.decode("latin-1"), value.decode("latin-1")))
        lower = name.lower()
        if lower == b"content-length" or (lower == b"transfer-encoding" and b"chunked" in value.lower()):
            self._framed = True

    def on_headers_complete(self) -> None:
        resp, head = self.response, self.head
        if resp is None or head is None:
            return
        resp.status = self.parser.get_status_code()
        resp.headers = CIMultiDictProxy(CIMultiDict(self._fields))
        self.head = None
        if not head.done():
            head.set_result(resp)

    def on_body(self, body: bytes) -> None:
        if self.response is not None:
            self.response._feed(body)

    def on_message_complete(self) -> None:
        resp = self.response
        if resp is not None and self.head is None:
            resp._end()
            resp._conn = None  # read whole: the connection is free (release/close are no-ops)
            self.finish(True)

    # -- the pool's side
    def send(self, data: bytes, timeouts: Timeouts) -> asyncio.Future[UpstreamResponse]:
        """Write one request; the future resolves with the response at its headers."""
        self.response = UpstreamResponse(self)
        self.head = self.loop.create_future()
        self._fields = []
        self._framed = False
        self.received = False
        self.timeouts = timeouts
        now = self.activity = self.loop.time()
        self._deadline = now + timeouts.total if timeouts.total is not None else float("inf")
        self.transport.write(data)
        self.waiting()
        return self.head

    def waiting(self) -> None:
        """A read starts waiting: the idle clock restarts; the timer is armed if needed."""
        self.activity = self.loop.time()
        if self._timer is None and (self.timeouts.idle is not None or self.timeouts.total is not None):
            self._timer = self.loop.call_at(self._next_check(), self._check)

    def _next_check(self) -> float:
        idle = self.timeouts.idle
        return min(self._deadline, self.activity + idle) if idle is not None else self._deadline

    def _check(self) -> None:
        self._timer = None
        resp = self.response
        if resp is None or (self.head is None and resp._waiter is None):
            return  # nobody waits: the next wait re-arms
        now = self.loop.time()
        when = self._next_check()
        if now >= when:
            self._abort(TimeoutError("upstream read timed out"))
        else:
            self._timer = self.loop.call_at(when, self._check)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _abort(self, exc: BaseException) -> None:
        self._cancel_timer()
        head = self.head
        if head is not None and not head.done():
            head.set_exception(exc)
        self.head = None
        resp = self.response
        if resp is not None:
            resp._fail(exc)
            if head is None:  # the caller has the response: it is over, the slot is free
                resp._conn = None
                self.response = None
                self.pool.dropped()
        self.kill()

    def finish(self, reusable: bool) -> None:
        """The response is done with: back to the pool, or closed; its slot is free."""
        self._cancel_timer()
        self.response = None
        if reusable and not self.closed and self.parser.should_keep_alive():
            self.pool.put(self)
        else:
            self.kill()
            self.pool.dropped()

    def kill(self) -> None:
        """Close the connection (it is never reused)."""
        self._cancel_timer()
        if not self.closed:
            self.closed = True
            self.transport.close()
