"""A lean, pipelined Valkey connection for the scripts' hot path (adapter).

redis-py's generic machinery (connection pool checkout, retry wrapper,
per-argument packing, response callbacks) costs more CPU per ``EVALSHA`` than
the script itself, and a pool of one connection per in-flight call means a
burst of 1,000 calls opens hundreds of sockets. :class:`PipelinedClient`
instead keeps ONE connection per process and pipelines every command on it:
a command is packed into one RESP buffer, the commands of one loop iteration
are written together (one syscall at any concurrency), and each reply is
matched by order (FIFO of futures); replies are parsed by ``hiredis``. Valkey executes
commands one at a time anyway, so one connection loses no parallelism.

Errors are our own (:mod:`tollway_admission.errors`; redis-py is not imported):
``ValkeyConnectionError`` (cannot connect, connection lost: every
pending command fails), ``ValkeyTimeoutError`` (no reply within
``timeout`` s; the connection stays usable, the late reply is discarded in
order), ``NoScriptError`` / ``ValkeyResponseError`` (error replies).
The connection is (re)opened lazily by the next command after a loss.

URLs (:mod:`tollway_admission.urls`): ``redis://`` (TCP), ``rediss://`` (TLS,
with redis-py's ``ssl_*`` options and its defaults: certificate and host name
verified), ``unix://`` (a unix socket); a password is sent with ``AUTH``
(``AUTH user password`` with a user), a db with ``SELECT``, ``client_name``
with ``CLIENT SETNAME`` — all in the connection's first write, before any
command. Refused at construction (``ValueError``): any other scheme,
``*+cluster://`` (a cluster goes through redis-py's ``RedisCluster``, see
:func:`tollway_admission.urls.valkey_client`), and ``protocol=3`` (this client
parses RESP2 replies).
"""

from __future__ import annotations

import asyncio
import functools
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, cast

import hiredis

from tollway_admission.errors import (
    NoScriptError,
    ValkeyConnectionError,
    ValkeyResponseError,
    ValkeyTimeoutError,
)
from tollway_admission.roundtrips import VALKEY_ROUND_TRIPS
from tollway_admission.urls import parse_valkey_url


def pack_bulk(args: Sequence[Any]) -> bytes:
    """``args`` as consecutive RESP bulk strings, without the array header (``str``
    UTF-8, ``int`` decimal, ``bytes`` as is): a part of a command (:func:`pack`).
    ASCII text (keys, ids, numbers: nearly everything) is formatted as one ``str``
    and encoded once, its length in characters being its length in bytes."""
    out: list[bytes] = []
    text: list[str] = []
    for a in args:
        t = type(a)
        if t is not bytes:
            s = a if t is str else str(a)
            if s.isascii():
                text.append(f"${len(s)}\r\n{s}\r\n")
                continue
            b = s.encode()
        else:
            b = a
        if text:
            out.append("".join(text).encode())
            text.clear()
        out.append(b"$%d\r\n%b\r\n" % (len(b), b))
    if not out:
        return "".join(text).encode()
    if text:
        out.append("".join(text).encode())
    return b"".join(out)


def pack(args: Sequence[Any]) -> bytes:
    """One RESP array of bulk strings (``str`` UTF-8, ``int`` decimal, ``bytes`` as is)."""
    return b"*%d\r\n" % len(args) + pack_bulk(args)


_NEVER = float("inf")
"""The deadline of a reply no timer watches (a new connection's handshake has its own)."""


