"""``streaming.direct.ClientWire``: a stream's body written straight to the
client's transport keeps HTTP/1.1 chunked framing and aiohttp's flow control
(an aiohttp server in process, a raw socket client on loopback).

- a client that does not read: writes wait once the transport is over its
  high-water mark, so the edge never buffers more than that plus one batch;
- every byte arrives, in order, as one valid chunked body with its end;
- a client that left: the write raises what the relay treats as a gone client.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable

import aiohttp
from aiohttp import web

from tollway_edge.streaming.direct import ClientWire

BATCH = b"data: " + b"x" * 16_378 + b"\n\n"  # 16 KiB per write
BATCHES = 1000  # 16 MiB: far over the socket buffers (~4 MiB on this loopback) and the high-water mark


def _dechunk(body: bytes) -> tuple[bytes, bool]:
    """The payload of a chunked body and whether it ended with the zero-length chunk."""
    out, i = bytearray(), 0
    while True:
        j = body.index(b"\r\n", i)
        size = int(body[i:j], 16)
        if size == 0:
            return bytes(out), body[j : j + 4] == b"\r\n\r\n"
        out += body[j + 2 : j + 2 + size]
        assert body[j + 2 + size : j + 4 + size] == b"\r\n"
        i = j + 4 + size


async def _serve(
    handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
) -> tuple[web.AppRunner, int]:
    app = web.Application()
    app.router.add_get("/", handler)
    runner = web.AppRunner(app, handler_cancellation=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, port


async def test_a_client_that_does_not_read_pauses_the_writes_and_gets_every_byte() -> None:
    buffered: list[int] = []  # the transport's write buffer after each write
    limits: list[int] = []
    done = asyncio.Event()

    async def handler(request: web.Request) -> web.StreamResponse:
        out = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await out.prepare(request)
        wire = ClientWire(request, out)
        limits.append(request.transport.get_write_buffer_limits()[1])  # type: ignore[union-attr]
        for _ in range(BATCHES):
            await wire.write(BATCH)
            buffered.append(request.transport.get_write_buffer_size())  # type: ignore[union-attr]
        await out.write_eof()
        done.set()
        return out

    runner, port = await _serve(handler)
    try:
        loop = asyncio.get_running_loop()
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
        sock.setblocking(False)
        await loop.sock_connect(sock, ("127.0.0.1", port))
        await loop.sock_sendall(sock, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        await asyncio.sleep(0.5)  # not reading: the server's writes must wait
        assert not done.is_set() and len(buffered) < BATCHES
        high = max(buffered)
        raw = bytearray()
        while not raw.endswith(b"\r\n0\r\n\r\n"):  # now read it all, to the body's end
            piece = await asyncio.wait_for(loop.sock_recv(sock, 1 << 20), 5)
            assert piece, "closed before the body's end"
            raw += piece
        await asyncio.wait_for(done.wait(), 5)
        sock.close()
    finally:
        await runner.cleanup()
    head, _, body = bytes(raw).partition(b"\r\n\r\n")
    assert b"Transfer-Encoding: chunked" in head
    payload, ended = _dechunk(body)
    assert payload == BATCH * BATCHES and ended
    assert high <= limits[0] + len(BATCH) + 16  # the high-water mark plus the batch that crossed it


async def test_a_write_to_a_client_that_left_raises_a_gone_client() -> None:
    outcome: list[BaseException | None] = []

    async def handler(request: web.Request) -> web.StreamResponse:
        out = web.StreamResponse()
        await out.prepare(request)
        wire = ClientWire(request, out)
        await wire.write(BATCH)
        request.transport.close()  # type: ignore[union-attr]  # the client's connection goes
        try:
            await wire.write(BATCH)
            outcome.append(None)
        except (ConnectionResetError, aiohttp.ClientConnectionResetError) as exc:
            outcome.append(exc)
        return out

    runner, port = await _serve(handler)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        await reader.read()
        writer.close()
    finally:
        await runner.cleanup()
    assert len(outcome) == 1 and isinstance(outcome[0], ConnectionResetError)
