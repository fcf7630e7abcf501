"""Warm provider connections (issue 9, the catalogue's ``min_idle_connections``)
on a private in-process edge over the real stack and a private fake provider:
after start the edge holds N open connections to the provider before any call
(and reports them in `tollway_provider_idle_connections`);
when the provider restarts (every connection closed by it) the edge re-opens N,
and a call made while it refills is answered; a provider removed from the
catalogue gets its idle connections closed."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import yaml
from openai import AsyncOpenAI
from prometheus_client import REGISTRY

from tollway_testing.fake_provider import FakeProviderConfig
from tollway_testing.pytest_plugin import FakeProvider, start_fake_provider

from .conftest import Edge, edge_settings, running_edge
from .principals_schema import create_principals_schema

pytestmark = pytest.mark.integration

N = 12


def established_to(port: int) -> int:
    """Established TCP connections from this machine to 127.0.0.1:``port`` (the client side)."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(FileNotFoundError), open(table) as f:  # noqa: ASYNC230 - tiny procfs read
            for row in f.readlines()[1:]:
                fields = row.split()
                if fields[3] == "01" and int(fields[2].rsplit(":", 1)[1], 16) == port:
                    count += 1
    return count


async def until(cond: Callable[[], bool], within_s: float = 20.0) -> float:
    """Wait until ``cond()`` holds; the seconds it took (AssertionError after ``within_s``)."""
    t = time.monotonic()
    while not cond():
        assert time.monotonic() - t < within_s, "condition not met in time"
        await asyncio.sleep(0.05)
    return time.monotonic() - t


def idle_gauge() -> float | None:
    return REGISTRY.get_sample_value("tollway_provider_idle_connections", {"provider": "warm"})


def catalogue(provider_url: str, min_idle: int) -> dict[str, Any]:
    return {
        "version": 1,
        "providers": {
            "warm": {"base_url": provider_url, "timeout_seconds": 10, "min_idle_connections": min_idle},
        },
        "models": {
            "warm-model": {
                "prices": {"input": 1, "output": 1},
                "routes": [{"provider": "warm", "upstream_model": "m"}],
            }
        },
    }


@pytest_asyncio.fixture
async def warm_edge(
    fresh_database: str,
    valkey_test_url: str,
    fresh_topic: Any,
    kafka_bootstrap_servers: str,
    tmp_path: Path,
) -> AsyncIterator[tuple[Edge, list[FakeProvider], str, Path]]:
    await create_principals_schema(fresh_database)
    topic = await fresh_topic(partitions=1)
    providers = [start_fake_provider(FakeProviderConfig(port=0, access_log=False))]
    cat = catalogue(providers[0].base_url, N)
    settings = edge_settings(fresh_database, valkey_test_url, kafka_bootstrap_servers, topic, cat, tmp_path)
    try:
        async with running_edge(settings, cat) as edge:
            key = await edge.new_key("warm", tenant_id="t-warm")
            yield edge, providers, key, Path(settings.catalogue_path)
    finally:
        for p in providers:
            p.stop()


async def answered(edge: Edge, key: str) -> bool:
    client = AsyncOpenAI(base_url=edge.base_url, api_key=key, max_retries=0, timeout=20)
    resp = await client.chat.completions.create(
        model="warm-model", messages=[{"role": "user", "content": "hello"}]
    )
    return bool(resp.choices[0].message.content)


async def test_holds_n_connections_refills_after_the_provider_closes_them(
    warm_edge: tuple[Edge, list[FakeProvider], str, Path],
) -> None:
    edge, providers, key, _ = warm_edge
    port = providers[0].port
    # after start, before any call: N open connections (and no request reached the provider)
    await until(lambda: established_to(port) == N)
    assert providers[0].requests() == []
    await until(lambda: idle_gauge() == N)  # tollway_provider_idle_connections{provider="warm"}
    await asyncio.sleep(0.5)
    assert established_to(port) == N  # held, not more

    # the provider restarts on the same port: it closes every connection
    providers[0].stop()
    await until(lambda: established_to(port) == 0)
    providers.append(start_fake_provider(FakeProviderConfig(port=port, access_log=False)))
    # a call while the edge refills (its warm connects may be backing off): answered
    assert await answered(edge, key)
    took = await until(lambda: established_to(port) >= N)
    await asyncio.sleep(0.5)
    assert N <= established_to(port) <= N + 1, took  # N warm (+ the call's, if it opened one)


async def test_a_provider_removed_from_the_catalogue_gets_its_connections_closed(
    warm_edge: tuple[Edge, list[FakeProvider], str, Path],
) -> None:
    edge, providers, key, path = warm_edge
    port = providers[0].port
    await until(lambda: established_to(port) == N)
    other = start_fake_provider(FakeProviderConfig(port=0, access_log=False))
    providers.append(other)
    new = yaml.safe_dump(catalogue(other.base_url, 3))  # "warm" now points elsewhere: the old one retires
    tmp = path.with_suffix(".tmp")
    tmp.write_text(new)
    os.replace(tmp, path)
    await until(lambda: established_to(port) == 0 and established_to(other.port) == 3)
    assert await answered(edge, key)
