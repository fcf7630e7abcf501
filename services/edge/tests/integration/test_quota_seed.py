"""Integration: a cold budget counter is seeded by quota from the ledger's
spend view, on the edge's request (issue 10) — real Postgres (quota + ledger
migrations), Valkey and the quota app; the edge's side is
``QuotaSeedClient`` + ``tollway_admission``. One coalesced HTTP call per
counter on the cold path; quota's write is create-if-absent."""

from __future__ import annotations

import asyncio
import secrets
from datetime import UTC, datetime

import aiohttp
import pytest
from aiohttp.test_utils import TestServer
from redis.asyncio import Redis

from tollway_admission import Admission, period_window
from tollway_contracts.limits import Limit
from tollway_edge.admission.seed import QuotaSeedClient, SeedError

from .ledger_schema import create_ledger_schema, record_spend

pytestmark = pytest.mark.integration


async def test_cold_counter_seeded_by_quota_once_from_the_ledger(
    fresh_database: str, valkey_test_url: str
) -> None:
    from tollway_quota.app import create_app
    from tollway_quota.settings import QuotaSettings

    await create_ledger_schema(fresh_database)
    tenant = f"t-seed-{secrets.token_hex(4)}"
    now = datetime.now(UTC)
    month = period_window("month", "UTC", now)
    # The ledger's spend for key k1 this month: 1000 + 234; other keys do not count.
    await record_spend(fresh_database, tenant_id=tenant, key_id="k1", cost_micro_usd=1_000)
    await record_spend(fresh_database, tenant_id=tenant, key_id="k1", cost_micro_usd=234)
    await record_spend(fresh_database, tenant_id=tenant, key_id="k2", cost_micro_usd=50_000)

    seed_token = "seed-" + secrets.token_hex(8)
    settings = QuotaSettings(
        postgres_dsn=fresh_database,
        valkey_url=valkey_test_url,
        admin_token="admin-" + secrets.token_hex(8),
        key_pepper="pepper-seed",
        invalidation_channel=f"test:quota:inv:{secrets.token_hex(4)}",
        consume_usage=False,
        reconcile_expired=False,
        seed_token=seed_token,
        log_format="json",
    )
    server = TestServer(create_app(settings), host="127.0.0.1", port=0)
    await server.start_server()
    base = str(server.make_url("")).rstrip("/")
    valkey = Redis.from_url(valkey_test_url)
    client = QuotaSeedClient(base, seed_token)
    limit = Limit(scope="key", scope_id="k1", budget_micro_usd=10_000, budget_period="month")
    try:
        adm = Admission(valkey)  # the edge's admission, seeded through quota
        results = await asyncio.gather(
            *(
                adm.admit(
                    tenant_id=tenant,
                    request_id=f"r-{i}",
                    limits=[limit],
                    cost_micro_usd=100,
                    seed_provider=client.provider(tenant),
                )
                for i in range(20)
            )
        )
        assert all(r.admitted for r in results)
        assert client.requests == 1  # twenty cold admits, one call to quota
        usage = await adm.budget_usage(tenant, limit)
        assert usage is not None
        assert (usage.spent_micro_usd, usage.reserved_micro_usd) == (1_234, 20 * 100)

        # Asked again (another edge racing, a retry): quota's write changes nothing.
        await adm.settle(tenant_id=tenant, request_id="r-0", tokens=0, cost_micro_usd=66)
        assert await client.seed(tenant, limit, month) == 1_234
        usage = await adm.budget_usage(tenant, limit)
        assert usage is not None and usage.spent_micro_usd == 1_234 + 66

        async with aiohttp.ClientSession() as http:
            url = base + "/internal/v1/budget-seeds"
            body = {"tenant_id": tenant, "limit": limit.to_json_dict()}
            async with http.post(url, json=body, headers={"Authorization": "Bearer wrong"}) as r:
                assert r.status == 401
                assert (await r.json())["error"]["code"] == "invalid_seed_token"
            no_budget = {
                "tenant_id": tenant,
                "limit": {"scope": "key", "scope_id": "k1", "requests_per_minute": 5},
            }
            async with http.post(url, json=no_budget, headers={"Authorization": f"Bearer {seed_token}"}) as r:
                assert r.status == 400
            async with http.post(url, json=body, headers={"Authorization": f"Bearer {seed_token}"}) as r:
                assert r.status == 200
                answer = await r.json()
                assert answer["created"] is False and answer["spent_micro_usd"] == 1_234
    finally:
        await client.close()
        await server.close()
        await valkey.aclose()

    # Quota gone: the edge's seed fails with SeedError (the adapter falls back as configured).
    with pytest.raises(SeedError):
        await QuotaSeedClient(base, seed_token, timeout_seconds=0.5).seed(tenant, limit, month)
