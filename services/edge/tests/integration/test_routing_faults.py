"""Routing that survives providers (issue 13), against the fake provider's faults:
retries on the same deployment, fallback to the next, streams that fall back
until their first byte, and streams that fail after it with an error the
``openai`` SDK raises. Each test checks what the client got and the ledger
row the call left (attempts, the deployment that answered, attempt details),
written by the real ledger consumer from the edge's usage topic."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import orjson
import pytest
import pytest_asyncio
import yaml
from aiohttp import web
from openai import APIError, APIStatusError, AsyncOpenAI

from tollway_edge.settings import EdgeSettings
from tollway_edge.state import STATE

from .conftest import PEPPER, Edge, running_edge
from .principals_schema import create_principals_schema

pytestmark = pytest.mark.integration

PRICES = {"input": 150000, "cached_input": 75000, "output": 600000}
MESSAGES = [{"role": "user", "content": "Say hello to the gateway."}]
FAST = {"first_byte_seconds": 0.6, "idle_seconds": 0.6}
RETRY = {
    "max_attempts": 2,
    "backoff_initial_seconds": 0.01,
    "backoff_max_seconds": 0.05,
    "max_retry_after_seconds": 1,
}


def _catalogue(fake: Any) -> dict[str, Any]:
    def provider(name: str) -> dict[str, Any]:
        return {"kind": "openai", "base_url": fake.deployment_url(name), "timeout_seconds": 10}

    return {
        "version": 1,
        "retry": RETRY,
        "breaker": {"min_calls": 3, "failure_rate": 0.5, "window_seconds": 30, "open_seconds": 1.5},
        "providers": {
            "east": provider("east"),
            "west": provider("west"),
            "dead": {"base_url": "http://127.0.0.1:9/v1", "timeout_seconds": 5, "connect_timeout_seconds": 2},
            "us": provider("us"),
            "eu": provider("eu"),
            "eu2": provider("eu2"),
        },
        "models": {
            "routed": {
                "prices": PRICES,
                "deployments": [
                    {"name": "east-1", "provider": "east", "upstream_model": "m", "timeouts": FAST},
                    {"name": "west-1", "provider": "west", "upstream_model": "m", "priority": 1},
                ],
            },
            "routed-dead": {
                "prices": PRICES,
                "deployments": [
                    {"name": "dead-1", "provider": "dead", "upstream_model": "m"},
                    {"name": "west-1", "provider": "west", "upstream_model": "m", "priority": 1},
                ],
            },
            "resident": {
                "prices": PRICES,
                "deployments": [
                    {"name": "us-1", "provider": "us", "upstream_model": "m", "regions": ["us"]},
                    {"name": "global-1", "provider": "us", "upstream_model": "m", "regions": ["us", "eu"]},
                    {
                        "name": "eu-1",
                        "provider": "eu",
                        "upstream_model": "m",
                        "priority": 1,
                        "regions": ["eu"],
                    },
                    {
                        "name": "eu-2",
                        "provider": "eu2",
                        "upstream_model": "m",
                        "priority": 2,
                        "regions": ["eu"],
                    },
                ],
            },
            "us-only": {
                "prices": PRICES,
                "deployments": [{"name": "us-1", "provider": "us", "upstream_model": "m", "regions": ["us"]}],
            },
            "routed-total": {
                "prices": PRICES,
                "deployments": [
                    {
                        "name": "east-1",
                        "provider": "east",
                        "upstream_model": "m",
                        "timeouts": {"total_seconds": 0.6},
                    },
                    {"name": "west-1", "provider": "west", "upstream_model": "m", "priority": 1},
                ],
            },
            "east-only": {
                "prices": PRICES,
                "deployments": [
                    {"name": "east-1", "provider": "east", "upstream_model": "m", "timeouts": FAST}
                ],
            },
        },
    }


@dataclass
class Routed:
    edge: Edge
    ledger_dsn: str
    fake: Any
    key: str
    settings: EdgeSettings

    def client(self) -> AsyncOpenAI:
        return AsyncOpenAI(base_url=self.edge.base_url, api_key=self.key, max_retries=0, timeout=20)

    async def row(self, request_id: str, within_s: float = 20.0) -> dict[str, Any]:
        """The call's ledger row once terminal."""
        deadline = time.monotonic() + within_s
        conn = await asyncpg.connect(self.ledger_dsn)
        try:
            while time.monotonic() < deadline:
                rec = await conn.fetchrow(
                    "SELECT status, status_code, error_type, attempts, deployment, provider, attempt_details,"
                    " catalogue_version, cost_micro_usd, completion_tokens"
                    " FROM ledger.usage_records WHERE request_id = $1",
                    uuid.UUID(request_id),
                )
                if rec is not None and rec["status"] != "in_flight":
                    row = dict(rec)
                    details = row["attempt_details"]
                    row["attempt_details"] = orjson.loads(details) if isinstance(details, str) else details
                    return row
                await asyncio.sleep(0.1)
        finally:
            await conn.close()
        raise AssertionError(f"no terminal ledger row for {request_id}")


