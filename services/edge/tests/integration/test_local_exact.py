"""Counters that stay exact across a Valkey outage (issue 10): a PRIVATE
redis-server is stopped under load, two edge processes (each its own
``LocalLimiter`` + ``SplitKeeper`` + ``Admission``) continue in local mode with
shares of ``N`` = 2 processes counted by their heartbeats, starting from the
last known counters; Valkey restarts EMPTY, the local spend is written back
(merge rule: skipped, the ledger has it) and the counter is reseeded by quota
from the ledger: it equals the ledger's spend, and a repeated write-back or a
replayed usage event changes nothing. A split without data loss writes the
local spend back by addition, once."""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestServer
from redis.asyncio import Redis

from tollway_admission import Admission, EdgeRegistry
from tollway_contracts.limits import Limit
from tollway_edge.admission.continuity import SplitKeeper, new_process_id
from tollway_edge.admission.local_limits import LocalLimiter
from tollway_edge.admission.seed import QuotaSeedClient

from .ledger_schema import create_ledger_schema, record_spend
from .processes import free_port, start_valkey, stop, wait_valkey

pytestmark = pytest.mark.integration

PORT = free_port()
BUDGET = 100_000
PRE_SPENT = 10_000  # in the ledger before anything here
RESERVE, EXACT_COST, LOCAL_COST = 1_000, 800, 700
LIMIT = Limit(scope="key", scope_id="k1", budget_micro_usd=BUDGET, budget_period="month")


class Process:
    """One edge process's admission pieces (as EdgeAdmission wires them)."""

    def __init__(self, url: str, tenant: str, dsn: str) -> None:
        self.tenant, self.dsn = tenant, dsn
        self.client = Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
        self.adm = Admission(self.client)
        self.limiter = LocalLimiter(expected_processes=7)  # the setting: overridden by the heartbeat count
        self.keeper = SplitKeeper(
            self.limiter, EdgeRegistry(self.client, new_process_id()), self.adm, interval=0.2
        )
        self.local_spent = 0
        self.local_rids: list[str] = []

    async def exact_call(self, seed: QuotaSeedClient) -> None:
        rid = str(uuid.uuid4())
        res = await self.adm.admit(
            tenant_id=self.tenant,
            request_id=rid,
            limits=[LIMIT],
            cost_micro_usd=RESERVE,
            seed_provider=seed.provider(self.tenant),
        )
        assert res.admitted, res
        self.keeper.observe(res)
        # quota settles it from the usage event; the ledger records it
        await self.adm.settle(tenant_id=self.tenant, request_id=rid, tokens=10, cost_micro_usd=EXACT_COST)
        await record_spend(self.dsn, tenant_id=self.tenant, key_id="k1", cost_micro_usd=EXACT_COST)

    async def local_calls(self) -> None:
        """Local calls until the share refuses (the load during the split)."""
        while True:
            rid = str(uuid.uuid4())
            result, res = self.limiter.admit(
                tenant_id=self.tenant,
                request_id=rid,
                limits=[LIMIT],
                model="gpt-4o-mini",
                tokens=10,
                cost_micro_usd=RESERVE,
                now=datetime.now(UTC),
            )
            if res is None:
                assert result.refused_by is not None and result.refused_by.kind == "budget"
                return
            await asyncio.sleep(0)  # the call runs
            self.limiter.settle(res, 10, LOCAL_COST)  # EdgeAdmission.finish
            await record_spend(self.dsn, tenant_id=self.tenant, key_id="k1", cost_micro_usd=LOCAL_COST)
            self.local_spent += LOCAL_COST
            self.local_rids.append(rid)


async def _ledger_spend(dsn: str, tenant: str) -> int:
    import asyncpg

    conn = await asyncpg.connect(dsn)
    try:
        return int(
            await conn.fetchval(
                "SELECT coalesce(sum(cost_micro_usd), 0) FROM ledger.v_calls WHERE tenant_id = $1", tenant
            )
        )
    finally:
        await conn.close()


