"""The ledger's real schema in a test database (the edge seeds cold budget
counters from ``ledger.usage_records``), plus a helper recording spend as the
ledger would."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

import asyncpg

from tollway_ledger.migrate import MIGRATIONS_DIR
from tollway_runtime.migrations import apply_migrations


async def create_ledger_schema(dsn: str) -> None:
    """Apply the ledger's migrations and create this month's partition."""
    await asyncio.to_thread(apply_migrations, dsn, MIGRATIONS_DIR)
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute("SELECT ledger.ensure_usage_partitions(1)")
    finally:
        await conn.close()


async def record_spend(
    dsn: str,
    *,
    tenant_id: str,
    key_id: str,
    cost_micro_usd: int,
    model: str = "gpt-4o-mini",
    team_id: str | None = "team-1",
    user_id: str | None = "user-1",
    ts_start: datetime | None = None,
) -> None:
    """Insert one completed call of ``cost_micro_usd`` into ``ledger.usage_records``."""
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(
            "INSERT INTO ledger.usage_records (request_id, tenant_id, team_id, user_id, key_id, ts_start, ts_end,"
            " model, status, status_code, cost_micro_usd) VALUES ($1,$2,$3,$4,$5,$6,$6,$7,'completed',200,$8)",
            uuid.uuid4(),
            tenant_id,
            team_id,
            user_id,
            key_id,
            ts_start or datetime.now(UTC),
            model,
            cost_micro_usd,
        )
    finally:
        await conn.close()
