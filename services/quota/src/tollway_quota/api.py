"""The admin API handlers (``/admin/v1``): parse, call the store, publish.

Every mutating handler publishes the invalidation only after the store's
transaction committed. Bodies are :mod:`tollway_contracts.admin` models;
errors are OpenAI-format (:mod:`tollway_contracts.errors`).
"""

from __future__ import annotations

import hmac
import time
from typing import TypeVar

import msgspec
import orjson
import structlog
from aiohttp import web
from aiohttp.typedefs import Handler
from pydantic import BaseModel, ValidationError

from tollway_contracts.admin import (
    CachePolicy,
    KeyCreate,
    KeyCreated,
    KeyList,
    LimitList,
    LimitSet,
    ResidencyPolicy,
    TeamCreate,
    TeamList,
    TenantCreate,
    TenantList,
    TenantUpdate,
    UserCreate,
    UserList,
)
from tollway_contracts.errors import error_json
from tollway_contracts.keys import hash_secret, new_key
from tollway_contracts.redaction import RedactionPolicy
from tollway_quota.errors import AdminError, BadRequest
from tollway_quota.invalidations import InvalidationPublisher
from tollway_quota.store import CatalogStore, Change

STORE: web.AppKey[CatalogStore] = web.AppKey("store", CatalogStore)
PUBLISHER: web.AppKey[InvalidationPublisher] = web.AppKey("publisher", InvalidationPublisher)
ADMIN_TOKEN: web.AppKey[bytes] = web.AppKey("admin_token", bytes)
PEPPER: web.AppKey[bytes] = web.AppKey("pepper", bytes)

PREFIX = "/admin/v1"
M = TypeVar("M", bound=BaseModel)
S = TypeVar("S", bound=msgspec.Struct)
log = structlog.get_logger("tollway_quota.api")


def _error(status: int, message: str, *, type: str, code: str, param: str | None = None) -> web.Response:  # noqa: A002
    return web.Response(
        status=status,
        body=error_json(message, type=type, code=code, param=param),
        content_type="application/json",
    )


def _json(model: BaseModel, status: int = 200) -> web.Response:
    return web.Response(status=status, text=model.model_dump_json(), content_type="application/json")


