"""The reporting API against real Postgres: correctness against sums over
usage_records, tenant isolation on every endpoint and format, exports, auth
and validation errors, the OpenAPI description."""

from __future__ import annotations

import csv
import io
from datetime import datetime

import aiohttp
import asyncpg
import orjson
import pyarrow.parquet as pq
import pytest

from ..conftest import ReportingEnv

pytestmark = pytest.mark.integration

RANGE = {"start": "2026-09-01T00:00:00Z", "end": "2026-12-01T00:00:00Z"}
UNITS = {"hour": "hour", "day": "day", "month": "month"}
SUMS = (
    "requests",
    "errors",
    "prompt_tokens",
    "completion_tokens",
    "cached_tokens",
    "reasoning_tokens",
    "total_tokens",
    "cost_micro_usd",
)


async def get(env: ReportingEnv, path: str, token: str | None, **params) -> tuple[int, bytes, str]:
    headers = {} if token is None else env.auth(token)
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"{env.reporting_url}/v1/reporting/{path}", params=params, headers=headers) as r,
    ):
        return r.status, await r.read(), r.headers.get("Content-Type", "")


async def get_json(env: ReportingEnv, path: str, token: str | None, **params) -> dict:
    status, body, _ = await get(env, path, token, **params)
    assert status == 200, body
    return orjson.loads(body)


async def expected_usage(
    env: ReportingEnv, granularity: str, group_by: list[str], tenant: str | None
) -> list[dict]:
    """The same report computed straight from usage_records (finished calls)."""
    cols = {"tenant": "tenant_id", "team": "team_id", "key": "key_id", "model": "model"}
    dims = [cols[g] for g in group_by]
    keys = ", ".join(["b", *dims])
    where = "status <> 'in_flight'" + (" AND tenant_id = $1" if tenant else "")
    sql = f"""
        SELECT date_trunc('{UNITS[granularity]}', ts_start AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS b,
               {"".join(d + ", " for d in dims)}
               count(*) AS requests,
               count(*) FILTER (WHERE status = 'failed' OR status_code >= 400) AS errors,
               {", ".join(f"coalesce(sum({c}), 0)::bigint AS {c}" for c in SUMS[2:])}
        FROM ledger.usage_records WHERE {where}
        GROUP BY {keys} ORDER BY {", ".join(k + " NULLS FIRST" for k in ["b", *dims])}"""
    conn = await asyncpg.connect(env.dsn)
    try:
        rows = await conn.fetch(sql, *([tenant] if tenant else []))
    finally:
        await conn.close()
    out = []
    for r in rows:
        item = {"bucket_start": r["b"].isoformat().replace("+00:00", "Z")}
        item.update({d: r[d] for d in dims})
        item.update({m: r[m] for m in SUMS})
        out.append(item)
    return out


def project(rows: list[dict], keys: list[str]) -> list[dict]:
    return [{k: r[k] for k in keys} for r in rows]


@pytest.mark.parametrize("granularity", ["hour", "day", "month"])
@pytest.mark.parametrize("group_by", [[], ["team"], ["model", "key"], ["tenant", "team", "key", "model"]])
async def test_usage_equals_sums_over_usage_records(
    reporting_env: ReportingEnv, granularity: str, group_by: list[str]
) -> None:
    env = reporting_env
    params = dict(RANGE, granularity=granularity, group_by=",".join(group_by))
    if granularity == "hour":
        params["start"], params["end"] = "2026-09-30T00:00:00Z", "2026-11-30T00:00:00Z"
    tenant = env.tenants[0]
    body = await get_json(env, "usage", env.tokens[tenant], **params)
    want = await expected_usage(env, granularity, group_by, tenant)
    keys = list(want[0].keys())
    assert project(body["data"], keys) == want
    admin = await get_json(env, "usage", env.admin_token, **params)
    assert project(admin["data"], keys) == await expected_usage(env, granularity, group_by, None)


