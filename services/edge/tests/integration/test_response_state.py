"""Stored responses pinned to the deployment holding them, through the official
``openai`` SDK → a real edge (real Valkey records) → two deployments of the fake
provider (``responses-pair``: east and west, drawn at random per call; each keeps
its own stored responses and answers 404/400 for the other's, as two provider
accounts would). ``previous_response_id``, ``GET``/``DELETE /v1/responses/{id}``
and ``input_items`` reach the holder, never the other one and never a fallback;
another tenant's response is a 404; reads and deletes are rate-limited on
requests per minute but emit no usage event; Valkey unreachable is a 503."""

from __future__ import annotations

from typing import Any

import openai
import pytest
from openai import AsyncOpenAI

from tollway_contracts.events import validate_produced
from tollway_edge.endpoints.response_state import ResponseDirectory, state_key
from tollway_edge.metrics import RESPONSE_STATE
from tollway_edge.state import STATE

from .conftest import PEPPER, Edge
from .principals_schema import upsert_key

pytestmark = pytest.mark.integration

MODEL = "responses-pair"


def _client(edge: Edge, key: str) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=edge.base_url, api_key=key, max_retries=0, timeout=20)


def _holder(fake_provider: Any, request_id: str) -> str:
    (record,) = fake_provider.requests(request_id)
    assert record["status"] == 200
    return str(record["deployment"])


async def _create(client: AsyncOpenAI, text: str, stream: bool) -> tuple[str, str]:
    """Create a stored response; returns ``(response id, request id)``."""
    if stream:
        events = await client.responses.create(model=MODEL, input=text, stream=True)
        request_id = events.response.headers["x-request-id"]
        final = [e async for e in events][-1]
        assert final.type == "response.completed"
        return final.response.id, request_id
    raw = await client.responses.with_raw_response.create(model=MODEL, input=text)
    return raw.parse().id, raw.headers["x-request-id"]


async def test_follow_ups_reads_and_deletes_reach_the_deployment_holding_the_response(
    edge: Edge, fake_provider: Any
) -> None:
    key = await edge.new_key("a")
    client = _client(edge, key)
    unmetered: set[str] = set()
    gets_before = RESPONSE_STATE.labels("get", "200")._value.get()
    held: list[tuple[str, str]] = []
    for i in range(8):  # unpinned, each of the 3 follow-ups would hit the wrong deployment half the time
        response_id, request_id = await _create(client, f"note number {i}", stream=i % 2 == 1)
        holder = _holder(fake_provider, request_id)
        held.append((response_id, holder))

        follow = await client.responses.with_raw_response.create(
            model=MODEL, input="and then?", previous_response_id=response_id, stream=False
        )
        assert follow.parse().previous_response_id == response_id
        assert _holder(fake_provider, follow.headers["x-request-id"]) == holder

        got = await client.responses.with_raw_response.retrieve(response_id)
        assert got.parse().id == response_id and got.parse().output_text
        assert _holder(fake_provider, got.headers["x-request-id"]) == holder

        items = await client.responses.input_items.with_raw_response.list(response_id, order="asc")
        listed = items.parse().data
        assert [item.type for item in listed] == ["message"]
        assert listed[0].content[0].text == f"note number {i}"  # type: ignore[union-attr]
        assert _holder(fake_provider, items.headers["x-request-id"]) == holder
        unmetered |= {got.headers["x-request-id"], items.headers["x-request-id"]}

    response_id, holder = held[0]
    deleted = await client.responses.with_raw_response.delete(response_id)
    assert deleted.status_code == 200
    assert _holder(fake_provider, deleted.headers["x-request-id"]) == holder
    unmetered.add(deleted.headers["x-request-id"])
    with pytest.raises(openai.NotFoundError) as gone:  # the edge forgot it: the provider is not asked
        await client.responses.retrieve(response_id)
    assert gone.value.code == "response_not_found"
    assert fake_provider.requests(gone.value.response.headers["x-request-id"]) == []
    valkey = edge.app[STATE].response_directory
    assert valkey is not None and await valkey.get("tenant-1", held[1][0]) is not None
    assert RESPONSE_STATE.labels("get", "200")._value.get() == gets_before + 8
    assert await edge.events(unmetered, 1, within_s=3.0) == []  # reads and deletes: no usage event


