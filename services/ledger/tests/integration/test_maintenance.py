"""Retention and orphan reconciliation against a real Postgres (fresh database),
with an injected clock."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

import asyncpg
import orjson
import pytest

from tollway_ledger.app import MAINTENANCE, METRICS
from tollway_ledger.handler import Message, handle
from tollway_ledger.migrate import MIGRATIONS_DIR
from tollway_ledger.store import LedgerStore
from tollway_runtime.migrations import apply_migrations

from ..conftest import ledger_settings, make_call, wait_until

pytestmark = pytest.mark.integration


def _messages(events) -> list[Message]:
    return [Message("u", 0, i, None, e.to_json()) for i, e in enumerate(events)]


async def _store(dsn: str) -> tuple[asyncpg.Pool, LedgerStore]:
    await asyncio.to_thread(apply_migrations, dsn, MIGRATIONS_DIR)
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=3)
    return pool, LedgerStore(pool)


async def _partitions(conn: asyncpg.Connection) -> list[str]:
    rows = await conn.fetch(
        """SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
           WHERE i.inhparent = 'ledger.usage_records'::regclass ORDER BY 1"""
    )
    return [r[0] for r in rows]


async def test_retention_drops_exactly_the_expired_partitions(ledger_fresh_dsn) -> None:
    pool, store = await _store(ledger_fresh_dsn)
    try:
        # One completed call in each month from 2025-09 to 2026-12.
        months = [datetime(2025, 9, 1, tzinfo=UTC)]
        while months[-1] < datetime(2026, 12, 1, tzinfo=UTC):
            m = months[-1]
            months.append(
                m.replace(year=m.year + 1, month=1) if m.month == 12 else m.replace(month=m.month + 1)
            )
        calls = [make_call(i, m + timedelta(days=3, hours=i)) for i, m in enumerate(months)]
        await store.apply(handle(_messages([e for c in calls for e in c]), consumer_group="g"))
        async with pool.acquire() as conn:
            before = await _partitions(conn)
            assert before == [f"usage_records_y{m.year}m{m.month:02d}" for m in months]

            now = datetime(2026, 11, 15, 8, 0, tzinfo=UTC)  # injected clock
            result = await store.apply_retention(
                now, 3, {"usage_rollup_hourly": 6, "usage_rollup_daily": 0, "usage_rollup_monthly": 0}
            )
            # Kept: Aug, Sep, Oct 2026 + the current month (Nov) + December.
            expected_dropped = [
                f"usage_records_y{m.year}m{m.month:02d}"
                for m in months
                if m < datetime(2026, 8, 1, tzinfo=UTC)
            ]
            assert result.dropped_partitions == expected_dropped
            assert await _partitions(conn) == [p for p in before if p not in expected_dropped]
            first_kept = await conn.fetchval("SELECT min(ts_start) FROM ledger.usage_records")
            assert first_kept >= datetime(2026, 8, 1, tzinfo=UTC)
            assert await conn.fetchval("SELECT count(*) FROM ledger.usage_records") == 5
            # Hourly rollups kept 6 months (from 2026-05-01); daily and monthly forever.
            assert await conn.fetchval(
                "SELECT min(bucket_start) FROM ledger.usage_rollup_hourly"
            ) == datetime(2026, 5, 4, 8, tzinfo=UTC)
            assert result.rollup_rows_deleted == {"usage_rollup_hourly": 8}
            assert await conn.fetchval("SELECT count(*) FROM ledger.usage_rollup_daily") == len(months)
            assert await conn.fetchval("SELECT count(*) FROM ledger.usage_rollup_monthly") == len(months)

            # Idempotent; and 0 months keeps everything.
            again = await store.apply_retention(now, 3, {})
            assert again.dropped_partitions == []
            assert (await store.apply_retention(now + timedelta(days=3650), 0, {})).dropped_partitions == []

            # A late event for a dropped month re-creates its partition (retention
            # drops it again on its next run); the store copes with its stale cache.
            late = make_call(99, datetime(2026, 2, 10, tzinfo=UTC))
            await store.apply(handle(_messages(late), consumer_group="g"))
            assert "usage_records_y2026m02" in await _partitions(conn)
    finally:
        await pool.close()


async def test_retention_runs_once_across_replicas(ledger_fresh_dsn) -> None:
    pool, store = await _store(ledger_fresh_dsn)
    try:
        for m in range(1, 7):
            async with pool.acquire() as conn:
                await conn.execute(
                    "SELECT ledger.ensure_usage_partition($1)", datetime(2025, m, 1, tzinfo=UTC)
                )
        other = LedgerStore(pool)
        now = datetime(2026, 11, 15, tzinfo=UTC)
        a, b = await asyncio.gather(store.apply_retention(now, 13, {}), other.apply_retention(now, 13, {}))
        dropped = a.dropped_partitions + b.dropped_partitions
        assert sorted(dropped) == [f"usage_records_y2025m{m:02d}" for m in range(1, 7)]
        assert len(dropped) == len(set(dropped))
    finally:
        await pool.close()


async def test_orphans_marked_reported_and_finalised_late_once(ledger_fresh_dsn) -> None:
    pool, store = await _store(ledger_fresh_dsn)
    t0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    old = [make_call(i, t0 + timedelta(seconds=i)) for i in range(3)]
    recent = make_call(10, t0 + timedelta(minutes=50))
    done = make_call(11, t0 + timedelta(seconds=5))
    try:
        events = [s for s, _ in old] + [recent[0], *done]
        await store.apply(handle(_messages(events), consumer_group="g"))
        now = t0 + timedelta(hours=1)  # injected clock: old calls started ~60 min ago, recent 10 min ago
        marked = await store.mark_orphans(now, 900)
        assert marked is not None
        assert sorted(c.request_id for c in marked) == sorted(s.request_id for s, _ in old)
        assert await store.mark_orphans(now, 900) == []  # nothing new

        async with pool.acquire() as conn:
            rows = await conn.fetch("SELECT * FROM ledger.orphaned_calls ORDER BY ts_start")
            assert [r["request_id"] for r in rows] == [s.request_id for s, _ in old]
            assert all(r["orphaned_at"] == now for r in rows)
            assert orjson.loads(rows[0]["reservation"]) == {"key": {"tokens": 100, "cost_micro_usd": 50}}
            assert (rows[0]["reserved_tokens"], rows[0]["reserved_cost_micro_usd"]) == (100, 50)
            statuses = dict(await conn.fetch("SELECT request_id, status FROM ledger.usage_records"))
            assert statuses[recent[0].request_id] == "in_flight"
            assert statuses[done[0].request_id] == "completed"
            assert await conn.fetchval("SELECT sum(requests) FROM ledger.usage_rollup_hourly") == 1

            # The terminal event of an orphan arrives late: finalised, counted once.
            late = old[0][1]
            result = await store.apply(handle(_messages([late]), consumer_group="g"))
            assert (result.terminal_applied, result.orphans_finalised) == (1, 1)
            again = await store.apply(handle(_messages([late, old[0][0]]), consumer_group="g"))
            assert (again.terminal_applied, again.orphans_finalised) == (0, 0)
            row = await conn.fetchrow(
                "SELECT status, cost_micro_usd, orphaned_at FROM ledger.usage_records WHERE request_id = $1",
                late.request_id,
            )
            assert (row["status"], row["cost_micro_usd"], row["orphaned_at"]) == (
                "completed",
                late.cost_micro_usd,
                now,
            )
            reservation = await conn.fetchval(
                "SELECT reservation FROM ledger.usage_records WHERE request_id = $1", late.request_id
            )
            assert orjson.loads(reservation) == {
                "key": {"tokens": 100, "cost_micro_usd": 50}
            }  # kept from started
            for table in ("usage_rollup_hourly", "usage_rollup_daily", "usage_rollup_monthly"):
                total = await conn.fetchrow(f"SELECT sum(requests), sum(cost_micro_usd) FROM ledger.{table}")
                assert tuple(total) == (2, done[1].cost_micro_usd + late.cost_micro_usd)
            assert await conn.fetchval("SELECT count(*) FROM ledger.orphaned_calls") == 2
    finally:
        await pool.close()


async def test_app_reconciles_orphans_periodically(ledger_fresh_dsn, ledger_topics) -> None:
    from aiokafka import AIOKafkaProducer

    from ..conftest import KAFKA

    started, _ = make_call(1, datetime(2026, 11, 29, 12, 0, tzinfo=UTC))
    settings = ledger_settings(
        ledger_fresh_dsn, ledger_topics, orphan_check_interval_seconds=0.2, orphan_after_seconds=600
    )

    def clock() -> datetime:
        return datetime(2026, 11, 29, 13, 0, tzinfo=UTC)

    async with run_ledger_with_clock(settings, clock) as app:
        producer = AIOKafkaProducer(bootstrap_servers=KAFKA)
        await producer.start()
        try:
            await producer.send_and_wait(ledger_topics[0], key=started.kafka_key(), value=started.to_json())
        finally:
            await producer.stop()

        async def orphaned() -> bool:
            return (app[METRICS].registry.get_sample_value("tollway_ledger_orphaned_total") or 0) >= 1

        await wait_until(orphaned)
        assert app[MAINTENANCE] is not None
        conn = await asyncpg.connect(ledger_fresh_dsn)
        try:
            assert await conn.fetchval("SELECT request_id FROM ledger.orphaned_calls") == started.request_id
        finally:
            await conn.close()


def run_ledger_with_clock(settings, clock):
    import contextlib

    from aiohttp import web

    from tollway_ledger.app import create_app

    @contextlib.asynccontextmanager
    async def _run():
        app = create_app(settings, clock=clock)
        runner = web.AppRunner(app, handle_signals=False)
        await runner.setup()
        try:
            yield app
        finally:
            await runner.cleanup()

    return _run()


_ = uuid