async def test_latency_percentiles_from_summed_buckets(reporting_env: ReportingEnv) -> None:
    env = reporting_env
    body = await get_json(env, "usage", env.admin_token, granularity="month", group_by="tenant", **RANGE)
    conn = await asyncpg.connect(env.dsn)
    try:
        for row in body["data"]:
            lat = await conn.fetch(
                "SELECT latency_ms FROM ledger.usage_records WHERE tenant_id = $1 AND "
                "date_trunc('month', ts_start AT TIME ZONE 'UTC') = $2::timestamp",
                row["tenant_id"],
                datetime.fromisoformat(row["bucket_start"]).replace(tzinfo=None),
            )
            values = sorted(r[0] for r in lat)
            assert row["latency_ms_avg"] == pytest.approx(sum(values) / len(values))
            # The estimate lies in the histogram bucket holding the true quantile.
            bounds = [0, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000]
            for q, col in ((0.5, "latency_p50_ms"), (0.95, "latency_p95_ms"), (0.99, "latency_p99_ms")):
                true = values[min(len(values) - 1, max(0, int(q * len(values) + 0.999999) - 1))]
                if true > 60000:
                    assert row[col] == 60000
                    continue
                hi = next(b for b in bounds if b >= true)
                lo = bounds[bounds.index(hi) - 1] if hi else 0
                assert lo <= row[col] <= hi, (col, true, row[col])
        assert (
            await conn.fetchval(
                "SELECT ledger.latency_quantile(0.5, ARRAY[0,10,0,0,0,0,0,0,0,0,0]::bigint[])"
            )
            == 75
        )
        assert (
            await conn.fetchval("SELECT ledger.latency_quantile(0.5, ARRAY[0,0,0,0,0,0,0,0,0,0,0]::bigint[])")
            is None
        )
    finally:
        await conn.close()


async def _all_reports(env: ReportingEnv, token: str, fmt: str) -> list[tuple[str, bytes]]:
    out = []
    for gran in ("hour", "day", "month"):
        params = dict(RANGE, granularity=gran, group_by="tenant,team,key,model", format=fmt)
        if gran == "hour":
            params["start"], params["end"] = "2026-09-30T00:00:00Z", "2026-11-30T00:00:00Z"
        status, body, _ = await get(env, "usage", token, **params)
        assert status == 200, body
        out.append((f"usage-{gran}", body))
    for by in ("tenant", "team", "key", "model"):
        for metric in ("cost_micro_usd", "requests"):
            status, body, _ = await get(
                env, "top", token, by=by, metric=metric, limit=1000, format=fmt, **RANGE
            )
            assert status == 200, body
            out.append((f"top-{by}", body))
    return out


def _rows(fmt: str, body: bytes) -> list[dict]:
    if fmt == "json":
        return orjson.loads(body)["data"]
    if fmt == "csv":
        return list(csv.DictReader(io.StringIO(body.decode())))
    return pq.read_table(io.BytesIO(body)).to_pylist()


@pytest.mark.parametrize("fmt", ["json", "csv", "parquet"])
async def test_tenant_token_never_sees_another_tenants_rows(reporting_env: ReportingEnv, fmt: str) -> None:
    env = reporting_env
    a, b = env.tenants
    conn = await asyncpg.connect(env.dsn)
    try:
        b_keys = {
            r[0]
            for r in await conn.fetch(
                "SELECT DISTINCT key_id FROM ledger.usage_records WHERE tenant_id=$1", b
            )
        }
        a_cost = await conn.fetchval(
            "SELECT sum(cost_micro_usd) FROM ledger.usage_records WHERE tenant_id=$1", a
        )
        a_reqs = await conn.fetchval("SELECT count(*) FROM ledger.usage_records WHERE tenant_id=$1", a)
    finally:
        await conn.close()
    for name, body in await _all_reports(env, env.tokens[a], fmt):
        rows = _rows(fmt, body)
        assert rows, name
        for row in rows:
            if "tenant_id" in row:
                assert row["tenant_id"] == a, name
            if "key_id" in row:
                assert row["key_id"] not in b_keys, name
        # every report covers all of the tenant's calls, and nothing else
        assert sum(int(r["cost_micro_usd"]) for r in rows) == a_cost, name
        assert sum(int(r["requests"]) for r in rows) == a_reqs, name
    # Naming the other tenant is refused, on every endpoint and format.
    for path, params in (("usage", dict(RANGE)), ("top", dict(RANGE, by="key"))):
        status, body, _ = await get(env, path, env.tokens[a], tenant_id=b, format=fmt, **params)
        assert status == 403
        assert orjson.loads(body)["error"]["code"] == "tenant_forbidden"
    # Filtering by the other tenant's key finds nothing.
    for key in sorted(b_keys):
        body = await get_json(env, "usage", env.tokens[a], key_id=key, group_by="key", **RANGE)
        assert body["data"] == []


