"""Request and response bodies of the quota service's admin API (``/admin/v1``).

The quota server, the ``tollway-admin`` CLI and the tests all use these
models. Requests are strict (unknown fields are a 400); responses are read
tolerantly (unknown fields ignored), so the server may add fields.

Authentication: ``Authorization: Bearer <TOLLWAY_ADMIN_TOKEN>``. Errors use
OpenAI's error body (:mod:`tollway_contracts.errors`): 400 bad body, 401 bad
token, 404 unknown id, 409 duplicate name.

Ids: ``tn_`` + 12 ``[a-z0-9]`` for tenants, ``tm_`` for teams, ``us_`` for
users; API keys use the key id of :mod:`tollway_contracts.keys`.

Endpoints:

=====================================================  ====================  ===============
method and path                                        body                  answer
=====================================================  ====================  ===============
POST /admin/v1/tenants                                 TenantCreate          201 Tenant
GET  /admin/v1/tenants                                 -                     TenantList
POST /admin/v1/teams                                   TeamCreate            201 Team
GET  /admin/v1/teams?tenant_id=                        -                     TeamList
PUT  /admin/v1/teams/{team_id}/redaction-policy        RedactionPolicy       Team
POST /admin/v1/users                                   UserCreate            201 User
GET  /admin/v1/users?tenant_id=                        -                     UserList
POST /admin/v1/keys                                    KeyCreate             201 KeyCreated
GET  /admin/v1/keys?tenant_id=                         -                     KeyList
POST /admin/v1/keys/{key_id}/revoke                    -                     ApiKey
PUT  /admin/v1/keys/{key_id}/redaction-policy          RedactionPolicy       ApiKey
PATCH /admin/v1/tenants/{tenant_id}                    TenantUpdate          Tenant
PUT  /admin/v1/limits                                  LimitSet              201/200 LimitRecord
GET  /admin/v1/limits?tenant_id=                       -                     LimitList
DELETE /admin/v1/limits/{limit_id}                     -                     LimitRecord
=====================================================  ====================  ===============

Limits (issue 3): one :class:`LimitRecord` per scope and model (``PUT``
creates it, 201, or replaces every field of the existing one, 200). The edge
receives them as :class:`tollway_contracts.limits.Limit` in the ``limits``
column of ``catalog.edge_principals``: every limit of the key's key, user,
team and tenant scopes, with the tenant's ``time_zone``.
"""

from __future__ import annotations

import re
import zoneinfo
from datetime import datetime
from typing import Annotated

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field, HttpUrl, model_validator

from tollway_contracts.limits import BudgetPeriod, ScopeKind
from tollway_contracts.pydantic_fields import RedactionPolicyField

TENANT_PREFIX = "tn"
TEAM_PREFIX = "tm"
USER_PREFIX = "us"
ID_RANDOM_LENGTH = 12
LIMIT_PREFIX = "lm"
ID_RE = re.compile(r"^(tn|tm|us|lm)_[a-z0-9]{12}$")

NameStr = Annotated[str, Field(min_length=1, max_length=200)]


def check_time_zone(name: str) -> str:
    """Return ``name`` if it is an IANA time zone known to this host's tz
    database (``zoneinfo``), e.g. ``Europe/Paris`` or ``UTC``.

    Raises:
        ValueError: unknown or malformed name.
    """
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"unknown IANA time zone {name!r}") from exc
    return name


