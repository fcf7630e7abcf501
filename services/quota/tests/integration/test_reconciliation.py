"""Integration: expired reservations are reconciled against the ledger (issue 3),
through the app's periodic task — real Valkey (db 11) and a fresh Postgres
database with the quota and ledger migrations applied."""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import time
import uuid
from datetime import timedelta
from pathlib import Path

import httpx
import psycopg
import pytest
from aiohttp.test_utils import TestServer
from prometheus_client import REGISTRY
from redis.asyncio import Redis

from tollway_admission import Admission
from tollway_contracts.events import utcnow
from tollway_contracts.limits import Limit
from tollway_runtime.migrations import apply_migrations

pytestmark = pytest.mark.integration

VALKEY_URL = os.environ.get("TOLLWAY_TEST_VALKEY_URL", "redis://127.0.0.1:6379/11")
LEDGER_MIGRATIONS = Path(__file__).resolve().parents[3] / "ledger" / "src" / "tollway_ledger" / "migrations"


_RECONCILED = "tollway_quota_reservations_reconciled_total"


def _counter(text: str, outcome: str) -> float:
    m = re.search(rf'tollway_quota_reservations_reconciled_total\{{outcome="{outcome}"\}} ([0-9.e+]+)', text)
    return float(m.group(1)) if m else 0.0


async def _insert_ledger_row(
    dsn: str, tenant: str, rid: str, status: str, tokens: int | None, cost: int | None
) -> None:
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        await conn.execute(
            """INSERT INTO ledger.usage_records (request_id, tenant_id, key_id, ts_start, model, status,
                                                 total_tokens, cost_micro_usd)
               VALUES (%s, %s, 'k1', %s, 'gpt-4o-mini', %s, %s, %s)""",
            (uuid.UUID(rid), tenant, utcnow() - timedelta(seconds=5), status, tokens, cost),
        )


async def _nothing_spent(limit, window) -> int:  # noqa: ANN001
    return 0


async def test_expired_reservations_are_settled_to_the_ledger_or_released(quota_fresh_dsn: str) -> None:
    from tollway_quota.app import create_app
    from tollway_quota.settings import QuotaSettings

    await asyncio.to_thread(apply_migrations, quota_fresh_dsn, LEDGER_MIGRATIONS)
    async with await psycopg.AsyncConnection.connect(quota_fresh_dsn, autocommit=True) as conn:
        await conn.execute("SELECT ledger.ensure_usage_partitions(1)")

    tenant = f"t-rec-{secrets.token_hex(6)}"
    valkey = Redis.from_url(VALKEY_URL)
    # The edge's side: reservations that expire after 1 s.
    edge = Admission(valkey, reservation_ttl=timedelta(seconds=1), seed_provider=_nothing_spent)
    limits = [
        Limit(
            scope="key",
            scope_id="k1",
            tokens_per_minute=100_000,
            max_concurrent=5,
            budget_micro_usd=10_000_000,
            budget_period="day",
        )
    ]
    done, in_flight, absent = (str(uuid.uuid4()) for _ in range(3))
    try:
        results = {}
        for rid, tokens, cost in ((done, 4_000, 80_000), (in_flight, 3_000, 50_000), (absent, 2_000, 20_000)):
            res = await edge.admit(
                tenant_id=tenant, request_id=rid, limits=limits, tokens=tokens, cost_micro_usd=cost
            )
            assert res.admitted, res
            results[rid] = res
        tpm_key = next(c.key for c in results[done].checks if c.kind == "tokens")
        conc_key = next(c.key for c in results[done].checks if c.kind == "concurrency")
        await _insert_ledger_row(quota_fresh_dsn, tenant, done, "completed", 1_500, 30_001)
        await _insert_ledger_row(quota_fresh_dsn, tenant, in_flight, "in_flight", None, None)

        settings = QuotaSettings(
            postgres_dsn=quota_fresh_dsn,
            valkey_url=VALKEY_URL,
            admin_token="t-" + secrets.token_hex(8),
            key_pepper="pepper-rec",
            invalidation_channel=f"test:quota:inv:{secrets.token_hex(4)}",
            consume_usage=False,
            reconcile_interval_seconds=0.2,
            reconcile_grace_seconds=0,
            log_format="json",
        )
        # The counters are process-global (other tests reconcile too): count from here.
        before = {
            o: REGISTRY.get_sample_value(_RECONCILED, {"outcome": o}) or 0.0
            for o in ("ledger", "without_ledger")
        }
        server = TestServer(create_app(settings), host="127.0.0.1", port=0)
        await server.start_server()
        try:
            async with httpx.AsyncClient(base_url=str(server.make_url("")).rstrip("/")) as c:
                deadline = time.monotonic() + 20
                while True:
                    text = (await c.get("/metrics")).text
                    if _counter(text, "ledger") - before["ledger"] >= 1 and (
                        _counter(text, "without_ledger") - before["without_ledger"] >= 2
                    ):
                        break
                    assert time.monotonic() < deadline, text
                    await asyncio.sleep(0.2)
                await asyncio.sleep(0.5)  # a few more sweeps: nothing is reconciled twice
                text = (await c.get("/metrics")).text
                assert _counter(text, "ledger") - before["ledger"] == 1
                assert _counter(text, "without_ledger") - before["without_ledger"] == 2
        finally:
            await server.close()

        # Counters end exact: the ledger's actuals for one call, zero for the two others.
        assert int(await valkey.get(tpm_key)) == 1_500
        usage = await edge.budget_usage(tenant, limits[0])
        assert usage is not None
        assert (usage.spent_micro_usd, usage.reserved_micro_usd) == (30_001, 0)
        assert await valkey.zcard(conc_key) == 0
        assert await edge.list_expired(tenant) == []
        # The usage event arriving late lands once (issue 10: the provisional
        # zero is replaced by its actuals); delivered again, it changes nothing.
        late = await edge.settle(tenant_id=tenant, request_id=in_flight, tokens=2_999, cost_micro_usd=49_000)
        assert late.status == "settled_late"
        again = await edge.settle(tenant_id=tenant, request_id=in_flight, tokens=2_999, cost_micro_usd=49_000)
        assert again.status == "already_settled"
        usage = await edge.budget_usage(tenant, limits[0])
        assert usage is not None and usage.spent_micro_usd == 30_001 + 49_000
        assert int(await valkey.get(tpm_key)) == 1_500 + 2_999
    finally:
        keys = [k async for k in valkey.scan_iter(match=f"tw:{{{tenant}}}:*", count=1000)]
        if keys:
            await valkey.delete(*keys)
        await valkey.aclose()
