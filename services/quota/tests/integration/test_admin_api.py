"""Integration: the admin API against real Postgres and Valkey."""

from __future__ import annotations

import asyncio
import secrets

import httpx
import psycopg
import pytest
from psycopg.rows import dict_row
from redis.asyncio import Redis

from tollway_contracts.admin import ApiKey, KeyCreated, KeyList, Team, Tenant, User
from tollway_contracts.keys import hash_secret, parse_key
from tollway_contracts.principals import (
    KEY_QUERY,
    SNAPSHOT_QUERY,
    VERSION_QUERY,
    Invalidation,
    decode_invalidation,
)

pytestmark = pytest.mark.integration


def _pg(query: str) -> str:
    """The contract's asyncpg-style ``$1`` query in psycopg's ``%s`` style."""
    return query.replace("$1", "%s")


def _admin(server) -> httpx.AsyncClient:  # noqa: ANN001
    return httpx.AsyncClient(base_url=server.url, headers={"Authorization": f"Bearer {server.token}"})


async def _principals(server, key_id: str) -> dict:  # noqa: ANN001
    async with (
        await psycopg.AsyncConnection.connect(server.dsn) as conn,
        conn.cursor(row_factory=dict_row) as cur,
    ):
        await cur.execute(_pg(KEY_QUERY), (key_id,))
        return await cur.fetchone()


async def _version(server) -> int:  # noqa: ANN001
    async with await psycopg.AsyncConnection.connect(server.dsn) as conn:
        return (await (await conn.execute(VERSION_QUERY)).fetchone())[0]


async def _make_key(c: httpx.AsyncClient, **extra) -> tuple[Tenant, Team, User, KeyCreated]:  # noqa: ANN003
    name = f"t-{secrets.token_hex(4)}"
    r = await c.post("/admin/v1/tenants", json={"name": name})
    assert r.status_code == 201, r.text
    tenant = Tenant.model_validate_json(r.content)
    r = await c.post("/admin/v1/teams", json={"tenant_id": tenant.id, "name": "eng"})
    assert r.status_code == 201, r.text
    team = Team.model_validate_json(r.content)
    r = await c.post(
        "/admin/v1/users",
        json={"tenant_id": tenant.id, "team_id": team.id, "name": "ada", "email": "ada@example.com"},
    )
    assert r.status_code == 201, r.text
    user = User.model_validate_json(r.content)
    r = await c.post(
        "/admin/v1/keys", json={"tenant_id": tenant.id, "user_id": user.id, "name": "k", **extra}
    )
    assert r.status_code == 201, r.text
    return tenant, team, user, KeyCreated.model_validate_json(r.content)


async def test_readyz_and_healthz(quota_server) -> None:  # noqa: ANN001
    async with httpx.AsyncClient(base_url=quota_server.url) as c:
        assert (await c.get("/healthz")).status_code == 200
        r = await c.get("/readyz")
        assert r.status_code == 200, r.text


async def test_create_principals_and_key_stores_only_the_hmac(quota_server) -> None:  # noqa: ANN001
    async with _admin(quota_server) as c:
        tenant, team, user, key = await _make_key(c, allowed_models=["gpt-4o-mini"])
    assert tenant.id.startswith("tn_") and team.id.startswith("tm_") and user.id.startswith("us_")
    parsed = parse_key(key.key)
    assert parsed is not None and parsed.key_id == key.key_id
    # the key inherits the user's team
    assert key.team_id == team.id and key.user_id == user.id and key.tenant_id == tenant.id

    row = await _principals(quota_server, key.key_id)
    assert row["secret_hash"] == hash_secret(quota_server.pepper.encode(), parsed.key_id, parsed.secret)
    assert row["allowed_models"] == ["gpt-4o-mini"]
    assert row["revoked"] is False and row["limits"] is None and row["redaction_policy"] is None
    assert row["version"] == key.version

    # the secret appears nowhere in the database's key table
    async with await psycopg.AsyncConnection.connect(quota_server.dsn) as conn:
        dump = await (await conn.execute("SELECT k::text FROM catalog.api_keys k")).fetchall()
    assert all(parsed.secret not in r[0] for r in dump)

    # the edge's snapshot query sees it
    async with await psycopg.AsyncConnection.connect(quota_server.dsn) as conn:
        rows = await (await conn.execute(_pg(SNAPSHOT_QUERY), (key.version - 1,))).fetchall()
    assert key.key_id in [r[0] for r in rows]


