"""Postgres adapter (asyncpg pool), read-only.

Reads only the ledger's documented views (``ledger.v_usage_*``, through
:mod:`tollway_reporting.query`) and ``catalog.reporting_tokens`` (token
verification). Every transaction is ``READ ONLY`` with a statement timeout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import asyncpg

_TOKEN_SQL = """
SELECT id, tenant_id, secret_hash, revoked_at IS NOT NULL AS revoked
FROM catalog.reporting_tokens WHERE id = $1
"""


@dataclass(frozen=True, slots=True)
class TokenRow:
    """A reporting token as stored: public id, tenant, HMAC hex, revoked flag."""

    id: str
    tenant_id: str
    secret_hash: str
    revoked: bool


class ReportingStore:
    """Runs report queries and token look-ups.

    Args:
        pool: asyncpg pool on the database holding ``ledger`` and ``catalog``.
        statement_timeout_ms: per-statement limit, ms.
    """

    def __init__(self, pool: asyncpg.Pool, statement_timeout_ms: int) -> None:
        self.pool = pool
        self._timeout_ms = int(statement_timeout_ms)

    async def ping(self) -> bool:
        """True when Postgres answers ``SELECT 1``."""
        async with self.pool.acquire(timeout=2) as conn:
            return bool(await conn.fetchval("SELECT 1", timeout=2) == 1)

    async def schema_ready(self) -> bool:
        """True when the relations this service reads exist (ledger migration
        0003's views, quota migration 0003's ``catalog.reporting_tokens``)."""
        async with self.pool.acquire(timeout=2) as conn:
            return bool(
                await conn.fetchval(
                    "SELECT to_regclass('ledger.v_usage_hourly') IS NOT NULL"
                    " AND to_regclass('ledger.v_usage_daily') IS NOT NULL"
                    " AND to_regclass('ledger.v_usage_monthly') IS NOT NULL"
                    " AND to_regclass('catalog.reporting_tokens') IS NOT NULL",
                    timeout=2,
                )
            )

    async def fetch(self, sql: str, args: list[Any]) -> list[tuple[Any, ...]]:
        """Run one read-only query; rows as tuples.

        Raises:
            asyncpg.QueryCanceledError: the statement timeout passed.
            asyncpg.PostgresError, OSError: other database failures.
        """
        async with self.pool.acquire() as conn, conn.transaction(readonly=True):
            await conn.execute(f"SET LOCAL statement_timeout = {self._timeout_ms}")
            return [tuple(r) for r in await conn.fetch(sql, *args)]

    async def token(self, token_id: str) -> TokenRow | None:
        """The stored reporting token ``token_id``, or None."""
        async with self.pool.acquire() as conn:
            row = await conn.fetchrow(_TOKEN_SQL, token_id)
        return (
            None if row is None else TokenRow(row["id"], row["tenant_id"], row["secret_hash"], row["revoked"])
        )
