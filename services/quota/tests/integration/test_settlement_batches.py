"""Integration: the consumer's batch path with the real admission library —
real Kafka, Valkey (db 11) and the settle script through ``settle_many``.

- A whole batch delivered twice (a crash after the effects, before the
  commit) settles each reservation once and alerts once.
- When the batch's Valkey step fails (even half-way through the pipeline),
  no offset of the batch is committed; once Valkey answers, every
  reservation is settled exactly once and the offsets are committed.
"""

from __future__ import annotations

import asyncio
import secrets
import uuid
from datetime import timedelta

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from tollway_admission import Admission
from tollway_contracts.alerts import parse_alert
from tollway_contracts.events import UsageEvent, utcnow
from tollway_contracts.limits import Limit
from tollway_quota.alerting import AdmissionBudgetReader, AlertEmitter, SettlementAlerts
from tollway_quota.consumer import UsageConsumer

pytestmark = pytest.mark.integration

VALKEY_URL = "redis://127.0.0.1:6379/11"
KEY_ID = "kb" + "0" * 10


async def _zero(_limit, _window) -> int:  # noqa: ANN001
    return 0


async def _committed(bootstrap: str, group: str, topic: str) -> dict[int, int]:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        offsets = await admin.list_consumer_group_offsets(group)
    finally:
        await admin.close()
    return {tp.partition: meta.offset for tp, meta in offsets.items() if tp.topic == topic}


async def _until(predicate, within: float = 30.0) -> None:  # noqa: ANN001
    deadline = asyncio.get_running_loop().time() + within
    while not await predicate():
        assert asyncio.get_running_loop().time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.1)


async def _snapshot(r: Redis, tenant: str) -> dict:
    out = {}
    async for k in r.scan_iter(match=f"tw:{{{tenant}}}:*", count=1000):
        t = await r.type(k)
        out[k] = (
            await r.hgetall(k)
            if t == b"hash"
            else await r.zrange(k, 0, -1)
            if t == b"zset"
            else await r.get(k)
        )
    return out


@pytest.fixture
async def batch_world():  # noqa: ANN201
    """A unique tenant on Valkey db 11 (its keys and alert markers deleted
    after), a started producer and the admission library."""
    tenant = f"tn_b{secrets.token_hex(5)}"
    valkey = Redis.from_url(VALKEY_URL)
    producer = AIOKafkaProducer(bootstrap_servers="127.0.0.1:9092", acks="all")
    await producer.start()
    try:
        yield tenant, valkey, producer, Admission(valkey)
    finally:
        await producer.stop()
        for pattern in (f"tw:{{{tenant}}}:*", f"tw:alert:{{{tenant}}}:*"):
            keys = [k async for k in valkey.scan_iter(match=pattern, count=1000)]
            if keys:
                await valkey.delete(*keys)
        await valkey.aclose()


async def _reserve_and_produce(
    adm: Admission,
    producer: AIOKafkaProducer,
    topic: str,
    tenant: str,
    limits: list[Limit],
    n: int,
    cost: int,
) -> list[int]:
    """``n`` calls reserved (100 micro-USD each) and their started + completed
    events on partition 0; returns the completed events' costs."""
    costs = []
    t0 = utcnow() - timedelta(seconds=2)
    for _ in range(n):
        rid = uuid.uuid4()
        res = await adm.admit(
            tenant_id=tenant,
            request_id=str(rid),
            limits=limits,
            model="m",
            tokens=50,
            cost_micro_usd=100,
            seed_provider=_zero,
        )
        assert res.admitted
        common = dict(
            request_id=rid,
            tenant_id=tenant,
            key_id=KEY_ID,
            ts_start=t0,
            model="m",
            reservation=res.reservation_by_scope(),
        )
        for ev in (
            UsageEvent(type="started", **common),
            UsageEvent(
                type="completed",
                ts_end=t0 + timedelta(seconds=1),
                prompt_tokens=10,
                completion_tokens=20,
                total_tokens=30,
                cost_micro_usd=cost,
                **common,
            ),
        ):
            await producer.send_and_wait(topic, ev.to_json(), key=ev.kafka_key(), partition=0)
        costs.append(cost)
    return costs


