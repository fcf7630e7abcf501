"""Limits (:class:`Limits`, a part of ``store.CatalogStore``): one per
``(scope, scope_id, model)``; a change re-stamps every key in the scope."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tollway_contracts.admin import LimitRecord, LimitSet
from tollway_quota.ids import new_limit_id
from tollway_quota.store.base import LIMIT_COLUMNS, Change, StoreBase, fetch_one

# Where a scope id must exist, and in which tenant: (sql returning tenant_id).
_SCOPE_OWNER = {
    "key": "SELECT tenant_id FROM catalog.api_keys WHERE key_id = %s",
    "user": "SELECT tenant_id FROM catalog.users WHERE id = %s",
    "team": "SELECT tenant_id FROM catalog.teams WHERE id = %s",
    "tenant": "SELECT id AS tenant_id FROM catalog.tenants WHERE id = %s",
}


class Limits(StoreBase):
    """Sets, lists and deletes limits; reads a key's limits as the edge sees them."""

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
                f"RETURNING {LIMIT_COLUMNS}, (xmax = 0) AS created",
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
            row = await fetch_one(cur)
            key_ids = await self._stamp_scope(cur, version, body.scope, body.scope_id)
        created = bool(row.pop("created"))
        return LimitRecord.model_validate(row), Change(version, key_ids), created

    async def list_limits(self, tenant_id: str) -> list[LimitRecord]:
        """The tenant's limits by scope kind, scope id, model (all-model first)."""
        async with self._read() as cur:
            await cur.execute(
                f"SELECT {LIMIT_COLUMNS} FROM catalog.limits WHERE tenant_id = %s "
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
                f"DELETE FROM catalog.limits WHERE id = %s RETURNING {LIMIT_COLUMNS}", (limit_id,)
            )
            row = await fetch_one(cur)
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
