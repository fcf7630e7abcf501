"""The journal's knobs (one typed model; the edge's settings object embeds or copies them)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

FullPolicy = Literal["refuse", "drop"]

MIB = 1024 * 1024


class JournalSettings(BaseModel):
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
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    root_dir: Path = Path(".tollway/journal")
    segment_bytes: int = Field(default=16 * MIB, ge=4096)
    max_bytes: int = Field(default=1024 * MIB, ge=8192)
    reserve_bytes: int = Field(default=16 * MIB, ge=0)
    fsync_interval_ms: int = Field(default=200, ge=1)
    full_policy: FullPolicy = "refuse"
    max_record_bytes: int = Field(default=256 * 1024, ge=64, le=500_000)
    adopt_interval_seconds: float = Field(default=10.0, ge=0)
    progress_interval_ms: int = Field(default=1000, ge=1)

    @model_validator(mode="after")
    def _bounds(self) -> JournalSettings:
        if self.segment_bytes > self.max_bytes:
            raise ValueError("segment_bytes must not exceed max_bytes")
        if self.reserve_bytes >= self.max_bytes:
            raise ValueError("reserve_bytes must be below max_bytes")
        if self.max_record_bytes > self.segment_bytes:
            raise ValueError("max_record_bytes must not exceed segment_bytes")
        return self
