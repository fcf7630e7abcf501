"""Prometheus metrics of the ledger, on a per-app registry (tests build many apps)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram


class LedgerMetrics:
    """The ledger's metrics.

    - ``tollway_ledger_events_total{type,outcome}``: events by type
      (``started``/``completed``/``failed``/``unknown``) and outcome
      (``applied``, ``duplicate``, ``ignored``, ``dead_lettered``).
    - ``tollway_ledger_batch_seconds``: wall time of one batch, seconds
      (parse → DB commit → offset commit).
    - ``tollway_ledger_consumer_lag{partition}``: high watermark minus
      position, messages, per assigned partition.
    - ``tollway_ledger_db_retries_total``: failed batch transactions retried.
    - ``tollway_ledger_orphaned_total``: calls marked orphaned (no terminal
      event within the orphan timeout).
    - ``tollway_ledger_orphans_finalised_total``: orphaned calls whose terminal
      event arrived later and finalised them.
    - ``tollway_ledger_partitions_dropped_total``: monthly partitions dropped by
      retention.
    - ``tollway_ledger_maintenance_errors_total{task}``: failed maintenance runs
      (``partitions``, ``retention``, ``orphans``).
    """

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.events = Counter(
            "tollway_ledger_events",
            "Usage events by type and outcome",
            ["type", "outcome"],
            registry=self.registry,
        )
        self.batch_seconds = Histogram(
            "tollway_ledger_batch_seconds",
            "Wall time of one consumed batch, seconds",
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
            registry=self.registry,
        )
        self.lag = Gauge(
            "tollway_ledger_consumer_lag",
            "High watermark minus committed position, messages",
            ["partition"],
            registry=self.registry,
        )
        self.db_retries = Counter(
            "tollway_ledger_db_retries",
            "Batch transactions that failed and were retried",
            registry=self.registry,
        )
        self.orphaned = Counter(
            "tollway_ledger_orphaned",
            "Calls marked orphaned (no terminal event within the orphan timeout)",
            registry=self.registry,
        )
        self.orphans_finalised = Counter(
            "tollway_ledger_orphans_finalised",
            "Orphaned calls finalised later by their terminal event",
            registry=self.registry,
        )
        self.partitions_dropped = Counter(
            "tollway_ledger_partitions_dropped",
            "Monthly usage_records partitions dropped by retention",
            registry=self.registry,
        )
        self.maintenance_errors = Counter(
            "tollway_ledger_maintenance_errors",
            "Failed maintenance runs",
            ["task"],
            registry=self.registry,
        )
