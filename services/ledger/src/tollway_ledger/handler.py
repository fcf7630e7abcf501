"""The pure batch handler: Kafka-free, Postgres-free.

``handle(messages) -> Effects`` turns one fetched batch into what the loop must
do: the events to apply (reduced to at most one ``started`` and one terminal
event per call, first in offset order), the dead letters (with reasons), the
offsets to commit, and in-batch duplicate counts for metrics.

Rules (DESIGN.md "Ledger semantics"): one row per call keyed by
``(ts_start, request_id)``; ``started`` inserts if absent; the FIRST terminal
event applied sets the final values; later terminal events and exact
redeliveries (same ``event_id``) change nothing. Offset order within a
partition is the order of "first"; a call's events share a partition because
the topic is keyed by request id.
"""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple

import msgspec

from tollway_contracts.dead_letter import DeadLetter
from tollway_contracts.events import USAGE_EVENT_FIELDS, UsageEvent, decode_usage_event
from tollway_runtime.dlq import DlqLimit as DlqLimit  # re-exported for the loop and tests
from tollway_runtime.dlq import DlqLimitExceeded as DlqLimitExceeded  # re-exported likewise

_ENCODE = msgspec.json.encode

# Events whose ts_start falls outside this range are poison: they would create
# absurd partitions (or none could hold them).
MIN_TS_START = datetime(2000, 1, 1, tzinfo=UTC)
MAX_TS_START = datetime(3000, 1, 1, tzinfo=UTC)

# Staging-table columns, in the order of :func:`stage_record`: ``seq`` (apply
# order), then every field of the contract's Struct in its order, except
# ``schema_version`` (always 1) and with ``type`` named ``event_type``. jsonb
# fields (``reservation``, ``redaction``, ``attempt_details``, ``shadow_refusals``)
# are staged as JSON text and cast in SQL.
_STRUCT_FIELDS = tuple(f for f in USAGE_EVENT_FIELDS if f != "schema_version")
STAGE_COLUMNS: tuple[str, ...] = ("seq", *("event_type" if f == "type" else f for f in _STRUCT_FIELDS))
JSON_FIELDS: tuple[str, ...] = ("reservation", "redaction", "attempt_details", "shadow_refusals")
_JSON_FIELDS = JSON_FIELDS
# Columns whose table type is integer (int4) rather than bigint.
_INT4_COLUMNS = ("status_code", "attempts")


def _pg_type(name: str, t: msgspec.inspect.Type) -> str:
    if isinstance(t, msgspec.inspect.UnionType):  # ``X | None``
        (t,) = (u for u in t.types if not isinstance(u, msgspec.inspect.NoneType))
    if name in _JSON_FIELDS:
        return "text"
    if isinstance(t, msgspec.inspect.IntType):
        return "integer" if name in _INT4_COLUMNS else "bigint"
    types: dict[type[msgspec.inspect.Type], str] = {
        msgspec.inspect.LiteralType: "text",
        msgspec.inspect.StrType: "text",
        msgspec.inspect.UUIDType: "uuid",
        msgspec.inspect.DateTimeType: "timestamptz",
        msgspec.inspect.BoolType: "boolean",
        msgspec.inspect.FloatType: "double precision",
    }
    return types[type(t)]


_EVENT_INFO = msgspec.inspect.type_info(UsageEvent)
assert isinstance(_EVENT_INFO, msgspec.inspect.StructType)
STAGE_COLUMN_TYPES: dict[str, str] = {"seq": "integer"} | {
    ("event_type" if f.name == "type" else f.name): _pg_type(f.name, f.type)
    for f in _EVENT_INFO.fields
    if f.name != "schema_version"
}
"""Postgres type of each staging column, derived from the Struct's field types."""


class Message(NamedTuple):
    """One Kafka record as the handler sees it (no Kafka types). A NamedTuple:
    built once per record on the hot path, where a frozen dataclass costs
    several times more.

    Attributes:
        topic, partition, offset: where it came from.
        key, value: the raw bytes (either may be None).
    """

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None


