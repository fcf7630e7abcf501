"""Benchmark of the reporting queries over a large ledger.

Creates a fresh database (quota + ledger migrations), generates N finished
calls straight into ``ledger.usage_records`` with ``generate_series`` and
derives the hourly/daily/monthly rollups from them in SQL (the ledger's own
rollup definition: same keys and sums), then times each reporting query
through the service's own SQL builder and store (``ReportingStore.fetch``),
and prints p50/p95 per query. Drops the database at the end (``--keep`` to
keep it).

    uv run --no-sync python bench/reporting_queries.py --calls 5000000 --runs 30

Not part of the test suite (the 5M generation takes minutes).
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from tollway_reporting.export import to_parquet
from tollway_reporting.query import (
    Scope,
    finish_rows,
    parse_top_query,
    parse_usage_query,
    top_columns,
    top_sql,
    usage_columns,
    usage_sql,
)
from tollway_reporting.store import ReportingStore

TENANTS, TEAMS_PER_TENANT, KEYS_PER_TENANT = 50, 5, 20
MODELS = ["gpt-4o-mini", "gpt-4o", "o3-mini", "claude-sonnet", "claude-haiku", "llama-70b"]
START, DAYS = datetime(2026, 9, 1, tzinfo=UTC), 91  # Sep, Oct, Nov 2026


def _with_db(dsn: str, name: str) -> str:
    parts = urlsplit(dsn)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))


def migrate(dsn: str) -> None:
    import tollway_ledger
    import tollway_quota
    from tollway_runtime.migrations import apply_migrations

    apply_migrations(dsn, Path(tollway_quota.__file__).parent / "migrations")
    apply_migrations(dsn, Path(tollway_ledger.__file__).parent / "migrations")


GENERATE = f"""
INSERT INTO ledger.usage_records (
    request_id, tenant_id, team_id, user_id, key_id, ts_start, ts_end, model, provider,
    upstream_model, stream, status, status_code, error_type, attempts, prompt_tokens,
    completion_tokens, cached_tokens, reasoning_tokens, total_tokens, cost_micro_usd,
    latency_ms, ttft_ms, overhead_ms)
SELECT md5(g::text || 'tw')::uuid,
       'tn_' || lpad((g % {TENANTS})::text, 12, '0'),
       CASE WHEN g % 11 = 0 THEN NULL ELSE 'tm_' || lpad((g % {TENANTS})::text, 8, '0') || lpad(((g / {TENANTS}) % {TEAMS_PER_TENANT})::text, 4, '0') END,
       NULL,
       lpad((g % {TENANTS})::text, 4, '0') || lpad(((g / 7) % {KEYS_PER_TENANT})::text, 8, '0'),
       ts, ts + make_interval(secs => lat / 1000.0),
       (ARRAY{MODELS!r})[1 + (g % {len(MODELS)})],
       'openai', NULL, g % 3 = 0,
       CASE WHEN g % 29 = 0 THEN 'failed' ELSE 'completed' END,
       CASE WHEN g % 29 = 0 THEN 502 ELSE 200 END,
       CASE WHEN g % 29 = 0 THEN 'upstream_error' END,
       1, p, c, p / 10, c / 5, p + c, p * 3 + c * 12, lat, lat / 4, 1.5
FROM generate_series(1, $1::bigint) AS g,
     LATERAL (SELECT $2::timestamptz + make_interval(secs => (g::bigint * 7919) % ({DAYS} * 86400)) AS ts,
                     (g * 37) % 3000 + 1 AS p, (g * 53) % 900 + 1 AS c,
                     ((g * 7) % 5000 + 20)::double precision AS lat) v
"""


def rollup_sql(table: str, unit: str) -> str:
    bounds = [50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000]
    names, exprs, lo = [], [], None
    for b in bounds:
        names.append(f"latency_le_{b}")
        exprs.append(
            f"count(*) FILTER (WHERE latency_ms <= {b}" + (f" AND latency_ms > {lo})" if lo else ")")
        )
        lo = b
    names.append("latency_le_inf")
    exprs.append(f"count(*) FILTER (WHERE latency_ms > {lo})")
    sums = [
        "prompt_tokens",
        "completion_tokens",
        "cached_tokens",
        "reasoning_tokens",
        "total_tokens",
        "cost_micro_usd",
    ]
    return f"""
INSERT INTO ledger.{table} (bucket_start, tenant_id, team_id, key_id, model, requests, errors,
    {", ".join(sums)}, latency_ms_sum, {", ".join(names)})