class _Protocol(asyncio.Protocol):
    """One connection: commands written in order, replies matched in order (``pending``).

    Reply timeouts: each awaited reply has a deadline (``deadlines``, parallel to
    ``pending``; replies come in order, so deadlines grow from left to right). ONE
    timer per connection, armed for the oldest deadline, fails the replies past
    theirs with ``TimeoutError`` (their late replies are then dropped in order) and
    re-arms for the next: no timer per command."""

    __slots__ = (
        "transport",
        "pending",
        "deadlines",
        "reader",
        "lost",
        "wbuf",
        "loop",
        "timeout",
        "_timer",
        "on_push",
        "on_lost",
    )

    def __init__(self, timeout: float = 5.0) -> None:
        self.transport: asyncio.Transport | None = None
        self.pending: deque[asyncio.Future[Any]] = deque()
        self.deadlines: deque[float] = deque()
        self.reader = hiredis.Reader(replyError=ValkeyResponseError)
        self.lost = False
        self.wbuf: list[bytes] = []
        self.loop = asyncio.get_running_loop()
        self.timeout = timeout
        self._timer: asyncio.TimerHandle | None = None
        self.on_push: Callable[[Any], None] | None = None
        """Receives the replies no command waits for (a subscribed connection's messages)."""
        self.on_lost: Callable[[Exception], None] | None = None
        """Told (with the error) when the connection is lost."""

    def expect(self, fut: asyncio.Future[Any], deadline: float) -> None:
        """Wait for the next reply with ``fut``, failing it at ``deadline`` (``loop.time()``)."""
        self.pending.append(fut)
        self.deadlines.append(deadline)
        if self._timer is None and deadline != _NEVER:
            self._timer = self.loop.call_at(deadline, self._expire)

    def _expire(self) -> None:
        self._timer = None
        now = self.loop.time()
        for fut, deadline in zip(self.pending, self.deadlines, strict=True):
            if deadline > now:
                if deadline != _NEVER:
                    self._timer = self.loop.call_at(deadline, self._expire)
                return
            if not fut.done():
                fut.set_exception(ValkeyTimeoutError(f"no reply from Valkey within {self.timeout} s"))

    def send(self, packed: bytes) -> None:
        """Queue a command; every command queued in one loop iteration goes out in ONE write."""
        wbuf = self.wbuf
        wbuf.append(packed)
        if len(wbuf) == 1:
            self.loop.call_soon(self._flush)

    def _flush(self) -> None:
        data = b"".join(self.wbuf)
        self.wbuf.clear()
        if self.transport is not None and not self.lost:
            self.transport.write(data)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # a stream connection's transport

    def data_received(self, data: bytes) -> None:
        reader = self.reader
        reader.feed(data)
        pending = self.pending
        deadlines = self.deadlines
        while True:
            reply = reader.gets()
            if reply is False:
                return
            if not pending:  # nobody waits: a subscriber's message
                if self.on_push is not None:
                    self.on_push(reply)
                continue
            fut = pending.popleft()
            deadlines.popleft()
            if fut.done():  # its caller timed out or left; the reply is dropped in order
                continue
            if isinstance(reply, ValkeyResponseError):
                msg = str(reply)
                fut.set_exception(NoScriptError(msg) if msg.startswith("NOSCRIPT") else reply)
            else:
                fut.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.transport = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        err = ValkeyConnectionError(f"Valkey connection lost: {exc!r}")
        if self.on_lost is not None:
            self.on_lost(err)
        self.deadlines.clear()
        while self.pending:
            fut = self.pending.popleft()
            if not fut.done():
                fut.set_exception(err)


