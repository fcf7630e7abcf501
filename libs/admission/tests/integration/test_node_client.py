"""NodeClient (no redis-py) against real Valkey: redis-py's reply shapes, pub/sub,
NOSCRIPT recovery, reconnects, and Admission running on it alone."""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta

import pytest

from tollway_admission import Admission, EdgeRegistry, NodeClient, ValkeyConnectionError, ValkeyResponseError
from tollway_admission.admission import ADMIT
from tollway_contracts.limits import Limit

pytestmark = pytest.mark.integration


def _url(adm_redis) -> str:  # type: ignore[no-untyped-def]
    kw = adm_redis.connection_pool.connection_kwargs
    return f"redis://{kw['host']}:{kw['port']}/{kw['db']}"


async def test_replies_have_redis_py_shapes(adm_redis, adm_tenant) -> None:
    """The same commands on redis-py and on NodeClient give equal replies."""
    node = NodeClient(_url(adm_redis), timeout=5)
    k = f"tw:{{{adm_tenant}}}:node"
    z = f"tw:{{{adm_tenant}}}:zset"
    try:
        for c in (adm_redis, node):
            await adm_redis.delete(k, z, k + ":h", k + ":n")
            await adm_redis.hset(k + ":h", mapping={"a": "1", "b": "2"})
            got = [
                await c.ping(),
                await c.set(k, b"v1", ex=60),
                await c.set(k, b"v2", nx=True, px=60_000),
                await c.get(k),
                await c.get(k + ":absent"),
                await c.hget(k + ":h", "a"),
                await c.hmget(k + ":h", "a", "zz", "b"),
                await c.zadd(z, {"m1": 10, "m2": 20, "m3": 30}),
                await c.zrangebyscore(z, "-inf", 25, start=0, num=10, withscores=True),
                await c.zrangebyscore(z, 15, "+inf"),
                await c.zremrangebyscore(z, "-inf", 10),
                await c.zcard(z),
                await c.zrem(z, "m2", "nope"),
                await c.pexpire(z, 60_000),
                await c.pexpire(k + ":absent", 60_000),
                await c.publish(f"tw:test:{adm_tenant}", b"x"),
                await c.exists(k, k + ":absent", z),
                await c.ttl(k) > 0,
                await c.ttl(k + ":absent"),
                await c.incr(k + ":n", 5),
                await c.execute_command("HLEN", k + ":h"),
                await c.delete(k, k + ":absent"),
            ]
            if c is adm_redis:
                expected = got
        assert got == expected
        assert got[2] is None and got[8] == [(b"m1", 10.0), (b"m2", 20.0)]
        async with node.pipeline(transaction=False) as p:
            p.set(k, 1).get(k)
            p.hmget(k + ":h", ["a", "b"])
            assert await p.execute() == [True, b"1", [b"1", b"2"]]
        with pytest.raises(ValkeyResponseError, match="WRONGTYPE"):
            await node.hget(k, "a")
        keys = {key async for key in node.scan_iter(match=f"tw:{{{adm_tenant}}}:*", count=2)}
        assert keys == {k.encode(), (k + ":h").encode(), z.encode(), (k + ":n").encode()}
    finally:
        await adm_redis.delete(k, z, k + ":h", k + ":n")
        await node.aclose()


async def test_pubsub_receives_messages_and_ends_on_loss(adm_redis, adm_tenant) -> None:
    name = f"sub-{adm_tenant}"
    node = NodeClient(f"{_url(adm_redis)}?client_name={name}", timeout=5)
    channel = f"tw:test:{adm_tenant}"
    sub = node.pubsub(ignore_subscribe_messages=True)
    try:
        await sub.subscribe(channel)
        got: list[dict[str, object]] = []

        async def read() -> None:
            async for message in sub.listen():
                got.append(message)
                if len(got) == 2:
                    return

        reader = asyncio.create_task(read())
        for _ in range(50):  # the subscription is live once a PUBLISH reaches it
            if await node.publish(channel, b"one"):
                break
            await asyncio.sleep(0.02)
        await node.publish(channel, b"two")
        await asyncio.wait_for(reader, 5)
        assert [m["data"] for m in got] == [b"one", b"two"]
        assert all(m["type"] == "message" and m["channel"] == channel.encode() for m in got)
        # The server drops the subscriber (only ours): listen() ends with a connection error.
        listed = (await adm_redis.execute_command("CLIENT", "LIST", "TYPE", "pubsub")).decode()
        ids = [
            f.split("=")[1]
            for ln in listed.splitlines()
            if f"name={name} " in ln
            for f in ln.split()
            if f.startswith("id=")
        ]
        assert len(ids) == 1
        await adm_redis.execute_command("CLIENT", "KILL", "ID", ids[0])
        with pytest.raises(ValkeyConnectionError):
            await asyncio.wait_for(anext(aiter(sub.listen())), 5)
    finally:
        await sub.aclose()
        await node.aclose()


async def test_admission_on_node_client_alone_recovers_noscript_and_reconnects(
    adm_redis, adm_tenant, adm_clock
) -> None:
    """No PipelinedClient given: every script and read goes through NodeClient."""
    node = NodeClient(_url(adm_redis), timeout=5)
    limits = [Limit(scope="key", scope_id="k1", requests_per_minute=1)]
    try:
        adm = Admission(node, clock=adm_clock, reservation_ttl=timedelta(seconds=1))
        await adm_redis.script_flush()  # NOSCRIPT on the first call: loaded and retried
        assert (await adm.admit(tenant_id=adm_tenant, request_id="a", limits=limits)).admitted
        assert await adm_redis.script_exists(ADMIT.sha) == [True]
        node.disconnect()  # the next command reconnects
        assert (await adm.admit(tenant_id=adm_tenant, request_id="b", limits=limits)).status == "refused"
        res = await adm.settle_many([(adm_tenant, "a", 0, 0)])
        assert res[0].status == "settled"  # type: ignore[union-attr]
        reg = EdgeRegistry(node, f"p-{uuid.uuid4().hex[:8]}")
        beat = await reg.heartbeat()
        assert beat.alive >= 1 and beat.epoch
        await reg.deregister()
        held = [Limit(scope="key", scope_id="k2", max_concurrent=5)]
        assert (await adm.admit(tenant_id=adm_tenant, request_id="c", limits=held)).admitted
        assert adm_tenant in await adm.tenants_with_reservations()  # SCAN
        assert await adm.list_expired(adm_tenant) == []
        adm_clock.advance(seconds=2)
        assert [e.request_id for e in await adm.list_expired(adm_tenant)] == ["c"]
    finally:
        await node.aclose()
