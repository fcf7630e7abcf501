"""The service fixtures against REAL Postgres, Valkey and Kafka (the stack infra/up.sh starts)."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient

from tollway_contracts.topics import ALL_TOPICS

pytestmark = pytest.mark.integration

_CREATED: set[str] = set()  # topics made by fresh_topic in earlier tests of this module


async def test_fresh_database_is_empty_and_dropped(postgres_dsn: str, fresh_database: str) -> None:
    assert fresh_database != postgres_dsn
    conn = await asyncpg.connect(fresh_database)
    try:
        await conn.execute("CREATE TABLE t (id int primary key)")
        assert await conn.fetchval("select count(*) from t") == 0
        name = await conn.fetchval("select current_database()")
    finally:
        await conn.close()
    assert name.startswith("tw_test_")
    # Another test's database is a different one.
    test_fresh_database_is_empty_and_dropped.seen.add(name)  # type: ignore[attr-defined]


test_fresh_database_is_empty_and_dropped.seen = set()  # type: ignore[attr-defined]


async def test_fresh_database_dropped_after_previous_test(postgres_dsn: str) -> None:
    conn = await asyncpg.connect(postgres_dsn)
    try:
        for name in test_fresh_database_is_empty_and_dropped.seen:  # type: ignore[attr-defined]
            assert await conn.fetchval("select 1 from pg_database where datname = $1", name) is None
    finally:
        await conn.close()


async def test_valkey_db_is_private_and_empty(valkey, valkey_test_url: str) -> None:
    assert not valkey_test_url.endswith("/0")
    assert await valkey.dbsize() == 0
    await valkey.set("k", "v")
    assert await valkey.get("k") == b"v"


async def test_valkey_db_is_leased_in_db0(valkey_url: str, valkey_test_url: str) -> None:
    # The lease that keeps concurrent pytest runs apart is a key in db 0 while the test runs.
    import redis.asyncio as aioredis

    db = int(valkey_test_url.rsplit("/", 1)[1])
    assert db in range(1, 16)
    control = aioredis.from_url(valkey_url)
    try:
        assert await control.exists(f"tollway:test:db-lease:{db}") == 1
        assert 0 < await control.ttl(f"tollway:test:db-lease:{db}") <= 900
    finally:
        await control.aclose()


async def test_stack_topics_exist(kafka_bootstrap_servers: str) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap_servers)
    await admin.start()
    try:
        topics = set(await admin.list_topics())
    finally:
        await admin.close()
    assert {t.name for t in ALL_TOPICS} <= topics


async def test_fresh_topic_roundtrip(kafka_bootstrap_servers: str, fresh_topic) -> None:
    topic = await fresh_topic(partitions=3)
    _CREATED.add(topic)
    assert topic.startswith("tollway.test.")
    producer = AIOKafkaProducer(
        bootstrap_servers=kafka_bootstrap_servers, enable_idempotence=True, acks="all"
    )
    await producer.start()
    try:
        keys = [str(uuid.uuid4()).encode() for _ in range(10)]
        for k in keys:
            await producer.send_and_wait(topic, key=k, value=b"v:" + k)
    finally:
        await producer.stop()
    consumer = AIOKafkaConsumer(
        topic,
        bootstrap_servers=kafka_bootstrap_servers,
        group_id=f"tollway-test-{uuid.uuid4().hex[:8]}",
        auto_offset_reset="earliest",
        enable_auto_commit=False,
    )
    await consumer.start()
    try:
        got: list[bytes] = []
        async with asyncio.timeout(30):
            while len(got) < len(keys):
                batch = await consumer.getmany(timeout_ms=1000)
                for records in batch.values():
                    got.extend(r.key for r in records)
        await consumer.commit()
        partitions = consumer.assignment()
    finally:
        await consumer.stop()
    assert sorted(got) == sorted(keys)
    assert len(partitions) == 3


async def test_fresh_topic_deleted_after(kafka_bootstrap_servers: str) -> None:
    assert _CREATED, "test_fresh_topic_roundtrip should have run first"
    admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap_servers)
    await admin.start()
    try:
        async with asyncio.timeout(15):  # deletion completes asynchronously on the broker
            while _CREATED & set(await admin.list_topics()):  # noqa: ASYNC110 - polls the broker; no local event to await
                await asyncio.sleep(0.2)
    finally:
        await admin.close()


async def test_latest_offset_new_group_reads_only_new(kafka_bootstrap_servers: str, fresh_topic) -> None:
    """The Tansu bug from PLATFORM-NOTES: a new 'latest' group must not re-read old messages."""
    topic = await fresh_topic(partitions=1)
    producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap_servers, enable_idempotence=True)
    await producer.start()
    try:
        await producer.send_and_wait(topic, b"old")
        consumer = AIOKafkaConsumer(
            topic,
            bootstrap_servers=kafka_bootstrap_servers,
            group_id=f"g-{uuid.uuid4().hex[:8]}",
            auto_offset_reset="latest",
        )
        await consumer.start()
        try:
            # wait until the consumer has its position at the end
            async with asyncio.timeout(30):
                while not consumer.assignment():
                    await consumer.getmany(timeout_ms=200)
            await consumer.seek_to_end()
            await producer.send_and_wait(topic, b"new")
            got: list[bytes] = []
            async with asyncio.timeout(30):
                while not got:
                    for records in (await consumer.getmany(timeout_ms=500)).values():
                        got.extend(r.value for r in records)
        finally:
            await consumer.stop()
    finally:
        await producer.stop()
    assert got == [b"new"]
