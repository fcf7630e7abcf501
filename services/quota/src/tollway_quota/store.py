"""Postgres adapter for the ``catalog`` schema (psycopg 3, async pool).

Every mutating method runs in ONE transaction that also bumps the principals
version (:meth:`CatalogStore._bump`) and stamps it on every API key row whose
``catalog.edge_principals`` row changes. It returns that version and the
affected key ids so the caller can publish the invalidation after commit.

Ordering rule: the version bump takes the row lock on
``catalog.principals_version_state`` and holds it to commit, so versions
become visible in increasing order; an edge that loads ``version > N`` never
skips a change committed later with a smaller version.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from tollway_contracts.admin import (
    ApiKey,
    KeyCreate,
    LimitRecord,
    LimitSet,
    Team,
    TeamCreate,
    Tenant,
    TenantCreate,
    TenantUpdate,
    User,
    UserCreate,
)
from tollway_contracts.redaction import RedactionPolicy
from tollway_quota.errors import BadRequest, Conflict, NotFound
from tollway_quota.ids import new_limit_id, new_team_id, new_tenant_id, new_user_id

_TENANT_COLUMNS = "id, name, time_zone, alert_webhook_url, created_at, allowed_regions"
_TEAM_COLUMNS = (
    "id, tenant_id, name, redaction_policy, created_at, allowed_regions, response_cache_ttl_seconds"
)
_USER_COLUMNS = "id, tenant_id, team_id, name, email, created_at"
_LIMIT_COLUMNS = (
    "id, tenant_id, scope, scope_id, model, requests_per_minute, tokens_per_minute, max_concurrent, "
    "budget_micro_usd, budget_period, thresholds_percent, shadow, created_at, updated_at"
)
# The api_keys column that places a key in each scope kind.
_SCOPE_COLUMN = {"key": "key_id", "user": "user_id", "team": "team_id", "tenant": "tenant_id"}
# Where a scope id must exist, and in which tenant: (sql returning tenant_id).
_SCOPE_OWNER = {
    "key": "SELECT tenant_id FROM catalog.api_keys WHERE key_id = %s",
    "user": "SELECT tenant_id FROM catalog.users WHERE id = %s",
    "team": "SELECT tenant_id FROM catalog.teams WHERE id = %s",
    "tenant": "SELECT id AS tenant_id FROM catalog.tenants WHERE id = %s",
}

_KEY_COLUMNS = (
    "key_id, tenant_id, team_id, user_id, name, allowed_models, redaction_policy, "
    "created_at, expires_at, revoked_at, version, response_cache_ttl_seconds"
)
# What a change locks before it bumps the version: (table, id column, the API's parameter).
_LOCKED = {
    "key": ("catalog.api_keys", "key_id", "key_id"),
    "team": ("catalog.teams", "id", "team_id"),
    "tenant": ("catalog.tenants", "id", "tenant_id"),
    "limit": ("catalog.limits", "id", "limit_id"),
}
# Scopes that carry policies of their own: (table, the columns a read returns, id column).
_POLICY_TABLES = {
    "key": ("catalog.api_keys", _KEY_COLUMNS, "key_id"),
    "team": ("catalog.teams", _TEAM_COLUMNS, "id"),
    "tenant": ("catalog.tenants", _TENANT_COLUMNS, "id"),
}


Cursor = psycopg.AsyncCursor[dict[str, Any]]
"""The store's cursors: rows as dicts (``row_factory=dict_row``)."""


async def _one(cur: Cursor) -> dict[str, Any]:
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