async def test_listing_never_shows_secrets(quota_server) -> None:  # noqa: ANN001
    async with _admin(quota_server) as c:
        tenant, _, _, key = await _make_key(c)
        r = await c.get("/admin/v1/keys", params={"tenant_id": tenant.id})
    assert r.status_code == 200
    listed = KeyList.model_validate_json(r.content).data
    assert [k.key_id for k in listed] == [key.key_id]
    parsed = parse_key(key.key)
    row = await _principals(quota_server, key.key_id)
    assert parsed.secret not in r.text and key.key not in r.text and row["secret_hash"] not in r.text
    assert "secret" not in r.text


async def test_revoke_bumps_version_and_publishes_invalidation(quota_server) -> None:  # noqa: ANN001
    valkey = Redis.from_url(quota_server.valkey_url)
    pubsub = valkey.pubsub()
    await pubsub.subscribe(quota_server.channel)
    try:
        assert (await pubsub.get_message(timeout=5))["type"] in ("subscribe", b"subscribe")
        async with _admin(quota_server) as c:
            _, _, _, key = await _make_key(c)
            before = await _version(quota_server)
            r = await c.post(f"/admin/v1/keys/{key.key_id}/revoke")
        assert r.status_code == 200, r.text
        revoked = ApiKey.model_validate_json(r.content)
        assert revoked.revoked_at is not None
        assert revoked.version > before
        assert await _version(quota_server) == revoked.version

        row = await _principals(quota_server, key.key_id)
        assert row["revoked"] is True and row["version"] == revoked.version

        # messages of the creations come first; wait for the revocation's
        seen: list[Invalidation] = []
        async with asyncio.timeout(10):
            while not any(m.version == revoked.version for m in seen):
                msg = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1)
                if msg is not None:
                    seen.append(decode_invalidation(msg["data"]))
        inv = next(m for m in seen if m.version == revoked.version)
        assert inv.key_ids == [key.key_id]
    finally:
        await pubsub.aclose()
        await valkey.aclose()


async def test_redaction_policy_falls_back_from_key_to_team(quota_server) -> None:  # noqa: ANN001
    async with _admin(quota_server) as c:
        _, team, _, key = await _make_key(c)
        r = await c.put(f"/admin/v1/teams/{team.id}/redaction-policy", json={"mode": "redact"})
        assert r.status_code == 200, r.text
        row = await _principals(quota_server, key.key_id)
        assert row["redaction_policy"]["mode"] == "redact"
        team_version = row["version"]
        assert team_version > key.version  # a team change re-stamps its keys

        r = await c.put(
            f"/admin/v1/keys/{key.key_id}/redaction-policy",
            json={"mode": "block", "entity_types": ["EMAIL_ADDRESS"]},
        )
        assert r.status_code == 200, r.text
        row = await _principals(quota_server, key.key_id)
        assert row["redaction_policy"]["mode"] == "block"
        assert row["redaction_policy"]["entity_types"] == ["EMAIL_ADDRESS"]
        assert row["version"] > team_version

        r = await c.delete(f"/admin/v1/keys/{key.key_id}/redaction-policy")
        assert r.status_code == 200, r.text
        row = await _principals(quota_server, key.key_id)
        assert row["redaction_policy"]["mode"] == "redact"

        r = await c.put(f"/admin/v1/keys/{key.key_id}/redaction-policy", json={"mode": "nonsense"})
        assert r.status_code == 400
        error = r.json()["error"]
        assert error["type"] == "invalid_request_error" and error["param"] == "mode"
        assert error["message"].startswith("invalid body: ") and "nonsense" in error["message"]


