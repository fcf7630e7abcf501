"""Admission against real Valkey: the guarantees the edge and quota rely on."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

import pytest
import redis.asyncio as aioredis

from tollway_admission import Admission, AdmitResult
from tollway_admission import keys as K
from tollway_admission.admission import _Script
from tollway_contracts.limits import Limit

pytestmark = pytest.mark.integration


def rid() -> str:
    return str(uuid.uuid4())


def scopes(tenant: str, **tenant_limits) -> list[Limit]:
    """A key/user/team/tenant chain; limits given apply to the tenant scope."""
    return [
        Limit(scope="key", scope_id="k1"),
        Limit(scope="user", scope_id="u1"),
        Limit(scope="team", scope_id="tm1"),
        Limit(scope="tenant", scope_id=tenant, **tenant_limits),
    ]


async def zero_seed(limit, window) -> int:
    return 0


async def snapshot(r: aioredis.Redis, tenant: str) -> dict:
    """Every key of the tenant and its value (expiry-independent)."""
    out = {}
    async for k in r.scan_iter(match=f"tw:{{{tenant}}}:*", count=1000):
        t = (await r.type(k)).decode()
        if t == "string":
            out[k] = await r.get(k)
        elif t == "hash":
            out[k] = await r.hgetall(k)
        elif t == "zset":
            out[k] = await r.zrange(k, 0, -1, withscores=True)
    return out


async def test_refusal_on_tenant_budget_reserves_nothing_anywhere(adm_redis, adm_tenant, adm_clock):
    adm = Admission(adm_redis, clock=adm_clock, seed_provider=zero_seed)
    limits = [
        Limit(
            scope="key",
            scope_id="k1",
            requests_per_minute=100,
            tokens_per_minute=10_000,
            max_concurrent=5,
            budget_micro_usd=1_000_000,
            budget_period="day",
        ),
        Limit(scope="tenant", scope_id=adm_tenant, budget_micro_usd=1_000, budget_period="month"),
    ]
    first = await adm.admit(
        tenant_id=adm_tenant, request_id=rid(), limits=limits, tokens=100, cost_micro_usd=900
    )
    assert first.admitted
    before = await snapshot(adm_redis, adm_tenant)

    refused_id = rid()
    res = await adm.admit(
        tenant_id=adm_tenant, request_id=refused_id, limits=limits, tokens=100, cost_micro_usd=200
    )
    assert res.status == "refused"
    assert res.refused_by is not None
    assert (res.refused_by.limit.scope, res.refused_by.kind) == ("tenant", "budget")
    # Nothing reserved on the key's rpm, tpm, slots or budget, no record.
    assert await snapshot(adm_redis, adm_tenant) == before
    assert not await adm_redis.exists(K.record_key(adm_tenant, refused_id))
    assert res.retry_after_seconds is not None and res.retry_after_seconds > 0


async def _storm(adms: list[Admission], tenant: str, limits, n: int, **kw) -> list[AdmitResult]:
    return await asyncio.gather(
        *(
            adms[i % len(adms)].admit(tenant_id=tenant, request_id=rid(), limits=limits, **kw)
            for i in range(n)
        )
    )


async def test_300_concurrent_admits_against_a_budget_of_n_calls(
    adm_redis, adm_redis2, adm_tenant, adm_clock
):
    n, cost = 37, 1_234
    limits = scopes(adm_tenant, budget_micro_usd=n * cost, budget_period="month")
    adms = [Admission(c, clock=adm_clock, seed_provider=zero_seed) for c in (adm_redis, adm_redis2)]
    await adms[0].seed_budget(adm_tenant, limits[-1], 0)
    results = await _storm(adms, adm_tenant, limits, 300, tokens=10, cost_micro_usd=cost)
    assert sum(r.admitted for r in results) == n
    assert {r.refused_by.kind for r in results if not r.admitted} == {"budget"}
    key = results[0].checks[0].key
    assert int(await adm_redis.hget(key, "reserved")) == n * cost


async def test_300_concurrent_admits_against_rpm(adm_redis, adm_redis2, adm_tenant, adm_clock):
    limits = [Limit(scope="key", scope_id="k1", requests_per_minute=50)]
    adms = [Admission(c, clock=adm_clock) for c in (adm_redis, adm_redis2)]
    results = await _storm(adms, adm_tenant, limits, 300)
    assert sum(r.admitted for r in results) == 50
    refused = next(r for r in results if not r.admitted)
    assert refused.headers()["x-ratelimit-remaining-requests"] == "0"
    assert refused.headers()["x-ratelimit-limit-requests"] == "50"
    assert refused.headers()["Retry-After"] == "40"  # clock is at hh:mm:20


async def test_300_concurrent_admits_against_concurrency(adm_redis, adm_redis2, adm_tenant, adm_clock):
    limits = [Limit(scope="team", scope_id="tm1", max_concurrent=20)]
    adms = [Admission(c, clock=adm_clock) for c in (adm_redis, adm_redis2)]
    results = await _storm(adms, adm_tenant, limits, 300)
    admitted = [r for r in results if r.admitted]
    assert len(admitted) == 20
    # Releasing one slot lets exactly one more in.
    assert await adms[0].release(tenant_id=adm_tenant, request_id=admitted[0].request_id)
    again = await _storm(adms, adm_tenant, limits, 10)
    assert sum(r.admitted for r in again) == 1


async def test_settle_twice_equals_settle_once(adm_redis, adm_tenant, adm_clock):
    adm = Admission(adm_redis, clock=adm_clock, seed_provider=zero_seed)
    limits = [
        Limit(
            scope="key",
            scope_id="k1",
            tokens_per_minute=100_000,
            max_concurrent=3,
            budget_micro_usd=10_000_000,
            budget_period="day",
        ),
        Limit(
            scope="tenant",
            scope_id=adm_tenant,
            tokens_per_minute=500_000,
            budget_micro_usd=50_000_000,
            budget_period="month",
            time_zone="Europe/Paris",
        ),
    ]
    r = rid()
    res = await adm.admit(
        tenant_id=adm_tenant, request_id=r, limits=limits, tokens=4_000, cost_micro_usd=80_000
    )
    assert res.admitted
    s1 = await adm.settle(tenant_id=adm_tenant, request_id=r, tokens=1_500, cost_micro_usd=30_001)
    assert s1.status == "settled" and s1.slot_released
    assert (s1.reserved_tokens, s1.reserved_cost_micro_usd) == (4_000, 80_000)
    once = await snapshot(adm_redis, adm_tenant)
    for c in res.checks:
        if c.kind == "tokens":
            assert int(once[c.key.encode()]) == 1_500
        if c.kind == "budget":
            assert once[c.key.encode()] == {b"spent": b"30001", b"reserved": b"0"}
        if c.kind == "concurrency":
            assert c.key.encode() not in once or once[c.key.encode()] == []

    s2 = await adm.settle(tenant_id=adm_tenant, request_id=r, tokens=9_999, cost_micro_usd=999_999)
    s3 = await adm.settle(tenant_id=adm_tenant, request_id=r, tokens=1_500, cost_micro_usd=30_001)
    assert s2.status == s3.status == "already_settled"
    assert await snapshot(adm_redis, adm_tenant) == once
    # The settled id cannot be admitted again.
    dup = await adm.admit(tenant_id=adm_tenant, request_id=r, limits=limits, tokens=1)
    assert dup.status == "duplicate"
    assert await snapshot(adm_redis, adm_tenant) == once


async def test_concurrent_settles_settle_once(adm_redis, adm_redis2, adm_tenant, adm_clock):
    adms = [Admission(c, clock=adm_clock, seed_provider=zero_seed) for c in (adm_redis, adm_redis2)]
    limits = [Limit(scope="key", scope_id="k1", budget_micro_usd=1_000_000, budget_period="day")]
    r = rid()
    res = await adms[0].admit(tenant_id=adm_tenant, request_id=r, limits=limits, cost_micro_usd=100_000)
    results = await asyncio.gather(
        *(
            adms[i % 2].settle(tenant_id=adm_tenant, request_id=r, tokens=10, cost_micro_usd=7)
            for i in range(50)
        )
    )
    assert sum(s.status == "settled" for s in results) == 1
    assert await adm_redis.hgetall(res.checks[0].key) == {b"spent": b"7", b"reserved": b"0"}


async def test_extend_is_refused_at_the_budget_and_reserves_nothing(adm_redis, adm_tenant, adm_clock):
    adm = Admission(adm_redis, clock=adm_clock, seed_provider=zero_seed)
    limits = [
        Limit(scope="key", scope_id="k1", tokens_per_minute=10_000),
        Limit(scope="tenant", scope_id=adm_tenant, budget_micro_usd=1_000, budget_period="week"),
    ]
    r = rid()
    res = await adm.admit(tenant_id=adm_tenant, request_id=r, limits=limits, tokens=100, cost_micro_usd=600)
    ok = await adm.extend(
        tenant_id=adm_tenant, request_id=r, tokens=50, cost_micro_usd=300, reservation=res.reservation
    )
    assert ok.extended and (ok.tokens, ok.cost_micro_usd) == (150, 900)
    before = await snapshot(adm_redis, adm_tenant)
    no = await adm.extend(tenant_id=adm_tenant, request_id=r, tokens=50, cost_micro_usd=101)
    assert no.status == "refused"
    assert no.refused_keys == (res.checks[1].key,)
    assert await snapshot(adm_redis, adm_tenant) == before
    # tpm refuses too.
    no_tpm = await adm.extend(tenant_id=adm_tenant, request_id=r, tokens=9_851)
    assert no_tpm.status == "refused" and no_tpm.refused_keys == (res.checks[0].key,)
    # Settling after extension refunds everything reserved.
    s = await adm.settle(tenant_id=adm_tenant, request_id=r, tokens=120, cost_micro_usd=850)
    assert (s.reserved_tokens, s.reserved_cost_micro_usd) == (150, 900)
    assert await adm_redis.hgetall(res.checks[1].key) == {b"spent": b"850", b"reserved": b"0"}
    assert int(await adm_redis.get(res.checks[0].key)) == 120
    assert (await adm.extend(tenant_id=adm_tenant, request_id=r, tokens=1)).status == "settled"


async def test_paris_monthly_budget_resets_at_local_midnight_on_the_first(adm_redis, adm_tenant, adm_clock):
    spent_by_window: dict[datetime, int] = {datetime(2026, 12, 31, 23, 0, tzinfo=UTC): 0}

    async def ledger(limit, window) -> int:
        # The ledger: January (Paris) is fully spent; February starts empty.
        return spent_by_window.get(window.start, 5_000)

    adm = Admission(adm_redis, clock=adm_clock, seed_provider=ledger)
    limits = [
        Limit(
            scope="tenant",
            scope_id=adm_tenant,
            budget_micro_usd=5_000,
            budget_period="month",
            time_zone="Europe/Paris",
        )
    ]
    # 31 January 23:59:59 in Paris (22:59:59 UTC): January's budget is spent.
    adm_clock.now = datetime(2026, 1, 31, 22, 59, 59, tzinfo=UTC)
    jan = await adm.admit(tenant_id=adm_tenant, request_id=rid(), limits=limits, cost_micro_usd=1)
    assert jan.status == "refused"
    assert jan.retry_after_seconds == 1
    # 1 February 00:00:00 in Paris (23:00 UTC, still January in UTC): a new period.
    spent_by_window[datetime(2026, 1, 31, 23, 0, tzinfo=UTC)] = 0
    adm_clock.now = datetime(2026, 1, 31, 23, 0, 0, tzinfo=UTC)
    feb = await adm.admit(tenant_id=adm_tenant, request_id=rid(), limits=limits, cost_micro_usd=1_000)
    assert feb.admitted
    assert feb.checks[0].remaining == 4_000
    assert feb.checks[0].key != jan.checks[0].key


async def test_an_expired_reservation_frees_its_slot_and_is_listed(adm_redis, adm_tenant, adm_clock):
    adm = Admission(adm_redis, clock=adm_clock, seed_provider=zero_seed)
    limits = [
        Limit(scope="user", scope_id="u1", max_concurrent=1, budget_micro_usd=10_000, budget_period="day")
    ]
    r1 = rid()
    assert (
        await adm.admit(
            tenant_id=adm_tenant,
            request_id=r1,
            limits=limits,
            cost_micro_usd=3_000,
            ttl=timedelta(seconds=30),
        )
    ).admitted
    blocked = await adm.admit(tenant_id=adm_tenant, request_id=rid(), limits=limits)
    assert blocked.status == "refused" and blocked.refused_by.kind == "concurrency"
    assert await adm.list_expired(adm_tenant) == []

    adm_clock.advance(seconds=31)  # the settlement never came
    later = await adm.admit(tenant_id=adm_tenant, request_id=rid(), limits=limits)
    assert later.admitted
    expired = await adm.list_expired(adm_tenant)
    assert [(e.request_id, e.cost_micro_usd) for e in expired] == [(r1, 3_000)]
    assert adm_tenant in await adm.tenants_with_reservations()
    # Reconciliation settles it with the ledger's actuals: the reservation is refunded.
    s = await adm.settle(tenant_id=adm_tenant, request_id=r1, tokens=0, cost_micro_usd=0)
    assert s.status == "settled" and not s.slot_released
    assert await adm.list_expired(adm_tenant) == []
    assert await adm_redis.hget(later.checks[1].key, "reserved") == b"0"


async def test_release_is_idempotent_and_settle_after_release_keeps_one_slot_free(
    adm_redis, adm_tenant, adm_clock
):
    adm = Admission(adm_redis, clock=adm_clock)
    limits = [Limit(scope="key", scope_id="k1", max_concurrent=2)]
    a, b = rid(), rid()
    ra = await adm.admit(tenant_id=adm_tenant, request_id=a, limits=limits)
    await adm.admit(tenant_id=adm_tenant, request_id=b, limits=limits)
    conc = ra.checks[0].key
    assert await adm.release(tenant_id=adm_tenant, request_id=a, reservation=ra.reservation)
    assert not await adm.release(tenant_id=adm_tenant, request_id=a)
    assert not await adm.release(tenant_id=adm_tenant, request_id=a, reservation=ra.reservation)
    s = await adm.settle(tenant_id=adm_tenant, request_id=a, tokens=1, cost_micro_usd=1)
    assert s.status == "settled" and not s.slot_released
    assert await adm_redis.zrange(conc, 0, -1) == [b.encode()]
    assert not await adm.release(tenant_id=adm_tenant, request_id="never-admitted")


async def test_seeding_happens_once_under_100_concurrent_cold_calls(
    adm_redis, adm_redis2, adm_tenant, adm_clock
):
    provider_calls = 0
    created: list[bool] = []

    async def ledger(limit, window) -> int:
        nonlocal provider_calls
        provider_calls += 1
        await asyncio.sleep(0.05)  # a Postgres query
        return 40 * 100  # 40 calls' worth already spent this period

    class Counting(Admission):
        async def seed(self, tenant_id, seeds):
            out = await super().seed(tenant_id, seeds)
            created.extend(out)
            return out

    adms = [Counting(c, clock=adm_clock, seed_provider=ledger) for c in (adm_redis, adm_redis2)]
    limits = scopes(adm_tenant, budget_micro_usd=100 * 100, budget_period="month")
    results = await _storm(adms, adm_tenant, limits, 100, cost_micro_usd=100)
    assert created.count(True) == 1
    assert provider_calls <= 2  # one per process at most
    assert sum(r.admitted for r in results) == 60
    budget = next(c.key for c in results[0].checks if c.kind == "budget")
    assert await adm_redis.hgetall(budget) == {b"spent": b"4000", b"reserved": b"6000"}


async def test_without_provider_admit_asks_for_a_seed(adm_redis, adm_tenant, adm_clock):
    adm = Admission(adm_redis, clock=adm_clock)
    limits = scopes(adm_tenant, budget_micro_usd=1_000, budget_period="day")
    r = rid()
    res = await adm.admit(tenant_id=adm_tenant, request_id=r, limits=limits, cost_micro_usd=10)
    assert res.status == "seed_needed" and len(res.seeds_needed) == 1
    assert await snapshot(adm_redis, adm_tenant) == {}
    s = res.seeds_needed[0]
    assert await adm.seed(adm_tenant, [(s.key, 995, s.expire_at_ms)]) == [True]
    assert await adm.seed(adm_tenant, [(s.key, 0, s.expire_at_ms)]) == [False]
    again = await adm.admit(tenant_id=adm_tenant, request_id=r, limits=limits, cost_micro_usd=10)
    assert again.status == "refused"


async def test_shadow_limits_admit_but_report(adm_redis, adm_tenant, adm_clock):
    adm = Admission(adm_redis, clock=adm_clock)
    limits = [
        Limit(scope="key", scope_id="k1", requests_per_minute=1, shadow=True),
        Limit(scope="tenant", scope_id=adm_tenant, requests_per_minute=100),
    ]
    first = await adm.admit(tenant_id=adm_tenant, request_id=rid(), limits=limits)
    second = await adm.admit(tenant_id=adm_tenant, request_id=rid(), limits=limits)
    assert first.admitted and not first.would_refuse
    assert second.admitted and [c.limit.scope for c in second.would_refuse] == ["key"]
    # Headers come from enforced limits only.
    h = second.headers()
    assert h["x-ratelimit-limit-requests"] == "100" and h["x-ratelimit-remaining-requests"] == "98"
    assert "Retry-After" not in h


async def test_headers_of_an_admitted_call(adm_redis, adm_tenant, adm_clock):
    adm = Admission(adm_redis, clock=adm_clock)
    limits = [
        Limit(scope="key", scope_id="k1", requests_per_minute=10, tokens_per_minute=1_000),
        Limit(scope="team", scope_id="tm", tokens_per_minute=500),
        Limit(scope="key", scope_id="k1", model="other", requests_per_minute=1),
    ]
    res = await adm.admit(tenant_id=adm_tenant, request_id=rid(), limits=limits, model="gpt", tokens=200)
    assert res.admitted and len(res.checks) == 3
    assert res.headers() == {
        "x-ratelimit-limit-requests": "10",
        "x-ratelimit-remaining-requests": "9",
        "x-ratelimit-reset-requests": "40s",
        "x-ratelimit-limit-tokens": "500",
        "x-ratelimit-remaining-tokens": "300",
        "x-ratelimit-reset-tokens": "40s",
    }
    assert res.reservation_by_scope()["team:tm"].tokens == 200


async def test_tokens_above_the_tpm_limit_are_refused(adm_redis, adm_tenant, adm_clock):
    adm = Admission(adm_redis, clock=adm_clock)
    limits = [Limit(scope="key", scope_id="k1", tokens_per_minute=1_000)]
    assert (await adm.admit(tenant_id=adm_tenant, request_id=rid(), limits=limits, tokens=700)).admitted
    res = await adm.admit(tenant_id=adm_tenant, request_id=rid(), limits=limits, tokens=301)
    assert res.refused_by.kind == "tokens"
    adm_clock.advance(minutes=1)  # the next calendar minute
    assert (await adm.admit(tenant_id=adm_tenant, request_id=rid(), limits=limits, tokens=301)).admitted


class CountingConnection(aioredis.Connection):
    """Counts what is written to the socket: one send = one round trip."""

    sends = 0

    async def send_packed_command(self, command, check_health=True):
        type(self).sends += 1
        return await super().send_packed_command(command, check_health)


async def test_one_admit_is_one_round_trip(adm_redis, adm_tenant, adm_clock):
    kw = adm_redis.connection_pool.connection_kwargs
    pool = aioredis.ConnectionPool(
        connection_class=CountingConnection, host=kw["host"], port=kw["port"], db=kw["db"]
    )
    client = aioredis.Redis(connection_pool=pool)
    try:
        adm = Admission(client, clock=adm_clock, seed_provider=zero_seed)
        await adm.load()
        limits = [
            Limit(
                scope="key",
                scope_id="k1",
                requests_per_minute=100,
                tokens_per_minute=10**6,
                max_concurrent=10,
            ),
            Limit(scope="user", scope_id="u1", requests_per_minute=100),
            Limit(scope="team", scope_id="tm", max_concurrent=10),
            Limit(scope="tenant", scope_id=adm_tenant, budget_micro_usd=10**9, budget_period="month"),
        ]
        await adm.admit(
            tenant_id=adm_tenant, request_id=rid(), limits=limits, tokens=5, cost_micro_usd=5
        )  # warms the budget counter (seed round)
        for _ in range(3):
            before = CountingConnection.sends
            res = await adm.admit(
                tenant_id=adm_tenant, request_id=rid(), limits=limits, tokens=5, cost_micro_usd=5
            )
            assert res.admitted
            assert CountingConnection.sends - before == 1
        # Extend and release with the handle are one round trip too.
        before = CountingConnection.sends
        await adm.extend(
            tenant_id=adm_tenant, request_id=res.request_id, tokens=1, reservation=res.reservation
        )
        await adm.release(tenant_id=adm_tenant, request_id=res.request_id, reservation=res.reservation)
        assert CountingConnection.sends - before == 2
    finally:
        await client.aclose()
        await pool.disconnect()


async def test_noscript_reloads_and_retries(adm_redis, adm_tenant):
    adm = Admission(adm_redis)
    # A script this server has never seen (unique source) takes the NOSCRIPT path.
    script = _Script("seed")
    script.source += f"\n-- {uuid.uuid4()}\n"
    import hashlib

    script.sha = hashlib.sha1(script.source.encode()).hexdigest()
    key = f"tw:{{{adm_tenant}}}:budget:x"
    assert await adm._eval(script, [key], [5, 4102444800000]) == [1]
    assert await adm_redis.hget(key, "spent") == b"5"


async def test_duplicate_request_id_is_not_admitted_twice(adm_redis, adm_tenant, adm_clock):
    adm = Admission(adm_redis, clock=adm_clock)
    limits = [Limit(scope="key", scope_id="k1", requests_per_minute=10)]
    r = rid()
    assert (await adm.admit(tenant_id=adm_tenant, request_id=r, limits=limits)).admitted
    dup = await adm.admit(tenant_id=adm_tenant, request_id=r, limits=limits)
    assert dup.status == "duplicate"
    rpm = next(k for k in await snapshot(adm_redis, adm_tenant) if b":rpm:" in k)
    assert await adm_redis.get(rpm) == b"1"


async def test_model_narrowed_limits_count_only_their_model(adm_redis, adm_tenant, adm_clock):
    adm = Admission(adm_redis, clock=adm_clock)
    limits = [
        Limit(scope="key", scope_id="k1", model="big-model", requests_per_minute=1),
        Limit(scope="key", scope_id="k1", requests_per_minute=5),
    ]
    assert (
        await adm.admit(tenant_id=adm_tenant, request_id=rid(), limits=limits, model="big-model")
    ).admitted
    big = await adm.admit(tenant_id=adm_tenant, request_id=rid(), limits=limits, model="big-model")
    assert big.status == "refused" and big.refused_by.limit.model == "big-model"
    small = [
        await adm.admit(tenant_id=adm_tenant, request_id=rid(), limits=limits, model="small")
        for _ in range(5)
    ]
    # The unnarrowed limit saw the admitted big-model call too: 1 + 4 = 5.
    assert [r.admitted for r in small] == [True, True, True, True, False]


async def test_extend_pushes_the_deadline_so_a_long_stream_keeps_its_slot(adm_redis, adm_tenant, adm_clock):
    adm = Admission(adm_redis, clock=adm_clock)
    limits = [Limit(scope="key", scope_id="k1", max_concurrent=1)]
    r = rid()
    res = await adm.admit(tenant_id=adm_tenant, request_id=r, limits=limits, ttl=timedelta(seconds=30))
    adm_clock.advance(seconds=20)
    assert (
        await adm.extend(
            tenant_id=adm_tenant, request_id=r, ttl=timedelta(seconds=30), reservation=res.reservation
        )
    ).extended
    adm_clock.advance(seconds=20)  # past the first deadline, within the new one
    blocked = await adm.admit(tenant_id=adm_tenant, request_id=rid(), limits=limits)
    assert blocked.status == "refused"
    assert await adm.list_expired(adm_tenant) == []
    adm_clock.advance(seconds=11)
    assert (await adm.extend(tenant_id=adm_tenant, request_id=r, tokens=1)).status == "expired"
    assert (await adm.admit(tenant_id=adm_tenant, request_id=rid(), limits=limits)).admitted


async def test_budget_usage_reads_spent_and_reserved_of_the_period(adm_redis, adm_tenant, adm_clock):
    adm = Admission(adm_redis, clock=adm_clock, seed_provider=zero_seed)
    day = Limit(scope="key", scope_id="k1", budget_micro_usd=10_000_000, budget_period="day")
    assert await adm.budget_usage(adm_tenant, day) is None  # never seeded
    r1, r2 = rid(), rid()
    for r in (r1, r2):
        assert (
            await adm.admit(
                tenant_id=adm_tenant, request_id=r, limits=[day], tokens=10, cost_micro_usd=70_000
            )
        ).admitted
    await adm.settle(tenant_id=adm_tenant, request_id=r1, tokens=5, cost_micro_usd=30_001)
    usage = await adm.budget_usage(adm_tenant, day)
    assert usage is not None
    assert (usage.spent_micro_usd, usage.reserved_micro_usd) == (30_001, 70_000)
    assert usage.start <= adm_clock() < usage.end
    # another period's counter is another counter
    assert await adm.budget_usage(adm_tenant, day, adm_clock() + timedelta(days=2)) is None
    with pytest.raises(ValueError):
        await adm.budget_usage(adm_tenant, Limit(scope="key", scope_id="k1", requests_per_minute=1))


async def test_a_counter_lost_after_a_seed_is_reseeded_from_the_ledger_once_seeds_are_forgotten(
    adm_redis, adm_tenant, adm_clock
):
    """Issue 10: a seed value is kept a moment for callers that saw the cold
    counter; after Valkey lost the counter (restarted empty) the edge calls
    ``forget_seeds`` so the counter is recreated from the ledger's spend NOW,
    not from the value read before the outage."""
    ledger = {"spent": 1_000}

    async def provider(limit, window) -> int:
        return ledger["spent"]

    adm = Admission(adm_redis, clock=adm_clock, seed_provider=provider)
    limits = scopes(adm_tenant, budget_micro_usd=10_000, budget_period="month")
    first = await adm.admit(tenant_id=adm_tenant, request_id=rid(), limits=limits, cost_micro_usd=0)
    budget = next(c.key for c in first.checks if c.kind == "budget")
    assert await adm_redis.hget(budget, "spent") == b"1000"

    ledger["spent"] = 4_000  # spend made while Valkey was away
    await adm_redis.delete(budget)  # ... and Valkey came back without the counter
    kept = await adm.admit(tenant_id=adm_tenant, request_id=rid(), limits=limits, cost_micro_usd=0)
    assert kept.admitted and await adm_redis.hget(budget, "spent") == b"1000"  # the value kept: stale

    await adm_redis.delete(budget)
    adm.forget_seeds()
    again = await adm.admit(tenant_id=adm_tenant, request_id=rid(), limits=limits, cost_micro_usd=0)
    assert again.admitted and await adm_redis.hget(budget, "spent") == b"4000"
