"""The usage event, schema version 1 (DESIGN.md "Usage event").

One JSON object per Kafka message on ``tollway.usage.v1``, keyed by
``request_id``. A call produces ``started`` (before the provider call) and one
terminal event (``completed`` or ``failed``); a call refused after
authentication produces a single ``failed``. Every event of a call carries the
same ``request_id`` and the same ``ts_start``.

Producers are strict (:class:`UsageEvent` forbids unknown fields and checks
types); consumers are tolerant (:func:`parse_usage_event` ignores fields they
do not know, so additive changes keep version 1).

Token fields use OpenAI's meaning: ``prompt_tokens`` includes
``cached_tokens``; ``completion_tokens`` includes ``reasoning_tokens``.
Money is integer micro-USD. Times are UTC, RFC 3339 with microseconds.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

import orjson
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    model_validator,
)

SCHEMA_VERSION = 1

EventType = Literal["started", "completed", "failed"]
TERMINAL_TYPES: frozenset[str] = frozenset({"completed", "failed"})


def format_ts(value: datetime) -> str:
    """Render a UTC datetime as RFC 3339 with microseconds and ``Z``.

    Example: ``2026-11-29T19:20:54.000123Z``.

    Raises:
        ValueError: ``value`` is naive (has no tzinfo).
    """
    if value.tzinfo is None:
        raise ValueError("timestamps must be timezone-aware (UTC)")
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _to_utc(value: datetime) -> datetime:
    if value.tzinfo is None:
        raise ValueError("timestamps must carry a UTC offset (RFC 3339)")
    return value.astimezone(UTC)


UtcDatetime = Annotated[
    datetime,
    AfterValidator(_to_utc),
    PlainSerializer(format_ts, return_type=str, when_used="json"),
]

NonNegInt = Annotated[int, Field(ge=0)]
NonNegFloat = Annotated[float, Field(ge=0)]


class ScopeReservation(BaseModel):
    """What admission reserved on one scope for this call.

    Attributes:
        tokens: tokens reserved against the scope's tokens-per-minute limit.
        cost_micro_usd: spend reserved against the scope's budget, micro-USD.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    tokens: NonNegInt = 0
    cost_micro_usd: NonNegInt = 0


class RedactionSummary(BaseModel):
    """What redaction did to the call's texts (never the values found).

    Attributes:
        mode: the policy mode applied (``detect``, ``redact``, ``block``).
        entities: count of detections per Presidio entity type,
            e.g. ``{"PERSON": 2, "EMAIL_ADDRESS": 1}``.
        cache_hit: True when every text's detections came from the cache.
        cached_texts: how many texts were served from the detection cache.
        total_texts: how many texts were analysed or looked up.
        duration_ms: wall time the edge spent on redaction, ms.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: str
    entities: dict[str, NonNegInt] = Field(default_factory=dict)
    cache_hit: bool = False
    cached_texts: NonNegInt = 0
    total_texts: NonNegInt = 0
    duration_ms: NonNegFloat = 0.0


class UsageEvent(BaseModel):
    """A usage event, schema version 1: the strict producer model.

    Identity: ``event_id`` is unique per event (exact redeliveries are
    recognised by it); ``request_id`` is the call's id (also the response's
    ``x-request-id`` and the Kafka key). ``tenant_id`` and ``key_id`` are
    always known (no event is emitted for unauthenticated calls).

    Fields that do not apply are null: tokens and cost on ``started``;
    ``provider`` when no provider was chosen; ``ts_end`` on ``started``.

    Raises:
        pydantic.ValidationError: on unknown fields, wrong types, negative
            counts, naive timestamps, or a ``started`` event carrying tokens.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal[1] = SCHEMA_VERSION
    type: EventType
    event_id: uuid.UUID = Field(default_factory=uuid.uuid4)
    request_id: uuid.UUID

    tenant_id: str
    team_id: str | None = None
    user_id: str | None = None
    key_id: str

    ts_start: UtcDatetime
    ts_end: UtcDatetime | None = None

    model: str
    provider: str | None = None
    upstream_model: str | None = None
    stream: bool = False
    status_code: int | None = None
    error_type: str | None = None
    attempts: NonNegInt = 0

    prompt_tokens: NonNegInt | None = None
    completion_tokens: NonNegInt | None = None
    cached_tokens: NonNegInt | None = None
    reasoning_tokens: NonNegInt | None = None
    total_tokens: NonNegInt | None = None

    cost_micro_usd: NonNegInt | None = None
    reservation: dict[str, ScopeReservation] | None = None

    latency_ms: NonNegFloat | None = None
    ttft_ms: NonNegFloat | None = None
    overhead_ms: NonNegFloat | None = None
    redaction: RedactionSummary | None = None
    trace_id: str | None = None

    @model_validator(mode="after")
    def _check_shape(self) -> UsageEvent:
        if self.type == "started":
            if any(
                v is not None
                for v in (
                    self.prompt_tokens,
                    self.completion_tokens,
                    self.cost_micro_usd,
                    self.ts_end,
                )
            ):
                raise ValueError("a started event carries no tokens, cost or ts_end")
        elif self.ts_end is None:
            raise ValueError("a terminal event needs ts_end")
        return self

    @property
    def is_terminal(self) -> bool:
        """True for ``completed`` and ``failed``."""
        return self.type in TERMINAL_TYPES

    def to_json(self) -> bytes:
        """Serialise to the wire format (UTF-8 JSON bytes)."""
        return self.model_dump_json().encode()

    def kafka_key(self) -> bytes:
        """The Kafka record key: the request id as text, UTF-8."""
        return str(self.request_id).encode()


class _TolerantUsageEvent(UsageEvent):
    model_config = ConfigDict(extra="ignore", frozen=True)


def parse_usage_event(raw: bytes | str | dict[str, Any]) -> UsageEvent:
    """Parse a usage event as a consumer: unknown fields are ignored.

    Args:
        raw: the Kafka message value (JSON bytes or text) or a decoded dict.

    Returns:
        The event (an instance of a :class:`UsageEvent` subclass).

    Raises:
        ValueError: the value is not JSON, not an object, has a
            ``schema_version`` other than 1, or fails validation
            (``pydantic.ValidationError`` is a ``ValueError``).
    """
    data = orjson.loads(raw) if isinstance(raw, (bytes, str)) else raw
    if not isinstance(data, dict):
        raise ValueError("a usage event is a JSON object")
    version = data.get("schema_version", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        raise ValueError(f"unsupported usage event schema_version {version!r}")
    return _TolerantUsageEvent.model_validate(data)


class DeadLetter(BaseModel):
    """A message a consumer could not process, on ``tollway.usage.dlq.v1``.

    Attributes:
        source_topic, partition, offset: where the message came from.
        consumer_group: the group that gave up on it.
        reason: why, in one line (e.g. the validation error).
        key: the original key as text (lossy for non-UTF-8 keys), or null.
        value: the original value as text (lossy for non-UTF-8 values).
        ts: when it was dead-lettered, UTC.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    source_topic: str
    partition: int
    offset: int
    consumer_group: str
    reason: str
    key: str | None = None
    value: str | None = None
    ts: UtcDatetime


def usage_event_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the usage event v1, as produced."""
    return UsageEvent.model_json_schema(mode="serialization")


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)
