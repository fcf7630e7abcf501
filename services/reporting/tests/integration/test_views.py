"""The ledger's documented views (migration 0003): their columns, the spend
views quota will read, and the read-only role's grants."""

from __future__ import annotations

import asyncpg
import pytest

from ..conftest import ReportingEnv

pytestmark = pytest.mark.integration

VIEWS = ("v_usage_hourly", "v_usage_daily", "v_usage_monthly", "v_spend_daily", "v_spend_monthly", "v_calls")


async def test_calls_view_hides_bookkeeping_and_matches_the_table(reporting_env: ReportingEnv) -> None:
    conn = await asyncpg.connect(reporting_env.dsn)
    try:
        cols = {
            r[0]
            for r in await conn.fetch(
                "SELECT column_name FROM information_schema.columns WHERE table_schema='ledger' AND table_name='v_calls'"
            )
        }
        assert not cols & {"reservation", "started_event_id", "terminal_event_id", "updated_at", "redaction"}
        assert {
            "request_id",
            "tenant_id",
            "cost_micro_usd",
            "latency_ms",
            "redaction_mode",
            "redaction_language_policy",
        } <= cols
        assert await conn.fetchval("SELECT count(*) FROM ledger.v_calls") == await conn.fetchval(
            "SELECT count(*) FROM ledger.usage_records"
        )
    finally:
        await conn.close()


async def test_spend_views_sum_to_the_calls(reporting_env: ReportingEnv) -> None:
    conn = await asyncpg.connect(reporting_env.dsn)
    try:
        want = await conn.fetch(
            "SELECT tenant_id, team_id, key_id, date_trunc('month', ts_start AT TIME ZONE 'UTC') AS m, "
            "sum(cost_micro_usd)::bigint AS c FROM ledger.usage_records GROUP BY 1,2,3,4 ORDER BY 1,2,3,4"
        )
        got = await conn.fetch(
            "SELECT tenant_id, team_id, key_id, month_start AT TIME ZONE 'UTC' AS m, sum(cost_micro_usd)::bigint AS c "
            "FROM ledger.v_spend_monthly GROUP BY 1,2,3,4 ORDER BY 1,2,3,4"
        )
        assert [tuple(r) for r in got] == [tuple(r) for r in want]
        daily = await conn.fetchval("SELECT sum(cost_micro_usd) FROM ledger.v_spend_daily")
        assert daily == await conn.fetchval("SELECT sum(cost_micro_usd) FROM ledger.usage_records")
        # team_id is NULL (not '') for calls without a team, in every view
        for view in VIEWS:
            assert await conn.fetchval(f"SELECT count(*) FROM ledger.{view} WHERE team_id = ''") == 0
            assert await conn.fetchval(f"SELECT count(*) FROM ledger.{view} WHERE team_id IS NULL") > 0
    finally:
        await conn.close()


async def test_reader_role_reads_views_only(reporting_env: ReportingEnv) -> None:
    conn = await asyncpg.connect(reporting_env.dsn)
    try:
        if not await conn.fetchval("SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'tollway_reader')"):
            pytest.skip(
                "role tollway_reader absent in this cluster and not creatable by the test user: "
                "infra must create it (CREATE ROLE tollway_reader NOLOGIN) — see docs/analytics.md"
            )
        for view in VIEWS:
            assert await conn.fetchval(
                "SELECT has_table_privilege('tollway_reader', $1, 'SELECT')", f"ledger.{view}"
            )
        for table in ("usage_records", "usage_rollup_hourly", "usage_rollup_daily", "usage_rollup_monthly"):
            assert not await conn.fetchval(
                "SELECT has_table_privilege('tollway_reader', $1, 'SELECT')", f"ledger.{table}"
            )
        for priv in ("INSERT", "UPDATE", "DELETE"):
            assert not await conn.fetchval(
                "SELECT has_table_privilege('tollway_reader', 'ledger.v_calls', $1)", priv
            )
    finally:
        await conn.close()
