"""The in-memory principals snapshot and authentication (DESIGN.md "The request path" 2).

Pure domain: no I/O here. :class:`PrincipalsSync` (``auth/sync.py``) keeps a
:class:`Snapshot` current from Postgres and Valkey. Rows are typed when they
load (:meth:`Principal.from_row`): limits and the redaction policy are parsed
once per row version, never per call.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import orjson
import structlog

from tollway_contracts.keys import parse_key, verify_secret
from tollway_contracts.limits import Limit
from tollway_contracts.limits import parse_limits as _parse_limits
from tollway_contracts.redaction import RedactionPolicy, parse_policy
from tollway_edge.errors import unauthorized

log = structlog.get_logger("tollway_edge.auth")


def parse_redaction_policy(raw: Any) -> RedactionPolicy:
    """A stored ``redaction_policy`` (``catalog.edge_principals``: the key's,
    else the team's; JSON text, decoded jsonb, or a policy) as a policy;
    None → ``off``.

    Raises:
        ValueError: the stored value is not a ``RedactionPolicy``
            (msgspec's ``ValidationError`` is one).
    """
    if raw is None:
        return RedactionPolicy(mode="off")
    if isinstance(raw, RedactionPolicy):
        return raw
    if isinstance(raw, (str, bytes)):
        raw = orjson.loads(raw)
    return parse_policy(raw)


def parse_limits(raw: Any) -> list[Limit]:
    """A stored ``limits`` column (JSON array of ``tollway_contracts.limits.Limit``).

    Raises:
        ValueError: not a list of limits.
    """
    if raw is None:
        return []
    if isinstance(raw, (str, bytes)):
        raw = orjson.loads(raw)
    return _parse_limits(raw)


class Row(Protocol):
    """A row with the contract's columns (an ``asyncpg.Record`` or a dict)."""

    def __getitem__(self, key: str) -> Any:
        """The column's value."""


@dataclass(frozen=True, slots=True)
class Principal:
    """One API key as the edge sees it (a row of ``catalog.edge_principals``).

    Attributes:
        allowed_models: the key's allow-list; None means every catalogue model.
        expires_at: expiry as Unix seconds (UTC); None means never.
        redaction_policy: the effective policy; None means ``off`` for the
            prompt and the answer (``mode`` and ``answers`` both ``off``).
        limits: every limit of the key (None or empty: no admission I/O).
        version: principals version of the row's last change.
        allowed_regions: the data-residency policy: the catalogue region tags
            the key's calls may reach (``routing.plan``); None = no policy.
        response_cache_ttl_seconds: the exact response cache's TTL for the
            key's calls, seconds (``tollway_edge.cache``); None = not cached.
        unreadable: stored columns that did not parse (``"limits"``,
            ``"redaction_policy"``): calls on this key fail closed (503).
    """

    key_id: str
    secret_hash: str
    tenant_id: str
    team_id: str | None
    user_id: str | None
    allowed_models: frozenset[str] | None
    revoked: bool
    expires_at: float | None
    redaction_policy: RedactionPolicy | None
    limits: list[Limit] | None
    version: int
    unreadable: frozenset[str] = frozenset()
    allowed_regions: frozenset[str] | None = None
    response_cache_ttl_seconds: int | None = None

    @classmethod
    def from_row(cls, row: Row) -> Principal:
        """Build from a row with the contract's columns (jsonb already decoded),
        parsing limits and the redaction policy once; a column that does not
        parse is logged and marked ``unreadable``."""
        allowed = row["allowed_models"]
        regions = row["allowed_regions"]
        expires: datetime | None = row["expires_at"]
        unreadable: set[str] = set()
        policy: RedactionPolicy | None
        try:
            policy = parse_redaction_policy(row["redaction_policy"])
            if policy.mode == "off" and policy.answers == "off":
                policy = None
        except ValueError:
            log.error("redaction_policy_invalid", key_id=row["key_id"], version=row["version"])
            policy, unreadable = None, unreadable | {"redaction_policy"}
        limits: list[Limit] | None
        try:
            limits = parse_limits(row["limits"])
        except ValueError:
            log.error("limits_malformed", key_id=row["key_id"], version=row["version"])
            limits, unreadable = None, unreadable | {"limits"}
        return cls(
            key_id=row["key_id"],
            secret_hash=row["secret_hash"],
            tenant_id=row["tenant_id"],
            team_id=row["team_id"],
            user_id=row["user_id"],
            allowed_models=None if allowed is None else frozenset(allowed),
            revoked=bool(row["revoked"]),
            expires_at=None if expires is None else expires.timestamp(),
            redaction_policy=policy,
            limits=limits,
            version=int(row["version"]),
            unreadable=frozenset(unreadable),
            allowed_regions=None if regions is None else frozenset(regions),
            response_cache_ttl_seconds=row["response_cache_ttl_seconds"],
        )

    def may_use(self, model: str) -> bool:
        """True when the allow-list admits ``model``."""
        return self.allowed_models is None or model in self.allowed_models


def presented_key(headers: Mapping[str, str]) -> str | None:
    """The key from ``Authorization: Bearer <key>``, else ``x-api-key``; None if absent."""
    auth = headers.get("Authorization")
    if auth:
        scheme, _, value = auth.partition(" ")
        if scheme.lower() == "bearer" and value.strip():
            return value.strip()
        return None
    key = headers.get("x-api-key")
    return key.strip() if key else None


class Snapshot:
    """Principals by key id, plus a bounded negative cache of unknown ids.

    ``version`` is the highest principals version applied. Lookups never touch
    the network; :meth:`apply` is called by the sync loop.
    """

    def __init__(self, negative_cache_size: int = 10_000) -> None:
        self.by_key_id: dict[str, Principal] = {}
        self.version = 0
        self.loaded = False
        self._negative: OrderedDict[str, None] = OrderedDict()
        self._negative_size = negative_cache_size

    def apply(self, principals: list[Principal]) -> int:
        """Insert or replace rows; returns the highest row version seen (0 if none)."""
        top = 0
        for p in principals:
            current = self.by_key_id.get(p.key_id)
            if current is None or current.version <= p.version:
                self.by_key_id[p.key_id] = p
            top = max(top, p.version)
            self._negative.pop(p.key_id, None)
        return top

    def clear_negative(self) -> None:
        """Forget unknown ids (on every invalidation: a new key may now exist)."""
        self._negative.clear()

    def is_known_unknown(self, key_id: str) -> bool:
        """True when ``key_id`` was looked up recently and did not exist."""
        return key_id in self._negative

    def remember_unknown(self, key_id: str) -> None:
        """Add ``key_id`` to the negative cache, evicting the oldest beyond its size."""
        self._negative[key_id] = None
        if len(self._negative) > self._negative_size:
            self._negative.popitem(last=False)


def check_principal(pepper: bytes, principal: Principal, key_id: str, secret: str) -> Principal:
    """Verify the secret (constant time) and the key's state.

    Raises:
        tollway_edge.errors.EdgeError: 401 when the secret does not match, or the key is revoked
            or expired.
    """
    if not verify_secret(pepper, key_id, secret, principal.secret_hash):
        raise unauthorized("Incorrect API key provided.")
    if principal.revoked:
        raise unauthorized("This API key has been revoked.", "revoked_api_key")
    if principal.expires_at is not None and principal.expires_at <= time.time():
        raise unauthorized("This API key has expired.", "expired_api_key")
    return principal


def split_presented(headers: Mapping[str, str]) -> tuple[str, str]:
    """The ``(key_id, secret)`` of the presented key.

    Raises:
        tollway_edge.errors.EdgeError: 401 when no key is presented or it is not ``tw_<id>_<secret>``.
    """
    raw = presented_key(headers)
    if raw is None:
        raise unauthorized(
            "You didn't provide an API key. Use 'Authorization: Bearer <key>'.", "missing_api_key"
        )
    parsed = parse_key(raw)
    if parsed is None:
        raise unauthorized("Incorrect API key provided.")
    return parsed.key_id, parsed.secret
