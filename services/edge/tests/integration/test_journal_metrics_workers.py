"""The usage journal's depth in ``/metrics`` with two edge workers and Kafka
unreachable: whichever worker answers the scrape, the journal gauges are both
workers' (prometheus-client multiprocess mode, ``tollway_edge.journal.metrics``),
and they grow with the calls made — what the TollwayJournalGrowing alert watches."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path

import aiohttp
import pytest

from .processes import free_port
from .workers import CHAT, totals, two_workers

pytestmark = pytest.mark.integration

CALLS = 60


async def test_journal_depth_grows_in_metrics_across_workers_while_kafka_is_unreachable(
    fresh_database: str, valkey_test_url: str, tmp_path: Path
) -> None:
    closed = free_port()  # nothing listens: nothing is acknowledged
    async with two_workers(
        fresh_database,
        valkey_test_url,
        None,
        f"127.0.0.1:{closed}",
        tmp_path,
        tenant_id="tn_journal_metrics",
        env={"TOLLWAY_EDGE_JOURNAL_FLUSH_SECONDS": "0.5"},
    ) as w:  # ready although Kafka is unreachable: Kafka does not matter
        url = w.url
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as http:

            async def scrape() -> dict[str, float]:
                async with http.get(url + "/metrics") as resp:
                    assert resp.status == 200
                    return totals(await resp.text())

            async def one() -> None:
                async with http.post(
                    url + "/v1/chat/completions", json=CHAT, headers={"Authorization": f"Bearer {w.key}"}
                ) as resp:
                    await resp.read()
                    assert resp.status == 200

            before = await scrape()
            assert before["tollway_journal_records"] == 0
            assert before["tollway_journal_kafka_connected"] == 0
            calls = 0
            deadline = time.monotonic() + 60
            while w.served() != {0, 1}:  # both workers journal calls
                assert time.monotonic() < deadline, f"only workers {w.served()} served calls"
                await one()
                calls += 1
            await asyncio.gather(*(one() for _ in range(CALLS)))
            calls += CALLS
            # Every call has returned, so every append has happened (the terminal event goes to the
            # journal before the response's last byte); the records gauge is refreshed once a second,
            # so wait until it has caught up with the counter, then every scrape, whichever worker
            # answers, holds both workers' figures.
            deadline = time.monotonic() + 10
            while (got := await scrape())["tollway_journal_appended_total"] < calls or got[
                "tollway_journal_records"
            ] != got["tollway_journal_appended_total"]:
                assert time.monotonic() < deadline, got
                await asyncio.sleep(0.2)
            for _ in range(8):
                got = await scrape()
                assert got["tollway_journal_records"] >= calls  # one usage event per call at least
                assert got["tollway_journal_records"] == got["tollway_journal_appended_total"]  # none acked
                assert got["tollway_journal_acked_total"] == 0
                assert got["tollway_journal_bytes"] > 0
                assert got["tollway_journal_full"] == 0
                assert got["tollway_journal_kafka_connected"] == 0
            await asyncio.sleep(1.5)
            later = await scrape()
            assert later["tollway_journal_oldest_unacked_age_seconds"] >= 1.0  # the oldest waits and ages
            assert later["tollway_journal_records"] >= got["tollway_journal_records"]  # never shrinks
        w.edge.send_signal(signal.SIGTERM)
        w.edge.wait(60)