async def test_admin_sees_every_tenant_and_can_filter(reporting_env: ReportingEnv) -> None:
    env = reporting_env
    body = await get_json(env, "top", env.admin_token, by="tenant", **RANGE)
    assert {r["tenant_id"] for r in body["data"]} == set(env.tenants)
    one = await get_json(env, "usage", env.admin_token, tenant_id=env.tenants[1], group_by="tenant", **RANGE)
    assert {r["tenant_id"] for r in one["data"]} == {env.tenants[1]}
    who = await get_json(env, "whoami", env.admin_token)
    assert who == {"tenant_id": None, "admin": True}
    who = await get_json(env, "whoami", env.tokens[env.tenants[0]])
    assert who == {"tenant_id": env.tenants[0], "admin": False}


async def test_csv_and_parquet_round_trip_the_json_rows(reporting_env: ReportingEnv) -> None:
    env = reporting_env
    token = env.tokens[env.tenants[0]]
    params = dict(RANGE, granularity="day", group_by="team,model")
    ref = await get_json(env, "usage", token, **params)
    status, body, ctype = await get(env, "usage", token, format="csv", **params)
    assert status == 200 and ctype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(body.decode())))
    assert list(rows[0].keys()) == ref["columns"]
    status, pbody, ctype = await get(env, "usage", token, format="parquet", **params)
    assert status == 200 and ctype == "application/vnd.apache.parquet"
    table = pq.read_table(io.BytesIO(pbody))
    assert table.column_names == ref["columns"]
    assert str(table.schema.field("bucket_start").type) == "timestamp[us, tz=UTC]"
    assert str(table.schema.field("cost_micro_usd").type) == "int64"
    prows = table.to_pylist()
    assert len(rows) == len(prows) == len(ref["data"])
    for j, c, p in zip(ref["data"], rows, prows, strict=True):
        assert c["bucket_start"] == j["bucket_start"]
        assert p["bucket_start"].isoformat().replace("+00:00", "Z") == j["bucket_start"]
        assert (c["team_id"] or None) == j["team_id"] == p["team_id"]
        for m in SUMS:
            assert int(c[m]) == j[m] == p[m]
        for m in ("latency_p50_ms", "latency_p95_ms", "latency_ms_avg"):
            assert p[m] == pytest.approx(j[m])
            assert float(c[m]) == pytest.approx(j[m])


async def test_auth_errors_are_openai_format(reporting_env: ReportingEnv) -> None:
    env = reporting_env
    a = env.tenants[0]
    good = env.tokens[a]
    bad_secret = good[:-1] + ("A" if good[-1] != "A" else "B")
    cases = [
        (None, "missing_token"),
        ("nonsense", "invalid_token"),
        (bad_secret, "invalid_token"),
        ("twr_zzzzzzzzzzzz_" + "a" * 32, "invalid_token"),
        (env.admin_token + "x", "invalid_token"),
    ]
    for token, code in cases:
        for path in ("usage", "top", "whoami"):
            status, body, _ = await get(env, path, token, **RANGE)
            assert status == 401, (token, path)
            err = orjson.loads(body)["error"]
            assert err["type"] == "authentication_error" and err["code"] == code
            assert set(err) == {"message", "type", "param", "code"}


