"""BatchConsumer against the real Kafka: offsets are committed only after the
batch's effect, partially on StopAfterCommit, never on a refused batch; a
graceful stop finishes and commits the batch in hand, then leaves the group."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRecord, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient

from tollway_runtime.kafka import BatchConsumer, StopAfterCommit

pytestmark = pytest.mark.integration

Records = list[ConsumerRecord[Any, Any]]


async def _produce(servers: str, topic: str, n: int) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=servers, acks="all")
    await producer.start()
    try:
        for i in range(n):
            await producer.send_and_wait(topic, str(i).encode(), partition=0)
    finally:
        await producer.stop()


async def _committed(servers: str, group: str, topic: str) -> int | None:
    admin = AIOKafkaAdminClient(bootstrap_servers=servers)
    await admin.start()
    try:
        offsets = await admin.list_consumer_group_offsets(group)
    finally:
        await admin.close()
    meta = offsets.get(TopicPartition(topic, 0))
    return None if meta is None or meta.offset < 0 else meta.offset


def _kafka_consumer(servers: str, topic: str, group: str) -> AIOKafkaConsumer:
    return AIOKafkaConsumer(
        topic,
        bootstrap_servers=servers,
        group_id=group,
        enable_auto_commit=False,
        auto_offset_reset="earliest",
    )


async def _ended(loop: BatchConsumer[Any]) -> None:
    assert loop.task is not None
    await asyncio.wait({loop.task}, timeout=20)
    assert loop.task.done(), "the loop did not stop in time"


async def test_commit_after_the_effect_and_graceful_stop(
    kafka_bootstrap_servers: str, fresh_topic: Any
) -> None:
    servers = kafka_bootstrap_servers
    topic = await fresh_topic(partitions=1)
    group = f"tollway.test.{uuid.uuid4().hex[:8]}"
    await _produce(servers, topic, 5)
    gate = asyncio.Event()
    written: list[bytes] = []
    entered = asyncio.Event()

    async def write(records: Records) -> None:
        entered.set()
        await gate.wait()
        written.extend(r.value for r in records)

    loop = BatchConsumer(
        _kafka_consumer(servers, topic, group),
        name="test",
        prepare=lambda records: records,
        write=write,
        max_records=100,
        timeout_ms=200,
    )
    await loop.start()
    try:
        await asyncio.wait_for(entered.wait(), 20)
        await asyncio.sleep(0.5)
        assert await _committed(servers, group, topic) is None, "committed before the effect"
        assert loop.ready()
        # A graceful stop while the write waits: the batch finishes, then commits.
        stopping = asyncio.create_task(loop.stop(timeout_seconds=20))
        await asyncio.sleep(0.3)
        gate.set()
        await stopping
    finally:
        gate.set()
        await loop.stop(1)
    assert written == [str(i).encode() for i in range(5)]
    assert await _committed(servers, group, topic) == 5
    assert loop.failure is None and not loop.healthy()


async def test_partial_commit_then_stop_and_a_refused_batch_is_not_committed(
    kafka_bootstrap_servers: str, fresh_topic: Any
) -> None:
    servers = kafka_bootstrap_servers
    topic = await fresh_topic(partitions=1)
    group = f"tollway.test.{uuid.uuid4().hex[:8]}"
    await _produce(servers, topic, 4)

    class Refused(Exception):
        pass

    async def write(records: Records) -> None:
        # The first two records are done; the third stops the consumer.
        raise StopAfterCommit({TopicPartition(topic, 0): records[0].offset + 2}, Refused("limit"))

    loop = BatchConsumer(
        _kafka_consumer(servers, topic, group),
        name="test",
        prepare=lambda records: records,
        write=write,
        max_records=100,
        timeout_ms=200,
    )
    await loop.start()
    try:
        await _ended(loop)
    finally:
        await loop.stop(5)
    assert isinstance(loop.failure, Refused)
    assert await _committed(servers, group, topic) == 2

    # prepare refuses: nothing of that batch is committed, the loop fails.
    def prepare(records: Records) -> Records:
        raise Refused("poison")

    async def never(records: Records) -> None:
        raise AssertionError("a refused batch is never written")

    again = BatchConsumer(
        _kafka_consumer(servers, topic, group),
        name="test",
        prepare=prepare,
        write=never,
        max_records=100,
        timeout_ms=200,
    )
    await again.start()
    try:
        await _ended(again)
    finally:
        await again.stop(5)
    assert isinstance(again.failure, Refused)
    assert await _committed(servers, group, topic) == 2


async def test_batch_log_context_counts_trace_links(kafka_bootstrap_servers: str, fresh_topic: Any) -> None:
    """The canonical batch line's context: ``trace_links`` counts every record with a
    valid ``traceparent`` header (each a link of the batch span), ``linked_trace_ids``
    names at most 20 distinct traces; records without one (or a malformed one) are not counted."""
    import structlog

    servers = kafka_bootstrap_servers
    topic = await fresh_topic(partitions=1)
    group = f"tollway.test.{uuid.uuid4().hex[:8]}"
    trace_ids = [f"{i + 1:032x}" for i in range(22)]
    producer = AIOKafkaProducer(bootstrap_servers=servers, acks="all")
    await producer.start()
    try:
        for i, tid in enumerate([*trace_ids, trace_ids[0]]):  # 23 records, 22 distinct traces
            header = f"00-{tid}-{i + 1:016x}-01".encode()
            await producer.send_and_wait(topic, b"x", partition=0, headers=[("traceparent", header)])
        await producer.send_and_wait(topic, b"no-header", partition=0)
        await producer.send_and_wait(topic, b"bad", partition=0, headers=[("traceparent", b"garbage")])
    finally:
        await producer.stop()
    seen: list[dict[str, Any]] = []
    total: list[int] = []

    async def write(records: Records) -> None:
        seen.append(dict(structlog.contextvars.get_contextvars()))
        total.append(len(records))

    loop = BatchConsumer(
        _kafka_consumer(servers, topic, group),
        name="test",
        prepare=lambda records: records,
        write=write,
        max_records=100,
        timeout_ms=200,
    )
    await loop.start()
    try:
        for _ in range(100):
            if sum(total) >= 25:
                break
            await asyncio.sleep(0.1)
    finally:
        await loop.stop(5)
    assert sum(total) == 25
    assert sum(ctx["trace_links"] for ctx in seen) == 23
    linked = [t for ctx in seen for t in ctx["linked_trace_ids"]]
    assert all(len(ctx["linked_trace_ids"]) <= 20 for ctx in seen)
    assert set(linked) <= set(trace_ids)
    if len(seen) == 1:  # one fetch: the first 20 distinct, in record order
        assert linked == trace_ids[:20]
