"""Helpers shared by the consumer benchmarks (``ledger_ingest.py``,
``quota_settlement.py``): each fills a fresh topic, runs the real service as a
process, and measures how fast its consumer group's committed offsets move and
what CPU the process spends."""

from __future__ import annotations

import os
import socket

import asyncpg
from aiokafka import TopicPartition
from aiokafka.admin import AIOKafkaAdminClient

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """user + system CPU of ``pid`` so far, seconds (0 when it is gone), from ``/proc/<pid>/stat``."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def committed(admin: AIOKafkaAdminClient, group: str, tps: list[TopicPartition]) -> int:
    """Sum of ``group``'s committed offsets over ``tps`` (0 before the group exists)."""
    try:
        offsets = await admin.list_consumer_group_offsets(group, partitions=tps)
    except Exception:  # noqa: BLE001 - group not there yet
        return 0
    return sum(max(o.offset, 0) for o in offsets.values() if o is not None)


async def backend_pids(dsn: str, db: str) -> list[int]:
    """Pids of the Postgres backends connected to database ``db`` (their CPU is the service's too)."""
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch(
            "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", db
        )
        return [r[0] for r in rows]
    finally:
        await conn.close()
