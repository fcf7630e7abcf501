"""The journal's disk full (issue 10): the edge's journal directory is a small
tmpfs (mounted by the test: it runs as root), filled by another file under load,
then freed. The configured behaviour (``full_policy: refuse``, the default):
while writes fail, new calls get 503 ``journal_full`` in OpenAI's format; the
events of the calls already in flight are kept in memory and written once the
disk has room, so nothing that reached the provider goes unbilled."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from .conftest import FAULT_SECONDS
from .rig import Rig, load, rig, row_for_docs, write_result

pytestmark = pytest.mark.integration

CMD = "bash infra/test.sh tests/faults/test_disk_full.py"
TMPFS_SIZE = "4m"


def fill(path: Path) -> int:
    """Write zeros to ``path`` until the file system is full; returns the bytes written."""
    block = bytes(64 * 1024)
    written = 0
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        while True:
            try:
                n = os.write(fd, block)
            except OSError:
                break
            if n == 0:
                break
            written += n
    finally:
        os.close(fd)
    return written


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
async def test_journal_disk_full_refuses_new_calls_and_bills_every_call(rig_args: dict[str, Any]) -> None:
    journal = Path(rig_args["tmp"]) / "journal"
    mounted = False

    async def mount(r: Rig) -> None:
        nonlocal mounted
        journal.mkdir(exist_ok=True)
        cmd = ["mount", "-t", "tmpfs", "-o", f"size={TMPFS_SIZE}", "tmpfs", str(journal)]
        await asyncio.to_thread(subprocess.run, cmd, check=True)
        mounted = True

    seconds = min(FAULT_SECONDS, 8.0)
    try:
        async with rig(
            **rig_args,
            before_edge=mount,
            TOLLWAY_EDGE_JOURNAL_SEGMENT_BYTES="65536",  # small segments: shipped ones free the disk
            TOLLWAY_EDGE_JOURNAL_MAX_RECORD_BYTES="32768",
        ) as r:
            task = asyncio.create_task(load(r, 4 + seconds + 6))
            await asyncio.sleep(4)
            filler = journal / "filler"
            filled = await asyncio.to_thread(fill, filler)
            await asyncio.sleep(seconds)
            filler.unlink()
            out = await task
            report, waited = await r.settle_and_check(within_s=30)
    finally:
        if mounted:
            with contextlib.suppress(subprocess.CalledProcessError):
                await asyncio.to_thread(subprocess.run, ["umount", "-l", str(journal)], check=True)
    row = row_for_docs(
        f"journal disk full {seconds:.0f} s (tmpfs {TMPFS_SIZE}, filled by another file), then freed",
        f"8 clients, {4 + seconds + 6:.0f} s",
        out,
        report,
        CMD,
    )
    row["filler_bytes"] = filled
    row["error_codes"] = out.codes
    write_result(rig_args["basetemp"], row)
    assert report.clean, (report.summary(), report.problems()[:5])  # nothing unbilled, none NULL
    assert out.codes.get("journal_full", 0) > 0, (out.errors, out.codes)  # the configured refusal
    assert set(out.codes) <= {"journal_full"}, out.codes
    assert set(out.errors) <= {"http_503"}, out.errors
    assert out.ok > 0
