"""A Postgres outage under load: the ledger lags, retries, then catches up with
nothing lost. Runs against its OWN Postgres cluster (initdb + pg_ctl as the
``postgres`` user, in a temp dir, on a free port) — never the shared one —
and removes it afterwards.

The outage lasts ``LEDGER_TEST_OUTAGE_SECONDS`` seconds (default 20; the
issue's scenario is a minute: ``LEDGER_TEST_OUTAGE_SECONDS=60``)."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest
from aiokafka import AIOKafkaProducer

from tollway_ledger.app import METRICS

from ..conftest import (
    KAFKA,
    _free_port,
    group_caught_up,
    ledger_settings,
    make_call,
    run_ledger,
    wait_until,
)
from .test_ledger_kafka import rollups_match_records

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

PG_BIN = "/usr/lib/postgresql/15/bin"
OUTAGE_SECONDS = float(os.environ.get("LEDGER_TEST_OUTAGE_SECONDS", "20"))


@dataclass
class PrivatePostgres:
    """A throwaway Postgres 15 cluster owned by the ``postgres`` OS user."""

    root: str
    port: int

    @property
    def data(self) -> str:
        return os.path.join(self.root, "data")

    @property
    def dsn(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _pg_ctl(self, *args: str) -> None:
        subprocess.run(
            ["runuser", "-u", "postgres", "--", f"{PG_BIN}/pg_ctl", "-D", self.data, *args],
            check=True,
            capture_output=True,
            timeout=60,
        )

    def start(self) -> None:
        opts = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50"
        )
        self._pg_ctl("-o", opts, "-l", os.path.join(self.root, "postgres.log"), "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self._pg_ctl("-m", mode, "-w", "stop")


@pytest.fixture
def ledger_private_postgres() -> Iterator[PrivatePostgres]:
    """Start a private cluster on a free port; stop it and delete its files after."""
    if not os.path.exists(f"{PG_BIN}/initdb"):
        pytest.skip("Postgres 15 server binaries not installed")
    root = tempfile.mkdtemp(prefix="tollway-ledger-pg-")
    shutil.chown(root, "postgres", "postgres")
    pg = PrivatePostgres(root=root, port=_free_port())
    try:
        subprocess.run(
            [
                "runuser",
                "-u",
                "postgres",
                "--",
                f"{PG_BIN}/initdb",
                "-D",
                pg.data,
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        pg.start()
        yield pg
    finally:
        if os.path.exists(os.path.join(pg.data, "postmaster.pid")):
            try:
                pg.stop("immediate")
            except subprocess.SubprocessError:
                pass
        shutil.rmtree(root, ignore_errors=True)


async def test_postgres_outage_lags_then_catches_up(ledger_private_postgres, ledger_topics) -> None:
    pg = ledger_private_postgres
    settings = ledger_settings(pg.dsn, ledger_topics, db_retry_initial_seconds=0.2, db_retry_max_seconds=2)
    calls = []
    produced = 0
    stop_producing = asyncio.Event()
    base = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)

    async def load() -> None:
        """About 100 calls/s until told to stop."""
        nonlocal produced
        producer = AIOKafkaProducer(bootstrap_servers=KAFKA, acks="all", linger_ms=5)
        await producer.start()
        try:
            i = 0
            while not stop_producing.is_set():
                for _ in range(10):
                    call = make_call(i, base + timedelta(milliseconds=37 * i), failed=i % 11 == 0)
                    calls.append(call)
                    for event in call:
                        await producer.send(ledger_topics[0], key=event.kafka_key(), value=event.to_json())
                    i += 1
                await producer.flush()
                produced = i
                await asyncio.sleep(0.1)
        finally:
            await producer.stop()

    def retries(app) -> float:
        return app[METRICS].registry.get_sample_value("tollway_ledger_db_retries_total") or 0

    async with run_ledger(settings) as (app, _):
        producer_task = asyncio.create_task(load())
        try:
            await asyncio.sleep(3)
            await asyncio.to_thread(pg.stop, "fast")
            down_since = asyncio.get_running_loop().time()
            produced_at_stop = produced
            await asyncio.sleep(OUTAGE_SECONDS)
            # While Postgres is down the ledger retries (never skips) and falls behind.
            assert retries(app) >= 1
            assert not await group_caught_up(ledger_topics[0], settings.consumer_group)
            assert produced > produced_at_stop
            await asyncio.to_thread(pg.start)
            assert asyncio.get_running_loop().time() - down_since >= OUTAGE_SECONDS
            await asyncio.sleep(2)
        finally:
            stop_producing.set()
            await producer_task
        await wait_until(
            lambda: group_caught_up(ledger_topics[0], settings.consumer_group), within=120, interval=0.5
        )

    conn = await asyncpg.connect(pg.dsn)
    try:
        rows = dict(await conn.fetch("SELECT request_id, status FROM ledger.usage_records"))
        assert len(rows) == len(calls)
        assert all(rows[t.request_id] == t.type for _, t in calls)
        assert await conn.fetchval("SELECT sum(requests) FROM ledger.usage_rollup_monthly") == len(calls)
    finally:
        await conn.close()
    await rollups_match_records(pg.dsn)
