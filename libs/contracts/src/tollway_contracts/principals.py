"""The principals snapshot the edge loads, and its invalidations.

The quota service owns the ``catalog`` schema. Its migrations create the two
views below with exactly these columns; the edge reads only them (read-only
role is enough), never the tables behind them. This is the whole contract
between quota and edge for principals.

``catalog.edge_principals`` — one row per API key, including revoked ones:

======================  ============  =============================================
column                  type          meaning
======================  ============  =============================================
key_id                  text          public key id (``tw_<key_id>_...``)
secret_hash             text          hex HMAC-SHA256, see ``tollway_contracts.keys``
tenant_id               text          owning tenant
team_id                 text          owning team (nullable)
user_id                 text          owning user (nullable)
allowed_models          text[]        model allow-list; NULL = every catalogue model
revoked                 boolean       true once revoked (never un-revoked)
expires_at              timestamptz   null = never; the EDGE refuses the key once
                                      ``now() >= expires_at`` (no version bump marks expiry)
redaction_policy        jsonb         effective policy (key's, else team's); null = off
limits                  jsonb         JSON array of ``tollway_contracts.limits.Limit``:
                                      every limit of the key's key, user, team and
                                      tenant scopes (in that order), each with the
                                      tenant's ``time_zone``; null = none
version                 bigint        principals version of the row's last change
allowed_regions         text[]        data-residency policy: the catalogue region tags
                                      the key's calls may reach (team's ∩ tenant's);
                                      NULL = no policy (quota migration 0004)
response_cache_ttl_seconds integer    the exact response cache's TTL, seconds (the
                                      key's, else its team's); NULL = the key's calls
                                      are never cached (quota migration 0005)
======================  ============  =============================================

``catalog.principals_version`` — one row, one column ``version bigint``: the
highest version of any change. Every admin change bumps it in the same
transaction as the change.

After committing a change, quota publishes :class:`Invalidation` JSON on the
Valkey channel :data:`INVALIDATION_CHANNEL`. An edge that receives it (or sees
a higher ``principals_version`` in its periodic check) loads the rows with
``version > its own`` and applies them; both paths converge, so a lost
message only delays a change until the next periodic check.
"""

from __future__ import annotations

import msgspec

INVALIDATION_CHANNEL = "tw:principals:invalidate"

SNAPSHOT_QUERY = """
SELECT key_id, secret_hash, tenant_id, team_id, user_id, allowed_models,
       revoked, expires_at, redaction_policy, limits, version, allowed_regions,
       response_cache_ttl_seconds
FROM catalog.edge_principals
WHERE version > $1
"""

KEY_QUERY = """
SELECT key_id, secret_hash, tenant_id, team_id, user_id, allowed_models,
       revoked, expires_at, redaction_policy, limits, version, allowed_regions,
       response_cache_ttl_seconds
FROM catalog.edge_principals
WHERE key_id = $1
"""

VERSION_QUERY = "SELECT version FROM catalog.principals_version"


class Invalidation(msgspec.Struct, frozen=True, kw_only=True):
    """Published on :data:`INVALIDATION_CHANNEL` after a committed change.

    Attributes:
        version: the principals version the change produced.
        key_ids: the keys affected, when known (a hint; edges reload by
            version regardless).
    """

    version: int
    key_ids: list[str] | None = None

    def encode(self) -> bytes:
        """The message as published (JSON)."""
        return msgspec.json.encode(self)


def decode_invalidation(raw: bytes | str) -> Invalidation:
    """Parse a published message; unknown fields are ignored.

    Raises:
        msgspec.DecodeError, msgspec.ValidationError (both ``ValueError``).
    """
    return msgspec.json.decode(raw, type=Invalidation, strict=False)