async def test_revoked_token_is_refused(reporting_env: ReportingEnv) -> None:
    env = reporting_env
    tid = env.tenants[1]
    async with aiohttp.ClientSession(headers=env.auth(env.admin_token)) as http:
        async with http.post(
            f"{env.quota_url}/admin/v1/reporting-tokens", json={"tenant_id": tid, "name": "tmp"}
        ) as r:
            created = await r.json()
        assert created["token"].startswith(f"twr_{created['id']}_")
        assert (await get_json(env, "whoami", created["token"]))["tenant_id"] == tid
        async with http.post(f"{env.quota_url}/admin/v1/reporting-tokens/{created['id']}/revoke") as r:
            assert r.status == 200
            first = (await r.json())["revoked_at"]
        async with http.post(f"{env.quota_url}/admin/v1/reporting-tokens/{created['id']}/revoke") as r:
            assert (await r.json())["revoked_at"] == first  # set once
        async with http.post(f"{env.quota_url}/admin/v1/reporting-tokens/zzzzzzzzzzzz/revoke") as r:
            assert r.status == 404
        async with http.post(
            f"{env.quota_url}/admin/v1/reporting-tokens", json={"tenant_id": "tn_zzzzzzzzzzzz", "name": "x"}
        ) as r:
            assert r.status == 404
        async with http.post(f"{env.quota_url}/admin/v1/reporting-tokens", json={"tenant_id": tid}) as r:
            assert r.status == 400
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{env.quota_url}/admin/v1/reporting-tokens",
            json={"tenant_id": tid, "name": "x"},
            headers=env.auth(env.tokens[tid]),
        ) as r,
    ):
        assert r.status == 401  # a reporting token is no admin token
    status, body, _ = await get(env, "whoami", created["token"])
    assert status == 401 and orjson.loads(body)["error"]["code"] == "revoked_token"
    conn = await asyncpg.connect(env.dsn)
    try:
        stored = await conn.fetchval(
            "SELECT secret_hash FROM catalog.reporting_tokens WHERE id = $1", created["id"]
        )
    finally:
        await conn.close()
    assert created["token"].split("_")[2] not in stored


@pytest.mark.parametrize(
    ("params", "param"),
    [
        ({"start": "2026-10-01T00:30:00Z", "end": "2026-10-02T00:00:00Z"}, "start"),
        ({"start": "2026-10-01T00:00:00", "end": "2026-10-02T00:00:00Z"}, "start"),
        ({"start": "2026-10-02", "end": "2026-10-01"}, "end"),
        ({"start": "2026-10-01", "end": "2026-10-02", "granularity": "week"}, "granularity"),
        ({"start": "2026-10-01", "end": "2026-10-02", "group_by": "user"}, "group_by"),
        ({"start": "2026-10-01", "end": "2026-10-02", "format": "xlsx"}, "format"),
        ({"start": "2026-10-15", "end": "2026-11-01", "granularity": "month"}, "start"),
        ({"start": "2020-01-01", "end": "2026-01-01", "granularity": "day"}, "end"),
        ({"start": "2026-01-01", "end": "2026-06-01", "granularity": "hour"}, "end"),
        ({"end": "2026-10-02"}, "start"),
    ],
)
async def test_invalid_parameters_are_400(reporting_env: ReportingEnv, params: dict, param: str) -> None:
    status, body, _ = await get(reporting_env, "usage", reporting_env.admin_token, **params)
    assert status == 400
    err = orjson.loads(body)["error"]
    assert err["type"] == "invalid_request_error" and err["param"] == param


