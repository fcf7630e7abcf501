"""The connection pools of :mod:`tollway_edge.routing.http1` (see its module doc).

:class:`Client` keeps one :class:`Pool` per (scheme, host, port); a pool
reuses its idle keep-alive connections newest first, closes those idle longer
than :data:`KEEPALIVE_SECONDS`, bounds the connections in use and the ones
being opened at once, and retries a request once on a new connection when a
reused one was closed by the provider before answering a byte. A pool may keep
a minimum of connections open ahead of demand (:mod:`.warm`, the catalogue's
``min_idle_connections``).
"""

from __future__ import annotations

import asyncio
import functools
import ssl
import time
from collections import deque

from yarl import URL

from tollway_edge.metrics import PROVIDER_CONNECTS
from tollway_edge.routing.http1 import (
    Connection,
    Timeouts,
    UpstreamConnectError,
    UpstreamError,
    UpstreamResponse,
)
from tollway_edge.routing.warm import KEEPALIVE_SECONDS, Warmer

__all__ = ["KEEPALIVE_SECONDS", "Client", "Pool", "tls_context"]


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The process's client TLS context (system CAs, host name checked), built
    once: loading the CA store takes ~0.1 s, not to be paid per pool."""
    return ssl.create_default_context()


class Pool:
    """Keep-alive connections to one (scheme, host, port), at most ``limit`` in
    use, at most ``connecting`` being opened at once.

    Attributes:
        idle_open: open connections in the idle set (ready to be reused).
        busy: connections serving a request (slots taken).
        warmer: the :class:`~tollway_edge.routing.warm.Warmer` keeping some
            idle ones open ahead of demand, None if none.
    """

    def __init__(
        self, scheme: str, host: str, port: int, limit: int, connecting: int, provider: str = ""
    ) -> None:
        self.host, self.port, self.limit, self.provider = host, port, limit, provider
        self.ssl: ssl.SSLContext | None = tls_context() if scheme == "https" else None
        self._idle: deque[Connection] = deque()  # oldest left, newest right; closed ones skipped
        self.idle_open = 0
        self.busy = 0
        self.closed = False
        self.warmer: Warmer | None = None
        self._slots = asyncio.Semaphore(limit)
        self._connecting = asyncio.Semaphore(connecting)

    async def request(self, data: bytes, timeouts: Timeouts) -> UpstreamResponse:
        """Send ``data`` (a whole request) and wait for the response's head."""
        await self._slots.acquire()
        self.busy += 1
        conn = None
        try:
            conn = self._reuse()
            if conn is not None:
                try:
                    return await conn.send(data, timeouts)
                except UpstreamError:
                    if conn.received:
                        raise
                    # the provider closed the idle connection as it was reused: once more on a new one
            conn = None
            conn = await self.open(timeouts.connect)
            return await conn.send(data, timeouts)
        except BaseException:  # incl. cancellation (the client left, the attempt's deadline)
            if conn is None or conn.response is not None:  # else finished: its slot is already free
                if conn is not None:
                    conn.kill()
                self.dropped()
            raise

    def _free(self) -> None:
        self.busy -= 1
        self._slots.release()

    def _reuse(self) -> Connection | None:
        now = time.monotonic()
        idle, warmer = self._idle, self.warmer
        while idle:
            conn = idle.pop()
            if conn.closed:
                continue  # lost while idle: already counted (idle_lost)
            conn.idle = False
            self.idle_open -= 1
            if now - conn.idle_since < KEEPALIVE_SECONDS:
                return conn  # busy now: still counted by the warmer, nothing to re-open
            conn.kill()
            if warmer is not None:
                warmer.poke()
        return None

    async def open(self, connect_seconds: float | None, purpose: str = "request") -> Connection:
        """A new connection (TLS handshake done), through the ``connecting`` bound.

        Args:
            connect_seconds: the connect timeout (TLS included), s; None = none.
            purpose: ``request`` or ``warm`` (the ``tollway_provider_connects_total`` label).

        Raises:
            UpstreamConnectError: refused, unreachable, DNS, TLS.
            TimeoutError: ``connect_seconds`` passed.
        """
        loop = asyncio.get_running_loop()
        async with self._connecting:
            try:
                async with asyncio.timeout(connect_seconds):
                    _, conn = await loop.create_connection(
                        lambda: Connection(self),
                        self.host,
                        self.port,
                        ssl=self.ssl,
                        server_hostname=self.host if self.ssl is not None else None,
                    )
            except OSError as exc:
                PROVIDER_CONNECTS.labels(self.provider, purpose, "error").inc()
                raise UpstreamConnectError(f"cannot connect to {self.host}:{self.port}: {exc}") from exc
            except TimeoutError:
                PROVIDER_CONNECTS.labels(self.provider, purpose, "error").inc()
                raise
        PROVIDER_CONNECTS.labels(self.provider, purpose, "ok").inc()
        return conn

    def add_idle(self, conn: Connection) -> None:
        """Put a connection in the idle set (newest), or close it when the pool is closed."""
        if self.closed or conn.closed:
            conn.kill()
            return
        conn.idle = True
        conn.idle_since = time.monotonic()
        self._idle.append(conn)
        self.idle_open += 1

    def put(self, conn: Connection) -> None:
        """A connection whose response was read whole: idle, reusable (closed once the pool is)."""
        self.add_idle(conn)
        self._free()

    def dropped(self) -> None:
        """A connection closed after its response: its slot is free."""
        self._free()
        if self.warmer is not None:
            self.warmer.poke()

    def idle_lost(self, conn: Connection) -> None:
        """An idle connection was closed by the provider (its keep-alive timeout, a restart)."""
        conn.idle = False
        self.idle_open -= 1
        if self.warmer is not None:
            self.warmer.lost(conn)

    def sweep(self) -> float | None:
        """Close the idle connections idle for :data:`KEEPALIVE_SECONDS` (oldest
        first) and forget the lost ones; the seconds until the oldest left
        expires (None: none idle)."""
        now = time.monotonic()
        idle = self._idle
        while idle and (idle[0].closed or now - idle[0].idle_since >= KEEPALIVE_SECONDS):
            conn = idle.popleft()
            if not conn.closed:
                conn.idle = False
                self.idle_open -= 1
                conn.kill()
        if len(idle) > 2 * self.idle_open + 64:  # many lost in the middle: compact
            self._idle = idle = deque(c for c in idle if not c.closed)
        return KEEPALIVE_SECONDS - (now - idle[0].idle_since) if idle else None

    def drop_idle(self) -> None:
        """Close every idle connection (the pool stays usable)."""
        while self._idle:
            conn = self._idle.pop()
            if not conn.closed:
                conn.idle = False
                conn.kill()
        self.idle_open = 0

    def close(self) -> None:
        """Stop warming, close every idle connection, and each in-use one when its response is done."""
        self.closed = True
        if self.warmer is not None:
            self.warmer.stop()
        self.drop_idle()


