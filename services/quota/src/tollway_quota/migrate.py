"""``python -m tollway_quota.migrate [--check-config]``: apply the ``catalog`` schema's
pending migrations and exit (:func:`tollway_runtime.migrations.run_migrate_command`)."""

from __future__ import annotations

from tollway_runtime.migrations import migrations_dir, run_migrate_command

MIGRATIONS_DIR = migrations_dir(__file__)
"""The ``catalog`` schema's migrations (also applied or checked at start by ``app``)."""

if __name__ == "__main__":
    run_migrate_command("quota", MIGRATIONS_DIR)
