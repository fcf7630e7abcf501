"""The edge's overhead and time-to-first-token histograms and its fail-closed
redaction counter (the metrics the alert rules TollwayOverheadP99High and
TollwayRedactorFailingClosed watch), over real Valkey, Postgres and Kafka."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest
from prometheus_client import REGISTRY

from tollway_edge.auth.principals import parse_redaction_policy
from tollway_edge.state import STATE

from .conftest import PEPPER, Edge
from .principals_schema import upsert_key
from .redaction_support import set_policy

pytestmark = pytest.mark.integration

BODY = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Say hello."}], "max_tokens": 5}


def _value(name: str, labels: dict[str, str] | None = None) -> float:
    return REGISTRY.get_sample_value(name, labels or {}) or 0.0


async def test_every_call_observes_its_overhead_and_a_stream_its_time_to_first_token(
    edge: Edge, edge_http: aiohttp.ClientSession
) -> None:
    key = await edge.new_key("a")
    h = {"Authorization": f"Bearer {key}"}
    overhead, ttft = (
        _value("tollway_overhead_seconds_count"),
        _value("tollway_time_to_first_token_seconds_count"),
    )
    async with edge_http.post(edge.base_url + "/chat/completions", json=BODY, headers=h) as r:
        assert r.status == 200
        await r.read()
    assert _value("tollway_overhead_seconds_count") == overhead + 1
    assert _value("tollway_time_to_first_token_seconds_count") == ttft  # not a stream
    async with edge_http.post(
        edge.base_url + "/chat/completions", json={**BODY, "stream": True}, headers=h
    ) as r:
        assert r.status == 200
        await r.read()
    assert _value("tollway_overhead_seconds_count") == overhead + 2
    assert _value("tollway_time_to_first_token_seconds_count") == ttft + 1
    async with edge_http.get(edge.url + "/metrics") as m:
        text = await m.text()
    assert "tollway_overhead_seconds_bucket" in text and "tollway_time_to_first_token_seconds_bucket" in text


@pytest.mark.parametrize("edge", [{"redactor_urls": "http://127.0.0.1:9"}], indirect=True)
async def test_a_call_failed_closed_for_redaction_is_counted(
    edge: Edge, edge_http: aiohttp.ClientSession
) -> None:
    full, key_id, _ = await upsert_key(edge.dsn, PEPPER.encode())
    policy = {"mode": "redact"}
    await set_policy(edge.dsn, key_id, policy)
    for _ in range(100):
        p = edge.app[STATE].snapshot.by_key_id.get(key_id)
        if p is not None and p.redaction_policy == parse_redaction_policy(policy):
            break
        await asyncio.sleep(0.05)
    before = _value("tollway_redaction_failures_total", {"reason": "unavailable"})
    h = {"Authorization": f"Bearer {full}"}
    async with edge_http.post(edge.base_url + "/chat/completions", json=BODY, headers=h) as r:
        assert r.status == 503
        assert (await r.json())["error"]["code"] == "redaction_unavailable"
    assert _value("tollway_redaction_failures_total", {"reason": "unavailable"}) == before + 1
