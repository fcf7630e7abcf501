"""The reporting service's one settings object (env prefix ``TOLLWAY_REPORTING_``).

Shared settings come from the un-prefixed ``TOLLWAY_POSTGRES_DSN`` (locally the
main DSN; in production the login role ``tollway_reporting``, member of
``tollway_reader`` and ``tollway_token_verifier``, on a read replica),
``TOLLWAY_ADMIN_TOKEN`` (sees every tenant) and ``TOLLWAY_KEY_PEPPER`` (to
verify reporting tokens, which quota hashes with it).
"""

from __future__ import annotations

from pydantic import SecretStr, field_validator
from pydantic_settings import SettingsConfigDict

from tollway_runtime.settings import AdminTokenSettings, PepperSettings, PostgresSettings, ServiceSettings


class ReportingSettings(ServiceSettings, PostgresSettings, AdminTokenSettings, PepperSettings):
    """Reporting settings.

    Attributes:
        port: HTTP port (``TOLLWAY_REPORTING_PORT``, default 8083, DESIGN.md "Ports").
        host: bind address (``TOLLWAY_REPORTING_HOST``, default 127.0.0.1).
        pool_max_size: Postgres connections at most (``TOLLWAY_REPORTING_POOL_MAX_SIZE``).
        token_cache_seconds: how long a verified (or unknown) reporting token
            is trusted before it is re-read, seconds; a revoke takes effect
            within this delay (``TOLLWAY_REPORTING_TOKEN_CACHE_SECONDS``).
        statement_timeout_ms: Postgres statement timeout per query, ms.
        max_rows: most rows one report may return; more is a 400 asking to
            narrow the query (``TOLLWAY_REPORTING_MAX_ROWS``).

    Raises:
        pydantic.ValidationError: ``TOLLWAY_ADMIN_TOKEN`` or
            ``TOLLWAY_KEY_PEPPER`` missing or empty, or a malformed value.
    """

    model_config = SettingsConfigDict(env_prefix="TOLLWAY_REPORTING_", extra="ignore", populate_by_name=True)

    port: int = 8083
    pool_max_size: int = 5
    token_cache_seconds: float = 5.0
    statement_timeout_ms: int = 30_000
    max_rows: int = 100_000

    @field_validator("admin_token", "key_pepper")
    @classmethod
    def _not_empty(cls, value: SecretStr) -> SecretStr:
        # An empty admin token would let "Bearer " in; an empty pepper makes
        # hashes unkeyed.
        if not value.get_secret_value().strip():
            raise ValueError("must not be empty")
        return value
