"""Schema migrations: the one tool shared by every schema owner (yoyo-migrations).

Each owning service keeps plain SQL migrations in its package
(``migrations/NNNN_<schema>_<what>.sql``; ids are prefixed with the schema so
the owners never collide in yoyo's bookkeeping table) and applies them at
start with :func:`apply_migrations`. yoyo takes a lock, so two replicas
starting together apply each migration once.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from yoyo import get_backend, read_migrations


def yoyo_url(dsn: str) -> str:
    """Turn a libpq/asyncpg DSN (``postgresql://...``) into yoyo's psycopg 3 URL."""
    parts = urlsplit(dsn)
    scheme = "postgresql+psycopg"
    return urlunsplit((scheme, parts.netloc, parts.path, parts.query, parts.fragment))


def apply_migrations(dsn: str, directory: str | Path) -> list[str]:
    """Apply every pending migration in ``directory``; blocking (run it in a thread
    from async code).

    Returns:
        The ids of the migrations applied now (empty when up to date).

    Raises:
        psycopg.Error: the database is unreachable or a migration fails (the
            failing migration is rolled back).
    """
    backend = get_backend(yoyo_url(dsn))
    migrations = read_migrations(str(directory))
    with backend.lock():
        pending = backend.to_apply(migrations)
        backend.apply_migrations(pending)
    return [m.id for m in pending]
