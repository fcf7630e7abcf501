"""The live catalogue (issue 13) on a private edge over the real stack: editing
its catalogue file changes prices and deployments within seconds, without a
restart and with no failed call while calls run; a call in flight keeps the
catalogue (version and prices) it started with; a broken file changes
nothing and is counted. Billing is read from the real ledger's rows."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import yaml
from openai import AsyncOpenAI
from prometheus_client import REGISTRY

from tollway_contracts.catalogue import Prices, version_of
from tollway_edge.settings import EdgeSettings
from tollway_edge.usage import Tokens
from tollway_testing.fake_provider import FakeProviderConfig

from .conftest import PEPPER, Edge, running_edge
from .ledger_rows import ledger_for, rows
from .ledger_schema import create_ledger_schema
from .principals_schema import create_principals_schema

pytestmark = pytest.mark.integration

OLD_PRICES = {"input": 150000, "output": 600000}
NEW_PRICES = {"input": 300000, "output": 2400000}
MESSAGES = [{"role": "user", "content": "Say hello to the live catalogue."}]


def _catalogue(fake: Any, slow_url: str, prices: dict[str, int], deployment: str) -> dict[str, Any]:
    return {
        "version": 1,
        "providers": {
            "a": {"base_url": fake.deployment_url("live-a"), "timeout_seconds": 10},
            "b": {"base_url": fake.deployment_url("live-b"), "timeout_seconds": 10},
            "slow": {"base_url": slow_url, "timeout_seconds": 10},
        },
        "models": {
            "live": {
                "prices": prices,
                "deployments": [{"name": deployment, "provider": deployment[0], "upstream_model": "m"}],
            },
            "live-slow": {
                "prices": prices,
                "deployments": [{"name": "slow-1", "provider": "slow", "upstream_model": "m"}],
            },
        },
    }


@dataclass
class Live:
    edge: Edge
    dsn: str
    path: Path
    fake: Any
    slow_url: str
    key: str

    def client(self) -> AsyncOpenAI:
        return AsyncOpenAI(base_url=self.edge.base_url, api_key=self.key, max_retries=0, timeout=20)

    def write(self, text: str) -> str:
        """Replace the file the way a ConfigMap update does (a new inode renamed over it)."""
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(text)
        os.replace(tmp, self.path)
        return version_of(text.encode())


@pytest_asyncio.fixture
async def live(
    fresh_database: str,
    valkey_test_url: str,
    fresh_topic: Any,
    kafka_bootstrap_servers: str,
    fake_provider: Any,
    fake_provider_factory: Any,
    tmp_path: Path,
) -> AsyncIterator[Live]:
    await create_principals_schema(fresh_database)
    await create_ledger_schema(fresh_database)
    topic = await fresh_topic(partitions=1)
    slow = fake_provider_factory(
        FakeProviderConfig(chunk_interval_ms=100, completion_tokens=30, access_log=False)
    )
    catalogue = _catalogue(fake_provider, slow.base_url, OLD_PRICES, "a-1")
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
    )  # the default poll interval (1 s)
    async with contextlib.AsyncExitStack() as stack:
        await stack.enter_async_context(
            ledger_for(fresh_database, kafka_bootstrap_servers, topic, fresh_topic)
        )
        edge = await stack.enter_async_context(running_edge(settings, catalogue))
        key = await edge.new_key("a", tenant_id="t-live")
        yield Live(edge, fresh_database, path, fake_provider, slow.base_url, key)


def _reloads(outcome: str) -> float:
    return REGISTRY.get_sample_value("tollway_catalogue_reload_total", {"outcome": outcome}) or 0.0


async def _until(done: Callable[[], bool], within_s: float = 5.0) -> None:
    for _ in range(int(within_s / 0.05)):
        if done():
            return
        await asyncio.sleep(0.05)


def _cost(row: Any, prices: dict[str, int]) -> int:
    tokens = Tokens(
        row["prompt_tokens"], row["completion_tokens"], 0, 0, row["prompt_tokens"] + row["completion_tokens"]
    )
    return tokens.cost(Prices(**prices))


async def test_edit_changes_prices_and_deployment_within_seconds_in_flight_keeps_its_own(live: Live) -> None:
    old_version = version_of(live.path.read_bytes())
    client = live.client()

    # a stream in flight across the change (30 chunks, 100 ms apart)
    async def slow_stream() -> str:
        raw = await client.chat.completions.with_raw_response.create(
            model="live-slow",
            messages=MESSAGES,
            stream=True,  # type: ignore[arg-type]
        )
        async for _ in raw.parse():
            pass
        return raw.headers["x-request-id"]

    in_flight = asyncio.create_task(slow_stream())
    await asyncio.sleep(0.5)

    # calls keep running while the file changes: none may fail
    ids: list[str] = []
    stop = asyncio.Event()

    async def load() -> None:
        while not stop.is_set():
            raw = await client.chat.completions.with_raw_response.create(model="live", messages=MESSAGES)  # type: ignore[arg-type]
            assert raw.http_response.status_code == 200
            ids.append(raw.headers["x-request-id"])

    loader = asyncio.create_task(load())
    await asyncio.sleep(0.3)
    reloaded_before = _reloads("reloaded")
    changed_at = time.monotonic()
    new_version = live.write(yaml.safe_dump(_catalogue(live.fake, live.slow_url, NEW_PRICES, "b-1")))
    seen_after: float | None = None
    while time.monotonic() - changed_at < 5:
        await asyncio.sleep(0.05)
        if live.fake.requests(deployment="live-b"):
            seen_after = time.monotonic() - changed_at
            break
    await asyncio.sleep(0.3)
    stop.set()
    await loader
    stream_id = await in_flight
    assert seen_after is not None and seen_after < 2.0, seen_after  # routing changed within 2 s
    assert _reloads("reloaded") == reloaded_before + 1

    got = await rows(live.dsn, [*ids, stream_id])
    versions = [got[i]["catalogue_version"] for i in ids]
    assert versions[0] == old_version and versions[-1] == new_version
    assert set(versions) == {old_version, new_version}
    first_new = versions.index(new_version)
    assert versions[first_new:] == [new_version] * (len(versions) - first_new)  # no flapping back
    for i in ids:
        row = got[i]
        assert row["status"] == "completed"
        new = row["catalogue_version"] == new_version
        assert row["deployment"] == ("b-1" if new else "a-1")
        assert row["cost_micro_usd"] == _cost(row, NEW_PRICES if new else OLD_PRICES) > 0
    streamed = got[stream_id]  # admitted before the change: its catalogue and prices to the end
    assert streamed["status"] == "completed" and streamed["catalogue_version"] == old_version
    assert streamed["cost_micro_usd"] == _cost(streamed, OLD_PRICES)


async def test_broken_file_changes_nothing(live: Live) -> None:
    client = live.client()
    version = version_of(live.path.read_bytes())
    invalid_before = _reloads("invalid")
    bad = _catalogue(live.fake, live.slow_url, {"input": -1, "output": 5}, "b-1")  # negative price
    live.write(yaml.safe_dump(bad))
    await _until(lambda: _reloads("invalid") > invalid_before)
    assert _reloads("invalid") == invalid_before + 1
    live.write("models: [unclosed\n")  # not YAML either
    await _until(lambda: _reloads("invalid") > invalid_before + 1)
    assert _reloads("invalid") == invalid_before + 2

    raw = await client.chat.completions.with_raw_response.create(model="live", messages=MESSAGES)  # type: ignore[arg-type]
    row = (await rows(live.dsn, [raw.headers["x-request-id"]]))[raw.headers["x-request-id"]]
    assert row["catalogue_version"] == version and row["deployment"] == "a-1"
    assert row["cost_micro_usd"] == _cost(row, OLD_PRICES)
    assert not live.fake.requests(deployment="live-b")
