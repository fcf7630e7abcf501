"""The ledger, in process, consuming an edge test's usage topic into the test's
database (its real consumer and store: ``tollway_ledger.app.create_app``), so a
test can read the ledger row a call produced."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
from aiohttp import web

from tollway_ledger.app import create_app
from tollway_ledger.settings import LedgerSettings

from .processes import free_port


@contextlib.asynccontextmanager
async def running_ledger(dsn: str, topic: str, dlq_topic: str, kafka: str) -> AsyncIterator[web.Application]:
    """Run the ledger on ``topic`` (DLQ ``dlq_topic``) into ``dsn`` until the block ends
    (a fresh consumer group reading from the earliest offset)."""
    settings = LedgerSettings(
        postgres_dsn=dsn,
        kafka_bootstrap_servers=kafka,
        topic=topic,
        dlq_topic=dlq_topic,
        consumer_group=f"test-edge-ledger-{uuid.uuid4().hex[:10]}",
        auto_offset_reset="earliest",
        batch_timeout_ms=100,
        shutdown_timeout_seconds=10,
        health_port=free_port(),
    )
    app = create_app(settings)
    runner = web.AppRunner(app, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", settings.health_port)
    await site.start()
    try:
        yield app
    finally:
        await runner.cleanup()


async def ledger_row(dsn: str, request_id: str, within_s: float = 30.0) -> dict[str, Any]:
    """The ``completed``/``failed`` ``ledger.usage_records`` row of ``request_id``
    once the ledger has written it (fails after ``within_s``)."""
    deadline = asyncio.get_running_loop().time() + within_s
    conn = await asyncpg.connect(dsn)
    try:
        while True:
            row = await conn.fetchrow(
                "SELECT * FROM ledger.usage_records WHERE request_id = $1", uuid.UUID(request_id)
            )
            if row is not None and row["status"] in ("completed", "failed"):
                return dict(row)
            assert asyncio.get_running_loop().time() < deadline, f"no terminal ledger row: {row}"
            await asyncio.sleep(0.2)
    finally:
        await conn.close()
