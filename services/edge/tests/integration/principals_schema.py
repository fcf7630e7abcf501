"""The principals views the edge reads — a STAND-IN until the quota branch lands.

The quota service's migrations own ``catalog.edge_principals`` and
``catalog.principals_version`` (tollway_contracts.principals). Until they can
be merged, the edge tests create plain tables with exactly the contract's
columns here, in a fresh database. This is the ONLY place that does it: swap
:func:`create_principals_schema` for quota's migrations at integration, and
:func:`upsert_key`/:func:`revoke_key` for quota's admin operations.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import asyncpg
import orjson

from tollway_contracts.keys import hash_secret, new_key

SCHEMA_SQL = """
CREATE SCHEMA IF NOT EXISTS catalog;
CREATE TABLE catalog.edge_principals (
    key_id           text PRIMARY KEY,
    secret_hash      text NOT NULL,
    tenant_id        text NOT NULL,
    team_id          text,
    user_id          text,
    allowed_models   text[],
    revoked          boolean NOT NULL DEFAULT false,
    expires_at       timestamptz,
    redaction_policy jsonb,
    limits           jsonb,
    version          bigint NOT NULL,
    allowed_regions  text[],
    response_cache_ttl_seconds integer
);
CREATE TABLE catalog.principals_version (version bigint NOT NULL);
INSERT INTO catalog.principals_version VALUES (0);
"""


async def create_principals_schema(dsn: str) -> None:
    """Create the stand-in ``catalog`` tables in the (fresh) database at ``dsn``."""
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(SCHEMA_SQL)
    finally:
        await conn.close()


async def _bump(conn: asyncpg.Connection) -> int:
    return await conn.fetchval(
        "UPDATE catalog.principals_version SET version = version + 1 RETURNING version"
    )


async def upsert_key(
    dsn: str,
    pepper: bytes,
    *,
    tenant_id: str = "tenant-1",
    team_id: str | None = "team-1",
    user_id: str | None = "user-1",
    allowed_models: list[str] | None = None,
    expires_at: datetime | None = None,
    limits: list[dict[str, Any]] | None = None,
    allowed_regions: list[str] | None = None,
    response_cache_ttl_seconds: int | None = None,
) -> tuple[str, str, int]:
    """Mint a key and store it as quota would; returns ``(full_key, key_id, version)``.

    ``limits``: the effective ``tollway_contracts.limits.Limit`` list (JSON
    objects); a scope_id of ``"$key"`` is replaced by the new key id."""
    full, parsed = new_key()
    conn = await asyncpg.connect(dsn)
    try:
        async with conn.transaction():
            version = await _bump(conn)
            await conn.execute(
                "INSERT INTO catalog.edge_principals (key_id, secret_hash, tenant_id, team_id, user_id,"
                " allowed_models, revoked, expires_at, version, limits, allowed_regions,"
                " response_cache_ttl_seconds)"
                " VALUES ($1,$2,$3,$4,$5,$6,false,$7,$8,$9::jsonb,$10,$11)",
                parsed.key_id,
                hash_secret(pepper, parsed.key_id, parsed.secret),
                tenant_id,
                team_id,
                user_id,
                allowed_models,
                expires_at,
                version,
                None
                if limits is None
                else orjson.dumps(
                    [
                        {**lim, "scope_id": parsed.key_id} if lim.get("scope_id") == "$key" else lim
                        for lim in limits
                    ]
                ).decode(),
                allowed_regions,
                response_cache_ttl_seconds,
            )
    finally:
        await conn.close()
    return full, parsed.key_id, version


async def revoke_key(dsn: str, key_id: str) -> int:
    """Revoke ``key_id`` (row + version in one transaction); returns the new version."""
    conn = await asyncpg.connect(dsn)
    try:
        async with conn.transaction():
            version = await _bump(conn)
            await conn.execute(
                "UPDATE catalog.edge_principals SET revoked = true, version = $2 WHERE key_id = $1",
                key_id,
                version,
            )
    finally:
        await conn.close()
    return version
