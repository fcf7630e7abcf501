"""One admitted call's reservation, and the 429 a refusal becomes (pure)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tollway_admission import AdmitResult, LimitCheck, Reservation
from tollway_contracts.catalogue import Prices
from tollway_contracts.events import ScopeReservation, ShadowRefusal
from tollway_contracts.limits import Limit
from tollway_edge.admission.local_limits import LocalReservation
from tollway_edge.errors import EdgeError, budget_exceeded, rate_limited
from tollway_edge.metrics import ADMISSION_REFUSED, ADMISSION_SHADOW_REFUSALS

LIMIT_NAMES = {
    "requests": "requests_per_minute",
    "tokens": "tokens_per_minute",
    "concurrency": "max_concurrent",
    "budget": "budget",
}
"""Admission's check kind -> the :class:`Limit` field name (``ShadowRefusal.limit``)."""


@dataclass(slots=True)
class Ticket:
    """One admitted call's reservation.

    Attributes:
        mode: ``exact`` (Valkey) or ``local`` (this process's memory).
        result: the admission result (headers, checks).
        prompt_tokens: the prompt bound reserved, tokens.
        reserved_out: completion tokens reserved so far (initial + extensions).
        ext_tokens, ext_cost: what extensions added (tokens, micro-USD).
        has_slot: a concurrency limit applied (release has work to do).
        shadow_refusals: the shadow limits that would have refused the call
            (at admission or at a stream extension), each once; None when none.
    """

    mode: str
    result: AdmitResult
    tenant_id: str
    request_id: str
    limits: list[Limit]
    model: str
    prices: Prices
    prompt_tokens: int
    reserved_out: int
    reservation: Reservation | None = None
    local: LocalReservation | None = None
    ext_tokens: int = 0
    ext_cost: int = 0
    has_slot: bool = False
    released: bool = False
    headers: dict[str, str] | None = None
    by_scope: dict[str, tuple[int, int]] | None = None
    shadow_refusals: list[ShadowRefusal] | None = None
    _field: tuple[int, int, dict[str, ScopeReservation]] | None = None
    """:meth:`reservation_field`'s last answer, for the extensions it counted (``ext_tokens``, ``ext_cost``)."""

    def note_shadow(self, checks: Iterable[LimitCheck]) -> None:
        """Record shadow limits that would have refused (``would_refuse``
        checks): each counts once in ``tollway_admission_shadow_refusals_total``
        per admission or extension, and joins ``shadow_refusals`` once per call."""
        for c in checks:
            limit = LIMIT_NAMES.get(c.kind, c.kind)
            ADMISSION_SHADOW_REFUSALS.labels(c.limit.scope, limit).inc()
            refusal = ShadowRefusal(scope=f"{c.limit.scope}:{c.limit.scope_id}", limit=limit)
            if self.shadow_refusals is None:
                self.shadow_refusals = [refusal]
            elif refusal not in self.shadow_refusals:
                self.shadow_refusals.append(refusal)

    def reservation_field(self) -> dict[str, ScopeReservation]:
        """The usage event's ``reservation``: per ``<scope>:<id>``, tokens
        (tpm scopes) and micro-USD (budget scopes) reserved, extensions included
        (``AdmitResult.reservation_by_scope()``, read once per call). Built once
        and shared by the call's events (``started`` and the terminal one) until an
        extension changes it; its values are frozen, the dict is never mutated."""
        memo = self._field
        if memo is not None and memo[0] == self.ext_tokens and memo[1] == self.ext_cost:
            return memo[2]
        if self.by_scope is None:
            self.by_scope = {
                n: (sr.tokens, sr.cost_micro_usd) for n, sr in self.result.reservation_by_scope().items()
            }
        field = {
            name: ScopeReservation(
                tokens=tokens + self.ext_tokens if tokens else 0,
                cost_micro_usd=cost + self.ext_cost if cost else 0,
            )
            for name, (tokens, cost) in self.by_scope.items()
        }
        self._field = (self.ext_tokens, self.ext_cost, field)
        return field


def refusal(result: AdmitResult) -> EdgeError:
    """The 429 for a refused admission: OpenAI's ``rate_limit_exceeded`` (or
    ``insufficient_quota``/``budget_exceeded``) with ``x-ratelimit-*`` headers."""
    c = result.refused_by
    assert c is not None
    headers = result.headers()
    ADMISSION_REFUSED.labels(c.kind).inc()
    scope = f"{c.limit.scope} {c.limit.scope_id}" + (f" (model {c.limit.model})" if c.limit.model else "")
    if c.kind == "budget":
        return budget_exceeded(scope, c.value, c.limit.budget_period or "month", headers)
    return rate_limited(c.kind, scope, c.value, c.used, c.requested, headers)
