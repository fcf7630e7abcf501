"""Two edge PROCESSES share the limits exactly: 300 concurrent clients against
a spend budget, a requests-per-minute limit and a concurrency limit worth N
calls are answered with exactly N admissions (the rest 429)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest
import pytest_asyncio
import redis.asyncio as aioredis
import yaml
from aiokafka import AIOKafkaConsumer

from tollway_admission import keys as K
from tollway_admission import period_window
from tollway_contracts.catalogue import Prices
from tollway_contracts.limits import parse_limit
from tollway_contracts.pricing import cost_micro_usd
from tollway_edge.admission.bounds import prompt_token_bound

from .conftest import PEPPER, quota_seeder
from .ledger_schema import create_ledger_schema
from .principals_schema import create_principals_schema, upsert_key
from .processes import (
    catalogue,
    free_port,
    start_edge,
    start_fake_provider,
    stop,
    wait_http,
)

pytestmark = pytest.mark.integration

CLIENTS = 300
PRICES = Prices(input=150000, cached_input=75000, output=600000)
BODY = {
    "model": "gpt-4o-mini",
    "messages": [{"role": "user", "content": "Count to three."}],
    "max_tokens": 16,
}
PROMPT = prompt_token_bound(BODY)
CALL_COST = cost_micro_usd(PRICES, prompt_tokens=PROMPT, completion_tokens=16)


@dataclass
class Edges:
    urls: list[str]
    dsn: str
    valkey_url: str
    topic: str
    kafka: str

    async def key(self, limits: list[dict[str, Any]], tenant: str) -> tuple[str, str]:
        full, key_id, _ = await upsert_key(self.dsn, PEPPER.encode(), tenant_id=tenant, limits=limits)
        return full, key_id


@pytest_asyncio.fixture
async def two_edges(
    fresh_database: str, valkey_test_url: str, fresh_topic: Any, kafka_bootstrap_servers: str, tmp_path: Path
) -> AsyncIterator[Edges]:
    await create_principals_schema(fresh_database)
    await create_ledger_schema(fresh_database)
    topic = await fresh_topic(partitions=2)
    fake_port = free_port()
    fake = start_fake_provider(fake_port, tmp_path / "fake.log")
    slow_port = free_port()
    # The edge does not forward x-fake-* headers: a provider that holds every call open 12 s.
    slow = start_fake_provider(slow_port, tmp_path / "slow.log", "--ttft-ms", "12000")
    path = tmp_path / "catalogue.yaml"
    path.write_text(
        yaml.safe_dump(catalogue(f"http://127.0.0.1:{fake_port}/v1", f"http://127.0.0.1:{slow_port}/v1"))
    )
    quota = quota_seeder(fresh_database, valkey_test_url)  # seeds the cold budget counters
    quota_url, seed_token = await quota.__aenter__()
    env = {
        "TOLLWAY_POSTGRES_DSN": fresh_database,
        "TOLLWAY_VALKEY_URL": valkey_test_url,
        "TOLLWAY_KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap_servers,
        "TOLLWAY_KEY_PEPPER": PEPPER,
        "TOLLWAY_CATALOGUE_PATH": str(path),
        "TOLLWAY_EDGE_USAGE_TOPIC": topic,
        "TOLLWAY_EDGE_EXPECTED_PROCESSES": "2",
        "TOLLWAY_EDGE_QUOTA_URL": quota_url,
        "TOLLWAY_QUOTA_SEED_TOKEN": seed_token,
    }
    ports = [free_port(), free_port()]
    procs = [start_edge(p, env, tmp_path / f"edge-{p}.log") for p in ports]
    try:
        await wait_http(f"http://127.0.0.1:{fake_port}/healthz", proc=fake)
        await wait_http(f"http://127.0.0.1:{slow_port}/healthz", proc=slow)
        for p, proc in zip(ports, procs, strict=True):
            await wait_http(f"http://127.0.0.1:{p}/readyz", within_s=60, proc=proc)
        yield Edges(
            [f"http://127.0.0.1:{p}" for p in ports],
            fresh_database,
            valkey_test_url,
            topic,
            kafka_bootstrap_servers,
        )
    finally:
        for proc in procs:
            stop(proc)
        stop(fake)
        stop(slow)
        await quota.__aexit__(None, None, None)


async def _burst(edges: Edges, key: str, model: str = "gpt-4o-mini") -> list[tuple[int, Any]]:
    """CLIENTS concurrent calls, alternating between the two processes, released together."""
    gate = asyncio.Event()
    h = {"Authorization": f"Bearer {key}"}
    body = {**BODY, "model": model}
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=120)) as http:

        async def one(i: int) -> tuple[int, dict[str, str]]:
            await gate.wait()
            async with http.post(edges.urls[i % 2] + "/v1/chat/completions", json=body, headers=h) as resp:
                await resp.read()
                return resp.status, resp.headers.copy()

        tasks = [asyncio.create_task(one(i)) for i in range(CLIENTS)]
        await asyncio.sleep(0.2)
        gate.set()
        return await asyncio.gather(*tasks)


def _statuses(results: list[tuple[int, dict[str, str]]]) -> dict[int, int]:
    out: dict[int, int] = {}
    for status, _ in results:
        out[status] = out.get(status, 0) + 1
    return out


async def _events(edges: Edges, ids: set[str], count: int, within_s: float = 30.0) -> list[dict[str, Any]]:
    consumer = AIOKafkaConsumer(
        edges.topic,
        bootstrap_servers=edges.kafka,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        group_id=None,
    )
    await consumer.start()
    found: list[dict[str, Any]] = []
    try:
        deadline = time.monotonic() + within_s
        while time.monotonic() < deadline and len(found) < count:
            batch = await consumer.getmany(timeout_ms=200)
            for records in batch.values():
                for r in records:
                    e = orjson.loads(r.value)
                    if e["request_id"] in ids and e["type"] != "started":
                        found.append(e)
    finally:
        await consumer.stop()
    return found


async def test_spend_budget_admits_exactly_n_across_two_processes(two_edges: Edges) -> None:
    n = 37
    budget = n * CALL_COST
    tenant = "tenant-budget"
    limit = {"scope": "tenant", "scope_id": tenant, "budget_micro_usd": budget, "budget_period": "month"}
    key, _ = await two_edges.key([limit], tenant)
    results = await _burst(two_edges, key)
    assert _statuses(results) == {200: n, 429: CLIENTS - n}
    for status, headers in results:
        assert "x-request-id" in headers
        if status == 429:
            assert int(headers["Retry-After"]) >= 1

    # The priced reservations on the counter never exceed the budget.
    w = period_window("month", "UTC", datetime.now(UTC))
    counter = K.budget_key(tenant, parse_limit(limit), int(w.start.timestamp()))
    client = aioredis.from_url(two_edges.valkey_url)
    try:
        held = {k.decode(): int(v) for k, v in (await client.hgetall(counter)).items()}
    finally:
        await client.aclose()
    assert sum(held.values()) == n * CALL_COST <= budget

    ids = {h["x-request-id"] for _, h in results}
    events = await _events(two_edges, ids, CLIENTS)
    assert len(events) == CLIENTS
    done = [e for e in events if e["type"] == "completed"]
    assert (
        len(done) == n and sum(e["reservation"][f"tenant:{tenant}"]["cost_micro_usd"] for e in done) <= budget
    )
    assert sum(1 for e in events if e["type"] == "failed" and e["status_code"] == 429) == CLIENTS - n


async def test_requests_per_minute_admits_exactly_n_across_two_processes(two_edges: Edges) -> None:
    n = 53
    key, _ = await two_edges.key(
        [{"scope": "key", "scope_id": "$key", "requests_per_minute": n}], "tenant-rpm"
    )
    # Keep the burst inside one calendar minute.
    while datetime.now(UTC).second > 40:  # noqa: ASYNC110 - waits for the wall clock, not an event
        await asyncio.sleep(0.5)
    results = await _burst(two_edges, key)
    assert _statuses(results) == {200: n, 429: CLIENTS - n}
    admitted = [h for s, h in results if s == 200]
    assert all(h["x-ratelimit-limit-requests"] == str(n) for h in admitted)
    assert sorted(int(h["x-ratelimit-remaining-requests"]) for h in admitted) == list(range(n))


async def test_concurrency_admits_exactly_n_across_two_processes(two_edges: Edges) -> None:
    n = 29
    key, _ = await two_edges.key(
        [{"scope": "user", "scope_id": "user-1", "max_concurrent": n}], "tenant-conc"
    )
    # Every admitted call is held open 12 s by the provider (``slow-model``), so
    # all 300 calls arrive while the admitted ones hold their slots.
    for _ in range(2):  # the second time: the slots were released when the responses ended
        t0 = time.monotonic()
        results = await _burst(two_edges, key, "slow-model")
        assert time.monotonic() - t0 >= 12
        assert _statuses(results) == {200: n, 429: CLIENTS - n}
