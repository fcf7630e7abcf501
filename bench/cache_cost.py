"""The cost of an exact response cache hit (issue 13) beside a normal call:
edge CPU per call and client-side latency, one edge process, three kinds of
call interleaved over ``--rounds``:

- ``normal``: a key without a cache policy (no cache round trip), answered by
  the stack's fake provider;
- ``hit``: a key with a cache policy, the same body every time (one Valkey
  ``GET``, no provider);
- ``miss + store``: that key with ``Cache-Control: no-cache`` (the provider
  answers, then one ``SET EX``).

Runs against the local stack (``bash infra/up.sh``): its Valkey (entries
under a bench tenant, 120 s TTL), Kafka (a topic of its own, deleted after),
fake provider and catalogue; principals come from a temporary database on the
stack's Postgres with quota's real migrations (dropped after), so the stack's
own database is not touched. CPU per call = utime+stime of the edge process
(``/proc/<pid>/stat``) over the calls, divided by the calls. Only ratios from
one run mean anything.

    uv run --no-sync python -m bench.cache_cost [--calls 2000] [--concurrency 16] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from urllib.parse import urlsplit, urlunsplit

import aiohttp
import asyncpg

from tollway_contracts.keys import hash_secret, new_key

from .procs import CLK_TCK
from .tracing_cost import REPO, _env_file, _free_port, _ticks_rss, _wait_ready

BODY = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 5}


async def _load(
    url: str, headers: dict[str, str], calls: int, concurrency: int
) -> tuple[int, int, list[float]]:
    """(successful calls, of which cache hits, latencies in ms)."""
    ok = hits = 0
    left = calls
    latencies: list[float] = []

    async def worker(http: aiohttp.ClientSession) -> None:
        nonlocal ok, hits, left
        while left > 0:
            left -= 1
            t = time.perf_counter()
            async with http.post(url + "/v1/chat/completions", json=BODY, headers=headers) as r:
                await r.read()
                ok += r.status == 200
                hits += r.headers.get("x-tollway-cache") == "hit"
            latencies.append((time.perf_counter() - t) * 1000.0)

    async with aiohttp.ClientSession() as http:
        await asyncio.gather(*(worker(http) for _ in range(concurrency)))
    return ok, hits, latencies


async def _principals(dsn: str, pepper: bytes) -> tuple[str, str]:
    """Quota's migrations in the (new) database at ``dsn`` and two keys of one
    bench tenant: ``(plain key, cached key)``."""
    from tollway_quota.migrate import MIGRATIONS_DIR
    from tollway_runtime.migrations import apply_migrations

    await asyncio.to_thread(apply_migrations, dsn, MIGRATIONS_DIR)
    conn = await asyncpg.connect(dsn)
    tenant = "tn_" + secrets.token_hex(6)
    keys = []
    try:
        await conn.execute(
            "INSERT INTO catalog.tenants (id, name) VALUES ($1, $2)", tenant, f"bench-{tenant}"
        )
        for ttl in (None, 120):
            full, parsed = new_key()
            version = await conn.fetchval(
                "UPDATE catalog.principals_version SET version = version + 1 RETURNING version"
            )
            await conn.execute(
                "INSERT INTO catalog.api_keys (key_id, secret_hash, tenant_id, name, version,"
                " response_cache_ttl_seconds) VALUES ($1, $2, $3, $4, $5, $6)",
                parsed.key_id,
                hash_secret(pepper, parsed.key_id, parsed.secret),
                tenant,
                f"bench-{ttl}",
                version,
                ttl,
            )
            keys.append(full)
    finally:
        await conn.close()
    return keys[0], keys[1]


def _with_db(dsn: str, db: str) -> str:
    parts = urlsplit(dsn)
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", parts.query, parts.fragment))


async def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--concurrency", type=int, default=16)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()

    state = REPO / ".tollway"
    stack = {**_env_file(state / "stack.env"), **_env_file(state / "dev.env")}
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    topic = f"tollway.bench.cache.{uuid.uuid4().hex[:8]}"
    db = f"tw_bench_cache_{uuid.uuid4().hex[:12]}"
    admin_pg = await asyncpg.connect(stack["TOLLWAY_POSTGRES_DSN"])
    await admin_pg.execute(f'CREATE DATABASE "{db}"')
    await admin_pg.close()
    dsn = _with_db(stack["TOLLWAY_POSTGRES_DSN"], db)
    kafka = AIOKafkaAdminClient(bootstrap_servers=stack["TOLLWAY_KAFKA_BOOTSTRAP_SERVERS"])
    await kafka.start()
    await kafka.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)])
    results: dict[str, list[tuple[float, float, float, int, int]]] = {
        "normal": [],
        "hit": [],
        "miss + store": [],
    }
    port = _free_port()
    tmp = tempfile.TemporaryDirectory()
    proc: subprocess.Popen[bytes] | None = None
    try:
        plain, cached = await _principals(dsn, stack["TOLLWAY_KEY_PEPPER"].encode())
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
        kinds = {
            "normal": {"Authorization": f"Bearer {plain}"},
            "hit": {"Authorization": f"Bearer {cached}"},
            "miss + store": {"Authorization": f"Bearer {cached}", "Cache-Control": "no-cache"},
        }
        for headers in kinds.values():  # warm-up (and the entry the hits read)
            await _load(url, headers, max(100, args.calls // 10), args.concurrency)
        for _ in range(args.rounds):
            for name, headers in kinds.items():
                t0, _ = _ticks_rss(proc.pid)
                ok, hits, latencies = await _load(url, headers, args.calls, args.concurrency)
                t1, _ = _ticks_rss(proc.pid)
                cpu = (t1 - t0) / CLK_TCK * 1000.0 / max(ok, 1)
                latencies.sort()
                p50 = statistics.median(latencies)
                p99 = latencies[int(len(latencies) * 0.99) - 1]
                results[name].append((cpu, p50, p99, ok, hits))
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
    print(
        "| call | edge CPU ms per call (median; each round) | latency p50 ms | latency p99 ms | calls ok | hits |"
    )
    print("|---|---|---|---|---|---|")
    for name, rows in results.items():
        cpu = [r[0] for r in rows]
        print(
            f"| {name} | {statistics.median(cpu):.3f} ({', '.join(f'{c:.3f}' for c in cpu)}) "
            f"| {statistics.median(r[1] for r in rows):.2f} | {statistics.median(r[2] for r in rows):.2f} "
            f"| {sum(r[3] for r in rows)} | {sum(r[4] for r in rows)} |"
        )


if __name__ == "__main__":
    asyncio.run(main())
