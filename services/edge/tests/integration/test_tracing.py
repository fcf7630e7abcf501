"""One trace per call (issue 15), over the real stack: a call made with a
client ``traceparent`` yields, at an OTLP/HTTP receiver in the test
(``tollway_testing.otlp``, protobuf decoded with opentelemetry-proto), the
edge's SERVER span (child of the client's span, GenAI attributes, no text),
its CLIENT spans to the redactor and to the provider, the redactor's SERVER
span continuing the edge's client span, and the ledger's batch span linked to
the call; the provider receives the edge's ``traceparent``; the usage events,
the Kafka record headers, the canonical log line and the ledger row carry the
trace id. With tracing off nothing of this is added."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest
import structlog
import yaml
from aiokafka import AIOKafkaConsumer
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from tollway_edge.auth.principals import parse_redaction_policy
from tollway_edge.settings import EdgeSettings
from tollway_edge.state import STATE
from tollway_testing.otlp import OtlpReceiver, ReceivedSpan

from .conftest import PEPPER, Edge, edge_catalogue, running_edge
from .ledger_run import ledger_row, running_ledger
from .ledger_schema import create_ledger_schema
from .principals_schema import create_principals_schema, upsert_key
from .redaction_support import closed_port_url, set_policy, start_redactor

pytestmark = pytest.mark.integration

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
CLIENT_SPAN = "00f067aa0ba902b7"
TRACEPARENT = f"00-{TRACE_ID}-{CLIENT_SPAN}-01"
SECRET = "Maria Dubois"
PROMPT = f"Email {SECRET} at maria.dubois@example.com about the invoice."
SERVER, CLIENT, CONSUMER = 2, 3, 5  # OTLP Span.SpanKind values


@contextlib.asynccontextmanager
async def _edge(tmp: Path, values: dict[str, Any], fake_url: str, slow_url: str | None = None) -> Any:
    await create_principals_schema(values["postgres_dsn"])
    await create_ledger_schema(values["postgres_dsn"])
    catalogue = edge_catalogue(fake_url, closed_port_url(), slow_url or fake_url)
    (tmp / "catalogue.yaml").write_text(yaml.safe_dump(catalogue))
    settings = EdgeSettings(
        key_pepper=PEPPER,
        catalogue_path=str(tmp / "catalogue.yaml"),
        log_format="console",
        redaction_deadline_ms=20_000,
        journal_dir=str(tmp / "journal"),
        quota_url="",
        **values,
    )
    async with running_edge(settings, catalogue) as edge:
        yield edge


async def _key(edge: Edge, policy: dict[str, Any]) -> str:
    full, key_id, _ = await upsert_key(edge.dsn, PEPPER.encode())
    await set_policy(edge.dsn, key_id, policy)
    expected = parse_redaction_policy(policy)
    for _ in range(100):
        p = edge.app[STATE].snapshot.by_key_id.get(key_id)
        if p is not None and p.redaction_policy == expected:
            break
        await asyncio.sleep(0.05)
    return full


async def _records(kafka: str, topic: str, request_id: str, count: int) -> list[Any]:
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=kafka, auto_offset_reset="earliest", group_id=None)
    await consumer.start()
    found: list[Any] = []
    try:
        async with asyncio.timeout(20):
            while len(found) < count:
                for records in (await consumer.getmany(timeout_ms=200)).values():
                    found += [r for r in records if r.key == request_id.encode()]
    finally:
        await consumer.stop()
    return found


def _one(spans: list[ReceivedSpan], service: str, kind: int, name_part: str) -> ReceivedSpan:
    found = [s for s in spans if s.service == service and s.span.kind == kind and name_part in s.span.name]
    assert len(found) == 1, [(s.service, s.span.kind, s.span.name) for s in spans]
    return found[0]


async def test_a_call_with_a_client_traceparent_is_one_trace_from_edge_to_ledger(
    otlp_receiver: OtlpReceiver,
    fresh_database: str,
    valkey_test_url: str,
    fresh_topic: Any,
    kafka_bootstrap_servers: str,
    fake_provider: Any,
    tmp_path: Path,
) -> None:
    redactor = await start_redactor(
        valkey_test_url, "test:trace:", tmp_path
    )  # inherits OTEL_* from the receiver
    try:
        topic = await fresh_topic(partitions=1)
        values = {
            "postgres_dsn": fresh_database,
            "valkey_url": valkey_test_url,
            "kafka_bootstrap_servers": kafka_bootstrap_servers,
            "usage_topic": topic,
            "redactor_urls": redactor.url,
        }
        async with _edge(tmp_path, values, fake_provider.base_url) as edge:
            key = await _key(edge, {"mode": "redact"})
            body = {
                "model": "gpt-4o-mini",
                "messages": [{"role": "user", "content": PROMPT}],
                "max_tokens": 5,
            }
            headers = {"Authorization": f"Bearer {key}", "traceparent": TRACEPARENT, "tracestate": "client=1"}
            with structlog.testing.capture_logs() as logs:
                async with aiohttp.ClientSession() as http:
                    async with http.post(
                        edge.base_url + "/chat/completions", json=body, headers=headers
                    ) as r:
                        assert r.status == 200, await r.text()
                        request_id = r.headers["x-request-id"]
                        finish = (await r.json())["choices"][0]["finish_reason"]
            records = await _records(edge.kafka, topic, request_id, 2)
            dlq = await fresh_topic(partitions=1)
            async with running_ledger(edge.dsn, topic, dlq, edge.kafka):
                row = await ledger_row(edge.dsn, request_id)
        # The ledger's and the edge's cleanup flushed their exporters; the redactor exports every 100 ms.
        await otlp_receiver.wait_for(
            lambda r: (
                sum(s.service == "tollway-redactor" for s in r.trace(TRACE_ID))
                == sum(s.service == "tollway-edge" and "/v1/redact" in s.span.name for s in r.trace(TRACE_ID))
            )
        )
    finally:
        redactor.stop()

    spans = otlp_receiver.trace(TRACE_ID)
    server = _one(spans, "tollway-edge", SERVER, "/v1/chat/completions")
    assert server.parent_span_id == CLIENT_SPAN  # continues the client's span
    attrs = server.attributes
    assert attrs["gen_ai.operation.name"] == "chat" and attrs["gen_ai.request.model"] == "gpt-4o-mini"
    assert attrs["gen_ai.response.model"] == "fake-model"
    assert list(attrs["gen_ai.response.finish_reasons"].values) == [AnyValue(string_value=finish)]
    assert attrs["gen_ai.usage.input_tokens"] > 0 and attrs["gen_ai.usage.output_tokens"] > 0
    assert attrs["tollway.request_id"] == request_id and attrs["http.response.status_code"] == 200

    to_provider = _one(spans, "tollway-edge", CLIENT, "chat fake-model")
    assert to_provider.parent_span_id == server.span_id
    assert to_provider.attributes["gen_ai.provider.name"] == "openai"
    assert to_provider.attributes["http.response.status_code"] == 200
    # The redaction call, and the cache-priming call made with the answer's texts after it.
    to_redactor = [
        s
        for s in spans
        if s.service == "tollway-edge" and s.span.kind == CLIENT and "/v1/redact" in s.span.name
    ]
    assert to_redactor and all(s.parent_span_id == server.span_id for s in to_redactor)
    assert min(s.span.start_time_unix_nano for s in to_redactor) < to_provider.span.start_time_unix_nano
    redactor_server = [s for s in spans if s.service == "tollway-redactor" and s.span.kind == SERVER]
    assert sorted(s.parent_span_id for s in redactor_server) == sorted(s.span_id for s in to_redactor)

    # The provider heard the edge's client span as its parent.
    (seen,) = fake_provider.requests(request_id)
    sent = {k.lower(): v for k, v in seen["headers"].items()}
    assert sent["traceparent"] == f"00-{TRACE_ID}-{to_provider.span_id}-01"

    # No span, edge's or redactor's, carries the prompt's text.
    for s in otlp_receiver.spans:
        for value in s.attributes.values():
            assert SECRET not in str(value) and "example.com" not in str(value)

    # Usage events, Kafka headers, the log line and the ledger row carry the trace.
    assert sorted(orjson.loads(r.value)["type"] for r in records) == ["completed", "started"]
    for rec in records:
        assert orjson.loads(rec.value)["trace_id"] == TRACE_ID
        h = dict(rec.headers)
        assert h["traceparent"] == f"00-{TRACE_ID}-{server.span_id}-01".encode()
        assert h["tracestate"] == b"client=1"
    line = next(e for e in logs if e["event"] == "request" and e["request_id"] == request_id)
    assert line["trace_id"] == TRACE_ID
    assert row["trace_id"] == TRACE_ID

    # The ledger's batch span links to the edge's server span.
    linked = [
        s
        for s in otlp_receiver.spans
        if s.service == "tollway-ledger"
        and s.span.kind == CONSUMER
        and any(
            link.trace_id.hex() == TRACE_ID and link.span_id.hex() == server.span_id for link in s.span.links
        )
    ]
    assert linked, [(s.service, s.span.name) for s in otlp_receiver.spans]


@pytest.mark.parametrize("edge", [{}], indirect=True)
async def test_tracing_off_adds_nothing(
    edge: Edge, edge_http: aiohttp.ClientSession, fake_provider: Any
) -> None:
    assert edge.app[STATE].tracer is None  # no OTEL_* endpoint in the test environment
    key = await edge.new_key("a")
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 5}
    headers = {"Authorization": f"Bearer {key}", "traceparent": TRACEPARENT}
    async with edge_http.post(edge.base_url + "/chat/completions", json=body, headers=headers) as r:
        assert r.status == 200
        request_id = r.headers["x-request-id"]
    (seen,) = fake_provider.requests(request_id)
    assert "traceparent" not in {k.lower() for k in seen["headers"]}
    records = await _records(edge.kafka, edge.topic, request_id, 2)
    for rec in records:
        assert orjson.loads(rec.value)["trace_id"] is None
        assert not rec.headers


async def test_each_provider_attempt_is_a_client_span_and_a_failed_one_says_why(
    otlp_receiver: OtlpReceiver,
    fresh_database: str,
    valkey_test_url: str,
    fresh_topic: Any,
    kafka_bootstrap_servers: str,
    fake_provider: Any,
    tmp_path: Path,
) -> None:
    values = {
        "postgres_dsn": fresh_database,
        "valkey_url": valkey_test_url,
        "kafka_bootstrap_servers": kafka_bootstrap_servers,
        "usage_topic": await fresh_topic(partitions=1),
        "redactor_urls": "",
    }
    async with _edge(tmp_path, values, fake_provider.base_url) as edge:
        full, _, _ = await upsert_key(edge.dsn, PEPPER.encode())
        body = {"model": "fallback-dead", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 5}
        headers = {"Authorization": f"Bearer {full}", "traceparent": TRACEPARENT}
        async with aiohttp.ClientSession() as http:
            async with http.post(edge.base_url + "/chat/completions", json=body, headers=headers) as r:
                assert r.status == 200
    # The edge's cleanup flushed its exporter.
    spans = otlp_receiver.trace(TRACE_ID)
    server = _one(spans, "tollway-edge", SERVER, "/v1/chat/completions")
    # A refused connection is retried once on the same deployment (the default retry
    # policy), then the call falls back: three attempts, each its own span.
    assert server.attributes["tollway.attempts"] == 3
    attempts = sorted(
        (s for s in spans if s.span.kind == CLIENT), key=lambda s: s.attributes["tollway.attempt"]
    )
    assert [s.attributes["tollway.provider"] for s in attempts] == ["dead", "dead", "fake"]
    assert [s.attributes["tollway.attempt"] for s in attempts] == [1, 2, 3]
    assert all(s.parent_span_id == server.span_id for s in attempts)
    *deads, fake = attempts
    for dead in deads:
        assert dead.attributes["error.type"] == "upstream_unavailable"
        assert "http.response.status_code" not in dead.attributes
        assert dead.span.status.code == 2  # STATUS_CODE_ERROR
    assert fake.attributes["http.response.status_code"] == 200 and "error.type" not in fake.attributes


async def test_a_relayed_streams_provider_span_lasts_until_the_relay_ends(
    otlp_receiver: OtlpReceiver,
    fresh_database: str,
    valkey_test_url: str,
    fresh_topic: Any,
    kafka_bootstrap_servers: str,
    fake_provider: Any,
    fake_provider_factory: Any,
    tmp_path: Path,
) -> None:
    from tollway_testing.fake_provider import FakeProviderConfig

    slow = fake_provider_factory(
        FakeProviderConfig(chunk_interval_ms=25, completion_tokens=12, access_log=False)
    )
    values = {
        "postgres_dsn": fresh_database,
        "valkey_url": valkey_test_url,
        "kafka_bootstrap_servers": kafka_bootstrap_servers,
        "usage_topic": await fresh_topic(partitions=1),
        "redactor_urls": "",
    }
    async with _edge(tmp_path, values, fake_provider.base_url, slow.base_url) as edge:
        full, _, _ = await upsert_key(edge.dsn, PEPPER.encode())
        body = {"model": "slow-model", "messages": [{"role": "user", "content": "hi"}], "stream": True}
        headers = {"Authorization": f"Bearer {full}", "traceparent": TRACEPARENT}
        async with aiohttp.ClientSession() as http:
            async with http.post(edge.base_url + "/chat/completions", json=body, headers=headers) as r:
                assert r.status == 200
                assert (await r.read()).endswith(b"data: [DONE]\n\n")
    spans = otlp_receiver.trace(TRACE_ID)
    server = _one(spans, "tollway-edge", SERVER, "/v1/chat/completions")
    attempt = _one(spans, "tollway-edge", CLIENT, "chat fake-model")
    assert attempt.attributes["http.response.status_code"] == 200
    duration_ms = (attempt.span.end_time_unix_nano - attempt.span.start_time_unix_nano) / 1e6
    assert duration_ms >= 11 * 25 * 0.8, duration_ms  # the chunks' pacing, not just the headers
    assert attempt.span.end_time_unix_nano <= server.span.end_time_unix_nano
    assert server.attributes["tollway.stream"] is True