class PipelinedClient:
    """One pipelined connection to Valkey for ``execute`` / ``evalsha``.

    Args:
        url: a single-node Valkey URL: ``redis://``, ``rediss://`` or
            ``unix://`` (module doc).
        timeout: reply timeout per command and connect timeout, s.
        service: the ``service`` label of the round trips this client counts
            (:data:`~tollway_admission.roundtrips.VALKEY_ROUND_TRIPS`, ``client="pipelined"``:
            one per awaited command, one for a new connection's handshake).

    Raises:
        ValueError: a URL this client cannot serve (unknown scheme, an
            option redis-py refuses, a cluster URL, RESP3); the message
            names it, with the password masked.
    """

    def __init__(self, url: str, *, timeout: float = 5.0, service: str = "unknown") -> None:
        target = parse_valkey_url(url)
        if target.cluster:
            raise ValueError(
                f"PipelinedClient talks to one node; {target.masked} is a cluster URL "
                "(use tollway_admission.valkey_client, which routes scripts by hash slot)"
            )
        if target.protocol not in (None, 2):
            raise ValueError(
                f"PipelinedClient speaks RESP2; remove protocol={target.protocol} from {target.masked}"
            )
        self._target = target
        self._where = target.path or f"{target.host}:{target.port}"
        self._timeout = timeout
        self._proto: _Protocol | None = None
        self._connecting: asyncio.Future[_Protocol] | None = None
        self._round_trips = VALKEY_ROUND_TRIPS.labels(service=service, client="pipelined")

    def _hello(self) -> list[bytes]:
        """The commands every new connection sends first: AUTH, SELECT, CLIENT SETNAME."""
        t = self._target
        out: list[bytes] = []
        if t.password:
            out.append(pack(["AUTH", t.username, t.password] if t.username else ["AUTH", t.password]))
        if t.db:
            out.append(pack(["SELECT", t.db]))
        if t.client_name:
            out.append(pack(["CLIENT", "SETNAME", t.client_name]))
        return out

    async def _connect(self) -> _Protocol:
        loop = asyncio.get_running_loop()
        t = self._target
        try:
            async with asyncio.timeout(self._timeout):
                factory = functools.partial(_Protocol, self._timeout)
                if t.path is not None:
                    _, proto = await loop.create_unix_connection(factory, t.path)
                elif t.ssl_context is not None:
                    _, proto = await loop.create_connection(
                        factory,
                        t.host,
                        t.port,
                        ssl=t.ssl_context,
                        server_hostname=t.host,
                    )
                else:
                    _, proto = await loop.create_connection(factory, t.host, t.port)
                futs = []
                hello = self._hello()
                if hello:
                    self._round_trips.inc()  # written together, awaited together
                for cmd in hello:
                    fut = loop.create_future()
                    proto.expect(fut, _NEVER)  # the connect's own timeout covers the handshake
                    futs.append(fut)
                    cast(asyncio.Transport, proto.transport).write(cmd)  # set by connection_made
                try:
                    for fut in futs:
                        await fut
                except BaseException:
                    if proto.transport is not None:
                        proto.transport.close()
                    raise
        except TimeoutError:
            raise ValkeyTimeoutError(f"connecting to Valkey {self._where} timed out") from None
        except OSError as exc:  # includes ssl.SSLError (certificate refused, handshake failed)
            raise ValkeyConnectionError(f"cannot connect to Valkey {self._where}: {exc}") from exc
        return proto

    async def _protocol(self) -> _Protocol:
        proto = self._proto
        if proto is not None and not proto.lost:
            return proto
        if self._connecting is None:
            fut: asyncio.Future[_Protocol] = asyncio.get_running_loop().create_future()
            self._connecting = fut
            try:
                proto = await self._connect()
            except BaseException as exc:
                fut.set_exception(exc)
                fut.exception()  # retrieved here; waiters re-raise it
                raise
            finally:
                self._connecting = None
            self._proto = proto
            fut.set_result(proto)
            return proto
        return await asyncio.shield(self._connecting)

    async def execute(self, *args: Any) -> Any:
        """Send one command and return its reply (bytes, int, list, None).

        Raises:
            ValkeyConnectionError, ValkeyTimeoutError, ValkeyResponseError, NoScriptError
                (:mod:`tollway_admission.errors`).
        """
        return await self.execute_packed(pack(args))

    async def execute_packed(self, packed: bytes) -> Any:
        """As :meth:`execute`, for a command already packed with :func:`pack`."""
        proto = self._proto
        if proto is None or proto.lost:
            proto = await self._protocol()
        loop = proto.loop
        fut: asyncio.Future[Any] = loop.create_future()
        proto.expect(fut, loop.time() + self._timeout)
        proto.send(packed)
        self._round_trips.inc()
        return await fut

    async def execute_many(self, packed: Sequence[bytes]) -> list[Any]:
        """Send commands already packed with :func:`pack` in ONE write and return
        their replies in order: one round trip (counted once), however many
        commands — a batch's pipeline, as redis-py's ``Pipeline.execute`` (no
        transaction: each command runs on its own).

        Raises:
            ValkeyConnectionError, ValkeyTimeoutError (no complete answer
                within ``timeout`` s); the first error reply (``ValkeyResponseError``,
                ``NoScriptError``) once every reply arrived — the other commands ran.
        """
        if not packed:
            return []
        proto = self._proto
        if proto is None or proto.lost:
            proto = await self._protocol()
        loop = proto.loop
        deadline = loop.time() + self._timeout
        futs: list[asyncio.Future[Any]] = [loop.create_future() for _ in packed]
        for f in futs:
            proto.expect(f, deadline)
        proto.send(b"".join(packed))
        self._round_trips.inc()
        replies = await asyncio.gather(*futs, return_exceptions=True)
        for reply in replies:
            if isinstance(reply, ValkeyTimeoutError):
                raise reply
        for reply in replies:
            if isinstance(reply, BaseException):
                raise reply
        return replies

    async def evalsha(self, sha: str, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """``EVALSHA sha len(keys) *keys *args`` in one packed write."""
        return await self.execute_packed(pack(["EVALSHA", sha, len(keys), *keys, *args]))

    async def subscribe(
        self, channels: Sequence[str], on_message: Callable[[Any], None], on_lost: Callable[[Exception], None]
    ) -> None:
        """Make this client's connection a subscriber: ``SUBSCRIBE *channels``, then
        every reply no command waits for (the confirmations ``[b"subscribe", channel, n]``
        and the messages ``[b"message", channel, data]``) goes to ``on_message``, and
        ``on_lost`` is told once if the connection is lost (the client then reconnects
        only on a later command, as an ordinary connection: subscribe again).
        Use a client for nothing else once subscribed.

        Raises:
            ValkeyConnectionError, ValkeyTimeoutError: cannot connect.
        """
        proto = await self._protocol()
        proto.on_push = on_message
        proto.on_lost = on_lost
        proto.send(pack(["SUBSCRIBE", *channels]))
        self._round_trips.inc()

    def disconnect(self) -> None:
        """Close the connection (pending commands fail); the next command reconnects."""
        proto = self._proto
        self._proto = None
        if proto is not None and proto.transport is not None:
            proto.transport.close()

    async def aclose(self) -> None:
        """Close the connection."""
        self.disconnect()
