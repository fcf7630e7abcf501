"""``python -m tollway_ledger.migrate [--check-config]``: apply the ``ledger`` schema's
pending migrations and exit.

The Helm chart runs it as a pre-install/pre-upgrade hook Job and sets
``TOLLWAY_LEDGER_MIGRATE_ON_START=false`` on the service. It reads only
``TOLLWAY_POSTGRES_DSN``; yoyo's lock makes concurrent runs safe.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tollway_runtime.migrations import migrate_main

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns 0 once the schema is current."""
    return migrate_main("ledger", MIGRATIONS_DIR, argv)


if __name__ == "__main__":
    sys.exit(main())