class CatalogStore:
    """Reads and writes principals. Raises :class:`NotFound`, :class:`Conflict`
    or :class:`BadRequest` for admin mistakes; ``psycopg.Error`` otherwise."""

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool

    # --- helpers -------------------------------------------------------------

    @staticmethod
    async def _bump(cur: Cursor) -> int:
        await cur.execute(
            "UPDATE catalog.principals_version_state SET version = version + 1 RETURNING version"
        )
        return int((await _one(cur))["version"])

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
        return await _one(cur)

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

    async def ping(self) -> bool:
        """True when Postgres answers ``SELECT 1``."""
        async with self._pool.connection() as conn:
            await conn.execute("SELECT 1")
        return True

    async def version(self) -> int:
        """The current principals version (``catalog.principals_version``)."""
        async with self._read() as cur:
            await cur.execute("SELECT version FROM catalog.principals_version")
            return int((await _one(cur))["version"])

    # --- tenants ---------------------------------------------------------------

    async def create_tenant(self, body: TenantCreate) -> tuple[Tenant, Change]:
        """Insert a tenant. Raises Conflict when the name is taken."""
        async with self._write() as cur:
            version = await self._bump(cur)
            row = await self._insert(
                cur,
                f"INSERT INTO catalog.tenants (id, name, time_zone) VALUES (%s, %s, %s) RETURNING {_TENANT_COLUMNS}",
                (new_tenant_id(), body.name, body.time_zone),
                f"a tenant named {body.name!r} exists",
            )
        return Tenant.model_validate(row), Change(version, [])

    async def list_tenants(self) -> list[Tenant]:
        """Every tenant, by name."""
        async with self._read() as cur:
            await cur.execute(f"SELECT {_TENANT_COLUMNS} FROM catalog.tenants ORDER BY name")
            return [Tenant.model_validate(r) for r in await cur.fetchall()]

    async def update_tenant(self, tenant_id: str, body: TenantUpdate) -> tuple[Tenant, Change]:
        """Change the fields sent in ``body`` (``time_zone``, ``alert_webhook_url``).

        A time zone change moves the budget periods of every limit the
        tenant's keys carry, so every key of the tenant is re-stamped.
        Raises NotFound.
        """
        fields = body.model_dump(mode="json", exclude_unset=True)
        async with self._write() as cur:
            current = await self._require(
                cur,
                f"SELECT {_TENANT_COLUMNS} FROM catalog.tenants WHERE id = %s FOR UPDATE",
                (tenant_id,),
                f"no tenant {tenant_id!r}",
                "tenant_id",
            )
            version = await self._bump(cur)
            time_zone = fields.get("time_zone") or current["time_zone"]
            webhook = (
                fields["alert_webhook_url"] if "alert_webhook_url" in fields else current["alert_webhook_url"]
            )
            await cur.execute(
                "UPDATE catalog.tenants SET time_zone = %s, alert_webhook_url = %s WHERE id = %s "
                f"RETURNING {_TENANT_COLUMNS}",
                (time_zone, webhook, tenant_id),
            )
            row = await cur.fetchone()
            key_ids: list[str] = []
            if time_zone != current["time_zone"]:
                key_ids = await self._stamp_scope(cur, version, "tenant", tenant_id)
        return Tenant.model_validate(row), Change(version, key_ids)

    async def tenant_webhook(self, tenant_id: str) -> str | None:
        """The tenant's alert webhook URL, or None (also for an unknown tenant)."""
        async with self._read() as cur:
            await cur.execute("SELECT alert_webhook_url FROM catalog.tenants WHERE id = %s", (tenant_id,))
            row = await cur.fetchone()
        return None if row is None else row["alert_webhook_url"]

    # --- teams -------------------------------------------------------------------

    async def create_team(self, body: TeamCreate) -> tuple[Team, Change]:
        """Insert a team. Raises NotFound (tenant), Conflict (name in tenant)."""
        async with self._write() as cur:
            await self._require_tenant(cur, body.tenant_id)
            version = await self._bump(cur)
            row = await self._insert(
                cur,
                f"INSERT INTO catalog.teams (id, tenant_id, name) VALUES (%s, %s, %s) RETURNING {_TEAM_COLUMNS}",
                (new_team_id(), body.tenant_id, body.name),
                f"a team named {body.name!r} exists in this tenant",
            )
        return Team.model_validate(row), Change(version, [])

    async def list_teams(self, tenant_id: str) -> list[Team]:
        """The tenant's teams, by name (empty for an unknown tenant)."""
        async with self._read() as cur:
            await cur.execute(
                f"SELECT {_TEAM_COLUMNS} FROM catalog.teams WHERE tenant_id = %s ORDER BY name",
                (tenant_id,),
            )
            return [Team.model_validate(r) for r in await cur.fetchall()]

    async def set_team_policy(self, team_id: str, policy: RedactionPolicy) -> tuple[Team, Change]:
        """Set a team's redaction policy and re-stamp every key of the team (their
        effective policy may change). Raises NotFound."""
        value = Jsonb(policy.model_dump(mode="json"))
        row, change = await self._set_policy_column("team", team_id, "redaction_policy", value)
        return Team.model_validate(row), change

    async def set_residency(
        self, scope: str, scope_id: str, allowed_regions: Sequence[str] | None
    ) -> tuple[Tenant | Team, Change]:
        """Set (a list) or remove (None) the residency policy of a tenant or a
        team (``scope``), re-stamping every key under it (their effective
        ``allowed_regions`` may change). Raises NotFound."""
        regions = None if allowed_regions is None else sorted(set(allowed_regions))
        row, change = await self._set_policy_column(scope, scope_id, "allowed_regions", regions)
        return (Tenant if scope == "tenant" else Team).model_validate(row), change

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

    # --- users -------------------------------------------------------------------

    async def create_user(self, body: UserCreate) -> tuple[User, Change]:
        """Insert a user. Raises NotFound (tenant, team), Conflict (name or email)."""
        async with self._write() as cur:
            await self._require_tenant(cur, body.tenant_id)
            if body.team_id is not None:
                await self._require_in_tenant(cur, "team", body.team_id, body.tenant_id)
            version = await self._bump(cur)
            row = await self._insert(
                cur,
                "INSERT INTO catalog.users (id, tenant_id, team_id, name, email) VALUES (%s, %s, %s, %s, %s) "
                f"RETURNING {_USER_COLUMNS}",
                (new_user_id(), body.tenant_id, body.team_id, body.name, body.email),
                "a user with this name or email exists in this tenant",
            )
        return User.model_validate(row), Change(version, [])

    async def list_users(self, tenant_id: str) -> list[User]:
        """The tenant's users, by name (empty for an unknown tenant)."""
        async with self._read() as cur:
            await cur.execute(
                f"SELECT {_USER_COLUMNS} FROM catalog.users WHERE tenant_id = %s ORDER BY name",
                (tenant_id,),
            )
            return [User.model_validate(r) for r in await cur.fetchall()]

    # --- API keys ----------------------------------------------------------------

    async def create_key(self, body: KeyCreate, key_id: str, secret_hash: str) -> tuple[ApiKey, Change]:
        """Insert a key row holding only ``secret_hash``. The team defaults to the
        user's team. Raises NotFound (tenant, team, user), BadRequest (the user
        is in another team than ``team_id``)."""
        async with self._write() as cur:
            await self._require_tenant(cur, body.tenant_id)
            team_id = body.team_id
            if team_id is not None:
                await self._require_in_tenant(cur, "team", team_id, body.tenant_id)
            if body.user_id is not None:
                user = await self._require_in_tenant(cur, "user", body.user_id, body.tenant_id)
                if team_id is None:
                    team_id = user["team_id"]
                elif user["team_id"] is not None and user["team_id"] != team_id:
                    raise BadRequest(f"user {body.user_id!r} is not in team {team_id!r}", "team_id")
            version = await self._bump(cur)
            await cur.execute(
                "INSERT INTO catalog.api_keys (key_id, secret_hash, tenant_id, team_id, user_id, name, "
                "allowed_models, expires_at, version) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) "
                f"RETURNING {_KEY_COLUMNS}",
                (
                    key_id,
                    secret_hash,
                    body.tenant_id,
                    team_id,
                    body.user_id,
                    body.name,
                    body.allowed_models,
                    body.expires_at,
                    version,
                ),
            )
            row = await cur.fetchone()
        return ApiKey.model_validate(row), Change(version, [key_id])

    async def list_keys(self, tenant_id: str | None = None) -> list[ApiKey]:
        """Keys (of one tenant, or all), newest first; never hashes or secrets."""
        where, args = ("WHERE tenant_id = %s", (tenant_id,)) if tenant_id else ("", ())
        async with self._read() as cur:
            await cur.execute(
                f"SELECT {_KEY_COLUMNS} FROM catalog.api_keys {where} ORDER BY created_at DESC, key_id", args
            )
            return [ApiKey.model_validate(r) for r in await cur.fetchall()]

    async def revoke_key(self, key_id: str) -> tuple[ApiKey, Change]:
        """Revoke a key (idempotent: the first ``revoked_at`` stays, but the
        version is bumped again so edges re-check). Raises NotFound."""
        async with self._write() as cur:
            version = await self._lock_and_bump(cur, "key", key_id)
            await cur.execute(
                "UPDATE catalog.api_keys SET revoked_at = COALESCE(revoked_at, now()), version = %s "
                f"WHERE key_id = %s RETURNING {_KEY_COLUMNS}",
                (version, key_id),
            )
            row = await cur.fetchone()
        return ApiKey.model_validate(row), Change(version, [key_id])

    async def set_key_policy(self, key_id: str, policy: RedactionPolicy | None) -> tuple[ApiKey, Change]:
        """Set (or, with None, clear to inherit the team's) a key's redaction
        policy. Raises NotFound."""
        value: Any = None if policy is None else Jsonb(policy.model_dump(mode="json"))
        row, change = await self._set_policy_column("key", key_id, "redaction_policy", value)
        return ApiKey.model_validate(row), change

    async def set_cache_policy(
        self, scope: str, scope_id: str, ttl_seconds: int | None
    ) -> tuple[ApiKey | Team, Change]:
        """Set (seconds) or remove (None) the response cache TTL of a key or a
        team (``scope``), re-stamping every key it reaches. Raises NotFound."""
        row, change = await self._set_policy_column(
            scope, scope_id, "response_cache_ttl_seconds", ttl_seconds
        )
        return (ApiKey if scope == "key" else Team).model_validate(row), change

    # --- limits ------------------------------------------------------------------

    @staticmethod
    async def _stamp_scope(cur: Cursor, version: int, scope: str, scope_id: str) -> list[str]:
        """Stamp ``version`` on every key in the scope; return their ids."""
        column = _SCOPE_COLUMN[scope]  # from a fixed mapping, never from input
        await cur.execute(
            f"UPDATE catalog.api_keys SET version = %s WHERE {column} = %s RETURNING key_id",
            (version, scope_id),
        )
        return sorted(r["key_id"] for r in await cur.fetchall())

    async def set_limit(self, body: LimitSet) -> tuple[LimitRecord, Change, bool]:
        """Create the limit of ``(scope, scope_id, model)`` or replace every
        field of the existing one; re-stamp every key in the scope.

        Returns:
            (the limit, the change, True when it was created).

        Raises:
            NotFound: ``scope_id`` names no key/user/team/tenant of that kind.
        """
        async with self._write() as cur:
            owner = await self._require(
                cur,
                _SCOPE_OWNER[body.scope],
                (body.scope_id,),
                f"no {body.scope} {body.scope_id!r}",
                "scope_id",
            )
            version = await self._bump(cur)
            await cur.execute(
                "INSERT INTO catalog.limits (id, tenant_id, scope, scope_id, model, requests_per_minute, "
                "tokens_per_minute, max_concurrent, budget_micro_usd, budget_period, thresholds_percent, shadow) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT ON CONSTRAINT limits_scope_model_key DO UPDATE SET "
                "requests_per_minute = EXCLUDED.requests_per_minute, "
                "tokens_per_minute = EXCLUDED.tokens_per_minute, max_concurrent = EXCLUDED.max_concurrent, "
                "budget_micro_usd = EXCLUDED.budget_micro_usd, budget_period = EXCLUDED.budget_period, "
                "thresholds_percent = EXCLUDED.thresholds_percent, shadow = EXCLUDED.shadow, updated_at = now() "
                f"RETURNING {_LIMIT_COLUMNS}, (xmax = 0) AS created",
                (
                    new_limit_id(),
                    owner["tenant_id"],
                    body.scope,
                    body.scope_id,
                    body.model,
                    body.requests_per_minute,
                    body.tokens_per_minute,
                    body.max_concurrent,
                    body.budget_micro_usd,
                    body.budget_period,
                    body.thresholds_percent,
                    body.shadow,
                ),
            )
            row = await _one(cur)
            key_ids = await self._stamp_scope(cur, version, body.scope, body.scope_id)
        created = bool(row.pop("created"))
        return LimitRecord.model_validate(row), Change(version, key_ids), created

    async def list_limits(self, tenant_id: str) -> list[LimitRecord]:
        """The tenant's limits by scope kind, scope id, model (all-model first)."""
        async with self._read() as cur:
            await cur.execute(
                f"SELECT {_LIMIT_COLUMNS} FROM catalog.limits WHERE tenant_id = %s "
                "ORDER BY array_position(ARRAY['key', 'user', 'team', 'tenant'], scope), scope_id, "
                "model NULLS FIRST",
                (tenant_id,),
            )
            return [LimitRecord.model_validate(r) for r in await cur.fetchall()]

    async def delete_limit(self, limit_id: str) -> tuple[LimitRecord, Change]:
        """Delete a limit and re-stamp every key in its scope. Raises NotFound."""
        async with self._write() as cur:
            version = await self._lock_and_bump(cur, "limit", limit_id)
            await cur.execute(
                f"DELETE FROM catalog.limits WHERE id = %s RETURNING {_LIMIT_COLUMNS}", (limit_id,)
            )
            row = await _one(cur)
            key_ids = await self._stamp_scope(cur, version, row["scope"], row["scope_id"])
        return LimitRecord.model_validate(row), Change(version, key_ids)

    async def key_limits_many(self, key_ids: Sequence[str]) -> dict[str, tuple[str, list[dict[str, Any]]]]:
        """:meth:`key_limits` of many keys in one query: ``key_id -> (tenant_id,
        limits)``; unknown keys are absent. Used by batched settlement alerts."""
        if not key_ids:
            return {}
        async with self._read() as cur:
            await cur.execute(
                "SELECT key_id, tenant_id, limits FROM catalog.edge_principals WHERE key_id = ANY(%s)",
                (list(key_ids),),
            )
            rows = await cur.fetchall()
        return {r["key_id"]: (r["tenant_id"], list(r["limits"] or [])) for r in rows}

    async def key_limits(self, key_id: str) -> tuple[str, list[dict[str, Any]]] | None:
        """``(tenant_id, limits)`` of a key as the edge sees them (the view's
        ``limits`` column, a list of ``Limit`` dicts; empty when none), or
        None for an unknown key. Used by settlement to evaluate alerts."""
        async with self._read() as cur:
            await cur.execute(
                "SELECT tenant_id, limits FROM catalog.edge_principals WHERE key_id = %s", (key_id,)
            )
            row = await cur.fetchone()
        if row is None:
            return None
        return row["tenant_id"], list(row["limits"] or [])
