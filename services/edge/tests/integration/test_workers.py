"""``TOLLWAY_EDGE_WORKERS``: several edge processes on one port (SO_REUSEPORT),
supervised by the ``python -m tollway_edge`` process."""

from __future__ import annotations

import asyncio
import os
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

pytestmark = pytest.mark.integration


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _worker_pids(pid: int) -> list[int]:
    """The supervisor's edge workers (spawn also starts a resource tracker: skip it)."""
    return [
        c
        for c in _children(pid)
        if b"multiprocessing.resource_tracker" not in Path(f"/proc/{c}/cmdline").read_bytes()
    ]


async def test_two_workers_share_one_port_and_stop_together(
    fresh_database: str, valkey_test_url: str, fresh_topic, kafka_bootstrap_servers: str, tmp_path: Path
) -> None:
    await create_principals_schema(fresh_database)
    full_key, _, _ = await upsert_key(fresh_database, PEPPER.encode(), tenant_id="tn_workers")
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
        await wait_http(f"http://127.0.0.1:{port}/readyz", within_s=60, proc=edge)
        workers = _worker_pids(edge.pid)
        assert len(workers) == 2
        # Every worker becomes ready (each loads its own snapshot); then new
        # connections spread over both.
        body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}
        served: set[int] = set()
        deadline = time.monotonic() + 30
        while served != {0, 1}:
            assert time.monotonic() < deadline, f"only workers {served} served calls"
            connector = aiohttp.TCPConnector(force_close=True)
            async with aiohttp.ClientSession(connector=connector) as http:
                async with http.post(
                    f"http://127.0.0.1:{port}/v1/chat/completions",
                    json=body,
                    headers={"Authorization": f"Bearer {full_key}"},
                ) as resp:
                    if resp.status == 503:  # the other worker still loading its snapshot
                        await asyncio.sleep(0.1)
                        continue
                    assert resp.status == 200, await resp.text()
            served = {
                orjson.loads(line).get("worker")
                for line in log_path.read_bytes().splitlines()
                if line.startswith(b"{") and b'"event":"request"' in line
            } - {None}
        # SIGTERM to the supervisor stops every worker and exits 0.
        edge.send_signal(signal.SIGTERM)
        assert edge.wait(30) == 0
        for pid in workers:
            proc_dir = Path(f"/proc/{pid}")  # a local /proc read: blocking is harmless here
            assert not proc_dir.exists() or b"zombie" in (proc_dir / "status").read_bytes()  # noqa: ASYNC240 - /proc read, instant
    finally:
        stop(edge)
        stop(fake)


async def test_a_dead_worker_stops_the_set_with_an_error(
    fresh_database: str, valkey_test_url: str, fresh_topic, kafka_bootstrap_servers: str, tmp_path: Path
) -> None:
    await create_principals_schema(fresh_database)
    topic = await fresh_topic(partitions=1)
    port = free_port()
    path = tmp_path / "catalogue.yaml"
    path.write_text(yaml.safe_dump(catalogue("http://127.0.0.1:9/v1")))
    env = {
        "TOLLWAY_POSTGRES_DSN": fresh_database,
        "TOLLWAY_VALKEY_URL": valkey_test_url,
        "TOLLWAY_KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap_servers,
        "TOLLWAY_KEY_PEPPER": PEPPER,
        "TOLLWAY_CATALOGUE_PATH": str(path),
        "TOLLWAY_EDGE_USAGE_TOPIC": topic,
        "TOLLWAY_EDGE_WORKERS": "2",
    }
    edge = start_edge(port, env, tmp_path / "edge.log")
    try:
        await wait_http(f"http://127.0.0.1:{port}/healthz", within_s=60, proc=edge)
        workers = _worker_pids(edge.pid)
        assert len(workers) == 2
        os.kill(workers[0], signal.SIGKILL)
        assert edge.wait(30) == 1  # the process manager restarts the whole set
    finally:
        stop(edge)
