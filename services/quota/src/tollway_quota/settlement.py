"""Settlement, the pure part: which usage events settle a reservation, with what.

Rule (DESIGN.md "Reservations", "Usage event"): each terminal event
(``completed`` or ``failed``) that carries a ``reservation`` settles the
call's reservation to its actual tokens and cost, once per request id (the
settle script enforces "once", so a redelivered event changes nothing).
``started`` events and terminal events without ``reservation`` (calls refused
before admission reserved anything) need nothing.

No Kafka or Valkey here (:mod:`tollway_quota.consumer` does the I/O).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import msgspec

from tollway_contracts.events import SCHEMA_VERSION, UsageEvent, decode_usage_event


class Poison(ValueError):
    """The message cannot be processed, ever: it goes to the DLQ with ``reason``."""


@dataclass(frozen=True, slots=True)
class SettleCommand:
    """Settle one call's reservation.

    Attributes:
        tenant_id, request_id, key_id: identity (request id as UUID text).
        tokens: actual total tokens (``total_tokens``, else prompt + completion, else 0).
        cost_micro_usd: actual cost, micro-USD (0 when the event has none).
        model: the requested model (alerts on model-narrowed limits).
        event: the parsed event.
    """

    tenant_id: str
    request_id: str
    key_id: str
    tokens: int
    cost_micro_usd: int
    model: str
    event: UsageEvent


class SettleOutcome(Protocol):
    """What a :class:`Settler` reports; ``status`` is ``settled``,
    ``already_settled`` or ``unknown`` (``tollway_admission.SettleResult``)."""

    @property
    def status(self) -> str: ...


class Settler(Protocol):
    """Settles a reservation exactly once per request id
    (``tollway_admission.Admission.settle`` satisfies it).

    Raises:
        redis.exceptions.RedisError (or any error): transient; the consumer
            retries and does not commit the offset meanwhile.
    """

    async def settle(
        self, *, tenant_id: str, request_id: str, tokens: int, cost_micro_usd: int
    ) -> SettleOutcome: ...


def actual_tokens(event: UsageEvent) -> int:
    """The call's actual tokens: ``total_tokens``, else ``prompt + completion``, else 0."""
    if event.total_tokens is not None:
        return event.total_tokens
    return (event.prompt_tokens or 0) + (event.completion_tokens or 0)


def plan_settlement(value: bytes | None) -> SettleCommand | None:
    """Decide what one ``tollway.usage.v1`` message value asks of settlement.

    Returns:
        A :class:`SettleCommand`, or None when the event needs no settlement
        (``started``; terminal without ``reservation``).

    Raises:
        Poison: null value, not JSON, unknown schema version, invalid event.
    """
    if value is None:
        raise Poison("null message value (tombstone)")
    try:
        event = decode_usage_event(value)  # the contract's tolerant decoder, one pass
    except msgspec.ValidationError as exc:
        # A ``started`` event of the right schema version settles nothing, so an
        # invalid one is skipped, not dead-lettered (as when it was skipped after
        # a cheap JSON look). Every event that settles was fully validated above.
        if _is_started(value):
            return None
        raise Poison(f"invalid usage event: {_one_line(exc)}") from exc
    except msgspec.DecodeError as exc:
        raise Poison(f"invalid usage event: {_one_line(exc)}") from exc
    if not event.is_terminal or event.reservation is None:
        return None
    return SettleCommand(
        tenant_id=event.tenant_id,
        request_id=str(event.request_id),
        key_id=event.key_id,
        tokens=actual_tokens(event),
        cost_micro_usd=event.cost_micro_usd or 0,
        model=event.model,
        event=event,
    )


def _is_started(value: bytes) -> bool:
    data = msgspec.json.decode(value)
    return (
        isinstance(data, dict)
        and data.get("type") == "started"
        and data.get("schema_version", SCHEMA_VERSION) == SCHEMA_VERSION
    )


def _one_line(exc: Exception, limit: int = 500) -> str:
    text = " ".join(str(exc).split())
    return text[:limit]