@pytest_asyncio.fixture
async def quota(fresh_database: str) -> AsyncIterator[tuple[str, str]]:
    from tollway_quota.app import create_app
    from tollway_quota.settings import QuotaSettings

    await create_ledger_schema(fresh_database)
    token = "seed-" + secrets.token_hex(6)
    settings = QuotaSettings(
        postgres_dsn=fresh_database,
        valkey_url=f"redis://127.0.0.1:{PORT}",
        admin_token="admin-" + secrets.token_hex(6),
        key_pepper="pepper-split",
        invalidation_channel=f"test:quota:inv:{secrets.token_hex(4)}",
        consume_usage=False,
        reconcile_expired=False,
        seed_token=token,
        log_format="json",
    )
    server = TestServer(create_app(settings), host="127.0.0.1", port=0)
    await server.start_server()
    try:
        yield str(server.make_url("")).rstrip("/"), token
    finally:
        await server.close()


async def test_valkey_restarted_empty_counters_equal_the_ledger(
    fresh_database: str, tmp_path: Path, quota: tuple[str, str]
) -> None:
    proc = start_valkey(PORT, tmp_path)
    await wait_valkey(PORT)
    tenant = f"t-split-{secrets.token_hex(4)}"
    url = f"redis://127.0.0.1:{PORT}"
    seed = QuotaSeedClient(*quota)
    a, b = Process(url, tenant, fresh_database), Process(url, tenant, fresh_database)
    await record_spend(fresh_database, tenant_id=tenant, key_id="k1", cost_micro_usd=PRE_SPENT)
    try:
        # Exact: both processes register (N = 2) and admit, seeded by quota from the ledger.
        for p in (a, b):
            await p.keeper.heartbeat()
        for _ in range(5):
            await a.exact_call(seed)
            await b.exact_call(seed)
        for p in (a, b):
            await p.keeper.heartbeat()
            assert p.keeper.alive == 2
        usage = await a.adm.budget_usage(tenant, LIMIT)
        assert usage is not None and usage.spent_micro_usd == PRE_SPENT + 10 * EXACT_COST

        # Valkey stops under load; both continue locally from their last known counters.
        stop(proc)
        for p in (a, b):
            with pytest.raises(Exception):  # noqa: B017, PT011 - any RedisError: unreachable
                await p.adm.admit(
                    tenant_id=tenant, request_id=str(uuid.uuid4()), limits=[LIMIT], cost_micro_usd=1
                )
            p.keeper.enter_local()
            assert p.limiter.share_of == 2  # the heartbeat's count, not the setting (7)
        # A process that never saw the counter (started during the outage, no
        # heartbeat: the configured 7) starts it from the ledger's spend, via quota.
        c = Process(url, tenant, fresh_database)
        c.keeper.enter_local()
        first, _ = c.limiter.admit(
            tenant_id=tenant,
            request_id="c1",
            limits=[LIMIT],
            model="m",
            tokens=1,
            cost_micro_usd=0,
            now=datetime.now(UTC),
        )
        assert first.checks[0].value == BUDGET // 7  # from 0 until the ledger's spend arrives
        assert await c.keeper.fill_baselines(seed.spend) == 1
        then, _ = c.limiter.admit(
            tenant_id=tenant,
            request_id="c2",
            limits=[LIMIT],
            model="m",
            tokens=1,
            cost_micro_usd=0,
            now=datetime.now(UTC),
        )
        assert then.checks[0].value == (BUDGET - (PRE_SPENT + 10 * EXACT_COST)) // 7
        await c.client.aclose()

        await asyncio.gather(a.local_calls(), b.local_calls())
        local = a.local_spent + b.local_spent
        assert local > 0
        # The bound: each process spent at most (budget - its last known counter) / 2.
        spent_before = PRE_SPENT + 10 * EXACT_COST
        assert spent_before + local <= BUDGET
        # ... and the shares were used: each leaves less than one call unused, and
        # each process's last known counter lags by at most the other's later calls.
        assert BUDGET - (spent_before + local) < 2 * RESERVE + 5 * RESERVE
        ledger = await _ledger_spend(fresh_database, tenant)
        assert ledger == spent_before + local

        # Valkey back EMPTY: write-back (skipped: the ledger holds the calls), then reseed.
        proc = start_valkey(PORT, tmp_path)
        await wait_valkey(PORT)
        for p in (a, b):
            await p.keeper.write_back()
            assert p.limiter.unwritten() == {}
        probe = await a.adm.admit(
            tenant_id=tenant,
            request_id=str(uuid.uuid4()),
            limits=[LIMIT],
            cost_micro_usd=0,
            seed_provider=seed.provider(tenant),
        )
        assert probe.admitted
        usage = await a.adm.budget_usage(tenant, LIMIT)
        assert usage is not None and usage.spent_micro_usd == ledger

        # Repeated write-backs (same ids), a replayed usage event of a local call: nothing changes.
        wid = f"{a.keeper.registry.process_id}:{a.keeper.split_id}:1"
        assert not await a.adm.write_back(
            tenant, wid, [(probe.checks[0].key, a.local_spent)], valkey_kept_data=True
        )
        replay = await a.adm.settle(
            tenant_id=tenant, request_id=a.local_rids[0], tokens=10, cost_micro_usd=LOCAL_COST
        )
        assert replay.status == "unknown"
        await a.keeper.write_back()
        usage = await a.adm.budget_usage(tenant, LIMIT)
        assert usage is not None and usage.spent_micro_usd == ledger
    finally:
        await seed.close()
        for p in (a, b):
            await p.client.aclose()
        stop(proc)


