"""The conservative local bound used while Valkey is unreachable (pure, in memory).

``TOLLWAY_EDGE_ADMISSION_FAILURE_MODE=local``: each process admits against a
share of every limit, ``limit // expected_processes`` (rounded down, so the
shares of all processes never add up to more than the limit), counted in this
process's memory only. Same windows as the exact path (calendar minutes UTC,
budget periods in the limit's time zone), same all-or-nothing rule, same
OpenAI headers (the results are :class:`tollway_admission.AdmitResult`).
Budget spend counted here starts at zero when the process enters local mode
(the ledger is not queried on the request path); when Valkey is back, the
exact path reseeds cold counters from the ledger.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from tollway_admission import AdmitResult, LimitCheck, plan
from tollway_contracts.limits import Limit


@dataclass(slots=True)
class LocalReservation:
    """What a local admission holds: per counter key, the amount reserved.

    Attributes:
        amounts: counter key -> (kind, amount) reserved (calls, tokens, slots, micro-USD).
        released: the concurrency slots were given back.
    """

    amounts: dict[str, tuple[str, int]]
    released: bool = False


class LocalLimiter:
    """Per-process shares of every limit, counted in memory.

    Args:
        expected_processes: how many edge processes share each limit (>= 1).
    """

    def __init__(self, expected_processes: int) -> None:
        self.share_of = max(1, expected_processes)
        self._used: dict[str, int] = {}
        self._windows: dict[str, float] = {}

    def _share(self, value: int) -> int:
        return value // self.share_of

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
        return result, (LocalReservation(amounts) if fits else None)

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
        for key, (kind, amount) in list(res.amounts.items()):
            actual = tokens if kind == "tokens" else cost_micro_usd if kind == "budget" else None
            if actual is None or key not in self._used:
                continue
            self._used[key] = max(0, self._used[key] - amount + actual)
            res.amounts[key] = (kind, actual)

    @staticmethod
    def merge(into: LocalReservation, extra: LocalReservation) -> None:
        """Add an extension's amounts (``admit(count_call=False)``) to a reservation."""
        for key, (kind, amount) in extra.amounts.items():
            prev = into.amounts.get(key, (kind, 0))[1]
            into.amounts[key] = (kind, prev + amount)