async def test_the_record_is_per_tenant_and_expires(edge: Edge, fake_provider: Any) -> None:
    key = await edge.new_key("a")
    response_id, _ = await _create(_client(edge, key), "tenant one's secret", stream=False)
    other, _, _ = await upsert_key(edge.dsn, PEPPER.encode(), tenant_id="tenant-2")
    client = _client(edge, other)
    with pytest.raises(openai.NotFoundError) as read:
        await client.responses.retrieve(response_id)
    assert read.value.code == "response_not_found" and response_id in read.value.message
    with pytest.raises(openai.NotFoundError):
        await client.responses.delete(response_id)
    with pytest.raises(openai.NotFoundError):
        await client.responses.input_items.list(response_id)
    with pytest.raises(openai.BadRequestError) as follow:  # OpenAI's answer to an unknown one
        await client.responses.create(model=MODEL, input="x", previous_response_id=response_id)
    assert follow.value.code == "previous_response_not_found"
    assert follow.value.param == "previous_response_id"
    ids = {e.response.headers["x-request-id"] for e in (read.value, follow.value)}
    assert all(fake_provider.requests(i) == [] for i in ids)  # nothing reached a provider
    events = await edge.events({follow.value.response.headers["x-request-id"]}, 1)
    assert [(e["type"], e["status_code"], e["error_type"]) for e in events] == [
        ("failed", 400, "previous_response_not_found")
    ]
    validate_produced(events[0])
    # the record carries the configured TTL (30 days by default)
    from tollway_admission import valkey_client

    valkey = valkey_client(edge.valkey_url)
    try:
        ttl = await valkey.ttl(state_key("tenant-1", response_id))
    finally:
        await valkey.aclose()
    assert 30 * 24 * 3600 - 60 < ttl <= 30 * 24 * 3600


async def test_a_failing_holder_is_the_answer_never_a_fallback(edge: Edge, fake_provider: Any) -> None:
    key = await edge.new_key("a")
    client = _client(edge, key)
    response_id, request_id = await _create(client, "remember me", stream=False)
    holder = _holder(fake_provider, request_id)
    other = "west" if holder == "east" else "east"
    fake_provider.set_faults({holder: {"status": 503}})
    with pytest.raises(openai.InternalServerError) as follow:
        await client.responses.create(model=MODEL, input="again", previous_response_id=response_id)
    assert follow.value.status_code == 503
    follow_id = follow.value.response.headers["x-request-id"]
    with pytest.raises(openai.InternalServerError) as read:
        await client.responses.retrieve(response_id)
    assert read.value.status_code == 503
    read_id = read.value.response.headers["x-request-id"]
    for rid in (follow_id, read_id):  # retried on the holder, never sent to the other deployment
        records = fake_provider.requests(rid)
        assert records and {r["deployment"] for r in records} == {holder}
        assert fake_provider.requests(rid, deployment=other) == []
    events = await edge.events({follow_id}, 2)
    (done,) = [e for e in events if e["type"] != "started"]
    assert done["type"] == "failed" and done["status_code"] == 503 and done["deployment"] == holder
    # a fresh response (no previous_response_id) still falls back to the healthy deployment
    fresh = await client.responses.with_raw_response.create(model=MODEL, input="new conversation")
    answered = fake_provider.requests(fresh.headers["x-request-id"], status=200)
    assert [r["deployment"] for r in answered] == [other]


async def test_reads_are_rate_limited_on_requests_never_on_tokens(edge: Edge, fake_provider: Any) -> None:
    creator = await edge.new_key("a")
    response_id, _ = await _create(_client(edge, creator), "count my reads", stream=False)
    # same tenant; 2 requests a minute, and 1 token a minute that any charged call would exceed
    limits = [{"scope": "key", "scope_id": "$key", "requests_per_minute": 2, "tokens_per_minute": 1}]
    reader = _client(edge, await edge.new_key("b", limits=limits))
    assert (await reader.responses.retrieve(response_id)).id == response_id
    assert (await reader.responses.input_items.list(response_id)).data
    with pytest.raises(openai.RateLimitError) as limited:
        await reader.responses.retrieve(response_id)
    assert limited.value.response.headers.get("retry-after")
    assert fake_provider.requests(limited.value.response.headers["x-request-id"]) == []


