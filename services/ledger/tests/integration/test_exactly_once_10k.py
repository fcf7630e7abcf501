"""Exactly once at scale: 10,000 calls (started + terminal each, realistically
interleaved) produced, then ALL produced again, while the real ledger process
(``python -m tollway_ledger``) is SIGKILLed mid-way and restarted. Afterwards:
exactly 10,000 rows, all finalised, and the rollups equal the sums over
usage_records for random hour/day/month ranges (and bucket by bucket)."""

from __future__ import annotations

import asyncio
import random
import signal
import subprocess
import sys
import uuid
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest
from aiokafka import AIOKafkaProducer

from tollway_contracts.events import ScopeReservation, UsageEvent

from ..conftest import KAFKA, group_caught_up, ledger_env, wait_until
from .test_ledger_kafka import rollups_match_records

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

CALLS = 10_000
START = datetime(2026, 9, 1, tzinfo=UTC)
SPAN_SECONDS = int((datetime(2026, 11, 29, tzinfo=UTC) - START).total_seconds())


def generate(rng: random.Random) -> list[tuple[float, UsageEvent]]:
    """Events with their emission time (seconds since START), 2 per call."""
    out: list[tuple[float, UsageEvent]] = []
    tenants = [("t1", ["k1", "k2"]), ("t2", ["k3"]), ("t3", ["k4", "k5", "k6"])]
    for _ in range(CALLS):
        tenant, keys = rng.choice(tenants)
        at = rng.uniform(0, SPAN_SECONDS)
        ts_start = START + timedelta(seconds=at)
        latency = rng.lognormvariate(6.5, 1.2)  # ms; median ~650 ms, long tail
        common = dict(
            request_id=uuid.uuid4(),
            tenant_id=tenant,
            team_id=rng.choice([None, "team-a", "team-b"]),
            user_id=f"u{rng.randrange(50)}",
            key_id=rng.choice(keys),
            ts_start=ts_start,
            model=rng.choice(["gpt-4o-mini", "gpt-4o", "claude-sonnet"]),
            provider="openai",
            stream=rng.random() < 0.5,
        )
        started = UsageEvent(
            type="started", reservation={"key": ScopeReservation(tokens=900, cost_micro_usd=400)}, **common
        )
        end = ts_start + timedelta(milliseconds=latency)
        if rng.random() < 0.05:
            terminal = UsageEvent(
                type="failed",
                ts_end=end,
                status_code=rng.choice([429, 502, 504]),
                error_type="upstream_error",
                attempts=2,
                latency_ms=latency,
                **common,
            )
        else:
            p, c = rng.randrange(5, 4000), rng.randrange(1, 1500)
            terminal = UsageEvent(
                type="completed",
                ts_end=end,
                status_code=200,
                attempts=1,
                prompt_tokens=p,
                completion_tokens=c,
                cached_tokens=rng.randrange(0, p + 1) // 4,
                reasoning_tokens=0,
                total_tokens=p + c,
                cost_micro_usd=p * 3 + c * 12,
                latency_ms=latency,
                ttft_ms=latency / 3,
                overhead_ms=1.2,
                **common,
            )
        # Emission order: by event time with jitter; 2% of calls deliver their
        # terminal event before `started` (a spooled `started` replayed late).
        t_end = at + latency / 1000 + rng.uniform(0, 0.5)
        t_started = at + rng.uniform(0, 0.05) if rng.random() >= 0.02 else t_end + rng.uniform(1, 60)
        out += [(t_started, started), (t_end, terminal)]
    return out


async def produce(topic: str, events: list[UsageEvent]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=KAFKA, acks="all", linger_ms=20, max_batch_size=256 * 1024)
    await producer.start()
    try:
        for chunk in range(0, len(events), 2000):
            futures = [
                await producer.send(topic, key=e.kafka_key(), value=e.to_json())
                for e in events[chunk : chunk + 2000]
            ]
            await asyncio.gather(*futures)
    finally:
        await producer.stop()


def start_ledger(env: dict[str, str], log_path: str) -> subprocess.Popen:
    log = open(log_path, "ab")  # noqa: SIM115 - owned by the process
    return subprocess.Popen(
        [sys.executable, "-m", "tollway_ledger"], env=env, stdout=log, stderr=subprocess.STDOUT
    )


