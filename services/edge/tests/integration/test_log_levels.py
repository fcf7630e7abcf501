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
import orjson
import pytest
import yaml

from .conftest import PEPPER
from .principals_schema import create_principals_schema, upsert_key
from .processes import catalogue, free_port, start_edge, start_fake_provider, stop, wait_http
from .test_workers import _worker_pids

pytestmark = pytest.mark.integration


def _events(log_path: Path) -> list[dict[str, object]]:
    return [orjson.loads(line) for line in log_path.read_bytes().splitlines() if line.startswith(b"{")]


async def test_per_logger_level_applies_in_every_worker(
    fresh_database: str, valkey_test_url: str, fresh_topic, kafka_bootstrap_servers: str, tmp_path: Path
) -> None:
    await create_principals_schema(fresh_database)
    full_key, _, _ = await upsert_key(fresh_database, PEPPER.encode(), tenant_id="tn_log_levels")
    topic = await fresh_topic(partitions=1)
    fake_port, port = free_port(), free_port()
    fake = start_fake_provider(fake_port, tmp_path / "fake.log")
    path = tmp_path / "catalogue.yaml"
    path.write_text(yaml.safe_dump(catalogue(f"http://127.0.0.1:{fake_port}/v1")))
    env = {
        "TOLLWAY_POSTGRES_DSN": fresh_database,
        "TOLLWAY_VALKEY_URL": valkey_test_url,
        "TOLLWAY_KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap_servers,
        "TOLLWAY_KEY_PEPPER": PEPPER,
        "TOLLWAY_CATALOGUE_PATH": str(path),
        "TOLLWAY_EDGE_USAGE_TOPIC": topic,
        "TOLLWAY_EDGE_WORKERS": "2",
        "TOLLWAY_LOG_LEVEL": "INFO",
        "TOLLWAY_LOG_LEVELS": "tollway_edge.request=warning,aiokafka=error",
    }
    log_path = tmp_path / "edge.log"
    edge = start_edge(port, env, log_path)
    try:
        await wait_http(f"http://127.0.0.1:{fake_port}/healthz", proc=fake)
        await wait_http(f"http://127.0.0.1:{port}/readyz", within_s=60, proc=edge)
        assert len(_worker_pids(edge.pid)) == 2
        # Both workers up (their info lines of other loggers still come: only the request logger is raised).
        deadline = time.monotonic() + 60
        while {e.get("worker") for e in _events(log_path) if e.get("event") == "principals_loaded"} != {0, 1}:
            assert time.monotonic() < deadline, "both workers did not log principals_loaded at INFO"
            await asyncio.sleep(0.2)
        body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as http:
            for _ in range(20):  # new connections: the kernel spreads them over both workers
                async with http.post(
                    f"http://127.0.0.1:{port}/v1/chat/completions",
                    json=body,
                    headers={"Authorization": f"Bearer {full_key}"},
                ) as resp:
                    assert resp.status == 200
        edge.send_signal(signal.SIGTERM)
        assert edge.wait(30) == 0
        events = _events(log_path)
        assert not [e for e in events if e.get("event") == "request"], "request lines logged at info"
        assert {e.get("worker") for e in events if e.get("event") == "journal_stopped"} == {0, 1}
    finally:
        stop(edge)
        stop(fake)
