"""The edge's validated settings as plain values, for the processes that serve.

:class:`tollway_edge.settings.EdgeSettings` (pydantic-settings) reads and
validates the environment once, in the process started by the command;
:meth:`~tollway_edge.settings.EdgeSettings.config` copies the result into an
:class:`EdgeConfig`, which is what ``create_app``, the drain and every worker
process use. A worker receives it pickled from the supervisor, so it never
imports pydantic-settings (its import costs a worker ~4 MiB of RSS and ~70
modules: docs/edge-performance.md, "Idle RSS"), nor pydantic: its secrets are
:class:`tollway_runtime.secret.Secret`. No validation happens here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from tollway_runtime.secret import Secret

if TYPE_CHECKING:
    from tollway_edge.journal.settings import FullPolicy, JournalSettings


@dataclass(frozen=True, slots=True, kw_only=True)
class EdgeConfig:
    """Every field of :class:`~tollway_edge.settings.EdgeSettings`, validated,
    with the same names, types and meaning (documented there). A test checks
    that the two name the same fields."""

    key_pepper: Secret
    kafka_bootstrap_servers: str
    valkey_url: str
    postgres_dsn: str
    log_level: str
    log_levels: dict[str, str]
    log_format: Literal["json", "console", "auto"]
    host: str
    port: int
    catalogue_path: str
    catalogue_poll_interval_seconds: float
    catalogue_retire_seconds: float
    max_body_bytes: int
    version_poll_interval_seconds: float
    negative_cache_size: int
    max_in_flight: int
    kafka_linger_ms: int
    usage_topic: str
    accept_grace_seconds: float
    drain_deadline_seconds: float
    workers: int
    admission_enabled: bool
    stream_allowance_tokens: int
    stream_extend_tokens: int
    admission_failure_mode: Literal["local", "refuse"]
    expected_processes: int
    admission_timeout_seconds: float
    admission_probe_interval_seconds: float
    admission_max_connections: int
    admission_pipelined: bool
    redactor_urls: str
    redaction_deadline_ms: float
    response_state_ttl_seconds: int
    response_state_timeout_seconds: float
    answer_holdback_chars: int
    quota_url: str
    quota_seed_token: Secret
    journal_dir: Path
    journal_flush_seconds: float
    journal_segment_bytes: int
    journal_max_bytes: int
    journal_reserve_bytes: int
    journal_fsync_interval_ms: int
    journal_full_policy: FullPolicy
    journal_max_record_bytes: int
    journal_adopt_interval_seconds: float
    journal_progress_interval_ms: int

    @property
    def journal(self) -> JournalSettings:
        """The usage journal's settings, built from the ``journal_*`` fields.

        Raises:
            ValueError: the fields break the journal's
                cross-field rules (``EdgeSettings`` checks this at load).
        """
        from tollway_edge.journal.settings import JournalSettings

        return JournalSettings(
            root_dir=self.journal_dir,
            segment_bytes=self.journal_segment_bytes,
            max_bytes=self.journal_max_bytes,
            reserve_bytes=self.journal_reserve_bytes,
            fsync_interval_ms=self.journal_fsync_interval_ms,
            full_policy=self.journal_full_policy,
            max_record_bytes=self.journal_max_record_bytes,
            adopt_interval_seconds=self.journal_adopt_interval_seconds,
            progress_interval_ms=self.journal_progress_interval_ms,
        )

    @property
    def redactor_url_list(self) -> list[str]:
        """``redactor_urls`` split on commas, blanks dropped."""
        return [u.strip() for u in self.redactor_urls.split(",") if u.strip()]