async def test_valkey_unreachable_lookups_are_503_and_creation_still_answers(
    edge: Edge, fake_provider: Any
) -> None:
    key = await edge.new_key("a")
    client = _client(edge, key)
    response_id, _ = await _create(client, "before the outage", stream=False)
    state = edge.app[STATE]
    healthy = state.response_directory
    state.response_directory = ResponseDirectory("redis://127.0.0.1:9/0", ttl_seconds=60, timeout_seconds=0.5)
    try:
        with pytest.raises(openai.APIStatusError) as read:
            await client.responses.retrieve(response_id)
        assert read.value.status_code == 503 and read.value.code == "response_state_unavailable"
        assert read.value.response.headers["retry-after"] == "1"
        with pytest.raises(openai.APIStatusError) as follow:
            await client.responses.create(model=MODEL, input="x", previous_response_id=response_id)
        assert follow.value.status_code == 503
        errors_before = RESPONSE_STATE.labels("record", "error")._value.get()
        created = await client.responses.create(model=MODEL, input="during the outage")  # answered anyway
        assert created.output_text
        assert RESPONSE_STATE.labels("record", "error")._value.get() == errors_before + 1
    finally:
        await state.response_directory.close()
        state.response_directory = healthy
    assert (await client.responses.retrieve(response_id)).id == response_id
    with pytest.raises(openai.NotFoundError):  # never recorded: not reachable through the gateway
        await client.responses.retrieve(created.id)


async def test_store_false_is_not_recorded_and_other_paths_are_not_served(
    edge: Edge, fake_provider: Any
) -> None:
    key = await edge.new_key("a")
    client = _client(edge, key)
    created = await client.responses.create(model=MODEL, input="ephemeral", store=False)
    directory = edge.app[STATE].response_directory
    assert directory is not None and await directory.get("tenant-1", created.id) is None
    with pytest.raises(openai.NotFoundError) as cancel:
        await client.responses.cancel(created.id)
    assert cancel.value.code == "endpoint_not_served"
    with pytest.raises(openai.NotFoundError) as counting:  # POST /v1/responses/input_tokens
        await client.responses.input_tokens.count(model=MODEL, input="x")
    assert counting.value.code == "endpoint_not_served"


async def test_a_fragmented_first_event_is_read_whole_and_relayed_unchanged() -> None:
    """The provider's ``response.created`` arrives in three TCP writes: the id is
    still found, and every byte read for it goes on to the relay."""
    import asyncio

    import orjson
    from aiohttp import web
    from aiohttp.test_utils import TestServer

    from tollway_edge.endpoints.response_state import _stream_id
    from tollway_edge.routing.forward import Answer
    from tollway_edge.routing.http1 import Timeouts
    from tollway_edge.routing.http1_pool import Client

    created = b"event: response.created\ndata: " + orjson.dumps(
        {"type": "response.created", "response": {"id": "resp_abc123", "status": "in_progress"}}
    )
    later = b"\n\nevent: response.completed\ndata: {}\n\n"

    async def provider(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        for piece in (created[:10], created[10:40], created[40:], later):
            await resp.write(piece)
            await asyncio.sleep(0.05)
        return resp

    app = web.Application()
    app.router.add_get("/", provider)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        client = Client(limit=1, connecting=1)  # the edge's provider client
        resp = await client.request("GET", server.make_url("/"), {}, None, Timeouts())
        first = await resp.content.readany()
        assert first == created[:10]
        answer = Answer(resp, None, first)
        assert await _stream_id(answer) == "resp_abc123"
        assert answer.first is not None and answer.first.startswith(created)
        rest = answer.first + await resp.read()
        assert rest == created + later
        await client.close()
    finally:
        await server.close()
