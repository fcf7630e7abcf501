"""Integration: the usage consumer's offsets, commits and dead letters on a real
Kafka broker. The settler here is the ``Settler`` interface's own test
implementation (the admission library is exercised in test_settlement.py)."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient

from tollway_contracts.dead_letter import DeadLetter
from tollway_contracts.events import ScopeReservation, UsageEvent
from tollway_quota.consumer import DlqLimit, UsageConsumer

pytestmark = pytest.mark.integration


@dataclass
class _Result:
    status: str


class GatedSettler:
    """Fails (like an unreachable Valkey) until ``open`` is set; remembers calls."""

    def __init__(self) -> None:
        self.open = asyncio.Event()
        self.attempts = 0
        self.settled: list[tuple[str, int, int]] = []

    async def settle(self, *, tenant_id: str, request_id: str, tokens: int, cost_micro_usd: int) -> _Result:
        self.attempts += 1
        if not self.open.is_set():
            raise ConnectionError("valkey down")
        self.settled.append((request_id, tokens, cost_micro_usd))
        return _Result("settled")


def _completed(request_id: uuid.UUID, cost: int = 7) -> UsageEvent:
    t0 = datetime(2026, 11, 29, 12, tzinfo=UTC)
    return UsageEvent(
        type="completed",
        request_id=request_id,
        tenant_id="tn_loop00000000",
        key_id="a" * 12,
        ts_start=t0,
        ts_end=t0 + timedelta(seconds=1),
        model="m",
        prompt_tokens=3,
        completion_tokens=4,
        total_tokens=7,
        cost_micro_usd=cost,
        reservation={"key:" + "a" * 12: ScopeReservation(tokens=100, cost_micro_usd=50)},
    )


async def _committed(topics, partitions: int = 2) -> dict[int, int]:  # noqa: ANN001
    admin = AIOKafkaAdminClient(bootstrap_servers=topics.bootstrap)
    await admin.start()
    try:
        offsets = await admin.list_consumer_group_offsets(topics.group)
    finally:
        await admin.close()
    return {tp.partition: meta.offset for tp, meta in offsets.items() if tp.topic == topics.usage}


async def _until(predicate, within: float = 30.0) -> None:  # noqa: ANN001
    deadline = asyncio.get_running_loop().time() + within
    while not await predicate():
        assert asyncio.get_running_loop().time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.2)


async def test_offsets_are_committed_only_after_settlement(quota_topics) -> None:  # noqa: ANN001
    producer = AIOKafkaProducer(bootstrap_servers=quota_topics.bootstrap, acks="all")
    await producer.start()
    settler = GatedSettler()
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
    rid = uuid.uuid4()
    event = _completed(rid)
    md = await producer.send_and_wait(quota_topics.usage, event.to_json(), key=event.kafka_key(), partition=0)
    await consumer.start()
    try:

        async def failing_a_while() -> bool:
            return settler.attempts >= 5

        await _until(failing_a_while)
        assert (await _committed(quota_topics)).get(0, -1) in (-1, None), "committed before settling"
        settler.open.set()

        async def committed() -> bool:
            return (await _committed(quota_topics)).get(0) == md.offset + 1

        await _until(committed)
        assert settler.settled == [(str(rid), 7, 7)]
        assert consumer.healthy()
    finally:
        await consumer.stop()
        await producer.stop()


async def test_poison_goes_to_the_dlq_and_too_many_stop_the_consumer(quota_topics) -> None:  # noqa: ANN001
    producer = AIOKafkaProducer(bootstrap_servers=quota_topics.bootstrap, acks="all")
    await producer.start()
    settler = GatedSettler()
    settler.open.set()
    consumer = UsageConsumer(
        bootstrap_servers=quota_topics.bootstrap,
        topic=quota_topics.usage,
        group_id=quota_topics.group,
        dlq_topic=quota_topics.dlq,
        settler=settler,
        producer=producer,
        dlq_limit=DlqLimit(2),
    )
    good = _completed(uuid.uuid4())
    sent = []
    for value in (
        b"not json",
        good.to_json(),
        b'{"schema_version": 1, "type": "completed"}',
        b"\xff\xfe",
        _completed(uuid.uuid4()).to_json(),
    ):
        sent.append(await producer.send_and_wait(quota_topics.usage, value, key=b"k", partition=1))
    await consumer.start()
    try:

        async def stopped() -> bool:
            return not consumer.healthy()

        await _until(stopped)
        assert type(consumer.failure).__name__ == "DlqLimitExceeded"
        # the third poison message (offset 3) is neither dead-lettered nor committed
        assert (await _committed(quota_topics)).get(1) == sent[3].offset
        assert [r for r, _, _ in settler.settled] == [str(good.request_id)]
    finally:
        await consumer.stop()
        await producer.stop()

    reader = AIOKafkaConsumer(
        quota_topics.dlq,
        bootstrap_servers=quota_topics.bootstrap,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        group_id=None,
    )
    await reader.start()
    try:
        letters: list[DeadLetter] = []
        deadline = asyncio.get_running_loop().time() + 15
        while len(letters) < 2 and asyncio.get_running_loop().time() < deadline:
            for records in (await reader.getmany(timeout_ms=500)).values():
                letters += [DeadLetter.model_validate_json(r.value) for r in records]
    finally:
        await reader.stop()
    assert sorted(x.offset for x in letters) == [sent[0].offset, sent[2].offset]
    assert {x.consumer_group for x in letters} == {quota_topics.group}
    assert {x.source_topic for x in letters} == {quota_topics.usage}
    assert all(x.partition == 1 and x.key == "k" and x.reason for x in letters)
    assert next(x for x in letters if x.offset == sent[0].offset).value == "not json"


async def test_a_settlement_batch_span_links_to_each_events_trace(quota_topics) -> None:  # noqa: ANN001
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.trace import SpanKind

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace_id, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    producer = AIOKafkaProducer(bootstrap_servers=quota_topics.bootstrap, acks="all")
    await producer.start()
    settler = GatedSettler()
    settler.open.set()
    consumer = UsageConsumer(
        bootstrap_servers=quota_topics.bootstrap,
        topic=quota_topics.usage,
        group_id=quota_topics.group,
        dlq_topic=quota_topics.dlq,
        settler=settler,
        producer=producer,
        tracer=provider.get_tracer("test"),
    )
    event = _completed(uuid.uuid4())
    await producer.send_and_wait(
        quota_topics.usage,
        event.to_json(),
        key=event.kafka_key(),
        headers=[("traceparent", f"00-{trace_id}-{parent}-01".encode())],
    )
    await consumer.start()
    try:

        async def settled() -> bool:
            return len(settler.settled) == 1

        await _until(settled)
    finally:
        await consumer.stop()
        await producer.stop()
        provider.shutdown()
    linked = [
        s
        for s in exporter.get_finished_spans()
        if s.name == f"process {quota_topics.usage}"
        and any(f"{link.context.trace_id:032x}" == trace_id for link in s.links)
    ]
    assert len(linked) == 1
    (span,) = linked
    assert span.kind == SpanKind.CONSUMER
    assert f"{span.links[0].context.span_id:016x}" == parent
    assert span.attributes["messaging.consumer.group.name"] == quota_topics.group
    assert f"{span.context.trace_id:032x}" != trace_id  # a batch is its own trace, linked to its messages'
