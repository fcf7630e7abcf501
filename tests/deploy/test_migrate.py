"""The schema owners' `migrate` commands (what the chart's hook Job runs) and
migrate-on-start off, against a real Postgres (a fresh database per test)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tollway_ledger.migrate import MIGRATIONS_DIR as LEDGER_MIGRATIONS
from tollway_quota.migrate import MIGRATIONS_DIR as QUOTA_MIGRATIONS
from tollway_runtime.migrations import migrate_or_check, pending_migrations

pytestmark = pytest.mark.integration


def _migrate(module: str, dsn: str) -> list[str]:
    env = {**os.environ, "TOLLWAY_POSTGRES_DSN": dsn, "TOLLWAY_LOG_FORMAT": "json"}
    out = subprocess.run(
        [sys.executable, "-m", module], env=env, capture_output=True, text=True, timeout=120, check=True
    )
    (line,) = [json.loads(x) for x in (out.stdout + out.stderr).splitlines() if "migrations_applied" in x]
    return list(line["applied"])


async def test_migrate_commands_apply_each_schema_once(fresh_database: str) -> None:
    quota = _migrate("tollway_quota.migrate", fresh_database)
    ledger = _migrate("tollway_ledger.migrate", fresh_database)
    assert quota and all("_catalog_" in m for m in quota)
    assert ledger and all("_ledger_" in m for m in ledger)
    # A rerun (every upgrade runs the Job) applies nothing.
    assert _migrate("tollway_quota.migrate", fresh_database) == []
    assert _migrate("tollway_ledger.migrate", fresh_database) == []
    assert pending_migrations(fresh_database, QUOTA_MIGRATIONS) == []


async def test_migrate_on_start_off_refuses_a_schema_behind_the_code(fresh_database: str) -> None:
    with pytest.raises(RuntimeError, match="migrations are pending"):
        migrate_or_check(fresh_database, LEDGER_MIGRATIONS, migrate=False)
    assert pending_migrations(fresh_database, LEDGER_MIGRATIONS)  # the check changed nothing
    _migrate("tollway_ledger.migrate", fresh_database)
    assert migrate_or_check(fresh_database, LEDGER_MIGRATIONS, migrate=False) == []


def test_migrate_check_config_needs_only_the_dsn() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOLLWAY_")}
    env["TOLLWAY_POSTGRES_DSN"] = "postgresql://tollway:secret@db.example:5432/tollway"
    out = subprocess.run(
        [sys.executable, "-m", "tollway_quota.migrate", "--check-config"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    settings = json.loads(out.stdout)
    assert settings["postgres_dsn"] == "postgresql://tollway:***@db.example:5432/tollway"