TimeZone = Annotated[str, Field(min_length=1, max_length=64), AfterValidator(check_time_zone)]
WebhookUrl = Annotated[HttpUrl, Field(max_length=2000)]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Response(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


# --- requests -----------------------------------------------------------------


class TenantCreate(_Request):
    """Create a tenant. ``name`` is unique; ``time_zone`` is an IANA name used
    for calendar budget periods (issue 3)."""

    name: NameStr
    time_zone: TimeZone = "UTC"


class TenantUpdate(_Request):
    """Change a tenant (``PATCH``): only the fields sent change.

    Attributes:
        time_zone: IANA name; budget periods of the tenant's limits follow it
            from the next period on (edges reload every key of the tenant).
        alert_webhook_url: where budget alerts are POSTed (``Alert`` JSON);
            null clears it.
    """

    time_zone: TimeZone | None = None
    alert_webhook_url: WebhookUrl | None = None


Percent = Annotated[int, Field(ge=1, le=1000)]


class LimitSet(_Request):
    """Create or replace the limit of one scope (and model): ``PUT /admin/v1/limits``.

    Field meanings and units are :class:`tollway_contracts.limits.Limit`'s
    (``time_zone`` comes from the tenant). At least one of
    ``requests_per_minute``, ``tokens_per_minute``, ``max_concurrent``,
    ``budget_micro_usd`` is set; ``budget_micro_usd`` and ``budget_period``
    come together. ``scope_id`` is a key id, user id, team id or tenant id.

    Raises:
        pydantic.ValidationError: on the rules above.
    """

    scope: ScopeKind
    scope_id: str = Field(min_length=1, max_length=64)
    model: str | None = Field(default=None, min_length=1, max_length=200)
    requests_per_minute: int | None = Field(default=None, ge=0)
    tokens_per_minute: int | None = Field(default=None, ge=0)
    max_concurrent: int | None = Field(default=None, ge=0)
    budget_micro_usd: int | None = Field(default=None, ge=0)
    budget_period: BudgetPeriod | None = None
    thresholds_percent: list[Percent] = Field(default_factory=lambda: [50, 80, 100], max_length=10)
    shadow: bool = False

    @model_validator(mode="after")
    def _check(self) -> LimitSet:
        if (self.budget_micro_usd is None) != (self.budget_period is None):
            raise ValueError("budget_micro_usd and budget_period come together")
        if all(
            v is None
            for v in (
                self.requests_per_minute,
                self.tokens_per_minute,
                self.max_concurrent,
                self.budget_micro_usd,
            )
        ):
            raise ValueError("set at least one limit")
        object.__setattr__(self, "thresholds_percent", sorted(set(self.thresholds_percent)))
        return self


class TeamCreate(_Request):
    """Create a team in a tenant; ``name`` is unique within the tenant."""

    tenant_id: str
    name: NameStr


class UserCreate(_Request):
    """Create a user in a tenant, optionally in one of its teams; ``name`` (and
    ``email`` when given) are unique within the tenant."""

    tenant_id: str
    team_id: str | None = None
    name: NameStr
    email: str | None = Field(default=None, max_length=320)


class KeyCreate(_Request):
    """Mint an API key.

    Attributes:
        tenant_id: owning tenant.
        team_id: owning team (same tenant); defaults to the user's team.
        user_id: owning user (same tenant).
        name: a label; not unique.
        allowed_models: model allow-list; null = every catalogue model.
        expires_at: when the key stops working (timezone-aware); null = never.
    """

    tenant_id: str
    team_id: str | None = None
    user_id: str | None = None
    name: NameStr
    allowed_models: list[str] | None = None
    expires_at: AwareDatetime | None = None


# --- responses ----------------------------------------------------------------


class ResidencyPolicy(_Request):
    """A data-residency policy (``PUT /admin/v1/{tenants,teams}/{id}/residency-policy``;
    ``DELETE`` removes it).

    Attributes:
        allowed_regions: the catalogue region tags (``Deployment.regions``)
            the tenant's or team's calls may reach: a deployment is used only
            when all its tags are in this set, through retries and fallback
            too; a call with none left is a 403 ``model_not_in_allowed_regions``.
            A team's policy narrows its tenant's (the intersection applies).
    """

    allowed_regions: list[Annotated[str, Field(min_length=1, max_length=64)]] = Field(
        min_length=1, max_length=64
    )


class CachePolicy(_Request):
    """The exact response cache's opt-in (``PUT /admin/v1/{keys,teams}/{id}/cache-policy``;
    ``DELETE`` removes it: a key then inherits its team's, a team caches nothing).

    Attributes:
        ttl_seconds: how long the edge keeps an answer and serves it again to
            the same tenant for the same (redacted) request, seconds (1 s to
            30 days). Which requests are cached: the edge's ``tollway_edge.cache``.
    """

    ttl_seconds: int = Field(ge=1, le=2_592_000)


class Tenant(_Response):
    """A tenant; ``allowed_regions`` null = no residency policy."""

    id: str
    name: str
    time_zone: str
    created_at: datetime
    alert_webhook_url: str | None = None
    allowed_regions: list[str] | None = None


class Team(_Response):
    """A team; ``redaction_policy`` null = off unless a key sets its own;
    ``allowed_regions`` null = the tenant's residency policy alone;
    ``response_cache_ttl_seconds`` null = its keys' answers are not cached
    unless a key sets its own (:class:`CachePolicy`)."""

    id: str
    tenant_id: str
    name: str
    redaction_policy: RedactionPolicyField | None = None
    created_at: datetime
    allowed_regions: list[str] | None = None
    response_cache_ttl_seconds: int | None = None


class User(_Response):
    """A user."""

    id: str
    tenant_id: str
    team_id: str | None = None
    name: str
    email: str | None = None
    created_at: datetime


class ApiKey(_Response):
    """An API key as listed: never its secret nor its hash.

    ``redaction_policy`` and ``response_cache_ttl_seconds`` are the key's own
    (null = inherits the team's);
    ``version`` is the principals version of the key's last change.
    """

    key_id: str
    tenant_id: str
    team_id: str | None = None
    user_id: str | None = None
    name: str
    allowed_models: list[str] | None = None
    redaction_policy: RedactionPolicyField | None = None
    created_at: datetime
    expires_at: datetime | None = None
    revoked_at: datetime | None = None
    version: int
    response_cache_ttl_seconds: int | None = None


class KeyCreated(ApiKey):
    """The answer to ``POST /admin/v1/keys``: the key's fields plus the full
    key ``tw_<key id>_<secret>``, shown this once and never again."""

    key: str


class TenantList(_Response):
    """``GET /admin/v1/tenants``."""

    data: list[Tenant]


class TeamList(_Response):
    """``GET /admin/v1/teams?tenant_id=``."""

    data: list[Team]


class UserList(_Response):
    """``GET /admin/v1/users?tenant_id=``."""

    data: list[User]


class KeyList(_Response):
    """``GET /admin/v1/keys?tenant_id=``."""

    data: list[ApiKey]


class LimitRecord(_Response):
    """A stored limit: :class:`LimitSet`'s fields plus its id, tenant and times."""

    id: str
    tenant_id: str
    scope: str
    scope_id: str
    model: str | None = None
    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None
    max_concurrent: int | None = None
    budget_micro_usd: int | None = None
    budget_period: str | None = None
    thresholds_percent: list[int]
    shadow: bool = False
    created_at: datetime
    updated_at: datetime


class LimitList(_Response):
    """``GET /admin/v1/limits?tenant_id=``."""

    data: list[LimitRecord]


# --- reporting tokens (issue 5) -----------------------------------------------
# POST /admin/v1/reporting-tokens                ReportingTokenCreate  201 ReportingTokenCreated
# POST /admin/v1/reporting-tokens/{id}/revoke    -                     ReportingToken
# A reporting token (``twr_<id>_<secret>``, tollway_contracts.keys) reads one
# tenant's reports from the reporting service; only its HMAC is stored.


class ReportingTokenCreate(_Request):
    """Mint a reporting token scoped to ``tenant_id``; ``name`` is a label."""

    tenant_id: str
    name: NameStr


class ReportingToken(_Response):
    """A reporting token as listed: never its secret nor its hash."""

    id: str
    tenant_id: str
    name: str
    created_at: datetime
    revoked_at: datetime | None = None


class ReportingTokenCreated(ReportingToken):
    """The answer to ``POST /admin/v1/reporting-tokens``: the token's fields plus
    the full token ``twr_<id>_<secret>``, shown this once and never again."""

    token: str
