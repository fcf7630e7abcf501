"""What the edge's CPU benchmarks share (``cpu_per_call.py``, ``relay_cpu.py``):
the local stack's addresses, a process's CPU time from ``/proc``, and the
stack of one run — a fresh database and Kafka topic, the fake provider and the
edge as processes — created by :func:`open_stack` and removed by
:func:`close_stack` (processes stopped, topic deleted, database dropped).

Everything listens on 127.0.0.1 and is stopped at the end of the run.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import yaml
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

DSN = os.environ.get("TOLLWAY_POSTGRES_DSN", "postgresql://tollway:tollway@127.0.0.1:5432/tollway")
KAFKA = os.environ.get("TOLLWAY_KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092")
VALKEY = os.environ.get("TOLLWAY_VALKEY_URL", "redis://127.0.0.1:6379/0").rsplit("/", 1)[0]
"""The Valkey server's URL without its db number."""
VALKEY_DB = int(os.environ.get("TOLLWAY_BENCH_VALKEY_DB", "14"))
TICK = os.sysconf("SC_CLK_TCK")
PEPPER = "bench-pepper"


def cpu_times(pid: int) -> tuple[float, float]:
    """``(user, system)`` CPU seconds of ``pid`` so far (``/proc/<pid>/stat`` utime, stime)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / TICK, int(fields[12]) / TICK


def wait_http(url: str, timeout: float = 60) -> None:
    """Poll ``url`` until it answers 200; RuntimeError after ``timeout`` seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return
        except Exception:  # noqa: BLE001 - not up yet
            time.sleep(0.2)
    raise RuntimeError(f"{url} not ready")


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Stack:
    """One run's database (``dsn``), topic, scratch directory and processes."""

    db: str
    dsn: str
    topic: str
    tmp: Path
    admin: AIOKafkaAdminClient
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def write_catalogue(self, catalogue: dict[str, Any]) -> Path:
        """Write the edge's catalogue (``tmp/cat.yaml``) and return its path."""
        path = self.tmp / "cat.yaml"
        path.write_text(yaml.safe_dump(catalogue))
        return path

    def start_fake(self, port: int) -> subprocess.Popen[bytes]:
        """Start the fake provider on ``port`` and wait until it answers."""
        fake = subprocess.Popen(
            [sys.executable, "-m", "tollway_testing.fake_provider", "--port", str(port), "--no-access-log"]
        )
        self.procs.append(fake)
        wait_http(f"http://127.0.0.1:{port}/healthz")
        return fake

    def edge_env(self, port: int, valkey_url: str, log_level: str = "WARNING") -> dict[str, str]:
        """The edge's environment on this stack (our environment, then the stack's settings)."""
        return {
            **os.environ,
            "TOLLWAY_POSTGRES_DSN": self.dsn,
            "TOLLWAY_KAFKA_BOOTSTRAP_SERVERS": KAFKA,
            "TOLLWAY_VALKEY_URL": valkey_url,
            "TOLLWAY_KEY_PEPPER": PEPPER,
            "TOLLWAY_CATALOGUE_PATH": str(self.tmp / "cat.yaml"),
            "TOLLWAY_EDGE_PORT": str(port),
            "TOLLWAY_EDGE_USAGE_TOPIC": self.topic,
            "TOLLWAY_EDGE_JOURNAL_DIR": str(self.tmp / "journal"),
            "TOLLWAY_LOG_LEVEL": log_level,
            "TOLLWAY_LOG_FORMAT": "json",
        }


async def delete_tenant_keys(tenant: str) -> None:
    """Delete a bench tenant's admission keys (``tw:{tenant}:*``) from Valkey db
    ``VALKEY_DB`` (``TOLLWAY_BENCH_VALKEY_DB``, default 14)."""
    import redis.asyncio as aioredis

    client = aioredis.from_url(f"{VALKEY}/{VALKEY_DB}")
    try:
        keys = [k async for k in client.scan_iter(match=f"tw:{{{tenant}}}:*", count=1000)]
        if keys:
            await client.delete(*keys)
    finally:
        await client.aclose()


async def open_stack() -> Stack:
    """Create a fresh database and a one-partition topic (close with :func:`close_stack`)."""
    db = f"tw_bench_{uuid.uuid4().hex[:12]}"
    topic = f"tollway.bench.{uuid.uuid4().hex[:12]}"
    conn = await asyncpg.connect(DSN)
    await conn.execute(f'CREATE DATABASE "{db}"')
    await conn.close()
    admin = AIOKafkaAdminClient(bootstrap_servers=KAFKA)
    await admin.start()
    await admin.create_topics([NewTopic(topic, 1, 1)])
    return Stack(db, DSN.rsplit("/", 1)[0] + "/" + db, topic, Path(tempfile.mkdtemp()), admin)


def stop_process(proc: subprocess.Popen[bytes]) -> None:
    """SIGINT (the services' clean stop), then SIGKILL after 15 s."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()


async def close_stack(stack: Stack) -> None:
    """Stop the stack's processes (last started first), delete the topic, drop the database."""
    for p in reversed(stack.procs):
        p.send_signal(signal.SIGINT)
    for p in stack.procs:
        try:
            p.wait(15)
        except subprocess.TimeoutExpired:
            p.kill()
    await stack.admin.delete_topics([stack.topic])
    await stack.admin.close()
    conn = await asyncpg.connect(DSN)
    await conn.execute(f'DROP DATABASE IF EXISTS "{stack.db}" WITH (FORCE)')
    await conn.close()
