"""Limits and budgets per scope (issue: quotas and budgets).

Every call belongs to four scopes: its key, user, team and tenant. Each scope
may carry any of the limits below, optionally narrowed to one model. The quota
service stores them; the edge receives the effective list for a key in the
``limits`` column of ``catalog.edge_principals`` (a JSON array of
:class:`Limit`), and passes them to the admission script as arguments.

Periods are aligned to the calendar in the tenant's IANA time zone
(``time_zone``, UTC by default): a day starts at local midnight, a week on
Monday at local midnight (ISO 8601), a month at local midnight on the 1st.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ScopeKind = Literal["key", "user", "team", "tenant"]
BudgetPeriod = Literal["day", "week", "month"]


class Limit(BaseModel):
    """One scope's limits. Null fields are not limited.

    Attributes:
        scope: which scope the limit applies to.
        scope_id: that scope's id (key id, user id, team id, tenant id).
        model: narrow the limit to one requested model; null = all models.
        requests_per_minute: admitted calls per calendar minute (UTC).
        tokens_per_minute: reserved tokens per calendar minute (UTC).
        max_concurrent: calls in flight at once.
        budget_micro_usd: spend per ``budget_period``, integer micro-USD.
        budget_period: ``day`` | ``week`` | ``month`` in ``time_zone``.
        time_zone: IANA name (the tenant's), e.g. ``Europe/Paris``.
        thresholds_percent: soft thresholds that raise alerts, e.g. [50, 80, 100].
        shadow: record what would have been refused, but admit.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    scope: ScopeKind
    scope_id: str
    model: str | None = None
    requests_per_minute: int | None = Field(default=None, ge=0)
    tokens_per_minute: int | None = Field(default=None, ge=0)
    max_concurrent: int | None = Field(default=None, ge=0)
    budget_micro_usd: int | None = Field(default=None, ge=0)
    budget_period: BudgetPeriod | None = None
    time_zone: str = "UTC"
    thresholds_percent: list[int] = Field(default_factory=lambda: [50, 80, 100])
    shadow: bool = False
