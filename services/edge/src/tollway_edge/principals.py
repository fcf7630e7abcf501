"""The in-memory principals snapshot and authentication (DESIGN.md "The request path" 2).

Pure domain: no I/O here. :class:`PrincipalsSync` (``principals_sync.py``)
keeps a :class:`Snapshot` current from Postgres and Valkey.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tollway_contracts.keys import parse_key, verify_secret
from tollway_edge.errors import EdgeError


@dataclass(frozen=True, slots=True)
class Principal:
    """One API key as the edge sees it (a row of ``catalog.edge_principals``).

    Attributes:
        allowed_models: the key's allow-list; None means every catalogue model.
        expires_at: expiry as Unix seconds (UTC); None means never.
        version: principals version of the row's last change.
    """

    key_id: str
    secret_hash: str
    tenant_id: str
    team_id: str | None
    user_id: str | None
    allowed_models: frozenset[str] | None
    revoked: bool
    expires_at: float | None
    redaction_policy: Any
    limits: Any
    version: int

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Principal:
        """Build from a row with the contract's columns (jsonb already decoded)."""
        allowed = row["allowed_models"]
        expires: datetime | None = row["expires_at"]
        return cls(
            key_id=row["key_id"],
            secret_hash=row["secret_hash"],
            tenant_id=row["tenant_id"],
            team_id=row["team_id"],
            user_id=row["user_id"],
            allowed_models=None if allowed is None else frozenset(allowed),
            revoked=bool(row["revoked"]),
            expires_at=None if expires is None else expires.timestamp(),
            redaction_policy=row["redaction_policy"],
            limits=row["limits"],
            version=int(row["version"]),
        )

    def may_use(self, model: str) -> bool:
        """True when the allow-list admits ``model``."""
        return self.allowed_models is None or model in self.allowed_models


def unauthorized(message: str, code: str = "invalid_api_key") -> EdgeError:
    """401 in OpenAI's format (no usage event follows a 401)."""
    return EdgeError(401, message, type="authentication_error", code=code)


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
        EdgeError: 401 when the secret does not match, or the key is revoked
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
        EdgeError: 401 when no key is presented or it is not ``tw_<id>_<secret>``.
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
