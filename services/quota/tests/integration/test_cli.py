"""Integration: the tollway-admin CLI against the live test server."""

from __future__ import annotations

import asyncio
import stat

import httpx
import psycopg
import pytest
from typer.testing import CliRunner

from tollway_contracts.keys import parse_key, verify_secret
from tollway_quota.cli import app

pytestmark = pytest.mark.integration


async def _invoke(server, *args: str):  # noqa: ANN001, ANN202
    # CliRunner blocks; run it in a thread so the server on this loop can answer.
    env = {"TOLLWAY_ADMIN_URL": server.url, "TOLLWAY_ADMIN_TOKEN": server.token}
    return await asyncio.to_thread(CliRunner().invoke, app, list(args), env=env)


async def test_bootstrap_demo_writes_a_working_env_file(quota_server, tmp_path) -> None:  # noqa: ANN001
    path = tmp_path / ".tollway" / "dev.env"
    result = await _invoke(quota_server, "bootstrap-demo", "--env-file", str(path))
    assert result.exit_code == 0, result.output
    lines = path.read_text().splitlines()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    env = dict(line.split("=", 1) for line in lines)
    assert list(env) == ["OPENAI_BASE_URL", "OPENAI_API_KEY", "TOLLWAY_ADMIN_TOKEN"]
    assert env["OPENAI_BASE_URL"] == "http://127.0.0.1:8080/v1"
    assert env["TOLLWAY_ADMIN_TOKEN"] == quota_server.token

    # the key authenticates the way the edge checks it, for all models
    parsed = parse_key(env["OPENAI_API_KEY"])
    assert parsed is not None
    async with await psycopg.AsyncConnection.connect(quota_server.dsn) as conn:
        row = await (
            await conn.execute(
                "SELECT secret_hash, allowed_models, revoked, tenant_id FROM catalog.edge_principals WHERE key_id = %s",
                (parsed.key_id,),
            )
        ).fetchone()
    assert verify_secret(quota_server.pepper.encode(), parsed.key_id, parsed.secret, row[0])
    assert row[1] is None and row[2] is False

    # the admin token in the file works against the admin API
    async with httpx.AsyncClient(
        base_url=quota_server.url, headers={"Authorization": f"Bearer {env['TOLLWAY_ADMIN_TOKEN']}"}
    ) as c:
        tenants = (await c.get("/admin/v1/tenants")).json()["data"]
    assert [t["name"] for t in tenants].count("demo") == 1

    # idempotent principals, fresh key, custom base URL
    result = await _invoke(
        quota_server, "bootstrap-demo", "--env-file", str(path), "--base-url", "http://127.0.0.1:9999/v1"
    )
    assert result.exit_code == 0, result.output
    env2 = dict(line.split("=", 1) for line in path.read_text().splitlines())
    assert env2["OPENAI_BASE_URL"] == "http://127.0.0.1:9999/v1"
    assert env2["OPENAI_API_KEY"] != env["OPENAI_API_KEY"]
    async with httpx.AsyncClient(
        base_url=quota_server.url, headers={"Authorization": f"Bearer {quota_server.token}"}
    ) as c:
        tenants = (await c.get("/admin/v1/tenants")).json()["data"]
        demo = next(t for t in tenants if t["name"] == "demo")
        assert len((await c.get("/admin/v1/teams", params={"tenant_id": demo["id"]})).json()["data"]) == 1
        assert len((await c.get("/admin/v1/users", params={"tenant_id": demo["id"]})).json()["data"]) == 1
    assert [t["name"] for t in tenants].count("demo") == 1


