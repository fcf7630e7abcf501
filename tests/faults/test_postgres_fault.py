"""Postgres stopped under load (a PRIVATE cluster: ``initdb`` as the
``postgres`` user on a free port): the edge serves from its principals
snapshot, the ledger retries its transaction without committing offsets, and
once Postgres is back every call is billed exactly once."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from .conftest import FAULT_SECONDS
from .rig import free_port, load, rig, row_for_docs, write_result

pytestmark = pytest.mark.integration

BIN = Path("/usr/lib/postgresql/15/bin")
CMD = "TOLLWAY_FAULT_SECONDS={s:g} bash infra/test.sh tests/faults/test_postgres_fault.py"


class PrivatePostgres:
    """A throwaway cluster owned by ``postgres`` (Postgres refuses to run as root)."""

    def __init__(self) -> None:
        self.dir = Path("/tmp") / f"tollway-faults-pg-{free_port()}"  # postgres must reach it
        self.port = free_port()

    def _as_pg(self, *args: str) -> None:
        subprocess.run(["runuser", "-u", "postgres", "--", *args], check=True, capture_output=True)

    def init(self) -> None:
        self.dir.mkdir(mode=0o700)
        shutil.chown(self.dir, "postgres", "postgres")
        self._as_pg(
            str(BIN / "initdb"), "-D", str(self.dir / "data"), "-U", "postgres", "--auth=trust", "-E", "UTF8"
        )

    def start(self) -> None:
        self._as_pg(
            str(BIN / "pg_ctl"),
            "-D",
            str(self.dir / "data"),
            "-l",
            str(self.dir / "postgres.log"),
            "-w",
            "-o",
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off",
            "start",
        )

    def stop(self, mode: str = "immediate") -> None:
        self._as_pg(str(BIN / "pg_ctl"), "-D", str(self.dir / "data"), "-m", mode, "-w", "stop")

    @property
    def dsn(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def cleanup(self) -> None:
        subprocess.run(
            [
                "runuser",
                "-u",
                "postgres",
                "--",
                str(BIN / "pg_ctl"),
                "-D",
                str(self.dir / "data"),
                "-m",
                "immediate",
                "stop",
            ],
            capture_output=True,
        )
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def private_postgres() -> Iterator[PrivatePostgres]:
    pg = PrivatePostgres()
    try:
        pg.init()
        pg.start()
        yield pg
    finally:
        pg.cleanup()


async def test_postgres_stopped(rig_args: dict[str, Any], private_postgres: PrivatePostgres) -> None:
    conn = await asyncpg.connect(private_postgres.dsn)
    await conn.execute("CREATE DATABASE tollway")
    await conn.close()
    db = private_postgres.dsn.removesuffix("/postgres") + "/tollway"
    seconds = FAULT_SECONDS + 10
    async with rig(**{**rig_args, "db": db}) as r:
        task = asyncio.create_task(load(r, seconds))
        await asyncio.sleep(4)
        await asyncio.to_thread(private_postgres.stop)
        await asyncio.sleep(FAULT_SECONDS)
        await asyncio.to_thread(private_postgres.start)
        out = await task
        report, waited = await r.settle_and_check(within_s=90)
    write_result(
        rig_args["basetemp"],
        row_for_docs(
            f"Postgres stopped (immediate) {FAULT_SECONDS:g} s (settled {waited:.0f} s after)",
            f"8 clients, {seconds:g} s",
            out,
            report,
            CMD.format(s=FAULT_SECONDS),
        ),
    )
    assert out.failed == 0, out.errors
    assert report.clean, (report.summary(), report.problems()[:5])
