"""Dead-letter rate limit shared by every Kafka consumer (CONVENTIONS.md habit 10).

A consumer that dead-letters poison messages must stop, rather than dead-letter
everything, when a bad deploy makes every message look poisonous (arroyo's
``DlqLimit``).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable


class DlqLimitExceeded(RuntimeError):
    """Too many dead letters: the consumer stops instead of dead-lettering
    everything (CONVENTIONS.md habit 10, arroyo's ``DlqLimit``)."""


class DlqLimit:
    """A dead-letter rate limit.

    Trips when more than ``max_per_window`` dead letters fall within the last
    ``window_seconds``, or when a batch of at least ``min_batch`` messages has
    more than ``max_batch_fraction`` of them dead.

    Args:
        max_per_window: dead letters allowed per window (count).
        window_seconds: window length, seconds.
        max_batch_fraction: 0..1; fraction of a batch allowed to be dead.
        min_batch: batches smaller than this skip the fraction rule.
        clock: monotonic clock, seconds (injectable for tests).
    """

    def __init__(
        self,
        max_per_window: int = 100,
        window_seconds: float = 60.0,
        max_batch_fraction: float = 0.5,
        min_batch: int = 20,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_per_window = max_per_window
        self.window_seconds = window_seconds
        self.max_batch_fraction = max_batch_fraction
        self.min_batch = min_batch
        self._clock = clock
        self._seen: deque[tuple[float, int]] = deque()

    def check(self, dead: int, batch_size: int) -> None:
        """Record ``dead`` dead letters out of ``batch_size`` messages.

        Raises:
            DlqLimitExceeded: the limit is crossed; nothing is recorded then,
                and the caller must not publish or commit this batch.
        """
        if dead == 0:
            return
        if batch_size >= self.min_batch and dead / batch_size > self.max_batch_fraction:
            raise DlqLimitExceeded(
                f"{dead} of {batch_size} messages in one batch are poison "
                f"(limit {self.max_batch_fraction:.0%})"
            )
        now = self._clock()
        while self._seen and self._seen[0][0] <= now - self.window_seconds:
            self._seen.popleft()
        total = sum(n for _, n in self._seen) + dead
        if total > self.max_per_window:
            raise DlqLimitExceeded(
                f"{total} dead letters within {self.window_seconds:g} s (limit {self.max_per_window})"
            )
        self._seen.append((now, dead))
