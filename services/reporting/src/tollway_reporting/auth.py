"""Bearer authentication of reporting requests.

- ``TOLLWAY_ADMIN_TOKEN`` (constant-time compare) -> ``Scope(tenant_id=None)``:
  every tenant.
- A reporting token ``twr_<id>_<secret>`` (minted by quota's admin API) ->
  ``Scope(tenant_id=<its tenant>)`` when its HMAC matches and it is not
  revoked. Stored rows (and unknown ids) are cached ``ttl`` seconds, so a
  revoke takes effect within ``ttl``; the HMAC is checked on every request.
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Callable

from tollway_contracts.keys import parse_reporting_token, verify_secret
from tollway_reporting.query import Scope
from tollway_reporting.store import ReportingStore, TokenRow

_MAX_CACHE = 10_000


class AuthError(Exception):
    """401: missing, malformed, unknown, revoked or wrong token. ``code`` is the
    machine-readable reason; the message never echoes the token."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class TokenVerifier:
    """Turns an ``Authorization`` header into a :class:`Scope`.

    Args:
        store: token look-ups.
        pepper: the key pepper (bytes) quota hashed the token with.
        admin_token: the admin token (bytes).
        ttl: cache lifetime, seconds.
        clock: monotonic clock, seconds (tests inject one).
    """

    def __init__(
        self,
        store: ReportingStore,
        pepper: bytes,
        admin_token: bytes,
        ttl: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._pepper = pepper
        self._admin = admin_token
        self._ttl = ttl
        self._clock = clock
        self._cache: dict[str, tuple[float, TokenRow | None]] = {}

    async def _row(self, token_id: str) -> TokenRow | None:
        now = self._clock()
        hit = self._cache.get(token_id)
        if hit is not None and hit[0] > now:
            return hit[1]
        row = await self._store.token(token_id)
        if len(self._cache) >= _MAX_CACHE:
            self._cache.clear()
        self._cache[token_id] = (now + self._ttl, row)
        return row

    async def scope(self, authorization: str | None) -> Scope:
        """The caller's scope.

        Raises:
            AuthError: no bearer token, or it is neither the admin token nor a
                valid, unrevoked reporting token.
        """
        scheme, _, token = (authorization or "").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise AuthError("missing bearer token", "missing_token")
        if hmac.compare_digest(token.encode(), self._admin):
            return Scope(tenant_id=None)
        parsed = parse_reporting_token(token)
        if parsed is None:
            raise AuthError("invalid reporting token", "invalid_token")
        row = await self._row(parsed.key_id)
        if row is None or not verify_secret(self._pepper, parsed.key_id, parsed.secret, row.secret_hash):
            raise AuthError("invalid reporting token", "invalid_token")
        if row.revoked:
            raise AuthError("this reporting token was revoked", "revoked_token")
        return Scope(tenant_id=row.tenant_id, token_id=row.id)
