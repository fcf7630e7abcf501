"""Warm provider connections (routing.warm through http1_pool.Client.warm)
against real local asyncio servers: the pool opens ``min_idle`` connections
ahead of any call, re-opens them when they expire and when the
provider closes them (not when calls take them: they come back), backs off
when the provider refuses or hangs up, includes the TLS handshake, and closes them when the
client is cooled (a retired provider) or closed."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from yarl import URL

from tollway_edge.metrics import PROVIDER_CONNECTS, PROVIDER_IDLE_CONNECTIONS
from tollway_edge.routing import http1_pool, warm
from tollway_edge.routing.http1 import Timeouts, UpstreamConnectError
from tollway_edge.routing.http1_pool import Client, Pool

JSON = b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"ok":true}'


class Provider:
    """A keep-alive server answering every request with :data:`JSON`; counts
    connections (``opened`` ever, ``open`` now) and can hang up on all of them."""

    def __init__(self) -> None:
        self.opened = 0
        self.requests = 0
        self.writers: set[asyncio.StreamWriter] = set()
        self.hang_up_at_once = False
        self.hold: asyncio.Event | None = None  # answers wait for it when set
        self.close_after_answer = False  # answers say Connection: close, and close

    @property
    def open(self) -> int:
        return len(self.writers)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.opened += 1
        if self.hang_up_at_once:
            writer.close()
            return
        self.writers.add(writer)
        try:
            while True:
                await reader.readuntil(b"\r\n\r\n")
                self.requests += 1
                if self.hold is not None:
                    await self.hold.wait()
                if self.close_after_answer:
                    writer.write(JSON.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n", 1))
                    await writer.drain()
                    break
                writer.write(JSON)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.writers.discard(writer)
            writer.close()

    def close_all(self) -> None:
        """The provider's keep-alive timeout: every connection closed by the server."""
        for writer in list(self.writers):
            writer.close()


