"""Settings base shared by every service (pydantic-settings).

Each service defines ONE settings class deriving from :class:`ServiceSettings`
with its own env prefix (``TOLLWAY_EDGE_``, ``TOLLWAY_LEDGER_``, ...). The
connection settings every service shares are read from un-prefixed
``TOLLWAY_*`` names, so one env file configures the whole stack:

- ``TOLLWAY_POSTGRES_DSN``  e.g. ``postgresql://tollway:tollway@127.0.0.1:5432/tollway``
- ``TOLLWAY_VALKEY_URL``    e.g. ``redis://127.0.0.1:6379/0``
- ``TOLLWAY_KAFKA_BOOTSTRAP_SERVERS`` e.g. ``127.0.0.1:9092``
- ``TOLLWAY_ADMIN_TOKEN``, ``TOLLWAY_KEY_PEPPER``, ``TOLLWAY_CATALOGUE_PATH``
- ``TOLLWAY_LOG_LEVEL``, ``TOLLWAY_LOG_FORMAT`` (``json`` | ``console`` | ``auto``)
- ``TOLLWAY_LOG_LEVELS`` (a level per logger: ``tollway_edge.request=warning,aiokafka=error`` or JSON)

No module outside a service's ``settings.py`` reads ``os.environ``.
"""

from __future__ import annotations

import json
import logging
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

_LEVEL_NAMES = ("CRITICAL", "FATAL", "ERROR", "WARNING", "WARN", "INFO", "DEBUG", "NOTSET")


def shared(name: str, **kwargs: Any) -> Any:
    """A field read from the un-prefixed ``TOLLWAY_<NAME>`` variable.

    ``kwargs`` go to ``pydantic.Field`` (``default``, ``ge``, ...). Returns
    ``Any`` as ``Field`` does, so it types as the annotated attribute.
    """
    env = f"TOLLWAY_{name.upper()}"
    return Field(validation_alias=AliasChoices(env, name), **kwargs)


class ServiceSettings(BaseSettings):
    """Fields common to all services; subclass and set ``env_prefix``.

    Raises:
        pydantic.ValidationError: on a missing or malformed value, before
            anything starts (``--check-config`` exits non-zero with it).
    """

    model_config = SettingsConfigDict(extra="ignore", populate_by_name=True)

    log_level: str = shared("log_level", default="INFO")
    log_levels: Annotated[dict[str, str], NoDecode] = shared("log_levels", default_factory=dict)
    """Level per logger name (``TOLLWAY_LOG_LEVELS``), as comma-separated
    ``name=level`` pairs, e.g. ``tollway_edge.request=warning,aiokafka=error``,
    or as a JSON object, e.g. ``{"tollway_ledger.consumer": "DEBUG"}``
    (:func:`parse_log_levels`); a logger without an entry (nor a dotted
    ancestor with one) logs at ``log_level``."""
    log_format: Literal["json", "console", "auto"] = shared("log_format", default="auto")
    host: str = "127.0.0.1"

    @field_validator("log_levels", mode="before")
    @classmethod
    def _log_levels(cls, value: object) -> dict[str, str]:
        return parse_log_levels(value)

    def redacted_json(self) -> str:
        """The settings as indented JSON for ``--check-config``: secrets are
        masked (``SecretStr`` fields print as stars) and so is the password of
        every ``*_dsn`` / ``*_url`` field."""
        data = self.model_dump(mode="json")
        for name, value in data.items():
            if isinstance(value, str) and name.endswith(("_dsn", "_url")):
                data[name] = mask_url_password(value)
        return json.dumps(data, indent=2)


