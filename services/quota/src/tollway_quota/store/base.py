"""What every part of the catalogue store shares (``tollway_quota.store``): the
column lists, the cursors, :class:`Change`, and :class:`StoreBase`'s helpers —
the version bump, locks and existence checks, inserts, the re-stamp of keys,
setting one policy column. The transaction and ordering rules are in the
package's docstring.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from tollway_quota.errors import Conflict, NotFound

TENANT_COLUMNS = "id, name, time_zone, alert_webhook_url, created_at, allowed_regions"
TEAM_COLUMNS = (
    "id, tenant_id, name, redaction_policy, created_at, allowed_regions, response_cache_ttl_seconds"
)
USER_COLUMNS = "id, tenant_id, team_id, name, email, created_at"
KEY_COLUMNS = (
    "key_id, tenant_id, team_id, user_id, name, allowed_models, redaction_policy, "
    "created_at, expires_at, revoked_at, version, response_cache_ttl_seconds"
)
LIMIT_COLUMNS = (
    "id, tenant_id, scope, scope_id, model, requests_per_minute, tokens_per_minute, max_concurrent, "
    "budget_micro_usd, budget_period, thresholds_percent, shadow, created_at, updated_at"
)
# The api_keys column that places a key in each scope kind.
_SCOPE_COLUMN = {"key": "key_id", "user": "user_id", "team": "team_id", "tenant": "tenant_id"}
# What a change locks before it bumps the version: (table, id column, the API's parameter).
_LOCKED = {
    "key": ("catalog.api_keys", "key_id", "key_id"),
    "team": ("catalog.teams", "id", "team_id"),
    "tenant": ("catalog.tenants", "id", "tenant_id"),
    "limit": ("catalog.limits", "id", "limit_id"),
}
# Scopes that carry policies of their own: (table, the columns a read returns, id column).
_POLICY_TABLES = {
    "key": ("catalog.api_keys", KEY_COLUMNS, "key_id"),
    "team": ("catalog.teams", TEAM_COLUMNS, "id"),
    "tenant": ("catalog.tenants", TENANT_COLUMNS, "id"),
}


Cursor = psycopg.AsyncCursor[dict[str, Any]]
"""The store's cursors: rows as dicts (``row_factory=dict_row``)."""


async def fetch_one(cur: Cursor) -> dict[str, Any]:
    """The one row a statement returns (``RETURNING``, an aggregate, a view of
    one row); a missing row is a broken invariant, not an admin mistake."""
    row = await cur.fetchone()
    if row is None:
        raise RuntimeError("the statement returned no row")
    return row


@dataclass(frozen=True, slots=True)
class Change:
    """What a committed change produced: the new principals version and the
    API keys whose ``edge_principals`` rows it touched."""

    version: int
    key_ids: list[str]