async def until(cond: Callable[[], bool], within: float = 10.0) -> None:
    """Wait until ``cond()`` holds (AssertionError after ``within`` s)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while not cond():
        assert loop.time() < deadline, "condition not met in time"
        await asyncio.sleep(0.01)


@pytest.fixture
async def provider() -> AsyncIterator[tuple[Provider, URL]]:
    srv = Provider()
    server = await asyncio.start_server(srv.handle, "127.0.0.1", 0)
    url = URL(f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1/chat/completions")
    yield srv, url
    server.close()
    srv.close_all()


def only_pool(client: Client) -> Pool:
    (pool,) = client._pools.values()
    return pool


def connects(provider: str, purpose: str, outcome: str) -> float:
    return PROVIDER_CONNECTS.labels(provider, purpose, outcome)._value.get()


async def test_min_idle_connections_are_open_before_any_call_and_calls_use_them(
    provider: tuple[Provider, URL],
) -> None:
    srv, url = provider
    client = Client(limit=64, connecting=4, provider="warm-a", min_idle=10, connect_timeout=5)
    before = connects("warm-a", "warm", "ok")
    try:
        client.warm(url)
        pool = only_pool(client)
        await until(lambda: srv.open == 10 and pool.idle_open == 10)
        assert srv.requests == 0
        assert connects("warm-a", "warm", "ok") - before == 10
        assert PROVIDER_IDLE_CONNECTIONS.labels("warm-a")._value.get() == 10

        # five calls at once: served on warm connections, no connect of their own
        resps = await asyncio.gather(
            *(client.request("POST", url, {}, b"{}", Timeouts(connect=5)) for _ in range(5))
        )
        assert [r.status for r in resps] == [200] * 5
        for r in resps:
            await r.read()
        assert connects("warm-a", "request", "ok") == 0
        # taken ones came back idle; none was re-opened meanwhile (a burst is not charged twice)
        await until(lambda: pool.idle_open == 10 and pool.busy == 0)
        await asyncio.sleep(0.1)
        assert srv.open == 10 and connects("warm-a", "warm", "ok") - before == 10
    finally:
        await client.close()
    await until(lambda: srv.open == 0)  # closing the client closes its idle connections
    assert PROVIDER_IDLE_CONNECTIONS.labels("warm-a")._value.get() == 0


async def test_refills_after_the_provider_closes_them_and_a_call_works_meanwhile(
    provider: tuple[Provider, URL], monkeypatch: pytest.MonkeyPatch
) -> None:
    srv, url = provider
    monkeypatch.setattr(warm, "EARLY_CLOSE_SECONDS", 0.05)
    client = Client(limit=64, connecting=4, provider="warm-b", min_idle=6, connect_timeout=5)
    try:
        client.warm(url)
        pool = only_pool(client)
        await until(lambda: srv.open == 6 and pool.idle_open == 6)
        await asyncio.sleep(0.2)  # idle long enough not to look like a provider hanging up at once
        srv.close_all()
        # a call right away: a warm connection may just have been closed (retried on a new one)
        resp = await client.request("POST", url, {}, b"{}", Timeouts(connect=5))
        assert (resp.status, await resp.read()) == (200, b'{"ok":true}')
        await until(lambda: pool.idle_open >= 6 and srv.open == pool.idle_open)
        assert srv.opened >= 12
        assert pool.warmer is not None and pool.warmer.failures == 0
    finally:
        await client.close()


async def test_a_calls_connection_not_kept_alive_is_replaced(provider: tuple[Provider, URL]) -> None:
    srv, url = provider
    srv.close_after_answer = True
    client = Client(limit=64, connecting=4, provider="warm-k", min_idle=4, connect_timeout=5)
    try:
        client.warm(url)
        pool = only_pool(client)
        await until(lambda: pool.idle_open == 4)
        for _ in range(3):
            resp = await client.request("POST", url, {}, b"{}", Timeouts(connect=5))
            assert await resp.read() == b'{"ok":true}'
        await until(lambda: pool.idle_open == 4 and pool.busy == 0 and srv.opened == 4 + 3)
    finally:
        await client.close()


async def test_expired_idle_connections_are_rotated(
    provider: tuple[Provider, URL], monkeypatch: pytest.MonkeyPatch
) -> None:
    srv, url = provider
    monkeypatch.setattr(http1_pool, "KEEPALIVE_SECONDS", 0.3)
    client = Client(limit=64, connecting=4, provider="warm-c", min_idle=3, connect_timeout=5)
    try:
        client.warm(url)
        pool = only_pool(client)
        await until(lambda: srv.opened >= 9)  # three generations at least
        await until(lambda: srv.open <= 4)  # the expired ones were closed, not left open
        assert pool.idle_open <= 3
    finally:
        await client.close()


async def test_refused_connects_back_off_and_calls_are_not_blocked(unused_tcp_port: int) -> None:
    url = URL(f"http://127.0.0.1:{unused_tcp_port}/v1/chat/completions")
    client = Client(limit=64, connecting=4, provider="warm-d", min_idle=50, connect_timeout=1)
    before = connects("warm-d", "warm", "error")
    try:
        client.warm(url)
        pool = only_pool(client)
        assert pool.warmer is not None
        await until(lambda: pool.warmer is not None and pool.warmer.failures >= 3)
        loop = asyncio.get_running_loop()
        t = loop.time()
        with pytest.raises(UpstreamConnectError):
            await client.request("POST", url, {}, b"{}", Timeouts(connect=1))
        assert loop.time() - t < 1.0  # refused at once, not queued behind the warmer
        # backoff: a few passes of 8 connects, not a loop of thousands
        await asyncio.sleep(0.3)
        failed = connects("warm-d", "warm", "error") - before
        assert failed >= 8 * 3
        assert failed < 8 * 20  # a loop without backoff: thousands (a refused loopback connect ~50 µs)
    finally:
        await client.close()


async def test_a_provider_that_hangs_up_at_once_is_backed_off(provider: tuple[Provider, URL]) -> None:
    srv, url = provider
    srv.hang_up_at_once = True
    client = Client(limit=64, connecting=4, provider="warm-e", min_idle=4, connect_timeout=5)
    try:
        client.warm(url)
        pool = only_pool(client)
        await until(lambda: pool.warmer is not None and pool.warmer.failures >= 3)
        opened = srv.opened
        await asyncio.sleep(0.2)
        assert srv.opened - opened <= 40  # jittered waits from 0.1 s doubling: a few passes, not a loop
    finally:
        await client.close()


async def test_calls_holding_connections_count_toward_the_minimum(provider: tuple[Provider, URL]) -> None:
    srv, url = provider
    srv.hold = asyncio.Event()
    client = Client(limit=64, connecting=4, provider="warm-f", min_idle=4, connect_timeout=5)
    try:
        client.warm(url)
        pool = only_pool(client)
        await until(lambda: pool.idle_open == 4)
        calls = [
            asyncio.create_task(client.request("POST", url, {}, b"{}", Timeouts(connect=5))) for _ in range(3)
        ]
        await until(lambda: srv.requests == 3)
        await asyncio.sleep(0.2)  # the warmer had time to open more: it did not
        assert (pool.busy, pool.idle_open, srv.open) == (3, 1, 4)
        srv.hold.set()
        for call in calls:
            assert await (await call).read() == b'{"ok":true}'
        await until(lambda: pool.idle_open == 4 and pool.busy == 0)
    finally:
        srv.hold.set()
        await client.close()


async def test_cool_closes_idle_connections_and_stops_warming(provider: tuple[Provider, URL]) -> None:
    srv, url = provider
    client = Client(limit=64, connecting=4, provider="warm-g", min_idle=5, connect_timeout=5)
    try:
        client.warm(url)
        await until(lambda: srv.open == 5)
        await client.cool()  # a provider removed from the catalogue
        await until(lambda: srv.open == 0)
        await asyncio.sleep(0.2)
        assert srv.open == 0  # not re-opened
        resp = await client.request("POST", url, {}, b"{}", Timeouts(connect=5))  # calls still work
        assert (resp.status, await resp.read()) == (200, b'{"ok":true}')
    finally:
        await client.close()


async def test_no_warming_without_min_idle(provider: tuple[Provider, URL]) -> None:
    srv, url = provider
    client = Client(limit=64, connecting=4, provider="warm-h", min_idle=0)
    try:
        client.warm(url)
        await asyncio.sleep(0.1)
        assert srv.opened == 0 and client._pools == {}
    finally:
        await client.close()


def test_backoff_grows_and_is_capped() -> None:
    assert warm.backoff_seconds(1) <= 0.2
    assert all(warm.backoff_seconds(30) <= warm.BACKOFF_MAX_SECONDS for _ in range(20))
    assert max(warm.backoff_seconds(10) for _ in range(50)) > 1.0


async def test_tls_handshakes_are_part_of_the_warm_up(certificate: tuple[Path, Path]) -> None:
    cert, key = certificate
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_ctx.load_cert_chain(cert, key)
    srv = Provider()
    server = await asyncio.start_server(srv.handle, "127.0.0.1", 0, ssl=server_ctx)
    url = URL(f"https://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1/chat/completions")
    untrusted = Client(limit=8, connecting=2, provider="warm-i", min_idle=3, connect_timeout=5)
    client = Client(limit=8, connecting=2, provider="warm-j", min_idle=3, connect_timeout=5)
    try:
        untrusted.warm(url)  # the system CAs do not trust it: handshake failures, backed off
        bad = only_pool(untrusted)
        await until(lambda: bad.warmer is not None and bad.warmer.failures >= 2)
        assert bad.idle_open == 0

        pool = client._pool(url)
        pool.ssl = ssl.create_default_context(cafile=cert)
        client.warm(url)
        # the server's handler runs once the handshake is done: 3 handshaken connections
        await until(lambda: srv.open == 3 and pool.idle_open == 3)
        resp = await client.request("POST", url, {}, b"{}", Timeouts(connect=5))
        assert (resp.status, await resp.read()) == (200, b'{"ok":true}')
        assert connects("warm-j", "request", "ok") == 0
    finally:
        await untrusted.close()
        await client.close()
        server.close()
        srv.close_all()