def _with_db(dsn: str, db: str) -> str:
    parts = urlsplit(dsn)
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", parts.query, parts.fragment))


@contextlib.asynccontextmanager
async def _ledger(dsn: str, topic: str, dlq: str, kafka: str) -> AsyncIterator[str]:
    """The real ledger (its create_app, migrations included) over its own new database,
    consuming the edge's usage topic from the start."""
    from tollway_ledger.app import create_app
    from tollway_ledger.settings import LedgerSettings

    name = f"tw_test_ledger_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(dsn)
    await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    ledger_dsn = _with_db(dsn, name)
    app = create_app(
        LedgerSettings(
            postgres_dsn=ledger_dsn,
            kafka_bootstrap_servers=kafka,
            topic=topic,
            dlq_topic=dlq,
            consumer_group=f"test-ledger-{uuid.uuid4().hex[:10]}",
            auto_offset_reset="earliest",
            batch_timeout_ms=100,
            shutdown_timeout_seconds=10,
            health_port=0,
        )
    )
    runner = web.AppRunner(app, handle_signals=False)
    await runner.setup()
    try:
        yield ledger_dsn
    finally:
        await runner.cleanup()
        admin = await asyncpg.connect(dsn)
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


@pytest_asyncio.fixture
async def routed(
    fresh_database: str,
    valkey_test_url: str,
    fresh_topic: Any,
    kafka_bootstrap_servers: str,
    fake_provider: Any,
    tmp_path: Path,
) -> AsyncIterator[Routed]:
    await create_principals_schema(fresh_database)
    topic = await fresh_topic(partitions=1)
    dlq = await fresh_topic(partitions=1)
    catalogue = _catalogue(fake_provider)
    path = tmp_path / "catalogue.yaml"
    path.write_text(yaml.safe_dump(catalogue))
    settings = EdgeSettings(
        postgres_dsn=fresh_database,
        valkey_url=valkey_test_url,
        kafka_bootstrap_servers=kafka_bootstrap_servers,
        key_pepper=PEPPER,
        catalogue_path=str(path),
        usage_topic=topic,
        log_format="console",
        journal_dir=str(tmp_path / "journal"),
        quota_url="",
    )
    async with (
        _ledger(fresh_database, topic, dlq, kafka_bootstrap_servers) as ledger_dsn,
        running_edge(settings, catalogue) as edge,
    ):
        key = await edge.new_key("a")
        yield Routed(edge, ledger_dsn, fake_provider, key, settings)
    fake_provider.clear_faults()


def _attempts(row: dict[str, Any]) -> list[tuple[str | None, int | None, str | None]]:
    return [(d["deployment"], d["status_code"], d["error_type"]) for d in row["attempt_details"]]


async def _chat(r: Routed, model: str) -> tuple[str, str]:
    raw = await r.client().chat.completions.with_raw_response.create(model=model, messages=MESSAGES)
    return raw.headers["x-request-id"], raw.parse().choices[0].message.content or ""


async def _stream(r: Routed, model: str, received: list[str]) -> str:
    raw = await r.client().chat.completions.with_raw_response.create(
        model=model, messages=MESSAGES, stream=True
    )
    async for chunk in raw.parse():
        received.extend(c.delta.content or "" for c in chunk.choices)
    return raw.headers["x-request-id"]


async def test_503_is_retried_then_falls_back(routed: Routed) -> None:
    routed.fake.set_faults({"east": {"status": 503}})
    request_id, text = await _chat(routed, "routed")
    assert text
    row = await routed.row(request_id)
    assert row["status"] == "completed" and row["status_code"] == 200
    assert row["deployment"] == "west-1" and row["provider"] == "west" and row["attempts"] == 3
    assert _attempts(row) == [
        ("east-1", 503, "upstream_503"),
        ("east-1", 503, "upstream_503"),
        ("west-1", 200, None),
    ]
    assert row["attempt_details"][-1]["cost_micro_usd"] == row["cost_micro_usd"] > 0
    assert len(routed.fake.requests(request_id)) == 3
    assert row["catalogue_version"] == routed.edge.app[STATE].catalogue_version


async def test_429_retry_after_is_honoured_on_the_same_deployment(routed: Routed) -> None:
    routed.fake.set_faults({"east": {"status": 429, "retry_after": 0.4, "times": 1}})
    t = time.monotonic()
    request_id, _ = await _chat(routed, "routed")
    assert time.monotonic() - t >= 0.4  # waited as asked, then the deployment recovered
    row = await routed.row(request_id)
    assert row["deployment"] == "east-1" and row["attempts"] == 2
    assert _attempts(row) == [("east-1", 429, "upstream_429"), ("east-1", 200, None)]


