"""BatchConsumer's metrics against the real Kafka, read from ``/metrics``'s
exposition after real batches: records per batch, write time, lag per partition."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRecord
from prometheus_client.parser import text_string_to_metric_families

from tollway_runtime.kafka import BatchConsumer
from tollway_runtime.metrics import collect

pytestmark = pytest.mark.integration

Records = list[ConsumerRecord[Any, Any]]


def _samples(consumer: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for family in text_string_to_metric_families(collect().decode()):
        for s in family.samples:
            if s.labels.get("consumer") == consumer:
                labels = tuple(sorted((k, v) for k, v in s.labels.items() if k != "consumer"))
                out[(s.name, labels)] = s.value
    return out


async def test_batch_size_write_time_and_lag_per_partition(
    kafka_bootstrap_servers: str, fresh_topic: Any
) -> None:
    servers = kafka_bootstrap_servers
    topic = await fresh_topic(partitions=2)
    producer = AIOKafkaProducer(bootstrap_servers=servers, acks="all")
    await producer.start()
    try:
        for i in range(5):
            await producer.send_and_wait(topic, str(i).encode(), partition=0)
        for i in range(3):
            await producer.send_and_wait(topic, str(i).encode(), partition=1)
    finally:
        await producer.stop()
    written: list[int] = []

    async def write(records: Records) -> None:
        await asyncio.sleep(0.05)
        written.append(len(records))

    name = f"metrics-test-{uuid.uuid4().hex[:8]}"
    loop = BatchConsumer(
        AIOKafkaConsumer(
            topic,
            bootstrap_servers=servers,
            group_id=f"tollway.test.{uuid.uuid4().hex[:8]}",
            enable_auto_commit=False,
            auto_offset_reset="earliest",
        ),
        name=name,
        prepare=lambda records: records,
        write=write,
        max_records=2,
        timeout_ms=100,
    )
    await loop.start()
    try:
        deadline = asyncio.get_running_loop().time() + 20
        while (
            sum(written) < 8
            or _samples(name).get(("tollway_consumer_lag_messages", (("partition", "0"), ("topic", topic))))
            != 0
        ):
            assert asyncio.get_running_loop().time() < deadline, (written, _samples(name))
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.3)  # one more fetch: lag of both partitions settled
    finally:
        await loop.stop(10)
    got = _samples(name)
    assert got[("tollway_consumer_batch_records_count", ())] == len(written)
    assert got[("tollway_consumer_batch_records_sum", ())] == 8
    assert all(n <= 2 for n in written)
    assert got[("tollway_consumer_batch_write_seconds_count", (("outcome", "committed"),))] == len(written)
    assert got[("tollway_consumer_batch_write_seconds_sum", (("outcome", "committed"),))] >= 0.05 * len(
        written
    )
    assert got[("tollway_consumer_lag_messages", (("partition", "0"), ("topic", topic)))] == 0
    assert got[("tollway_consumer_lag_messages", (("partition", "1"), ("topic", topic)))] == 0
