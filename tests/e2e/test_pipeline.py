"""A real call through the whole pipeline: OpenAI SDK -> edge -> fake provider
-> Kafka -> ledger, against the running stack (issue 2's acceptance)."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import asyncpg
import httpx
import orjson
import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from openai import AsyncOpenAI, AuthenticationError

from tollway_contracts.keys import parse_key
from tollway_contracts.topics import USAGE

pytestmark = pytest.mark.e2e

LEDGER_COLUMNS = (
    "request_id, key_id, tenant_id, model, status, status_code, stream, prompt_tokens,"
    " completion_tokens, cached_tokens, total_tokens, cost_micro_usd, provider, attempts,"
    " started_event_id, terminal_event_id"
)


async def _ledger_row(
    db: asyncpg.Connection, request_id: str, *, status: str = "completed", within_s: float = 20.0
) -> asyncpg.Record:
    """Wait until the ledger holds the call with ``status``; return its row."""
    deadline = time.monotonic() + within_s
    while True:
        row = await db.fetchrow(
            f"SELECT {LEDGER_COLUMNS} FROM ledger.usage_records WHERE request_id = $1",
            uuid.UUID(request_id),
        )
        if row is not None and row["status"] == status:
            return row
        if time.monotonic() > deadline:
            raise AssertionError(f"ledger has no {status} row for {request_id}: {row}")
        await asyncio.sleep(0.1)


def _provider_log(stack_env: dict[str, str], request_id: str) -> dict[str, Any]:
    """What the fake provider received and the token counts it logged for one call."""
    records = httpx.get(
        f"{stack_env['fake_provider_url']}/_fake/requests", params={"request_id": request_id}
    ).json()
    assert len(records) == 1, f"the provider saw {len(records)} requests for {request_id}"
    return records[0]


async def test_sdk_non_stream_and_stream_calls_land_in_the_ledger(
    stack_env: dict[str, str], ledger_db: asyncpg.Connection
) -> None:
    client = AsyncOpenAI(base_url=stack_env["base_url"], api_key=stack_env["api_key"])
    key_id = parse_key(stack_env["api_key"]).key_id

    raw = await client.chat.completions.with_raw_response.create(
        model="gpt-4o-mini",
        messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello, ledger!"}],
    )
    completion = raw.parse()
    rid_plain = raw.headers["x-request-id"]
    assert float(raw.headers["x-tollway-overhead-ms"]) >= 0
    assert completion.choices[0].message.content

    raw_stream = await client.chat.completions.with_raw_response.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "Stream me something."}],
        stream=True,
    )
    rid_stream = raw_stream.headers["x-request-id"]
    text = []
    async for chunk in raw_stream.parse():
        if chunk.choices:
            text.append(chunk.choices[0].delta.content or "")
    assert "".join(text)

    for rid, stream in ((rid_plain, False), (rid_stream, True)):
        log = _provider_log(stack_env, rid)
        row = await _ledger_row(ledger_db, rid)
        assert str(row["request_id"]) == rid
        assert row["key_id"] == key_id
        assert row["model"] == "gpt-4o-mini"
        assert row["stream"] is stream
        assert row["status_code"] == 200
        assert row["prompt_tokens"] == log["prompt_tokens"]
        assert row["completion_tokens"] == log["completion_tokens"]
        assert row["total_tokens"] == log["prompt_tokens"] + log["completion_tokens"]
        # gpt-4o-mini in infra/catalogue.yaml: 150,000 in / 600,000 out micro-USD per M.
        expected = -(-(log["prompt_tokens"] * 150_000 + log["completion_tokens"] * 600_000) // 1_000_000)
        assert row["cost_micro_usd"] == expected
        assert row["started_event_id"] is not None and row["terminal_event_id"] is not None
    # The non-stream usage the client saw equals what the provider logged.
    assert completion.usage.prompt_tokens == _provider_log(stack_env, rid_plain)["prompt_tokens"]


async def test_unknown_model_is_a_404_recorded_as_one_failed_call(
    stack_env: dict[str, str], ledger_db: asyncpg.Connection
) -> None:
    async with httpx.AsyncClient(base_url=stack_env["base_url"], timeout=10) as http:
        response = await http.post(
            "/chat/completions",
            headers={"Authorization": f"Bearer {stack_env['api_key']}"},
            json={"model": "no-such-model", "messages": [{"role": "user", "content": "hi"}]},
        )
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "model_not_found"
    row = await _ledger_row(ledger_db, response.headers["x-request-id"], status="failed")
    assert row["status_code"] == 404 and row["started_event_id"] is None


async def _topic_events(bootstrap: str, request_ids: set[str], count: int) -> list[bytes]:
    """Read the usage topic from the beginning until ``count`` events of the calls are found."""
    consumer = AIOKafkaConsumer(
        USAGE.name,
        bootstrap_servers=bootstrap,
        group_id=None,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
    )
    await consumer.start()
    found: list[bytes] = []
    try:
        deadline = time.monotonic() + 30
        while len(found) < count and time.monotonic() < deadline:
            batches = await consumer.getmany(timeout_ms=500, max_records=5000)
            for records in batches.values():
                for record in records:
                    if record.key is not None and record.key.decode() in request_ids:
                        found.append(record.value)
    finally:
        await consumer.stop()
    assert len(found) == count, f"found {len(found)} of {count} events on {USAGE.name}"
    return found


async def test_redelivered_and_reordered_events_leave_the_ledger_unchanged(
    stack_env: dict[str, str], ledger_db: asyncpg.Connection
) -> None:
    client = AsyncOpenAI(base_url=stack_env["base_url"], api_key=stack_env["api_key"])
    rids = []
    for i in range(3):
        raw = await client.chat.completions.with_raw_response.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": f"call {i}"}]
        )
        rids.append(raw.headers["x-request-id"])
    before = [dict(await _ledger_row(ledger_db, rid)) for rid in rids]

    events = await _topic_events(stack_env["kafka"], set(rids), count=2 * len(rids))
    started = [e for e in events if orjson.loads(e)["type"] == "started"]
    terminal = [e for e in events if orjson.loads(e)["type"] != "started"]
    producer = AIOKafkaProducer(bootstrap_servers=stack_env["kafka"], acks="all")
    await producer.start()
    try:
        # Every event again, then each call's started after its completed.
        for value in events + terminal + started:
            key = orjson.loads(value)["request_id"].encode()
            await producer.send_and_wait(USAGE.name, value, key=key)
    finally:
        await producer.stop()

    # The ledger has consumed past them once the partition offsets move; give it time,
    # then the rows are byte-for-byte what they were.
    await asyncio.sleep(3)
    after = [dict(await _ledger_row(ledger_db, rid)) for rid in rids]
    assert after == before
    count = await ledger_db.fetchval(
        "SELECT count(*) FROM ledger.usage_records WHERE request_id = ANY($1::uuid[])",
        [uuid.UUID(r) for r in rids],
    )
    assert count == len(rids)


async def test_revoked_key_is_refused_within_one_second(
    stack_env: dict[str, str], admin: httpx.AsyncClient
) -> None:
    tenants = (await admin.get("/admin/v1/tenants")).json()
    demo = next(t for t in tenants["data"] if t["name"] == "demo")
    created = await admin.post(
        "/admin/v1/keys", json={"tenant_id": demo["id"], "name": f"e2e-revoke-{uuid.uuid4().hex[:6]}"}
    )
    assert created.status_code in (200, 201), created.text
    body = created.json()
    full_key, key_id = body["key"], body["key_id"]

    client = AsyncOpenAI(base_url=stack_env["base_url"], api_key=full_key, max_retries=0)
    # A new key works within a second too (the edge learns of it by invalidation).
    deadline = time.monotonic() + 1.0
    while True:
        try:
            await client.models.list()
            break
        except AuthenticationError:
            assert time.monotonic() < deadline, "a new key was not accepted within 1 s"
            await asyncio.sleep(0.02)

    revoked = await admin.post(f"/admin/v1/keys/{key_id}/revoke")
    assert revoked.status_code == 200, revoked.text
    t0 = time.monotonic()
    while True:
        try:
            await client.models.list()
        except AuthenticationError as exc:
            assert exc.status_code == 401
            break
        assert time.monotonic() - t0 < 1.0, "a revoked key was still accepted after 1 s"
        await asyncio.sleep(0.01)
    assert time.monotonic() - t0 < 1.0
