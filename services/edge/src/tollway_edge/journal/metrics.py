"""The journal's Prometheus gauges, read from the journal at scrape time (a custom collector).

Depth gauges are computed when scraped rather than set on every append, so
the append path pays nothing for them. Dropped events are counted in the
edge's existing ``tollway_usage_events_dropped_total{reason}`` counter, passed
to the journal (prometheus-client refuses a second collector of that name).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector


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


class JournalCollector(Collector):
    """Exposes :class:`JournalStats` as metrics.

    Metrics:
        tollway_journal_bytes: bytes of every journal this process holds
            (its own and adopted ones), written or about to be.
        tollway_journal_records: records not yet acknowledged by Kafka.
        tollway_journal_oldest_unacked_age_seconds: age of the oldest record
            not yet acknowledged, s (0 when none): the alert hook.
        tollway_journal_full: 1 while new calls should be refused (``refuse``
            policy at its bound, or the journal cannot write).
        tollway_journal_adopted: orphan journals being replayed.
        tollway_journal_kafka_connected: 1 once the producer is connected.
        tollway_journal_appended_total / tollway_journal_acked_total: records
            written / acknowledged by Kafka since start.
    """

    def __init__(self, stats: Callable[[], JournalStats]) -> None:
        self._stats = stats

    def collect(self) -> Iterable[Metric]:
        """One sample of each metric, from a fresh :class:`JournalStats`."""
        st = self._stats()
        yield GaugeMetricFamily("tollway_journal_bytes", "Bytes held in usage journals.", value=st.bytes)
        yield GaugeMetricFamily(
            "tollway_journal_records",
            "Journaled usage events not yet acknowledged by Kafka.",
            value=st.records,
        )
        yield GaugeMetricFamily(
            "tollway_journal_oldest_unacked_age_seconds",
            "Age of the oldest journaled usage event not yet acknowledged by Kafka, seconds.",
            value=st.oldest_unacked_age_seconds,
        )
        yield GaugeMetricFamily(
            "tollway_journal_full", "1 while the journal refuses new calls.", value=1 if st.full else 0
        )
        yield GaugeMetricFamily(
            "tollway_journal_adopted", "Orphan journals being replayed.", value=st.adopted_journals
        )
        yield GaugeMetricFamily(
            "tollway_journal_kafka_connected",
            "1 once the journal's Kafka producer is connected.",
            value=1 if st.kafka_connected else 0,
        )
        yield CounterMetricFamily(
            "tollway_journal_appended", "Usage events written to the journal.", value=st.appended_total
        )
        yield CounterMetricFamily(
            "tollway_journal_acked", "Journaled usage events acknowledged by Kafka.", value=st.acked_total
        )
