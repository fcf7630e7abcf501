"""A log level per logger from settings reaches every edge worker:
``TOLLWAY_LOG_LEVELS=tollway_edge.request=warning`` silences the canonical
request line of successful calls in both workers while the other loggers
keep logging at ``TOLLWAY_LOG_LEVEL``."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path

import aiohttp
import pytest

from .workers import CHAT, two_workers

pytestmark = pytest.mark.integration


async def test_per_logger_level_applies_in_every_worker(
    fresh_database: str, valkey_test_url: str, fresh_topic, kafka_bootstrap_servers: str, tmp_path: Path
) -> None:
    topic = await fresh_topic(partitions=1)
    async with two_workers(
        fresh_database,
        valkey_test_url,
        topic,
        kafka_bootstrap_servers,
        tmp_path,
        tenant_id="tn_log_levels",
        env={"TOLLWAY_LOG_LEVELS": "tollway_edge.request=warning,aiokafka=error"},
    ) as w:
        # Both workers up (their info lines of other loggers still come: only the request logger is raised).
        deadline = time.monotonic() + 60
        while {e.get("worker") for e in w.events() if e.get("event") == "principals_loaded"} != {0, 1}:
            assert time.monotonic() < deadline, "both workers did not log principals_loaded at INFO"
            await asyncio.sleep(0.2)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as http:
            for _ in range(20):  # new connections: the kernel spreads them over both workers
                async with http.post(
                    f"{w.url}/v1/chat/completions", json=CHAT, headers={"Authorization": f"Bearer {w.key}"}
                ) as resp:
                    assert resp.status == 200
        w.edge.send_signal(signal.SIGTERM)
        assert w.edge.wait(30) == 0
        events = w.events()
        assert not [e for e in events if e.get("event") == "request"], "request lines logged at info"
        assert {e.get("worker") for e in events if e.get("event") == "journal_stopped"} == {0, 1}
