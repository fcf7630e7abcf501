"""``/metrics`` with two edge workers on one port: whichever worker answers,
the totals are every worker's (prometheus-client multiprocess mode, set up by
the supervisor through ``tollway_runtime.metrics``)."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path

import aiohttp
import orjson
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from .conftest import PEPPER
from .principals_schema import create_principals_schema, upsert_key
from .processes import catalogue, free_port, start_edge, start_fake_provider, stop, wait_http
from .test_workers import _worker_pids

pytestmark = pytest.mark.integration

CALLS = 300
CONCURRENCY = 24


def _served(log_path: Path) -> set[int]:
    return {
        orjson.loads(line).get("worker")
        for line in log_path.read_bytes().splitlines()
        if line.startswith(b"{") and b'"event":"request"' in line
    } - {None}


def _totals(text: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            key = s.name if s.name != "tollway_admission_mode" else f"{s.name}:{s.labels['mode']}"
            out[key] = out.get(key, 0.0) + s.value
    return out


async def test_metrics_totals_equal_the_calls_made_whichever_worker_answers(
    fresh_database: str, valkey_test_url: str, fresh_topic, kafka_bootstrap_servers: str, tmp_path: Path
) -> None:
    await create_principals_schema(fresh_database)
    full_key, _, _ = await upsert_key(fresh_database, PEPPER.encode(), tenant_id="tn_metrics")
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
    }
    log_path = tmp_path / "edge.log"
    edge = start_edge(port, env, log_path)
    try:
        await wait_http(f"http://127.0.0.1:{fake_port}/healthz", proc=fake)
        await wait_http(f"http://127.0.0.1:{port}/readyz", timeout=60, proc=edge)
        assert len(_worker_pids(edge.pid)) == 2
        url = f"http://127.0.0.1:{port}"
        body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}
        statuses: dict[int, int] = {}
        sem = asyncio.Semaphore(CONCURRENCY)
        # A new connection per call: the kernel spreads them over both workers.
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as http:

            async def one() -> None:
                async with (
                    sem,
                    http.post(
                        url + "/v1/chat/completions",
                        json=body,
                        headers={"Authorization": f"Bearer {full_key}"},
                    ) as resp,
                ):
                    await resp.read()
                    statuses[resp.status] = statuses.get(resp.status, 0) + 1

            # Both workers listening and serving (a worker binds once its snapshot is loaded).
            deadline = time.monotonic() + 60
            while _served(log_path) != {0, 1}:
                assert time.monotonic() < deadline, f"only workers {_served(log_path)} served calls"
                await one()
            await asyncio.gather(*(one() for _ in range(CALLS)))
            calls = sum(statuses.values())
            assert calls >= CALLS and statuses.get(200, 0) >= CALLS, statuses
            # Every scrape, whichever worker answers it, counts every call of both.
            for _ in range(12):
                async with http.get(url + "/metrics") as resp:
                    assert resp.status == 200
                    got = _totals(await resp.text())
                assert got["tollway_requests_total"] == calls
                assert got["tollway_request_duration_seconds_count"] == calls
                assert got["tollway_in_flight_calls"] == 1  # this scrape, summed over live workers
                assert got["tollway_admission_mode:exact"] == 2  # both workers exact
                assert got["tollway_admission_mode:local"] == 0
        edge.send_signal(signal.SIGTERM)
        assert edge.wait(30) == 0
    finally:
        stop(edge)
        stop(fake)
