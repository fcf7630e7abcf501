"""A spend budget under a concurrent burst, on the running stack (issue 3):
admission at the edge, settlement by quota over Kafka, the ledger's record.

What users rely on: whatever the concurrency, the money the ledger records
for a scope never exceeds its budget, every admitted call is in the ledger,
and every refused call is a 429 recorded as one failed call.
"""

from __future__ import annotations

import asyncio
import secrets
import time
import uuid

import asyncpg
import httpx
import pytest

pytestmark = pytest.mark.e2e

CLIENTS = 300
BUDGET_MICRO_USD = 180


async def _ledger_rows(
    db: asyncpg.Connection, request_ids: list[str], within_s: float = 30.0
) -> list[asyncpg.Record]:
    """Wait until every call has a terminal row; return the rows."""
    ids = [uuid.UUID(r) for r in request_ids]
    deadline = time.monotonic() + within_s
    while True:
        rows = await db.fetch(
            "SELECT request_id, status, status_code, cost_micro_usd FROM ledger.usage_records"
            " WHERE request_id = ANY($1::uuid[]) AND status IN ('completed', 'failed')",
            ids,
        )
        if len(rows) == len(ids) or time.monotonic() > deadline:
            return rows
        await asyncio.sleep(0.2)


async def test_burst_against_a_budget_never_overspends(
    stack_env: dict[str, str], admin: httpx.AsyncClient, ledger_db: asyncpg.Connection
) -> None:
    tenant = await admin.post("/admin/v1/tenants", json={"name": f"e2e-budget-{secrets.token_hex(4)}"})
    assert tenant.status_code == 201, tenant.text
    tenant_id = tenant.json()["id"]
    created = await admin.post("/admin/v1/keys", json={"tenant_id": tenant_id, "name": "burst"})
    assert created.status_code in (200, 201), created.text
    key = created.json()["key"]
    limit = await admin.put(
        "/admin/v1/limits",
        json={
            "scope": "tenant",
            "scope_id": tenant_id,
            "budget_micro_usd": BUDGET_MICRO_USD,
            "budget_period": "month",
        },
    )
    assert limit.status_code in (200, 201), limit.text
    await asyncio.sleep(1.0)  # in force on every edge within 1 s

    body = {"model": "gpt-4o-mini", "max_tokens": 20, "messages": [{"role": "user", "content": "hi"}]}
    limits = httpx.Limits(max_connections=CLIENTS, max_keepalive_connections=CLIENTS)
    async with httpx.AsyncClient(
        base_url=stack_env["base_url"], timeout=30, limits=limits, headers={"Authorization": f"Bearer {key}"}
    ) as edge:
        responses = await asyncio.gather(*(edge.post("/chat/completions", json=body) for _ in range(CLIENTS)))

    statuses = [r.status_code for r in responses]
    admitted = [r for r in responses if r.status_code == 200]
    refused = [r for r in responses if r.status_code == 429]
    assert len(admitted) + len(refused) == CLIENTS, sorted(set(statuses))
    assert admitted and refused
    for r in refused:
        assert r.json()["error"]["type"] in (
            "insufficient_quota",
            "rate_limit_error",
            "invalid_request_error",
        )
        assert "retry-after" in r.headers

    rows = await _ledger_rows(ledger_db, [r.headers["x-request-id"] for r in responses])
    assert len(rows) == CLIENTS
    completed = [row for row in rows if row["status"] == "completed"]
    assert len(completed) == len(admitted)
    assert sum(1 for row in rows if row["status_code"] == 429) == len(refused)
    spent = sum(row["cost_micro_usd"] for row in completed)
    assert spent <= BUDGET_MICRO_USD
    # What the ledger says equals what the clients were told they used.
    assert spent > 0