async def test_429_asking_longer_than_the_bound_falls_back_at_once(routed: Routed) -> None:
    routed.fake.set_faults({"east": {"status": 429, "retry_after": 30}})
    t = time.monotonic()
    request_id, _ = await _chat(routed, "routed")
    assert time.monotonic() - t < 5
    row = await routed.row(request_id)
    assert row["deployment"] == "west-1" and _attempts(row) == [
        ("east-1", 429, "upstream_429"),
        ("west-1", 200, None),
    ]


async def test_refused_connection_is_retried_then_falls_back(routed: Routed) -> None:
    request_id, _ = await _chat(routed, "routed-dead")
    row = await routed.row(request_id)
    assert row["deployment"] == "west-1"
    assert _attempts(row) == [
        ("dead-1", None, "upstream_unavailable"),
        ("dead-1", None, "upstream_unavailable"),
        ("west-1", 200, None),
    ]


@pytest.mark.parametrize("fault", [{"stall_before_headers_ms": 3000}, {"stall_after_headers_ms": 3000}])
async def test_non_stream_total_timeout_falls_back(routed: Routed, fault: dict[str, Any]) -> None:
    routed.fake.set_faults({"east": fault})
    t = time.monotonic()
    request_id, text = await _chat(routed, "routed-total")
    assert text and time.monotonic() - t < 2.5  # the 0.6 s total timeout, not the 3 s stall
    row = await routed.row(request_id)
    assert row["deployment"] == "west-1" and row["attempts"] == 2  # a timeout is not retried
    assert [(d, e) for d, _, e in _attempts(row)] == [("east-1", "upstream_timeout"), ("west-1", None)]


async def test_last_deployment_failing_returns_its_error(routed: Routed) -> None:
    routed.fake.set_faults({"east": {"status": 503}})
    with pytest.raises(APIStatusError) as err:
        await _chat(routed, "east-only")
    assert err.value.status_code == 503  # the provider's own error, after its retry
    request_id = err.value.response.headers["x-request-id"]
    row = await routed.row(request_id)
    assert row["status"] == "failed" and row["status_code"] == 503 and row["attempts"] == 2
    assert row["cost_micro_usd"] in (None, 0)


@pytest.mark.parametrize(
    "fault",
    [
        {"stall_before_headers_ms": 3000},  # nothing at all within the first-byte timeout
        {"stall_after_headers_ms": 3000},  # a 200, then silence
        {"cut_after_headers": True},  # a 200, then the connection drops
        {"status": 503},
    ],
    ids=["stall-before-200", "stall-after-200", "cut-after-200", "503"],
)
async def test_stream_falls_back_before_its_first_byte(routed: Routed, fault: dict[str, Any]) -> None:
    routed.fake.set_faults({"east": fault})
    received: list[str] = []
    t = time.monotonic()
    request_id = await _stream(routed, "routed", received)
    assert time.monotonic() - t < 3  # within the first-byte timeout (0.6 s), not the stall
    assert "".join(received)  # a whole answer, from the next deployment
    row = await routed.row(request_id)
    assert row["status"] == "completed" and row["deployment"] == "west-1"
    assert row["completion_tokens"] and row["cost_micro_usd"] > 0
    assert _attempts(row)[-1] == ("west-1", 200, None)
    assert {d for d, _, _ in _attempts(row)[:-1]} == {"east-1"}


@pytest.mark.parametrize(
    "fault",
    [{"cut_after_chunks": 2}, {"stall_after_chunks": 2, "stall_ms": 5000}],
    ids=["cut", "idle-timeout"],
)
async def test_stream_failing_after_its_first_byte_raises_in_the_sdk(
    routed: Routed, fault: dict[str, Any]
) -> None:
    routed.fake.set_faults({"east": fault})
    received: list[str] = []
    raw = await routed.client().chat.completions.with_raw_response.create(
        model="routed", messages=MESSAGES, stream=True
    )
    request_id = raw.headers["x-request-id"]
    t = time.monotonic()
    with pytest.raises(APIError, match="before the answer was complete"):
        async for chunk in raw.parse():
            received.extend(c.delta.content or "" for c in chunk.choices)
    assert time.monotonic() - t < 3  # the idle timeout (0.6 s), not the provider's stall
    assert received  # what came before the failure, never a clean end
    row = await routed.row(request_id)
    assert row["status"] == "failed" and row["error_type"] == "upstream_stream_error"
    assert row["deployment"] == "east-1" and row["attempts"] == 1  # no fallback once bytes reached the client
    assert _attempts(row) == [("east-1", 200, "upstream_stream_error")]
    breakers = routed.edge.app[STATE].breakers
    assert breakers is not None and breakers.counts("east:m") == (1, 1)  # served a first byte, then failed


