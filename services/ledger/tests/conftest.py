"""Fixtures for the ledger tests: a fresh database per test, unique Kafka topics
and consumer groups per test, and a running ledger app. Real Postgres and
Kafka on 127.0.0.1 only; no fakes."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest
from aiohttp import web

from tollway_contracts.events import RedactionSummary, ScopeReservation, UsageEvent

BASE_DSN = "postgresql://tollway:tollway@127.0.0.1:5432/tollway"
KAFKA = "127.0.0.1:9092"


def _with_db(dsn: str, db: str) -> str:
    parts = urlsplit(dsn)
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", parts.query, parts.fragment))


@pytest.fixture
async def ledger_fresh_dsn() -> AsyncIterator[str]:
    """A DSN to a brand-new database, dropped after the test."""
    name = f"ledger_test_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(BASE_DSN)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    yield _with_db(BASE_DSN, name)
    admin = await asyncpg.connect(BASE_DSN)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


@pytest.fixture
async def ledger_topics() -> AsyncIterator[tuple[str, str]]:
    """A unique usage topic and DLQ topic (3 partitions each), deleted after."""
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    suffix = uuid.uuid4().hex[:10]
    usage, dlq = f"test.ledger.usage.{suffix}", f"test.ledger.dlq.{suffix}"
    admin = AIOKafkaAdminClient(bootstrap_servers=KAFKA)
    await admin.start()
    try:
        await admin.create_topics(
            [
                NewTopic(usage, num_partitions=3, replication_factor=1),
                NewTopic(dlq, num_partitions=1, replication_factor=1),
            ]
        )
        yield usage, dlq
    finally:
        with contextlib.suppress(Exception):
            await admin.delete_topics([usage, dlq])
        await admin.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.asynccontextmanager
async def run_ledger(settings) -> AsyncIterator[tuple[web.Application, int]]:
    """Start the ledger app built by ``create_app`` with a health site on a free port."""
    from tollway_ledger.app import create_app

    app = create_app(settings)
    runner = web.AppRunner(app, handle_signals=False)
    await runner.setup()
    port = _free_port()
    site = web.TCPSite(runner, "127.0.0.1", port)
    await site.start()
    try:
        yield app, port
    finally:
        await runner.cleanup()


def ledger_settings(dsn: str, topics: tuple[str, str], **overrides):
    from tollway_ledger.settings import LedgerSettings

    return LedgerSettings(
        postgres_dsn=dsn,
        kafka_bootstrap_servers=KAFKA,
        topic=topics[0],
        dlq_topic=topics[1],
        consumer_group=f"test-ledger-{uuid.uuid4().hex[:10]}",
        batch_timeout_ms=100,
        shutdown_timeout_seconds=10,
        **overrides,
    )


def make_call(
    i: int,
    ts_start: datetime | None = None,
    *,
    tenant: str = "t1",
    team: str | None = "team-a",
    key: str = "k1",
    model: str = "gpt-4o-mini",
    failed: bool = False,
) -> tuple[UsageEvent, UsageEvent]:
    """A call's ``started`` and terminal events (deterministic values from ``i``)."""
    ts_start = ts_start or datetime(2026, 11, 29, 12, 0, tzinfo=UTC) + timedelta(seconds=i)
    rid = uuid.uuid4()
    common = dict(
        request_id=rid,
        tenant_id=tenant,
        team_id=team,
        user_id=f"u{i % 3}",
        key_id=key,
        ts_start=ts_start,
        model=model,
        provider="openai",
        upstream_model=model,
        stream=bool(i % 2),
        trace_id=f"trace-{i}",
        redaction_language_policy=(None, "supported", "patterns_only", "pass", "block")[i % 5],
    )
    started = UsageEvent(
        type="started", reservation={"key": ScopeReservation(tokens=100, cost_micro_usd=50)}, **common
    )
    if failed:
        terminal = UsageEvent(
            type="failed",
            ts_end=ts_start + timedelta(milliseconds=30),
            status_code=502,
            error_type="upstream_error",
            attempts=2,
            latency_ms=30.0,
            overhead_ms=1.5,
            **common,
        )
    else:
        terminal = UsageEvent(
            type="completed",
            ts_end=ts_start + timedelta(milliseconds=40 * i + 10),
            status_code=200,
            attempts=1,
            prompt_tokens=10 + i,
            completion_tokens=5 + i,
            cached_tokens=i % 4,
            reasoning_tokens=i % 2,
            total_tokens=15 + 2 * i,
            cost_micro_usd=100 + 7 * i,
            latency_ms=40.0 * i + 10,
            ttft_ms=5.0,
            overhead_ms=1.0,
            redaction=RedactionSummary(
                mode="redact",
                entities={"PERSON": 1},
                cache_hit=False,
                cached_texts=0,
                total_texts=1,
                duration_ms=2.0,
            ),
            **common,
        )
    return started, terminal


