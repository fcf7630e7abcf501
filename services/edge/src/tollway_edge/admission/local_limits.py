"""The local bound used while Valkey is unreachable (pure, in memory).

``TOLLWAY_EDGE_ADMISSION_FAILURE_MODE=local``: each process admits against a
share of every limit, counted in this process's memory only. Same windows as
the exact path (calendar minutes UTC, budget periods in the limit's time
zone), same all-or-nothing rule, same OpenAI headers (the results are
:class:`tollway_admission.AdmitResult`).

The share (issue 10, "Counters that stay exact"; libs/admission/README.md,
"Local mode and write-back"):

- ``N`` is the number of edge processes alive before the split, as the last
  heartbeat counted them (:meth:`LocalLimiter.begin_split`); until a
  heartbeat has counted, the configured ``expected_processes``.
- rpm, tpm, concurrency: ``limit // N`` (rounded down, so the shares of all
  processes never add up to more than the limit).
- budgets: ``(limit - U) // N`` where ``U`` is the counter's spent + reserved
  micro-USD as this process last saw it (from its last successful admission
  on that counter), or the ledger's spend when it saw none and the keeper
  could fetch it from quota, else 0. With every process's ``U`` current,
  the spend of the period never exceeds the limit; in general it exceeds it
  by at most what other processes admitted between each process's last
  observation and the split.

Budget spend settled here for calls admitted here (not an exact call's local
extension: quota settles that one from Valkey) is kept as *unwritten* until
:class:`~tollway_edge.admission.continuity.SplitKeeper` writes it back to
Valkey, once per write-back id (writeback.lua).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from tollway_admission import AdmitResult, LimitCheck, Window, plan
from tollway_contracts.limits import Limit


@dataclass(slots=True)
class LocalReservation:
    """What a local admission holds: per counter key, the amount reserved.

    Attributes:
        amounts: counter key -> (kind, amount) reserved (calls, tokens, slots, micro-USD).
        released: the concurrency slots were given back.
        tenant_id: the call's tenant (write-back is per tenant).
        call: True when the call itself was admitted locally (its settled
            budget spend is written back); False for an exact call's local
            extension (quota settles the call from Valkey).
    """

    amounts: dict[str, tuple[str, int]]
    released: bool = False
    tenant_id: str = ""
    call: bool = True
    settled: bool = False


class LocalLimiter:
    """Per-process shares of every limit, counted in memory.

    Args:
        expected_processes: how many edge processes share each limit (>= 1).
    """

    def __init__(self, expected_processes: int) -> None:
        self.share_of = max(1, expected_processes)
        self._used: dict[str, int] = {}
        self._windows: dict[str, float] = {}
        self._base: dict[str, int] = {}
        self._missing: dict[str, tuple[str, Limit, Window]] = {}
        self._unwritten: dict[tuple[str, str], int] = {}

    def _share(self, value: int) -> int:
        return value // self.share_of

    def begin_split(self, processes: int | None, known_used: dict[str, int]) -> None:
        """Enter local mode: the share's ``N`` and the budgets' starting points.

        Args:
            processes: edge processes alive before the split (the last
                heartbeat's count); None keeps the current ``N``.
            known_used: budget counter key -> spent + reserved micro-USD last
                seen (this process's last admissions, or the ledger's spend).
        """
        if processes is not None:
            self.share_of = max(1, processes)
        self._base = dict(known_used)
        self._missing.clear()

    def set_baseline(self, key: str, used_micro_usd: int) -> None:
        """Set a budget counter's starting point (e.g. the ledger's spend,
        fetched after the split for a counter this process had not seen)."""
        self._base[key] = max(0, used_micro_usd)
        self._missing.pop(key, None)

    def has_baseline(self, key: str) -> bool:
        """True when the budget counter has a starting point."""
        return key in self._base

    def missing_baselines(self) -> list[tuple[str, str, Limit, Window]]:
        """Budget counters met in local mode without a starting point:
        ``(tenant id, counter key, limit, period window)`` (until
        :meth:`set_baseline`, their share starts from 0)."""
        return [(t, k, lim, w) for k, (t, lim, w) in self._missing.items() if k not in self._base]

    def unwritten(self) -> dict[str, list[tuple[str, int]]]:
        """Budget spend settled locally and not yet written back: tenant ->
        [(budget counter key, micro-USD)]."""
        out: dict[str, list[tuple[str, int]]] = {}
        for (tenant, key), amount in self._unwritten.items():
            if amount > 0:
                out.setdefault(tenant, []).append((key, amount))
        return out

    def written(self, tenant_id: str, items: list[tuple[str, int]]) -> None:
        """Forget spend that was written back (or whose write-back id was
        already applied)."""
        for key, amount in items:
            left = self._unwritten.get((tenant_id, key), 0) - amount
            if left > 0:
                self._unwritten[(tenant_id, key)] = left
            else:
                self._unwritten.pop((tenant_id, key), None)

    def _prune(self, now: datetime) -> None:
        ts = now.timestamp()
        expired = [k for k, end in self._windows.items() if end <= ts]
        for k in expired:
            self._windows.pop(k, None)
            self._used.pop(k, None)

    def admit(
        self,
        *,
        tenant_id: str,
        request_id: str,
        limits: list[Limit],
        model: str,
        tokens: int,
        cost_micro_usd: int,
        now: datetime,
        count_call: bool = True,
    ) -> tuple[AdmitResult, LocalReservation | None]:
        """Reserve on every applicable share, or on none.

        Args:
            count_call: False to reserve only tokens and budget (a stream's
                extension after Valkey went away): no rpm, no slot.

        Returns:
            The result (``admitted`` or ``refused``) and, if admitted, the handle.
        """
        if len(self._windows) > 10_000:
            self._prune(now)
        checks: list[LimitCheck] = []
        fits = True
        rows = []
        for kind, lim, full, key, reset, window, _ in plan(tenant_id, limits, model, now):
            if not count_call and kind in ("requests", "concurrency"):
                continue
            if kind == "budget":
                if key not in self._base and window is not None:
                    self._missing[key] = (tenant_id, lim, window)
                value = max(0, full - self._base.get(key, 0)) // self.share_of
            else:
                value = self._share(full)
            end = window.end.timestamp() if window is not None else None
            req = {"requests": 1, "tokens": tokens, "concurrency": 1, "budget": cost_micro_usd}[kind]
            used = self._used.get(key, 0)
            if end is not None and key not in self._windows:
                self._windows[key] = end
            ok = used + req <= value
            if not ok and not lim.shadow:
                fits = False
            rows.append((kind, lim, value, key, reset, used, req, ok))
        amounts: dict[str, tuple[str, int]] = {}
        for kind, lim, value, key, reset, used, req, ok in rows:
            outcome = "fits" if ok else ("would_refuse" if lim.shadow else "refuses")
            remaining = max(0, value - used - (req if fits else 0))
            checks.append(LimitCheck(lim, kind, key, value, used, req, remaining, reset, outcome))  # type: ignore[arg-type]
            if fits:
                self._used[key] = used + req
                amounts[key] = (kind, req)
        status = "admitted" if fits else "refused"
        result = AdmitResult(status, request_id, tuple(checks), None, (), now)  # type: ignore[arg-type]
        return result, (LocalReservation(amounts, tenant_id=tenant_id, call=count_call) if fits else None)

    def release(self, res: LocalReservation) -> None:
        """Give back the concurrency slots (once)."""
        if res.released:
            return
        res.released = True
        for key, (kind, amount) in res.amounts.items():
            if kind == "concurrency":
                self._used[key] = max(0, self._used.get(key, 0) - amount)

    def settle(self, res: LocalReservation, tokens: int, cost_micro_usd: int) -> None:
        """Replace the reserved tokens and cost by the actuals (refund or extra),
        and release the slots."""
        self.release(res)
        first = not res.settled
        res.settled = True
        for key, (kind, amount) in list(res.amounts.items()):
            actual = tokens if kind == "tokens" else cost_micro_usd if kind == "budget" else None
            if actual is None or key not in self._used:
                continue
            self._used[key] = max(0, self._used[key] - amount + actual)
            res.amounts[key] = (kind, actual)
            if kind == "budget" and res.call and first and actual > 0:
                # a call admitted here: its spend reaches Valkey only by write-back
                self._unwritten[(res.tenant_id, key)] = self._unwritten.get((res.tenant_id, key), 0) + actual

    @staticmethod
    def merge(into: LocalReservation, extra: LocalReservation) -> None:
        """Add an extension's amounts (``admit(count_call=False)``) to a reservation."""
        for key, (kind, amount) in extra.amounts.items():
            prev = into.amounts.get(key, (kind, 0))[1]
            into.amounts[key] = (kind, prev + amount)
