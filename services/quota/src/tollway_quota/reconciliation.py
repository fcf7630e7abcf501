"""Reconciliation of expired reservations against the ledger (issue 3:
"Reservations whose settlement never comes expire and are reconciled against
the ledger, never leaked").

Every ``reconcile_interval_seconds``, ONE quota replica (a Valkey lock
``tw:quota:reconcile-lock``, ``SET NX PX``, deleted only by its holder) sweeps
every tenant with reservations (``Admission.tenants_with_reservations``), lists
those past their deadline by at least ``reconcile_grace_seconds``
(``Admission.list_expired``), looks each request id up in
``ledger.usage_records``, and settles it (``Admission.settle``):

- a terminal row (``completed``/``failed``): its ``total_tokens`` (else
  prompt + completion, else 0) and ``cost_micro_usd`` (else 0) — outcome
  ``ledger``;
- no terminal row (``in_flight``, ``orphaned`` or absent): zero tokens and
  zero cost, settled PROVISIONALLY (``Admission.settle(provisional=True)``),
  logged ``reconciled_without_ledger`` (warning) — outcome
  ``without_ledger``. The reservation is released rather than leaked; if the
  call's terminal event arrives later, its settle replaces the provisional
  zero by the actuals (settle.lua's merge rule: the difference is added once,
  status ``settled_late``; a redelivery of it changes nothing), so the
  counters end with the call's spend exactly once, as the ledger does.

"Exactly once" is the settle script's: a reservation settled meanwhile by the
usage consumer (or another sweep) answers ``already_settled`` and changes
nothing (outcome ``already_settled``).

Failure consequences: an error (Valkey, Postgres) ends the run, is logged and
counted (``tollway_quota_reconcile_errors_total``) and the next interval
retries; reservations stay listed until settled. If the
lock holder dies, the lock expires after ``reconcile_lock_ttl_seconds`` and
another replica takes over. A run longer than the lock's TTL could overlap
another replica's run: harmless, since settle is once per request id.
"""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import structlog
from prometheus_client import Counter
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool
from redis.asyncio import Redis

from tollway_admission import Admission, ExpiredReservation
from tollway_contracts.events import utcnow

log = structlog.get_logger("tollway_quota.reconciliation")

LOCK_KEY = "tw:quota:reconcile-lock"
"""The one-replica-at-a-time lock (quota's own key, not a tenant's)."""

LEDGER_LOOKBACK = timedelta(days=2)
"""How long before its reservation's deadline a call may have started: bounds
the ledger lookup by ``ts_start`` (the (tenant_id, ts_start) index). A record
lives ``record_retention`` (1 day) past its deadline, so older ones are never listed."""

_RELEASE_LOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


RECONCILED = Counter(
    "tollway_quota_reservations_reconciled", "Expired reservations reconciled, by outcome", ["outcome"]
)
RECONCILE_ERRORS = Counter("tollway_quota_reconcile_errors", "Reconciliation runs that failed")


class ReconcileMetrics:
    """``tollway_quota_reservations_reconciled_total{outcome}`` (``ledger``,
    ``without_ledger``, ``already_settled``, ``unknown``) and
    ``tollway_quota_reconcile_errors_total``: the module's process-global
    counters (served by ``tollway_runtime.metrics``)."""

    def __init__(self) -> None:
        self.reconciled = RECONCILED
        self.errors = RECONCILE_ERRORS


@dataclass(frozen=True, slots=True)
class LedgerActuals:
    """A call's terminal ledger row: ``status``, ``tokens``, ``cost_micro_usd``."""

    status: str
    tokens: int
    cost_micro_usd: int


@dataclass
class RunReport:
    """Counts of one sweep, by outcome; ``locked`` is False when another
    replica held the lock (nothing was done)."""

    locked: bool = True
    outcomes: dict[str, int] = field(default_factory=dict)

    def add(self, outcome: str) -> None:
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1


def actuals_from_row(row: dict[str, Any] | None) -> LedgerActuals | None:
    """The settlement amounts of a ledger row, or None when it is not terminal
    (absent, ``in_flight``, ``orphaned``). Tokens: ``total_tokens``, else
    prompt + completion, else 0; cost: ``cost_micro_usd`` else 0 (micro-USD)."""
    if row is None or row["status"] not in ("completed", "failed"):
        return None
    tokens = row["total_tokens"]
    if tokens is None:
        tokens = (row["prompt_tokens"] or 0) + (row["completion_tokens"] or 0)
    return LedgerActuals(row["status"], int(tokens), int(row["cost_micro_usd"] or 0))


