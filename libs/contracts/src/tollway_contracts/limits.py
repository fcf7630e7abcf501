"""Limits and budgets per scope (issue: quotas and budgets).

Every call belongs to four scopes: its key, user, team and tenant. Each scope
may carry any of the limits below, optionally narrowed to one model. The quota
service stores them; the edge receives the effective list for a key in the
``limits`` column of ``catalog.edge_principals`` (a JSON array of
:class:`Limit`), and passes them to the admission script as arguments.

Periods are aligned to the calendar in the tenant's IANA time zone
(``time_zone``, UTC by default): a day starts at local midnight, a week on
Monday at local midnight (ISO 8601), a month at local midnight on the 1st.

:class:`Limit` is a frozen ``msgspec.Struct`` (the edge's workers never import
pydantic: docs/edge-performance.md). Build one from JSON-shaped data with
:func:`parse_limit` / :func:`parse_limits` (types and bounds checked); the
constructor checks nothing. In a pydantic model, use
``tollway_contracts.pydantic_fields.LimitField``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

import msgspec

ScopeKind = Literal["key", "user", "team", "tenant"]
BudgetPeriod = Literal["day", "week", "month"]
_NonNegative = Annotated[int, msgspec.Meta(ge=0)]


class Limit(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
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

    scope: ScopeKind
    scope_id: str
    model: str | None = None
    requests_per_minute: _NonNegative | None = None
    tokens_per_minute: _NonNegative | None = None
    max_concurrent: _NonNegative | None = None
    budget_micro_usd: _NonNegative | None = None
    budget_period: BudgetPeriod | None = None
    time_zone: str = "UTC"
    thresholds_percent: list[int] = msgspec.field(default_factory=lambda: [50, 80, 100])
    shadow: bool = False

    def replace(self, **changes: Any) -> Limit:
        """A copy with ``changes`` (field name -> value; not validated)."""
        return msgspec.structs.replace(self, **changes)

    def to_json_dict(self) -> dict[str, Any]:
        """The limit as JSON-shaped builtins (every field, defaults included)."""
        out: dict[str, Any] = msgspec.to_builtins(self)
        return out


def parse_limit(data: Any) -> Limit:
    """Validate one JSON-shaped limit (a dict, or a :class:`Limit`).

    Raises:
        msgspec.ValidationError (a ``ValueError``): an unknown field, a
            wrong type, a negative amount.
    """
    if isinstance(data, Limit):
        return data
    return msgspec.convert(data, Limit, strict=False)


def parse_limits(data: Sequence[Any]) -> list[Limit]:
    """Validate a JSON array of limits (``edge_principals.limits``).

    Raises:
        msgspec.ValidationError (a ``ValueError``): as :func:`parse_limit`.
    """
    return msgspec.convert(data, list[Limit], strict=False)
