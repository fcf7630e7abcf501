"""Integration: limits, tenant time zone and webhook through the admin API and
the ``limits`` column of ``catalog.edge_principals`` (real Postgres, Valkey)."""

from __future__ import annotations

import asyncio
import secrets

import httpx
import psycopg
import pytest
from psycopg.rows import dict_row
from redis.asyncio import Redis
from typer.testing import CliRunner

from tollway_contracts.admin import KeyCreated, LimitList, LimitRecord, Team, Tenant, User
from tollway_contracts.limits import parse_limit
from tollway_contracts.principals import KEY_QUERY, Invalidation, decode_invalidation
from tollway_quota.cli import app as cli_app

pytestmark = pytest.mark.integration


def _admin(server) -> httpx.AsyncClient:  # noqa: ANN001
    return httpx.AsyncClient(base_url=server.url, headers={"Authorization": f"Bearer {server.token}"})


async def _row(server, key_id: str) -> dict:  # noqa: ANN001
    async with (
        await psycopg.AsyncConnection.connect(server.dsn) as conn,
        conn.cursor(row_factory=dict_row) as cur,
    ):
        await cur.execute(KEY_QUERY.replace("$1", "%s"), (key_id,))
        return await cur.fetchone()


async def _principals(c: httpx.AsyncClient, time_zone: str = "UTC"):  # noqa: ANN202
    r = await c.post("/admin/v1/tenants", json={"name": f"l-{secrets.token_hex(4)}", "time_zone": time_zone})
    assert r.status_code == 201, r.text
    tenant = Tenant.model_validate_json(r.content)
    team = Team.model_validate_json(
        (await c.post("/admin/v1/teams", json={"tenant_id": tenant.id, "name": "eng"})).content
    )
    user = User.model_validate_json(
        (
            await c.post("/admin/v1/users", json={"tenant_id": tenant.id, "team_id": team.id, "name": "ada"})
        ).content
    )
    key = KeyCreated.model_validate_json(
        (
            await c.post("/admin/v1/keys", json={"tenant_id": tenant.id, "user_id": user.id, "name": "k"})
        ).content
    )
    other = KeyCreated.model_validate_json(
        (await c.post("/admin/v1/keys", json={"tenant_id": tenant.id, "name": "no-team"})).content
    )
    return tenant, team, user, key, other


async def test_every_applicable_scope_reaches_the_key_row_with_the_tenant_time_zone(quota_server) -> None:  # noqa: ANN001
    async with _admin(quota_server) as c:
        tenant, team, user, key, other = await _principals(c, "Europe/Paris")
        before = (await _row(quota_server, key.key_id))["version"]
        bodies = [
            {
                "scope": "tenant",
                "scope_id": tenant.id,
                "budget_micro_usd": 50_000_000,
                "budget_period": "month",
            },
            {
                "scope": "team",
                "scope_id": team.id,
                "requests_per_minute": 600,
                "thresholds_percent": [90, 50],
            },
            {"scope": "user", "scope_id": user.id, "max_concurrent": 4, "shadow": True},
            {"scope": "key", "scope_id": key.key_id, "tokens_per_minute": 10_000},
            {"scope": "key", "scope_id": key.key_id, "model": "gpt-4o-mini", "tokens_per_minute": 2_000},
        ]
        for body in bodies:
            r = await c.put("/admin/v1/limits", json=body)
            assert r.status_code == 201, r.text

        row = await _row(quota_server, key.key_id)
        limits = [parse_limit(x) for x in row["limits"]]
        assert row["version"] > before
        assert [(lim.scope, lim.model) for lim in limits] == [
            ("key", None),
            ("key", "gpt-4o-mini"),
            ("user", None),
            ("team", None),
            ("tenant", None),
        ]
        assert {lim.time_zone for lim in limits} == {"Europe/Paris"}
        assert limits[3].thresholds_percent == [50, 90] and limits[2].shadow is True
        assert limits[4].budget_micro_usd == 50_000_000 and limits[4].budget_period == "month"
        # a key outside the team and user sees only the tenant's limit
        other_limits = (await _row(quota_server, other.key_id))["limits"]
        assert [x["scope"] for x in other_limits] == ["tenant"]

        listed = LimitList.model_validate_json(
            (await c.get("/admin/v1/limits", params={"tenant_id": tenant.id})).content
        )
        assert len(listed.data) == 5 and {x.tenant_id for x in listed.data} == {tenant.id}


