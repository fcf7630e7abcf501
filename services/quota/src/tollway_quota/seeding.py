"""Seeding cold budget counters from the ledger (issue 10: "Cold counters are
seeded by quota, never by the edge reading the ledger").

An edge whose admit meets a cold budget counter asks quota, once per counter
(coalesced at the edge), with ``POST /internal/v1/budget-seeds``:

request  ``{"tenant_id": str, "limit": Limit, "at": datetime | null,
         "dry_run": bool = false}`` —
         ``limit`` is the contract's :class:`tollway_contracts.limits.Limit`
         (the body the admin API already takes), ``at`` the edge's clock
         reading (the period is the one containing it; default: quota's now).
response ``{"created": bool, "spent_micro_usd": int, "period_start": datetime,
         "period_end": datetime}`` — ``spent_micro_usd`` is the ledger's spend
         for the scope (and model) in the period; ``created`` is True when this
         call created the counter (``seed.lua``, create-if-absent: a counter
         that exists is never overwritten, so any number of racing requests
         write one value and nothing recorded since is lost). ``dry_run``:
         the spend only, nothing written (works while Valkey is down).

Auth: ``Authorization: Bearer <TOLLWAY_QUOTA_SEED_TOKEN>`` (or the admin
token). Errors are OpenAI-format: 401 bad token, 400 bad body or a limit
without a budget, 503 when Postgres or Valkey fails (the edge falls back as
configured).

Where the spend comes from: the ledger's documented view ``ledger.v_calls``
(DESIGN.md "Databases": quota reads the ledger's views, never its tables),
summing ``cost_micro_usd`` (micro-USD) of the scope's calls with ``ts_start``
in ``[period start, period end)`` — the same rule the edge's seed used. Not
``v_spend_daily``/``v_spend_monthly``: their buckets are UTC days and months
and carry no user, while budgets are calendar periods in the tenant's time
zone and may be per user. Within one quota process, concurrent requests for
one counter share one ledger query.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

import structlog
from aiohttp import web
from psycopg_pool import AsyncConnectionPool
from pydantic import BaseModel
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from tollway_admission import Admission, ValkeyConnectionError, ValkeyTimeoutError, Window, period_window
from tollway_admission.singleflight import SingleFlight
from tollway_contracts.errors import error_json
from tollway_contracts.events import utcnow
from tollway_contracts.limits import Limit
from tollway_contracts.pydantic_fields import LimitField

log = structlog.get_logger("tollway_quota.seeding")

ROUTE = "/internal/v1/budget-seeds"
_SCOPE_COLUMN = {"key": "key_id", "user": "user_id", "team": "team_id", "tenant": "tenant_id"}


class SeedRequest(BaseModel):
    """Body of ``POST /internal/v1/budget-seeds`` (module doc).

    ``dry_run``: only read the ledger's spend, write nothing (an edge in
    local mode, Valkey unreachable, starting a counter it never saw from the
    ledger); ``created`` is then False.
    """

    tenant_id: str
    limit: LimitField
    at: datetime | None = None
    dry_run: bool = False


class SeedResponse(BaseModel):
    """Answer of ``POST /internal/v1/budget-seeds`` (module doc)."""

    created: bool
    spent_micro_usd: int
    period_start: datetime
    period_end: datetime


class LedgerSpend:
    """The ledger's spend of one scope in one period, from ``ledger.v_calls``.

    Concurrent calls for the same (tenant, scope, model, period) share one query.
    """

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool
        self._flights: SingleFlight[tuple[Any, ...], int] = SingleFlight()

    async def __call__(self, tenant_id: str, limit: Limit, window: Window) -> int:
        """Spent micro-USD.

        Raises:
            psycopg.Error: Postgres unreachable or the view missing.
        """
        key = (tenant_id, limit.scope, limit.scope_id, limit.model, window.start)
        return await self._flights.run(key, lambda: self._query(tenant_id, limit, window))

    async def _query(self, tenant_id: str, limit: Limit, window: Window) -> int:
        column = _SCOPE_COLUMN[limit.scope]
        sql = (
            "SELECT coalesce(sum(cost_micro_usd), 0)::bigint FROM ledger.v_calls"
            f" WHERE tenant_id = %s AND {column} = %s AND ts_start >= %s AND ts_start < %s"
        )
        args: list[Any] = [tenant_id, limit.scope_id, window.start, window.end]
        if limit.model is not None:
            sql += " AND model = %s"
            args.append(limit.model)
        async with self._pool.connection() as conn, conn.cursor() as cur:
            await cur.execute(sql, args)  # noqa: S608 - only fixed column names are formatted in
            row = await cur.fetchone()
        return int(row[0]) if row else 0


class BudgetSeeder:
    """Seeds one budget counter from the ledger (module doc).

    Args:
        admission: writes the counter (``Admission.seed_budget``, seed.lua).
        spend: ``async (tenant_id, limit, window) -> micro-USD``.
        clock: aware UTC now (when the request has no ``at``).
    """

    def __init__(
        self,
        admission: Admission,
        spend: Callable[[str, Limit, Window], Awaitable[int]],
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self._admission = admission
        self._spend = spend
        self._clock = clock

    async def seed(self, request: SeedRequest) -> SeedResponse:
        """Read the ledger's spend and create the counter if missing.

        Raises:
            ValueError: the limit has no budget, or the tenant id is unusable.
            psycopg.Error, redis.exceptions.RedisError: transient.
        """
        limit = request.limit
        if limit.budget_micro_usd is None:
            raise ValueError("the limit has no budget")
        if limit.budget_period is None:
            limit = limit.replace(budget_period="month")  # as admit reads it
        at = request.at or self._clock()
        window = period_window(limit.budget_period, limit.time_zone, at)  # type: ignore[arg-type]
        spent = await self._spend(request.tenant_id, limit, window)
        if request.dry_run:
            return SeedResponse(
                created=False, spent_micro_usd=spent, period_start=window.start, period_end=window.end
            )
        try:
            created = await self._admission.seed_budget(request.tenant_id, limit, spent, at=at)
        except (RedisConnectionError, RedisTimeoutError, ValkeyConnectionError, ValkeyTimeoutError):
            # A connection from before a Valkey restart (exactly when
            # edges come to reseed): one retry on a fresh connection.
            created = await self._admission.seed_budget(request.tenant_id, limit, spent, at=at)
        log.info(
            "budget_seeded",
            tenant_id=request.tenant_id,
            scope=limit.scope,
            scope_id=limit.scope_id,
            model=limit.model,
            spent_micro_usd=spent,
            period_start=window.start.isoformat(),
            created=created,
        )
        return SeedResponse(
            created=created, spent_micro_usd=spent, period_start=window.start, period_end=window.end
        )


SEEDER: web.AppKey[BudgetSeeder] = web.AppKey("budget_seeder", BudgetSeeder)
SEED_TOKENS: web.AppKey[tuple[bytes, ...]] = web.AppKey("seed_tokens", tuple)


def _err(status: int, message: str, type_: str, code: str) -> web.Response:
    return web.Response(
        status=status, body=error_json(message, type=type_, code=code), content_type="application/json"
    )


async def seed_budget(request: web.Request) -> web.Response:
    """``POST /internal/v1/budget-seeds`` (module doc)."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    tokens = request.app[SEED_TOKENS]
    if (
        scheme.lower() != "bearer"
        or not token.strip()
        or not any(hmac.compare_digest(token.strip().encode(), t) for t in tokens)
    ):
        return _err(401, "invalid or missing seed token", "authentication_error", "invalid_seed_token")
    try:
        body = SeedRequest.model_validate_json(await request.read())
    except ValueError as exc:
        return _err(400, f"invalid body: {str(exc)[:200]}", "invalid_request_error", "invalid_body")
    try:
        answer = await request.app[SEEDER].seed(body)
    except ValueError as exc:
        return _err(400, str(exc), "invalid_request_error", "invalid_limit")
    except Exception as exc:  # noqa: BLE001 - Postgres/Valkey: the edge retries or falls back
        log.warning("budget_seed_failed", error=type(exc).__name__, detail=str(exc)[:300])
        return _err(503, "the ledger or Valkey is unavailable", "server_error", "seed_unavailable")
    return web.Response(text=answer.model_dump_json(), content_type="application/json")
