"""Cold budget counters are seeded from the ledger (DESIGN.md "Reservations"):
the spend of a scope (and model when narrowed) in the current period, read on
the principals' read-only Postgres pool, once per counter and period."""

from __future__ import annotations

from typing import Any

import asyncpg
import structlog

from tollway_admission import Window
from tollway_contracts.limits import Limit

log = structlog.get_logger("tollway_edge.admission")

_SCOPE_COLUMN = {"key": "key_id", "user": "user_id", "team": "team_id", "tenant": "tenant_id"}
SEED_SQL = (
    "SELECT coalesce(sum(cost_micro_usd), 0)::bigint FROM ledger.usage_records"
    " WHERE {column} = $1 AND ts_start >= $2 AND ts_start < $3{model}"
)


class SeedError(Exception):
    """The ledger could not be read to seed a cold budget counter."""


async def ledger_spend(pool: asyncpg.Pool | None, limit: Limit, window: Window) -> int:
    """The ledger's spend for the limit's scope (and model) in ``window``, micro-USD.

    Raises:
        SeedError: no pool, or the query failed.
    """
    if pool is None:
        raise SeedError("no Postgres pool")
    column = _SCOPE_COLUMN[limit.scope]
    args: list[Any] = [limit.scope_id, window.start, window.end]
    model = ""
    if limit.model is not None:
        model = " AND model = $4"
        args.append(limit.model)
    try:
        value = await pool.fetchval(SEED_SQL.format(column=column, model=model), *args)
    except (asyncpg.PostgresError, OSError, asyncpg.InterfaceError, TimeoutError) as exc:
        raise SeedError(str(exc)) from exc
    log.info(
        "budget_seeded",
        scope=limit.scope,
        scope_id=limit.scope_id,
        spent_micro_usd=int(value),
        period_start=window.start.isoformat(),
    )
    return int(value)