CallKey = tuple[datetime, uuid.UUID]


class StagedEvent(NamedTuple):
    """A valid usage event as the ledger stores it (a NamedTuple, for speed).

    Attributes:
        type: ``started``, ``completed`` or ``failed``.
        event_id, request_id: UUIDs.
        ts_start: aware UTC.
        row: the staging-table values in ``STAGE_COLUMNS[1:]`` order
            (``row[0]`` is the type).
    """

    type: str
    event_id: uuid.UUID
    request_id: uuid.UUID
    ts_start: datetime
    row: tuple[Any, ...]


_ROW_SLICE = slice(USAGE_EVENT_FIELDS.index("type"), None)
_JSON_POSITIONS = tuple(_STRUCT_FIELDS.index(f) for f in _JSON_FIELDS)


def stage_row(event: UsageEvent) -> tuple[Any, ...]:
    """The staging row (``STAGE_COLUMNS[1:]`` order) of an event: its Struct
    fields in order, ``reservation`` and ``redaction`` as JSON text."""
    row = list(msgspec.structs.astuple(event)[_ROW_SLICE])
    for i in _JSON_POSITIONS:
        value = row[i]
        if value is not None:
            row[i] = _ENCODE(value).decode()
    return tuple(row)


def staged(event: UsageEvent) -> StagedEvent:
    """An event in the ledger's staging form."""
    return StagedEvent(event.type, event.event_id, event.request_id, event.ts_start, stage_row(event))


def parse_staged(raw: bytes) -> StagedEvent:
    """Decode a message value with the contract's tolerant decoder into a
    :class:`StagedEvent`.

    Raises:
        ValueError: the value is not a valid usage event v1
            (``msgspec.ValidationError``/``DecodeError``, with the reason).
    """
    return staged(decode_usage_event(raw))


@dataclass(slots=True)
class Effects:
    """What one batch asks the loop to do.

    Attributes:
        started: ``started`` events to insert-if-absent, at most one per call.
        terminal: terminal events to apply, at most one per call (the first in
            offset order).
        dead_letters: poison messages to publish on the DLQ topic.
        commit_offsets: ``(topic, partition) -> next offset`` to commit after
            the DB transaction (last offset seen + 1).
        outcomes: counts by ``(event type, outcome)`` decided here
            (``duplicate``, ``ignored``, ``dead_lettered``); the store decides
            the rest.
        size: number of messages in the batch.
    """

    started: list[StagedEvent] = field(default_factory=list)
    terminal: list[StagedEvent] = field(default_factory=list)
    dead_letters: list[DeadLetter] = field(default_factory=list)
    commit_offsets: dict[tuple[str, int], int] = field(default_factory=dict)
    outcomes: Counter[tuple[str, str]] = field(default_factory=Counter)
    size: int = 0

    @property
    def events(self) -> list[StagedEvent]:
        """Every event to stage: started first, then terminal."""
        return self.started + self.terminal


def call_key(event: StagedEvent | UsageEvent) -> CallKey:
    """The ledger row key of an event's call: ``(ts_start, request_id)``."""
    return (event.ts_start, event.request_id)


def _text(raw: bytes | None) -> str | None:
    return None if raw is None else raw.decode("utf-8", errors="replace")


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:1000]


_INT4_MAX = 2**31 - 1
_INT8_MAX = 2**63 - 1


_COLUMN_INDEX = {name: i for i, name in enumerate(STAGE_COLUMNS[1:])}
_INT8_COLUMNS = (
    "prompt_tokens",
    "completion_tokens",
    "cached_tokens",
    "reasoning_tokens",
    "total_tokens",
    "cost_micro_usd",
)


