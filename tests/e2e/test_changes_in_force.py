"""Admin changes are in force within 1 s (issue 3), black box against the
running stack: the admin API (quota) and the OpenAI API (edge).

Each test measures from the admin API's response to the edge's first refusal.

- A key's model allow-list: a key minted with ``allowed_models=["gpt-4o-mini"]``
  is refused (403) for ``gpt-4o``.
- A new limit: ``requests_per_minute: 2`` set on a fresh key makes the third
  call of the minute a 429. (Needs the edge's admission work; fails on a main
  without it.)
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import httpx
import pytest
import pytest_asyncio

pytestmark = pytest.mark.e2e

IN_FORCE_WITHIN_SECONDS = 1.0


@pytest_asyncio.fixture
async def changes_edge(stack_env: dict[str, str]) -> AsyncIterator[httpx.AsyncClient]:
    """An httpx client of the edge's OpenAI API (``OPENAI_BASE_URL``)."""
    async with httpx.AsyncClient(base_url=stack_env["base_url"].rstrip("/"), timeout=10) as client:
        yield client


async def _tenant(admin: httpx.AsyncClient) -> str:
    r = await admin.post("/admin/v1/tenants", json={"name": f"e2e-changes-{secrets.token_hex(4)}"})
    assert r.status_code == 201, r.text
    return r.json()["id"]


async def _key(admin: httpx.AsyncClient, tenant_id: str, **fields: object) -> dict:
    r = await admin.post("/admin/v1/keys", json={"tenant_id": tenant_id, "name": "e2e-changes", **fields})
    assert r.status_code == 201, r.text
    return r.json()


async def _chat(edge: httpx.AsyncClient, key: str, model: str) -> httpx.Response:
    return await edge.post(
        "/chat/completions",
        headers={"Authorization": f"Bearer {key}"},
        json={"model": model, "messages": [{"role": "user", "content": "hello"}], "max_tokens": 5},
    )


async def _first(
    edge: httpx.AsyncClient, key: str, model: str, want: int, *, within_s: float = 5.0
) -> tuple[float, list[int]]:
    """Call until the edge answers ``want``; return (seconds since now, statuses seen)."""
    t0 = time.monotonic()
    seen: list[int] = []
    while time.monotonic() - t0 < within_s:
        r = await _chat(edge, key, model)
        seen.append(r.status_code)
        if r.status_code == want:
            return time.monotonic() - t0, seen
        await asyncio.sleep(0.02)
    pytest.fail(f"no {want} within {within_s} s; statuses {seen}")


async def _revoke(admin: httpx.AsyncClient, key_id: str) -> None:
    await admin.post(f"/admin/v1/keys/{key_id}/revoke")


async def test_a_model_allow_list_is_in_force_within_one_second(admin, changes_edge) -> None:  # noqa: ANN001
    tenant_id = await _tenant(admin)
    created = await _key(admin, tenant_id, allowed_models=["gpt-4o-mini"])
    # from the admin response to the first refusal
    try:
        elapsed, seen = await _first(changes_edge, created["key"], "gpt-4o", 403)
        assert elapsed <= IN_FORCE_WITHIN_SECONDS, (elapsed, seen)
        assert all(s in (401, 403) for s in seen), seen  # never forwarded meanwhile
        ok = await _chat(changes_edge, created["key"], "gpt-4o-mini")
        assert ok.status_code == 200, ok.text
    finally:
        await _revoke(admin, created["key_id"])


async def test_a_new_limit_is_in_force_within_one_second(admin, changes_edge) -> None:  # noqa: ANN001
    tenant_id = await _tenant(admin)
    created = await _key(admin, tenant_id)
    try:
        # The key is known to the edge (no limit yet: nothing is counted).
        await _first(changes_edge, created["key"], "gpt-4o-mini", 200)
        # Stay inside one UTC minute: rpm counts calendar minutes.
        second = datetime.now(UTC).second
        if second > 55:
            await asyncio.sleep(61 - second)
        r = await admin.put(
            "/admin/v1/limits", json={"scope": "key", "scope_id": created["key_id"], "requests_per_minute": 2}
        )
        assert r.status_code in (200, 201), r.text
        elapsed, seen = await _first(changes_edge, created["key"], "gpt-4o-mini", 429)
        assert elapsed <= IN_FORCE_WITHIN_SECONDS, (elapsed, seen)
        # Once in force, the limit admits exactly two calls in the minute.
        assert seen[-3:] == [200, 200, 429], seen
    finally:
        await _revoke(admin, created["key_id"])
