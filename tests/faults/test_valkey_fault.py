"""Valkey stopped under load and restarted EMPTY (a PRIVATE server): admission
goes local, calls go on, and every call is billed exactly once."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from .conftest import FAULT_SECONDS
from .rig import free_port, load, processes, rig, row_for_docs, write_result

pytestmark = pytest.mark.integration

CMD = "TOLLWAY_FAULT_SECONDS={s:g} bash infra/test.sh tests/faults/test_valkey_fault.py"


async def test_valkey_stopped_and_restarted_empty(rig_args: dict[str, Any], tmp_path: Path) -> None:
    port = free_port()
    (tmp_path / "valkey").mkdir()
    valkey = processes.start_valkey(port, tmp_path / "valkey")
    try:
        await processes.wait_valkey(port)
        seconds = FAULT_SECONDS + 10
        async with rig(**{**rig_args, "valkey_url": f"redis://127.0.0.1:{port}/0"}) as r:
            task = asyncio.create_task(load(r, seconds))
            await asyncio.sleep(4)
            valkey.kill()
            valkey.wait(10)
            await asyncio.sleep(FAULT_SECONDS)
            valkey = processes.start_valkey(port, tmp_path / "valkey")  # no persistence: empty
            await processes.wait_valkey(port)
            out = await task
            report, waited = await r.settle_and_check(within_s=60)
    finally:
        processes.stop(valkey)
    write_result(
        rig_args["basetemp"],
        row_for_docs(
            f"Valkey SIGKILLed, restarted empty after {FAULT_SECONDS:g} s",
            f"8 clients, {seconds:g} s",
            out,
            report,
            CMD.format(s=FAULT_SECONDS),
        ),
    )
    assert out.failed == 0, out.errors  # admission_failure_mode=local: calls go on
    assert report.clean, (report.summary(), report.problems()[:5])
