"""Tollway's own processes SIGKILLed under load: an edge worker (the edge is
restarted on its journal directory) and the ledger consumer mid-batch."""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import pytest

from .rig import load, rig, row_for_docs, write_result

pytestmark = pytest.mark.integration

CMD = "bash infra/test.sh tests/faults/test_process_kills.py -k {k}"


async def test_edge_worker_sigkilled_and_restarted_on_its_journal(rig_args: dict[str, Any]) -> None:
    """The supervisor sees a worker die, drains the other and exits; the edge is
    restarted on the same journal directory and adopts the dead worker's journal.
    Calls in flight on the killed worker reached the provider but their terminal
    events were never written: the adopter writes them (``journal.recovery``),
    billed by estimate within the stated bound (their clients saw the connection
    drop). Every call is billed; no row has a NULL cost."""
    async with rig(**rig_args) as r:
        task = asyncio.create_task(load(r, 30))
        await asyncio.sleep(4)
        victim = await r.busiest_worker(
            at_least=3
        )  # not by pid order: SO_REUSEPORT may give one worker few clients
        os.kill(victim, signal.SIGKILL)
        assert r.edge is not None
        await asyncio.to_thread(r.edge.wait, 60)  # the supervisor drains the other worker and exits 1
        assert r.edge.returncode == 1
        await r.start_edge()
        out = await task
        report, waited = await r.settle_and_check(within_s=30)
    row = row_for_docs(
        "edge worker SIGKILLed, edge restarted on its journal",
        "8 clients, 30 s",
        out,
        report,
        CMD.format(k="edge_worker"),
    )
    row["adopted_under_count"] = sorted(  # provider's completion − billed, per adopted row (the bound)
        d.provider_tokens[1] - (d.ledger_tokens[1] or 0)
        for d in report.details
        if d.estimated and d.provider_tokens is not None and d.ledger_tokens is not None
    )
    write_result(rig_args["basetemp"], row)
    assert report.clean, (report.summary(), report.problems()[:5])  # 0 lost, 0 NULL cost, all in bound
    assert report.adopted_rows + report.adopted_unbilled >= 1, (
        report.summary()
    )  # the kill met calls in flight
    assert report.adopted_rows + report.adopted_unbilled <= out.failed, (report.summary(), out.errors)
    assert report.adopted_rows + report.adopted_unbilled <= 16, (
        report.summary()
    )  # the worker's in-flight calls


async def test_ledger_sigkilled_mid_batch(rig_args: dict[str, Any]) -> None:
    async with rig(**rig_args) as r:
        task = asyncio.create_task(load(r, 15))
        for _ in range(2):
            await asyncio.sleep(4)
            assert r.ledger is not None
            r.ledger.kill()
            await asyncio.to_thread(r.ledger.wait, 10)
            await asyncio.sleep(1)
            r.start_ledger()
        out = await task
        report, waited = await r.settle_and_check(within_s=60)
    write_result(
        rig_args["basetemp"],
        row_for_docs(
            f"ledger SIGKILLed twice mid-batch, restarted 1 s later (settled {waited:.0f} s after)",
            "8 clients, 15 s",
            out,
            report,
            CMD.format(k="ledger"),
        ),
    )
    assert out.failed == 0, out.errors
    assert report.clean, (report.summary(), report.problems()[:5])
