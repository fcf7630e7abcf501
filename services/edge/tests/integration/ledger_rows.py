"""The real ledger consuming an edge's usage topic, and its rows: what a
user is billed, read the way reporting reads it (``ledger.usage_records``)."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
from aiohttp import web


@contextlib.asynccontextmanager
async def running_ledger(dsn: str, topic: str, dlq_topic: str, kafka: str) -> AsyncIterator[web.Application]:
    """The real ledger (``tollway_ledger.create_app``, which migrates at start)
    consuming ``topic`` (DLQ ``dlq_topic``) into ``dsn``, from the topic's start
    (a fresh consumer group), serving its health port, until the block ends.
    The one way edge tests run a ledger."""
    from tollway_ledger.app import create_app
    from tollway_ledger.settings import LedgerSettings

    from .processes import free_port

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
    await web.TCPSite(runner, "127.0.0.1", settings.health_port).start()
    try:
        yield app
    finally:
        with contextlib.suppress(Exception):
            await runner.cleanup()


@contextlib.asynccontextmanager
async def ledger_for(dsn: str, kafka: str, topic: str, fresh_topic: Any) -> AsyncIterator[None]:
    """:func:`running_ledger` on ``topic`` with a fresh DLQ topic."""
    async with running_ledger(dsn, topic, await fresh_topic(partitions=1), kafka):
        yield


async def ledger_row(dsn: str, request_id: str, within_s: float = 30.0) -> dict[str, Any]:
    """The terminal (``completed``/``failed``) ``ledger.usage_records`` row of
    ``request_id`` once the ledger has written it (fails after ``within_s``)."""
    return dict((await rows(dsn, [request_id], within_s))[request_id])


async def rows(dsn: str, request_ids: list[str], within_s: float = 30.0) -> dict[str, asyncpg.Record]:
    """The ledger rows of ``request_ids`` once every one is terminal."""
    ids = [uuid.UUID(r) for r in request_ids]
    deadline = time.monotonic() + within_s
    while True:
        conn = await asyncpg.connect(dsn)
        try:
            found = await conn.fetch(
                "SELECT * FROM ledger.usage_records WHERE request_id = ANY($1::uuid[])"
                " AND status IN ('completed', 'failed')",
                ids,
            )
        finally:
            await conn.close()
        if len(found) == len(ids) or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.2)
    assert len(found) == len(ids), f"{len(found)} of {len(ids)} rows terminal"
    return {str(r["request_id"]): r for r in found}
