"""Admission on a three-node Valkey Cluster (``redis+cluster://``).

A module fixture starts three masters (``redis-server --cluster-enabled yes``,
``redis-cli --cluster create ... --cluster-replicas 0``). Every test of
``test_admission.py`` and ``test_settle_many.py`` then runs again with its
clients (``adm_redis``, ``adm_redis2``) built by ``valkey_client`` from the
cluster URL, i.e. redis-py's ``RedisCluster`` routing each script by its keys'
hash slot: same semantics required (all-or-nothing, exact counts under 300
concurrent admits from two clients, settle-once). The tests below prove the
hash-tag rule of DESIGN.md: every key one script touches is in its tenant's
slot, tenants spread over the nodes, and a script given keys of two tenants is
refused by the server (CROSSSLOT).
"""

from __future__ import annotations

import importlib.util
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from redis.asyncio import RedisCluster

from tollway_admission import Admission, PipelinedClient, ValkeyResponseError, valkey_client
from tollway_admission.admission import ADMIT
from tollway_contracts.limits import Limit
from tollway_testing.valkey_servers import PrivateServers

pytestmark = pytest.mark.integration


def _load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(
        f"tollway_admission_cluster_{name}", Path(__file__).with_name(name)
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# Counts redis-py sends on one node's connection pool: not a cluster client's.
_SINGLE_NODE_ONLY = {"test_one_admit_is_one_round_trip"}
for _mod in (_load("test_admission.py"), _load("test_settle_many.py")):
    for _name in dir(_mod):
        if _name.startswith("test_") and _name not in _SINGLE_NODE_ONLY:
            globals()[_name] = getattr(_mod, _name)


@pytest.fixture(scope="module")
def cluster_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    servers = PrivateServers(tmp_path_factory.mktemp("cluster"))
    try:
        ports = servers.cluster(3)
        yield f"redis+cluster://127.0.0.1:{ports[0]}"
    finally:
        servers.stop()


@pytest_asyncio.fixture
async def adm_redis(cluster_url: str) -> AsyncIterator[RedisCluster]:
    client = valkey_client(cluster_url, max_connections=400, timeout=5)
    assert isinstance(client, RedisCluster)
    await client.ping()
    yield client
    await client.aclose()


@pytest_asyncio.fixture
async def adm_redis2(cluster_url: str) -> AsyncIterator[RedisCluster]:
    client = valkey_client(cluster_url, max_connections=400, timeout=5)
    assert isinstance(client, RedisCluster)
    # Load the slot map before the test's concurrent burst (as the edge does at
    # start with Admission.load): redis-py initialising a cluster client from
    # many concurrent first commands can hand out a closed connection.
    await client.initialize()
    yield client
    await client.aclose()


@pytest_asyncio.fixture
async def make_adm(adm_redis: RedisCluster, adm_clock: Any) -> AsyncIterator[Any]:
    """The settle-many tests' Admission: on a cluster through ``RedisCluster`` alone
    (a ``PipelinedClient`` talks to one node and refuses cluster URLs)."""
    yield lambda: Admission(adm_redis, clock=adm_clock, seed_provider=_zero)


def _limits(tenant: str) -> list[Limit]:
    return [
        Limit(scope="key", scope_id="k1", requests_per_minute=100, tokens_per_minute=10**6, max_concurrent=5),
        Limit(scope="user", scope_id="u1", requests_per_minute=100),
        Limit(scope="tenant", scope_id=tenant, budget_micro_usd=10**9, budget_period="month"),
    ]


async def _zero(*_: object) -> int:
    return 0


async def test_every_key_of_an_admission_is_in_its_tenants_slot_and_tenants_spread_over_nodes(
    adm_redis: RedisCluster,
) -> None:
    adm = Admission(adm_redis, seed_provider=_zero)
    await adm.load()
    nodes_used: set[str] = set()
    for i in range(12):
        tenant = f"t-slot-{i}-{uuid.uuid4().hex[:6]}"
        res = await adm.admit(
            tenant_id=tenant, request_id=f"r{i}", limits=_limits(tenant), tokens=10, cost_micro_usd=10
        )
        assert res.admitted
        keys = [k.decode() async for k in adm_redis.scan_iter(match=f"tw:{{{tenant}}}:*")]
        # record, deadlines index, rpm x2, tpm, conc, budget
        assert len(keys) == 7
        assert (
            await adm.settle(tenant_id=tenant, request_id=f"r{i}", tokens=5, cost_micro_usd=5)
        ).status == ("settled")
        keys += [k.decode() async for k in adm_redis.scan_iter(match=f"tw:{{{tenant}}}:settled:*")]
        slots = {await adm_redis.cluster_keyslot(k) for k in keys}
        assert slots == {await adm_redis.cluster_keyslot(tenant)}  # the hash tag alone decides the slot
        node = adm_redis.get_node_from_key(keys[0])
        assert node is not None
        nodes_used.add(node.name)
    assert len(nodes_used) >= 2  # the admissions really ran on several nodes


async def test_a_script_across_two_tenants_is_refused_by_the_cluster(adm_redis: RedisCluster) -> None:
    # Two tags in distinct slots: what the hash-tag rule prevents. redis-py refuses
    # before sending, and the node itself refuses too (CROSSSLOT).
    a, b = "t-a", "t-b"
    assert await adm_redis.cluster_keyslot(a) != await adm_redis.cluster_keyslot(b)
    await Admission(adm_redis).load()
    keys = [f"tw:{{{a}}}:res:x", f"tw:{{{b}}}:settled:x", f"tw:{{{a}}}:res-deadlines"]
    with pytest.raises(Exception, match="same key slot"):
        await adm_redis.evalsha(ADMIT.sha, 3, *keys, 0)
    node = adm_redis.get_node_from_key(keys[0])
    assert node is not None
    direct = PipelinedClient(f"redis://{node.host}:{node.port}", timeout=5)
    try:
        with pytest.raises(ValkeyResponseError, match="CROSSSLOT"):
            await direct.evalsha(ADMIT.sha, keys, [0])
    finally:
        await direct.aclose()


async def test_pipelined_client_refuses_the_cluster_url_and_a_node_answers_moved(cluster_url: str) -> None:
    with pytest.raises(ValueError, match="cluster URL"):
        PipelinedClient(cluster_url)
    # Talking to one node as if it were the whole keyspace fails loudly, never silently.
    node = PipelinedClient(cluster_url.replace("redis+cluster", "redis"), timeout=5)
    try:
        replies = []
        for t in ("t-a", "t-b", "t-c", "t-d"):
            try:
                replies.append(await node.execute("GET", f"tw:{{{t}}}:x"))
            except ValkeyResponseError as exc:
                replies.append(str(exc))
        assert any(isinstance(r, str) and r.startswith("MOVED") for r in replies)
    finally:
        await node.aclose()
