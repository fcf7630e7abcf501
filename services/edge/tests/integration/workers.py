"""Two edge workers on one port (``TOLLWAY_EDGE_WORKERS=2``) as real processes,
for the tests of the worker set (test_workers, test_workers_metrics,
test_log_levels, test_journal_metrics_workers; test_drain reads ``worker_pids``): the supervisor ``python -m tollway_edge`` in front of the
fake provider, a fresh principals schema with one key, a fresh topic."""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import orjson
import yaml
from prometheus_client.parser import text_string_to_metric_families

from .conftest import PEPPER
from .principals_schema import create_principals_schema, upsert_key
from .processes import catalogue, free_port, start_edge, start_fake_provider, stop, wait_http

CHAT = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}
"""A chat call the fake provider answers."""


def totals(text: str) -> dict[str, float]:
    """A ``/metrics`` page summed by sample name (``tollway_admission_mode`` by ``mode``)."""
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            key = s.name if s.name != "tollway_admission_mode" else f"{s.name}:{s.labels['mode']}"
            out[key] = out.get(key, 0.0) + s.value
    return out


def worker_pids(pid: int) -> list[int]:
    """The supervisor's edge workers (spawn also starts a resource tracker: skip it)."""
    path = Path(f"/proc/{pid}/task/{pid}/children")
    children = [int(p) for p in path.read_text().split()] if path.exists() else []
    return [
        c
        for c in children
        if b"multiprocessing.resource_tracker" not in Path(f"/proc/{c}/cmdline").read_bytes()
    ]


def worker_env(
    dsn: str, valkey_url: str, kafka_bootstrap_servers: str, topic: str | None, catalogue_path: Path
) -> dict[str, str]:
    """The environment of a two-worker edge (``start_edge`` adds the rest); no
    ``topic``: the default usage topic (a test whose Kafka is unreachable)."""
    env = {
        "TOLLWAY_POSTGRES_DSN": dsn,
        "TOLLWAY_VALKEY_URL": valkey_url,
        "TOLLWAY_KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap_servers,
        "TOLLWAY_KEY_PEPPER": PEPPER,
        "TOLLWAY_CATALOGUE_PATH": str(catalogue_path),
        "TOLLWAY_EDGE_WORKERS": "2",
    }
    if topic is not None:
        env["TOLLWAY_EDGE_USAGE_TOPIC"] = topic
    return env


@dataclass(frozen=True)
class TwoWorkers:
    """A running two-worker edge.

    Attributes:
        edge: the supervisor process.
        url: ``http://127.0.0.1:<port>``.
        key: a full API key (no limits) of the tenant the test named.
        log_path: the supervisor's and workers' JSON log lines.
        pids: the two workers' pids.
    """

    edge: subprocess.Popen[bytes]
    url: str
    key: str
    log_path: Path
    pids: list[int]

    def events(self) -> list[dict[str, object]]:
        """Every JSON log line so far."""
        return [
            orjson.loads(line) for line in self.log_path.read_bytes().splitlines() if line.startswith(b"{")
        ]

    def served(self) -> set[int]:
        """The workers (0, 1) that logged a canonical request line."""
        return {
            w for e in self.events() if e.get("event") == "request" and isinstance(w := e.get("worker"), int)
        }


@asynccontextmanager
async def two_workers(
    dsn: str,
    valkey_url: str,
    topic: str | None,
    kafka_bootstrap_servers: str,
    tmp_path: Path,
    *,
    tenant_id: str,
    env: dict[str, str] | None = None,
) -> AsyncIterator[TwoWorkers]:
    """Start the fake provider and a two-worker edge (``TOLLWAY_LOG_LEVEL=INFO``
    plus ``env``), wait until it is ready with two workers, and stop both
    processes on exit (the test may have stopped the edge itself)."""
    await create_principals_schema(dsn)
    key, _, _ = await upsert_key(dsn, PEPPER.encode(), tenant_id=tenant_id)
    fake_port, port = free_port(), free_port()
    fake = start_fake_provider(fake_port, tmp_path / "fake.log")
    path = tmp_path / "catalogue.yaml"
    path.write_text(yaml.safe_dump(catalogue(f"http://127.0.0.1:{fake_port}/v1")))
    full_env = {
        **worker_env(dsn, valkey_url, kafka_bootstrap_servers, topic, path),
        "TOLLWAY_LOG_LEVEL": "INFO",
        **(env or {}),
    }
    log_path = tmp_path / "edge.log"
    edge = start_edge(port, full_env, log_path)
    try:
        await wait_http(f"http://127.0.0.1:{fake_port}/healthz", proc=fake)
        await wait_http(f"http://127.0.0.1:{port}/readyz", within_s=60, proc=edge)
        pids = worker_pids(edge.pid)
        assert len(pids) == 2
        yield TwoWorkers(edge, f"http://127.0.0.1:{port}", key, log_path, pids)
    finally:
        stop(edge)
        stop(fake)
