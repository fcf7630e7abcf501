"""Postgres adapter: applies one batch of effects in ONE transaction.

Per batch (see :meth:`LedgerStore.apply`):

1. ensure the monthly partitions the batch needs (own short transaction,
   advisory-locked, skipped for months already known);
2. ``BEGIN``; COPY the events into a temp staging table;
3. ``started``: INSERT … ON CONFLICT DO NOTHING (insert if absent);
4. terminal: INSERT … ON CONFLICT DO UPDATE … WHERE status IN
   ('in_flight', 'orphaned') (insert if absent, or finalise an in-flight or
   orphaned row; a row that already has a terminal event is left alone).
   The rows actually written are the calls
   whose terminal event is applied now, for the first time;
5. those rows are added to the hourly, daily and monthly rollups, in that
   table order and in key order within each table, so parallel consumers
   contend on rollup rows but never deadlock (DESIGN.md "Rules that keep it
   correct when it scales out");
6. ``COMMIT``.

Re-applying the same batch changes nothing: steps 3 and 4 write nothing for
calls already recorded, so step 5 adds nothing.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeAlias

import asyncpg

from .handler import JSON_FIELDS, STAGE_COLUMN_TYPES, STAGE_COLUMNS, Effects, months_of, stage_record
from .retention import expired_partitions, orphan_cutoff, retention_cutoff

if TYPE_CHECKING:  # the stubs' generics are not subscriptable at run time
    from asyncpg.pool import PoolConnectionProxy

    Conn: TypeAlias = asyncpg.Connection[asyncpg.Record] | PoolConnectionProxy[asyncpg.Record]
    """A connection, direct or from the pool."""

# Advisory lock keys (hashtext of these names): one maintenance runner at a time
# across replicas. Partition CREATION uses 'tollway.ledger.partitions' (0001).
MAINTENANCE_LOCK = "tollway.ledger.maintenance"

# Latency histogram upper bounds, ms (non-cumulative buckets; the last is +inf).
LATENCY_BUCKETS_MS: tuple[int, ...] = (50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000)
ROLLUP_GRAINS: tuple[tuple[str, str], ...] = (
    ("usage_rollup_hourly", "hour"),
    ("usage_rollup_daily", "day"),
    ("usage_rollup_monthly", "month"),
)

# ``ledger.usage_records`` columns filled from an event: every field of the
# contract's Struct except schema_version, type and event_id (which become
# status, started_event_id and terminal_event_id).
_RECORD_COLUMNS = [c for c in STAGE_COLUMNS if c not in ("seq", "event_type", "event_id")]

_CREATE_STAGE = f"""
CREATE TEMP TABLE IF NOT EXISTS ledger_stage (
    {", ".join(f"{c} {t}" for c, t in STAGE_COLUMN_TYPES.items())}
) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS ledger_applied (
    ts_start timestamptz, tenant_id text, team_id text, key_id text, model text,
    status text, status_code integer, prompt_tokens bigint,
    completion_tokens bigint, cached_tokens bigint, reasoning_tokens bigint,
    total_tokens bigint, cost_micro_usd bigint, latency_ms double precision,
    terminal_event_id uuid
) ON COMMIT DELETE ROWS;
"""


_STAGE_VALUES = ", ".join(f"s.{c}::jsonb" if c in JSON_FIELDS else f"s.{c}" for c in _RECORD_COLUMNS)

_INSERT_STARTED = f"""
INSERT INTO ledger.usage_records AS r ({", ".join(_RECORD_COLUMNS)}, status, started_event_id, updated_at)
SELECT {_STAGE_VALUES}, 'in_flight', s.event_id, now()
FROM ledger_stage s
WHERE s.event_type = 'started'
ORDER BY s.ts_start, s.request_id
ON CONFLICT (ts_start, request_id) DO NOTHING
RETURNING r.started_event_id
"""

# A terminal event's values replace the row's, except a null reservation
# (terminal events normally carry none): the started event's reservation is kept.
_UPDATE_SET = ", ".join(
    f"{c} = coalesce(EXCLUDED.{c}, r.{c})" if c == "reservation" else f"{c} = EXCLUDED.{c}"
    for c in _RECORD_COLUMNS
    if c not in ("ts_start", "request_id")
)

_APPLY_TERMINAL = f"""
WITH up AS (
    INSERT INTO ledger.usage_records AS r ({", ".join(_RECORD_COLUMNS)}, status, terminal_event_id, updated_at)
    SELECT {_STAGE_VALUES}, s.event_type, s.event_id, now()
    FROM ledger_stage s
    WHERE s.event_type IN ('completed', 'failed')
    ORDER BY s.ts_start, s.request_id
    ON CONFLICT (ts_start, request_id) DO UPDATE SET {_UPDATE_SET},
        status = EXCLUDED.status,
        terminal_event_id = EXCLUDED.terminal_event_id,
        updated_at = EXCLUDED.updated_at
    WHERE r.status IN ('in_flight', 'orphaned')
    RETURNING r.ts_start, r.tenant_id, r.team_id, r.key_id, r.model, r.status,
        r.status_code, r.prompt_tokens, r.completion_tokens, r.cached_tokens,
        r.reasoning_tokens, r.total_tokens, r.cost_micro_usd, r.latency_ms,
        r.terminal_event_id, (r.orphaned_at IS NOT NULL) AS was_orphaned
), kept AS (
    INSERT INTO ledger_applied
    SELECT ts_start, tenant_id, team_id, key_id, model, status, status_code,
        prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens,
        total_tokens, cost_micro_usd, latency_ms, terminal_event_id
    FROM up
)
SELECT terminal_event_id, was_orphaned FROM up
"""


def _latency_buckets_sql() -> tuple[list[str], list[str]]:
    names: list[str] = []
    exprs: list[str] = []
    lower: int | None = None
    for upper in LATENCY_BUCKETS_MS:
        names.append(f"latency_le_{upper}")
        cond = (
            f"a.latency_ms <= {upper}"
            if lower is None
            else f"a.latency_ms > {lower} AND a.latency_ms <= {upper}"
        )
        exprs.append(f"count(*) FILTER (WHERE {cond})")
        lower = upper
    names.append("latency_le_inf")
    exprs.append(f"count(*) FILTER (WHERE a.latency_ms > {lower})")
    return names, exprs


def _rollup_sql(table: str, unit: str) -> str:
    bucket_names, bucket_exprs = _latency_buckets_sql()
    sums = [
        "prompt_tokens",
        "completion_tokens",
        "cached_tokens",
        "reasoning_tokens",
        "total_tokens",
        "cost_micro_usd",
    ]
    metric_cols = ["requests", "errors", *sums, "latency_ms_sum", *bucket_names]
    metric_exprs = [
        "count(*)",
        "count(*) FILTER (WHERE a.status = 'failed' OR a.status_code >= 400)",
        *[f"coalesce(sum(a.{c}), 0)" for c in sums],
        "coalesce(sum(a.latency_ms), 0)",
        *bucket_exprs,
    ]
    key = "bucket_start, tenant_id, team_id, key_id, model"
    return f"""
