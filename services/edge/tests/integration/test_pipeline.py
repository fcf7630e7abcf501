"""A real call through the whole pipeline: OpenAI SDK → edge → fake provider,
with usage events read back from a fresh Kafka topic."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import aiohttp
import orjson
import pytest
from openai import AsyncOpenAI

from tollway_contracts.catalogue import Prices
from tollway_contracts.events import validate_produced
from tollway_contracts.pricing import cost_micro_usd
from tollway_contracts.principals import INVALIDATION_CHANNEL, Invalidation
from tollway_testing.fake_provider import count_prompt_tokens

from .conftest import Edge
from .principals_schema import revoke_key

pytestmark = pytest.mark.integration

MESSAGES = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Say hello to the gateway."},
]
PRICES = Prices(input=150000, cached_input=75000, output=600000)


def _client(edge: Edge, key: str) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=edge.base_url, api_key=key, max_retries=0, timeout=20)


def _by_type(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    for e in events:
        validate_produced(e)  # strict producer contract
    return {e["type"]: e for e in events}


async def test_sdk_non_stream_completion_and_events(edge: Edge, fake_provider: Any) -> None:
    key = await edge.new_key("a")
    raw = await _client(edge, key).chat.completions.with_raw_response.create(
        model="gpt-4o-mini", messages=MESSAGES
    )
    completion = raw.parse()
    request_id = raw.headers["x-request-id"]
    assert float(raw.headers["x-tollway-overhead-ms"]) >= 0
    assert completion.choices[0].message.content
    prompt = count_prompt_tokens(MESSAGES)
    assert completion.usage.prompt_tokens == prompt
    assert completion.usage.completion_tokens == 20

    received = fake_provider.requests(request_id)
    assert len(received) == 1 and received[0]["body"]["model"] == "fake-model"

    events = await edge.events({request_id}, 2)
    assert sorted(e["type"] for e in events) == ["completed", "started"]
    by = _by_type(events)
    done = by["completed"]
    assert by["started"]["ts_start"] == done["ts_start"]
    assert done["prompt_tokens"] == prompt and done["completion_tokens"] == 20
    assert done["cost_micro_usd"] == cost_micro_usd(PRICES, prompt_tokens=prompt, completion_tokens=20)
    assert done["provider"] == "fake" and done["upstream_model"] == "fake-model"
    assert done["attempts"] == 1 and done["status_code"] == 200 and done["stream"] is False
    assert done["key_id"] == edge.key_ids["a"] and done["tenant_id"] == "tenant-1"
    assert done["latency_ms"] >= done["overhead_ms"] >= 0


async def test_sdk_stream_completion_and_events(edge: Edge) -> None:
    key = await edge.new_key("a")
    stream = await _client(edge, key).chat.completions.create(
        model="gpt-4o-mini", messages=MESSAGES, stream=True
    )
    request_id = stream.response.headers["x-request-id"]
    chunks = [chunk async for chunk in stream]
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert len(text.split()) == 20
    # The client did not ask for usage: the edge's usage-only chunk is not forwarded.
    assert all(c.choices for c in chunks)
    assert all(c.usage is None for c in chunks)

    events = await edge.events({request_id}, 2)
    by = _by_type(events)
    assert set(by) == {"started", "completed"}
    prompt = count_prompt_tokens(MESSAGES)
    done = by["completed"]
    assert done["stream"] is True and done["ttft_ms"] is not None
    assert done["prompt_tokens"] == prompt and done["completion_tokens"] == 20
    assert done["cost_micro_usd"] == cost_micro_usd(PRICES, prompt_tokens=prompt, completion_tokens=20)


async def test_stream_with_client_include_usage_gets_usage_chunk(edge: Edge) -> None:
    key = await edge.new_key("a")
    stream = await _client(edge, key).chat.completions.create(
        model="gpt-4o-mini", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
    )
    chunks = [chunk async for chunk in stream]
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens == 20


async def test_models_lists_only_allowed(edge: Edge) -> None:
    key = await edge.new_key("limited", allowed_models=["gpt-4o"])
    models = await _client(edge, key).models.list()
    assert [m.id for m in models.data] == ["gpt-4o"]


async def _post(
    http: aiohttp.ClientSession, edge: Edge, body: Any, key: str | None, **kw: Any
) -> tuple[int, dict, str]:
    headers = {"Content-Type": "application/json"}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    data = body if isinstance(body, bytes) else orjson.dumps(body)
    async with http.post(edge.base_url + "/chat/completions", data=data, headers=headers, **kw) as resp:
        payload = orjson.loads(await resp.read())
        assert "x-tollway-overhead-ms" in resp.headers
        return resp.status, payload, resp.headers["x-request-id"]


OK = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}

REFUSED = [
    ("malformed_json", b'{"model": "gpt-4o-mini",', 400, None),
    ("wrong_type", {**OK, "stream": "yes"}, 400, "stream"),
    (
        "invalid_utf8",
        b'{"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "\xff"}]}',
        400,
        None,
    ),
    ("not_allowed", {**OK, "model": "gpt-4o-mini"}, 403, "model"),
    ("unknown_model", {**OK, "model": "no-such-model"}, 404, "model"),
    ("too_large", {**OK, "messages": [{"role": "user", "content": "x" * 70_000}]}, 413, None),
    ("unreachable", {**OK, "model": "unreachable"}, 502, None),
    ("provider_500", {**OK, "model": "broken"}, 500, None),
]


@pytest.mark.parametrize(("case", "body", "status", "param"), REFUSED, ids=[c[0] for c in REFUSED])
async def test_refused_calls_emit_one_failed_event(
    edge: Edge, edge_http: aiohttp.ClientSession, case: str, body: Any, status: int, param: str | None
) -> None:
    key = await edge.new_key("a", allowed_models=["gpt-4o"] if case == "not_allowed" else None)
    got, payload, request_id = await _post(edge_http, edge, body, key)
    assert got == status
    assert set(payload["error"]) >= {"message", "type", "param", "code"}
    assert payload["error"]["param"] == param
    if case == "provider_500":
        assert payload["error"]["code"] == "provider_boom"  # the provider's own OpenAI-format body
    events = await edge.events({request_id}, 2 if status >= 500 else 1, within_s=8)
    failed = [e for e in events if e["type"] == "failed"]
    assert len(failed) == 1 and failed[0]["status_code"] == status
    validate_produced(failed[0])
    if status < 500:
        assert [e["type"] for e in events] == ["failed"]  # refused before the provider: no started
    else:
        assert sorted(e["type"] for e in events) == ["failed", "started"]


async def test_unauthenticated_calls_get_401_and_no_event(
    edge: Edge, edge_http: aiohttp.ClientSession
) -> None:
    good = await edge.new_key("good")
    revoked = await edge.new_key("revoked")
    await revoke_key(edge.dsn, edge.key_ids["revoked"])
    # No invalidation is published: the version poll alone must apply the revocation.
    deadline = time.monotonic() + 5
    while (await _post(edge_http, edge, OK, revoked))[0] != 401:
        assert time.monotonic() < deadline, "the version poll did not apply the revocation"
        await asyncio.sleep(0.05)
    refused = set()
    for key in (None, "not-a-key", "tw_aaaaaaaaaaaa_" + "A" * 32, good[:-1] + "Z", revoked):
        status, payload, request_id = await _post(edge_http, edge, OK, key)
        assert status == 401, key
        assert payload["error"]["type"] == "authentication_error"
        refused.add(request_id)
    async with edge_http.post(
        edge.base_url + "/chat/completions", data=orjson.dumps(OK), headers={"x-api-key": good}
    ) as resp:
        assert resp.status == 200
        sentinel = resp.headers["x-request-id"]
    events = await edge.events(refused | {sentinel}, 2)
    assert {e["request_id"] for e in events} == {sentinel}


async def test_fallback_to_second_route(edge: Edge, edge_http: aiohttp.ClientSession) -> None:
    """A refused connection and a 503 are retried once on their deployment (the
    catalogue's default retry policy: 2 attempts), then the next one answers."""
    key = await edge.new_key("a")
    for model, first, status_code, error_type in (
        ("fallback-dead", "dead", None, "upstream_unavailable"),
        ("fallback-503", "err503", 503, "upstream_503"),
    ):
        status, payload, request_id = await _post(edge_http, edge, {**OK, "model": model}, key)
        assert status == 200, payload
        done = _by_type(await edge.events({request_id}, 2))["completed"]
        assert done["attempts"] == 3 and done["provider"] == "fake"
        details = done["attempt_details"]
        assert [(d["provider"], d["status_code"], d["error_type"]) for d in details] == [
            (first, status_code, error_type),
            (first, status_code, error_type),
            ("fake", 200, None),
        ]
        assert details[-1]["cost_micro_usd"] == done["cost_micro_usd"] > 0
        assert details[0]["cost_micro_usd"] is None
        assert done["catalogue_version"] and len(done["catalogue_version"]) == 16


async def test_revoked_key_is_refused_within_one_second(edge: Edge, edge_http: aiohttp.ClientSession) -> None:
    key = await edge.new_key("a")
    status, _, _ = await _post(edge_http, edge, OK, key)
    assert status == 200
    import redis.asyncio as aioredis

    publisher = aioredis.from_url(edge.valkey_url)
    try:
        t0 = time.perf_counter()
        version = await revoke_key(edge.dsn, edge.key_ids["a"])
        await publisher.publish(
            INVALIDATION_CHANNEL, Invalidation(version=version, key_ids=[edge.key_ids["a"]]).encode()
        )
        while True:
            async with edge_http.get(
                edge.base_url + "/models", headers={"Authorization": f"Bearer {key}"}
            ) as resp:
                if resp.status == 401:
                    break
            assert time.perf_counter() - t0 < 1.0, "revocation not in force within 1 s"
            await asyncio.sleep(0.01)
        elapsed = time.perf_counter() - t0
    finally:
        await publisher.aclose()
    print(f"revocation refused after {elapsed * 1000:.1f} ms")
    assert elapsed < 1.0


async def test_health_ready_and_metrics(edge: Edge, edge_http: aiohttp.ClientSession) -> None:
    async with edge_http.get(edge.url + "/readyz") as resp:
        assert resp.status == 200
        assert "x-request-id" in resp.headers
    key = await edge.new_key("a")
    await _post(edge_http, edge, OK, key)
    async with edge_http.get(edge.url + "/metrics") as resp:
        text = await resp.text()
    assert 'tollway_requests_total{model="gpt-4o-mini",status="200"}' in text
    assert "tollway_request_duration_seconds_bucket" in text
    assert "tollway_usage_events_dropped_total" in text


async def test_client_disconnect_mid_stream_emits_terminal_event(
    edge: Edge, edge_http: aiohttp.ClientSession
) -> None:
    key = await edge.new_key("a")
    body = {**OK, "model": "slow-model", "stream": True}
    headers = {"Authorization": f"Bearer {key}"}
    resp = await edge_http.post(edge.base_url + "/chat/completions", data=orjson.dumps(body), headers=headers)
    request_id = resp.headers["x-request-id"]
    first = await resp.content.readline()
    assert first.startswith(b"data: ")
    resp.close()  # the client goes away after the first event
    events = await edge.events({request_id}, 2)
    by = _by_type(events)
    assert set(by) == {"started", "failed"}
    assert by["failed"]["error_type"] == "client_disconnected"
    assert by["failed"]["status_code"] == 499


@pytest.mark.parametrize("edge", [{"max_in_flight": 1}], indirect=True)
async def test_load_shedding_answers_fast_503(edge: Edge, edge_http: aiohttp.ClientSession) -> None:
    key = await edge.new_key("a")
    headers = {"Authorization": f"Bearer {key}"}
    body = {**OK, "model": "slow-model", "stream": True}
    busy = await edge_http.post(edge.base_url + "/chat/completions", data=orjson.dumps(body), headers=headers)
    try:
        async with edge_http.post(
            edge.base_url + "/chat/completions", data=orjson.dumps(OK), headers=headers
        ) as resp:
            assert resp.status == 503
            assert resp.headers["Retry-After"] == "1"
            assert (await resp.json())["error"]["code"] == "overloaded"
    finally:
        busy.close()


@pytest.mark.parametrize("edge", [{"_no_schema": True}], indirect=True)
async def test_edge_waits_for_principals_then_serves(edge: Edge, edge_http: aiohttp.ClientSession) -> None:
    async with edge_http.get(edge.url + "/readyz") as resp:
        assert resp.status == 503
    status, payload, _ = await _post(edge_http, edge, OK, "tw_aaaaaaaaaaaa_" + "A" * 32)
    assert status == 503 and payload["error"]["code"] == "auth_unavailable"
    from .principals_schema import create_principals_schema

    await create_principals_schema(edge.dsn)
    key = await edge.new_key("a")
    deadline = time.monotonic() + 20
    while True:
        async with edge_http.get(edge.url + "/readyz") as resp:
            if resp.status == 200:
                break
        assert time.monotonic() < deadline, "edge never became ready"
        await asyncio.sleep(0.1)
    status, _, _ = await _post(edge_http, edge, OK, key)
    assert status == 200


async def test_provider_cut_mid_stream_ends_with_an_error_the_sdk_raises(edge: Edge) -> None:
    from openai import APIError

    from tollway_edge.state import STATE

    key = await edge.new_key("a")
    upstream = edge.app[STATE].upstreams["slow"]
    upstream.headers["x-fake-disconnect-after-chunks"] = "2"  # the provider drops the connection
    try:
        received: list[str] = []
        with pytest.raises(APIError, match="before the answer was complete") as err:
            raw = await _client(edge, key).chat.completions.with_raw_response.create(
                model="slow-model", messages=MESSAGES, stream=True
            )
            request_id = raw.headers["x-request-id"]
            async for chunk in raw.parse():
                received.extend(c.delta.content or "" for c in chunk.choices)
    finally:
        del upstream.headers["x-fake-disconnect-after-chunks"]
    assert "".join(received) == "alpha bravo"  # the two chunks the provider sent, then the error event
    assert err.value.body["code"] == "upstream_stream_error"  # type: ignore[index]
    by = _by_type(await edge.events({request_id}, 2))
    assert set(by) == {"started", "failed"}
    assert by["failed"]["error_type"] == "upstream_stream_error"
