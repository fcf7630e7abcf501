"""Admit latency and throughput against a local Valkey.

Runs ``--calls`` admits (four scopes, every limit kind, budgets warm) at
``--concurrency`` in-flight calls from one process, then prints p50/p99 admit
latency (ms) and calls/s. Each admitted call is then settled (not timed)
unless ``--no-settle``. Uses a throw-away tenant and deletes its keys.

    uv run python libs/admission/bench/admission_bench.py --calls 5000 --concurrency 50

On a shared 2-core machine, quote ratios from one run, not absolute numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid

import redis.asyncio as aioredis

from tollway_admission import Admission
from tollway_contracts.limits import Limit


async def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", default="redis://127.0.0.1:6379/13")
    p.add_argument("--calls", type=int, default=5000)
    p.add_argument("--concurrency", type=int, default=50)
    p.add_argument("--no-settle", action="store_true")
    a = p.parse_args()

    client = aioredis.from_url(a.url, max_connections=a.concurrency + 10)
    tenant = f"bench-{uuid.uuid4().hex[:8]}"
    big = 10**12

    async def zero(limit, window) -> int:
        return 0

    adm = Admission(client, seed_provider=zero)
    await adm.load()
    limits = [
        Limit(
            scope="key", scope_id="k1", requests_per_minute=big, tokens_per_minute=big, max_concurrent=10**6
        ),
        Limit(scope="user", scope_id="u1", requests_per_minute=big, tokens_per_minute=big),
        Limit(scope="team", scope_id="tm1", max_concurrent=10**6, budget_micro_usd=big, budget_period="day"),
        Limit(
            scope="tenant",
            scope_id=tenant,
            budget_micro_usd=big,
            budget_period="month",
            time_zone="Europe/Paris",
        ),
    ]
    # Warm the budget counters (seed round) outside the measurement.
    warm = await adm.admit(
        tenant_id=tenant, request_id=str(uuid.uuid4()), limits=limits, tokens=1, cost_micro_usd=1
    )
    assert warm.admitted, warm.status

    latencies: list[float] = []
    admitted: list[str] = []
    sem = asyncio.Semaphore(a.concurrency)

    async def one() -> None:
        async with sem:
            rid = str(uuid.uuid4())
            t0 = time.perf_counter()
            res = await adm.admit(
                tenant_id=tenant, request_id=rid, limits=limits, tokens=1_000, cost_micro_usd=2_500
            )
            latencies.append((time.perf_counter() - t0) * 1000)
            if res.admitted:
                admitted.append(rid)

    try:
        t0 = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(a.calls)))
        wall = time.perf_counter() - t0
        q = statistics.quantiles(latencies, n=100)
        print(f"admit: {a.calls} calls, concurrency {a.concurrency}, admitted {len(admitted)}")
        print(f"latency ms: p50 {q[49]:.3f}  p99 {q[98]:.3f}  max {max(latencies):.3f}")
        print(f"throughput: {a.calls / wall:,.0f} calls/s (one client process)")
        if not a.no_settle:
            t1 = time.perf_counter()
            for i in range(0, len(admitted), a.concurrency):
                await asyncio.gather(
                    *(
                        adm.settle(tenant_id=tenant, request_id=r, tokens=500, cost_micro_usd=1_200)
                        for r in admitted[i : i + a.concurrency]
                    )
                )
            print(f"settle: {len(admitted) / (time.perf_counter() - t1):,.0f} calls/s")
    finally:
        keys = [k async for k in client.scan_iter(match=f"tw:{{{tenant}}}:*", count=1000)]
        for i in range(0, len(keys), 500):
            await client.delete(*keys[i : i + 500])
        await client.aclose()


if __name__ == "__main__":
    asyncio.run(main())
