"""Fault-suite fixtures: the arguments of a private :func:`rig.rig` per test."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

FAULT_SECONDS = float(os.environ.get("TOLLWAY_FAULT_SECONDS", "20"))
"""How long a stopping fault lasts (Kafka SIGSTOPped, ...); issue 10 names 60 s, CI uses 20 s."""


@pytest_asyncio.fixture
async def rig_args(
    fresh_database: str,
    valkey_test_url: str,
    kafka_bootstrap_servers: str,
    fresh_topic: Any,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, Any]:
    """Keyword arguments of ``rig.rig`` on the shared Kafka (fresh topics)."""
    return {
        "tmp": tmp_path,
        "basetemp": tmp_path_factory.getbasetemp(),
        "db": fresh_database,
        "valkey_url": valkey_test_url,
        "kafka": kafka_bootstrap_servers,
        "topic": await fresh_topic(partitions=3),
        "dlq": await fresh_topic(partitions=1),
    }


@pytest_asyncio.fixture
async def quota_database(postgres_dsn: str) -> Any:
    """A second fresh database, for a private quota service's own catalog (its migrations
    would clash with the edge's stand-in principals tables in the rig's database)."""
    import urllib.parse
    import uuid

    import asyncpg

    name = f"tw_test_{uuid.uuid4().hex[:16]}"
    conn = await asyncpg.connect(postgres_dsn, timeout=10)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    parts = urllib.parse.urlsplit(postgres_dsn)
    try:
        yield urllib.parse.urlunsplit(parts._replace(path="/" + name))
    finally:
        conn = await asyncpg.connect(postgres_dsn, timeout=10)
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await conn.close()