async def _resident(routed: Routed) -> AsyncOpenAI:
    key = await routed.edge.new_key("eu", allowed_regions=["eu"])
    return AsyncOpenAI(base_url=routed.edge.base_url, api_key=key, max_retries=0, timeout=20)


async def test_residency_keeps_calls_in_the_allowed_regions(routed: Routed) -> None:
    client = await _resident(routed)
    for stream in (False, True):
        raw = await client.chat.completions.with_raw_response.create(
            model="resident", messages=MESSAGES, stream=stream
        )
        request_id = raw.headers["x-request-id"]
        if stream:
            async for _ in raw.parse():
                pass
        row = await routed.row(request_id)
        assert (
            row["status"] == "completed" and row["deployment"] == "eu-1"
        )  # us-1 and global-1 come first, not allowed
        assert {r["deployment"] for r in routed.fake.requests(request_id)} == {"eu"}
    # no policy: the first priority level serves
    request_id, _ = await _chat(routed, "resident")
    assert (await routed.row(request_id))["deployment"] in ("us-1", "global-1")


async def test_residency_never_falls_back_across_regions(routed: Routed) -> None:
    client = await _resident(routed)
    routed.fake.set_faults({"eu": {"status": 503}, "eu2": {"status": 503}})
    with pytest.raises(APIStatusError) as err:
        await client.chat.completions.create(model="resident", messages=MESSAGES)
    assert err.value.status_code == 503  # the last allowed deployment's own answer
    request_id = err.value.response.headers["x-request-id"]
    row = await routed.row(request_id)
    assert {d for d, _, _ in _attempts(row)} == {"eu-1", "eu-2"} and row["attempts"] == 4
    assert {r["deployment"] for r in routed.fake.requests(request_id)} == {"eu", "eu2"}  # never "us"


async def test_no_allowed_deployment_is_a_403_before_any_provider(routed: Routed) -> None:
    client = await _resident(routed)
    with pytest.raises(APIStatusError) as err:
        await client.chat.completions.create(model="us-only", messages=MESSAGES)
    assert err.value.status_code == 403
    assert err.value.body["code"] == "model_not_in_allowed_regions"  # type: ignore[index]
    request_id = err.value.response.headers["x-request-id"]
    assert routed.fake.requests(request_id) == []
    row = await routed.row(request_id)
    assert (
        row["status"] == "failed"
        and row["error_type"] == "model_not_in_allowed_regions"
        and row["attempts"] == 0
    )


async def _until(predicate: Any, within_s: float = 2.0) -> None:
    deadline = time.monotonic() + within_s
    while not predicate():
        assert time.monotonic() < deadline, "not within the time allowed"
        await asyncio.sleep(0.02)


async def test_breaker_opens_on_every_edge_then_half_opens_and_closes(routed: Routed, tmp_path: Path) -> None:
    other_settings = routed.settings.model_copy(update={"journal_dir": str(tmp_path / "journal-b")})
    async with running_edge(other_settings, routed.edge.catalogue) as other:
        a = routed.edge.app[STATE].breakers
        b = other.app[STATE].breakers
        assert a is not None and b is not None
        client_b = AsyncOpenAI(base_url=other.base_url, api_key=routed.key, max_retries=0, timeout=20)
        routed.fake.set_faults({"east": {"status": 503}})
        for _ in range(2):  # 2 + 1 failed attempts on east (min_calls 3, all failed): edge A opens it
            await _chat(routed, "routed")
        assert a.state("east:m") == "open"
        await _until(lambda: b.state("east:m") == "open")  # published through Valkey, within 2 s
        raw = await client_b.chat.completions.with_raw_response.create(model="routed", messages=MESSAGES)
        request_id = raw.headers["x-request-id"]
        assert [r["deployment"] for r in routed.fake.requests(request_id)] == ["west"]  # east skipped at once
        row = await routed.row(request_id)
        assert row["attempts"] == 1 and _attempts(row) == [("west-1", 200, None)]

        routed.fake.clear_faults()  # east recovers
        await asyncio.sleep(1.6)  # open_seconds: half-open now
        raw = await client_b.chat.completions.with_raw_response.create(model="routed", messages=MESSAGES)
        probe_id = raw.headers["x-request-id"]
        assert (await routed.row(probe_id))["deployment"] == "east-1"  # the one probe succeeded
        assert b.state("east:m") == "closed"
        await _until(lambda: a.state("east:m") == "closed")  # and every edge hears it
        request_id, _ = await _chat(routed, "routed")
        assert (await routed.row(request_id))["deployment"] == "east-1"
