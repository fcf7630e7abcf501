"""Edge settings: one typed object, read from the environment before anything starts."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import SettingsConfigDict

from tollway_edge.config import EdgeConfig
from tollway_edge.journal import FullPolicy, JournalSettings
from tollway_runtime.secret import Secret
from tollway_runtime.settings import (
    KafkaSettings,
    PepperSettings,
    PostgresSettings,
    ServiceSettings,
    ValkeySettings,
    shared,
)

MIB = 1024 * 1024


class EdgeSettings(ServiceSettings, PostgresSettings, ValkeySettings, KafkaSettings, PepperSettings):
    """Settings of the edge (env prefix ``TOLLWAY_EDGE_``; shared names un-prefixed).

    Attributes:
        port: listening port (``TOLLWAY_EDGE_PORT``, default 8080).
        catalogue_path: the routing catalogue YAML (``TOLLWAY_CATALOGUE_PATH``).
        catalogue_poll_interval_seconds: how often the catalogue file is
            checked for a change (``catalogue_live``; SIGHUP checks at once), s.
        catalogue_retire_seconds: how long the provider sessions of a
            provider a reload removed or changed stay open for the calls
            still using them, s.
        max_body_bytes: largest request body accepted, bytes; larger is a 413.
        version_poll_interval_seconds: how often the principals version is
            checked (the fallback when an invalidation message is lost), s.
        negative_cache_size: how many unknown key ids are remembered.
        max_in_flight: calls served at once by this process; beyond it the
            edge answers 503 with ``Retry-After`` (DESIGN.md "Load shedding").
        kafka_linger_ms: the journal's shipper waits this long after being
            woken, and after a pass that shipped only a trickle, before it
            reads and produces again, ms (default 200; off the call's path:
            it delays an event's arrival in Kafka, never a call). Larger
            means fewer, fuller produce requests and consumer fetches: less
            broker CPU per call (docs/edge-performance.md "Whole-stack CPU
            per call").
        usage_topic: the topic usage events go to (tests use a fresh one).
        accept_grace_seconds: after SIGTERM, ``/readyz`` is 503 and the listener
            keeps accepting this long (load balancers catch up), s
            (``TOLLWAY_EDGE_ACCEPT_GRACE_SECONDS``; ``drain`` module).
        drain_deadline_seconds: then in-flight calls and streams may finish
            this long; streams still running end with a ``server_shutting_down``
            error event and are billed (estimated), s
            (``TOLLWAY_EDGE_DRAIN_DEADLINE_SECONDS``).
        quota_url: quota's base URL (``TOLLWAY_EDGE_QUOTA_URL``): a cold budget
            counter is seeded by quota (``POST /internal/v1/budget-seeds``),
            never by the edge reading the ledger. Empty: cold budget counters
            cannot be seeded (the local bound, or 503 in ``refuse`` mode).
        quota_seed_token: the bearer token of that endpoint
            (``TOLLWAY_QUOTA_SEED_TOKEN``, the same variable quota reads).
        journal_dir: root of the usage journal (``TOLLWAY_EDGE_JOURNAL_DIR``);
            each worker process keeps its own ``w-<pid>-<hex>`` directory under
            it and adopts any a dead process left. A local file system (in
            Kubernetes the pod's persistent volume). Default ``.tollway/journal``.
        journal_flush_seconds: at stop, after the drain (``drain`` module), time to
            ship the journal to Kafka (``TOLLWAY_EDGE_JOURNAL_FLUSH_SECONDS``);
            what is not acknowledged by then stays on disk for the next life, s.
        journal_segment_bytes, journal_max_bytes, journal_reserve_bytes,
        journal_fsync_interval_ms, journal_full_policy, journal_max_record_bytes,
        journal_adopt_interval_seconds, journal_progress_interval_ms: the journal's knobs, as
            :class:`tollway_edge.journal.JournalSettings` documents them
            (``TOLLWAY_EDGE_JOURNAL_MAX_BYTES`` etc.); :attr:`journal` builds it.
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
        admission_max_connections: redis-py's pool size per node of the admission
            client on a cluster URL (one node: ``tollway_admission.NodeClient``,
            one pipelined connection, no pool).
        admission_pipelined: run the scripts over their own pipelined connection
            (``tollway_admission.PipelinedClient``); false: they share the
            admission client's (a cluster always uses redis-py's cluster client).
        redactor_urls: comma-separated redactor base URLs
            (``TOLLWAY_EDGE_REDACTOR_URLS``); calls go round-robin with
            failover to the next URL on a connection error. Empty: a call
            whose policy is not ``off`` is refused with 503 (fail closed).
        redaction_deadline_ms: time allowed for the redactor's answer, ms;
            beyond it the call is refused with 503 and nothing is sent.
        response_state_ttl_seconds: how long the edge remembers which
            deployment holds a stored response (``POST /v1/responses``'s
            ``id`` → deployment, in Valkey; ``endpoints.response_state``), s
            (``TOLLWAY_EDGE_RESPONSE_STATE_TTL_SECONDS``; default 30 days,
            OpenAI's retention of stored responses).
        response_state_timeout_seconds: bound on one Valkey round trip of that
            record, s; a lookup beyond it is a 503.
        answer_holdback_chars: under a policy that scans answers
            (``answers: redact|block``), characters of a streamed answer held
            back at most after the last sentence end (``streaming.holdback``).
    """

    model_config = SettingsConfigDict(env_prefix="TOLLWAY_EDGE_", extra="ignore", populate_by_name=True)

    port: int = 8080
    catalogue_path: str = shared("catalogue_path", default="infra/catalogue.yaml")
    catalogue_poll_interval_seconds: float = Field(default=1.0, gt=0)
    catalogue_retire_seconds: float = Field(default=900.0, ge=0)
    max_body_bytes: int = Field(default=4 * 1024 * 1024, ge=1024)
    version_poll_interval_seconds: float = Field(default=1.0, gt=0)
    negative_cache_size: int = Field(default=10_000, ge=1)
    max_in_flight: int = Field(default=4096, ge=1)
    kafka_linger_ms: int = Field(default=200, ge=0)
    usage_topic: str = "tollway.usage.v1"
    accept_grace_seconds: float = Field(default=3.0, ge=0)
    drain_deadline_seconds: float = Field(default=25.0, gt=0)
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
    response_state_ttl_seconds: int = Field(default=30 * 24 * 3600, ge=1)
    response_state_timeout_seconds: float = Field(default=0.5, gt=0)
    answer_holdback_chars: int = Field(default=64, ge=1)
    quota_url: str = "http://127.0.0.1:8082"
    quota_seed_token: SecretStr = shared("quota_seed_token", default=SecretStr(""))
    journal_dir: Path = Path(".tollway/journal")
    journal_flush_seconds: float = Field(default=10.0, gt=0)
    journal_segment_bytes: int = Field(default=16 * MIB, ge=4096)
    journal_max_bytes: int = Field(default=1024 * MIB, ge=8192)
    journal_reserve_bytes: int = Field(default=16 * MIB, ge=0)
    journal_fsync_interval_ms: int = Field(default=200, ge=1)
    journal_full_policy: FullPolicy = "refuse"
    journal_max_record_bytes: int = Field(default=256 * 1024, ge=64, le=500_000)
    journal_adopt_interval_seconds: float = Field(default=10.0, ge=0)
    journal_progress_interval_ms: int = Field(default=1000, ge=1)

    @model_validator(mode="after")
    def _journal_bounds(self) -> EdgeSettings:
        self.journal  # noqa: B018 - builds JournalSettings: its cross-field checks fail the load
        return self

    @property
    def journal(self) -> JournalSettings:
        """The usage journal's settings, built from the ``journal_*`` fields."""
        return self.config().journal

    @property
    def redactor_url_list(self) -> list[str]:
        """``redactor_urls`` split on commas, blanks dropped."""
        return self.config().redactor_url_list

    def config(self) -> EdgeConfig:
        """These validated settings as plain values (:mod:`tollway_edge.config`): what
        ``create_app``, the drain and the worker processes use."""
        values = {f.name: getattr(self, f.name) for f in fields(EdgeConfig)}
        for name, value in values.items():
            if isinstance(value, SecretStr):
                values[name] = Secret(value.get_secret_value())
        return EdgeConfig(**values)
