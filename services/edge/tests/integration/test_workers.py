"""``TOLLWAY_EDGE_WORKERS``: several edge processes on one port (SO_REUSEPORT),
supervised by the ``python -m tollway_edge`` process."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import aiohttp
import pytest
import yaml

from .principals_schema import create_principals_schema
from .processes import catalogue, free_port, start_edge, stop, wait_http
from .workers import CHAT, two_workers, worker_env, worker_pids

pytestmark = pytest.mark.integration


async def test_two_workers_share_one_port_and_stop_together(
    fresh_database: str, valkey_test_url: str, fresh_topic, kafka_bootstrap_servers: str, tmp_path: Path
) -> None:
    topic = await fresh_topic(partitions=1)
    async with two_workers(
        fresh_database, valkey_test_url, topic, kafka_bootstrap_servers, tmp_path, tenant_id="tn_workers"
    ) as w:
        # Every worker becomes ready (each loads its own snapshot); then new
        # connections spread over both.
        served: set[int] = set()
        deadline = time.monotonic() + 30
        while served != {0, 1}:
            assert time.monotonic() < deadline, f"only workers {served} served calls"
            connector = aiohttp.TCPConnector(force_close=True)
            async with aiohttp.ClientSession(connector=connector) as http:
                async with http.post(
                    f"{w.url}/v1/chat/completions", json=CHAT, headers={"Authorization": f"Bearer {w.key}"}
                ) as resp:
                    if resp.status == 503:  # the other worker still loading its snapshot
                        await asyncio.sleep(0.1)
                        continue
                    assert resp.status == 200, await resp.text()
            served = w.served()
        # SIGTERM to the supervisor stops every worker and exits 0.
        w.edge.send_signal(signal.SIGTERM)
        assert w.edge.wait(30) == 0
        for pid in w.pids:
            proc_dir = Path(f"/proc/{pid}")  # a local /proc read: blocking is harmless here
            assert not proc_dir.exists() or b"zombie" in (proc_dir / "status").read_bytes()  # noqa: ASYNC240 - /proc read, instant


async def test_a_dead_worker_stops_the_set_with_an_error(
    fresh_database: str, valkey_test_url: str, fresh_topic, kafka_bootstrap_servers: str, tmp_path: Path
) -> None:
    await create_principals_schema(fresh_database)
    topic = await fresh_topic(partitions=1)
    port = free_port()
    path = tmp_path / "catalogue.yaml"
    path.write_text(yaml.safe_dump(catalogue("http://127.0.0.1:9/v1")))
    env = worker_env(fresh_database, valkey_test_url, kafka_bootstrap_servers, topic, path)
    edge = start_edge(port, env, tmp_path / "edge.log")
    try:
        await wait_http(f"http://127.0.0.1:{port}/healthz", within_s=60, proc=edge)
        workers = worker_pids(edge.pid)
        assert len(workers) == 2
        os.kill(workers[0], signal.SIGKILL)
        assert edge.wait(30) == 1  # the process manager restarts the whole set
    finally:
        stop(edge)
