"""Periodic maintenance of the ledger's tables (runs in every replica; the
work itself is serialised across replicas by advisory locks in the store):

- partitions: keep the current UTC month's partition and the next
  ``partition_months_ahead`` (every ``partition_interval_seconds``);
- retention: drop whole expired monthly partitions and prune rollups
  (every ``retention_interval_seconds``);
- orphans: mark calls in flight for longer than ``orphan_after_seconds`` as
  ``orphaned`` and report them (every ``orphan_check_interval_seconds``).

A failed run is logged and counted and tried again at the next interval; it
never stops the consumer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import asyncpg
import structlog

from .metrics import LedgerMetrics
from .settings import LedgerSettings
from .store import LedgerStore, RetentionResult

log = structlog.get_logger("tollway_ledger.maintenance")

Clock = Callable[[], datetime]
MAINTENANCE_ERRORS = (
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,
    OSError,
    asyncio.TimeoutError,
)

# Orphans logged one line each per run, at most (the rest are counted).
ORPHAN_LOG_LINES = 100


def utc_now() -> datetime:
    """The current time, aware UTC."""
    return datetime.now(UTC)


class Maintenance:
    """The ledger's maintenance runs (each one callable directly by tests).

    Args:
        store: the Postgres adapter.
        settings: the ledger settings (retention, orphan timeout, intervals).
        metrics: where counts go.
        clock: returns the current time, aware UTC (injectable for tests).
    """

    def __init__(
        self, store: LedgerStore, settings: LedgerSettings, metrics: LedgerMetrics, clock: Clock = utc_now
    ):
        self.store = store
        self.settings = settings
        self.metrics = metrics
        self.clock = clock
        self._tasks: list[asyncio.Task[None]] = []

    async def ensure_partitions(self) -> int:
        """Create missing partitions (current month + months ahead); returns how many."""
        created = await self.store.ensure_partitions(self.settings.partition_months_ahead)
        log.info("partitions_ensured", created=created)
        return created

    async def retention(self) -> RetentionResult:
        """One retention run at ``clock()``; see :meth:`LedgerStore.apply_retention`."""
        result = await self.store.apply_retention(
            self.clock(), self.settings.retention_months, self.settings.rollup_retention_months
        )
        self.metrics.partitions_dropped.inc(len(result.dropped_partitions))
        log.info(
            "retention",
            skipped=result.skipped,
            retention_months=self.settings.retention_months,
            dropped_partitions=result.dropped_partitions,
            rollup_rows_deleted=result.rollup_rows_deleted,
        )
        return result

    async def orphans(self) -> int | None:
        """One orphan reconciliation at ``clock()``: mark, log, count.

        Returns:
            How many calls were marked orphaned now, or None when another
            replica held the lock.
        """
        marked = await self.store.mark_orphans(self.clock(), self.settings.orphan_after_seconds)
        if marked is None:
            return None
        for call in marked[:ORPHAN_LOG_LINES]:
            log.warning(
                "call_orphaned",
                request_id=str(call.request_id),
                tenant_id=call.tenant_id,
                key_id=call.key_id,
                model=call.model,
                ts_start=call.ts_start.isoformat(),
                reservation=call.reservation,
            )
        if marked:
            self.metrics.orphaned.inc(len(marked))
            log.warning(
                "orphans_marked",
                count=len(marked),
                orphan_after_s=self.settings.orphan_after_seconds,
            )
        return len(marked)

    async def _every(
        self, name: str, interval: float, run: Callable[[], Awaitable[object]], first: bool
    ) -> None:
        if not first:
            await asyncio.sleep(interval)
        while True:
            try:
                await run()
            except MAINTENANCE_ERRORS as exc:
                self.metrics.maintenance_errors.labels(task=name).inc()
                log.error("maintenance_failed", task=name, error=str(exc), retry_in_s=interval)
            await asyncio.sleep(interval)

    def start(self) -> None:
        """Start the periodic tasks (partitions were ensured at start already,
        so their first periodic run waits one interval; retention and orphans
        run at once)."""
        s = self.settings
        self._tasks = [
            asyncio.create_task(
                self._every("partitions", s.partition_interval_seconds, self.ensure_partitions, False)
            ),
            asyncio.create_task(self._every("retention", s.retention_interval_seconds, self.retention, True)),
            asyncio.create_task(self._every("orphans", s.orphan_check_interval_seconds, self.orphans, True)),
        ]

    async def stop(self) -> None:
        """Cancel the periodic tasks and wait for them (a run in progress rolls back)."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
