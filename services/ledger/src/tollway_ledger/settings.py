"""The ledger's settings: ONE class, env prefix ``TOLLWAY_LEDGER_``.

Shared connection settings come from un-prefixed names
(``TOLLWAY_POSTGRES_DSN``, ``TOLLWAY_KAFKA_BOOTSTRAP_SERVERS``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import SettingsConfigDict

from tollway_contracts.topics import LEDGER_CONSUMER_GROUP, USAGE, USAGE_DLQ
from tollway_runtime.settings import ConsumerFetchSettings, KafkaSettings, PostgresSettings, ServiceSettings


class LedgerSettings(ServiceSettings, PostgresSettings, KafkaSettings, ConsumerFetchSettings):
    """Ledger settings (env ``TOLLWAY_LEDGER_<FIELD>``).

    Attributes:
        health_port: port of ``/healthz``, ``/readyz``, ``/metrics`` (8084).
        topic, dlq_topic, consumer_group: Kafka names (tests override them).
        auto_offset_reset: where a new consumer group starts.
        batch_max_records: most records per ``getmany`` batch (5000; larger
            batches amortise the per-transaction statements, see
            docs/ledger-bench.md).
        max_partition_fetch_bytes: Kafka fetch size per partition, bytes
            (4 MiB, about 5,000 events; aiokafka's 1 MiB default caps batches).
        batch_timeout_ms: longest wait for a batch, ms.
        fetch_min_bytes, fetch_max_wait_ms: how long the broker holds a fetch
            to fill a batch (:class:`tollway_runtime.settings.ConsumerFetchSettings`:
            256 KiB or 250 ms).
        partition_months_ahead: monthly partitions kept ahead of the current
            UTC month (at least 2).
        partition_interval_seconds: how often partitions are ensured (1 h).
        dlq_max_per_window, dlq_window_seconds: the DLQ rate limit: more
            dead letters than this within the window stops the consumer.
        dlq_max_batch_fraction, dlq_min_batch: a batch of at least
            ``dlq_min_batch`` messages with more than this fraction dead stops
            the consumer.
        db_retry_initial_seconds, db_retry_max_seconds: backoff for failed
            Postgres transactions (retried forever; offsets not committed).
        shutdown_timeout_seconds: deadline to finish the current batch at
            shutdown.
        pool_size: asyncpg pool size.
        retention_months: months of ``usage_records`` kept besides the current
            UTC month (13); whole monthly partitions older are dropped; 0 keeps
            everything forever.
        rollup_hourly_retention_months, rollup_daily_retention_months,
            rollup_monthly_retention_months: the same for each rollup table
            (rows deleted by bucket); 0 (default) keeps forever. When set, at
            least ``retention_months`` (rollups never vanish before the rows).
        retention_interval_seconds: how often retention runs (1 h).
        orphan_after_seconds: a call still in flight this long after its
            ``ts_start`` is marked ``orphaned`` (900 s = 15 min).
        orphan_check_interval_seconds: how often orphans are looked for (60 s).
        migrate_on_start: apply the ``ledger`` migrations at start (default
            true); false (the Helm chart, whose hook Job runs
            ``python -m tollway_ledger.migrate``) only checks none is pending
            and refuses to start otherwise.
    """

    model_config = SettingsConfigDict(env_prefix="TOLLWAY_LEDGER_", extra="ignore", populate_by_name=True)

    health_port: int = 8084
    topic: str = USAGE.name
    dlq_topic: str = USAGE_DLQ.name
    consumer_group: str = LEDGER_CONSUMER_GROUP
    auto_offset_reset: Literal["earliest", "latest"] = "earliest"
    batch_max_records: int = Field(default=5000, ge=1)
    max_partition_fetch_bytes: int = Field(default=4 * 1024 * 1024, ge=1024)
    batch_timeout_ms: int = Field(default=500, ge=1)
    partition_months_ahead: int = Field(default=2, ge=2)
    partition_interval_seconds: float = Field(default=3600.0, gt=0)
    dlq_max_per_window: int = Field(default=100, ge=0)
    dlq_window_seconds: float = Field(default=60.0, gt=0)
    dlq_max_batch_fraction: float = Field(default=0.5, ge=0, le=1)
    dlq_min_batch: int = Field(default=20, ge=1)
    db_retry_initial_seconds: float = Field(default=0.2, gt=0)
    db_retry_max_seconds: float = Field(default=10.0, gt=0)
    shutdown_timeout_seconds: float = Field(default=20.0, gt=0)
    pool_size: int = Field(default=4, ge=2)
    retention_months: int = Field(default=13, ge=0)
    rollup_hourly_retention_months: int = Field(default=0, ge=0)
    rollup_daily_retention_months: int = Field(default=0, ge=0)
    rollup_monthly_retention_months: int = Field(default=0, ge=0)
    retention_interval_seconds: float = Field(default=3600.0, gt=0)
    orphan_after_seconds: float = Field(default=900.0, gt=0)
    orphan_check_interval_seconds: float = Field(default=60.0, gt=0)
    migrate_on_start: bool = True

    @model_validator(mode="after")
    def _rollups_outlive_rows(self) -> LedgerSettings:
        for name, months in self.rollup_retention_months.items():
            if months and (self.retention_months == 0 or months < self.retention_months):
                raise ValueError(
                    f"{name} retention ({months} months) must be 0 (forever) or at least "
                    f"retention_months ({self.retention_months}; 0 = forever)"
                )
        return self

    @property
    def rollup_retention_months(self) -> dict[str, int]:
        """Retention per rollup table name, months (0 = forever)."""
        return {
            "usage_rollup_hourly": self.rollup_hourly_retention_months,
            "usage_rollup_daily": self.rollup_daily_retention_months,
            "usage_rollup_monthly": self.rollup_monthly_retention_months,
        }