def parse_log_levels(value: object) -> dict[str, str]:
    """``TOLLWAY_LOG_LEVELS`` as ``{logger name: LEVEL}`` (level names upper-cased).

    Accepts a mapping, a JSON object (``{"aiokafka": "error"}``), or
    comma-separated ``name=level`` pairs (``tollway_edge.request=warning,
    aiokafka=error``; blanks ignored); an empty string is no entry.

    Raises:
        ValueError: a pair without ``=``, an empty logger name, or a level
            that is not a stdlib level name (so ``--check-config`` fails
            rather than a typo silently logging at INFO).
    """
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("{"):
            value = json.loads(text)
        else:
            pairs = {}
            for item in filter(None, (part.strip() for part in text.split(","))):
                name, sep, level = item.partition("=")
                if not sep:
                    raise ValueError(f"log level entry {item!r} is not name=level")
                pairs[name.strip()] = level.strip()
            value = pairs
    if not isinstance(value, dict):
        raise ValueError("log_levels must be name=level pairs or a JSON object")
    out: dict[str, str] = {}
    for name, level in value.items():
        upper = str(level).upper()
        if not str(name) or upper not in _LEVEL_NAMES or not isinstance(logging.getLevelName(upper), int):
            raise ValueError(
                f"log level {level!r} for logger {name!r} is not one of {', '.join(_LEVEL_NAMES)}"
            )
        out[str(name)] = upper
    return out


def mask_url_password(url: str) -> str:
    """``scheme://user:secret@host/db`` -> ``scheme://user:***@host/db``; other URLs unchanged."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


class PostgresSettings(BaseSettings):
    """Mixin: the Postgres DSN."""

    postgres_dsn: str = shared("postgres_dsn", default="postgresql://tollway:tollway@127.0.0.1:5432/tollway")


class ValkeySettings(BaseSettings):
    """Mixin: the Valkey (Redis protocol) URL."""

    valkey_url: str = shared("valkey_url", default="redis://127.0.0.1:6379/0")


class KafkaSettings(BaseSettings):
    """Mixin: Kafka bootstrap servers (comma-separated host:port)."""

    kafka_bootstrap_servers: str = shared("kafka_bootstrap_servers", default="127.0.0.1:9092")


class ConsumerFetchSettings(BaseSettings):
    """Mixin: how a usage consumer fetches from Kafka (fields under the service's own prefix,
    e.g. ``TOLLWAY_LEDGER_FETCH_MIN_BYTES``, ``TOLLWAY_QUOTA_FETCH_MAX_WAIT_MS``).

    Every fetched batch costs a fixed amount whatever its size: a fetch and an
    offset commit at the broker, a transaction (ledger) or a pipeline (quota).
    Under a steady trickle of events, a consumer that asks for one byte gets
    a batch per producer flush; asking for more makes the broker hold the fetch
    until that much arrived or the wait passed, so batches grow with the load and
    each event's share of the fixed cost shrinks (docs/edge-performance.md
    "Whole-stack CPU per call").

    Attributes:
        fetch_min_bytes: the broker answers a fetch once this many bytes are
            ready over the fetched partitions (bytes; default 256 KiB, about
            330 usage events). 1 = answer as soon as anything arrives.
        fetch_max_wait_ms: ... or once this long passed (ms; default 250): the
            most a quiet topic delays an event's settlement or ledger row
            beyond the edge's shipping linger.
    """

    fetch_min_bytes: int = Field(default=256 * 1024, ge=1)
    fetch_max_wait_ms: int = Field(default=250, ge=0, le=30_000)

    def fetch_kwargs(self) -> dict[str, int]:
        """The ``AIOKafkaConsumer`` keyword arguments of these settings."""
        return {"fetch_min_bytes": self.fetch_min_bytes, "fetch_max_wait_ms": self.fetch_max_wait_ms}


class AdminTokenSettings(BaseSettings):
    """Mixin: the admin API token (a secret; never logged)."""

    admin_token: SecretStr = shared("admin_token")


class PepperSettings(BaseSettings):
    """Mixin: the server-side pepper for API key hashes (a secret)."""

    key_pepper: SecretStr = shared("key_pepper")
