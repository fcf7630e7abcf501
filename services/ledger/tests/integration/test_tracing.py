"""A usage event produced with a W3C ``traceparent`` header yields a ledger
batch span linked to that trace, exported over OTLP/HTTP to a receiver in
the test (``tollway_testing.otlp``: an aiohttp server decoding the protobuf with opentelemetry-proto),
and the ledger row carries the event's ``trace_id``."""

from __future__ import annotations

import asyncio

import asyncpg
import msgspec
import pytest
import structlog
from aiokafka import AIOKafkaProducer
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from tollway_testing.otlp import OtlpReceiver, attribute_value

from ..conftest import KAFKA, ledger_settings, make_call, run_ledger

pytestmark = pytest.mark.integration

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"


async def test_ledger_batch_span_links_to_the_produced_events_trace(
    ledger_fresh_dsn: str, ledger_topics: tuple[str, str], otlp_receiver: OtlpReceiver
) -> None:
    started, completed = make_call(1)
    started = msgspec.structs.replace(started, trace_id=TRACE_ID)
    completed = msgspec.structs.replace(completed, trace_id=TRACE_ID)
    traceparent = f"00-{TRACE_ID}-{PARENT_ID}-01".encode()
    settings = ledger_settings(ledger_fresh_dsn, ledger_topics)
    with structlog.testing.capture_logs(processors=[structlog.contextvars.merge_contextvars]) as logs:
        await _run(ledger_fresh_dsn, ledger_topics, settings, traceparent, started, completed)
    row = await _row(ledger_fresh_dsn, completed.request_id)
    # The app's cleanup flushed the exporter: every batch span has arrived.
    assert row is not None and row["trace_id"] == TRACE_ID
    batches = [
        s.span
        for s in otlp_receiver.spans
        if s.service == "tollway-ledger" and s.span.name == f"process {ledger_topics[0]}"
    ]
    assert batches, [s.span.name for s in otlp_receiver.spans]
    linked = [
        span
        for span in batches
        if any(link.trace_id.hex() == TRACE_ID and link.span_id.hex() == PARENT_ID for link in span.links)
    ]
    assert linked, "no ledger batch span links to the event's trace"
    assert sum(len(span.links) for span in linked) == 2  # one link per message
    for span in linked:
        assert span.kind == Span.SpanKind.SPAN_KIND_CONSUMER
        assert span.trace_id.hex() != TRACE_ID  # a batch is its own trace, linked to each message's
        attrs = {a.key: attribute_value(a.value) for a in span.attributes}
        assert attrs["messaging.system"] == "kafka"
        assert attrs["messaging.destination.name"] == ledger_topics[0]
        assert attrs["messaging.batch.message_count"] == len(span.links)
        assert attrs["messaging.consumer.group.name"] == settings.consumer_group
        assert not any("prompt" in k or "content" in k for k in attrs)
    # The canonical batch lines name the batch span's trace and the messages' traces.
    lines = [e for e in logs if e["event"] == "batch" and TRACE_ID in e.get("linked_trace_ids", [])]
    assert lines and {e["trace_id"] for e in lines} <= {s.trace_id.hex() for s in linked}
    assert sum(e["trace_links"] for e in lines) == sum(len(span.links) for span in linked)
    assert all(e["messages"] >= e["trace_links"] and e["partitions"] and e["duration_ms"] >= 0 for e in lines)


async def _row(dsn: str, request_id: object) -> asyncpg.Record | None:
    conn = await asyncpg.connect(dsn)
    try:
        return await conn.fetchrow(
            "SELECT status, trace_id FROM ledger.usage_records WHERE request_id = $1", request_id
        )
    finally:
        await conn.close()


async def _run(dsn, topics, settings, traceparent, started, completed) -> None:  # noqa: ANN001
    async with run_ledger(settings):
        producer = AIOKafkaProducer(bootstrap_servers=KAFKA, acks="all")
        await producer.start()
        try:
            for event in (started, completed):
                await producer.send_and_wait(
                    topics[0],
                    key=event.kafka_key(),
                    value=event.to_json(),
                    headers=[("traceparent", traceparent)],
                )
        finally:
            await producer.stop()
        deadline = asyncio.get_running_loop().time() + 30
        while True:
            row = await _row(dsn, completed.request_id)
            if row is not None and row["status"] == "completed":
                break
            assert asyncio.get_running_loop().time() < deadline, row
            await asyncio.sleep(0.2)
