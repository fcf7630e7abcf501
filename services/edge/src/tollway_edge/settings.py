"""Edge settings: one typed object, read from the environment before anything starts."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from tollway_runtime.settings import (
    KafkaSettings,
    PepperSettings,
    PostgresSettings,
    ServiceSettings,
    ValkeySettings,
    shared,
)


class EdgeSettings(ServiceSettings, PostgresSettings, ValkeySettings, KafkaSettings, PepperSettings):
    """Settings of the edge (env prefix ``TOLLWAY_EDGE_``; shared names un-prefixed).

    Attributes:
        port: listening port (``TOLLWAY_EDGE_PORT``, default 8080).
        catalogue_path: the routing catalogue YAML (``TOLLWAY_CATALOGUE_PATH``).
        max_body_bytes: largest request body accepted, bytes; larger is a 413.
        version_poll_interval_seconds: how often the principals version is
            checked (the fallback when an invalidation message is lost), s.
        negative_cache_size: how many unknown key ids are remembered.
        max_in_flight: calls served at once by this process; beyond it the
            edge answers 503 with ``Retry-After`` (DESIGN.md "Load shedding").
        usage_queue_size: usage events waiting for the Kafka producer; beyond
            it events are dropped and counted (never blocking a call).
        kafka_linger_ms: how long usage events are collected before being
            handed to Kafka in one batch per partition, ms (off the call's path).
        usage_topic: the topic usage events go to (tests use a fresh one).
        shutdown_drain_seconds: time allowed to flush usage events at stop, s.
        workers: edge processes this command runs, all serving one port with
            SO_REUSEPORT (the kernel spreads connections over them); 0 = one
            per CPU core. Each is a whole edge (own snapshot, Kafka producer,
            Valkey connection); nothing a call needs is shared between them.
        admission_enabled: False skips admission entirely (benchmarks only).
        stream_allowance_tokens: completion tokens a stream reserves at admission.
        stream_extend_tokens: completion tokens each stream extension reserves.
        admission_failure_mode: while Valkey is unreachable, ``local`` (serve
            under a per-process share of every limit) or ``refuse`` (503).
        expected_processes: edge processes sharing each limit; the local share
            is ``limit // expected_processes``.
        admission_timeout_seconds: socket timeout of one Valkey command, s;
            beyond it Valkey counts as unreachable.
        admission_probe_interval_seconds: how often Valkey is re-tried while down, s.
        admission_max_connections: Valkey connection pool size of the admission
            client (seeding and record reads; the scripts use the pipelined connection).
        admission_pipelined: run the scripts over one pipelined connection
            (``tollway_admission.PipelinedClient``); false uses redis-py's pool
            (for comparison benchmarks).
        redactor_urls: comma-separated redactor base URLs
            (``TOLLWAY_EDGE_REDACTOR_URLS``); calls go round-robin with
            failover to the next URL on a connection error. Empty: a call
            whose policy is not ``off`` is refused with 503 (fail closed).
        redaction_deadline_ms: time allowed for the redactor's answer, ms;
            beyond it the call is refused with 503 and nothing is sent.
    """

    model_config = SettingsConfigDict(env_prefix="TOLLWAY_EDGE_", extra="ignore", populate_by_name=True)

    port: int = 8080
    catalogue_path: str = shared("catalogue_path", default="infra/catalogue.yaml")
    max_body_bytes: int = Field(default=4 * 1024 * 1024, ge=1024)
    version_poll_interval_seconds: float = Field(default=1.0, gt=0)
    negative_cache_size: int = Field(default=10_000, ge=1)
    max_in_flight: int = Field(default=4096, ge=1)
    usage_queue_size: int = Field(default=100_000, ge=1)
    kafka_linger_ms: int = Field(default=50, ge=0)
    usage_topic: str = "tollway.usage.v1"
    shutdown_drain_seconds: float = Field(default=10.0, gt=0)
    workers: int = Field(default=1, ge=0)
    admission_enabled: bool = True
    stream_allowance_tokens: int = Field(default=256, ge=1)
    stream_extend_tokens: int = Field(default=256, ge=1)
    admission_failure_mode: Literal["local", "refuse"] = "local"
    expected_processes: int = Field(default=1, ge=1)
    admission_timeout_seconds: float = Field(default=5.0, gt=0)
    admission_probe_interval_seconds: float = Field(default=0.5, gt=0)
    admission_max_connections: int = Field(default=512, ge=1)
    admission_pipelined: bool = True
    redactor_urls: str = "http://127.0.0.1:8081"
    redaction_deadline_ms: float = Field(default=2000.0, gt=0)

    @property
    def redactor_url_list(self) -> list[str]:
        """``redactor_urls`` split on commas, blanks dropped."""
        return [u.strip() for u in self.redactor_urls.split(",") if u.strip()]