SELECT date_trunc('{unit}', ts_start AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', tenant_id, coalesce(team_id, ''),
       key_id, model, count(*), count(*) FILTER (WHERE status = 'failed' OR status_code >= 400),
       {", ".join(f"coalesce(sum({s}), 0)" for s in sums)}, coalesce(sum(latency_ms), 0), {", ".join(exprs)}
FROM ledger.usage_records WHERE status <> 'in_flight'
GROUP BY 1, 2, 3, 4, 5
"""


def queries() -> list[tuple[str, Scope, str, dict]]:
    t = Scope(tenant_id="tn_000000000007", token_id="bench")
    admin = Scope(tenant_id=None)
    return [
        ("tenant: daily totals, 30 days", t, "usage", {"start": "2026-11-01", "end": "2026-12-01"}),
        (
            "tenant: daily by team+model, 91 days",
            t,
            "usage",
            {"start": "2026-09-01", "end": "2026-12-01", "group_by": "team,model"},
        ),
        (
            "tenant: hourly by key, 7 days",
            t,
            "usage",
            {"start": "2026-11-10", "end": "2026-11-17", "granularity": "hour", "group_by": "key"},
        ),
        (
            "tenant: monthly by key+model, 3 months",
            t,
            "usage",
            {"start": "2026-09-01", "end": "2026-12-01", "granularity": "month", "group_by": "key,model"},
        ),
        (
            "tenant: top 10 keys, 1 month (monthly)",
            t,
            "top",
            {"by": "key", "start": "2026-10-01", "end": "2026-11-01"},
        ),
        (
            "tenant: top 10 keys, 30 days (daily)",
            t,
            "top",
            {"by": "key", "start": "2026-10-15", "end": "2026-11-14"},
        ),
        (
            "tenant: top models, 7 days (hourly)",
            t,
            "top",
            {"by": "model", "start": "2026-11-10T06:00:00Z", "end": "2026-11-17T06:00:00Z"},
        ),
        (
            "admin: top 10 tenants, 91 days (monthly)",
            admin,
            "top",
            {"by": "tenant", "start": "2026-09-01", "end": "2026-12-01"},
        ),
        (
            "admin: daily by tenant, 91 days",
            admin,
            "usage",
            {"start": "2026-09-01", "end": "2026-12-01", "group_by": "tenant"},
        ),
        (
            "tenant: parquet export daily by key+model, 91 days",
            t,
            "usage-parquet",
            {"start": "2026-09-01", "end": "2026-12-01", "group_by": "key,model"},
        ),
    ]


async def run(args: argparse.Namespace) -> None:
    name = f"reporting_bench_{secrets.token_hex(4)}"
    admin = await asyncpg.connect(args.dsn)
    await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    dsn = _with_db(args.dsn, name)
    try:
        await asyncio.to_thread(migrate, dsn)
        conn = await asyncpg.connect(dsn)
        try:
            for month in ("2026-09-01", "2026-10-01", "2026-11-01"):
                await conn.execute(
                    "SELECT ledger.ensure_usage_partition($1)",
                    datetime.fromisoformat(month + "T00:00:00+00:00"),
                )
            t0 = time.perf_counter()
            await conn.execute(GENERATE, args.calls, START, timeout=None)
            t1 = time.perf_counter()
            for table, unit in (
                ("usage_rollup_hourly", "hour"),
                ("usage_rollup_daily", "day"),
                ("usage_rollup_monthly", "month"),
            ):
                await conn.execute(rollup_sql(table, unit), timeout=None)
            await conn.execute("ANALYZE", timeout=None)
            t2 = time.perf_counter()
            sizes = {
                t: await conn.fetchval(f"SELECT count(*) FROM ledger.{t}")
                for t in (
                    "usage_records",
                    "usage_rollup_hourly",
                    "usage_rollup_daily",
                    "usage_rollup_monthly",
                )
            }
        finally:
            await conn.close()
        print(f"generated {args.calls:,} calls in {t1 - t0:.1f} s; rollups + ANALYZE in {t2 - t1:.1f} s")
        print("rows: " + ", ".join(f"{k} {v:,}" for k, v in sizes.items()))
        pool = await asyncpg.create_pool(dsn, min_size=1, max_size=2)
        store = ReportingStore(pool, 60_000)
        print(f"\n{'query':<52} {'rows':>7} {'p50 ms':>9} {'p95 ms':>9}")
        for label, scope, kind, params in queries():
            if kind.startswith("usage"):
                q = parse_usage_query(params)
                sql, qargs = usage_sql(scope, q, 100_000)
                cols = usage_columns(q)
            else:
                q = parse_top_query(params)
                sql, qargs = top_sql(scope, q)
                cols = top_columns(q)
            times, rows = [], []
            for i in range(args.runs + 1):
                s = time.perf_counter()
                rows = finish_rows(await store.fetch(sql, qargs))
                if kind == "usage-parquet":
                    to_parquet(cols, rows)
                if i:  # the first run warms caches
                    times.append((time.perf_counter() - s) * 1000)
            times.sort()
            p95 = times[min(len(times) - 1, int(0.95 * len(times) + 0.999) - 1)]
            print(f"{label:<52} {len(rows):>7} {statistics.median(times):>9.2f} {p95:>9.2f}")
        await pool.close()
    finally:
        if not args.keep:
            admin = await asyncpg.connect(args.dsn)
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            await admin.close()
        else:
            print(f"kept database {name}")


def main() -> None:
    """Parse arguments and run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--dsn",
        default="postgresql://tollway:tollway@127.0.0.1:5432/tollway",
        help="a DSN whose role may CREATE DATABASE",
    )
    parser.add_argument("--calls", type=int, default=5_000_000)
    parser.add_argument("--runs", type=int, default=30, help="timed runs per query (after one warm-up)")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
