"""Admin API for reporting tokens (issue 5): tenant-scoped read tokens of the
reporting service.

- ``POST /admin/v1/reporting-tokens`` ``ReportingTokenCreate`` -> 201
  ``ReportingTokenCreated`` (the full ``twr_<id>_<secret>`` token, this once);
  404 unknown tenant.
- ``GET /admin/v1/reporting-tokens[?tenant_id=]`` -> ``ReportingTokenList``
  (``{"data": [ReportingToken]}``, newest first; never a secret or hash).
- ``POST /admin/v1/reporting-tokens/{token_id}/revoke`` -> ``ReportingToken``;
  404 unknown id. Revoking twice keeps the first ``revoked_at``.

Only ``hash_secret(pepper, id, secret)`` is stored
(``catalog.reporting_tokens``, migration 0003). Reporting tokens are not
principals of the edge, so no principals version is bumped and nothing is
published; the reporting service re-reads a token at most a few seconds
after a revoke (its cache TTL). Authentication is the admin middleware's
(``/admin/`` paths).
"""

from __future__ import annotations

from aiohttp import web
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool
from pydantic import BaseModel, ConfigDict

from tollway_contracts.admin import ReportingToken, ReportingTokenCreate, ReportingTokenCreated
from tollway_contracts.keys import hash_secret, new_reporting_token
from tollway_quota.api import PEPPER, PREFIX, STORE, _body, _json
from tollway_quota.errors import NotFound

_COLUMNS = "id, tenant_id, name, created_at, revoked_at"


class ReportingTokenList(BaseModel):
    """``GET /admin/v1/reporting-tokens?tenant_id=``: tokens without secrets or hashes."""

    model_config = ConfigDict(extra="ignore")

    data: list[ReportingToken]


def _pool(request: web.Request) -> AsyncConnectionPool:
    # The catalog store's pool: one pool per service (CatalogStore keeps it).
    return request.app[STORE]._pool  # noqa: SLF001


async def create_reporting_token(request: web.Request) -> web.Response:
    """POST /admin/v1/reporting-tokens: ReportingTokenCreate -> 201 ReportingTokenCreated."""
    body = await _body(request, ReportingTokenCreate)
    full, parsed = new_reporting_token()
    secret_hash = hash_secret(request.app[PEPPER], parsed.key_id, parsed.secret)
    async with _pool(request).connection() as conn, conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            f"""INSERT INTO catalog.reporting_tokens (id, secret_hash, tenant_id, name)
                SELECT %s, %s, t.id, %s FROM catalog.tenants t WHERE t.id = %s
                RETURNING {_COLUMNS}""",
            (parsed.key_id, secret_hash, body.name, body.tenant_id),
        )
        row = await cur.fetchone()
    if row is None:
        raise NotFound(f"no tenant {body.tenant_id}", "tenant_id")
    return _json(ReportingTokenCreated(token=full, **row), 201)


async def list_reporting_tokens(request: web.Request) -> web.Response:
    """GET /admin/v1/reporting-tokens[?tenant_id=] -> ReportingTokenList (newest first);
    an unknown tenant lists nothing."""
    tenant_id = request.query.get("tenant_id")
    where, params = ("WHERE tenant_id = %s", (tenant_id,)) if tenant_id else ("", ())
    async with _pool(request).connection() as conn, conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            f"SELECT {_COLUMNS} FROM catalog.reporting_tokens {where} ORDER BY created_at DESC, id", params
        )
        rows = await cur.fetchall()
    return _json(ReportingTokenList(data=[ReportingToken(**r) for r in rows]))


async def revoke_reporting_token(request: web.Request) -> web.Response:
    """POST /admin/v1/reporting-tokens/{token_id}/revoke -> ReportingToken; 404 unknown id."""
    token_id = request.match_info["token_id"]
    async with _pool(request).connection() as conn, conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            f"""UPDATE catalog.reporting_tokens SET revoked_at = coalesce(revoked_at, now())
                WHERE id = %s RETURNING {_COLUMNS}""",
            (token_id,),
        )
        row = await cur.fetchone()
    if row is None:
        raise NotFound(f"no reporting token {token_id}", "token_id")
    return _json(ReportingToken(**row))


def add_reporting_token_routes(app: web.Application) -> None:
    """Register the reporting-token admin routes on ``app``."""
    app.router.add_post(f"{PREFIX}/reporting-tokens", create_reporting_token)
    app.router.add_get(f"{PREFIX}/reporting-tokens", list_reporting_tokens)
    app.router.add_post(f"{PREFIX}/reporting-tokens/{{token_id}}/revoke", revoke_reporting_token)
