"""The cost of pinning stored responses (issue 12): ``POST /v1/responses``
with and without the edge's Valkey record, one edge process, call kinds
interleaved over ``--rounds``:

- ``json, store: false`` / ``stream, store: false``: nothing recorded (the
  baseline: the provider keeps nothing, so the edge writes nothing);
- ``json, stored`` / ``stream, stored``: the default ``store``: one
  ``SET EX`` before the answer (a stream: its first event read whole, then the
  ``SET``, then the first byte to the client);
- ``json, follow-up``: ``previous_response_id`` naming a stored response:
  one ``GET`` (the pin) before admission, and the ``SET`` of the new response.

Runs against the local stack (``bash infra/up.sh``) like ``bench.cache_cost``
(its principals helper: a temporary database with quota's migrations, dropped
after; a Kafka topic of its own, deleted after; the stack's catalogue, Valkey
and fake provider). Streams: latency is time to the first body byte. CPU per
call = utime+stime of the edge process over the calls. Only ratios from one
run mean anything.

    uv run --no-sync python -m bench.response_state_cost [--calls 1000] [--concurrency 16] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from typing import Any

import aiohttp
import asyncpg

from .cache_cost import _principals, _with_db
from .procs import CLK_TCK
from .tracing_cost import REPO, _env_file, _free_port, _ticks_rss, _wait_ready


async def _load(
    url: str, headers: dict[str, str], body: dict[str, Any], calls: int, concurrency: int
) -> tuple[int, list[float]]:
    """(successful calls, latencies in ms: to the first body byte for a stream, else the whole answer)."""
    ok = 0
    left = calls
    latencies: list[float] = []

    async def worker(http: aiohttp.ClientSession) -> None:
        nonlocal ok, left
        while left > 0:
            left -= 1
            t = time.perf_counter()
            async with http.post(url + "/v1/responses", json=body, headers=headers) as r:
                if body.get("stream"):
                    await r.content.readany()
                    latencies.append((time.perf_counter() - t) * 1000.0)
                    await r.read()
                else:
                    await r.read()
                    latencies.append((time.perf_counter() - t) * 1000.0)
                ok += r.status == 200

    async with aiohttp.ClientSession() as http:
        await asyncio.gather(*(worker(http) for _ in range(concurrency)))
    return ok, latencies


async def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calls", type=int, default=1000)
    p.add_argument("--concurrency", type=int, default=16)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()

    state = REPO / ".tollway"
    stack = {**_env_file(state / "stack.env"), **_env_file(state / "dev.env")}
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    topic = f"tollway.bench.respstate.{uuid.uuid4().hex[:8]}"
    db = f"tw_bench_respstate_{uuid.uuid4().hex[:12]}"
    admin_pg = await asyncpg.connect(stack["TOLLWAY_POSTGRES_DSN"])
    await admin_pg.execute(f'CREATE DATABASE "{db}"')
    await admin_pg.close()
    dsn = _with_db(stack["TOLLWAY_POSTGRES_DSN"], db)
    kafka = AIOKafkaAdminClient(bootstrap_servers=stack["TOLLWAY_KAFKA_BOOTSTRAP_SERVERS"])
    await kafka.start()
    await kafka.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)])
    base: dict[str, Any] = {"model": "gpt-4o-mini", "input": "hi", "max_output_tokens": 5}
    kinds: dict[str, dict[str, Any]] = {
        "json, store: false": {**base, "store": False},
        "json, stored": base,
        "json, follow-up": base,  # previous_response_id added below
        "stream, store: false": {**base, "store": False, "stream": True},
        "stream, stored": {**base, "stream": True},
    }
    results: dict[str, list[tuple[float, float, float, int]]] = {name: [] for name in kinds}
    port = _free_port()
    tmp = tempfile.TemporaryDirectory()
    proc: subprocess.Popen[bytes] | None = None
    try:
        plain, _ = await _principals(dsn, stack["TOLLWAY_KEY_PEPPER"].encode())
        env = {
            **os.environ,
            **{k: v for k, v in stack.items() if k.startswith("TOLLWAY_")},
            "TOLLWAY_POSTGRES_DSN": dsn,
            "TOLLWAY_EDGE_USAGE_TOPIC": topic,
            "TOLLWAY_EDGE_QUOTA_URL": "",
            "TOLLWAY_LOG_LEVEL": "WARNING",
            "TOLLWAY_LOG_FORMAT": "json",
            "TOLLWAY_EDGE_PORT": str(port),
            "TOLLWAY_EDGE_JOURNAL_DIR": tmp.name,
            "TOLLWAY_EDGE_RESPONSE_STATE_TTL_SECONDS": "300",  # the bench's records expire soon
        }
        env = {k: v for k, v in env.items() if not k.startswith("OTEL_")}
        proc = subprocess.Popen(  # noqa: ASYNC220 - a harness; starting takes ms
            [sys.executable, "-m", "tollway_edge"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{port}"
        await _wait_ready(url, proc)
        headers = {"Authorization": f"Bearer {plain}"}
        async with aiohttp.ClientSession() as http:
            async with http.post(url + "/v1/responses", json=base, headers=headers) as r:
                assert r.status == 200, await r.text()
                kinds["json, follow-up"] = {**base, "previous_response_id": (await r.json())["id"]}
        for body in kinds.values():  # warm-up
            await _load(url, headers, body, max(100, args.calls // 10), args.concurrency)
        for _ in range(args.rounds):
            for name, body in kinds.items():
                t0, _ = _ticks_rss(proc.pid)
                ok, latencies = await _load(url, headers, body, args.calls, args.concurrency)
                t1, _ = _ticks_rss(proc.pid)
                cpu = (t1 - t0) / CLK_TCK * 1000.0 / max(ok, 1)
                latencies.sort()
                p50 = statistics.median(latencies)
                p99 = latencies[int(len(latencies) * 0.99) - 1]
                results[name].append((cpu, p50, p99, ok))
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(30)
        tmp.cleanup()
        with contextlib.suppress(Exception):
            await kafka.delete_topics([topic])
        await kafka.close()
        admin_pg = await asyncpg.connect(stack["TOLLWAY_POSTGRES_DSN"])
        await admin_pg.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        await admin_pg.close()
    print(f"{args.calls} calls x {args.rounds} rounds, concurrency {args.concurrency}, 1 edge worker")
    print("| call | edge CPU ms per call (median; each round) | p50 ms | p99 ms | calls ok |")
    print("|---|---|---|---|---|")
    for name, rows in results.items():
        cpu = [r[0] for r in rows]
        print(
            f"| {name} | {statistics.median(cpu):.3f} ({', '.join(f'{c:.3f}' for c in cpu)}) "
            f"| {statistics.median(r[1] for r in rows):.2f} | {statistics.median(r[2] for r in rows):.2f} "
            f"| {sum(r[3] for r in rows)} |"
        )


if __name__ == "__main__":
    asyncio.run(main())