@web.middleware
async def admin_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Authenticate ``/admin/`` paths with the bearer admin token (constant-time
    compare; 401 otherwise), map domain errors to OpenAI-format errors, and
    log one canonical line per request (never bodies, tokens or keys)."""
    started = time.perf_counter()
    status = 500
    try:
        if request.path.startswith("/admin/"):
            header = request.headers.get("Authorization", "")
            scheme, _, token = header.partition(" ")
            token = token.strip()
            if (
                scheme.lower() != "bearer"
                or not token
                or not hmac.compare_digest(token.encode(), request.app[ADMIN_TOKEN])
            ):
                status = 401
                return _error(
                    401,
                    "invalid or missing admin token",
                    type="authentication_error",
                    code="invalid_admin_token",
                )
        try:
            response = await handler(request)
        except AdminError as exc:
            status = exc.status
            return _error(exc.status, exc.message, type=exc.type, code=exc.code, param=exc.param)
        except web.HTTPNotFound:
            status = 404
            return _error(
                404, f"no route {request.method} {request.path}", type="not_found_error", code="unknown_route"
            )
        except web.HTTPMethodNotAllowed:
            status = 405
            return _error(
                405,
                f"method {request.method} not allowed",
                type="invalid_request_error",
                code="method_not_allowed",
            )
        status = response.status
        return response
    finally:
        if request.path.startswith("/admin/"):
            log.info(
                "admin_request",
                method=request.method,
                path=request.path,
                status=status,
                duration_ms=round((time.perf_counter() - started) * 1000, 2),
            )


async def _struct_body(request: web.Request, model: type[S]) -> S:
    """Parse the JSON body as ``model``, a msgspec contract (the redaction policy).
    Raises BadRequest (400) naming the field: ``invalid body: Expected `int` >= 0``,
    param ``score_threshold``."""
    raw = await request.read()
    try:
        data = orjson.loads(raw) if raw else None
    except orjson.JSONDecodeError as exc:
        raise BadRequest("the body is not valid JSON") from exc
    try:
        return msgspec.convert(data, model, strict=False)
    except msgspec.ValidationError as exc:
        message, _, where = str(exc).partition(" - at `$")
        param = where.rstrip("`").lstrip(".") or None
        raise BadRequest(f"invalid body: {message}", param) from exc


async def _body(request: web.Request, model: type[M]) -> M:
    """Parse the JSON body as ``model``. Raises BadRequest (400)."""
    raw = await request.read()
    try:
        data = orjson.loads(raw) if raw else None
    except orjson.JSONDecodeError as exc:
        raise BadRequest("the body is not valid JSON") from exc
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        param = ".".join(str(p) for p in first.get("loc", ())) or None
        raise BadRequest(f"invalid body: {first.get('msg', 'invalid')}", param) from exc


def _tenant_query(request: web.Request, required: bool) -> str | None:
    tenant_id = request.query.get("tenant_id") or None
    if required and tenant_id is None:
        raise BadRequest("the tenant_id query parameter is required", "tenant_id")
    return tenant_id


def _required_tenant(request: web.Request) -> str:
    tenant_id = _tenant_query(request, True)
    assert tenant_id is not None  # _tenant_query raised BadRequest otherwise
    return tenant_id


async def _published(
    request: web.Request, result: tuple[BaseModel, Change], status: int = 200
) -> web.Response:
    """Publish a committed change (the invalidation, after commit: module
    ``invalidations``) and answer the changed row as JSON with ``status``."""
    row, change = result
    await request.app[PUBLISHER].publish(change.version, change.key_ids)
    return _json(row, status)


def _scope(request: web.Request, kind: str, other: str) -> tuple[str, str]:
    """``(scope, scope_id)`` of a route served for two scope kinds (``/{kind}s/{kind_id}/...``)."""
    scope = kind if f"{kind}_id" in request.match_info else other
    return scope, request.match_info[f"{scope}_id"]


async def create_tenant(request: web.Request) -> web.Response:
    """POST /admin/v1/tenants: TenantCreate -> 201 Tenant; 409 duplicate name."""
    result = await request.app[STORE].create_tenant(await _body(request, TenantCreate))
    return await _published(request, result, 201)


async def list_tenants(request: web.Request) -> web.Response:
    """GET /admin/v1/tenants -> TenantList."""
    return _json(TenantList(data=await request.app[STORE].list_tenants()))


async def update_tenant(request: web.Request) -> web.Response:
    """PATCH /admin/v1/tenants/{tenant_id}: TenantUpdate -> Tenant; 404; 400
    unknown time zone. A time zone change re-stamps every key of the tenant."""
    body = await _body(request, TenantUpdate)
    result = await request.app[STORE].update_tenant(request.match_info["tenant_id"], body)
    return await _published(request, result)


async def set_limit(request: web.Request) -> web.Response:
    """PUT /admin/v1/limits: LimitSet -> 201 LimitRecord (created) or 200
    (replaced); 404 unknown scope id. Every key in the scope is re-stamped."""
    body = await _body(request, LimitSet)
    limit, change, created = await request.app[STORE].set_limit(body)
    return await _published(request, (limit, change), 201 if created else 200)


async def list_limits(request: web.Request) -> web.Response:
    """GET /admin/v1/limits?tenant_id= -> LimitList."""
    return _json(LimitList(data=await request.app[STORE].list_limits(_required_tenant(request))))


async def delete_limit(request: web.Request) -> web.Response:
    """DELETE /admin/v1/limits/{limit_id} -> the deleted LimitRecord; 404."""
    result = await request.app[STORE].delete_limit(request.match_info["limit_id"])
    return await _published(request, result)


async def create_team(request: web.Request) -> web.Response:
    """POST /admin/v1/teams: TeamCreate -> 201 Team; 404 tenant; 409 name."""
    result = await request.app[STORE].create_team(await _body(request, TeamCreate))
    return await _published(request, result, 201)


async def list_teams(request: web.Request) -> web.Response:
    """GET /admin/v1/teams?tenant_id= -> TeamList."""
    return _json(TeamList(data=await request.app[STORE].list_teams(_required_tenant(request))))


async def set_team_policy(request: web.Request) -> web.Response:
    """PUT /admin/v1/teams/{team_id}/redaction-policy: RedactionPolicy -> Team."""
    policy = await _struct_body(request, RedactionPolicy)
    result = await request.app[STORE].set_team_policy(request.match_info["team_id"], policy)
    return await _published(request, result)


async def set_residency(request: web.Request) -> web.Response:
    """PUT /admin/v1/{tenants,teams}/{id}/residency-policy: ResidencyPolicy -> Tenant | Team;
    DELETE removes the policy. Edges apply it within a principals reload."""
    scope, scope_id = _scope(request, "tenant", "team")
    regions = None
    if request.method == "PUT":
        regions = (await _body(request, ResidencyPolicy)).allowed_regions
    result = await request.app[STORE].set_residency(scope, scope_id, regions)
    return await _published(request, result)


async def set_cache_policy(request: web.Request) -> web.Response:
    """PUT /admin/v1/{keys,teams}/{id}/cache-policy: CachePolicy -> ApiKey | Team;
    DELETE removes it. Edges apply it within a principals reload."""
    scope, scope_id = _scope(request, "key", "team")
    ttl = None
    if request.method == "PUT":
        ttl = (await _body(request, CachePolicy)).ttl_seconds
    result = await request.app[STORE].set_cache_policy(scope, scope_id, ttl)
    return await _published(request, result)


async def create_user(request: web.Request) -> web.Response:
    """POST /admin/v1/users: UserCreate -> 201 User; 404 tenant/team; 409."""
    result = await request.app[STORE].create_user(await _body(request, UserCreate))
    return await _published(request, result, 201)


async def list_users(request: web.Request) -> web.Response:
    """GET /admin/v1/users?tenant_id= -> UserList."""
    return _json(UserList(data=await request.app[STORE].list_users(_required_tenant(request))))


async def create_key(request: web.Request) -> web.Response:
    """POST /admin/v1/keys: KeyCreate -> 201 KeyCreated.

    The key is minted here (``tollway_contracts.keys.new_key``); only
    ``hash_secret(pepper, key_id, secret)`` is stored, and the full key is in
    this response only.
    """
    body = await _body(request, KeyCreate)
    full_key, parsed = new_key()
    secret_hash = hash_secret(request.app[PEPPER], parsed.key_id, parsed.secret)
    key, change = await request.app[STORE].create_key(body, parsed.key_id, secret_hash)
    return await _published(request, (KeyCreated(key=full_key, **key.model_dump()), change), 201)


async def list_keys(request: web.Request) -> web.Response:
    """GET /admin/v1/keys[?tenant_id=] -> KeyList (no hashes, no secrets)."""
    return _json(KeyList(data=await request.app[STORE].list_keys(_tenant_query(request, False))))


async def revoke_key(request: web.Request) -> web.Response:
    """POST /admin/v1/keys/{key_id}/revoke -> ApiKey; 404 unknown key."""
    result = await request.app[STORE].revoke_key(request.match_info["key_id"])
    return await _published(request, result)


async def set_key_policy(request: web.Request) -> web.Response:
    """PUT /admin/v1/keys/{key_id}/redaction-policy: RedactionPolicy -> ApiKey."""
    policy = await _struct_body(request, RedactionPolicy)
    result = await request.app[STORE].set_key_policy(request.match_info["key_id"], policy)
    return await _published(request, result)


async def clear_key_policy(request: web.Request) -> web.Response:
    """DELETE /admin/v1/keys/{key_id}/redaction-policy -> ApiKey: the key
    inherits its team's policy again."""
    result = await request.app[STORE].set_key_policy(request.match_info["key_id"], None)
    return await _published(request, result)


