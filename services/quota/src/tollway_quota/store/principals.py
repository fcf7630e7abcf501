"""Tenants, teams and users (:class:`Principals`, a part of ``store.CatalogStore``)."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
from psycopg.types.json import Jsonb

from tollway_contracts.admin import Team, TeamCreate, Tenant, TenantCreate, TenantUpdate, User, UserCreate
from tollway_contracts.redaction import RedactionPolicy
from tollway_quota.ids import new_team_id, new_tenant_id, new_user_id
from tollway_quota.store.base import TEAM_COLUMNS, TENANT_COLUMNS, USER_COLUMNS, Change, StoreBase


class Principals(StoreBase):
    """Creates, lists and changes tenants, teams and users."""

    async def create_tenant(self, body: TenantCreate) -> tuple[Tenant, Change]:
        """Insert a tenant. Raises Conflict when the name is taken."""
        async with self._write() as cur:
            version = await self._bump(cur)
            row = await self._insert(
                cur,
                f"INSERT INTO catalog.tenants (id, name, time_zone) VALUES (%s, %s, %s) RETURNING {TENANT_COLUMNS}",
                (new_tenant_id(), body.name, body.time_zone),
                f"a tenant named {body.name!r} exists",
            )
        return Tenant.model_validate(row), Change(version, [])

    async def list_tenants(self) -> list[Tenant]:
        """Every tenant, by name."""
        async with self._read() as cur:
            await cur.execute(f"SELECT {TENANT_COLUMNS} FROM catalog.tenants ORDER BY name")
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
                f"SELECT {TENANT_COLUMNS} FROM catalog.tenants WHERE id = %s FOR UPDATE",
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
                f"RETURNING {TENANT_COLUMNS}",
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

    async def create_team(self, body: TeamCreate) -> tuple[Team, Change]:
        """Insert a team. Raises NotFound (tenant), Conflict (name in tenant)."""
        async with self._write() as cur:
            await self._require_tenant(cur, body.tenant_id)
            version = await self._bump(cur)
            row = await self._insert(
                cur,
                f"INSERT INTO catalog.teams (id, tenant_id, name) VALUES (%s, %s, %s) RETURNING {TEAM_COLUMNS}",
                (new_team_id(), body.tenant_id, body.name),
                f"a team named {body.name!r} exists in this tenant",
            )
        return Team.model_validate(row), Change(version, [])

    async def list_teams(self, tenant_id: str) -> list[Team]:
        """The tenant's teams, by name (empty for an unknown tenant)."""
        async with self._read() as cur:
            await cur.execute(
                f"SELECT {TEAM_COLUMNS} FROM catalog.teams WHERE tenant_id = %s ORDER BY name",
                (tenant_id,),
            )
            return [Team.model_validate(r) for r in await cur.fetchall()]

    async def set_team_policy(self, team_id: str, policy: RedactionPolicy) -> tuple[Team, Change]:
        """Set a team's redaction policy and re-stamp every key of the team (their
        effective policy may change). Raises NotFound."""
        value = Jsonb(msgspec.to_builtins(policy))
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
                f"RETURNING {USER_COLUMNS}",
                (new_user_id(), body.tenant_id, body.team_id, body.name, body.email),
                "a user with this name or email exists in this tenant",
            )
        return User.model_validate(row), Change(version, [])

    async def list_users(self, tenant_id: str) -> list[User]:
        """The tenant's users, by name (empty for an unknown tenant)."""
        async with self._read() as cur:
            await cur.execute(
                f"SELECT {USER_COLUMNS} FROM catalog.users WHERE tenant_id = %s ORDER BY name",
                (tenant_id,),
            )
            return [User.model_validate(r) for r in await cur.fetchall()]