INSERT INTO ledger.{table} AS u ({key}, {", ".join(metric_cols)}, updated_at)
SELECT date_trunc('{unit}', a.ts_start AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
       a.tenant_id, coalesce(a.team_id, ''), a.key_id, a.model,
       {", ".join(metric_exprs)}, now()
FROM ledger_applied a
GROUP BY 1, 2, 3, 4, 5
ORDER BY 1, 2, 3, 4, 5
ON CONFLICT ({key}) DO UPDATE SET
    {", ".join(f"{c} = u.{c} + EXCLUDED.{c}" for c in metric_cols)},
    updated_at = EXCLUDED.updated_at
"""


_ROLLUPS = [_rollup_sql(table, unit) for table, unit in ROLLUP_GRAINS]

_CLASSIFY = """
SELECT s.event_type, s.event_id,
       (r.started_event_id = s.event_id OR r.terminal_event_id = s.event_id) AS same_event
FROM ledger_stage s
JOIN ledger.usage_records r ON r.ts_start = s.ts_start AND r.request_id = s.request_id
"""


_MARK_ORPHANS = """
WITH candidates AS (
    SELECT ts_start, request_id
    FROM ledger.usage_records
    WHERE status = 'in_flight' AND ts_start < $1
    ORDER BY ts_start, request_id
    LIMIT $3
    -- A consumer finalising one of these right now holds its row lock: skip it
    -- (it is being finalised) instead of waiting (and never deadlock with it).
    FOR UPDATE SKIP LOCKED
)
UPDATE ledger.usage_records r
SET status = 'orphaned', orphaned_at = $2, updated_at = $2
FROM candidates c
WHERE r.ts_start = c.ts_start AND r.request_id = c.request_id AND r.status = 'in_flight'
RETURNING r.request_id, r.tenant_id, r.key_id, r.model, r.ts_start, r.reservation::text
"""

_LIST_PARTITIONS = """
SELECT c.relname
FROM pg_inherits i
JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = 'ledger.usage_records'::regclass
"""


@dataclass(frozen=True, slots=True)
class OrphanedCall:
    """A call marked orphaned now.

    Attributes:
        request_id, tenant_id, key_id, model, ts_start: the call.
        reservation: what admission reserved (the ``started`` event's
            per-scope object, JSON text), or None.
    """

    request_id: object
    tenant_id: str
    key_id: str
    model: str
    ts_start: datetime
    reservation: str | None


@dataclass(slots=True)
class RetentionResult:
    """What one retention run removed.

    Attributes:
        dropped_partitions: names of the ``usage_records`` partitions dropped.
        rollup_rows_deleted: rows deleted per rollup table.
        skipped: True when another replica held the maintenance lock.
    """

    dropped_partitions: list[str] = field(default_factory=list)
    rollup_rows_deleted: dict[str, int] = field(default_factory=dict)
    skipped: bool = False


@dataclass(slots=True)
class ApplyResult:
    """What one batch did in Postgres.

    Attributes:
        outcomes: counts by ``(event type, outcome)``, outcome one of
            ``applied`` (changed the ledger), ``duplicate`` (same event_id
            already recorded), ``ignored`` (another event already decided).
        terminal_applied: calls finalised now (and counted in the rollups).
        orphans_finalised: of those, calls that had been marked orphaned.
    """

    outcomes: Counter[tuple[str, str]] = field(default_factory=Counter)
    terminal_applied: int = 0
    orphans_finalised: int = 0


class LedgerStore:
    """The ledger's Postgres adapter over an asyncpg pool.

    Args:
        pool: an asyncpg pool on the ledger's database (schema migrated).
    """

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        self._known_months: set[datetime] = set()

    async def ping(self) -> bool:
        """True when Postgres answers ``SELECT 1``."""
        async with self.pool.acquire(timeout=2) as conn:
            return bool(await conn.fetchval("SELECT 1", timeout=2) == 1)

    async def ensure_partitions(self, months_ahead: int) -> int:
        """Create the current UTC month's partition and ``months_ahead`` more.

        Idempotent and safe with several replicas (advisory lock in SQL).

        Returns:
            How many partitions were created now.
        """
        async with self.pool.acquire() as conn:
            return int(await conn.fetchval("SELECT ledger.ensure_usage_partitions($1)", months_ahead))

    async def _ensure_months(self, conn: Conn, months: set[datetime]) -> None:
        for month in sorted(months - self._known_months):
            async with conn.transaction():
                await conn.fetchval("SELECT ledger.ensure_usage_partition($1)", month)
            self._known_months.add(month)

    async def apply(self, effects: Effects) -> ApplyResult:
        """Apply a batch's events in one transaction (see the module docstring).

        Returns:
            :class:`ApplyResult`.

        Raises:
            asyncpg.PostgresError, OSError: the transaction failed and was
                rolled back; nothing of the batch is stored. Retrying is safe.
        """
        result = ApplyResult()
        events = effects.events
        if not events:
            return result
        try:
            return await self._apply(effects, result)
        except asyncpg.PostgresError:
            # E.g. "no partition of relation found for row": another replica's
            # retention dropped a month this process believed present. Forget
            # what we know so the retry ensures the partitions again.
            self._known_months.clear()
            raise

    async def _apply(self, effects: Effects, result: ApplyResult) -> ApplyResult:
        async with self.pool.acquire() as conn:
            try:
                return await self._apply_on(conn, effects, result)
            except (asyncpg.InterfaceError, asyncpg.InternalClientError, OSError, TimeoutError):
                # The connection's state is unknown (server gone mid-statement):
                # never hand it back to the pool. The server rolls the
                # transaction back when the connection drops.
                conn.terminate()
                raise

    async def _apply_on(self, conn: Conn, effects: Effects, result: ApplyResult) -> ApplyResult:
        events = effects.events
        await self._ensure_months(conn, months_of(events))
        async with conn.transaction():
            await conn.execute(_CREATE_STAGE)
            await conn.copy_records_to_table(
                "ledger_stage",
                records=[stage_record(i, e) for i, e in enumerate(events)],
                columns=list(STAGE_COLUMNS),
            )
            started_ids = {r[0] for r in await conn.fetch(_INSERT_STARTED)}
            terminal_rows = await conn.fetch(_APPLY_TERMINAL)
            terminal_ids = {r[0] for r in terminal_rows}
            if terminal_ids:
                for sql in _ROLLUPS:
                    await conn.execute(sql)
            # Classify what was NOT applied (duplicate vs ignored, metrics
            # only); skipped in the common case where everything applied.
            if len(started_ids) + len(terminal_ids) < len(events):
                rows: list[Any] = await conn.fetch(_CLASSIFY)
            else:
                rows = [(e.type, e.event_id, False) for e in events]
        applied = started_ids | terminal_ids
        for event_type, event_id, same_event in rows:
            if event_id in applied:
                outcome = "applied"
            elif same_event:
                outcome = "duplicate"
            else:
                outcome = "ignored"
            result.outcomes[(event_type, outcome)] += 1
        result.terminal_applied = len(terminal_ids)
        result.orphans_finalised = sum(1 for r in terminal_rows if r[1])
        return result

    async def mark_orphans(
        self, now: datetime, orphan_after_seconds: float, limit: int = 10_000
    ) -> list[OrphanedCall] | None:
        """Mark calls still ``in_flight`` that started more than
        ``orphan_after_seconds`` before ``now`` as ``orphaned``.

        One transaction under the maintenance advisory lock (one replica at a
        time). Rows a consumer is finalising right now are skipped. Orphaned
        rows are not counted in the rollups; a later terminal event finalises
        them and counts them then (see :meth:`apply`).

        Args:
            now: the current time, aware UTC (injectable for tests).
            orphan_after_seconds: the orphan timeout, seconds.
            limit: most calls marked per run (the rest on the next run).

        Returns:
            The calls marked now, or None when another replica holds the lock.

        Raises:
            asyncpg.PostgresError, OSError: nothing was marked.
        """
        cutoff = orphan_cutoff(now, orphan_after_seconds)
        async with self.pool.acquire() as conn, conn.transaction():
            if not await conn.fetchval("SELECT pg_try_advisory_xact_lock(hashtext($1))", MAINTENANCE_LOCK):
                return None
            rows = await conn.fetch(_MARK_ORPHANS, cutoff, now, limit)
        return [OrphanedCall(*r) for r in rows]

    async def apply_retention(
        self,
        now: datetime,
        retention_months: int,
        rollup_retention_months: dict[str, int],
        lock_timeout_ms: int = 5000,
    ) -> RetentionResult:
        """Drop the ``usage_records`` partitions whose whole month is past
        retention, and delete rollup rows past their own retention.

        Whole partitions are dropped (``DROP TABLE``), never rows deleted. Each
        drop is its own short transaction with ``lock_timeout``: it needs an
        ACCESS EXCLUSIVE lock on ``ledger.usage_records`` for a moment, so a
        busy table makes it fail fast (retried next run) rather than stall the
        consumers behind it. Rollup rows are deleted with one set-based DELETE
        per table by ``bucket_start`` (the primary key's first column); rollup
        tables are small (one row per bucket × tenant × team × key × model).
        Runs under the maintenance advisory lock (one replica at a time).

        Args:
            now: the current time, aware UTC (injectable for tests).
            retention_months: N for ``usage_records`` (0 = keep forever); see
                :mod:`tollway_ledger.retention` for the rule.
            rollup_retention_months: per rollup table name
                (``usage_rollup_hourly`` …), N months, 0 = forever.
            lock_timeout_ms: how long one drop may wait for its table lock, ms.

        Returns:
            :class:`RetentionResult`.

        Raises:
            asyncpg.PostgresError, OSError: the run stopped; partitions dropped
                before the error stay dropped (each drop is atomic).
        """
        result = RetentionResult()
        async with self.pool.acquire() as conn:
            if not await conn.fetchval("SELECT pg_try_advisory_lock(hashtext($1))", MAINTENANCE_LOCK):
                result.skipped = True
                return result
            try:
                names = [r[0] for r in await conn.fetch(_LIST_PARTITIONS)]
                for name in expired_partitions(names, now, retention_months):
                    async with conn.transaction():
                        await conn.execute(f"SET LOCAL lock_timeout = {int(lock_timeout_ms)}")
                        # Serialise with partition creation (a late event for
                        # this month would otherwise race the drop).
                        await conn.execute(
                            "SELECT pg_advisory_xact_lock(hashtext('tollway.ledger.partitions'))"
                        )
                        await conn.execute(f'DROP TABLE IF EXISTS ledger."{name}"')
                    self._known_months.clear()
                    result.dropped_partitions.append(name)
                for table, months in sorted(rollup_retention_months.items()):
                    cutoff = retention_cutoff(now, months)
                    if cutoff is None:
                        continue
                    status = await conn.execute(f"DELETE FROM ledger.{table} WHERE bucket_start < $1", cutoff)
                    result.rollup_rows_deleted[table] = int(status.split()[-1])
            finally:
                # A broken connection released its session lock already.
                with contextlib.suppress(asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
                    await conn.execute("SELECT pg_advisory_unlock(hashtext($1))", MAINTENANCE_LOCK)
        return result
