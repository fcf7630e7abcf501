"""The floor under the edge's CPU per non-streamed call: what a bare aiohttp
server costs per request on this machine, with the same load as
``relay_cpu.py`` (an aiohttp client in this process, ``--concurrency`` 16) and
CPU read from ``/proc/<pid>/stat`` of the server process.

Modes (each server is a separate ``uvloop`` process, ``access_log=None``,
no middleware):

- ``bare``: read the body, answer a fixed chat completion (``web.Response``);
- ``bare-mw``: ``bare`` with the edge's ``Application`` layers: one pass-through
  middleware and one ``on_response_prepare`` hook setting a header;
- ``bare-server``: ``bare`` on aiohttp's low-level ``web.Server`` (one dispatch
  function, a dict of paths; no ``Application``, router or middleware chain);
- ``proxy``: read the body, send it to the fake provider through the edge's
  provider client (``routing.http1``), answer the provider's body: the
  edge's two HTTP hops and nothing else;
- ``proxy-valkey``: ``proxy`` plus two ``PipelinedClient`` round trips to
  Valkey (``PING``; the edge's admit and release) and one ``os.write`` of
  ~600 bytes to a file (the journal's per-pass write): the syscalls of the
  edge's full path, without its Python.

    uv run --no-sync python services/edge/bench/server_floor.py [--calls 2000] [--modes bare,proxy,proxy-valkey]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_stack import VALKEY, cpu_times, free_port, wait_http  # noqa: E402

ANSWER = (
    b'{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"fake-model","choices":'
    b'[{"index":0,"message":{"role":"assistant","content":"Hello! How can I help?"},'
    b'"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":6,"total_tokens":15}}'
)


def serve(mode: str, port: int, provider: str) -> None:
    """Run one bare server until killed (the child process)."""
    import uvloop
    from aiohttp import web
    from yarl import URL

    from tollway_admission import PipelinedClient
    from tollway_edge.routing.http1 import Timeouts
    from tollway_edge.routing.http1_pool import Client

    async def main() -> None:
        client = Client(1024, 32)
        valkey = PipelinedClient(f"{VALKEY}/14") if mode == "proxy-valkey" else None
        fd = os.open(tempfile.mktemp(prefix="floor-"), os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        url = URL(provider + "/chat/completions")
        headers = {"Content-Type": "application/json", "Authorization": "Bearer sk-bench"}
        timeouts = Timeouts(5, 30, 60)
        record = b"x" * 600

        async def bare(request: web.Request) -> web.Response:
            await request.read()
            return web.Response(body=ANSWER, content_type="application/json")

        async def proxy(request: web.Request) -> web.Response:
            body = await request.read()
            if valkey is not None:
                await valkey.execute("PING")
            resp = await client.request("POST", url, headers, body, timeouts)
            raw = await resp.read()
            resp.release()
            if valkey is not None:
                os.write(fd, record)
                await valkey.execute("PING")
            return web.Response(body=raw, content_type="application/json")

        async def ready(_: web.Request) -> web.Response:
            return web.Response(text="ok")

        if mode == "bare-server":  # aiohttp's low-level server: one dispatch function, no router
            routes = {"/v1/chat/completions": bare, "/readyz": ready}

            async def dispatch(request: web.BaseRequest) -> web.StreamResponse:
                return await routes[request.path](request)  # type: ignore[arg-type]

            server = web.Server(dispatch, access_log=None)
            await asyncio.get_running_loop().create_server(server, "127.0.0.1", port)
            await asyncio.Event().wait()

        @web.middleware
        async def passthrough(request: web.Request, handler: Any) -> web.StreamResponse:
            return await handler(request)

        async def stamp(request: web.Request, response: web.StreamResponse) -> None:
            response.headers["x-request-id"] = "0"

        # bare-mw: the edge's Application layers (one middleware, one on_response_prepare hook)
        app = web.Application(middlewares=[passthrough] if mode == "bare-mw" else [])
        if mode == "bare-mw":
            app.on_response_prepare.append(stamp)
        app.router.add_post("/v1/chat/completions", proxy if mode.startswith("proxy") else bare)
        app.router.add_get("/readyz", ready)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        await asyncio.Event().wait()

    uvloop.run(main())


async def _call(session: aiohttp.ClientSession, url: str, body: bytes, headers: dict[str, str]) -> None:
    async with session.post(url, data=body, headers=headers) as resp:
        await resp.read()
        assert resp.status == 200, resp.status


async def measure(url: str, calls: int, concurrency: int, pid: int) -> float:
    """Server CPU per call, ms (user + system), over ``calls`` calls after a warm-up."""
    body = b'{"model":"fake-model","messages":[{"role":"user","content":"hello there"}]}'
    headers = {"Authorization": "Bearer x", "Content-Type": "application/json"}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:
        await asyncio.gather(*(_call(session, url, body, headers) for _ in range(concurrency * 2)))
        sem = asyncio.Semaphore(concurrency)

        async def one() -> None:
            async with sem:
                await _call(session, url, body, headers)

        u0, s0 = cpu_times(pid)
        await asyncio.gather(*(one() for _ in range(calls)))
        u1, s1 = cpu_times(pid)
    return ((u1 - u0) + (s1 - s0)) / calls * 1000.0


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--modes", default="bare,proxy,proxy-valkey")
    ap.add_argument("--rounds", type=int, default=3, help="rounds over the modes (interleaved)")
    ap.add_argument("--serve", help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--provider", help=argparse.SUPPRESS)
    return ap.parse_args()


async def main(args: argparse.Namespace) -> None:
    procs: list[subprocess.Popen[bytes]] = []
    try:
        fake_port = free_port()
        procs.append(
            subprocess.Popen(  # noqa: ASYNC220 - setup
                [
                    sys.executable,
                    "-m",
                    "tollway_testing.fake_provider",
                    "--port",
                    str(fake_port),
                    "--no-access-log",
                ]
            )
        )
        wait_http(f"http://127.0.0.1:{fake_port}/healthz")
        servers: dict[str, tuple[int, int]] = {}
        for mode in args.modes.split(","):
            port = free_port()
            p = subprocess.Popen(  # noqa: ASYNC220 - setup
                [
                    sys.executable,
                    __file__,
                    "--serve",
                    mode,
                    "--port",
                    str(port),
                    "--provider",
                    f"http://127.0.0.1:{fake_port}/v1",
                ]
            )
            procs.append(p)
            wait_http(f"http://127.0.0.1:{port}/readyz")
            servers[mode] = (port, p.pid)
        results: dict[str, list[float]] = {m: [] for m in servers}
        for _ in range(args.rounds):
            for mode, (port, pid) in servers.items():
                url = f"http://127.0.0.1:{port}/v1/chat/completions"
                results[mode].append(await measure(url, args.calls, args.concurrency, pid))
        for mode, runs in results.items():
            runs_s = ", ".join(f"{r:.3f}" for r in runs)
            print(
                f"{mode}: server CPU per call, median {sorted(runs)[len(runs) // 2]:.3f} ms (rounds: {runs_s})"
            )
        print(f"load average {os.getloadavg()[0]:.1f} at {time.strftime('%H:%M:%S', time.gmtime())} UTC")
    finally:
        for p in procs:
            p.terminate()
            p.wait()


if __name__ == "__main__":
    ARGS = parse_args()
    if ARGS.serve:
        serve(ARGS.serve, ARGS.port, ARGS.provider)
    else:
        asyncio.run(main(ARGS))
