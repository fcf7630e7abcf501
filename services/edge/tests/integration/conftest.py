"""Integration fixtures: a real edge (create_app) in-process, over real Postgres,
Valkey and Kafka (tollway_testing fixtures) and the fake provider."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest
import pytest_asyncio
import yaml
from aiohttp import web
from aiohttp.test_utils import TestServer
from aiokafka import AIOKafkaConsumer

from tollway_contracts.errors import error_json
from tollway_edge.app import create_app
from tollway_edge.settings import EdgeSettings
from tollway_edge.state import STATE
from tollway_testing.fake_provider import FakeProviderConfig

from .ledger_schema import create_ledger_schema
from .principals_schema import create_principals_schema, upsert_key

PEPPER = "edge-test-pepper"
PROVIDER_KEY_ENV = "TOLLWAY_TEST_PROVIDER_KEY"
os.environ.setdefault(PROVIDER_KEY_ENV, "sk-test-provider")  # the azure/anthropic providers' credential


async def _error_provider_handler(request: web.Request) -> web.Response:
    status = int(request.match_info["status"])
    if request.match_info["shape"] == "openai":
        body = error_json(f"provider says {status}", type="server_error", code="provider_boom")
    else:
        body = b"<html>oops</html>"
    return web.Response(body=body, status=status, content_type="application/json")


@pytest_asyncio.fixture
async def edge_error_provider() -> AsyncIterator[str]:
    """A provider that always fails: ``{url}/{status}/{openai|html}/v1`` answers that status."""
    app = web.Application()
    app.router.add_post("/{status}/{shape}/v1/chat/completions", _error_provider_handler)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        await server.close()


@dataclass
class Edge:
    """A running edge and what a test needs around it."""

    url: str
    dsn: str
    valkey_url: str
    topic: str
    kafka: str
    app: web.Application
    catalogue: dict[str, Any]
    keys: dict[str, str] = field(default_factory=dict)
    key_ids: dict[str, str] = field(default_factory=dict)

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    async def new_key(self, name: str, **kwargs: Any) -> str:
        full, key_id, _ = await upsert_key(self.dsn, PEPPER.encode(), **kwargs)
        self.keys[name], self.key_ids[name] = full, key_id
        return full

    async def events(self, request_ids: set[str], count: int, within_s: float = 20.0) -> list[dict[str, Any]]:
        """Read the topic from the start until ``count`` events of ``request_ids`` are seen
        (then 0.5 s more, to catch extra ones)."""
        consumer = AIOKafkaConsumer(
            self.topic,
            bootstrap_servers=self.kafka,
            auto_offset_reset="earliest",
            enable_auto_commit=False,
            group_id=None,
        )
        await consumer.start()
        found: list[dict[str, Any]] = []
        try:
            deadline = time.monotonic() + within_s
            extra_until: float | None = None
            while time.monotonic() < (extra_until or deadline):
                batch = await consumer.getmany(timeout_ms=200)
                for records in batch.values():
                    for record in records:
                        event = orjson.loads(record.value)
                        if event["request_id"] in request_ids:
                            assert record.key == event["request_id"].encode()
                            found.append(event)
                if len(found) >= count and extra_until is None:
                    extra_until = time.monotonic() + 0.5
        finally:
            await consumer.stop()
        return found


def edge_catalogue(fake_base_url: str, error_url: str, slow_base_url: str) -> dict[str, Any]:
    """Models of the tests: routes to the fake provider, to a closed port, to failing providers."""
    prices = {"input": 150000, "cached_input": 75000, "output": 600000}
    return {
        "version": 1,
        "providers": {
            "fake": {"kind": "openai", "base_url": fake_base_url, "timeout_seconds": 10},
            "dead": {
                "kind": "openai",
                "base_url": "http://127.0.0.1:9/v1",
                "timeout_seconds": 5,
                "connect_timeout_seconds": 2,
            },
            "err500": {"base_url": f"{error_url}/500/openai/v1", "timeout_seconds": 5},
            "err503": {"base_url": f"{error_url}/503/html/v1", "timeout_seconds": 5},
            "slow": {"base_url": slow_base_url, "timeout_seconds": 10},
            # the same fake provider spoken to as Azure (deployment URLs) and as Anthropic
            "azure": {
                "kind": "azure",
                "base_url": fake_base_url.removesuffix("/v1"),
                "api_key_env": PROVIDER_KEY_ENV,
                "api_version": "2024-10-21",
                "timeout_seconds": 10,
            },
            "anthropic": {
                "kind": "anthropic",
                "base_url": fake_base_url,
                "api_key_env": PROVIDER_KEY_ENV,
                "timeout_seconds": 10,
            },
            # two deployments of the fake provider, each holding its own stored responses
            "east": {"base_url": fake_base_url.removesuffix("/v1") + "/d/east/v1", "timeout_seconds": 10},
            "west": {"base_url": fake_base_url.removesuffix("/v1") + "/d/west/v1", "timeout_seconds": 10},
        },
        "models": {
            "gpt-4o-mini": {
                "prices": prices,
                "routes": [{"provider": "fake", "upstream_model": "fake-model"}],
            },
            "gpt-4o": {
                "prices": prices,
                "routes": [{"provider": "fake", "upstream_model": "fake-model-large"}],
            },
            "fallback-dead": {
                "prices": prices,
                "routes": [
                    {"provider": "dead", "upstream_model": "x"},
                    {"provider": "fake", "upstream_model": "fake-model"},
                ],
            },
            "fallback-503": {
                "prices": prices,
                "routes": [
                    {"provider": "err503", "upstream_model": "x"},
                    {"provider": "fake", "upstream_model": "fake-model"},
                ],
            },
            "slow-model": {
                "prices": prices,
                "routes": [{"provider": "slow", "upstream_model": "fake-model"}],
            },
            "unreachable": {"prices": prices, "routes": [{"provider": "dead", "upstream_model": "x"}]},
            "broken": {"prices": prices, "routes": [{"provider": "err500", "upstream_model": "x"}]},
            "text-embedding-3-small": {
                "prices": {"input": 20000, "output": 0},
                "routes": [{"provider": "fake", "upstream_model": "fake-embedding"}],
            },
            "azure-embedding": {
                "prices": {"input": 20000, "output": 0},
                "routes": [{"provider": "azure", "upstream_model": "embed-deployment"}],
            },
            "omni-moderation-latest": {
                "prices": {"input": 0, "output": 0},
                "routes": [{"provider": "fake", "upstream_model": "omni-moderation-latest"}],
            },
            "gpt-3.5-turbo-instruct": {
                "prices": prices,
                "routes": [{"provider": "fake", "upstream_model": "fake-instruct"}],
            },
            "azure-instruct": {
                "prices": prices,
                "routes": [{"provider": "azure", "upstream_model": "instruct-deployment"}],
            },
            "azure-chat": {
                "prices": prices,
                "routes": [{"provider": "azure", "upstream_model": "chat-deployment"}],
            },
            "responses-pair": {  # equal priority and weight: each call draws east or west
                "prices": prices,
                "deployments": [
                    {"name": "east", "provider": "east", "upstream_model": "fake-model"},
                    {"name": "west", "provider": "west", "upstream_model": "fake-model"},
                ],
            },
            "claude-test": {
                "prices": {**prices, "cache_write_input": 187500},  # 1.25x input, as Anthropic's
                "routes": [{"provider": "anthropic", "upstream_model": "claude-fake"}],
            },
        },
    }


@contextlib.asynccontextmanager
async def quota_seeder(dsn: str, valkey_url: str) -> AsyncIterator[tuple[str, str]]:
    """Quota's seeding endpoint (``tollway_quota.seeding``: its handler, seeder
    and ledger read, without the rest of quota, whose migrations would clash
    with the stand-in principals tables) on a free port, over ``dsn`` (with
    the ledger schema) and the edge's Valkey: yields ``(base_url, seed_token)``
    for the edge's ``quota_url``/``quota_seed_token``."""
    from psycopg_pool import AsyncConnectionPool

    from tollway_admission import Admission, valkey_client
    from tollway_quota.seeding import ROUTE, SEED_TOKENS, SEEDER, BudgetSeeder, LedgerSpend, seed_budget

    token = "seed-" + secrets.token_hex(8)
    pool = AsyncConnectionPool(dsn, min_size=1, max_size=4, open=False)
    await pool.open(wait=True, timeout=30)
    valkey = valkey_client(valkey_url)  # one node or a cluster, as the edge's
    app = web.Application()
    app[SEED_TOKENS] = (token.encode(),)
    app[SEEDER] = BudgetSeeder(Admission(valkey), LedgerSpend(pool))
    app.router.add_post(ROUTE, seed_budget)
    server = TestServer(app, host="127.0.0.1", port=0)
    await server.start_server()
    try:
        yield str(server.make_url("")).rstrip("/"), token
    finally:
        await server.close()
        await valkey.aclose()
        await pool.close()