def add_admin_routes(app: web.Application) -> None:
    """Register every ``/admin/v1`` route on ``app``."""
    r = app.router
    r.add_post(f"{PREFIX}/tenants", create_tenant)
    r.add_get(f"{PREFIX}/tenants", list_tenants)
    r.add_patch(f"{PREFIX}/tenants/{{tenant_id}}", update_tenant)
    r.add_put(f"{PREFIX}/limits", set_limit)
    r.add_get(f"{PREFIX}/limits", list_limits)
    r.add_delete(f"{PREFIX}/limits/{{limit_id}}", delete_limit)
    r.add_post(f"{PREFIX}/teams", create_team)
    r.add_get(f"{PREFIX}/teams", list_teams)
    r.add_put(f"{PREFIX}/teams/{{team_id}}/redaction-policy", set_team_policy)
    for path in (
        f"{PREFIX}/tenants/{{tenant_id}}/residency-policy",
        f"{PREFIX}/teams/{{team_id}}/residency-policy",
    ):
        r.add_put(path, set_residency)
        r.add_delete(path, set_residency)
    for path in (f"{PREFIX}/keys/{{key_id}}/cache-policy", f"{PREFIX}/teams/{{team_id}}/cache-policy"):
        r.add_put(path, set_cache_policy)
        r.add_delete(path, set_cache_policy)
    r.add_post(f"{PREFIX}/users", create_user)
    r.add_get(f"{PREFIX}/users", list_users)
    r.add_post(f"{PREFIX}/keys", create_key)
    r.add_get(f"{PREFIX}/keys", list_keys)
    r.add_post(f"{PREFIX}/keys/{{key_id}}/revoke", revoke_key)
    r.add_put(f"{PREFIX}/keys/{{key_id}}/redaction-policy", set_key_policy)
    r.add_delete(f"{PREFIX}/keys/{{key_id}}/redaction-policy", clear_key_policy)
