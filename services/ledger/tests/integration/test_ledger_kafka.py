"""The ledger end to end over real Kafka and Postgres: events in, rows and
rollups out, replays and reorderings change nothing, poison goes to the DLQ."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import aiohttp
import asyncpg
import msgspec
import orjson
import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from tollway_contracts.events import UsageEvent
from tollway_ledger.app import CONSUMER, METRICS
from tollway_ledger.handler import DlqLimitExceeded

from ..conftest import (
    KAFKA,
    ledger_settings,
    make_call,
    run_ledger,
    snapshot,
    wait_until,
)

pytestmark = pytest.mark.integration


async def produce(topic: str, items: list[UsageEvent | tuple[bytes | None, bytes]]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=KAFKA, acks="all")
    await producer.start()
    try:
        for item in items:
            if isinstance(item, UsageEvent):
                await producer.send_and_wait(topic, key=item.kafka_key(), value=item.to_json())
            else:
                await producer.send_and_wait(topic, key=item[0], value=item[1])
    finally:
        await producer.stop()


def events_seen(app) -> float:
    total = 0.0
    for metric in app[METRICS].registry.collect():
        if metric.name == "tollway_ledger_events":
            total += sum(s.value for s in metric.samples if s.name.endswith("_total"))
    return total


async def fetch(dsn: str, sql: str, *args):
    conn = await asyncpg.connect(dsn)
    try:
        return await conn.fetch(sql, *args)
    finally:
        await conn.close()


async def rollups_match_records(dsn: str) -> None:
    for table, unit in (
        ("usage_rollup_hourly", "hour"),
        ("usage_rollup_daily", "day"),
        ("usage_rollup_monthly", "month"),
    ):
        expected = await fetch(
            dsn,
            f"""
            SELECT date_trunc('{unit}', ts_start AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS b,
                   tenant_id, coalesce(team_id, '') AS team, key_id, model,
                   count(*) AS requests,
                   count(*) FILTER (WHERE status = 'failed' OR status_code >= 400) AS errors,
                   coalesce(sum(prompt_tokens), 0) AS p, coalesce(sum(completion_tokens), 0) AS c,
                   coalesce(sum(cached_tokens), 0) AS ca, coalesce(sum(reasoning_tokens), 0) AS r,
                   coalesce(sum(cost_micro_usd), 0) AS cost, count(latency_ms) AS with_latency
            FROM ledger.usage_records WHERE status IN ('completed', 'failed')
            GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5""",
        )
        actual = await fetch(
            dsn,
            f"""
            SELECT bucket_start, tenant_id, team_id, key_id, model, requests, errors,
                   prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, cost_micro_usd,
                   latency_le_50 + latency_le_100 + latency_le_250 + latency_le_500 + latency_le_1000
                   + latency_le_2500 + latency_le_5000 + latency_le_10000 + latency_le_30000
                   + latency_le_60000 + latency_le_inf
            FROM ledger.{table} ORDER BY 1, 2, 3, 4, 5""",
        )
        assert [tuple(r) for r in actual] == [tuple(r) for r in expected], table


async def test_calls_recorded_once_whatever_replays_and_order(ledger_fresh_dsn, ledger_topics) -> None:
    dsn = ledger_fresh_dsn
    calls = [make_call(i, team=None if i % 5 == 0 else "team-a", failed=i % 7 == 3) for i in range(24)]
    # Some calls deliver the terminal event before `started` (a spooled started).
    first = []
    for i, (started, terminal) in enumerate(calls):
        first += [terminal, started] if i % 4 == 1 else [started, terminal]
    async with run_ledger(ledger_settings(dsn, ledger_topics)) as (app, _):
        await produce(ledger_topics[0], first)
        await wait_until(lambda: _async(events_seen(app) >= len(first)))
        rows = await fetch(dsn, "SELECT * FROM ledger.usage_records ORDER BY ts_start")
        assert len(rows) == len(calls)
        by_id = {r["request_id"]: r for r in rows}
        for _, terminal in calls:
            row = by_id[terminal.request_id]
            assert row["status"] == terminal.type
            assert row["terminal_event_id"] == terminal.event_id
            for col in (
                "tenant_id",
                "team_id",
                "user_id",
                "key_id",
                "ts_start",
                "ts_end",
                "model",
                "provider",
                "upstream_model",
                "stream",
                "status_code",
                "error_type",
                "attempts",
                "prompt_tokens",
                "completion_tokens",
                "cached_tokens",
                "reasoning_tokens",
                "total_tokens",
                "cost_micro_usd",
                "latency_ms",
                "ttft_ms",
                "overhead_ms",
                "trace_id",
                "redaction_language_policy",
            ):
                assert row[col] == getattr(terminal, col), col
            if terminal.redaction is not None:
                assert orjson.loads(row["redaction"]) == msgspec.to_builtins(terminal.redaction)
        await rollups_match_records(dsn)
        before = await snapshot(dsn)

        # Exact redeliveries, every started again (after its terminal), and a
        # second, different terminal event for some calls: nothing changes.
        second_terminals = [
            msgspec.structs.replace(t, event_id=uuid.uuid4(), cost_micro_usd=999_999) for _, t in calls[:5]
        ]
        replay = [e for call in calls for e in call] + [s for s, _ in calls] + second_terminals
        seen = events_seen(app)
        await produce(ledger_topics[0], replay)
        await wait_until(lambda: _async(events_seen(app) >= seen + len(replay)))
        assert await snapshot(dsn) == before
        await rollups_match_records(dsn)


async def _async(value):
    return value


async def test_started_only_stays_in_flight_then_completes(ledger_fresh_dsn, ledger_topics) -> None:
    dsn = ledger_fresh_dsn
    started, completed = make_call(1)
    async with run_ledger(ledger_settings(dsn, ledger_topics)) as (app, _):
        await produce(ledger_topics[0], [started])
        await wait_until(lambda: _async(events_seen(app) >= 1))
        rows = await fetch(
            dsn, "SELECT status, started_event_id, terminal_event_id FROM ledger.usage_records"
        )
        assert [tuple(r) for r in rows] == [("in_flight", started.event_id, None)]
        assert await fetch(dsn, "SELECT * FROM ledger.usage_rollup_hourly") == []
        await produce(ledger_topics[0], [completed])
        await wait_until(lambda: _async(events_seen(app) >= 2))
        rows = await fetch(
            dsn, "SELECT status, started_event_id, terminal_event_id FROM ledger.usage_records"
        )
        assert [tuple(r) for r in rows] == [("completed", started.event_id, completed.event_id)]
        await rollups_match_records(dsn)


async def test_month_boundary_partitions(ledger_fresh_dsn, ledger_topics) -> None:
    dsn = ledger_fresh_dsn
    last = make_call(1, datetime(2026, 1, 31, 23, 59, 59, 999999, tzinfo=UTC))
    first = make_call(2, datetime(2026, 2, 1, 0, 0, 0, tzinfo=UTC))
    async with run_ledger(ledger_settings(dsn, ledger_topics)) as (app, _):
        await produce(ledger_topics[0], [*last, *first])
        await wait_until(lambda: _async(events_seen(app) >= 4))
        rows = await fetch(
            dsn, "SELECT request_id, tableoid::regclass::text AS part FROM ledger.usage_records"
        )
        parts = {r["request_id"]: r["part"] for r in rows}
        assert parts[last[0].request_id] == "ledger.usage_records_y2026m01"
        assert parts[first[0].request_id] == "ledger.usage_records_y2026m02"
        months = await fetch(dsn, "SELECT bucket_start FROM ledger.usage_rollup_monthly ORDER BY 1")
        assert [r[0] for r in months] == [datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC)]
        await rollups_match_records(dsn)


async def test_partitions_ahead_created_at_start(ledger_fresh_dsn, ledger_topics) -> None:
    dsn = ledger_fresh_dsn
    async with run_ledger(ledger_settings(dsn, ledger_topics)):
        rows = await fetch(
            dsn,
            """SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
               WHERE i.inhparent = 'ledger.usage_records'::regclass ORDER BY 1""",
        )
    now = datetime.now(UTC)
    expected = []
    y, m = now.year, now.month
    for _ in range(3):
        expected.append(f"usage_records_y{y:04d}m{m:02d}")
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    assert [r[0] for r in rows] == expected


async def test_poison_goes_to_dlq_and_consumer_goes_on(ledger_fresh_dsn, ledger_topics) -> None:
    dsn = ledger_fresh_dsn
    usage, dlq = ledger_topics
    good = make_call(1)
    bad_json = (b"k-bad", b"{not json")
    invalid = (b"k-invalid", orjson.dumps({"type": "completed", "request_id": str(uuid.uuid4())}))
    settings = ledger_settings(dsn, ledger_topics)
    async with run_ledger(settings) as (app, port):
        await produce(usage, [bad_json, invalid, *good])
        await wait_until(lambda: _async(events_seen(app) >= 4))
        rows = await fetch(dsn, "SELECT status FROM ledger.usage_records")
        assert [r[0] for r in rows] == ["completed"]
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{port}/readyz") as resp:
                assert resp.status == 200
            async with http.get(f"http://127.0.0.1:{port}/metrics") as resp:
                text = await resp.text()
                assert 'tollway_ledger_events_total{outcome="dead_lettered",type="unknown"}' in text
                assert "tollway_ledger_batch_seconds" in text
                assert 'tollway_consumer_batch_records_count{consumer="ledger-consumer"}' in text
        # The metrics are process-global: this app's counts are the increase since it was built.
        dead = {"outcome": "dead_lettered", "type": "unknown"}
        assert app[METRICS].registry.get_sample_value("tollway_ledger_events_total", dead) == 2
        assert app[CONSUMER].task is not None and not app[CONSUMER].task.done()

    reader = AIOKafkaConsumer(
        dlq,
        bootstrap_servers=KAFKA,
        auto_offset_reset="earliest",
        group_id=f"test-dlq-{uuid.uuid4().hex[:8]}",
    )
    await reader.start()
    try:
        letters = []
        while len(letters) < 2:
            batch = await reader.getmany(timeout_ms=10_000)
            assert batch, "dead letters not found on the DLQ topic"
            letters += [orjson.loads(r.value) for recs in batch.values() for r in recs]
    finally:
        await reader.stop()
    by_key = {d["key"]: d for d in letters}
    assert by_key["k-bad"]["value"] == "{not json" and "invalid usage event" in by_key["k-bad"]["reason"]
    assert "tenant_id" in by_key["k-invalid"]["reason"]
    assert by_key["k-bad"]["source_topic"] == usage
    assert by_key["k-bad"]["consumer_group"] == settings.consumer_group


async def test_dlq_rate_limit_stops_the_consumer(ledger_fresh_dsn, ledger_topics) -> None:
    settings = ledger_settings(ledger_fresh_dsn, ledger_topics, dlq_max_per_window=2)
    async with run_ledger(settings) as (app, _):
        await produce(ledger_topics[0], [(None, b"garbage-%d" % i) for i in range(5)])
        task = app[CONSUMER].task
        await wait_until(lambda: _async(task.done()))
        assert isinstance(task.exception(), DlqLimitExceeded)


async def test_postgres_error_is_retried_never_skipped(ledger_fresh_dsn, ledger_topics) -> None:
    dsn = ledger_fresh_dsn
    settings = ledger_settings(dsn, ledger_topics, db_retry_initial_seconds=0.05, db_retry_max_seconds=0.2)
    call = make_call(1)
    async with run_ledger(settings) as (app, _):
        # Make every batch transaction fail (the rollup write is refused).
        conn = await asyncpg.connect(dsn)
        try:
            await conn.execute("REVOKE INSERT ON ledger.usage_rollup_daily FROM CURRENT_USER")
            await produce(ledger_topics[0], list(call))

            async def retried() -> bool:
                return (app[METRICS].registry.get_sample_value("tollway_ledger_db_retries_total") or 0) >= 2

            await wait_until(retried)
            # The failing transaction rolled back as a whole: the call is still
            # in flight (its `started` may have been applied in an earlier batch)
            # and counted nowhere.
            rows = await conn.fetch("SELECT status FROM ledger.usage_records")
            assert [r[0] for r in rows] in ([], ["in_flight"])
            assert await conn.fetch("SELECT 1 FROM ledger.usage_rollup_hourly") == []
            await conn.execute("GRANT INSERT ON ledger.usage_rollup_daily TO CURRENT_USER")
        finally:
            await conn.close()
        await wait_until(lambda: _async(events_seen(app) >= 2))
        rows = await fetch(dsn, "SELECT status FROM ledger.usage_records")
        assert [r[0] for r in rows] == ["completed"]
        await rollups_match_records(dsn)
