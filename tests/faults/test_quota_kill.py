"""Quota's settlement consumer SIGKILLed mid-batch, twice, under load: every
reservation is settled exactly once (the key's budget counter equals the
ledger's spend, nothing left reserved) and every call is billed (the oracle)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from .quota_rig import PrivateQuota, budget_limit, budget_usage, ledger_spend, seed_zero
from .rig import TENANT, Rig, load, rig, row_for_docs, write_result

pytestmark = pytest.mark.integration

CMD = "bash infra/test.sh tests/faults/test_quota_kill.py"


async def test_quota_consumer_sigkilled_mid_batch(rig_args: dict[str, Any], quota_database: str) -> None:
    quota = PrivateQuota(
        tmp=rig_args["tmp"],
        basetemp=rig_args["basetemp"],
        db=quota_database,
        valkey_url=rig_args["valkey_url"],
        kafka=rig_args["kafka"],
        topic=rig_args["topic"],
        dlq_topic=rig_args["dlq"],
    )
    limits = [{"scope": "key", "scope_id": "$key", "budget_micro_usd": 10**12, "budget_period": "month"}]

    async def before_edge(r: Rig) -> None:
        await seed_zero(r.valkey_url, TENANT, budget_limit(r.key_id))
        await quota.start()

    try:
        async with rig(**rig_args, limits=limits, before_edge=before_edge) as r:
            limit = budget_limit(r.key_id)
            task = asyncio.create_task(load(r, 15))
            for _ in range(2):
                await asyncio.sleep(4)
                quota.kill()  # under load it is always settling a batch: killed mid-batch
                await asyncio.sleep(1)
                await quota.start()
            out = await task
            report, waited = await r.settle_and_check(within_s=60)
            start = time.monotonic()
            while True:  # quota catches up from its last committed offsets
                usage = await budget_usage(r.valkey_url, TENANT, limit)
                spend = await ledger_spend(r.db, r.key_id)
                settled = usage is not None and usage.reserved_micro_usd == 0
                if settled and usage is not None and usage.spent_micro_usd == spend:
                    break
                if time.monotonic() - start > 60:
                    break
                await asyncio.sleep(0.5)
            caught_up = time.monotonic() - start
    finally:
        quota.stop()
    row = row_for_docs(
        f"quota consumer SIGKILLed twice mid-batch, restarted 1 s later (counters settled {caught_up:.0f} s after)",
        "8 clients, 15 s",
        out,
        report,
        CMD,
    )
    assert usage is not None
    row["counter_spent_micro_usd"] = usage.spent_micro_usd
    row["counter_reserved_micro_usd"] = usage.reserved_micro_usd
    row["ledger_spend_micro_usd"] = spend
    write_result(rig_args["basetemp"], row)
    assert out.failed == 0, out.errors
    assert report.clean, (report.summary(), report.problems()[:5])
    assert spend > 0
    assert usage.reserved_micro_usd == 0, row  # every reservation settled
    assert usage.spent_micro_usd == spend, row  # ... exactly once: the counter is the ledger's sum
