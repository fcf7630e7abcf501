"""Faults of the provider and of clients, through a two-worker edge: every call
the provider answered billably is billed once, exactly or within the estimator's
bound (tollway_testing.oracle)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from .rig import load, rig, row_for_docs, write_result

pytestmark = pytest.mark.integration

CMD = "bash infra/test.sh tests/faults/test_provider_faults.py -k {k}"


async def test_no_fault_baseline(rig_args: dict[str, Any]) -> None:
    async with rig(**rig_args) as r:
        out = await load(r, 8)
        report, _ = await r.settle_and_check()
    write_result(
        rig_args["basetemp"],
        row_for_docs("none (baseline)", "8 clients, 8 s", out, report, CMD.format(k="baseline")),
    )
    assert out.failed == 0, out.errors
    assert report.clean and report.estimated_rows == 0, (report.summary(), report.problems()[:5])
    assert report.calls == out.calls


async def test_provider_500_stall_and_cut(rig_args: dict[str, Any]) -> None:
    """A third of the time each: the provider answers 500, stalls 1.5 s before its
    headers, or cuts streams after 5 chunks (and non-streams after the headers)."""
    async with rig(**rig_args) as r:
        task = asyncio.create_task(load(r, 12))
        await asyncio.sleep(2)
        await r.set_fault({"model:fake-model": {"status": 500, "times": 15}})
        await asyncio.sleep(2)
        await r.set_fault({"model:fake-model": {"stall_before_headers_ms": 1500, "times": 10}})
        await asyncio.sleep(2)
        await r.set_fault({"model:fake-stream-c20-i30": {"cut_after_chunks": 5, "times": 20}})
        await asyncio.sleep(3)
        await r.clear_faults()
        out = await task
        report, _ = await r.settle_and_check()
    write_result(
        rig_args["basetemp"],
        row_for_docs(
            "provider 500 ×15, stall 1.5 s ×10, stream cut after 5 chunks ×20",
            "8 clients, 12 s",
            out,
            report,
            CMD.format(k="500"),
        ),
    )
    assert report.clean, (report.summary(), report.problems()[:5])
    assert report.estimated_rows > 0  # the cut streams: billed from what was relayed


async def test_clients_leaving_mid_stream(rig_args: dict[str, Any]) -> None:
    async with rig(**rig_args) as r:
        out = await load(r, 10, leave_every=2)
        report, _ = await r.settle_and_check()
    write_result(
        rig_args["basetemp"],
        row_for_docs(
            "clients leave every 2nd stream after 3 chunks",
            "8 clients, 10 s",
            out,
            report,
            CMD.format(k="leaving"),
        ),
    )
    assert out.errors.get("client_left", 0) > 0
    assert set(out.errors) <= {"client_left"}, out.errors
    assert report.clean, (report.summary(), report.problems()[:5])