async def test_split_without_data_loss_writes_local_spend_back_once(
    fresh_database: str, tmp_path: Path, quota: tuple[str, str]
) -> None:
    proc = start_valkey(PORT, tmp_path)
    await wait_valkey(PORT)
    tenant = f"t-split-{secrets.token_hex(4)}"
    url = f"redis://127.0.0.1:{PORT}"
    seed = QuotaSeedClient(*quota)
    a = Process(url, tenant, fresh_database)
    await record_spend(fresh_database, tenant_id=tenant, key_id="k1", cost_micro_usd=PRE_SPENT)
    try:
        await a.keeper.heartbeat()
        for _ in range(3):
            await a.exact_call(seed)
        # A split that loses nothing (a network partition, modelled by entering
        # local mode while Valkey keeps its data).
        a.keeper.enter_local()
        assert a.limiter.share_of == 1
        for _ in range(4):
            _, res = a.limiter.admit(
                tenant_id=tenant,
                request_id=str(uuid.uuid4()),
                limits=[LIMIT],
                model="m",
                tokens=1,
                cost_micro_usd=RESERVE,
                now=datetime.now(UTC),
            )
            assert res is not None
            a.limiter.settle(res, 1, LOCAL_COST)
            a.limiter.settle(res, 1, LOCAL_COST)  # finished twice: counted once
            await record_spend(fresh_database, tenant_id=tenant, key_id="k1", cost_micro_usd=LOCAL_COST)
        await a.keeper.write_back()
        ledger = await _ledger_spend(fresh_database, tenant)
        usage = await a.adm.budget_usage(tenant, LIMIT)
        assert (
            usage is not None
            and usage.spent_micro_usd == ledger == PRE_SPENT + 3 * EXACT_COST + 4 * LOCAL_COST
        )
        # the same write-back again (a retry whose reply was lost) and a reseed attempt change nothing
        key = next(
            c.key
            for c in (
                await a.adm.admit(
                    tenant_id=tenant,
                    request_id=str(uuid.uuid4()),
                    limits=[LIMIT],
                    cost_micro_usd=0,
                    seed_provider=seed.provider(tenant),
                )
            ).checks
            if c.kind == "budget"
        )
        wid = f"{a.keeper.registry.process_id}:{a.keeper.split_id}:1"
        assert not await a.adm.write_back(tenant, wid, [(key, 4 * LOCAL_COST)], valkey_kept_data=True)
        assert await seed.seed(tenant, LIMIT, _month()) == ledger  # quota's seed: create-if-absent, no change
        usage = await a.adm.budget_usage(tenant, LIMIT)
        assert usage is not None and usage.spent_micro_usd == ledger
    finally:
        await seed.close()
        await a.client.aclose()
        stop(proc)


def _month():  # noqa: ANN202
    from tollway_admission import period_window

    return period_window("month", "UTC", datetime.now(UTC))