async def test_answer_policy_is_stored_and_served_to_the_edge(quota_server) -> None:  # noqa: ANN001
    """Issue 11 "Answers too": ``answers`` reaches ``catalog.edge_principals`` as set,
    also with ``mode: off`` (answers only); anything but off/redact/block is a 400."""
    async with _admin(quota_server) as c:
        _, _, _, key = await _make_key(c)
        r = await c.put(
            f"/admin/v1/keys/{key.key_id}/redaction-policy", json={"mode": "off", "answers": "block"}
        )
        assert r.status_code == 200, r.text
        assert r.json()["redaction_policy"]["answers"] == "block"
        row = await _principals(quota_server, key.key_id)
        assert row["redaction_policy"]["mode"] == "off" and row["redaction_policy"]["answers"] == "block"
        r = await c.put(f"/admin/v1/keys/{key.key_id}/redaction-policy", json={"answers": "maybe"})
        assert r.status_code == 400 and r.json()["error"]["type"] == "invalid_request_error"


@pytest.mark.parametrize("header", [None, "Bearer wrong", "Basic abc", "bearer"])
async def test_bad_admin_token_is_401_openai_format(quota_server, header) -> None:  # noqa: ANN001
    headers = {"Authorization": header} if header else {}
    async with httpx.AsyncClient(base_url=quota_server.url, headers=headers) as c:
        for method, path in [
            ("GET", "/admin/v1/tenants"),
            ("POST", "/admin/v1/keys"),
            ("POST", "/admin/v1/keys/abcdefabcdef/revoke"),
        ]:
            r = await c.request(method, path, json={"tenant_id": "x", "name": "y"})
            assert r.status_code == 401
            err = r.json()["error"]
            assert err["type"] == "authentication_error"
            assert set(err) == {"message", "type", "param", "code"}


async def test_duplicates_are_409_and_unknown_ids_404(quota_server) -> None:  # noqa: ANN001
    async with _admin(quota_server) as c:
        tenant, team, _, _ = await _make_key(c)
        r = await c.post("/admin/v1/tenants", json={"name": tenant.name})
        assert r.status_code == 409 and r.json()["error"]["code"] == "duplicate_name"
        r = await c.post("/admin/v1/teams", json={"tenant_id": tenant.id, "name": team.name})
        assert r.status_code == 409
        r = await c.post("/admin/v1/users", json={"tenant_id": tenant.id, "name": "ada"})
        assert r.status_code == 409

        r = await c.post("/admin/v1/teams", json={"tenant_id": "tn_000000000000", "name": "x"})
        assert r.status_code == 404 and r.json()["error"]["param"] == "tenant_id"
        r = await c.post("/admin/v1/keys/nosuchkey000/revoke")
        assert r.status_code == 404 and r.json()["error"]["type"] == "not_found_error"
        r = await c.put("/admin/v1/teams/tm_000000000000/redaction-policy", json={"mode": "off"})
        assert r.status_code == 404

        # a team of another tenant is unknown in this one
        other, _, _, _ = await _make_key(c)
        r = await c.post("/admin/v1/keys", json={"tenant_id": other.id, "team_id": team.id, "name": "k"})
        assert r.status_code == 404 and r.json()["error"]["param"] == "team_id"

        r = await c.post("/admin/v1/keys", content=b"{not json", headers={"Content-Type": "application/json"})
        assert r.status_code == 400
        r = await c.post("/admin/v1/keys", json={"name": "missing tenant"})
        assert r.status_code == 400 and r.json()["error"]["param"] == "tenant_id"


async def test_concurrent_changes_get_distinct_versions(quota_server) -> None:  # noqa: ANN001
    async with _admin(quota_server) as c:
        tenant, _, _, _ = await _make_key(c)
        answers = await asyncio.gather(
            *[c.post("/admin/v1/keys", json={"tenant_id": tenant.id, "name": f"k{i}"}) for i in range(10)]
        )
    assert all(r.status_code == 201 for r in answers)
    versions = [KeyCreated.model_validate_json(r.content).version for r in answers]
    assert len(set(versions)) == 10
    assert await _version(quota_server) >= max(versions)


