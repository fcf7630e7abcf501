"""Integration: the settlement consumer's metrics, read from ``/metrics``'s
exposition (``tollway_runtime.metrics.collect``) after real batches on a real
Kafka broker: settlement outcomes and the shared consume loop's batch metrics."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
from aiokafka import AIOKafkaProducer
from prometheus_client.parser import text_string_to_metric_families

from tollway_contracts.events import ScopeReservation, UsageEvent
from tollway_quota.consumer import UsageConsumer
from tollway_runtime.metrics import collect

pytestmark = pytest.mark.integration


def _values() -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for family in text_string_to_metric_families(collect().decode()):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


@dataclass
class _Result:
    status: str


def _completed(request_id: uuid.UUID) -> UsageEvent:
    t0 = datetime(2026, 11, 29, 12, tzinfo=UTC)
    return UsageEvent(
        type="completed",
        request_id=request_id,
        tenant_id="tn_metrics000000",
        key_id="b" * 12,
        ts_start=t0,
        ts_end=t0 + timedelta(seconds=1),
        model="m",
        prompt_tokens=3,
        completion_tokens=4,
        total_tokens=7,
        cost_micro_usd=7,
        reservation={"key:" + "b" * 12: ScopeReservation(tokens=100, cost_micro_usd=50)},
    )


class RepeatingSettler:
    """Settles each request id once; a second settle of it is ``already_settled``."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    async def settle(self, *, tenant_id: str, request_id: str, tokens: int, cost_micro_usd: int) -> _Result:
        if request_id in self.seen:
            return _Result("already_settled")
        self.seen.add(request_id)
        return _Result("settled")


async def test_settlement_outcomes_and_batch_metrics(quota_topics) -> None:  # noqa: ANN001
    outcome = "tollway_quota_settlements_total"
    keys = {
        "settled": (outcome, (("outcome", "settled"),)),
        "already": (outcome, (("outcome", "already_settled"),)),
        "dead": (outcome, (("outcome", "dead_lettered"),)),
        "records": ("tollway_consumer_batch_records_sum", (("consumer", "usage-consumer"),)),
        "writes": (
            "tollway_consumer_batch_write_seconds_count",
            (("consumer", "usage-consumer"), ("outcome", "committed")),
        ),
    }
    before = _values()  # the metrics are process-global: count from here
    producer = AIOKafkaProducer(bootstrap_servers=quota_topics.bootstrap, acks="all")
    await producer.start()
    consumer = UsageConsumer(
        bootstrap_servers=quota_topics.bootstrap,
        topic=quota_topics.usage,
        group_id=quota_topics.group,
        dlq_topic=quota_topics.dlq,
        settler=RepeatingSettler(),
        producer=producer,
        retry_initial_seconds=0.05,
        retry_max_seconds=0.2,
    )
    first, second = _completed(uuid.uuid4()), _completed(uuid.uuid4())
    for event in (first, second, first):  # the third is a redelivery of the first
        await producer.send_and_wait(quota_topics.usage, event.to_json(), key=event.kafka_key(), partition=0)
    await producer.send_and_wait(quota_topics.usage, b"{not json", key=b"poison", partition=0)
    await consumer.start()
    try:
        deadline = asyncio.get_running_loop().time() + 30
        while True:
            now = _values()
            got = {k: now.get(v, 0.0) - before.get(v, 0.0) for k, v in keys.items()}
            if got["records"] >= 4 and got["dead"] >= 1:
                break
            assert asyncio.get_running_loop().time() < deadline, got
            await asyncio.sleep(0.2)
    finally:
        await consumer.stop()
        await producer.stop()
    assert got["settled"] == 2 and got["already"] == 1 and got["dead"] == 1
    assert got["records"] == 4 and got["writes"] >= 1
    lag = now[
        (
            "tollway_consumer_lag_messages",
            (("consumer", "usage-consumer"), ("partition", "0"), ("topic", quota_topics.usage)),
        )
    ]
    assert lag == 0


async def test_one_canonical_usage_batch_line_per_batch(quota_topics) -> None:  # noqa: ANN001
    """``usage_batch``: size, partitions with their next offsets, duration, and the
    shared consumer's trace fields (``trace_links``: records with a ``traceparent``)."""
    import structlog
    from structlog.contextvars import merge_contextvars

    producer = AIOKafkaProducer(bootstrap_servers=quota_topics.bootstrap, acks="all")
    await producer.start()
    consumer = UsageConsumer(
        bootstrap_servers=quota_topics.bootstrap,
        topic=quota_topics.usage,
        group_id=quota_topics.group,
        dlq_topic=quota_topics.dlq,
        settler=RepeatingSettler(),
        producer=producer,
        retry_initial_seconds=0.05,
        retry_max_seconds=0.2,
    )
    trace_id = uuid.uuid4().hex
    for i in range(3):
        event = _completed(uuid.uuid4())
        headers = [("traceparent", f"00-{trace_id}-{i + 1:016x}-01".encode())] if i < 2 else None
        await producer.send_and_wait(
            quota_topics.usage, event.to_json(), key=event.kafka_key(), partition=0, headers=headers
        )
    with structlog.testing.capture_logs(processors=[merge_contextvars]) as logs:
        await consumer.start()
        try:
            deadline = asyncio.get_running_loop().time() + 30
            while sum(e["records"] for e in logs if e["event"] == "usage_batch") < 3:
                assert asyncio.get_running_loop().time() < deadline, logs
                await asyncio.sleep(0.2)
        finally:
            await consumer.stop()
            await producer.stop()
    lines = [e for e in logs if e["event"] == "usage_batch"]
    assert sum(e["settled"] for e in lines) == 3
    assert sum(e["trace_links"] for e in lines) == 2
    assert {t for e in lines for t in e["linked_trace_ids"]} == {trace_id}
    assert all(e["duration_ms"] >= 0 for e in lines)
    assert lines[-1]["partitions"] == [f"{quota_topics.usage}[0]@3"]