async def wait_until(predicate, within: float = 30.0, interval: float = 0.1) -> None:
    """Poll an async predicate until true; fail the test after ``within`` seconds."""
    deadline = asyncio.get_running_loop().time() + within
    while True:
        if await predicate():
            return
        if asyncio.get_running_loop().time() > deadline:
            pytest.fail(f"condition not met within {within} s")
        await asyncio.sleep(interval)


async def snapshot(dsn: str) -> dict[str, list]:
    """Full contents of usage_records and the three rollups, sorted."""
    conn = await asyncpg.connect(dsn)
    try:
        out = {}
        for table, order in (
            ("usage_records", "ts_start, request_id"),
            ("usage_rollup_hourly", "1,2,3,4,5"),
            ("usage_rollup_daily", "1,2,3,4,5"),
            ("usage_rollup_monthly", "1,2,3,4,5"),
        ):
            out[table] = [
                tuple(r) for r in await conn.fetch(f"SELECT * FROM ledger.{table} ORDER BY {order}")
            ]
        return out
    finally:
        await conn.close()


def ledger_env(dsn: str, topics: tuple[str, str], group: str, **extra: str) -> dict[str, str]:
    """Environment for ``python -m tollway_ledger`` on the given database, topics and group."""
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("TOLLWAY_")}
    env.update(
        TOLLWAY_POSTGRES_DSN=dsn,
        TOLLWAY_KAFKA_BOOTSTRAP_SERVERS=KAFKA,
        TOLLWAY_LEDGER_TOPIC=topics[0],
        TOLLWAY_LEDGER_DLQ_TOPIC=topics[1],
        TOLLWAY_LEDGER_CONSUMER_GROUP=group,
        TOLLWAY_LEDGER_HEALTH_PORT=str(_free_port()),
        TOLLWAY_LEDGER_BATCH_TIMEOUT_MS="100",
        TOLLWAY_LOG_FORMAT="json",
        **extra,
    )
    return env


async def group_caught_up(topic: str, group: str, partitions: int = 3) -> bool:
    """True when ``group`` has committed the end offset of each of the
    ``partitions`` partitions of ``topic`` (3: see :func:`ledger_topics`)."""
    from aiokafka import AIOKafkaConsumer, TopicPartition
    from aiokafka.admin import AIOKafkaAdminClient

    probe = AIOKafkaConsumer(bootstrap_servers=KAFKA)
    admin = AIOKafkaAdminClient(bootstrap_servers=KAFKA)
    await probe.start()
    await admin.start()
    try:
        tps = [TopicPartition(topic, p) for p in range(partitions)]
        ends = await probe.end_offsets(tps)
        committed = await admin.list_consumer_group_offsets(group, partitions=tps)
        return all(committed.get(tp) is not None and committed[tp].offset >= ends[tp] for tp in tps)
    finally:
        await probe.stop()
        await admin.close()