async def test_10k_calls_twice_with_a_killed_consumer(ledger_fresh_dsn, ledger_topics, tmp_path) -> None:
    dsn = ledger_fresh_dsn
    rng = random.Random(5)
    timed = generate(rng)
    first = [e for _, e in sorted(timed, key=lambda x: x[0])]
    # The second delivery: the same events (same event_ids), in another order
    # that still keeps each call's relative order mostly (as a replay would).
    second = [e for _, e in sorted(timed, key=lambda x: x[0] + rng.uniform(0, 3600))]
    group = f"test-ledger-10k-{uuid.uuid4().hex[:8]}"
    env = ledger_env(dsn, ledger_topics, group, TOLLWAY_LEDGER_BATCH_MAX_RECORDS="500")
    log_path = str(tmp_path / "ledger.log")

    async def rows() -> int:
        conn = await asyncpg.connect(dsn)
        try:
            if await conn.fetchval("SELECT to_regclass('ledger.usage_records')") is None:
                return 0
            return await conn.fetchval("SELECT count(*) FROM ledger.usage_records")
        finally:
            await conn.close()

    await produce(ledger_topics[0], first)
    proc = start_ledger(env, log_path)
    try:
        replay = asyncio.create_task(produce(ledger_topics[0], second))
        # Kill it mid-way: some rows written, far from all.
        await wait_until(lambda: _gt(rows(), 3000), within=90, interval=0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        await replay
        killed_at = await rows()
        assert killed_at > 3000  # killed after real progress (and, at 500 per batch, most likely mid-batch)
        proc = start_ledger(env, log_path)
        await wait_until(lambda: group_caught_up(ledger_topics[0], group), within=150, interval=0.5)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    assert proc.returncode in (0, -signal.SIGTERM), open(log_path).read()[-3000:]  # noqa: ASYNC230, SIM115 - failure message only

    conn = await asyncpg.connect(dsn)
    try:
        assert await conn.fetchval("SELECT count(*) FROM ledger.usage_records") == CALLS
        assert await conn.fetchval("SELECT count(DISTINCT request_id) FROM ledger.usage_records") == CALLS
        statuses = dict(await conn.fetch("SELECT status, count(*) FROM ledger.usage_records GROUP BY 1"))
        assert set(statuses) <= {"completed", "failed"} and sum(statuses.values()) == CALLS
        terminal_ids = {e.event_id for e in first if e.type != "started"}
        stored = {r[0] for r in await conn.fetch("SELECT terminal_event_id FROM ledger.usage_records")}
        assert stored == terminal_ids

        expected_cost = sum(e.cost_micro_usd or 0 for e in first if e.type == "completed")
        assert (
            await conn.fetchval("SELECT sum(cost_micro_usd) FROM ledger.usage_rollup_monthly")
            == expected_cost
        )

        # Random ranges at each granularity: rollup sums == sums over the rows.
        metrics = (
            "requests, errors, prompt_tokens, completion_tokens, cached_tokens, total_tokens, cost_micro_usd"
        )
        row_sums = """count(*), count(*) FILTER (WHERE status = 'failed' OR status_code >= 400),
            coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0),
            coalesce(sum(cached_tokens), 0), coalesce(sum(total_tokens), 0), coalesce(sum(cost_micro_usd), 0)"""
        for table, unit, size in (
            ("usage_rollup_hourly", timedelta(hours=1), 2100),
            ("usage_rollup_daily", timedelta(days=1), 88),
            ("usage_rollup_monthly", None, 3),
        ):
            for _ in range(25):
                if unit is None:
                    months = [
                        START,
                        datetime(2026, 10, 1, tzinfo=UTC),
                        datetime(2026, 11, 1, tzinfo=UTC),
                        datetime(2026, 12, 1, tzinfo=UTC),
                    ]
                    a, b = sorted(rng.sample(range(4), 2))
                    lo, hi = months[a], months[b]
                else:
                    a, b = sorted(rng.sample(range(size + 1), 2))
                    lo, hi = START + a * unit, START + b * unit
                got = await conn.fetchrow(
                    f"SELECT {', '.join(f'coalesce(sum({m}), 0)' for m in metrics.split(', '))} "
                    f"FROM ledger.{table} WHERE bucket_start >= $1 AND bucket_start < $2",
                    lo,
                    hi,
                )
                want = await conn.fetchrow(
                    f"SELECT {row_sums} FROM ledger.usage_records WHERE ts_start >= $1 AND ts_start < $2",
                    lo,
                    hi,
                )
                assert tuple(got) == tuple(want), (table, lo, hi)
    finally:
        await conn.close()
    await rollups_match_records(dsn)


async def _gt(value, n: int) -> bool:
    return (await value) > n