class Client:
    """Provider calls over :class:`Pool`\\ s, one per (scheme, host, port) (see module doc).

    Args:
        limit: connections in use at once, per pool.
        connecting: connections being opened at once, per pool (requests and warming).
        provider: the provider's catalogue name (metrics and logs).
        min_idle: connections :meth:`warm` keeps open, idle when no call holds them (0: none).
        connect_timeout: the warm connects' timeout (TLS included), s; None = none.
    """

    def __init__(
        self,
        limit: int,
        connecting: int,
        *,
        provider: str = "",
        min_idle: int = 0,
        connect_timeout: float | None = None,
    ) -> None:
        self.limit, self.connecting, self.provider = limit, connecting, provider
        self.min_idle, self.connect_timeout = min_idle, connect_timeout
        self.closed = False
        self._pools: dict[tuple[str, str, int], Pool] = {}

    def _pool(self, url: URL) -> Pool:
        scheme, host, port = url.scheme, url.raw_host or "", url.port or 0
        pool = self._pools.get((scheme, host, port))
        if pool is None:
            pool = self._pools[(scheme, host, port)] = Pool(
                scheme, host, port, self.limit, self.connecting, self.provider
            )
        return pool

    def warm(self, url: URL) -> None:
        """Start keeping ``min_idle`` connections open to ``url``'s origin,
        in the background (returns at once; nothing when ``min_idle`` is 0)."""
        if self.min_idle <= 0 or self.closed:
            return
        pool = self._pool(url)
        if pool.warmer is None:
            pool.warmer = Warmer(pool, self.min_idle, self.connect_timeout)
            pool.warmer.start()

    async def request(
        self, method: str, url: URL, headers: dict[str, str], body: bytes | None, timeouts: Timeouts
    ) -> UpstreamResponse:
        """Send one request and return the response at its headers (body not yet read).

        Raises:
            UpstreamConnectError: no connection could be opened.
            UpstreamError: the connection failed before the response's head.
            TimeoutError: the connect, idle or total timeout passed.
        """
        if self.closed:
            raise UpstreamConnectError("client closed")
        pool = self._pool(url)
        host, port = pool.host, pool.port
        default = 443 if url.scheme == "https" else 80
        if ":" in host:
            host = f"[{host}]"  # IPv6 literal
        authority = host if port == default else f"{host}:{port}"
        lines = [f"{method} {url.raw_path_qs} HTTP/1.1\r\nHost: {authority}\r\nAccept-Encoding: identity\r\n"]
        lines += [f"{k}: {v}\r\n" for k, v in headers.items()]
        if body is not None:
            lines.append(f"Content-Length: {len(body)}\r\n\r\n")
            return await pool.request("".join(lines).encode("utf-8", "surrogateescape") + body, timeouts)
        lines.append("\r\n")
        return await pool.request("".join(lines).encode("utf-8", "surrogateescape"), timeouts)

    async def cool(self) -> None:
        """Stop warming and close every idle connection (a retired provider);
        requests still work, on new connections."""
        for pool in self._pools.values():
            if pool.warmer is not None:
                await pool.warmer.stopped()
                pool.warmer = None
            pool.drop_idle()

    async def close(self) -> None:
        """Stop warming, close every idle connection; later requests fail (in-flight ones finish)."""
        self.closed = True
        for pool in self._pools.values():
            pool.close()
            if pool.warmer is not None:
                await pool.warmer.stopped()
