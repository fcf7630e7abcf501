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
async def ledger_for(dsn: str, kafka: str, topic: str, fresh_topic: Any) -> AsyncIterator[None]:
    """The real ledger (``tollway_ledger.create_app``) consuming ``topic`` into ``dsn``
    (whose ledger schema exists), from the topic's start, until the block ends."""
    from tollway_ledger.app import create_app
    from tollway_ledger.settings import LedgerSettings

    settings = LedgerSettings(
        postgres_dsn=dsn,
        kafka_bootstrap_servers=kafka,
        topic=topic,
        dlq_topic=await fresh_topic(partitions=1),
        consumer_group=f"test-edge-ledger-{uuid.uuid4().hex[:10]}",
        auto_offset_reset="earliest",
        batch_timeout_ms=100,
        shutdown_timeout_seconds=5,
    )
    runner = web.AppRunner(create_app(settings), handle_signals=False)
    await runner.setup()
    try:
        yield
    finally:
        await runner.cleanup()


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