class LedgerLookup:
    """Reads ``ledger.usage_records`` (schema of services/ledger, same database)."""

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool

    async def rows(self, tenant_id: str, expired: list[ExpiredReservation]) -> dict[str, dict[str, Any]]:
        """``request_id -> row`` (status, token and cost columns) for the
        expired reservations of one tenant; ids that are not UUIDs, or absent,
        are missing from the result.

        Raises:
            psycopg.Error: Postgres unreachable (the run fails; retried next interval).
        """
        ids: list[uuid.UUID] = []
        for e in expired:
            try:
                ids.append(uuid.UUID(e.request_id))
            except ValueError:
                continue
        if not ids:
            return {}
        lo = min(e.deadline for e in expired) - LEDGER_LOOKBACK
        hi = max(e.deadline for e in expired)
        async with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            await cur.execute(
                """SELECT request_id, status, total_tokens, prompt_tokens, completion_tokens,
                          cost_micro_usd
                   FROM ledger.usage_records
                   WHERE tenant_id = %s AND request_id = ANY(%s) AND ts_start >= %s AND ts_start <= %s""",
                (tenant_id, ids, lo, hi),
            )
            found: dict[str, dict[str, Any]] = {}
            for row in await cur.fetchall():
                rid = str(row["request_id"])
                # one row per call; if ts_start differed between events there
                # could be two: a terminal one wins
                if rid not in found or row["status"] in ("completed", "failed"):
                    found[rid] = row
            return found


class Reconciler:
    """Settles expired reservations with the ledger's actuals (module doc).

    Args:
        valkey: the lock's store (the admission Valkey).
        admission: lists and settles reservations.
        ledger: ledger lookups.
        metrics: where counts go.
        grace: how long past its deadline a reservation waits (its usage
            event may still be on its way).
        lock_ttl: the lock's lifetime, longer than a run.
        clock: aware UTC now.
    """

    def __init__(
        self,
        valkey: Redis,
        admission: Admission,
        ledger: LedgerLookup,
        metrics: ReconcileMetrics,
        *,
        grace: timedelta = timedelta(seconds=60),
        lock_ttl: timedelta = timedelta(seconds=60),
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self._valkey = valkey
        self._admission = admission
        self._ledger = ledger
        self._metrics = metrics
        self._grace = grace
        self._lock_ttl_ms = max(1000, int(lock_ttl.total_seconds() * 1000))
        self._clock = clock

    async def run_once(self) -> RunReport:
        """One sweep under the lock; returns what it did.

        Raises:
            redis.exceptions.RedisError, psycopg.Error: the sweep stopped
                (what was settled stays settled; the rest waits for the next).
        """
        token = secrets.token_hex(16)
        if not await self._valkey.set(LOCK_KEY, token, nx=True, px=self._lock_ttl_ms):
            return RunReport(locked=False)
        report = RunReport()
        try:
            for tenant_id in await self._admission.tenants_with_reservations():
                await self._tenant(tenant_id, report)
        finally:
            await self._valkey.eval(_RELEASE_LOCK, 1, LOCK_KEY, token)
        if report.outcomes:
            log.info("reservations_reconciled", **report.outcomes)
        return report

    async def _tenant(self, tenant_id: str, report: RunReport) -> None:
        # At most 1000 per tenant per run (oldest first); the next run takes the rest.
        cutoff = self._clock() - self._grace
        expired = [e for e in await self._admission.list_expired(tenant_id) if e.deadline <= cutoff]
        if expired:
            rows = await self._ledger.rows(tenant_id, expired)
            for e in expired:
                actual = actuals_from_row(rows.get(e.request_id))
                tokens, cost = (actual.tokens, actual.cost_micro_usd) if actual else (0, 0)
                result = await self._admission.settle(
                    tenant_id=tenant_id,
                    request_id=e.request_id,
                    tokens=tokens,
                    cost_micro_usd=cost,
                    provisional=actual is None,  # its usage event may still come
                )
                outcome: str
                if result.status != "settled":
                    outcome = result.status
                elif actual is not None:
                    outcome = "ledger"
                else:
                    outcome = "without_ledger"
                    row = rows.get(e.request_id)
                    log.warning(
                        "reconciled_without_ledger",
                        tenant_id=tenant_id,
                        request_id=e.request_id,
                        ledger_status=row["status"] if row else None,
                        reserved_tokens=e.tokens,
                        reserved_cost_micro_usd=e.cost_micro_usd,
                    )
                self._metrics.reconciled.labels(outcome=outcome).inc()
                report.add(outcome)

    async def run_forever(self, interval_seconds: float) -> None:
        """Sweep every ``interval_seconds`` (first sweep at once) until cancelled;
        a failed sweep is logged and counted, never fatal."""
        while True:
            try:
                await self.run_once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - retried next interval
                self._metrics.errors.inc()
                log.warning("reconcile_failed", error=type(exc).__name__, detail=str(exc)[:300])
            await asyncio.sleep(interval_seconds)
