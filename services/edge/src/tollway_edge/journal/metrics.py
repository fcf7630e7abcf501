"""The journal's Prometheus metrics, true across the edge's worker processes.

Depth gauges are set from a :class:`JournalStats` snapshot once a second by
the journal (not on every append, so the append path pays nothing for them),
as plain Gauges with a ``multiprocess_mode``: prometheus-client's
multiprocess mode, which the edge's workers use, ignores custom collectors.
Dropped events are counted in the
edge's existing ``tollway_usage_events_dropped_total{reason}`` counter, passed
to the journal (prometheus-client refuses a second collector of that name).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

import structlog
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge

log = structlog.get_logger("tollway_edge.journal")


@dataclass(frozen=True)
class JournalStats:
    """A snapshot of the journal (the metrics read it; tests and /readyz may too).

    Attributes:
        bytes: bytes of all journals held (own + adopted, incl. this loop pass's buffer).
        own_bytes: bytes of this process's own journal (what ``max_bytes`` bounds).
        records: records not yet acknowledged by Kafka.
        oldest_unacked_age_seconds: age of the oldest of them, s (0 when none).
        adopted_journals: orphan journals being replayed.
        appended_total: records written since start.
        acked_total: records acknowledged by Kafka since start (own and adopted).
        dropped: records not journaled since start, by reason.
        full: True while ``has_room()`` is False.
        kafka_connected: the producer is connected.
    """

    bytes: int
    own_bytes: int
    records: int
    oldest_unacked_age_seconds: float
    adopted_journals: int
    appended_total: int
    acked_total: int
    dropped: dict[str, int] = field(default_factory=dict)
    full: bool = False
    kafka_connected: bool = False


class JournalGauges:
    """The journal's metrics as prometheus-client Gauges/Counters, true across worker processes.

    prometheus-client's multiprocess mode (``tollway_runtime.metrics``) ignores
    custom collectors, so the journal sets these from :class:`JournalStats`
    every ``metrics_interval_seconds`` (1 s by default) instead of at scrape
    time; each gauge's ``multiprocess_mode`` says how worker processes combine.

    Metrics:
        tollway_journal_bytes: bytes of every journal held (own and adopted),
            summed over live worker processes (``livesum``).
        tollway_journal_records: usage events not yet acknowledged by Kafka,
            summed over live worker processes (``livesum``).
        tollway_journal_oldest_unacked_age_seconds: age of the oldest of
            them, s (0 when none), the highest over processes (``max``): the alert hook.
        tollway_journal_full: 1 while a worker's journal refuses new calls
            (``refuse`` policy at its bound, or writes failing); ``max``.
        tollway_journal_adopted: orphan journals being replayed (``livesum``).
        tollway_journal_kafka_connected: 1 once every live worker's producer
            is connected (``min``).
        tollway_journal_appended_total / tollway_journal_acked_total: records
            written / acknowledged by Kafka (counters, summed over processes, dead ones included).

    Args:
        registry: where to register them (the global one by default; tests pass their own).
    """

    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.bytes = Gauge(
            "tollway_journal_bytes",
            "Bytes held in usage journals (summed over live worker processes).",
            multiprocess_mode="livesum",
            registry=registry,
        )
        self.records = Gauge(
            "tollway_journal_records",
            "Journaled usage events not yet acknowledged by Kafka (summed over live worker processes).",
            multiprocess_mode="livesum",
            registry=registry,
        )
        self.oldest = Gauge(
            "tollway_journal_oldest_unacked_age_seconds",
            "Age of the oldest journaled usage event not yet acknowledged by Kafka, seconds (the highest over worker processes).",
            multiprocess_mode="max",
            registry=registry,
        )
        self.full = Gauge(
            "tollway_journal_full",
            "1 while a worker's journal refuses new calls (the highest over worker processes).",
            multiprocess_mode="max",
            registry=registry,
        )
        self.adopted = Gauge(
            "tollway_journal_adopted",
            "Orphan journals being replayed (summed over live worker processes).",
            multiprocess_mode="livesum",
            registry=registry,
        )
        self.kafka_connected = Gauge(
            "tollway_journal_kafka_connected",
            "1 once the journal's Kafka producer is connected (the lowest over live worker processes).",
            multiprocess_mode="min",
            registry=registry,
        )
        self.appended = Counter(
            "tollway_journal_appended", "Usage events written to the journal.", registry=registry
        )
        self.acked = Counter(
            "tollway_journal_acked", "Journaled usage events acknowledged by Kafka.", registry=registry
        )
        self._appended_seen = 0
        self._acked_seen = 0

    def update(self, st: JournalStats) -> None:
        """Set the gauges from ``st`` and advance the counters by what is new since the last update."""
        self.bytes.set(st.bytes)
        self.records.set(st.records)
        self.oldest.set(st.oldest_unacked_age_seconds)
        self.full.set(1 if st.full else 0)
        self.adopted.set(st.adopted_journals)
        self.kafka_connected.set(1 if st.kafka_connected else 0)
        if st.appended_total > self._appended_seen:
            self.appended.inc(st.appended_total - self._appended_seen)
            self._appended_seen = st.appended_total
        if st.acked_total > self._acked_seen:
            self.acked.inc(st.acked_total - self._acked_seen)
            self._acked_seen = st.acked_total

    def clear(self) -> None:
        """A stopped journal holds nothing: depth gauges back to 0 (counters keep their totals)."""
        for gauge in (self.bytes, self.records, self.oldest, self.full, self.adopted, self.kafka_connected):
            gauge.set(0)


_default: JournalGauges | None = None
_default_claimed = False


def claim_default_gauges() -> JournalGauges | None:
    """The process's journal gauges on the global registry, for the first journal that asks.

    One journal per worker process owns them; a second journal in the same
    process (tests) gets None and exports nothing, rather than overwriting
    the first one's values. :func:`release_default_gauges` hands them back.
    """
    global _default, _default_claimed
    if _default_claimed:
        return None
    if _default is None:
        _default = JournalGauges()
    _default_claimed = True
    return _default


def release_default_gauges(gauges: JournalGauges) -> None:
    """Give back what :func:`claim_default_gauges` handed out (cleared first)."""
    global _default_claimed
    gauges.clear()
    if gauges is _default:
        _default_claimed = False


async def keep_gauges(
    gauges: JournalGauges, stats: Callable[[], JournalStats], interval_seconds: float
) -> None:
    """Set ``gauges`` from ``stats()`` every ``interval_seconds`` (s) until cancelled
    (the journal's ``metrics_interval_seconds``)."""
    while True:
        await asyncio.sleep(interval_seconds)
        try:
            gauges.update(stats())
        except Exception as exc:  # noqa: BLE001 - a metrics glitch must not stop the journal
            log.warning("journal_metrics_failed", error=repr(exc))