async def test_cli_key_lifecycle(quota_server) -> None:  # noqa: ANN001
    r = await _invoke(quota_server, "tenant", "create", "cli-co")
    assert r.exit_code == 0, r.output
    tenant_id = r.output.split()[-1]
    assert tenant_id.startswith("tn_")
    r = await _invoke(quota_server, "tenant", "list")
    assert "cli-co" in r.output
    r = await _invoke(quota_server, "team", "create", tenant_id, "ops")
    team_id = r.output.split()[-1]
    r = await _invoke(quota_server, "user", "create", tenant_id, "bob", "--team-id", team_id)
    assert r.exit_code == 0, r.output
    r = await _invoke(
        quota_server, "key", "create", tenant_id, "ci", "--team-id", team_id, "--model", "gpt-4o-mini"
    )
    assert r.exit_code == 0, r.output
    assert "will not be shown again" in r.output
    full = next(w for w in r.output.split() if w.startswith("tw_"))
    parsed = parse_key(full)
    assert parsed is not None
    r = await _invoke(quota_server, "key", "list", "--tenant-id", tenant_id)
    assert r.exit_code == 0 and parsed.secret not in r.output
    r = await _invoke(quota_server, "key", "set-policy", parsed.key_id, '{"mode": "redact"}')
    assert r.exit_code == 0, r.output
    r = await _invoke(quota_server, "key", "revoke", parsed.key_id)
    assert r.exit_code == 0 and "revoked" in r.output
    r = await _invoke(quota_server, "tenant", "create", "cli-co")
    assert r.exit_code == 1 and "409" in r.output


async def test_reporting_token_create_list_revoke(quota_server) -> None:  # noqa: ANN001
    result = await _invoke(quota_server, "tenant", "create", "rt-cli")
    assert result.exit_code == 0, result.output
    async with httpx.AsyncClient(
        base_url=quota_server.url, headers={"Authorization": f"Bearer {quota_server.token}"}
    ) as c:
        tenant_id = next(
            t["id"] for t in (await c.get("/admin/v1/tenants")).json()["data"] if t["name"] == "rt-cli"
        )

        result = await _invoke(quota_server, "reporting-token", "create", tenant_id, "grafana")
        assert result.exit_code == 0, result.output
        token = next(line for line in result.output.splitlines() if line.startswith("twr_"))
        token_id = token.split("_")[1]

        # the API list never shows a secret or hash
        listed = await c.get("/admin/v1/reporting-tokens", params={"tenant_id": tenant_id})
        assert listed.status_code == 200
        rows = listed.json()["data"]
        assert [r["id"] for r in rows] == [token_id]
        assert set(rows[0]) == {"id", "tenant_id", "name", "created_at", "revoked_at"}
        assert token.split("_", 2)[2] not in listed.text
        assert (await c.get("/admin/v1/reporting-tokens", params={"tenant_id": "nope"})).json()["data"] == []

        result = await _invoke(quota_server, "reporting-token", "list", "--tenant-id", tenant_id)
        assert result.exit_code == 0 and token_id in result.output and "grafana" in result.output
        assert token.split("_", 2)[2] not in result.output

        result = await _invoke(quota_server, "reporting-token", "revoke", token_id)
        assert result.exit_code == 0 and "revoked" in result.output
        rows = (await c.get("/admin/v1/reporting-tokens", params={"tenant_id": tenant_id})).json()["data"]
        assert rows[0]["revoked_at"] is not None

    result = await _invoke(quota_server, "reporting-token", "revoke", "missing")
    assert result.exit_code == 1
    assert (await _invoke(quota_server, "reporting-token", "create", "no-such-tenant", "x")).exit_code == 1


async def test_invalid_arguments_exit_2_and_api_errors_exit_1(quota_server) -> None:  # noqa: ANN001
    """A body the contract refuses never reaches the API (exit 2, naming the
    field); an API refusal exits 1 with its status and code."""
    r = await _invoke(quota_server, "limit", "set", "galaxy", "x", "--rpm", "5")
    assert r.exit_code == 2 and "invalid scope" in r.output, r.output
    r = await _invoke(quota_server, "team", "create", "tn_whatever", "")
    assert r.exit_code == 2 and "invalid name" in r.output, r.output
    r = await _invoke(quota_server, "limit", "delete", "no-such-limit")
    assert r.exit_code == 1 and "error 404" in r.output, r.output
    r = await _invoke(quota_server, "key", "revoke", "nosuchkey000")
    assert r.exit_code == 1 and "error 404 (not_found)" in r.output, r.output
