"""The journal's knobs (one typed value; the edge's settings object copies them).

A frozen dataclass checked at construction (the edge's workers never import pydantic)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

FullPolicy = Literal["refuse", "drop"]

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class JournalSettings:
    """Settings of the durable usage journal.

    Attributes:
        root_dir: directory holding one journal directory per worker process
            (``w-<pid>-<hex>``). In Kubernetes, the pod's persistent volume.
            Default ``.tollway/journal`` (relative to the working directory).
        segment_bytes: a segment file is closed and a new one started once it
            holds this many bytes (bytes; default 16 MiB). A segment is
            deleted as a whole once Kafka acknowledged every record in it, so
            this is also the granularity at which disk space comes back.
        max_bytes: upper bound of this process's own journal on disk (bytes;
            default 1 GiB). An append that would pass it is dropped and
            counted (``reason="journal_full"``) whatever the policy.
        reserve_bytes: in ``refuse`` mode, new calls are refused once the
            journal holds more than ``max_bytes - reserve_bytes`` (bytes;
            default 16 MiB), so calls already admitted still have room for
            their terminal events (4,096 in-flight calls × ~4 KiB).
        fsync_interval_ms: written records are fsynced at most this long after
            their write (ms; default 200). A process kill loses nothing that
            was written; a machine crash may lose the last interval.
        full_policy: ``refuse`` (default: ``has_room()`` turns False at the
            bound and the edge answers new calls 503, so no call goes
            unbilled) or ``drop`` (keep serving; every event that does not
            fit is dropped and counted).
        max_record_bytes: an event larger than this is refused by
            :meth:`~tollway_edge.journal.UsageJournal.append` and counted
            (``reason="too_large"``) (bytes of key + value + 12; default
            256 KiB, at most 500,000 so a record fits one Kafka batch under
            the broker's default ``message.max.bytes``).
        adopt_interval_seconds: how often a live process looks for orphan
            journals (left by a dead process) besides at start (s; default
            10; 0 = at start only).
        progress_interval_ms: while a stream is relayed, its completion tokens
            so far are journaled (a local record, ``journal.recovery``) at most
            once per this interval (ms; default 1000). A worker killed
            mid-stream is billed by its adopter from the last one: the
            completion under-counts by at most the tokens relayed in one interval.

    Raises:
        ValueError: a field out of its bounds (below), or the cross-field
            rules (``segment_bytes <= max_bytes``, ``reserve_bytes <
            max_bytes``, ``max_record_bytes <= segment_bytes``) broken.
    """

    root_dir: Path = Path(".tollway/journal")
    segment_bytes: int = 16 * MIB  # >= 4096
    max_bytes: int = 1024 * MIB  # >= 8192
    reserve_bytes: int = 16 * MIB  # >= 0
    fsync_interval_ms: int = 200  # >= 1
    full_policy: FullPolicy = "refuse"
    max_record_bytes: int = 256 * 1024  # 64..500,000
    adopt_interval_seconds: float = 10.0  # >= 0
    progress_interval_ms: int = 1000  # >= 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "root_dir", Path(self.root_dir))
        for name, low in _LOWER_BOUNDS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < low:
                raise ValueError(f"{name} must be a number >= {low}, not {value!r}")
        if self.max_record_bytes > 500_000:
            raise ValueError("max_record_bytes must not exceed 500000")
        if self.full_policy not in ("refuse", "drop"):
            raise ValueError(f"full_policy must be 'refuse' or 'drop', not {self.full_policy!r}")
        if self.segment_bytes > self.max_bytes:
            raise ValueError("segment_bytes must not exceed max_bytes")
        if self.reserve_bytes >= self.max_bytes:
            raise ValueError("reserve_bytes must be below max_bytes")
        if self.max_record_bytes > self.segment_bytes:
            raise ValueError("max_record_bytes must not exceed segment_bytes")


_LOWER_BOUNDS: dict[str, float] = {
    "segment_bytes": 4096,
    "max_bytes": 8192,
    "reserve_bytes": 0,
    "fsync_interval_ms": 1,
    "max_record_bytes": 64,
    "adopt_interval_seconds": 0,
    "progress_interval_ms": 1,
}
