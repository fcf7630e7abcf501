"""The redactor SIGKILLed under load (a PRIVATE redactor process): calls of a
key whose policy redacts are refused with 503 ``redaction_unavailable`` while
it is down (fail closed: no prompt leaves unredacted), nothing is billed for
them beyond their ``failed`` row, and calls go on once it is back."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from .conftest import FAULT_SECONDS
from .rig import free_port, load, rig, row_for_docs, write_result

pytestmark = pytest.mark.integration

CMD = "TOLLWAY_FAULT_SECONDS={s:g} bash infra/test.sh tests/faults/test_redactor_fault.py"


def _start(port: int, valkey_url: str, log: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "TOLLWAY_REDACTOR_PORT": str(port),
        "TOLLWAY_REDACTOR_HOST": "127.0.0.1",
        "TOLLWAY_REDACTOR_WORKERS": "1",
        "TOLLWAY_REDACTOR_CACHE_PREFIX": f"faults:{port}:",
        "TOLLWAY_VALKEY_URL": valkey_url,
        "TOLLWAY_LOG_FORMAT": "json",
        "TOLLWAY_LOG_LEVEL": "INFO",
    }
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "tollway_redactor"], env=env, stdout=out, stderr=subprocess.STDOUT
        )


async def _ready(url: str, proc: subprocess.Popen[bytes], within_s: float = 180) -> None:
    deadline = asyncio.get_running_loop().time() + within_s
    async with aiohttp.ClientSession() as http:
        while True:
            assert proc.poll() is None, "redactor exited"
            try:
                async with http.get(f"{url}/readyz", timeout=aiohttp.ClientTimeout(total=2)) as r:
                    if r.status == 200:
                        return
            except (aiohttp.ClientError, TimeoutError):
                pass
            assert asyncio.get_running_loop().time() < deadline, "redactor not ready"
            await asyncio.sleep(0.25)


async def test_redactor_killed(rig_args: dict[str, Any], tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "redactor.log"
    redactor = await asyncio.to_thread(_start, port, rig_args["valkey_url"], log)
    try:
        await _ready(url, redactor)
        seconds = FAULT_SECONDS + 10
        async with rig(**rig_args, policy={"mode": "redact"}, TOLLWAY_EDGE_REDACTOR_URLS=url) as r:
            task = asyncio.create_task(load(r, seconds))
            await asyncio.sleep(4)
            redactor.kill()
            redactor.wait(10)
            await asyncio.sleep(FAULT_SECONDS)
            redactor = await asyncio.to_thread(_start, port, rig_args["valkey_url"], log)
            await _ready(url, redactor)
            out = await task
            after = await load(r, 6)  # recovered: every call served again
            report, _ = await r.settle_and_check(within_s=60)
    finally:
        if redactor.poll() is None:
            redactor.kill()
            redactor.wait(10)
    write_result(
        rig_args["basetemp"],
        row_for_docs(
            f"redactor SIGKILLed, restarted after {FAULT_SECONDS:g} s (policy: redact)",
            f"8 clients, {seconds:g} s, then 6 s after the redactor is back ({after.calls} calls, {after.failed} errors)",
            out,
            report,
            CMD.format(s=FAULT_SECONDS),
        ),
    )
    assert set(out.errors) <= {"http_503"}, out.errors  # fail closed, retryable: the redactor comes back
    assert after.failed == 0 and after.ok > 0, after.errors
    assert report.clean, (report.summary(), report.problems()[:5])