class StoreBase:
    """The pool and the helpers of ``tollway_quota.store.CatalogStore``'s parts."""

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool

    @staticmethod
    async def _bump(cur: Cursor) -> int:
        await cur.execute(
            "UPDATE catalog.principals_version_state SET version = version + 1 RETURNING version"
        )
        return int((await fetch_one(cur))["version"])

    @staticmethod
    async def _require(
        cur: Cursor, sql: str, args: tuple[Any, ...], message: str, param: str
    ) -> dict[str, Any]:
        await cur.execute(sql, args)
        row = await cur.fetchone()
        if row is None:
            raise NotFound(message, param)
        return row

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[Cursor]:
        """A cursor outside any explicit transaction (reads)."""
        async with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            yield cur

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[Cursor]:
        """A cursor in one transaction: committed when the block ends, rolled
        back when it raises (the exception goes on)."""
        async with (
            self._pool.connection() as conn,
            conn.transaction(),
            conn.cursor(row_factory=dict_row) as cur,
        ):
            yield cur

    @classmethod
    async def _lock_and_bump(cls, cur: Cursor, kind: str, row_id: str) -> int:
        """Lock the ``kind`` row ``row_id`` (a key, team, tenant or limit) and bump
        the principals version; returns the new version. Raises NotFound."""
        table, column, param = _LOCKED[kind]  # from a fixed mapping, never from input
        await cls._require(
            cur,
            f"SELECT 1 FROM {table} WHERE {column} = %s FOR UPDATE",
            (row_id,),
            f"no {kind} {row_id!r}",
            param,
        )
        return await cls._bump(cur)

    @staticmethod
    async def _insert(cur: Cursor, sql: str, args: tuple[Any, ...], conflict: str) -> dict[str, Any]:
        """Run an ``INSERT ... RETURNING``; the row it returns.

        Raises:
            Conflict: (``conflict``, param ``name``) the row breaks a unique constraint
                (the transaction then rolls back).
        """
        try:
            await cur.execute(sql, args)
        except psycopg.errors.UniqueViolation as exc:
            raise Conflict(conflict, "name") from exc
        return await fetch_one(cur)

    @classmethod
    async def _require_tenant(cls, cur: Cursor, tenant_id: str) -> None:
        """Raises NotFound (``tenant_id``) for an unknown tenant."""
        await cls._require(
            cur,
            "SELECT 1 FROM catalog.tenants WHERE id = %s",
            (tenant_id,),
            f"no tenant {tenant_id!r}",
            "tenant_id",
        )

    @classmethod
    async def _require_in_tenant(cls, cur: Cursor, kind: str, row_id: str, tenant_id: str) -> dict[str, Any]:
        """The ``team`` or ``user`` row ``row_id`` of tenant ``tenant_id`` (``team_id``
        of a user). Raises NotFound (``team_id``/``user_id``) when the tenant has none."""
        table, column = ("catalog.teams", "1") if kind == "team" else ("catalog.users", "team_id")
        return await cls._require(
            cur,
            f"SELECT {column} FROM {table} WHERE id = %s AND tenant_id = %s",
            (row_id, tenant_id),
            f"no {kind} {row_id!r} in tenant {tenant_id!r}",
            f"{kind}_id",
        )

    @staticmethod
    async def _stamp_scope(cur: Cursor, version: int, scope: str, scope_id: str) -> list[str]:
        """Stamp ``version`` on every key in the scope; return their ids."""
        column = _SCOPE_COLUMN[scope]  # from a fixed mapping, never from input
        await cur.execute(
            f"UPDATE catalog.api_keys SET version = %s WHERE {column} = %s RETURNING key_id",
            (version, scope_id),
        )
        return sorted(r["key_id"] for r in await cur.fetchall())

    async def _set_policy_column(
        self, scope: str, scope_id: str, column: str, value: Any
    ) -> tuple[dict[str, Any], Change]:
        """Set one policy ``column`` of a key, team or tenant (``scope``; the column
        from the callers' fixed names, never from input), bump the catalogue version
        and stamp it on every key the scope reaches, in one transaction.

        Returns:
            The scope's row after the change and the :class:`Change` to publish.

        Raises:
            NotFound: no such key, team or tenant.
        """
        table, columns, id_column = _POLICY_TABLES[scope]
        async with self._write() as cur:
            version = await self._lock_and_bump(cur, scope, scope_id)
            key_ids = await self._stamp_scope(cur, version, scope, scope_id)  # first: a key's row shows it
            await cur.execute(
                f"UPDATE {table} SET {column} = %s WHERE {id_column} = %s RETURNING {columns}",
                (value, scope_id),
            )
            row = await cur.fetchone()
        assert row is not None  # locked above
        return row, Change(version, key_ids)

    async def ping(self) -> bool:
        """True when Postgres answers ``SELECT 1``."""
        async with self._pool.connection() as conn:
            await conn.execute("SELECT 1")
        return True

    async def version(self) -> int:
        """The current principals version (``catalog.principals_version``)."""
        async with self._read() as cur:
            await cur.execute("SELECT version FROM catalog.principals_version")
            return int((await fetch_one(cur))["version"])
