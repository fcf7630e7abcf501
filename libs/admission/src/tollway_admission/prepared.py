"""Admit plans kept while their windows last (pure; no I/O, no clock).

:func:`~tollway_admission.plan.plan` computes, for every call, the same checks
for the same key: counter keys, values and expiries only change when a minute
window or a budget period ends. :class:`PlanCache` keeps one
:class:`PreparedAdmit` per (tenant, model, limits object) — the checks, and the
part of ``admit.lua``'s KEYS and ARGV that follows from them already packed in
RESP (:func:`~tollway_admission.pipelined.pack_bulk`) — and rebuilds it when
``now`` leaves the span where every window of it holds (the latest window
start to the earliest window end), or when the limits object changes (the
principals snapshot builds a new list whenever a key's row changes: identity,
not equality, decides, and the entry keeps the list alive so its id is never
reused).

What still depends on ``now`` is computed per call: ``reset_seconds`` (as
``plan`` does: window end minus ``now``) and admit's own ARGV (``now``, the
deadlines).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from tollway_admission import keys as K
from tollway_admission.periods import minute_window
from tollway_admission.pipelined import pack_bulk
from tollway_admission.plan import CheckKind, PlannedCheck, plan
from tollway_contracts.limits import Limit

LUA_KIND: dict[CheckKind, str] = {
    "requests": "rpm",
    "tokens": "tpm",
    "concurrency": "conc",
    "budget": "budget",
}
"""admit.lua's name of each check kind (its ARGV)."""

_AMOUNT_INDEX: dict[CheckKind, int] = {"requests": 0, "tokens": 1, "concurrency": 2, "budget": 3}
"""Where each kind's requested amount is in ``(1 call, tokens, 1 slot, micro-USD)``."""

MAX_ENTRIES = 4096
"""Entries kept before the cache is emptied (keys × models seen within a minute)."""


class PreparedAdmit:
    """The checks of one (tenant, model, limits) for the windows containing ``now``.

    Raises:
        ValueError: the tenant id is unusable as a hash tag (``keys.prefix``).

    Attributes:
        limits: the limits object it was planned from (kept: identity is the key).
        checks: :func:`~tollway_admission.plan.plan`'s checks; their
            ``reset_seconds`` is from the instant the entry was built (use
            :meth:`reset_seconds`).
        valid_from, valid_until: ``[from, until)``, the instants for which
            every window (and so every key and expiry) is the same.
        keys_tail: the checks' counter keys, packed (KEYS after the record,
            settled and deadlines keys).
        args_tail: per check ``kind, value, shadow, expire_at_ms``, packed
            (ARGV after admit's seven per-call arguments).
        deadlines_keys_tail: the deadlines key then ``keys_tail``, packed (KEYS 3..).
        count_args_tail: the check count (admit's ARGV 7) then ``args_tail``, packed.
        rows: per check, what admit's reply is read with: ``(kind, limit, value,
            key, window end or None, window, expire_at_ms, index of the amount it
            asks for in (1 call, tokens, 1 slot, micro-USD))``.
        counter_keys: the keys of the checks a reservation holds (all but rpm),
            in order (``Reservation.counter_keys``).
    """

    __slots__ = (
        "limits",
        "checks",
        "valid_from",
        "valid_until",
        "keys_tail",
        "args_tail",
        "deadlines_keys_tail",
        "count_args_tail",
        "rows",
        "counter_keys",
    )

    def __init__(
        self, tenant_id: str, limits: Sequence[Limit], checks: list[PlannedCheck], now: datetime
    ) -> None:
        self.limits = limits
        self.checks = checks
        self.rows = tuple(
            (
                c.kind,
                c.limit,
                c.value,
                c.key,
                None if c.window is None else c.window.end,
                c.window,
                c.expire_at_ms,
                _AMOUNT_INDEX[c.kind],
            )
            for c in checks
        )
        self.counter_keys = tuple(c.key for c in checks if c.kind != "requests")
        minute = minute_window(now)
        starts = [minute.start] + [c.window.start for c in checks if c.window is not None]
        ends = [minute.end] + [c.window.end for c in checks if c.window is not None]
        self.valid_from = max(starts)
        self.valid_until = min(ends)
        self.keys_tail = pack_bulk([c.key for c in checks])
        args: list[str | int] = []
        for c in checks:
            args += [LUA_KIND[c.kind], c.value, "1" if c.limit.shadow else "0", c.expire_at_ms]
        self.args_tail = pack_bulk(args)
        self.deadlines_keys_tail = pack_bulk([K.deadlines_key(tenant_id)]) + self.keys_tail
        self.count_args_tail = pack_bulk([len(checks)]) + self.args_tail

    def reset_seconds(self, check: PlannedCheck, now: datetime) -> float:
        """``check``'s ``reset_seconds`` at ``now`` (``plan``'s rule: window end − now, s;
        1.0 for concurrency)."""
        return 1.0 if check.window is None else (check.window.end - now).total_seconds()


class PlanCache:
    """:class:`PreparedAdmit` per (tenant, model, limits object); see the module doc.

    Args:
        budget_grace: passed to :func:`~tollway_admission.plan.plan`.
    """

    def __init__(self, budget_grace: timedelta) -> None:
        self._grace = budget_grace
        self._entries: dict[tuple[str, str | None, int], PreparedAdmit] = {}

    def get(self, tenant_id: str, limits: Sequence[Limit], model: str | None, now: datetime) -> PreparedAdmit:
        """The prepared checks for a call at ``now`` (built when missing or out of its windows).

        Raises:
            ValueError: as :func:`~tollway_admission.plan.plan` (tenant id unusable as a hash tag).
        """
        key = (tenant_id, model, id(limits))
        entry = self._entries.get(key)
        if entry is not None and entry.limits is limits and entry.valid_from <= now < entry.valid_until:
            return entry
        checks = plan(tenant_id, limits, model, now, budget_grace=self._grace)
        entry = PreparedAdmit(tenant_id, limits, checks, now)
        if len(self._entries) >= MAX_ENTRIES:
            self._entries.clear()
        self._entries[key] = entry
        return entry
