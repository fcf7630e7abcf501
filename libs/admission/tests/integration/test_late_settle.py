"""settle.lua's provisional merge rule against real Valkey (issue 10: a late
usage event still settles its counters once). Whatever the order of the
reconciler's provisional settle and the usage event's final settle, and however
often each repeats, the counters end as if the final settle ran once."""

from __future__ import annotations

import uuid

import pytest

from tollway_admission import Admission
from tollway_contracts.limits import Limit

pytestmark = pytest.mark.integration

LIMITS = [
    Limit(
        scope="key",
        scope_id="k1",
        tokens_per_minute=100_000,
        max_concurrent=3,
        budget_micro_usd=10_000_000,
        budget_period="day",
    ),
    Limit(scope="tenant", scope_id="t", budget_micro_usd=50_000_000, budget_period="month"),
]
FINAL = ("final", 1_500, 30_001)
PROVISIONAL = ("provisional", 0, 0)


async def _seed_100(limit, window) -> int:  # noqa: ANN001
    return 100


async def _state(adm: Admission, tenant: str, keys: dict[str, list[str]]) -> tuple:
    r = adm._r  # noqa: SLF001 - the test reads the counters it checks
    tpm = [int(await r.get(k) or 0) for k in keys["tokens"]]
    budgets = [await r.hgetall(k) for k in keys["budget"]]
    slots = [await r.zcard(k) for k in keys["concurrency"]]
    return tpm, budgets, slots, await adm.list_expired(tenant)


@pytest.mark.parametrize(
    "order",
    [
        [FINAL],
        [FINAL, FINAL],
        [PROVISIONAL, FINAL],
        [PROVISIONAL, FINAL, FINAL],
        [PROVISIONAL, PROVISIONAL, FINAL],
        [FINAL, PROVISIONAL],
        [PROVISIONAL, FINAL, PROVISIONAL, FINAL],
    ],
    ids=lambda o: "-".join(x[0] for x in o),
)
async def test_any_order_of_provisional_and_final_settles_once(adm_redis, adm_tenant, adm_clock, order):  # noqa: ANN001
    adm = Admission(adm_redis, clock=adm_clock, seed_provider=_seed_100)
    r = str(uuid.uuid4())
    res = await adm.admit(
        tenant_id=adm_tenant, request_id=r, limits=LIMITS, tokens=4_000, cost_micro_usd=80_000
    )
    assert res.admitted
    keys = {k: [c.key for c in res.checks if c.kind == k] for k in ("tokens", "budget", "concurrency")}
    statuses = []
    for mode, tokens, cost in order:
        s = await adm.settle(
            tenant_id=adm_tenant,
            request_id=r,
            tokens=tokens,
            cost_micro_usd=cost,
            provisional=mode == "provisional",
        )
        statuses.append(s.status)
    tpm, budgets, slots, expired = await _state(adm, adm_tenant, keys)
    assert tpm == [1_500]
    assert budgets == [{b"spent": b"30101", b"reserved": b"0"}] * 2  # seeded 100 + the call once
    assert slots == [0] and expired == []
    # exactly one settle changed the counters to the final amounts
    first_final = order.index(FINAL)
    expected = ["settled" if i == 0 else "already_settled" for i in range(len(order))]
    if order[0] == PROVISIONAL:
        expected[first_final] = "settled_late"
    assert statuses == expected
    # and the id is never admitted again
    dup = await adm.admit(tenant_id=adm_tenant, request_id=r, limits=LIMITS, tokens=1)
    assert dup.status == "duplicate"


async def test_provisional_settle_keeps_nothing_reserved_and_frees_the_slot(adm_redis, adm_tenant, adm_clock):  # noqa: ANN001
    adm = Admission(adm_redis, clock=adm_clock, seed_provider=_seed_100)
    r = str(uuid.uuid4())
    res = await adm.admit(
        tenant_id=adm_tenant, request_id=r, limits=LIMITS, tokens=4_000, cost_micro_usd=80_000
    )
    assert res.admitted
    s = await adm.settle(tenant_id=adm_tenant, request_id=r, tokens=0, cost_micro_usd=0, provisional=True)
    assert s.status == "settled" and s.slot_released
    assert not await adm.release(tenant_id=adm_tenant, request_id=r)  # nothing left to release
    assert (await adm.extend(tenant_id=adm_tenant, request_id=r, tokens=1)).status == "settled"
    usage = await adm.budget_usage(adm_tenant, LIMITS[0])
    assert usage is not None and (usage.spent_micro_usd, usage.reserved_micro_usd) == (100, 0)
    # settle_many (the consumer's path) applies the late event the same way
    (late,) = await adm.settle_many([(adm_tenant, r, 1_500, 30_001)])
    assert not isinstance(late, ValueError) and late.status == "settled_late"
    (again,) = await adm.settle_many([(adm_tenant, r, 1_500, 30_001)])
    assert not isinstance(again, ValueError) and again.status == "already_settled"
    usage = await adm.budget_usage(adm_tenant, LIMITS[0])
    assert usage is not None and usage.spent_micro_usd == 30_101
