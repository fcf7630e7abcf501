"""The provider HTTP/1.1 client (routing.http1, http1_pool) against raw asyncio servers:
framing (Content-Length, chunked, until close), keep-alive reuse, a stale
pooled connection, failures and timeouts, and what goes on the wire."""

from __future__ import annotations

import asyncio
import gc
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from yarl import URL

from tollway_edge.routing.http1 import Timeouts, UpstreamConnectError, UpstreamError, UpstreamResponse
from tollway_edge.routing.http1_pool import Client

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _head(reader: asyncio.StreamReader) -> bytes:
    """One request's head and its Content-Length body."""
    head = await reader.readuntil(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            head += await reader.readexactly(int(line.split(b":")[1]))
    return head


class Server:
    """A server answering every request with the next of ``answers`` (per connection
    when ``close`` says so); records requests and connections."""

    def __init__(self, answers: list[bytes], close_after: bool = False) -> None:
        self.answers = answers
        self.close_after = close_after
        self.requests: list[bytes] = []
        self.connections = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                self.requests.append(await _head(reader))
                writer.write(self.answers[min(len(self.requests), len(self.answers)) - 1])
                await writer.drain()
                if self.close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()


async def _serve(handler: Handler) -> tuple[asyncio.Server, URL]:
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, URL(f"http://127.0.0.1:{port}/v1/chat/completions")


@pytest.fixture
async def client() -> AsyncIterator[Client]:
    c = Client(limit=4, connecting=2)
    yield c
    await c.close()


JSON = b'HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 11\r\n\r\n{"ok":true}'


async def test_content_length_keep_alive_and_the_request_on_the_wire(client: Client) -> None:
    srv = Server([JSON])
    server, url = await _serve(srv.handle)
    try:
        for _ in range(3):
            resp = await client.request(
                "POST", url, {"Authorization": "Bearer k", "x-note": "café"}, b'{"a":1}', Timeouts()
            )
            assert (resp.status, resp.content_type, await resp.read()) == (
                200,
                "application/json",
                b'{"ok":true}',
            )
            assert resp.headers["content-length"] == "11"
            resp.release()
        assert srv.connections == 1  # one keep-alive connection for all three
        first = srv.requests[0]
        assert first.startswith(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:")
        assert (
            b"\r\nAccept-Encoding: identity\r\n" in first
            and b"\r\nAuthorization: Bearer k\r\n" in first
            and "x-note: café".encode() in first
        )
        assert first.endswith(b'Content-Length: 7\r\n\r\n{"a":1}')
        get = await client.request("GET", url.with_query(after="x"), {}, None, Timeouts())
        await get.read()
        assert srv.requests[-1].startswith(b"GET /v1/chat/completions?after=x HTTP/1.1\r\n")
        assert b"Content-Length" not in srv.requests[-1]
    finally:
        server.close()


async def test_a_read_response_is_freed_without_the_garbage_collector(client: Client) -> None:
    """A response (its headers, chunk list, body) is freed when the caller drops it:
    no reference cycle, so no garbage collection is needed, and the edge's young
    collections (a multi-ms pause each) stay rare."""
    srv = Server([JSON])
    server, url = await _serve(srv.handle)
    gc.collect()
    gc.disable()
    try:
        for _ in range(5):
            resp = await client.request("POST", url, {}, b"{}", Timeouts())
            assert resp.content is resp  # aiohttp's shape: response.content.readany()
            assert await resp.content.read() == b'{"ok":true}'
            resp.release()
        del resp
        # the last one stays referenced by its pooled connection until the next request
        assert len([o for o in gc.get_objects() if isinstance(o, UpstreamResponse)]) <= 1
    finally:
        gc.enable()
        server.close()


async def test_chunked_stream_read_piece_by_piece(client: Client) -> None:
    sent = asyncio.Event()

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _head(reader)
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        for piece in (b"data: 1\n\n", b"data: 2\n\n"):
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            await writer.drain()
            await sent.wait()
            sent.clear()
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    server, url = await _serve(handler)
    try:
        resp = await client.request("POST", url, {}, b"{}", Timeouts(idle=5, total=10))
        assert resp.status == 200 and resp.content_type == "text/event-stream"
        assert await resp.content.readany() == b"data: 1\n\n"
        sent.set()
        assert await resp.content.readany() == b"data: 2\n\n"
        sent.set()
        assert await resp.content.readany() == b""
        resp.release()
    finally:
        server.close()


async def test_body_until_close_and_a_new_connection_after(client: Client) -> None:
    srv = Server([b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of it"], close_after=True)
    server, url = await _serve(srv.handle)
    try:
        for _ in range(2):
            resp = await client.request("POST", url, {}, b"{}", Timeouts())
            assert await resp.read() == b"all of it"
        assert srv.connections == 2
    finally:
        server.close()


async def test_a_pooled_connection_the_provider_closed_is_not_a_failure(client: Client) -> None:
    srv = Server([JSON], close_after=True)  # answers keep-alive, then closes anyway
    server, url = await _serve(srv.handle)
    try:
        for _ in range(3):
            resp = await client.request("POST", url, {}, b"{}", Timeouts())
            assert await resp.read() == b'{"ok":true}'
            await asyncio.sleep(0)  # the close may or may not be seen before the next request
        assert srv.connections == 3
    finally:
        server.close()


async def test_failures_refused_cut_malformed_and_idle(client: Client) -> None:
    server, url = await _serve(lambda r, w: asyncio.sleep(0))
    server.close()
    await server.wait_closed()
    with pytest.raises(UpstreamConnectError):
        await client.request("POST", url, {}, b"{}", Timeouts(connect=5))

    async def cut(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial")
        await writer.drain()
        writer.close()

    server, url = await _serve(cut)
    try:
        resp = await client.request("POST", url, {}, b"{}", Timeouts())
        with pytest.raises(UpstreamError):
            await resp.read()
    finally:
        server.close()

    server, url = await _serve(Server([b"NOT HTTP AT ALL\r\n\r\n"]).handle)
    try:
        with pytest.raises(UpstreamError):
            await client.request("POST", url, {}, b"{}", Timeouts())
    finally:
        server.close()

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        await writer.drain()
        await reader.read()  # silent until the client gives up and closes

    server, url = await _serve(silent)
    try:
        resp = await client.request("POST", url, {}, b"{}", Timeouts(idle=0.05))
        with pytest.raises(TimeoutError):
            await resp.content.readany()
    finally:
        server.close()


async def test_close_mid_stream_fails_the_pending_read_and_frees_the_slot() -> None:
    client = Client(limit=1, connecting=1)

    async def endless(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                await _head(reader)
                writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    server, url = await _serve(endless)
    try:
        resp = await client.request("POST", url, {}, b"{}", Timeouts())
        assert await resp.content.readany() == b"hello"
        pending = asyncio.ensure_future(resp.content.readany())
        await asyncio.sleep(0)
        resp.close()
        with pytest.raises(UpstreamError):
            await pending
        again = await client.request("POST", url, {}, b"{}", Timeouts())  # limit 1: the slot was freed
        assert await again.content.readany() == b"hello"
        again.close()
    finally:
        await client.close()
        server.close()


async def test_a_cancelled_request_closes_its_connection_and_frees_its_slot() -> None:
    client = Client(limit=1, connecting=1)
    srv = Server([])
    heard = asyncio.Event()

    async def mute(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        srv.connections += 1
        await _head(reader)
        heard.set()
        await reader.read()  # until the client closes
        writer.close()

    server, url = await _serve(mute)
    try:
        for _ in range(2):
            heard.clear()
            task = asyncio.ensure_future(client.request("POST", url, {}, b"{}", Timeouts()))
            await heard.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        assert srv.connections == 2  # the second request got the slot and a new connection
    finally:
        await client.close()
        server.close()


async def test_https_through_the_pool(certificate: tuple[Path, Path]) -> None:
    """TLS (``loop.create_connection(ssl=...)``, host name check) against a
    self-signed certificate for 127.0.0.1 trusted by the pool's context."""
    cert, key = certificate
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_ctx.load_cert_chain(cert, key)
    srv = Server([JSON])
    server = await asyncio.start_server(srv.handle, "127.0.0.1", 0, ssl=server_ctx)
    url = URL(f"https://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1/chat/completions")
    client = Client(limit=2, connecting=1)
    try:
        with pytest.raises(UpstreamConnectError):  # not trusted by default
            await client.request("POST", url, {}, b"{}", Timeouts(connect=5))
        pool = next(iter(client._pools.values()))
        assert pool.ssl is not None
        pool.ssl = ssl.create_default_context(cafile=cert)
        for _ in range(2):
            resp = await client.request("POST", url, {}, b"{}", Timeouts(connect=5))
            assert (resp.status, await resp.read()) == (200, b'{"ok":true}')
        assert (
            srv.connections == 1
        )  # both on one kept-alive connection (a refused handshake never reaches it)
        assert srv.requests[-1].startswith(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:")
    finally:
        await client.close()
        server.close()
