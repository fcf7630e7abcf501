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
