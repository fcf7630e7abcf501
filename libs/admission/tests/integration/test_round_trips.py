"""``tollway_valkey_round_trips_total`` counts what the clients wait for (real Valkey).

One admit with limits of every kind is one round trip on either client (the
scripts' inner commands are Valkey's business, not round trips); a redis-py
pipeline of many commands is one (on our NodeClient and on redis-py's); the counter is in the text that
``tollway_runtime.metrics.collect`` serves on ``/metrics``.
"""

from __future__ import annotations

import uuid

import pytest
import redis.asyncio as aioredis
from prometheus_client import REGISTRY

from tollway_admission import Admission, PipelinedClient, count_round_trips, valkey_client
from tollway_contracts.limits import Limit
from tollway_runtime.metrics import collect

pytestmark = pytest.mark.integration

METRIC = "tollway_valkey_round_trips_total"


def _count(service: str, client: str) -> float:
    return REGISTRY.get_sample_value(METRIC, {"service": service, "client": client}) or 0.0


def _limits(tenant: str) -> list[Limit]:
    return [
        Limit(
            scope="key", scope_id="k1", requests_per_minute=100, tokens_per_minute=10**6, max_concurrent=10
        ),
        Limit(scope="team", scope_id="tm", max_concurrent=10),
        Limit(scope="tenant", scope_id=tenant, budget_micro_usd=10**9, budget_period="month"),
    ]


async def _zero_seed(limit: Limit, window: object) -> int:
    return 0


async def test_pipelined_client_counts_one_per_awaited_command(adm_redis, adm_tenant, adm_clock) -> None:
    service = f"test-{uuid.uuid4().hex[:8]}"
    kw = adm_redis.connection_pool.connection_kwargs
    url = f"redis://{kw['host']}:{kw['port']}/{kw['db']}"
    fast = PipelinedClient(url, timeout=5, service=service)
    try:
        assert _count(service, "pipelined") == 0
        await fast.execute("PING")  # opens the connection: SELECT (handshake) + PING
        assert _count(service, "pipelined") == 2
        adm = Admission(adm_redis, clock=adm_clock, seed_provider=_zero_seed, pipelined=fast)
        await adm.load()
        limits = _limits(adm_tenant)
        rid = uuid.uuid4().hex
        await adm.admit(tenant_id=adm_tenant, request_id=rid, limits=limits, tokens=5, cost_micro_usd=5)
        before = _count(service, "pipelined")
        for _ in range(3):
            res = await adm.admit(
                tenant_id=adm_tenant, request_id=uuid.uuid4().hex, limits=limits, tokens=5, cost_micro_usd=5
            )
            assert res.admitted
            await adm.release(tenant_id=adm_tenant, request_id=res.reservation.request_id)
        # admit + release = 2 per call, although the scripts run many commands inside Valkey
        assert _count(service, "pipelined") - before == 6
    finally:
        await fast.aclose()


async def test_node_client_counts_one_per_command_and_one_per_pipeline(adm_redis, adm_tenant) -> None:
    service = f"test-{uuid.uuid4().hex[:8]}"
    kw = adm_redis.connection_pool.connection_kwargs
    client = valkey_client(f"redis://{kw['host']}:{kw['port']}/{kw['db']}", service=service)
    try:
        await client.ping()  # the new connection's SELECT, then PING
        base = _count(service, "pipelined")
        assert base == 2
        key = f"tw:{{{adm_tenant}}}:rt"
        await client.set(key, "1")
        await client.get(key)
        assert _count(service, "pipelined") - base == 2
        async with client.pipeline(transaction=False) as p:
            for i in range(10):
                p.set(key, i)
            await p.execute()
        assert _count(service, "pipelined") - base == 3  # ten commands, one round trip
        assert await client.get(key) == b"9"
        await client.delete(key)
    finally:
        await client.aclose()


async def test_wrapping_a_plain_client_counts_and_shows_in_metrics_text(adm_redis) -> None:
    service = f"test-{uuid.uuid4().hex[:8]}"
    kw = adm_redis.connection_pool.connection_kwargs
    client = aioredis.from_url(f"redis://{kw['host']}:{kw['port']}/{kw['db']}")
    assert count_round_trips(count_round_trips(client, service), service) is client  # twice counts once
    try:
        await client.ping()
        n = _count(service, "redis-py")
        await client.ping()
        assert _count(service, "redis-py") == n + 1
        text = collect().decode()
        assert f'{METRIC}{{client="redis-py",service="{service}"}} {n + 1:.1f}' in text
    finally:
        await client.aclose()


def test_count_round_trips_refuses_what_is_not_a_redis_client() -> None:
    with pytest.raises(TypeError):
        count_round_trips(object(), "edge")
