"""tollway_runtime.tracing: off by default, W3C trace context through aiohttp
servers and Kafka record headers, batch spans linked to each record's trace."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tollway_runtime.tracing import (
    consumer_batch_span,
    extract_kafka_context,
    inject_kafka_headers,
    setup_tracing,
    trace_id_hex,
    tracing_middleware,
)

pytestmark = pytest.mark.unit

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACEPARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"


def _sdk() -> tuple[trace.Tracer, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider.get_tracer("test"), exporter


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SDK_DISABLED": "true"},
        {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_EXPORTER": "none"},
    ],
)
def test_off_without_an_endpoint_or_when_disabled(env: dict[str, str]) -> None:
    tracing = setup_tracing("test", env)
    assert not tracing.enabled and isinstance(tracing.tracer, trace.NoOpTracer)
    tracing.shutdown()


def test_on_with_an_endpoint() -> None:
    tracing = setup_tracing("test", {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"})
    try:
        assert tracing.enabled and not isinstance(tracing.tracer, trace.NoOpTracer)
    finally:
        tracing.shutdown()


def test_kafka_headers_round_trip_and_replace_an_earlier_traceparent() -> None:
    tracer, _ = _sdk()
    with tracer.start_as_current_span("produce") as span:
        headers = inject_kafka_headers(
            [("traceparent", b"00-" + b"1" * 32 + b"-" + b"2" * 16 + b"-01"), ("x", b"y")]
        )
        expected = trace_id_hex(span)
    assert [k for k, _ in headers].count("traceparent") == 1 and ("x", b"y") in headers
    got = trace.get_current_span(extract_kafka_context(headers)).get_span_context()
    assert trace.format_trace_id(got.trace_id) == expected
    assert inject_kafka_headers() == []  # no span: nothing added


@dataclass
class _Record:
    headers: list[tuple[str, bytes]] = field(default_factory=list)


def test_batch_span_links_each_traced_record() -> None:
    tracer, exporter = _sdk()
    records = [
        _Record([("traceparent", TRACEPARENT.encode())]),
        _Record(),
        _Record([("traceparent", b"junk")]),
    ]
    with consumer_batch_span(tracer, topic="tollway.usage.v1", records=records, consumer_group="g"):
        pass
    (span,) = exporter.get_finished_spans()
    assert span.name == "process tollway.usage.v1" and span.kind == trace.SpanKind.CONSUMER
    assert [trace.format_trace_id(link.context.trace_id) for link in span.links] == [TRACE_ID]
    assert span.attributes is not None
    assert dict(span.attributes) == {
        "messaging.system": "kafka",
        "messaging.destination.name": "tollway.usage.v1",
        "messaging.operation.name": "process",
        "messaging.operation.type": "process",
        "messaging.batch.message_count": 3,
        "messaging.consumer.group.name": "g",
    }


async def test_middleware_continues_the_clients_trace() -> None:
    tracer, exporter = _sdk()
    seen: list[str | None] = []

    async def handler(_: web.Request) -> web.Response:
        seen.append(trace_id_hex())
        return web.Response(text="ok")

    app = web.Application(middlewares=[tracing_middleware(tracer)])
    app.router.add_get("/items/{id}", handler)
    async with TestClient(TestServer(app)) as client:
        assert (await client.get("/items/1", headers={"traceparent": TRACEPARENT})).status == 200
        assert (await client.get("/items/2")).status == 200
        assert (await client.get("/healthz")).status == 404
    assert seen[0] == TRACE_ID and seen[1] not in (None, TRACE_ID)
    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == ["GET /items/{id}", "GET /items/{id}", "GET unmatched"]
    assert spans[0].kind == trace.SpanKind.SERVER
    assert spans[0].attributes is not None and spans[0].attributes["http.response.status_code"] == 200
