"""The quota service's one settings object (env prefix ``TOLLWAY_QUOTA_``).

Shared connection settings come from the un-prefixed ``TOLLWAY_POSTGRES_DSN``,
``TOLLWAY_VALKEY_URL``, ``TOLLWAY_ADMIN_TOKEN`` and ``TOLLWAY_KEY_PEPPER``.
"""

from __future__ import annotations

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import SettingsConfigDict

from tollway_contracts.principals import INVALIDATION_CHANNEL
from tollway_contracts.topics import ALERTS, QUOTA_CONSUMER_GROUP, USAGE, USAGE_DLQ
from tollway_runtime.settings import (
    AdminTokenSettings,
    ConsumerFetchSettings,
    KafkaSettings,
    PepperSettings,
    PostgresSettings,
    ServiceSettings,
    ValkeySettings,
)


class QuotaSettings(
    ServiceSettings,
    PostgresSettings,
    ValkeySettings,
    KafkaSettings,
    AdminTokenSettings,
    PepperSettings,
    ConsumerFetchSettings,
):
    """Quota settings.

    Attributes:
        port: HTTP port of the admin API and health endpoints
            (``TOLLWAY_QUOTA_PORT``, default 8082, DESIGN.md "Ports").
        host: bind address (``TOLLWAY_QUOTA_HOST``, default 127.0.0.1).
        pool_max_size: Postgres connections at most (``TOLLWAY_QUOTA_POOL_MAX_SIZE``).
        invalidation_channel: Valkey channel for invalidations; the contract's
            channel unless a test isolates itself (``TOLLWAY_QUOTA_INVALIDATION_CHANNEL``).
        consume_usage: run the settlement consumer (``TOLLWAY_QUOTA_CONSUME_USAGE``,
            default true; false serves the admin API only).
        usage_topic, dlq_topic, alerts_topic, consumer_group: Kafka names, the
            contract's unless a test isolates itself.
        dlq_max_per_minute: dead letters per minute before the consumer stops.
        batch_max_records: usage events settled per batch at most (one
            pipeline of settle scripts; ``TOLLWAY_QUOTA_BATCH_MAX_RECORDS``,
            default 2000).
        fetch_min_bytes, fetch_max_wait_ms: how long the broker holds a fetch
            to fill a batch (``TOLLWAY_QUOTA_FETCH_MIN_BYTES``,
            ``TOLLWAY_QUOTA_FETCH_MAX_WAIT_MS``;
            :class:`tollway_runtime.settings.ConsumerFetchSettings`: 256 KiB or 250 ms).
        webhook_queue_size: alerts waiting for webhook delivery at most (more are dropped).
        webhook_timeout_seconds: per POST attempt.
        webhook_attempts: tries per alert.
        webhook_backoff_seconds: first retry delay (doubles, at most 30 s).
        shutdown_timeout_seconds: the consumer's drain deadline at stop.
        reconcile_expired: run the reconciliation of expired reservations
            (``TOLLWAY_QUOTA_RECONCILE_EXPIRED``, default true; one replica at a
            time holds the lock).
        reconcile_interval_seconds: time between sweeps (default 30).
        reconcile_grace_seconds: how long past its deadline a reservation is
            left to its usage event before reconciliation (default 60).
        reconcile_lock_ttl_seconds: lifetime of the one-replica lock (default
            120; longer than a sweep).
        seed_token: bearer token the edges present to
            ``POST /internal/v1/budget-seeds`` (``TOLLWAY_QUOTA_SEED_TOKEN``);
            unset, only the admin token is accepted there. It can only seed
            counters (create-if-absent from the ledger), nothing else.
        migrate_on_start: apply the ``catalog`` migrations at start
            (``TOLLWAY_QUOTA_MIGRATE_ON_START``, default true); false (the Helm
            chart, whose hook Job runs ``python -m tollway_quota.migrate``)
            only checks none is pending and refuses to start otherwise.

    Raises:
        pydantic.ValidationError: ``TOLLWAY_ADMIN_TOKEN`` or
            ``TOLLWAY_KEY_PEPPER`` missing, or a malformed value.
    """

    model_config = SettingsConfigDict(env_prefix="TOLLWAY_QUOTA_", extra="ignore", populate_by_name=True)

    port: int = 8082
    pool_max_size: int = 5
    invalidation_channel: str = INVALIDATION_CHANNEL
    consume_usage: bool = True
    usage_topic: str = USAGE.name
    dlq_topic: str = USAGE_DLQ.name
    alerts_topic: str = ALERTS.name
    consumer_group: str = QUOTA_CONSUMER_GROUP
    dlq_max_per_minute: int = Field(default=60, ge=1)
    batch_max_records: int = Field(default=2000, ge=1)
    webhook_queue_size: int = Field(default=1000, ge=1)
    webhook_timeout_seconds: float = Field(default=5.0, gt=0)
    webhook_attempts: int = Field(default=5, ge=1)
    webhook_backoff_seconds: float = Field(default=0.5, ge=0)
    shutdown_timeout_seconds: float = Field(default=10.0, gt=0)
    reconcile_expired: bool = True
    reconcile_interval_seconds: float = Field(default=30.0, gt=0)
    reconcile_grace_seconds: float = Field(default=60.0, ge=0)
    reconcile_lock_ttl_seconds: float = Field(default=120.0, gt=0)
    seed_token: SecretStr | None = None
    migrate_on_start: bool = True

    @field_validator("admin_token", "key_pepper")
    @classmethod
    def _not_empty(cls, value: SecretStr) -> SecretStr:
        # An empty admin token would let "Bearer " in; an empty pepper makes
        # hashes unkeyed.
        if not value.get_secret_value().strip():
            raise ValueError("must not be empty")
        return value
