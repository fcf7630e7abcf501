"""HTTP handlers of ``/v1/reporting/`` and the dashboard.

Routes (described in ``openapi.json``, served at ``/v1/reporting/openapi.json``):

- ``GET /v1/reporting/usage``  metrics per bucket, grouped (``query.parse_usage_query``)
- ``GET /v1/reporting/top``    top N keys/teams/models/tenants (``query.parse_top_query``)
- ``GET /v1/reporting/whoami`` the caller's scope
- ``GET /v1/reporting/openapi.json`` (no token needed: it holds no data)
- ``GET /dashboard`` and ``/dashboard/static/*``: the page (data via the API
  with the token the user pastes)

``format=json|csv|parquet`` on ``/usage`` and ``/top`` picks the body. Errors
are OpenAI-format (:mod:`tollway_contracts.errors`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import orjson
import structlog
from aiohttp import web
from aiohttp.typedefs import Handler

from tollway_contracts.errors import error_json
from tollway_reporting.auth import AuthError, TokenVerifier
from tollway_reporting.export import CONTENT_TYPES, FORMATS, iso, json_rows, to_csv, to_parquet
from tollway_reporting.query import (
    QueryError,
    Scope,
    finish_rows,
    parse_top_query,
    parse_usage_query,
    top_columns,
    top_sql,
    usage_columns,
    usage_sql,
)
from tollway_reporting.store import ReportingStore

PREFIX = "/v1/reporting"
STATIC_DIR = Path(__file__).parent / "static"
OPENAPI_PATH = Path(__file__).parent / "openapi.json"

STORE: web.AppKey[ReportingStore] = web.AppKey("store", ReportingStore)
VERIFIER: web.AppKey[TokenVerifier] = web.AppKey("verifier", TokenVerifier)


@dataclass(slots=True)
class Limits:
    """Per-app query limits: ``max_rows`` rows per report at most."""

    max_rows: int


LIMITS: web.AppKey[Limits] = web.AppKey("limits", Limits)
SCOPE: web.RequestKey[Scope] = web.RequestKey("scope", Scope)
log = structlog.get_logger("tollway_reporting.api")

_PUBLIC = {f"{PREFIX}/openapi.json"}


def error_response(
    status: int, message: str, *, type: str, code: str, param: str | None = None
) -> web.Response:  # noqa: A002
    """An OpenAI-format error response."""
    return web.Response(
        status=status,
        body=error_json(message, type=type, code=code, param=param),
        content_type="application/json",
    )


@web.middleware
async def reporting_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Authenticate ``/v1/reporting/`` (except the OpenAPI document), map errors
    to OpenAI-format bodies, and log one canonical line per API request
    (never tokens or query results)."""
    started = time.perf_counter()
    status = 500
    scope: Scope | None = None
    try:
        if request.path.startswith(f"{PREFIX}/") and request.path not in _PUBLIC:
            try:
                scope = await request.app[VERIFIER].scope(request.headers.get("Authorization"))
            except AuthError as exc:
                status = 401
                return error_response(401, exc.message, type="authentication_error", code=exc.code)
            request[SCOPE] = scope
        try:
            response = await handler(request)
        except QueryError as exc:
            status = exc.status
            kind = "permission_error" if exc.status == 403 else "invalid_request_error"
            return error_response(exc.status, exc.message, type=kind, code=exc.code, param=exc.param)
        except web.HTTPNotFound:
            status = 404
            return error_response(
                404, f"no route {request.method} {request.path}", type="not_found_error", code="unknown_route"
            )
        except web.HTTPMethodNotAllowed:
            status = 405
            return error_response(
                405,
                f"method {request.method} not allowed",
                type="invalid_request_error",
                code="method_not_allowed",
            )
        except asyncpg.QueryCanceledError:
            status = 504
            return error_response(
                504, "the report took too long; narrow the range", type="api_error", code="query_timeout"
            )
        except web.HTTPException:
            raise
        except Exception:
            # Postgres down, a view missing (ledger migration 0003 not applied)...
            log.exception("reporting_failed", path=request.path)
            status = 500
            return error_response(500, "internal error", type="api_error", code="internal_error")
        status = response.status
        return response
    finally:
        if request.path.startswith(f"{PREFIX}/"):
            log.info(
                "reporting_request",
                method=request.method,
                path=request.path,
                status=status,
                tenant_id=scope.tenant_id if scope else None,
                admin=bool(scope and scope.is_admin),
                token_id=scope.token_id if scope else None,
                duration_ms=round((time.perf_counter() - started) * 1000, 2),
            )


