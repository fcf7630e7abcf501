"""Integration: ``Admission.settle_many`` (pipelined settlement) on real Valkey —
the same once-per-request-id guarantee as ``settle``, batch after batch, whether
the batch goes through redis-py's pipeline or the lean ``PipelinedClient``
(quota's settlement, one packed write per round)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable

import pytest
import pytest_asyncio
import redis.asyncio as aioredis

from tollway_admission import Admission, PipelinedClient, SettleResult
from tollway_contracts.limits import Limit

pytestmark = pytest.mark.integration


@pytest_asyncio.fixture(params=["redis-py", "pipelined"])
async def make_adm(request, adm_redis, adm_clock) -> AsyncIterator[Callable[[], Admission]]:  # noqa: ANN001
    """Builds the Admission under test: scripts and batches through redis-py, or
    through a ``PipelinedClient`` (how quota's settlement runs)."""
    kw = adm_redis.connection_pool.connection_kwargs  # the same Valkey and db
    url = f"redis://{kw.get('host', '127.0.0.1')}:{kw.get('port', 6379)}/{kw.get('db', 0)}"
    fast = PipelinedClient(url) if request.param == "pipelined" else None
    yield lambda: Admission(adm_redis, clock=adm_clock, seed_provider=_zero, pipelined=fast)
    if fast is not None:
        await fast.aclose()


async def _zero(limit, window) -> int:  # noqa: ANN001
    return 0


async def _snapshot(r: aioredis.Redis, tenant: str) -> dict:
    out = {}
    async for k in r.scan_iter(match=f"tw:{{{tenant}}}:*", count=1000):
        t = await r.type(k)
        out[k] = (
            await r.hgetall(k)
            if t == b"hash"
            else await r.zrange(k, 0, -1)
            if t == b"zset"
            else await r.get(k)
        )
    return out


async def test_settle_many_settles_each_once_and_a_replayed_batch_changes_nothing(
    adm_redis, adm_tenant, make_adm
):
    adm = make_adm()
    limits = [
        Limit(
            scope="key",
            scope_id="k1",
            tokens_per_minute=1_000_000,
            max_concurrent=50,
            budget_micro_usd=10_000_000,
            budget_period="day",
        ),
        Limit(scope="tenant", scope_id=adm_tenant, budget_micro_usd=50_000_000, budget_period="month"),
    ]
    rids = [str(uuid.uuid4()) for _ in range(20)]
    for r in rids:
        assert (
            await adm.admit(
                tenant_id=adm_tenant, request_id=r, limits=limits, tokens=1_000, cost_micro_usd=5_000
            )
        ).admitted
    items = [(adm_tenant, r, 100 + i, 1_000 + i) for i, r in enumerate(rids)]
    never = str(uuid.uuid4())
    first = await adm.settle_many(items + [(adm_tenant, never, 1, 1)])
    assert [x.status for x in first] == ["settled"] * 20 + ["unknown"]  # type: ignore[union-attr]
    assert all(isinstance(x, SettleResult) and x.reserved_cost_micro_usd == 5_000 for x in first[:20])
    once = await _snapshot(adm_redis, adm_tenant)
    usage = await adm.budget_usage(adm_tenant, limits[0])
    assert usage is not None and usage.reserved_micro_usd == 0
    assert usage.spent_micro_usd == sum(1_000 + i for i in range(20))

    # the whole batch again (a redelivery), and one by one: nothing changes
    again = await adm.settle_many(items)
    assert {x.status for x in again} == {"already_settled"}  # type: ignore[union-attr]
    for _, r, t, c in items[:3]:
        assert (
            await adm.settle(tenant_id=adm_tenant, request_id=r, tokens=t, cost_micro_usd=c)
        ).status == "already_settled"
    assert await _snapshot(adm_redis, adm_tenant) == once


async def test_settle_many_reports_unsettleable_items_and_settles_the_rest(adm_redis, adm_tenant, make_adm):
    adm = make_adm()
    limits = [Limit(scope="key", scope_id="k1", budget_micro_usd=1_000_000, budget_period="day")]
    r = str(uuid.uuid4())
    assert (await adm.admit(tenant_id=adm_tenant, request_id=r, limits=limits, cost_micro_usd=900)).admitted
    out = await adm.settle_many(
        [(adm_tenant, str(uuid.uuid4()), -1, 0), ("bad}tenant", r, 1, 1), (adm_tenant, r, 5, 700)]
    )
    assert isinstance(out[0], ValueError) and isinstance(out[1], ValueError)
    assert isinstance(out[2], SettleResult) and out[2].status == "settled"
    usage = await adm.budget_usage(adm_tenant, limits[0])
    assert usage is not None and (usage.spent_micro_usd, usage.reserved_micro_usd) == (700, 0)


async def test_settle_many_loads_the_script_when_valkey_lost_it(adm_redis, adm_tenant, make_adm):
    """After ``SCRIPT FLUSH`` (a restarted Valkey) the batch's EVALSHAs answer NOSCRIPT:
    the script is loaded and the batch sent again, every item settled once."""
    adm = make_adm()
    limits = [Limit(scope="key", scope_id="k1", budget_micro_usd=1_000_000, budget_period="day")]
    rids = [str(uuid.uuid4()) for _ in range(5)]
    for r in rids:
        assert (
            await adm.admit(tenant_id=adm_tenant, request_id=r, limits=limits, cost_micro_usd=100)
        ).admitted
    await adm_redis.script_flush()
    out = await adm.settle_many([(adm_tenant, r, 1, 50) for r in rids])
    assert [x.status for x in out] == ["settled"] * 5  # type: ignore[union-attr]
    usage = await adm.budget_usage(adm_tenant, limits[0])
    assert usage is not None and (usage.spent_micro_usd, usage.reserved_micro_usd) == (250, 0)
