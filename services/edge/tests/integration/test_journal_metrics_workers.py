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
import yaml

from .conftest import PEPPER
from .principals_schema import create_principals_schema, upsert_key
from .processes import catalogue, free_port, start_edge, start_fake_provider, stop, wait_http
from .test_workers import _worker_pids
from .test_workers_metrics import _served, _totals

pytestmark = pytest.mark.integration

CALLS = 60


async def test_journal_depth_grows_in_metrics_across_workers_while_kafka_is_unreachable(
    fresh_database: str, valkey_test_url: str, tmp_path: Path
) -> None:
    await create_principals_schema(fresh_database)
    full_key, _, _ = await upsert_key(fresh_database, PEPPER.encode(), tenant_id="tn_journal_metrics")
    fake_port, port, closed = free_port(), free_port(), free_port()
    fake = start_fake_provider(fake_port, tmp_path / "fake.log")
    path = tmp_path / "catalogue.yaml"
    path.write_text(yaml.safe_dump(catalogue(f"http://127.0.0.1:{fake_port}/v1")))
    env = {
        "TOLLWAY_POSTGRES_DSN": fresh_database,
        "TOLLWAY_VALKEY_URL": valkey_test_url,
        "TOLLWAY_KAFKA_BOOTSTRAP_SERVERS": f"127.0.0.1:{closed}",  # nothing listens: nothing is acknowledged
        "TOLLWAY_KEY_PEPPER": PEPPER,
        "TOLLWAY_CATALOGUE_PATH": str(path),
        "TOLLWAY_EDGE_WORKERS": "2",
        "TOLLWAY_EDGE_JOURNAL_FLUSH_SECONDS": "0.5",
        "TOLLWAY_LOG_LEVEL": "INFO",
    }
    log_path = tmp_path / "edge.log"
    edge = start_edge(port, env, log_path)
    try:
        await wait_http(f"http://127.0.0.1:{fake_port}/healthz", proc=fake)
        await wait_http(f"http://127.0.0.1:{port}/readyz", within_s=60, proc=edge)  # Kafka does not matter
        assert len(_worker_pids(edge.pid)) == 2
        url = f"http://127.0.0.1:{port}"
        body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as http:

            async def scrape() -> dict[str, float]:
                async with http.get(url + "/metrics") as resp:
                    assert resp.status == 200
                    return _totals(await resp.text())

            async def one() -> None:
                async with http.post(
                    url + "/v1/chat/completions", json=body, headers={"Authorization": f"Bearer {full_key}"}
                ) as resp:
                    await resp.read()
                    assert resp.status == 200

            before = await scrape()
            assert before["tollway_journal_records"] == 0
            assert before["tollway_journal_kafka_connected"] == 0
            calls = 0
            deadline = time.monotonic() + 60
            while _served(log_path) != {0, 1}:  # both workers journal calls
                assert time.monotonic() < deadline, f"only workers {_served(log_path)} served calls"
                await one()
                calls += 1
            await asyncio.gather(*(one() for _ in range(CALLS)))
            calls += CALLS
            # The gauges are set once a second; then every scrape, whichever worker answers, holds both.
            deadline = time.monotonic() + 10
            while (got := await scrape())["tollway_journal_appended_total"] < calls:
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
        edge.send_signal(signal.SIGTERM)
        edge.wait(60)
    finally:
        stop(edge)
        stop(fake)