async def test_top_validation_and_ranking(reporting_env: ReportingEnv) -> None:
    env = reporting_env
    for bad in (
        {"by": "user"},
        {"by": "key", "limit": "0"},
        {"by": "key", "metric": "latency"},
        {"by": "key", "start": "2026-10-01T00:10:00Z"},
    ):
        status, _, _ = await get(env, "top", env.admin_token, **{**RANGE, **bad})
        assert status == 400, bad
    body = await get_json(env, "top", env.admin_token, by="key", limit=3, **RANGE)
    costs = [r["cost_micro_usd"] for r in body["data"]]
    assert len(costs) == 3 and costs == sorted(costs, reverse=True)
    assert body["granularity"] == "month"
    hourly = await get_json(
        env,
        "top",
        env.admin_token,
        by="key",
        limit=3,
        start="2026-09-30T22:00:00Z",
        end="2026-12-01T00:00:00Z",
    )
    assert hourly["granularity"] == "hour"


async def test_too_many_rows_is_a_400(reporting_env: ReportingEnv) -> None:
    from tollway_reporting.api import LIMITS

    env = reporting_env
    old = env.app[LIMITS].max_rows
    env.app[LIMITS].max_rows = 5
    try:
        status, body, _ = await get(
            env,
            "usage",
            env.admin_token,
            granularity="hour",
            group_by="key",
            start="2026-09-30T00:00:00Z",
            end="2026-11-30T00:00:00Z",
        )
    finally:
        env.app[LIMITS].max_rows = old
    assert status == 400 and orjson.loads(body)["error"]["code"] == "result_too_large"


async def test_openapi_describes_every_route(reporting_env: ReportingEnv) -> None:
    env = reporting_env
    doc = await get_json(env, "openapi.json", None)
    assert doc["openapi"].startswith("3.")
    routes = set()
    for route in env.app.router.routes():
        info = route.resource.get_info() if route.resource else {}
        path = info.get("path") or info.get("formatter")
        if path and path.startswith("/v1/reporting/") and route.method != "HEAD":
            routes.add((path, route.method.lower()))
    assert routes
    for path, method in routes:
        assert path in doc["paths"] and method in doc["paths"][path], (path, method)
    described = {(p, m) for p, ops in doc["paths"].items() for m in ops}
    assert described == routes


async def test_health_and_dashboard_are_served(reporting_env: ReportingEnv) -> None:
    async with aiohttp.ClientSession() as http:
        for path in ("/healthz", "/readyz", "/dashboard", "/dashboard/static/chart.umd.min.js"):
            async with http.get(reporting_env.reporting_url + path) as r:
                assert r.status == 200, path
        async with http.get(
            reporting_env.reporting_url + "/v1/reporting/nope",
            headers=reporting_env.auth(reporting_env.admin_token),
        ) as r:
            assert r.status == 404 and (await r.json())["error"]["type"] == "not_found_error"


async def test_python_quantile_matches_the_sql_function(reporting_env: ReportingEnv) -> None:
    import random

    from tollway_reporting.query import latency_quantile

    rnd = random.Random(5)
    conn = await asyncpg.connect(reporting_env.dsn)
    try:
        for _ in range(200):
            counts = [rnd.choice([0, 0, 1, 3, 50]) for _ in range(11)]
            for q in (0.0, 0.5, 0.9, 0.95, 0.99, 1.0):
                want = await conn.fetchval("SELECT ledger.latency_quantile($1, $2::bigint[])", q, counts)
                got = latency_quantile(q, counts)
                assert (got is None and want is None) or got == pytest.approx(want), (q, counts)
    finally:
        await conn.close()


