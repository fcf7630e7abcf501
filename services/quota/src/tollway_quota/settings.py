"""The quota service's one settings object (env prefix ``TOLLWAY_QUOTA_``).

Shared connection settings come from the un-prefixed ``TOLLWAY_POSTGRES_DSN``,
``TOLLWAY_VALKEY_URL``, ``TOLLWAY_ADMIN_TOKEN`` and ``TOLLWAY_KEY_PEPPER``.
"""

from __future__ import annotations

from pydantic import SecretStr, field_validator
from pydantic_settings import SettingsConfigDict

from tollway_contracts.principals import INVALIDATION_CHANNEL
from tollway_runtime.settings import (
    AdminTokenSettings,
    PepperSettings,
    PostgresSettings,
    ServiceSettings,
    ValkeySettings,
)


class QuotaSettings(ServiceSettings, PostgresSettings, ValkeySettings, AdminTokenSettings, PepperSettings):
    """Quota settings.

    Attributes:
        port: HTTP port of the admin API and health endpoints
            (``TOLLWAY_QUOTA_PORT``, default 8082, DESIGN.md "Ports").
        host: bind address (``TOLLWAY_QUOTA_HOST``, default 127.0.0.1).
        pool_max_size: Postgres connections at most (``TOLLWAY_QUOTA_POOL_MAX_SIZE``).
        invalidation_channel: Valkey channel for invalidations; the contract's
            channel unless a test isolates itself (``TOLLWAY_QUOTA_INVALIDATION_CHANNEL``).

    Raises:
        pydantic.ValidationError: ``TOLLWAY_ADMIN_TOKEN`` or
            ``TOLLWAY_KEY_PEPPER`` missing, or a malformed value.
    """

    model_config = SettingsConfigDict(env_prefix="TOLLWAY_QUOTA_", extra="ignore", populate_by_name=True)

    port: int = 8082
    pool_max_size: int = 5
    invalidation_channel: str = INVALIDATION_CHANNEL

    @field_validator("admin_token", "key_pepper")
    @classmethod
    def _not_empty(cls, value: SecretStr) -> SecretStr:
        # An empty admin token would let "Bearer " in; an empty pepper makes
        # hashes unkeyed.
        if not value.get_secret_value().strip():
            raise ValueError("must not be empty")
        return value