def _range_problem(event: StagedEvent, check_nul: bool = True) -> str | None:
    """Why ``event`` cannot be stored (a value outside its column's range, or
    a NUL character Postgres text/jsonb refuses), or None."""
    row = event.row
    if not (MIN_TS_START <= event.ts_start < MAX_TS_START):
        return f"ts_start out of range: {event.ts_start.isoformat()}"
    ts_end = row[_COLUMN_INDEX["ts_end"]]
    if ts_end is not None and not (MIN_TS_START <= ts_end < MAX_TS_START):
        return f"ts_end out of range: {ts_end.isoformat()}"
    for name in _INT4_COLUMNS:
        value = row[_COLUMN_INDEX[name]]
        if value is not None and not (-_INT4_MAX <= value <= _INT4_MAX):
            return f"{name} out of range: {value}"
    for name in _INT8_COLUMNS:
        value = row[_COLUMN_INDEX[name]]
        if value is not None and value > _INT8_MAX:
            return f"{name} out of range: {value}"
    for name, value in zip(STAGE_COLUMNS[1:], row, strict=True) if check_nul else ():
        if type(value) is str and ("\x00" in value or "\\u0000" in value):
            return f"{name} contains a NUL character"
    return None


def handle(messages: list[Message], *, consumer_group: str, now: datetime | None = None) -> Effects:
    """Reduce a batch of raw messages to effects.

    Args:
        messages: the batch, in any partition order; offsets ascend within a
            partition.
        consumer_group: recorded on dead letters.
        now: the dead-letter timestamp (UTC); defaults to the current time.

    Returns:
        :class:`Effects`. Never raises for bad input: unparseable or invalid
        messages become dead letters with the reason.
    """
    now = now or datetime.now(UTC)
    effects = Effects(size=len(messages))
    started: dict[CallKey, StagedEvent] = {}
    terminal: dict[CallKey, StagedEvent] = {}
    for msg in sorted(messages, key=lambda m: (m.topic, m.partition, m.offset)):
        tp = (msg.topic, msg.partition)
        effects.commit_offsets[tp] = max(effects.commit_offsets.get(tp, 0), msg.offset + 1)
        reason: str | None = None
        event: StagedEvent | None = None
        if msg.value is None:
            reason = "empty value (tombstone)"
        else:
            try:
                event = parse_staged(msg.value)
            except ValueError as exc:
                reason = f"invalid usage event: {_one_line(exc)}"
            else:
                # A NUL can only arrive JSON-escaped; scan the raw bytes once
                # and look field by field only when it is there.
                reason = _range_problem(event, check_nul=b"\\u0000" in msg.value)
                if reason is not None:
                    event = None
        if event is None:
            effects.dead_letters.append(
                DeadLetter(
                    source_topic=msg.topic,
                    partition=msg.partition,
                    offset=msg.offset,
                    consumer_group=consumer_group,
                    reason=reason or "unknown",
                    key=_text(msg.key),
                    value=_text(msg.value),
                    ts=now,
                )
            )
            effects.outcomes[("unknown", "dead_lettered")] += 1
            continue
        bucket = started if event.type == "started" else terminal
        key = call_key(event)
        kept = bucket.get(key)
        if kept is None:
            bucket[key] = event
        else:
            outcome = "duplicate" if kept.event_id == event.event_id else "ignored"
            effects.outcomes[(event.type, outcome)] += 1
    effects.started = list(started.values())
    effects.terminal = list(terminal.values())
    return effects


def stage_record(seq: int, event: StagedEvent | UsageEvent) -> tuple[Any, ...]:
    """One staging-table row for ``event``, in :data:`STAGE_COLUMNS` order.

    Args:
        seq: the event's position in the batch (its apply order).
    """
    row = event.row if isinstance(event, StagedEvent) else stage_row(event)
    return (seq, *row)


def months_of(events: list[StagedEvent] | list[UsageEvent]) -> set[datetime]:
    """The distinct UTC month starts of the events' ``ts_start`` (partitions needed)."""
    return {
        e.ts_start.astimezone(UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0) for e in events
    }