async def test_replace_delete_and_time_zone_restamp_the_scope_keys_and_publish(quota_server) -> None:  # noqa: ANN001
    valkey = Redis.from_url(quota_server.valkey_url)
    pubsub = valkey.pubsub()
    await pubsub.subscribe(quota_server.channel)
    try:
        assert (await pubsub.get_message(timeout=5))["type"] in ("subscribe", b"subscribe")
        async with _admin(quota_server) as c:
            tenant, team, user, key, other = await _principals(c)
            body = {"scope": "team", "scope_id": team.id, "requests_per_minute": 10}
            first = LimitRecord.model_validate_json((await c.put("/admin/v1/limits", json=body)).content)
            v1 = (await _row(quota_server, key.key_id))["version"]
            untouched = (await _row(quota_server, other.key_id))["version"]

            r = await c.put("/admin/v1/limits", json=body | {"requests_per_minute": 20})
            assert r.status_code == 200, r.text
            replaced = LimitRecord.model_validate_json(r.content)
            assert replaced.id == first.id and replaced.requests_per_minute == 20
            row = await _row(quota_server, key.key_id)
            assert row["version"] > v1 and row["limits"][0]["requests_per_minute"] == 20
            assert (await _row(quota_server, other.key_id))["version"] == untouched

            r = await c.patch(f"/admin/v1/tenants/{tenant.id}", json={"time_zone": "America/New_York"})
            assert r.status_code == 200 and r.json()["time_zone"] == "America/New_York"
            assert (await _row(quota_server, other.key_id))["version"] > untouched
            assert (await _row(quota_server, key.key_id))["limits"][0]["time_zone"] == "America/New_York"

            r = await c.delete(f"/admin/v1/limits/{first.id}")
            assert r.status_code == 200, r.text
            row = await _row(quota_server, key.key_id)
            assert row["limits"] is None
            delete_version = row["version"]

        seen: list[Invalidation] = []
        deadline = asyncio.get_running_loop().time() + 5
        while asyncio.get_running_loop().time() < deadline and not any(
            i.version == delete_version for i in seen
        ):
            msg = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1)
            if msg is not None:
                seen.append(decode_invalidation(msg["data"]))
        last = next(i for i in seen if i.version == delete_version)
        assert last.key_ids == [key.key_id]
    finally:
        await pubsub.aclose()
        await valkey.aclose()


async def test_bad_limits_and_time_zones_are_refused(quota_server) -> None:  # noqa: ANN001
    async with _admin(quota_server) as c:
        tenant, team, user, key, other = await _principals(c)
        cases = [
            ({"scope": "team", "scope_id": team.id}, 400),  # no limit at all
            ({"scope": "team", "scope_id": team.id, "budget_micro_usd": 5}, 400),  # no period
            ({"scope": "team", "scope_id": "tm_nonexistent00", "requests_per_minute": 1}, 404),
            ({"scope": "planet", "scope_id": team.id, "requests_per_minute": 1}, 400),
        ]
        for body, status in cases:
            r = await c.put("/admin/v1/limits", json=body)
            assert r.status_code == status, (body, r.text)
        assert (
            await c.patch(f"/admin/v1/tenants/{tenant.id}", json={"time_zone": "Mars/Olympus"})
        ).status_code == 400
        assert (
            await c.post("/admin/v1/tenants", json={"name": "x-bad-tz", "time_zone": "Nowhere"})
        ).status_code == 400
        assert (
            await c.patch("/admin/v1/tenants/tn_nonexistent00", json={"time_zone": "UTC"})
        ).status_code == 404
        assert (await c.delete("/admin/v1/limits/lm_nonexistent00")).status_code == 404
        r = await c.patch(
            f"/admin/v1/tenants/{tenant.id}", json={"alert_webhook_url": "http://127.0.0.1:1/hook"}
        )
        assert r.status_code == 200 and r.json()["alert_webhook_url"] == "http://127.0.0.1:1/hook"
        assert r.json()["time_zone"] == "UTC"


async def test_cli_limit_and_time_zone_commands(quota_server) -> None:  # noqa: ANN001
    async with _admin(quota_server) as c:
        tenant, team, user, key, other = await _principals(c)
    env = {"TOLLWAY_ADMIN_URL": quota_server.url, "TOLLWAY_ADMIN_TOKEN": quota_server.token}

    async def run(*args: str):  # noqa: ANN202
        return await asyncio.to_thread(CliRunner().invoke, cli_app, list(args), env=env)

    r = await run(
        "limit",
        "set",
        "team",
        team.id,
        "--budget-micro-usd",
        "1000000",
        "--period",
        "day",
        "--threshold",
        "75",
        "--threshold",
        "100",
    )
    assert r.exit_code == 0, r.output
    limit_id = next(w for w in r.output.split() if w.startswith("lm_"))
    r = await run("limit", "list", tenant.id)
    assert r.exit_code == 0 and "day" in r.output
    r = await run("limit", "list", tenant.id, "--json")
    listed = LimitList.model_validate_json(r.stdout.strip().splitlines()[-1])
    assert [(x.id, x.budget_micro_usd, x.thresholds_percent) for x in listed.data] == [
        (limit_id, 1_000_000, [75, 100])
    ]
    r = await run("tenant", "set-timezone", tenant.id, "Asia/Tokyo")
    assert r.exit_code == 0, r.output
    assert (await _row(quota_server, key.key_id))["limits"][0]["time_zone"] == "Asia/Tokyo"
    r = await run("tenant", "set-timezone", tenant.id, "Not/AZone")
    assert r.exit_code == 2
    r = await run("limit", "set", "team", team.id, "--budget-micro-usd", "5")
    assert r.exit_code == 2
    r = await run("limit", "delete", limit_id)
    assert r.exit_code == 0, r.output
    assert (await _row(quota_server, key.key_id))["limits"] is None
