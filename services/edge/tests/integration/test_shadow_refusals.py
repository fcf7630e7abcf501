"""Shadow mode visible (issue 15): a shadow limit that would refuse refuses
nothing, and shows in ``tollway_admission_shadow_refusals_total``, on the
canonical request line, in the usage event and in the ledger row. Real
Valkey, Kafka, Postgres; the ledger runs in process on the edge's topic."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest
import structlog
from prometheus_client import REGISTRY

from .conftest import Edge
from .ledger_rows import ledger_row, running_ledger

pytestmark = pytest.mark.integration

BODY = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Say hello."}], "max_tokens": 10}


def _shadow_count(scope: str, limit: str) -> float:
    value = REGISTRY.get_sample_value(
        "tollway_admission_shadow_refusals_total", {"scope": scope, "limit": limit}
    )
    return value or 0.0


@pytest.mark.parametrize("edge", [{"_ledger": True}], indirect=True)
async def test_a_shadow_limit_that_would_refuse_refuses_nothing_and_is_seen_everywhere(
    edge: Edge, edge_http: aiohttp.ClientSession, fresh_topic: Any
) -> None:
    key = await edge.new_key(
        "a",
        limits=[
            {"scope": "key", "scope_id": "$key", "requests_per_minute": 1000},  # enforced, fits
            {"scope": "team", "scope_id": "team-1", "tokens_per_minute": 1, "shadow": True},
        ],
    )
    before = _shadow_count("team", "tokens_per_minute")
    with structlog.testing.capture_logs() as logs:
        async with edge_http.post(
            edge.base_url + "/chat/completions", json=BODY, headers={"Authorization": f"Bearer {key}"}
        ) as resp:
            assert resp.status == 200, await resp.text()
            request_id = resp.headers["x-request-id"]
    # The enforced limit still answers OpenAI's headers; the shadow one is not among them.
    assert resp.headers["x-ratelimit-limit-requests"] == "1000"
    assert "x-ratelimit-limit-tokens" not in resp.headers

    assert _shadow_count("team", "tokens_per_minute") == before + 1
    async with edge_http.get(edge.url + "/metrics") as m:
        exposed = await m.text()
    assert 'tollway_admission_shadow_refusals_total{limit="tokens_per_minute",scope="team"}' in exposed

    line = next(e for e in logs if e["event"] == "request" and e["request_id"] == request_id)
    assert line["status"] == 200 and line["shadow_refusals"] == ["team:team-1 tokens_per_minute"]

    expected = [{"scope": "team:team-1", "limit": "tokens_per_minute"}]
    events = await edge.events({request_id}, 2)
    assert sorted(e["type"] for e in events) == ["completed", "started"]
    assert all(e["shadow_refusals"] == expected for e in events)

    dlq = await fresh_topic(partitions=1)
    async with running_ledger(edge.dsn, edge.topic, dlq, edge.kafka):
        row = await ledger_row(edge.dsn, request_id)
    assert row["status"] == "completed" and row["status_code"] == 200
    stored = row["shadow_refusals"]
    assert (json.loads(stored) if isinstance(stored, str) else stored) == expected


@pytest.mark.parametrize("edge", [{"_ledger": True}], indirect=True)
async def test_no_shadow_refusal_when_the_shadow_limit_fits(
    edge: Edge, edge_http: aiohttp.ClientSession
) -> None:
    key = await edge.new_key(
        "a", limits=[{"scope": "key", "scope_id": "$key", "requests_per_minute": 1000, "shadow": True}]
    )
    before = _shadow_count("key", "requests_per_minute")
    async with edge_http.post(
        edge.base_url + "/chat/completions", json=BODY, headers={"Authorization": f"Bearer {key}"}
    ) as resp:
        assert resp.status == 200
        request_id = resp.headers["x-request-id"]
    events = await edge.events({request_id}, 2)
    assert [e["shadow_refusals"] for e in events] == [None, None]
    assert _shadow_count("key", "requests_per_minute") == before
