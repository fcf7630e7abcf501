"""The edge's Valkey round trips per call, counted at its clients and read from ``/metrics``
(``tollway_valkey_round_trips_total{service="edge"}``, tollway_admission.roundtrips).

On the default path (limits of the request, token and concurrency kinds on the key, the
user and the team; no response cache; breakers closed) a chat call costs the edge two round
trips: the admit script and the release script, however many checks they run inside Valkey.
Issue 9's goal is at most three per call with quota's settlement; the bench reports the sum.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from .conftest import PEPPER
from .principals_schema import create_principals_schema, upsert_key
from .processes import catalogue, free_port, start_edge, start_fake_provider, stop, wait_http

pytestmark = pytest.mark.integration

CALLS = 60


def _edge_round_trips(text: str) -> float:
    total = 0.0
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == "tollway_valkey_round_trips_total" and s.labels.get("service") == "edge":
                total += s.value
    return total


async def test_a_chat_call_costs_the_edge_two_valkey_round_trips(
    fresh_database: str, valkey_test_url: str, fresh_topic: Any, kafka_bootstrap_servers: str, tmp_path: Path
) -> None:
    await create_principals_schema(fresh_database)
    limits = [
        {
            "scope": "key",
            "scope_id": "$key",
            "requests_per_minute": 10**6,
            "tokens_per_minute": 10**9,
            "max_concurrent": 1000,
        },
        {"scope": "user", "scope_id": "user-1", "requests_per_minute": 10**6},
        {"scope": "team", "scope_id": "team-1", "max_concurrent": 1000},
    ]
    key, _, _ = await upsert_key(fresh_database, PEPPER.encode(), tenant_id="tn_round_trips", limits=limits)
    topic = await fresh_topic(partitions=1)
    fake_port, port = free_port(), free_port()
    fake = start_fake_provider(fake_port, tmp_path / "fake.log")
    path = tmp_path / "catalogue.yaml"
    path.write_text(yaml.safe_dump(catalogue(f"http://127.0.0.1:{fake_port}/v1")))
    env = {
        "TOLLWAY_POSTGRES_DSN": fresh_database,
        "TOLLWAY_VALKEY_URL": valkey_test_url,
        "TOLLWAY_KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap_servers,
        "TOLLWAY_KEY_PEPPER": PEPPER,
        "TOLLWAY_CATALOGUE_PATH": str(path),
        "TOLLWAY_EDGE_USAGE_TOPIC": topic,
        "TOLLWAY_EDGE_WORKERS": "1",
    }
    edge = start_edge(port, env, tmp_path / "edge.log")
    url = f"http://127.0.0.1:{port}"
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 8}
    try:
        await wait_http(f"http://127.0.0.1:{fake_port}/healthz", proc=fake)
        await wait_http(f"{url}/readyz", within_s=60, proc=edge)
        async with aiohttp.ClientSession() as http:

            async def call() -> None:
                async with http.post(
                    url + "/v1/chat/completions", json=body, headers={"Authorization": f"Bearer {key}"}
                ) as resp:
                    assert resp.status == 200, await resp.text()
                    await resp.read()

            async def round_trips() -> float:
                async with http.get(url + "/metrics") as resp:
                    return _edge_round_trips(await resp.text())

            await call()  # connections opened, scripts loaded
            before = await round_trips()
            assert before > 0  # the edge exports the counter
            for _ in range(CALLS // 6):
                await asyncio.gather(*(call() for _ in range(6)))
            spent = await round_trips() - before
        # admit + release per call; a background heartbeat may add one or two in the window
        assert 2 * CALLS <= spent <= 2 * CALLS + 4, spent
    finally:
        stop(edge)
        stop(fake)
