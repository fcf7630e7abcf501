"""A small synchronous client of the admin API (httpx), used by the CLI.

Raises :class:`AdminApiError` with the server's OpenAI-format message on any
non-2xx answer; ``httpx.HTTPError`` when the server cannot be reached.
"""

from __future__ import annotations

from typing import Any, TypeVar

import httpx
import msgspec
from pydantic import BaseModel

from tollway_contracts.admin import (
    ApiKey,
    KeyCreate,
    KeyCreated,
    KeyList,
    LimitList,
    LimitRecord,
    LimitSet,
    ReportingToken,
    ReportingTokenCreate,
    ReportingTokenCreated,
    Team,
    TeamCreate,
    TeamList,
    Tenant,
    TenantCreate,
    TenantList,
    TenantUpdate,
    User,
    UserCreate,
    UserList,
)
from tollway_contracts.redaction import RedactionPolicy

M = TypeVar("M", bound=BaseModel)


class AdminApiError(Exception):
    """A non-2xx answer: ``status``, and the error body's ``message``/``code``."""

    def __init__(self, status: int, message: str, code: str | None) -> None:
        super().__init__(f"{status} {code or ''}: {message}")
        self.status = status
        self.message = message
        self.code = code


class AdminClient:
    """Calls ``<base_url>/admin/v1/...`` with ``Authorization: Bearer <token>``."""

    def __init__(self, base_url: str, token: str, timeout: float = 10.0) -> None:
        self._http = httpx.Client(
            base_url=base_url.rstrip("/"),
            headers={"Authorization": f"Bearer {token}"},
            timeout=timeout,
        )

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def __enter__(self) -> AdminClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(
        self,
        method: str,
        path: str,
        model: type[M],
        body: BaseModel | msgspec.Struct | None = None,
        params: dict[str, Any] | None = None,
    ) -> M:
        if isinstance(body, msgspec.Struct):
            content: str | bytes | None = msgspec.json.encode(body)
        else:
            content = body.model_dump_json(exclude_unset=True) if body is not None else None
        response = self._http.request(
            method,
            f"/admin/v1{path}",
            content=content,
            params=params,
            headers={"Content-Type": "application/json"} if content is not None else None,
        )
        if response.status_code >= 400:
            try:
                err = response.json()["error"]
                raise AdminApiError(response.status_code, err.get("message", ""), err.get("code"))
            except (ValueError, KeyError, TypeError):
                raise AdminApiError(response.status_code, response.text[:200], None) from None
        return model.model_validate_json(response.content)

    def ready(self) -> bool:
        """True when ``/readyz`` answers 200."""
        try:
            return self._http.get("/readyz").status_code == 200
        except httpx.HTTPError:
            return False

    def create_tenant(self, body: TenantCreate) -> Tenant:
        return self._call("POST", "/tenants", Tenant, body)

    def list_tenants(self) -> list[Tenant]:
        return self._call("GET", "/tenants", TenantList).data

    def create_team(self, body: TeamCreate) -> Team:
        return self._call("POST", "/teams", Team, body)

    def list_teams(self, tenant_id: str) -> list[Team]:
        return self._call("GET", "/teams", TeamList, params={"tenant_id": tenant_id}).data

    def set_team_policy(self, team_id: str, policy: RedactionPolicy) -> Team:
        return self._call("PUT", f"/teams/{team_id}/redaction-policy", Team, policy)

    def create_user(self, body: UserCreate) -> User:
        return self._call("POST", "/users", User, body)

    def list_users(self, tenant_id: str) -> list[User]:
        return self._call("GET", "/users", UserList, params={"tenant_id": tenant_id}).data

    def create_key(self, body: KeyCreate) -> KeyCreated:
        return self._call("POST", "/keys", KeyCreated, body)

    def list_keys(self, tenant_id: str | None = None) -> list[ApiKey]:
        params = {"tenant_id": tenant_id} if tenant_id else None
        return self._call("GET", "/keys", KeyList, params=params).data

    def revoke_key(self, key_id: str) -> ApiKey:
        return self._call("POST", f"/keys/{key_id}/revoke", ApiKey)

    def set_key_policy(self, key_id: str, policy: RedactionPolicy) -> ApiKey:
        return self._call("PUT", f"/keys/{key_id}/redaction-policy", ApiKey, policy)

    def update_tenant(self, tenant_id: str, body: TenantUpdate) -> Tenant:
        return self._call("PATCH", f"/tenants/{tenant_id}", Tenant, body)

    def set_limit(self, body: LimitSet) -> LimitRecord:
        return self._call("PUT", "/limits", LimitRecord, body)

    def list_limits(self, tenant_id: str) -> list[LimitRecord]:
        return self._call("GET", "/limits", LimitList, params={"tenant_id": tenant_id}).data

    def delete_limit(self, limit_id: str) -> LimitRecord:
        return self._call("DELETE", f"/limits/{limit_id}", LimitRecord)

    def create_reporting_token(self, body: ReportingTokenCreate) -> ReportingTokenCreated:
        return self._call("POST", "/reporting-tokens", ReportingTokenCreated, body)

    def list_reporting_tokens(self, tenant_id: str | None = None) -> list[ReportingToken]:
        from tollway_quota.reporting_tokens import ReportingTokenList

        params = {"tenant_id": tenant_id} if tenant_id else None
        return self._call("GET", "/reporting-tokens", ReportingTokenList, params=params).data

    def revoke_reporting_token(self, token_id: str) -> ReportingToken:
        return self._call("POST", f"/reporting-tokens/{token_id}/revoke", ReportingToken)