def _format(request: web.Request) -> str:
    fmt = request.query.get("format") or "json"
    if fmt not in FORMATS:
        raise QueryError("format must be one of json, csv, parquet", "format")
    return fmt


def _render(
    fmt: str, name: str, meta: dict[str, Any], columns: list[str], rows: list[tuple[Any, ...]]
) -> web.Response:
    if fmt == "csv":
        body = to_csv(columns, rows)
    elif fmt == "parquet":
        body = to_parquet(columns, rows)
    else:
        payload = {"object": "list", **meta, "columns": columns, "data": json_rows(columns, rows)}
        return web.Response(body=orjson.dumps(payload), content_type="application/json")
    resp = web.Response(body=body, content_type=CONTENT_TYPES[fmt])
    resp.headers["Content-Disposition"] = f'attachment; filename="{name}.{fmt}"'
    return resp


async def usage(request: web.Request) -> web.Response:
    """GET /v1/reporting/usage: usage and spend per bucket and group.

    Query: ``start``, ``end`` (UTC, aligned), ``granularity`` (hour|day|month),
    ``group_by`` (tenant,team,key,model), filters ``tenant_id``, ``team_id``,
    ``key_id``, ``model``, ``format``. 400 bad parameter or too many rows;
    403 another tenant.
    """
    fmt = _format(request)
    q = parse_usage_query(request.query)
    scope: Scope = request[SCOPE]
    max_rows = request.app[LIMITS].max_rows
    sql, args = usage_sql(scope, q, max_rows)
    rows = finish_rows(await request.app[STORE].fetch(sql, args))
    if len(rows) > max_rows:
        raise QueryError(
            f"more than {max_rows} rows; narrow the range, coarsen the granularity or group by less",
            None,
            code="result_too_large",
        )
    meta = {
        "granularity": q.granularity,
        "start": iso(q.start),
        "end": iso(q.end),
        "group_by": list(q.group_by),
    }
    return _render(fmt, "usage", meta, usage_columns(q), rows)


async def top(request: web.Request) -> web.Response:
    """GET /v1/reporting/top: the top ``limit`` of ``by`` ranked by ``metric``.

    Query: ``by`` (tenant|team|key|model), ``start``, ``end`` (hour-aligned at
    least), ``metric`` (cost_micro_usd|total_tokens|requests), ``limit``,
    filters, ``format``.
    """
    fmt = _format(request)
    q = parse_top_query(request.query)
    sql, args = top_sql(request[SCOPE], q)
    rows = finish_rows(await request.app[STORE].fetch(sql, args))
    meta = {
        "by": q.by,
        "metric": q.metric,
        "limit": q.limit,
        "granularity": q.granularity,
        "start": iso(q.start),
        "end": iso(q.end),
    }
    return _render(fmt, f"top-{q.by}", meta, top_columns(q), rows)


async def whoami(request: web.Request) -> web.Response:
    """GET /v1/reporting/whoami: ``{"tenant_id": str|null, "admin": bool}``."""
    scope: Scope = request[SCOPE]
    return web.json_response({"tenant_id": scope.tenant_id, "admin": scope.is_admin})


async def openapi(_: web.Request) -> web.Response:
    """GET /v1/reporting/openapi.json: the API description (public)."""
    return web.Response(body=OPENAPI_PATH.read_bytes(), content_type="application/json")


async def dashboard(_: web.Request) -> web.FileResponse:
    """GET /dashboard: the static dashboard page."""
    return web.FileResponse(STATIC_DIR / "dashboard.html")


def add_routes(app: web.Application) -> None:
    """Register the API, the OpenAPI document and the dashboard."""
    r = app.router
    r.add_get(f"{PREFIX}/usage", usage)
    r.add_get(f"{PREFIX}/top", top)
    r.add_get(f"{PREFIX}/whoami", whoami)
    r.add_get(f"{PREFIX}/openapi.json", openapi)
    r.add_get("/dashboard", dashboard)
    r.add_static("/dashboard/static/", STATIC_DIR)
