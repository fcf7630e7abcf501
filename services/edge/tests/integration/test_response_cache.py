"""The exact response cache (issue 13) against the real stack: Valkey holds the
entries, the real ledger bills the calls from the edge's usage topic, the
``openai`` SDK is the client. A hit gives the same answer (JSON or replayed as
a stream), reaches no provider, bills zero cost with the original tokens, and
never crosses tenants or the caller's regions; ``no-cache``/``no-store`` and
keys without a policy behave as documented in ``tollway_edge.cache``."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import yaml
from openai import AsyncOpenAI
from prometheus_client import REGISTRY

from tollway_edge.settings import EdgeSettings

from .conftest import PEPPER, Edge, running_edge
from .ledger_rows import ledger_for, rows
from .ledger_schema import create_ledger_schema
from .principals_schema import create_principals_schema

pytestmark = pytest.mark.integration

PRICES = {"input": 150000, "cached_input": 75000, "output": 600000}


def _catalogue(fake: Any) -> dict[str, Any]:
    def provider(name: str) -> dict[str, Any]:
        return {"kind": "openai", "base_url": fake.deployment_url(name), "timeout_seconds": 10}

    return {
        "version": 1,
        "providers": {"us": provider("rc-us"), "eu": provider("rc-eu")},
        "models": {
            "cached": {
                "prices": PRICES,
                "deployments": [
                    {"name": "us-1", "provider": "us", "upstream_model": "m", "regions": ["us"]},
                    {
                        "name": "eu-1",
                        "provider": "eu",
                        "upstream_model": "m",
                        "priority": 1,
                        "regions": ["eu"],
                    },
                ],
            },
        },
    }


@dataclass
class Cached:
    edge: Edge
    dsn: str
    fake: Any

    def client(self, key: str, **headers: str) -> AsyncOpenAI:
        return AsyncOpenAI(
            base_url=self.edge.base_url, api_key=key, max_retries=0, timeout=20, default_headers=headers
        )

    def provider_calls(self) -> int:
        return len([r for r in self.fake.requests() if r.get("deployment") in ("rc-us", "rc-eu")])


@pytest_asyncio.fixture
async def cached(
    fresh_database: str,
    valkey_test_url: str,
    fresh_topic: Any,
    kafka_bootstrap_servers: str,
    fake_provider: Any,
    tmp_path: Path,
) -> AsyncIterator[Cached]:
    await create_principals_schema(fresh_database)
    await create_ledger_schema(fresh_database)
    topic = await fresh_topic(partitions=1)
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
    async with contextlib.AsyncExitStack() as stack:
        await stack.enter_async_context(
            ledger_for(fresh_database, kafka_bootstrap_servers, topic, fresh_topic)
        )
        edge = await stack.enter_async_context(running_edge(settings, catalogue))
        yield Cached(edge, fresh_database, fake_provider)


def _counted(outcome: str) -> float:
    return REGISTRY.get_sample_value("tollway_response_cache_total", {"outcome": outcome}) or 0.0


def _messages() -> list[dict[str, str]]:
    # unique per test run: the test Valkey outlives a test, entries live for their TTL
    return [{"role": "user", "content": f"Tell me about caches, run {uuid.uuid4().hex}."}]


async def _chat(client: AsyncOpenAI, messages: list[dict[str, str]]) -> tuple[str, str | None, str]:
    raw = await client.chat.completions.with_raw_response.create(model="cached", messages=messages)  # type: ignore[arg-type]
    text = raw.parse().choices[0].message.content or ""
    return raw.headers["x-request-id"], raw.headers.get("x-tollway-cache"), text


async def test_hit_same_answer_zero_cost_stream_replayed(cached: Cached) -> None:
    key = await cached.edge.new_key("a", tenant_id="t-rc", response_cache_ttl_seconds=60)
    client = cached.client(key)
    messages = _messages()
    before = cached.provider_calls()
    miss_id, miss_header, miss_text = await _chat(client, messages)
    hit_id, hit_header, hit_text = await _chat(client, messages)
    assert (miss_header, hit_header) == ("miss", "hit")
    assert hit_text == miss_text and hit_text
    assert cached.provider_calls() == before + 1  # the hit reached no provider

    # the same request streamed: the cached answer replayed as chunks the SDK parses
    raw = await client.chat.completions.with_raw_response.create(
        model="cached",
        messages=messages,  # type: ignore[arg-type]
        stream=True,
        stream_options={"include_usage": True},
    )
    assert raw.headers["x-tollway-cache"] == "hit"
    parts: list[str] = []
    usage = None
    async for chunk in raw.parse():
        parts.extend(c.delta.content or "" for c in chunk.choices)
        usage = chunk.usage or usage
    stream_id = raw.headers["x-request-id"]
    assert "".join(parts) == miss_text
    assert cached.provider_calls() == before + 1

    got = await rows(cached.dsn, [miss_id, hit_id, stream_id])
    miss, hit, streamed = got[miss_id], got[hit_id], got[stream_id]
    assert miss["response_cache_hit"] is False and miss["cost_micro_usd"] > 0
    for row in (hit, streamed):
        assert row["response_cache_hit"] is True
        assert row["status"] == "completed" and row["status_code"] == 200
        assert row["cost_micro_usd"] == 0  # no provider served it
        assert row["prompt_tokens"] == miss["prompt_tokens"] > 0
        assert row["completion_tokens"] == miss["completion_tokens"] > 0
        assert row["deployment"] == "us-1" and row["attempts"] == 0
    assert streamed["stream"] is True
    assert usage is not None and usage.completion_tokens == miss["completion_tokens"]


async def test_never_across_tenants_and_directives(cached: Cached) -> None:
    a = await cached.edge.new_key("a", tenant_id="t-rc-a", response_cache_ttl_seconds=60)
    b = await cached.edge.new_key("b", tenant_id="t-rc-b", response_cache_ttl_seconds=60)
    messages = _messages()
    counts = {o: _counted(o) for o in ("hit", "miss", "bypass")}
    assert (await _chat(cached.client(a), messages))[1] == "miss"
    assert (await _chat(cached.client(b), messages))[1] == "miss"  # another tenant: its own entry
    assert (await _chat(cached.client(a, **{"Cache-Control": "no-cache"}), messages))[1] == "miss"
    assert (await _chat(cached.client(a), messages))[1] == "hit"
    assert {o: _counted(o) - n for o, n in counts.items()} == {"hit": 1, "miss": 2, "bypass": 1}

    fresh = _messages()
    before = cached.provider_calls()
    assert (await _chat(cached.client(a, **{"Cache-Control": "no-store"}), fresh))[1] == "miss"
    assert (await _chat(cached.client(a), fresh))[1] == "miss"  # nothing was stored
    assert cached.provider_calls() == before + 2


async def test_no_policy_no_cache(cached: Cached) -> None:
    key = await cached.edge.new_key("plain", tenant_id="t-rc-plain")
    messages = _messages()
    first = await _chat(cached.client(key), messages)
    second = await _chat(cached.client(key), messages)
    assert first[1] is None and second[1] is None  # no header: the cache was not used
    got = await rows(cached.dsn, [first[0], second[0]])
    assert all(r["response_cache_hit"] is False and r["cost_micro_usd"] > 0 for r in got.values())


async def test_residency_hit_from_outside_regions_not_served(cached: Cached) -> None:
    anywhere = await cached.edge.new_key("any", tenant_id="t-rc-r", response_cache_ttl_seconds=60)
    eu_only = await cached.edge.new_key(
        "eu", tenant_id="t-rc-r", allowed_regions=["eu"], response_cache_ttl_seconds=60
    )
    messages = _messages()
    first = await _chat(cached.client(anywhere), messages)  # answered by us-1 and stored
    second = await _chat(cached.client(eu_only), messages)
    assert (first[1], second[1]) == ("miss", "miss")  # the us answer is never served to an eu-only key
    third = await _chat(cached.client(eu_only), messages)
    assert third[1] == "hit"  # its own eu answer is
    got = await rows(cached.dsn, [first[0], second[0], third[0]])
    assert got[first[0]]["deployment"] == "us-1"
    assert got[second[0]]["deployment"] == "eu-1" and got[second[0]]["response_cache_hit"] is False
    assert got[third[0]]["deployment"] == "eu-1" and got[third[0]]["response_cache_hit"] is True


async def test_tools_are_not_cached(cached: Cached) -> None:
    key = await cached.edge.new_key("t", tenant_id="t-rc-tools", response_cache_ttl_seconds=60)
    tools = [{"type": "function", "function": {"name": "send_email", "parameters": {"type": "object"}}}]
    messages = _messages()
    for _ in range(2):
        raw = await cached.client(key).chat.completions.with_raw_response.create(
            model="cached",
            messages=messages,  # type: ignore[arg-type]
            tools=tools,  # type: ignore[list-item]
        )
        assert raw.headers.get("x-tollway-cache") is None


async def test_streamed_miss_is_stored_and_served_to_both_forms(cached: Cached) -> None:
    key = await cached.edge.new_key("s", tenant_id="t-rc-stream", response_cache_ttl_seconds=60)
    client = cached.client(key)
    messages = _messages()

    async def stream() -> tuple[str, str | None, str]:
        raw = await client.chat.completions.with_raw_response.create(
            model="cached",
            messages=messages,  # type: ignore[arg-type]
            stream=True,
        )
        parts: list[str] = []
        async for chunk in raw.parse():
            parts.extend(c.delta.content or "" for c in chunk.choices)
        return raw.headers["x-request-id"], raw.headers.get("x-tollway-cache"), "".join(parts)

    before = cached.provider_calls()
    miss = await stream()
    plain = await _chat(client, messages)
    again = await stream()
    assert (miss[1], plain[1], again[1]) == ("miss", "hit", "hit")
    assert miss[2] and plain[2] == miss[2] == again[2]
    assert cached.provider_calls() == before + 1
    got = await rows(cached.dsn, [miss[0], plain[0], again[0]])
    assert got[miss[0]]["cost_micro_usd"] > 0 and got[miss[0]]["response_cache_hit"] is False
    for i in (plain[0], again[0]):
        assert got[i]["response_cache_hit"] is True and got[i]["cost_micro_usd"] == 0
        assert got[i]["completion_tokens"] == got[miss[0]]["completion_tokens"] > 0
