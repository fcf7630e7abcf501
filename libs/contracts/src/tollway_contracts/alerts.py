"""The budget alert, schema version 1 (DESIGN.md "Kafka topics": ``tollway.alerts.v1``).

One JSON object per Kafka message on ``tollway.alerts.v1``, keyed by the
tenant id, produced by the quota service when a scope's usage crosses one of
its limit's soft thresholds (``thresholds_percent``) or the limit itself, and
POSTed as is to the tenant's webhook when one is configured.

"Once": at most one alert per (scope, model, metric, period, threshold); a
consumer may still see a duplicate after a producer retry, and recognises it
by ``alert_id``, which is derived from exactly that tuple.

Producers are strict (:class:`Alert` forbids unknown fields); consumers parse
with :func:`parse_alert`, which ignores fields they do not know.
"""

from __future__ import annotations

import uuid
from typing import Any, Final, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field

from tollway_contracts.dead_letter import PydanticNonNegInt as NonNegInt
from tollway_contracts.dead_letter import UtcDatetime
from tollway_contracts.limits import ScopeKind

ALERT_SCHEMA_VERSION: Final = 1

AlertMetric = Literal["budget", "tokens", "requests"]
AlertKind = Literal["threshold", "limit"]
AlertSource = Literal["settlement", "admission"]

_ALERT_NS = uuid.UUID("8f3b6d52-5a0e-4c1e-9c57-2f0d3c7a9b10")


def alert_id_for(
    tenant_id: str,
    scope: str,
    scope_id: str,
    model: str | None,
    metric: str,
    period_start: str,
    threshold: int,
) -> uuid.UUID:
    """The deterministic id of one alert: UUIDv5 of the tuple that makes it
    unique (``period_start`` as RFC 3339 text)."""
    name = "|".join((tenant_id, scope, scope_id, model or "", metric, period_start, str(threshold)))
    return uuid.uuid5(_ALERT_NS, name)


class Alert(BaseModel):
    """A scope crossed a threshold of one of its limits.

    Attributes:
        schema_version: 1.
        alert_id: deterministic per (scope, model, metric, period, threshold),
            see :func:`alert_id_for`.
        kind: ``threshold`` (a soft threshold below 100 %) or ``limit``
            (usage reached the limit itself, 100 % or more).
        metric: ``budget`` (micro-USD per budget period), ``tokens`` or
            ``requests`` (per minute).
        source: what observed the crossing: ``settlement`` (quota, after
            settling a call's actual cost) or ``admission`` (the edge).
        tenant_id, scope, scope_id, model: the limit's scope (model null =
            all models).
        threshold_percent: the threshold crossed, percent of ``limit``.
        limit: the limit's value (micro-USD for budgets; tokens or calls per
            minute otherwise).
        used: usage when observed, same unit (for budgets: settled spend in
            the period).
        period: ``day`` | ``week`` | ``month`` for budgets, ``minute``
            otherwise.
        period_start, period_end: the period, UTC (calendar periods follow
            ``time_zone``).
        time_zone: the tenant's IANA time zone.
        shadow: the limit only reports (it never refused a call).
        request_id: the call whose settlement crossed it, when known.
        ts: when the alert was produced, UTC.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal[1] = ALERT_SCHEMA_VERSION
    alert_id: uuid.UUID
    kind: AlertKind
    metric: AlertMetric
    source: AlertSource
    tenant_id: str
    scope: ScopeKind
    scope_id: str
    model: str | None = None
    threshold_percent: int = Field(ge=1)
    limit: NonNegInt
    used: NonNegInt
    period: Literal["minute", "day", "week", "month"]
    period_start: UtcDatetime
    period_end: UtcDatetime
    time_zone: str = "UTC"
    shadow: bool = False
    request_id: uuid.UUID | None = None
    ts: UtcDatetime

    def to_json(self) -> bytes:
        """Serialise to the wire format (UTF-8 JSON bytes)."""
        return self.model_dump_json().encode()

    def kafka_key(self) -> bytes:
        """The Kafka record key: the tenant id, UTF-8."""
        return self.tenant_id.encode()


class _TolerantAlert(Alert):
    model_config = ConfigDict(extra="ignore", frozen=True)


def parse_alert(raw: bytes | str | dict[str, Any]) -> Alert:
    """Parse an alert as a consumer (unknown fields ignored).

    Raises:
        ValueError: not JSON, not an object, another ``schema_version``, or
            invalid (``pydantic.ValidationError`` is a ``ValueError``).
    """
    data = orjson.loads(raw) if isinstance(raw, (bytes, str)) else raw
    if not isinstance(data, dict):
        raise ValueError("an alert is a JSON object")
    if data.get("schema_version", ALERT_SCHEMA_VERSION) != ALERT_SCHEMA_VERSION:
        raise ValueError(f"unsupported alert schema_version {data.get('schema_version')!r}")
    return _TolerantAlert.model_validate(data)
