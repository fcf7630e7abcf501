"""Budget alerts: which thresholds a scope has crossed (pure), and emitting
each crossing once per period (Valkey marker, Kafka, webhook).

Rule (issue 3): when a scope's usage reaches one of its limit's
``thresholds_percent`` (soft) or the limit itself (100 %, always), ONE
:class:`tollway_contracts.alerts.Alert` is published to ``tollway.alerts.v1``
(key: tenant id) per (scope, model, metric, period, threshold), and POSTed to
the tenant's webhook when one is configured.

Evaluation is state-based: after each settlement the current spend of every
budget of the call's scopes is compared with every threshold, and a ``SET NX``
marker (expiring with the period plus a grace) lets only the first observer
publish. Re-evaluating after a redelivered event is therefore harmless.

Failure consequences: the marker is set before producing and deleted when
the produce fails (the message is retried, the crossing re-detected). A crash
between the two loses that one alert (at most once, by design: "once" was
preferred over duplicates; consumers dedupe by ``alert_id`` anyway).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

import structlog
from aiokafka import AIOKafkaProducer
from redis.asyncio import Redis

from tollway_admission import Admission
from tollway_admission.periods import period_window
from tollway_contracts.alerts import Alert, alert_id_for
from tollway_contracts.events import format_ts, utcnow
from tollway_contracts.limits import Limit, parse_limit
from tollway_quota.settlement import SettleCommand

log = structlog.get_logger("tollway_quota.alerting")

MARKER_GRACE = timedelta(days=2)
"""How long an alert marker outlives its period (late settlements land on the
previous period's counter for ``budget_grace``; they must not re-alert)."""


@dataclass(frozen=True, slots=True)
class BudgetUsage:
    """A budget counter as read: ``spent`` micro-USD settled in ``[start, end)`` (UTC)."""

    spent_micro_usd: int
    start: datetime
    end: datetime


@dataclass(frozen=True, slots=True)
class Crossing:
    """A threshold a limit's usage has reached.

    Attributes:
        limit: the limit (with the tenant's time zone).
        metric: ``budget`` (settlement) — ``tokens``/``requests`` are for the edge.
        threshold_percent: the threshold reached.
        value: the limit's value (micro-USD for budgets).
        used: usage observed, same unit.
        start, end: the period, UTC.
    """

    limit: Limit
    metric: str
    threshold_percent: int
    value: int
    used: int
    start: datetime
    end: datetime

    @property
    def kind(self) -> str:
        """``limit`` at 100 % or more, else ``threshold``."""
        return "limit" if self.threshold_percent >= 100 else "threshold"


def budget_crossings(limit: Limit, usage: BudgetUsage) -> list[Crossing]:
    """Every threshold of ``limit``'s budget reached by ``usage``, lowest first.

    The thresholds are ``limit.thresholds_percent`` plus 100 (the hard limit
    always alerts). Threshold ``t`` is reached when
    ``spent * 100 >= budget * t`` and something was spent (integer
    arithmetic, no rounding).
    """
    if limit.budget_micro_usd is None or usage.spent_micro_usd <= 0:
        return []
    value = limit.budget_micro_usd
    return [
        Crossing(limit, "budget", t, value, usage.spent_micro_usd, usage.start, usage.end)
        for t in sorted(set(limit.thresholds_percent) | {100})
        if usage.spent_micro_usd * 100 >= value * t
    ]


def build_alert(tenant_id: str, c: Crossing, *, source: str, request_id: str | None, now: datetime) -> Alert:
    """The :class:`Alert` for a crossing (deterministic ``alert_id``)."""
    lim = c.limit
    period_start = format_ts(c.start)
    return Alert(
        alert_id=alert_id_for(
            tenant_id, lim.scope, lim.scope_id, lim.model, c.metric, period_start, c.threshold_percent
        ),
        kind=c.kind,  # type: ignore[arg-type]
        metric=c.metric,  # type: ignore[arg-type]
        source=source,  # type: ignore[arg-type]
        tenant_id=tenant_id,
        scope=lim.scope,
        scope_id=lim.scope_id,
        model=lim.model,
        threshold_percent=c.threshold_percent,
        limit=c.value,
        used=c.used,
        period=lim.budget_period if c.metric == "budget" else "minute",  # type: ignore[arg-type]
        period_start=c.start,
        period_end=c.end,
        time_zone=lim.time_zone,
        shadow=lim.shadow,
        request_id=None if request_id is None else uuid.UUID(request_id),
        ts=now,
    )


class BudgetReader(Protocol):
    """Reads a budget counter's settled spend for the period containing ``at``;
    None when the counter does not exist (never seeded, or expired)."""

    async def read(self, tenant_id: str, limit: Limit, at: datetime) -> BudgetUsage | None: ...


class WebhookSink(Protocol):
    """Takes an alert for delivery without waiting (bounded; may drop)."""

    def submit(self, url: str, alert: Alert) -> bool: ...


class AlertEmitter:
    """Publishes each crossing once: ``SET NX`` marker, then Kafka, then webhook.

    Args:
        valkey: marker store (``tw:alert:{<tenant>}:<alert id>``, quota's own keys).
        producer: a started Kafka producer.
        topic: ``tollway.alerts.v1`` (tests override).
        webhook_url: ``tenant_id -> URL or None`` (the catalog).
        webhooks: the bounded webhook queue, or None.
        clock: aware UTC now.
    """

    def __init__(
        self,
        valkey: Redis,
        producer: AIOKafkaProducer,
        topic: str,
        webhook_url: Callable[[str], Awaitable[str | None]],
        webhooks: WebhookSink | None,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self._valkey = valkey
        self._producer = producer
        self._topic = topic
        self._webhook_url = webhook_url
        self._webhooks = webhooks
        self._clock = clock
        self._known: set[str] = set()

    def _remember(self, alert_key: str) -> None:
        """Remember a marker known to exist (its period lasts; the set is
        bounded and simply cleared when full: forgetting only costs a SET NX)."""
        if len(self._known) >= 10_000:
            self._known.clear()
        self._known.add(alert_key)

    @staticmethod
    def marker_key(alert: Alert) -> str:
        """The once-marker of an alert."""
        return f"tw:alert:{{{alert.tenant_id}}}:{alert.alert_id}"

    async def emit(self, tenant_id: str, crossing: Crossing, *, source: str, request_id: str | None) -> bool:
        """Publish the crossing unless it was already published this period.

        Returns:
            True if this call published it.

        Raises:
            redis.exceptions.RedisError, aiokafka.errors.KafkaError: the caller
                retries (the marker is removed when the produce fails).
        """
        lim = crossing.limit
        known = (
            tenant_id,
            alert_id_for(
                tenant_id,
                lim.scope,
                lim.scope_id,
                lim.model,
                crossing.metric,
                format_ts(crossing.start),
                crossing.threshold_percent,
            ),
        )
        if f"{known[0]}:{known[1]}" in self._known:  # this process saw its marker: nothing to do
            return False
        now = self._clock()
        alert = build_alert(tenant_id, crossing, source=source, request_id=request_id, now=now)
        ttl_ms = max(1000, int((crossing.end + MARKER_GRACE - now).total_seconds() * 1000))
        marker = self.marker_key(alert)
        if not await self._valkey.set(marker, format_ts(now), nx=True, px=ttl_ms):
            self._remember(f"{known[0]}:{known[1]}")
            return False
        try:
            await self._producer.send_and_wait(self._topic, alert.to_json(), key=alert.kafka_key())
        except BaseException:
            await self._valkey.delete(marker)
            raise
        self._remember(f"{known[0]}:{known[1]}")
        log.info(
            "alert_published",
            tenant_id=tenant_id,
            scope=alert.scope,
            scope_id=alert.scope_id,
            metric=alert.metric,
            threshold_percent=alert.threshold_percent,
            kind=alert.kind,
        )
        if self._webhooks is not None:
            try:
                url = await self._webhook_url(tenant_id)
            except Exception as exc:  # noqa: BLE001 - the alert is on Kafka; the webhook is best effort
                log.warning("webhook_lookup_failed", tenant_id=tenant_id, error=type(exc).__name__)
                url = None
            if url:
                self._webhooks.submit(url, alert)
        return True


class AdmissionBudgetReader:
    """:class:`BudgetReader` over the admission counters, through
    ``tollway_admission.Admission.budget_usage`` (libs/admission alone knows
    the counters' layout)."""

    def __init__(self, admission: Admission) -> None:
        self._admission = admission

    async def read(self, tenant_id: str, limit: Limit, at: datetime) -> BudgetUsage | None:
        """Settled spend of ``limit``'s budget in the period containing ``at``;
        None when the limit has no budget or the counter does not exist."""
        if limit.budget_micro_usd is None or limit.budget_period is None:
            return None
        usage = await self._admission.budget_usage(tenant_id, limit, at)
        if usage is None:
            return None
        return BudgetUsage(usage.spent_micro_usd, usage.start, usage.end)


LimitsOf = Callable[[str], Awaitable["tuple[str, list[dict[str, Any]]] | None"]]
LimitsOfMany = Callable[[Sequence[str]], Awaitable["dict[str, tuple[str, list[dict[str, Any]]]]"]]


class SettlementAlerts:
    """The consumer's ``after_settle`` hook: after a call is settled, check every
    budget of the call's scopes (the key's current limits in the catalog,
    those that apply to the call's model) in the period containing the
    call's ``ts_start``, and emit each threshold reached.

    Args:
        limits_of: ``key_id -> (tenant_id, [Limit dict])`` or None (the catalog).
        reader: budget counters.
        emitter: once-per-period publisher.
    """

    def __init__(
        self,
        limits_of: LimitsOf,
        reader: BudgetReader,
        emitter: AlertEmitter,
        limits_of_many: LimitsOfMany | None = None,
    ) -> None:
        self._limits_of = limits_of
        self._limits_of_many = limits_of_many
        self._reader = reader
        self._emitter = emitter

    async def __call__(self, command: SettleCommand, status: str) -> None:
        """Evaluate after ``settled`` or ``already_settled`` (a redelivery may
        follow a crash that came before the alert); nothing for ``unknown``."""
        if status == "unknown":
            return
        found = await self._limits_of(command.key_id)
        if found is None:
            return
        _, raw = found
        tenant_id = command.tenant_id  # the tenant admission reserved under
        limits = [parse_limit(x) for x in raw]
        for limit in limits:
            if limit.budget_micro_usd is None or (limit.model is not None and limit.model != command.model):
                continue
            usage = await self._reader.read(tenant_id, limit, command.event.ts_start)
            if usage is None:
                continue
            for crossing in budget_crossings(limit, usage):
                await self._emitter.emit(
                    tenant_id, crossing, source="settlement", request_id=command.request_id
                )

    async def after_batch(self, done: Sequence[tuple[SettleCommand, str]]) -> None:
        """Alerts for a whole settled batch, equivalent to calling the hook after
        each command but cheaper: the batch's keys' limits are read in one
        query, and each budget counter (tenant, limit, period of the calls'
        ``ts_start``) is read once, after all the batch's settlements —
        spend only grows, so every threshold one of the calls reached is
        reached in that state too. The alert's ``request_id`` is the last of
        the batch's calls on that counter.

        Raises:
            whatever the catalog, Valkey or Kafka raise: the consumer retries
            the batch's alerts (markers make that harmless).
        """
        live = [c for c, status in done if status != "unknown"]
        if not live:
            return
        key_ids = list(dict.fromkeys(c.key_id for c in live))
        if self._limits_of_many is not None:
            found = await self._limits_of_many(key_ids)
        else:
            found = {}
            for k in key_ids:
                f = await self._limits_of(k)
                if f is not None:
                    found[k] = f
        parsed: dict[str, list[Limit]] = {}
        for k, (_, raw) in found.items():
            parsed[k] = [lim for lim in (parse_limit(x) for x in raw) if lim.budget_micro_usd is not None]
        todo: dict[tuple[Any, ...], tuple[str, Limit, datetime, str]] = {}
        windows: dict[tuple[str, str], list[Any]] = {}  # (period, zone) -> windows seen in this batch
        for c in live:
            for limit in parsed.get(c.key_id, ()):
                if limit.model is not None and limit.model != c.model:
                    continue
                at = c.event.ts_start
                seen = windows.setdefault((limit.budget_period or "month", limit.time_zone), [])
                w = next((x for x in seen if x.start <= at < x.end), None)
                if w is None:
                    w = period_window(limit.budget_period or "month", limit.time_zone, at)
                    seen.append(w)
                todo[
                    (
                        c.tenant_id,
                        limit.scope,
                        limit.scope_id,
                        limit.model,
                        limit.budget_period,
                        limit.time_zone,
                        limit.budget_micro_usd,
                        w.start,
                    )
                ] = (c.tenant_id, limit, at, c.request_id)
        if not todo:
            return
        entries = list(todo.values())
        usages = await asyncio.gather(*(self._reader.read(t, lim, at) for t, lim, at, _ in entries))
        for (tenant_id, limit, _, request_id), usage in zip(entries, usages, strict=True):
            if usage is None:
                continue
            for crossing in budget_crossings(limit, usage):
                await self._emitter.emit(tenant_id, crossing, source="settlement", request_id=request_id)
