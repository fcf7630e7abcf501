"""Integration: a usage event that arrives after reconciliation settled its
reservation without a ledger row still lands on the counters, exactly once
(settle.lua's provisional merge rule; issue 10 "Counters that stay exact").
Real Valkey (db 11), Kafka and Postgres (quota + ledger migrations); the
event is delivered late and twice."""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import time
import uuid
from datetime import timedelta
from pathlib import Path

import httpx
import psycopg
import pytest
from aiohttp.test_utils import TestServer
from aiokafka import AIOKafkaProducer
from redis.asyncio import Redis

from tollway_admission import Admission
from tollway_admission.keys import settled_key
from tollway_contracts.events import UsageEvent, utcnow
from tollway_contracts.limits import Limit
from tollway_runtime.migrations import apply_migrations

pytestmark = pytest.mark.integration

VALKEY_URL = os.environ.get("TOLLWAY_TEST_VALKEY_URL", "redis://127.0.0.1:6379/11")
LEDGER_MIGRATIONS = Path(__file__).resolve().parents[3] / "ledger" / "src" / "tollway_ledger" / "migrations"


def _metric(text: str, name: str, outcome: str) -> float:
    m = re.search(rf'{name}\{{outcome="{outcome}"\}} ([0-9.e+]+)', text)
    return float(m.group(1)) if m else 0.0


async def _zero(_limit, _window) -> int:  # noqa: ANN001
    return 0


async def _wait(predicate, what: str, within: float = 20.0) -> None:  # noqa: ANN001
    deadline = time.monotonic() + within
    while not await predicate():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.2)


async def test_late_event_after_provisional_reconciliation_settles_once(
    quota_fresh_dsn, quota_topics
) -> None:  # noqa: ANN001
    from tollway_quota.app import create_app
    from tollway_quota.settings import QuotaSettings

    await asyncio.to_thread(apply_migrations, quota_fresh_dsn, LEDGER_MIGRATIONS)
    async with await psycopg.AsyncConnection.connect(quota_fresh_dsn, autocommit=True) as conn:
        await conn.execute("SELECT ledger.ensure_usage_partitions(1)")

    tenant = f"t-late-{secrets.token_hex(6)}"
    valkey = Redis.from_url(VALKEY_URL)
    edge = Admission(valkey, reservation_ttl=timedelta(seconds=1), seed_provider=_zero)
    limits = [
        Limit(
            scope="key",
            scope_id="k1",
            tokens_per_minute=1_000_000,
            max_concurrent=5,
            budget_micro_usd=10_000_000,
            budget_period="day",
        )
    ]
    late, racing = str(uuid.uuid4()), str(uuid.uuid4())
    admitted = {}
    for rid in (late, racing):
        a = await edge.admit(
            tenant_id=tenant, request_id=rid, limits=limits, tokens=4_000, cost_micro_usd=90_000
        )
        assert a.admitted, a
        admitted[rid] = a
    tpm_key = next(c.key for c in admitted[late].checks if c.kind == "tokens")
    conc_key = next(c.key for c in admitted[late].checks if c.kind == "concurrency")

    def completed(rid: str, tokens: int, cost: int) -> bytes:
        now = utcnow()
        return UsageEvent(
            type="completed",
            request_id=uuid.UUID(rid),
            tenant_id=tenant,
            key_id="k1",
            ts_start=now - timedelta(seconds=3),
            ts_end=now,
            model="gpt-4o-mini",
            prompt_tokens=100,
            completion_tokens=tokens - 100,
            total_tokens=tokens,
            cost_micro_usd=cost,
            reservation=admitted[rid].reservation_by_scope(),
        ).to_json()

    producer = AIOKafkaProducer(bootstrap_servers=quota_topics.bootstrap, acks="all")
    await producer.start()
    # `racing`: its event is on Kafka before quota starts, so the consumer and
    # the reconciler race for it (its reservation has expired and the ledger has
    # no row): whichever wins, its spend lands once.
    await asyncio.sleep(1.1)
    for _ in range(2):
        await producer.send_and_wait(quota_topics.usage, completed(racing, 700, 21_000), key=racing.encode())

    settings = QuotaSettings(
        postgres_dsn=quota_fresh_dsn,
        valkey_url=VALKEY_URL,
        admin_token="t-" + secrets.token_hex(8),
        key_pepper="pepper-late",
        invalidation_channel=f"test:quota:inv:{secrets.token_hex(4)}",
        kafka_bootstrap_servers=quota_topics.bootstrap,
        usage_topic=quota_topics.usage,
        dlq_topic=quota_topics.dlq,
        alerts_topic=quota_topics.alerts,
        consumer_group=quota_topics.group,
        reconcile_interval_seconds=0.2,
        reconcile_grace_seconds=0,
        log_format="json",
    )
    server = TestServer(create_app(settings), host="127.0.0.1", port=0)
    await server.start_server()
    try:
        async with httpx.AsyncClient(base_url=str(server.make_url("")).rstrip("/")) as c:

            async def reconciled_late() -> bool:
                text = (await c.get("/metrics")).text
                return _metric(text, "tollway_quota_reservations_reconciled_total", "without_ledger") >= 1

            # `late`: reconciled first, without a ledger row: provisionally zero.
            await _wait(reconciled_late, "the late call's reservation was never reconciled")
            await _wait(lambda: _finally_settled(valkey, tenant, racing), "the racing call was never settled")
            usage = await edge.budget_usage(tenant, limits[0])
            assert usage is not None and usage.reserved_micro_usd == 0
            assert await valkey.zcard(conc_key) == 0  # the slot was released at reconciliation

            # Then its usage event arrives, late, and is delivered twice.
            for _ in range(2):
                await producer.send_and_wait(
                    quota_topics.usage, completed(late, 1_500, 30_001), key=late.encode()
                )

            async def both_spent() -> bool:
                u = await edge.budget_usage(tenant, limits[0])
                return u is not None and u.spent_micro_usd >= 51_001

            await _wait(both_spent, "the late event never reached the counters")
            await asyncio.sleep(1.5)  # more sweeps and any redelivery: nothing lands twice
            assert (await c.get("/metrics")).status_code == 200
    finally:
        await server.close()
        await producer.stop()

    try:
        usage = await edge.budget_usage(tenant, limits[0])
        assert usage is not None
        assert (usage.spent_micro_usd, usage.reserved_micro_usd) == (30_001 + 21_000, 0)
        assert int(await valkey.get(tpm_key)) == 1_500 + 700
        assert await edge.list_expired(tenant) == []
        # Anyone settling again (the event a third time, or a reconciler) changes nothing.
        again = await edge.settle(tenant_id=tenant, request_id=late, tokens=1_500, cost_micro_usd=30_001)
        assert again.status == "already_settled"
        again = await edge.settle(
            tenant_id=tenant, request_id=late, tokens=0, cost_micro_usd=0, provisional=True
        )
        assert again.status == "already_settled"
        usage = await edge.budget_usage(tenant, limits[0])
        assert usage is not None and usage.spent_micro_usd == 51_001
    finally:
        keys = [k async for k in valkey.scan_iter(match=f"tw:{{{tenant}}}:*", count=1000)]
        if keys:
            await valkey.delete(*keys)
        await valkey.aclose()


async def _finally_settled(valkey: Redis, tenant: str, rid: str) -> bool:
    marker = await valkey.get(settled_key(tenant, rid))
    return marker is not None and not marker.endswith(b":p")
