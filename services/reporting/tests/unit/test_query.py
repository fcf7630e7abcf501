"""Pure query building: parameter validation, bucket alignment, tenant scoping."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tollway_contracts.keys import hash_secret, new_reporting_token, parse_key, parse_reporting_token
from tollway_reporting.export import to_csv, to_parquet
from tollway_reporting.query import (
    QueryError,
    Scope,
    coarsest_granularity,
    is_aligned,
    parse_time,
    parse_top_query,
    parse_usage_query,
    top_sql,
    usage_columns,
    usage_sql,
)

pytestmark = pytest.mark.unit

TENANT = Scope(tenant_id="tn_aaaaaaaaaaaa", token_id="abc")
ADMIN = Scope(tenant_id=None)


def test_parse_time_forms() -> None:
    assert parse_time("2026-10-01", "start") == datetime(2026, 10, 1, tzinfo=UTC)
    assert parse_time("2026-10-01T02:00:00+02:00", "start") == datetime(2026, 10, 1, tzinfo=UTC)
    assert parse_time("2026-10-01T00:00:00Z", "start") == datetime(2026, 10, 1, tzinfo=UTC)
    # "+" unencoded in a query string arrives as a space
    assert parse_time("2026-10-01T02:00:00 02:00", "start") == datetime(2026, 10, 1, tzinfo=UTC)
    for bad in ("", "yesterday", "2026-10-01T00:00:00"):
        with pytest.raises(QueryError):
            parse_time(bad, "start")


def test_alignment() -> None:
    assert is_aligned(datetime(2026, 10, 1, tzinfo=UTC), "month")
    assert not is_aligned(datetime(2026, 10, 2, tzinfo=UTC), "month")
    assert is_aligned(datetime(2026, 10, 2, tzinfo=UTC), "day")
    assert not is_aligned(datetime(2026, 10, 2, 1, tzinfo=UTC), "day")
    assert is_aligned(datetime(2026, 10, 2, 1, tzinfo=UTC), "hour")
    assert not is_aligned(datetime(2026, 10, 2, 1, 0, 1, tzinfo=UTC), "hour")
    assert (
        coarsest_granularity(datetime(2026, 10, 1, tzinfo=UTC), datetime(2026, 12, 1, tzinfo=UTC)) == "month"
    )
    assert coarsest_granularity(datetime(2026, 10, 1, tzinfo=UTC), datetime(2026, 12, 2, tzinfo=UTC)) == "day"
    assert (
        coarsest_granularity(datetime(2026, 10, 1, 5, tzinfo=UTC), datetime(2026, 12, 2, tzinfo=UTC))
        == "hour"
    )
    assert (
        coarsest_granularity(datetime(2026, 10, 1, 5, 1, tzinfo=UTC), datetime(2026, 12, 2, tzinfo=UTC))
        is None
    )


def test_usage_query_parsing() -> None:
    q = parse_usage_query(
        {"start": "2026-10-01", "end": "2026-11-01", "group_by": "model, team,model", "team_id": "team-a"}
    )
    assert q.granularity == "day" and q.group_by == ("model", "team") and q.filters == {"team_id": "team-a"}
    assert usage_columns(q)[:3] == ["bucket_start", "model", "team_id"]


def test_tenant_scope_is_always_in_the_sql() -> None:
    q = parse_usage_query({"start": "2026-10-01", "end": "2026-11-01", "group_by": "tenant"})
    sql, args = usage_sql(TENANT, q, 10)
    assert "tenant_id = $3" in sql and args[2] == TENANT.tenant_id
    sql, args = usage_sql(ADMIN, q, 10)
    assert "tenant_id =" not in sql and len(args) == 2
    t = parse_top_query({"by": "key", "start": "2026-10-01", "end": "2026-11-01"})
    sql, args = top_sql(TENANT, t)
    assert "tenant_id = $3" in sql and args[2] == TENANT.tenant_id
    # Naming its own tenant is fine; another is a 403.
    own = parse_usage_query({"start": "2026-10-01", "end": "2026-11-01", "tenant_id": TENANT.tenant_id})
    assert usage_sql(TENANT, own, 10)[1].count(TENANT.tenant_id) == 1
    other = parse_usage_query({"start": "2026-10-01", "end": "2026-11-01", "tenant_id": "tn_bbbbbbbbbbbb"})
    with pytest.raises(QueryError) as exc:
        usage_sql(TENANT, other, 10)
    assert exc.value.status == 403
    sql, args = usage_sql(ADMIN, other, 10)
    assert "tenant_id = $3" in sql and args[2] == "tn_bbbbbbbbbbbb"


def test_filter_values_are_bound_not_interpolated() -> None:
    q = parse_usage_query({"start": "2026-10-01", "end": "2026-11-01", "model": "x'; DROP TABLE y; --"})
    sql, args = usage_sql(ADMIN, q, 10)
    assert "DROP" not in sql and "x'; DROP TABLE y; --" in args


@pytest.mark.parametrize(
    "params",
    [
        {"start": "2026-10-01", "end": "2026-10-01"},
        {"start": "2026-10-01", "end": "2026-11-01", "granularity": "minute"},
        {"start": "2026-10-01", "end": "2026-11-01", "group_by": "user"},
        {"start": "2026-10-01T00:00:01Z", "end": "2026-11-01", "granularity": "hour"},
        {"start": "2026-01-01", "end": "2026-06-01", "granularity": "hour"},
    ],
)
def test_usage_query_rejections(params: dict) -> None:
    with pytest.raises(QueryError) as exc:
        parse_usage_query(params)
    assert exc.value.status == 400


def test_export_formats_share_columns() -> None:
    import io

    import pyarrow.parquet as pq

    cols = ["bucket_start", "team_id", "requests", "cost_micro_usd", "latency_p50_ms"]
    rows = [
        (datetime(2026, 10, 1, tzinfo=UTC), None, 3, 1_500_000, 75.0),
        (datetime(2026, 10, 2, tzinfo=UTC), "team-a", 1, 2, None),
    ]
    text = to_csv(cols, rows).decode()
    assert text.splitlines()[1] == "2026-10-01T00:00:00Z,,3,1500000,75.0"
    table = pq.read_table(io.BytesIO(to_parquet(cols, rows)))
    assert table.column_names == cols
    assert table.to_pylist()[1] == {
        "bucket_start": rows[1][0],
        "team_id": "team-a",
        "requests": 1,
        "cost_micro_usd": 2,
        "latency_p50_ms": None,
    }


def test_reporting_token_format() -> None:
    full, parsed = new_reporting_token()
    assert full.startswith(f"twr_{parsed.key_id}_") and parse_reporting_token(full) == parsed
    assert parse_key(full) is None  # never usable as an API key
    assert parse_reporting_token("tw_" + full[4:]) is None
    assert len(hash_secret(b"p", parsed.key_id, parsed.secret)) == 64
