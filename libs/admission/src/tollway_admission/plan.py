"""The admission planner: which counters one call is checked against (pure).

:func:`plan` turns a call's limits into the list of checks admission makes:
one per limit kind per applicable :class:`~tollway_contracts.limits.Limit`
(requests per minute, tokens per minute, concurrent calls, spend per period),
each with its counter key (:mod:`tollway_admission.keys`), its window, its
reset time and its counter expiry. It does no I/O and reads no clock: the
caller passes ``now``.

Both admission paths use it, so they check the same limits in the same order
over the same windows:

- the exact path (:class:`tollway_admission.Admission`) sends the plan to
  ``admit.lua`` as KEYS/ARGV;
- the edge's local path (Valkey unreachable) counts each check in process
  memory against a share of ``value``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Literal, NamedTuple

from tollway_admission import keys as K
from tollway_admission.periods import Window, minute_window, period_window
from tollway_contracts.limits import Limit

CheckKind = Literal["requests", "tokens", "concurrency", "budget"]
"""The four limit kinds, in the order :func:`plan` emits them per limit."""

MINUTE_GRACE = timedelta(seconds=60)
"""How long an rpm/tpm counter outlives its minute (late settlements land on it)."""

DEFAULT_BUDGET_GRACE = timedelta(days=2)
"""Default for how long a budget counter outlives its period."""


class PlannedCheck(NamedTuple):
    """One check of one call, as :func:`plan` computes it.

    Attributes:
        kind: ``requests`` (rpm), ``tokens`` (tpm), ``concurrency`` or ``budget``.
        limit: the limit it comes from; a budget without a period is returned
            with ``budget_period="month"`` (a period-less budget is monthly).
        value: the limit's full value (calls per minute, tokens per minute,
            slots, micro-USD); a per-process share is the caller's business.
        key: the Valkey counter key (tenant hash tag ``tw:{T}:``).
        reset_seconds: seconds from ``now`` until the window or period ends;
            ``1.0`` for concurrency (a slot frees when any call ends).
        window: the UTC minute (rpm, tpm) or budget period (budget) the
            counter covers, ``[start, end)``; None for concurrency.
        expire_at_ms: when the counter should expire, epoch ms: minute end +
            :data:`MINUTE_GRACE`, period end + ``budget_grace``; ``0`` for
            concurrency (its zset expires with its latest deadline).
    """

    kind: CheckKind
    limit: Limit
    value: int
    key: str
    reset_seconds: float
    window: Window | None
    expire_at_ms: int


def applicable(limits: Iterable[Limit], model: str | None) -> list[Limit]:
    """The limits that apply to a call of ``model``: unnarrowed ones and those
    narrowed to exactly that model."""
    return [lim for lim in limits if lim.model is None or lim.model == model]


def plan(
    tenant_id: str,
    limits: Sequence[Limit],
    model: str | None,
    now: datetime,
    *,
    budget_grace: timedelta = DEFAULT_BUDGET_GRACE,
) -> list[PlannedCheck]:
    """Every check one call of ``model`` makes, in a fixed order.

    Per applicable limit (:func:`applicable`, in the given order): requests,
    tokens, concurrency, budget — each only when the limit sets it. Minute
    windows are calendar minutes in UTC; budget periods are calendar periods
    in the limit's IANA ``time_zone`` (:mod:`tollway_admission.periods`).

    Args:
        tenant_id: the call's tenant (the hash tag of every key).
        limits: the principal's effective limits (every scope).
        model: the requested model; limits narrowed to another are skipped.
        now: an aware datetime, the decision instant.
        budget_grace: how long a budget counter outlives its period.

    Returns:
        The checks, possibly empty.

    Raises:
        ValueError: the tenant id is unusable as a hash tag (empty, or
            contains ``{``/``}``).
    """
    minute = minute_window(now)
    minute_s = int(minute.start.timestamp())
    minute_reset = (minute.end - now).total_seconds()
    minute_expire = _ms(minute.end + MINUTE_GRACE)
    out: list[PlannedCheck] = []
    for lim in applicable(limits, model):
        if lim.requests_per_minute is not None:
            out.append(
                PlannedCheck(
                    "requests",
                    lim,
                    lim.requests_per_minute,
                    K.rpm_key(tenant_id, lim, minute_s),
                    minute_reset,
                    minute,
                    minute_expire,
                )
            )
        if lim.tokens_per_minute is not None:
            out.append(
                PlannedCheck(
                    "tokens",
                    lim,
                    lim.tokens_per_minute,
                    K.tpm_key(tenant_id, lim, minute_s),
                    minute_reset,
                    minute,
                    minute_expire,
                )
            )
        if lim.max_concurrent is not None:
            out.append(
                PlannedCheck("concurrency", lim, lim.max_concurrent, K.conc_key(tenant_id, lim), 1.0, None, 0)
            )
        if lim.budget_micro_usd is not None:
            if lim.budget_period is None:
                lim = lim.replace(budget_period="month")
            period = lim.budget_period
            assert period is not None  # set just above
            w = period_window(period, lim.time_zone, now)
            out.append(
                PlannedCheck(
                    "budget",
                    lim,
                    lim.budget_micro_usd or 0,  # not None: tested above, before the copy
                    K.budget_key(tenant_id, lim, int(w.start.timestamp())),
                    (w.end - now).total_seconds(),
                    w,
                    _ms(w.end + budget_grace),
                )
            )
    return out


def _ms(dt: datetime) -> int:
    return int(dt.timestamp() * 1000)
