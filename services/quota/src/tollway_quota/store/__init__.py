"""Postgres adapter for the ``catalog`` schema (psycopg 3, async pool), in
parts by entity: ``principals`` (tenants, teams, users), ``keys``, ``limits``,
over ``base`` (the shared helpers).

Every mutating method runs in ONE transaction that also bumps the principals
version (``StoreBase._bump``) and stamps it on every API key row whose
``catalog.edge_principals`` row changes. It returns that version and the
affected key ids so the caller can publish the invalidation after commit.

Ordering rule: the version bump takes the row lock on
``catalog.principals_version_state`` and holds it to commit, so versions
become visible in increasing order; an edge that loads ``version > N`` never
skips a change committed later with a smaller version.
"""

from tollway_quota.store.base import Change, Cursor
from tollway_quota.store.keys import Keys
from tollway_quota.store.limits import Limits
from tollway_quota.store.principals import Principals


class CatalogStore(Principals, Keys, Limits):
    """Reads and writes principals. Raises ``NotFound``, ``Conflict`` or
    ``BadRequest`` (``tollway_quota.errors``) for admin mistakes;
    ``psycopg.Error`` otherwise."""


__all__ = ["CatalogStore", "Change", "Cursor"]
