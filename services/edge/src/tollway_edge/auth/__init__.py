"""Authentication (DESIGN.md "The request path" 2): the key from the headers,
checked against the in-memory snapshot (``principals``), kept current by
``sync``."""

from __future__ import annotations

from collections.abc import Mapping

import structlog

from tollway_edge.auth.principals import Principal, Snapshot, check_principal, split_presented
from tollway_edge.auth.sync import PrincipalsSync
from tollway_edge.errors import auth_unavailable, unauthorized

log = structlog.get_logger("tollway_edge.auth")

__all__ = ["Principal", "PrincipalsSync", "Snapshot", "authenticate"]


async def authenticate(
    snapshot: Snapshot, sync: PrincipalsSync | None, pepper: bytes, headers: Mapping[str, str]
) -> Principal:
    """The caller's principal, from memory (one Postgres lookup for an unknown id).

    Raises:
        tollway_edge.errors.EdgeError: 401 missing/malformed/unknown/revoked/
            expired key; 503 when principals are not loaded yet or an unknown
            id cannot be looked up (Postgres down).
    """
    key_id, secret = split_presented(headers)
    if not snapshot.loaded:
        raise auth_unavailable()
    principal = snapshot.by_key_id.get(key_id)
    if principal is None:
        if snapshot.is_known_unknown(key_id) or sync is None:
            raise unauthorized("Incorrect API key provided.")
        try:
            principal = await sync.lookup_unknown(key_id)
        except Exception:  # noqa: BLE001 - any lookup failure is a 503, logged
            log.warning("key_lookup_failed", key_id=key_id, exc_info=True)
            raise auth_unavailable() from None
        if principal is None:
            raise unauthorized("Incorrect API key provided.")
    return check_principal(pepper, principal, key_id, secret)
