"""Records the journal did not keep: counted by reason (for ``stats``), in the
edge's ``tollway_usage_events_dropped_total{reason}`` counter, and logged at
most once per reason per :data:`DROP_LOG_INTERVAL_S`."""

from __future__ import annotations

import time
from collections import Counter as Tally

import structlog
from prometheus_client import Counter

log = structlog.get_logger("tollway_edge.journal")

DROP_LOG_INTERVAL_S = 10.0


class Drops:
    """The journal's dropped records, by reason (``journal_full``,
    ``journal_write_error``, ``too_large``, ``closing``, ``kafka_rejected``).

    Args:
        counter: a Counter with a ``reason`` label, or None (counted only here).
    """

    def __init__(self, counter: Counter | None) -> None:
        self._counter = counter
        self._dropped: Tally[str] = Tally()
        self._logged: dict[str, float] = {}

    def totals(self) -> dict[str, int]:
        """Records dropped since start, by reason."""
        return dict(self._dropped)

    def __call__(self, reason: str, count: int) -> None:
        """Count ``count`` records dropped for ``reason``."""
        self._dropped[reason] += count
        if self._counter is not None:
            self._counter.labels(reason).inc(count)
        now = time.monotonic()
        if now - self._logged.get(reason, -DROP_LOG_INTERVAL_S) >= DROP_LOG_INTERVAL_S:
            self._logged[reason] = now  # at most one line per reason per interval
            log.warning("usage_event_dropped", reason=reason, dropped_total=self._dropped[reason])
