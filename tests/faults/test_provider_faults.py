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


async def test_provider_answers_without_usage(rig_args: dict[str, Any]) -> None:
    """The provider answers 30 non-streamed calls and 10 streams in full but
    without their usage: each is billed by estimate (``usage_estimated``), never
    NULL cost: the prompt by the estimator, a non-stream's completion by the text
    rule (ceil(bytes / 4) of its answer), a stream's by its relayed deltas."""
    async with rig(**rig_args) as r:
        task = asyncio.create_task(load(r, 8))
        await asyncio.sleep(2)
        await r.set_fault(
            {
                "model:fake-model": {"omit_usage": True, "times": 30},
                "model:fake-stream-c20-i30": {"omit_usage": True, "times": 10},
            }
        )
        out = await task
        report, _ = await r.settle_and_check()
        records = await r.provider_records()
    write_result(
        rig_args["basetemp"],
        row_for_docs(
            "provider answers without usage: 30 non-streamed, 10 streams",
            "8 clients, 8 s",
            out,
            report,
            CMD.format(k="without_usage"),
        ),
    )
    assert out.failed == 0, out.errors
    assert report.clean, (report.summary(), report.problems()[:5])
    unreported = {x["request_id"] for x in records if x.get("billable") and not x.get("usage_reported")}
    assert len(unreported) == 40, len(unreported)
    estimated = {d.request_id for d in report.details if d.estimated}
    assert estimated == unreported  # exactly those, all within their bound, none NULL
    assert report.null_cost == 0


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