async def test_residency_policy_of_tenant_and_team_reaches_the_edge_view(quota_server) -> None:  # noqa: ANN001
    async with _admin(quota_server) as c:
        tenant, team, _, key = await _make_key(c)
        assert (await _principals(quota_server, key.key_id))["allowed_regions"] is None  # no policy

        r = await c.put(
            f"/admin/v1/tenants/{tenant.id}/residency-policy", json={"allowed_regions": ["us", "eu"]}
        )
        assert r.status_code == 200, r.text
        assert Tenant.model_validate_json(r.content).allowed_regions == ["eu", "us"]
        row = await _principals(quota_server, key.key_id)
        assert row["allowed_regions"] == ["eu", "us"] and row["version"] > key.version  # keys re-stamped

        # a team narrows its tenant's policy (intersection), never widens it
        r = await c.put(
            f"/admin/v1/teams/{team.id}/residency-policy", json={"allowed_regions": ["eu", "apac"]}
        )
        assert r.status_code == 200, r.text
        assert Team.model_validate_json(r.content).allowed_regions == ["apac", "eu"]
        assert (await _principals(quota_server, key.key_id))["allowed_regions"] == ["eu"]

        r = await c.delete(f"/admin/v1/tenants/{tenant.id}/residency-policy")
        assert r.status_code == 200 and Tenant.model_validate_json(r.content).allowed_regions is None
        assert (await _principals(quota_server, key.key_id))["allowed_regions"] == ["apac", "eu"]
        r = await c.delete(f"/admin/v1/teams/{team.id}/residency-policy")
        assert r.status_code == 200
        assert (await _principals(quota_server, key.key_id))["allowed_regions"] is None

        r = await c.put(f"/admin/v1/teams/{team.id}/residency-policy", json={"allowed_regions": []})
        assert r.status_code == 400 and r.json()["error"]["type"] == "invalid_request_error"
        r = await c.put(
            "/admin/v1/tenants/tn_000000000000/residency-policy", json={"allowed_regions": ["eu"]}
        )
        assert r.status_code == 404


async def test_cache_policy_of_key_and_team_reaches_the_edge_view(quota_server) -> None:  # noqa: ANN001
    async with _admin(quota_server) as c:
        _, team, _, key = await _make_key(c)
        assert (await _principals(quota_server, key.key_id))["response_cache_ttl_seconds"] is None  # off

        r = await c.put(f"/admin/v1/teams/{team.id}/cache-policy", json={"ttl_seconds": 300})
        assert r.status_code == 200, r.text
        assert Team.model_validate_json(r.content).response_cache_ttl_seconds == 300
        row = await _principals(quota_server, key.key_id)
        assert row["response_cache_ttl_seconds"] == 300 and row["version"] > key.version  # keys re-stamped

        r = await c.put(f"/admin/v1/keys/{key.key_id}/cache-policy", json={"ttl_seconds": 60})
        assert r.status_code == 200, r.text
        assert ApiKey.model_validate_json(r.content).response_cache_ttl_seconds == 60
        assert (await _principals(quota_server, key.key_id))["response_cache_ttl_seconds"] == 60  # key's wins

        r = await c.delete(f"/admin/v1/keys/{key.key_id}/cache-policy")
        assert r.status_code == 200
        assert (await _principals(quota_server, key.key_id))[
            "response_cache_ttl_seconds"
        ] == 300  # team's again
        r = await c.delete(f"/admin/v1/teams/{team.id}/cache-policy")
        assert r.status_code == 200
        assert (await _principals(quota_server, key.key_id))["response_cache_ttl_seconds"] is None

        r = await c.put(f"/admin/v1/teams/{team.id}/cache-policy", json={"ttl_seconds": 0})
        assert r.status_code == 400 and r.json()["error"]["type"] == "invalid_request_error"
        r = await c.put("/admin/v1/keys/nope/cache-policy", json={"ttl_seconds": 10})
        assert r.status_code == 404
