"""The dead letter of the usage topic, and the pydantic timestamp type it shares
with the alert (:mod:`tollway_contracts.alerts`).

Kept apart from :mod:`tollway_contracts.events` so importing the usage event
(the edge does, in every worker) does not import pydantic.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PlainSerializer

from tollway_contracts.events import format_ts


def _to_utc(value: datetime) -> datetime:
    if value.tzinfo is None:
        raise ValueError("timestamps must carry a UTC offset (RFC 3339)")
    return value.astimezone(UTC)


UtcDatetime = Annotated[
    datetime,
    AfterValidator(_to_utc),
    PlainSerializer(format_ts, return_type=str, when_used="json"),
]
"""A pydantic datetime: aware in, UTC, written as :func:`format_ts`."""

PydanticNonNegInt = Annotated[int, Field(ge=0)]
"""A pydantic non-negative int (the alert's counts)."""


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
