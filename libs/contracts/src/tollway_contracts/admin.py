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
=====================================================  ====================  ===============
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from tollway_contracts.redaction import RedactionPolicy

TENANT_PREFIX = "tn"
TEAM_PREFIX = "tm"
USER_PREFIX = "us"
ID_RANDOM_LENGTH = 12
ID_RE = re.compile(r"^(tn|tm|us)_[a-z0-9]{12}$")

NameStr = Annotated[str, Field(min_length=1, max_length=200)]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Response(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


# --- requests -----------------------------------------------------------------


class TenantCreate(_Request):
    """Create a tenant. ``name`` is unique; ``time_zone`` is an IANA name used
    for calendar budget periods (issue 3)."""

    name: NameStr
    time_zone: str = Field(default="UTC", min_length=1, max_length=64)


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


class Tenant(_Response):
    """A tenant."""

    id: str
    name: str
    time_zone: str
    created_at: datetime


class Team(_Response):
    """A team; ``redaction_policy`` null = off unless a key sets its own."""

    id: str
    tenant_id: str
    name: str
    redaction_policy: RedactionPolicy | None = None
    created_at: datetime


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

    ``redaction_policy`` is the key's own (null = inherits the team's);
    ``version`` is the principals version of the key's last change.
    """

    key_id: str
    tenant_id: str
    team_id: str | None = None
    user_id: str | None = None
    name: str
    allowed_models: list[str] | None = None
    redaction_policy: RedactionPolicy | None = None
    created_at: datetime
    expires_at: datetime | None = None
    revoked_at: datetime | None = None
    version: int


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