async def test_a_whole_batch_delivered_twice_settles_and_alerts_once(quota_topics, batch_world) -> None:  # noqa: ANN001
    tenant, valkey, producer, adm = batch_world
    limit = Limit(
        scope="key", scope_id=KEY_ID, budget_micro_usd=1_500, budget_period="day", thresholds_percent=[50]
    )
    await _reserve_and_produce(
        adm, producer, quota_topics.usage, tenant, [limit], 10, 80
    )  # 800 of 1,500: 53 %

    async def limits_of(key_id: str):  # noqa: ANN202 - the catalog's answer for this key
        return (tenant, [limit.to_json_dict()]) if key_id == KEY_ID else None

    async def limits_of_many(key_ids):  # noqa: ANN001, ANN202
        return {k: v for k in key_ids if (v := await limits_of(k)) is not None}

    async def no_webhook(_tenant: str) -> None:
        return None

    async def run(group: str) -> UsageConsumer:
        # a new emitter each time: its in-process memory of markers is lost, as in a restart
        emitter = AlertEmitter(valkey, producer, quota_topics.alerts, no_webhook, None)
        consumer = UsageConsumer(
            bootstrap_servers=quota_topics.bootstrap,
            topic=quota_topics.usage,
            group_id=group,
            dlq_topic=quota_topics.dlq,
            settler=adm,
            producer=producer,
            after_settle=SettlementAlerts(
                limits_of, AdmissionBudgetReader(adm), emitter, limits_of_many=limits_of_many
            ),
        )
        await consumer.start()
        try:

            async def all_committed() -> bool:
                return (await _committed(quota_topics.bootstrap, group, quota_topics.usage)).get(0) == 20

            await _until(all_committed)
        finally:
            await consumer.stop()
        return consumer

    first = await run(quota_topics.group)
    assert first.settled == 10
    once = await _snapshot(valkey, tenant)
    usage = await adm.budget_usage(tenant, limit)
    assert usage is not None and (usage.spent_micro_usd, usage.reserved_micro_usd) == (800, 0)

    # The same batch again from offset 0 (as after a crash before the commit).
    second = await run(quota_topics.group + "-again")
    assert second.settled == 0
    assert await _snapshot(valkey, tenant) == once

    reader = AIOKafkaConsumer(
        quota_topics.alerts,
        bootstrap_servers=quota_topics.bootstrap,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        group_id=None,
    )
    await reader.start()
    try:
        alerts = []
        for _ in range(6):
            for records in (await reader.getmany(timeout_ms=500)).values():
                alerts += [parse_alert(r.value) for r in records]
    finally:
        await reader.stop()
    assert [(a.scope_id, a.threshold_percent, a.used) for a in alerts] == [(KEY_ID, 50, 800)]


class FailingValkeyStep:
    """The admission library whose batch step fails like a Valkey connection
    lost mid-pipeline: the first half of the batch is settled for real, then
    the error — until ``open`` is set."""

    def __init__(self, adm: Admission) -> None:
        self.adm = adm
        self.open = asyncio.Event()
        self.failures = 0

    async def settle(self, **kw):  # noqa: ANN003, ANN201 - the Settler interface
        return await self.adm.settle(**kw)

    async def settle_many(self, items):  # noqa: ANN001, ANN201
        if not self.open.is_set():
            await self.adm.settle_many(items[: len(items) // 2])
            self.failures += 1
            raise RedisConnectionError("connection lost mid-pipeline")
        return await self.adm.settle_many(items)


async def test_offsets_wait_for_the_batch_valkey_step(quota_topics, batch_world) -> None:  # noqa: ANN001
    tenant, valkey, producer, adm = batch_world
    limit = Limit(scope="key", scope_id=KEY_ID, budget_micro_usd=10_000, budget_period="day")
    await _reserve_and_produce(adm, producer, quota_topics.usage, tenant, [limit], 10, 70)
    settler = FailingValkeyStep(adm)
    consumer = UsageConsumer(
        bootstrap_servers=quota_topics.bootstrap,
        topic=quota_topics.usage,
        group_id=quota_topics.group,
        dlq_topic=quota_topics.dlq,
        settler=settler,
        producer=producer,
        retry_initial_seconds=0.05,
        retry_max_seconds=0.2,
    )
    await consumer.start()
    try:

        async def failed_a_few_times() -> bool:
            return settler.failures >= 3

        await _until(failed_a_few_times)
        assert await _committed(quota_topics.bootstrap, quota_topics.group, quota_topics.usage) == {}
        half = await adm.budget_usage(tenant, limit)
        assert half is not None and half.spent_micro_usd < 700  # the batch is not done

        settler.open.set()

        async def all_committed() -> bool:
            return (await _committed(quota_topics.bootstrap, quota_topics.group, quota_topics.usage)).get(
                0
            ) == 20

        await _until(all_committed)
    finally:
        await consumer.stop()
    usage = await adm.budget_usage(tenant, limit)
    assert usage is not None and (usage.spent_micro_usd, usage.reserved_micro_usd) == (
        700,
        0,
    )  # each settled once
    assert [k async for k in valkey.scan_iter(match=f"tw:{{{tenant}}}:res:*")] == []
