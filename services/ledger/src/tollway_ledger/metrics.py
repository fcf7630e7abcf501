"""Prometheus metrics of the ledger: process-global (prometheus-client's
registry), served by ``tollway_runtime.metrics`` on ``/metrics``.

The consume loop's own metrics (lag per partition, records per batch, write
time) come from :class:`tollway_runtime.kafka.BatchConsumer`, labelled
``consumer="ledger-consumer"``.
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

from tollway_runtime.metrics import Since

EVENTS = Counter(
    "tollway_ledger_events",
    "Usage events by type and outcome",
    ["type", "outcome"],
)
BATCH_SECONDS = Histogram(
    "tollway_ledger_batch_seconds",
    "Wall time of one consumed batch, seconds",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
DB_RETRIES = Counter("tollway_ledger_db_retries", "Batch transactions that failed and were retried")
ORPHANED = Counter(
    "tollway_ledger_orphaned", "Calls marked orphaned (no terminal event within the orphan timeout)"
)
ORPHANS_FINALISED = Counter(
    "tollway_ledger_orphans_finalised", "Orphaned calls finalised later by their terminal event"
)
PARTITIONS_DROPPED = Counter(
    "tollway_ledger_partitions_dropped", "Monthly usage_records partitions dropped by retention"
)
MAINTENANCE_ERRORS = Counter("tollway_ledger_maintenance_errors", "Failed maintenance runs", ["task"])


class LedgerMetrics:
    """The ledger's metrics (the module's process-global ones).

    - ``tollway_ledger_events_total{type,outcome}``: events by type
      (``started``/``completed``/``failed``/``unknown``) and outcome
      (``applied``, ``duplicate``, ``ignored``, ``dead_lettered``).
    - ``tollway_ledger_batch_seconds``: wall time of one batch, seconds
      (parse → DB commit → offset commit).
    - ``tollway_ledger_db_retries_total``: failed batch transactions retried.
    - ``tollway_ledger_orphaned_total``: calls marked orphaned (no terminal
      event within the orphan timeout).
    - ``tollway_ledger_orphans_finalised_total``: orphaned calls whose terminal
      event arrived later and finalised them.
    - ``tollway_ledger_partitions_dropped_total``: monthly partitions dropped by
      retention.
    - ``tollway_ledger_maintenance_errors_total{task}``: failed maintenance runs
      (``partitions``, ``retention``, ``orphans``).

    Attributes:
        registry: what this app instance counted (:class:`~tollway_runtime.metrics.Since`
            its creation): the metrics are process-global and tests build many apps.
    """

    def __init__(self) -> None:
        self.registry = Since("tollway_ledger_")
        self.events = EVENTS
        self.batch_seconds = BATCH_SECONDS
        self.db_retries = DB_RETRIES
        self.orphaned = ORPHANED
        self.orphans_finalised = ORPHANS_FINALISED
        self.partitions_dropped = PARTITIONS_DROPPED
        self.maintenance_errors = MAINTENANCE_ERRORS
