"""CPU per provider request of the edge's HTTP client: aiohttp's ClientSession
(before issue 9's lean client) against ``routing.http1`` (now), in one uvloop
process with a minimal keep-alive HTTP/1.1 server answering a fixed chat
completion (so the figure is client + that server + both sides' syscalls; the
server's share is the same for both). Sequential requests on one kept-alive
connection, ``process_time`` per request, rounds interleaved.

    uv run --no-sync python services/edge/bench/client_cpu.py [--requests 3000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable

import aiohttp
import uvloop
from yarl import URL

from tollway_edge.routing.http1 import Timeouts
from tollway_edge.routing.http1_pool import Client

BODY = (
    b'{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant",'
    b'"content":"hi"}}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}'
)
ANSWER = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (
    len(BODY),
    BODY,
)
REQUEST = b'{"model":"m","messages":[{"role":"user","content":"hello"}]}'
HEADERS = {"Content-Type": "application/json", "Authorization": "Bearer sk-bench", "x-request-id": "r1"}


class _Provider(asyncio.Protocol):
    """Answers each complete request (head + Content-Length body) with ANSWER."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport: asyncio.Transport = transport  # type: ignore[assignment]
        self.buffer = b""

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while b"\r\n\r\n" in self.buffer:
            head, rest = self.buffer.split(b"\r\n\r\n", 1)
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if len(rest) < length:
                return
            self.buffer = rest[length:]
            self.transport.write(ANSWER)


async def main(requests: int, rounds: int) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(_Provider, "127.0.0.1", 0)
    url = URL(f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1/chat/completions")
    session = aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=1024), skip_auto_headers=("User-Agent",)
    )
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=5, sock_read=None)
    client = Client(limit=1024, connecting=32)

    async def with_aiohttp() -> None:
        resp = await session.post(url, data=REQUEST, headers=HEADERS, timeout=timeout)
        await resp.read()
        resp.release()

    async def with_http1() -> None:
        resp = await client.request("POST", url, HEADERS, REQUEST, Timeouts(connect=5))
        await resp.read()

    clients: dict[str, Callable[[], Awaitable[None]]] = {"aiohttp": with_aiohttp, "http1": with_http1}
    figures: dict[str, list[float]] = {name: [] for name in clients}
    for one in clients.values():  # warm-up
        for _ in range(200):
            await one()
    for _ in range(rounds):
        for name, one in clients.items():
            t = time.process_time()
            for _ in range(requests):
                await one()
            figures[name].append((time.process_time() - t) / requests * 1e6)
    for name, runs in figures.items():
        print(
            f"{name}: CPU per request {statistics.median(runs):.1f} µs (median; rounds: "
            + ", ".join(f"{r:.1f}" for r in runs)
            + ")"
        )
    await session.close()
    await client.close()
    server.close()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    uvloop.run(main(args.requests, args.rounds))
