"""``/metrics`` with two edge workers on one port: whichever worker answers,
the totals are every worker's (prometheus-client multiprocess mode, set up by
the supervisor through ``tollway_runtime.metrics``)."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path

import aiohttp
import pytest

from .workers import CHAT, totals, two_workers

pytestmark = pytest.mark.integration

CALLS = 300
CONCURRENCY = 24


async def test_metrics_totals_equal_the_calls_made_whichever_worker_answers(
    fresh_database: str, valkey_test_url: str, fresh_topic, kafka_bootstrap_servers: str, tmp_path: Path
) -> None:
    topic = await fresh_topic(partitions=1)
    async with two_workers(
        fresh_database, valkey_test_url, topic, kafka_bootstrap_servers, tmp_path, tenant_id="tn_metrics"
    ) as w:
        url = w.url
        statuses: dict[int, int] = {}
        sem = asyncio.Semaphore(CONCURRENCY)
        # A new connection per call: the kernel spreads them over both workers.
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as http:

            async def one() -> None:
                async with (
                    sem,
                    http.post(
                        url + "/v1/chat/completions",
                        json=CHAT,
                        headers={"Authorization": f"Bearer {w.key}"},
                    ) as resp,
                ):
                    await resp.read()
                    statuses[resp.status] = statuses.get(resp.status, 0) + 1

            # Both workers listening and serving (a worker binds once its snapshot is loaded).
            deadline = time.monotonic() + 60
            while w.served() != {0, 1}:
                assert time.monotonic() < deadline, f"only workers {w.served()} served calls"
                await one()
            await asyncio.gather(*(one() for _ in range(CALLS)))
            calls = sum(statuses.values())
            assert calls >= CALLS and statuses.get(200, 0) >= CALLS, statuses
            # Every scrape, whichever worker answers it, counts every call of both.
            for _ in range(12):
                async with http.get(url + "/metrics") as resp:
                    assert resp.status == 200
                    got = totals(await resp.text())
                assert got["tollway_requests_total"] == calls
                assert got["tollway_request_duration_seconds_count"] == calls
                assert got["tollway_in_flight_calls"] == 1  # this scrape, summed over live workers
                assert got["tollway_admission_mode:exact"] == 2  # both workers exact
                assert got["tollway_admission_mode:local"] == 0
        w.edge.send_signal(signal.SIGTERM)
        assert w.edge.wait(30) == 0
