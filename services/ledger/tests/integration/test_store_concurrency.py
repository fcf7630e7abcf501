"""Parallel ledger transactions touching the same rollup rows contend but
never deadlock, and the rollups still equal the sums over usage_records."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest

from tollway_ledger.handler import Message, handle
from tollway_ledger.migrate import MIGRATIONS_DIR
from tollway_ledger.store import LedgerStore
from tollway_runtime.migrations import apply_migrations

from ..conftest import make_call

pytestmark = pytest.mark.integration


async def test_parallel_batches_never_deadlock(ledger_fresh_dsn) -> None:
    await asyncio.to_thread(apply_migrations, ledger_fresh_dsn, MIGRATIONS_DIR)
    pool = await asyncpg.create_pool(ledger_fresh_dsn, min_size=4, max_size=4)
    try:
        store = LedgerStore(pool)
        base = datetime(2026, 3, 1, tzinfo=UTC)
        keys = [(t, k, m) for t in ("t1", "t2") for k in ("k1", "k2") for m in ("a", "b")]
        rng = random.Random(7)

        def batch(worker: int, n: int) -> list[Message]:
            msgs = []
            for i in range(40):
                t, k, m = rng.choice(keys)
                ts = base + timedelta(hours=rng.randrange(3), seconds=worker * 1000 + n * 50 + i)
                s, c = make_call(i, ts, tenant=t, key=k, model=m)
                msgs += [
                    Message("u", worker, 2 * i, None, s.to_json()),
                    Message("u", worker, 2 * i + 1, None, c.to_json()),
                ]
            rng.shuffle(msgs)  # offsets keep the per-call order; arrival order is random
            return msgs

        batches = [[batch(w, n) for n in range(6)] for w in range(4)]

        async def worker(w: int) -> None:
            for msgs in batches[w]:
                await store.apply(handle(msgs, consumer_group="g"))

        await asyncio.wait_for(asyncio.gather(*(worker(w) for w in range(4))), timeout=120)
        async with pool.acquire() as conn:
            assert (
                await conn.fetchval("SELECT count(*) FROM ledger.usage_records WHERE status = 'completed'")
                == 4 * 6 * 40
            )
            for table in ("usage_rollup_hourly", "usage_rollup_daily", "usage_rollup_monthly"):
                total = await conn.fetchrow(f"SELECT sum(requests), sum(cost_micro_usd) FROM ledger.{table}")
                expected = await conn.fetchrow(
                    "SELECT count(*), sum(cost_micro_usd) FROM ledger.usage_records"
                )
                assert tuple(total) == tuple(expected)
    finally:
        await pool.close()
