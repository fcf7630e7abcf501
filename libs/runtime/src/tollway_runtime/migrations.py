"""Schema migrations: the one tool shared by every schema owner (yoyo-migrations).

Each owning service keeps plain SQL migrations in its package
(``migrations/NNNN_<schema>_<what>.sql``; ids are prefixed with the schema so
the owners never collide in yoyo's bookkeeping table) and applies them at
start with :func:`apply_migrations`. yoyo takes a lock, so two replicas
starting together apply each migration once.

In Kubernetes the chart runs each owner's ``migrate`` command
(:func:`migrate_main`, e.g. ``python -m tollway_quota.migrate``) as a Helm
hook Job before the pods of a release start, and turns migrate-on-start off;
a service started that way checks with :func:`pending_migrations` and refuses
to start on a schema that is behind its code.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn
from urllib.parse import urlsplit, urlunsplit

import structlog
from yoyo import get_backend, read_migrations

from tollway_runtime.cli import settings_from_cli
from tollway_runtime.settings import PostgresSettings, ServiceSettings


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


def pending_migrations(dsn: str, directory: str | Path) -> list[str]:
    """The ids of the migrations in ``directory`` not yet applied; blocking.

    Raises:
        psycopg.Error: the database is unreachable.
    """
    backend = get_backend(yoyo_url(dsn))
    return [m.id for m in backend.to_apply(read_migrations(str(directory)))]


def migrate_or_check(dsn: str, directory: str | Path, *, migrate: bool) -> list[str]:
    """At a service's start: apply pending migrations (``migrate``), or else
    check that none is pending; blocking.

    Returns:
        The ids applied now (always empty when ``migrate`` is false).

    Raises:
        RuntimeError: ``migrate`` is false and migrations are pending (the
            ``migrate`` command has not run for this version); the service
            must not run against a schema older than its code.
        psycopg.Error: the database is unreachable or a migration fails.
    """
    if migrate:
        return apply_migrations(dsn, directory)
    pending = pending_migrations(dsn, directory)
    if pending:
        raise RuntimeError(
            f"migrate-on-start is off and migrations are pending: {pending}; run the migrate command"
        )
    return []


class MigrateSettings(ServiceSettings, PostgresSettings):
    """What the ``migrate`` command reads: only ``TOLLWAY_POSTGRES_DSN`` (and logging),
    so the migration Job needs no other secret."""


def migrate_main(service: str, directory: str | Path, argv: list[str] | None = None) -> int:
    """The ``migrate`` command of a schema owner: apply its pending migrations
    and exit (0; a failure raises and exits non-zero). ``--check-config`` prints
    the settings (DSN password masked) and exits.

    Args:
        service: the owner's name, bound on the log lines (``quota``, ``ledger``).
        directory: the owner's migrations directory.
        argv: arguments (default ``sys.argv[1:]``).
    """
    settings = settings_from_cli(MigrateSettings, service=f"{service}-migrate", argv=argv)
    applied = apply_migrations(settings.postgres_dsn, directory)
    structlog.get_logger("tollway_runtime.migrations").info("migrations_applied", applied=applied)
    return 0


def migrations_dir(module_file: str | Path) -> Path:
    """The ``migrations`` directory beside a schema owner's module (pass ``__file__``)."""
    return Path(module_file).parent / "migrations"


def run_migrate_command(service: str, directory: str | Path) -> NoReturn:
    """The body of a schema owner's ``python -m <package>.migrate``: :func:`migrate_main`
    with the process's arguments, then exit with its status.

    The Helm chart runs each owner's command as a pre-install/pre-upgrade hook
    Job and sets ``TOLLWAY_<SERVICE>_MIGRATE_ON_START=false`` on the service; the
    command reads only ``TOLLWAY_POSTGRES_DSN``, and yoyo's lock makes concurrent
    runs safe.
    """
    sys.exit(migrate_main(service, directory))
