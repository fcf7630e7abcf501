"""API keys (:class:`Keys`, a part of ``store.CatalogStore``): rows hold only
the secret's hash."""

from __future__ import annotations

from typing import Any

import msgspec
from psycopg.types.json import Jsonb

from tollway_contracts.admin import ApiKey, KeyCreate, Team
from tollway_contracts.redaction import RedactionPolicy
from tollway_quota.errors import BadRequest
from tollway_quota.store.base import KEY_COLUMNS, Change, StoreBase


class Keys(StoreBase):
    """Creates, lists, revokes API keys and sets their policies."""

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
                f"RETURNING {KEY_COLUMNS}",
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
                f"SELECT {KEY_COLUMNS} FROM catalog.api_keys {where} ORDER BY created_at DESC, key_id", args
            )
            return [ApiKey.model_validate(r) for r in await cur.fetchall()]

    async def revoke_key(self, key_id: str) -> tuple[ApiKey, Change]:
        """Revoke a key (idempotent: the first ``revoked_at`` stays, but the
        version is bumped again so edges re-check). Raises NotFound."""
        async with self._write() as cur:
            version = await self._lock_and_bump(cur, "key", key_id)
            await cur.execute(
                "UPDATE catalog.api_keys SET revoked_at = COALESCE(revoked_at, now()), version = %s "
                f"WHERE key_id = %s RETURNING {KEY_COLUMNS}",
                (version, key_id),
            )
            row = await cur.fetchone()
        return ApiKey.model_validate(row), Change(version, [key_id])

    async def set_key_policy(self, key_id: str, policy: RedactionPolicy | None) -> tuple[ApiKey, Change]:
        """Set (or, with None, clear to inherit the team's) a key's redaction
        policy. Raises NotFound."""
        value: Any = None if policy is None else Jsonb(msgspec.to_builtins(policy))
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