@pytest_asyncio.fixture
async def edge(
    fresh_database: str,
    valkey_test_url: str,
    fresh_topic: Any,
    kafka_bootstrap_servers: str,
    fake_provider: Any,
    fake_provider_factory: Any,
    edge_error_provider: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> AsyncIterator[Edge]:
    """An in-process edge on a free port, with a fresh database, Valkey db and topic.

    ``_ledger``: the ledger schema exists and quota's app runs to seed cold
    budget counters from it (else the edge has no quota URL)."""
    overrides = dict(getattr(request, "param", {}) or {})
    clock = overrides.pop("_clock", None)
    ledger = False
    if not overrides.pop("_no_schema", False):
        await create_principals_schema(fresh_database)
        ledger = overrides.pop("_ledger", False)
        if ledger:
            await create_ledger_schema(fresh_database)
    topic = await fresh_topic(partitions=1)
    slow = fake_provider_factory(
        FakeProviderConfig(chunk_interval_ms=100, completion_tokens=50, access_log=False)
    )
    catalogue = edge_catalogue(fake_provider.base_url, edge_error_provider, slow.base_url)
    path = tmp_path / "catalogue.yaml"
    path.write_text(yaml.safe_dump(catalogue))
    values: dict[str, Any] = {
        "postgres_dsn": fresh_database,
        "valkey_url": valkey_test_url,
        "kafka_bootstrap_servers": kafka_bootstrap_servers,
        "key_pepper": PEPPER,
        "catalogue_path": str(path),
        "usage_topic": topic,
        "max_body_bytes": 64 * 1024,
        "log_format": "console",
        "journal_dir": str(tmp_path / "journal"),  # per test: never adopted by another topic's edge
        "quota_url": "",
    }
    async with contextlib.AsyncExitStack() as stack:
        if ledger:
            values["quota_url"], values["quota_seed_token"] = await stack.enter_async_context(
                quota_seeder(fresh_database, valkey_test_url)
            )
        values.update(overrides)
        running = await stack.enter_async_context(
            running_edge(
                EdgeSettings(**values),
                catalogue,
                clock=clock,
                wait_for_kafka=values["kafka_bootstrap_servers"] == kafka_bootstrap_servers,
            )
        )
        yield running


class EdgeTestServer(TestServer):
    """aiohttp's TestServer, but serving like ``web.run_app`` in production:
    a client that leaves does not cancel its handler (``handler_cancellation``
    off; TestServer turns it on), so the relay meters what the client left."""

    async def _make_runner(self, **kwargs: Any) -> web.AppRunner:
        kwargs["handler_cancellation"] = False
        return web.AppRunner(self.app, **kwargs)


def edge_settings(
    dsn: str,
    valkey_url: str,
    kafka: str,
    topic: str,
    catalogue: dict[str, Any],
    tmp_path: Path,
    **overrides: Any,
) -> EdgeSettings:
    """The settings of an in-process test edge (:func:`running_edge`) over its own
    catalogue file (``catalogue`` written to ``tmp_path/catalogue.yaml``, so a test
    may rewrite it) and journal directory, quota seeding off; ``overrides`` win."""
    path = tmp_path / "catalogue.yaml"
    path.write_text(yaml.safe_dump(catalogue))
    values: dict[str, Any] = {
        "postgres_dsn": dsn,
        "valkey_url": valkey_url,
        "kafka_bootstrap_servers": kafka,
        "key_pepper": PEPPER,
        "catalogue_path": str(path),
        "usage_topic": topic,
        "log_format": "console",
        "journal_dir": str(tmp_path / "journal"),
        "quota_url": "",
    }
    return EdgeSettings(**(values | overrides))


@contextlib.asynccontextmanager
async def running_edge(
    settings: EdgeSettings,
    catalogue: dict[str, Any],
    *,
    clock: Any = None,
    wait_for_kafka: bool = True,
) -> AsyncIterator[Edge]:
    """Serve ``create_app(settings)`` in process on a free port until the block ends.

    Waits (up to 15 s) for the Kafka producer to connect when ``wait_for_kafka``
    (it connects in the background; a test that points at a dead broker passes False).
    """
    app = create_app(settings, admission_clock=clock) if clock is not None else create_app(settings)
    server = EdgeTestServer(app, host="127.0.0.1")
    await server.start_server()
    state = app[STATE]
    for _ in range(300 if wait_for_kafka else 0):
        if state.journal.kafka_connected:
            break
        await asyncio.sleep(0.05)
    try:
        yield Edge(
            url=f"http://127.0.0.1:{server.port}",
            dsn=settings.postgres_dsn,
            valkey_url=settings.valkey_url,
            topic=settings.usage_topic,
            kafka=settings.kafka_bootstrap_servers,
            app=app,
            catalogue=catalogue,
        )
    finally:
        await server.close()


@pytest_asyncio.fixture
async def edge_http() -> AsyncIterator[aiohttp.ClientSession]:
    """A plain HTTP client for raw requests."""
    async with aiohttp.ClientSession() as session:
        yield session