async def test_token_cache_delays_a_revoke_by_at_most_the_ttl(reporting_env: ReportingEnv) -> None:
    from tollway_reporting.api import STORE
    from tollway_reporting.app import SETTINGS
    from tollway_reporting.auth import AuthError, TokenVerifier

    env = reporting_env
    tid = env.tenants[0]
    async with aiohttp.ClientSession(headers=env.auth(env.admin_token)) as http:
        async with http.post(
            f"{env.quota_url}/admin/v1/reporting-tokens", json={"tenant_id": tid, "name": "c"}
        ) as r:
            created = await r.json()
        now = [100.0]
        settings = env.app[SETTINGS]
        verifier = TokenVerifier(
            env.app[STORE],
            settings.key_pepper.get_secret_value().encode(),
            env.admin_token.encode(),
            ttl=5.0,
            clock=lambda: now[0],
        )
        header = f"Bearer {created['token']}"
        assert (await verifier.scope(header)).tenant_id == tid
        async with http.post(f"{env.quota_url}/admin/v1/reporting-tokens/{created['id']}/revoke") as r:
            assert r.status == 200
    now[0] += 4.9
    assert (await verifier.scope(header)).tenant_id == tid  # cached
    now[0] += 0.2
    with pytest.raises(AuthError) as exc:
        await verifier.scope(header)
    assert exc.value.code == "revoked_token"
    # The secret is checked on every request, cached or not.
    with pytest.raises(AuthError):
        await verifier.scope(header[:-1] + ("A" if header[-1] != "A" else "B"))


async def test_unmigrated_database_is_unready_and_errors_are_openai_format() -> None:
    import secrets

    from aiohttp.test_utils import TestServer

    from tollway_reporting.app import create_app
    from tollway_reporting.settings import ReportingSettings

    from ..conftest import BASE_DSN, _with_db

    name = f"test_reporting_empty_{secrets.token_hex(5)}"
    admin = await asyncpg.connect(BASE_DSN)
    await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    server = TestServer(
        create_app(
            ReportingSettings(
                postgres_dsn=_with_db(BASE_DSN, name), admin_token="adm", key_pepper="pep", log_format="json"
            )
        ),
        host="127.0.0.1",
        port=0,
    )
    try:
        await server.start_server()
        base = str(server.make_url("")).rstrip("/")
        async with aiohttp.ClientSession() as http:
            async with http.get(f"{base}/readyz") as r:
                assert r.status == 503 and (await r.json())["failing"] == ["schema"]
            async with http.get(
                f"{base}/v1/reporting/usage", params=RANGE, headers={"Authorization": "Bearer adm"}
            ) as r:
                assert r.status == 500
                assert (await r.json())["error"] == {
                    "message": "internal error",
                    "type": "api_error",
                    "param": None,
                    "code": "internal_error",
                }
    finally:
        await server.close()
        admin = await asyncpg.connect(BASE_DSN)
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def test_metrics_count_requests_by_route_template_and_status(reporting_env: ReportingEnv) -> None:
    from prometheus_client.parser import text_string_to_metric_families

    async def counts() -> dict[tuple[str, str, str], float]:
        async with aiohttp.ClientSession() as http, http.get(reporting_env.reporting_url + "/metrics") as r:
            assert r.status == 200
            text = await r.text()
        out = {}
        for family in text_string_to_metric_families(text):
            for s in family.samples:
                if s.labels.get("service") == "reporting" and s.name in (
                    "tollway_http_requests_total",
                    "tollway_http_request_duration_seconds_count",
                ):
                    out[(s.name, s.labels["route"], s.labels["status"])] = s.value
        return out

    before = await counts()  # the app runs in this process, shared by the module's tests
    for _ in range(3):
        await get_json(reporting_env, "usage", reporting_env.admin_token, **RANGE)
    status, _, _ = await get(reporting_env, "usage", None, **RANGE)
    assert status == 401
    after = await counts()

    def grew(name: str, route: str, code: str) -> float:
        return after.get((name, route, code), 0) - before.get((name, route, code), 0)

    assert grew("tollway_http_requests_total", "/v1/reporting/usage", "200") == 3
    assert grew("tollway_http_request_duration_seconds_count", "/v1/reporting/usage", "200") == 3
    assert grew("tollway_http_requests_total", "/v1/reporting/usage", "401") == 1
    assert not any(route == "/metrics" for _, route, _ in after)
