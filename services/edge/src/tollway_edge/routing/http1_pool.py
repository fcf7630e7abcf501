"""The connection pools of :mod:`tollway_edge.routing.http1` (see its module doc).

:class:`Client` keeps one :class:`Pool` per (scheme, host, port); a pool
reuses its idle keep-alive connections newest first, closes those idle longer
than :data:`KEEPALIVE_SECONDS`, bounds the connections in use and the ones
being opened at once, and retries a request once on a new connection when a
reused one was closed by the provider before answering a byte.
"""

from __future__ import annotations

import asyncio
import functools
import ssl
import time
from collections import deque

from yarl import URL

from tollway_edge.routing.http1 import (
    Connection,
    Timeouts,
    UpstreamConnectError,
    UpstreamError,
    UpstreamResponse,
)

KEEPALIVE_SECONDS = 75.0
"""An idle pooled connection older than this is closed instead of reused, s."""


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The process's client TLS context (system CAs, host name checked), built
    once: loading the CA store takes ~0.1 s, not to be paid per pool."""
    return ssl.create_default_context()


class Pool:
    """Keep-alive connections to one (scheme, host, port), at most ``limit`` in
    use, at most ``connecting`` being opened at once."""

    def __init__(self, scheme: str, host: str, port: int, limit: int, connecting: int) -> None:
        self.host, self.port = host, port
        self.ssl: ssl.SSLContext | None = tls_context() if scheme == "https" else None
        self._idle: deque[Connection] = deque()
        self.closed = False
        self._slots = asyncio.Semaphore(limit)
        self._connecting = asyncio.Semaphore(connecting)

    async def request(self, data: bytes, timeouts: Timeouts) -> UpstreamResponse:
        """Send ``data`` (a whole request) and wait for the response's head."""
        await self._slots.acquire()
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
            conn = await self._open(timeouts.connect)
            return await conn.send(data, timeouts)
        except BaseException:  # incl. cancellation (the client left, the attempt's deadline)
            if conn is None or conn.response is not None:  # else finished: its slot is already free
                if conn is not None:
                    conn.kill()
                self._slots.release()
            raise

    def _reuse(self) -> Connection | None:
        now = time.monotonic()
        while self._idle:
            conn = self._idle.pop()
            if not conn.closed and now - conn.idle_since < KEEPALIVE_SECONDS:
                return conn
            conn.closed = True
            conn.transport.close()
        return None

    async def _open(self, connect_seconds: float | None) -> Connection:
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
                raise UpstreamConnectError(f"cannot connect to {self.host}:{self.port}: {exc}") from exc
        return conn

    def put(self, conn: Connection) -> None:
        """A connection whose response was read whole: idle, reusable (closed once the pool is)."""
        if self.closed:
            conn.kill()
        else:
            conn.idle_since = time.monotonic()
            self._idle.append(conn)
        self._slots.release()

    def dropped(self) -> None:
        """A connection closed after its response: its slot is free."""
        self._slots.release()

    def close(self) -> None:
        """Close every idle connection, and each in-use one when its response is done."""
        self.closed = True
        while self._idle:
            conn = self._idle.pop()
            conn.closed = True
            conn.transport.close()


class Client:
    """Provider calls over :class:`Pool`\\ s, one per (scheme, host, port) (see module doc)."""

    def __init__(self, limit: int, connecting: int) -> None:
        self.limit, self.connecting = limit, connecting
        self.closed = False
        self._pools: dict[tuple[str, str, int], Pool] = {}

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
        scheme, host, port = url.scheme, url.raw_host or "", url.port or 0
        pool = self._pools.get((scheme, host, port))
        if pool is None:
            pool = self._pools[(scheme, host, port)] = Pool(scheme, host, port, self.limit, self.connecting)
        default = 443 if scheme == "https" else 80
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

    async def close(self) -> None:
        """Close every idle connection; later requests fail (in-flight ones finish)."""
        self.closed = True
        for pool in self._pools.values():
            pool.close()
