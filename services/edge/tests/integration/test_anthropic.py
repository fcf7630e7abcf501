"""Anthropic's Messages API both ways, through the official SDKs → a real edge →
the fake provider, with the usage events read back from Kafka: the ``anthropic``
SDK on ``/v1/messages`` to an Anthropic provider (native) and to an OpenAI
provider (translated); the ``openai`` SDK's chat completions to an Anthropic
provider (translated). Content, tool calls and stop reasons as the SDKs see
them; tokens and cost billed exactly as the fake provider logged them
(OpenAI's meaning: prompt = input + cache reads + cache writes), in the usage
event and in the row a real ledger (``tollway_ledger.create_app`` consuming the
edge's topic into the test's database) writes."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import anthropic
import asyncpg
import openai
import orjson
import pytest
import pytest_asyncio
from aiohttp import web
from anthropic import AsyncAnthropic
from openai import AsyncOpenAI

from tollway_contracts.catalogue import Prices
from tollway_contracts.events import validate_produced
from tollway_contracts.pricing import cost_micro_usd
from tollway_edge.auth.principals import parse_redaction_policy
from tollway_edge.state import STATE

from .conftest import PEPPER, Edge
from .principals_schema import upsert_key
from .redaction_support import set_policy

pytestmark = pytest.mark.integration

PRICES = Prices(input=150000, cached_input=75000, output=600000)
CLAUDE_PRICES = Prices(input=150000, cached_input=75000, cache_write_input=187500, output=600000)
WEATHER = {
    "name": "get_weather",
    "description": "Weather of a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
TIME = {
    "name": "get_time",
    "description": "Time in a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}


LEDGER_COLUMNS = (
    "status, status_code, stream, model, provider, prompt_tokens, completion_tokens, cached_tokens,"
    " cache_write_tokens, total_tokens, cost_micro_usd"
)


@pytest_asyncio.fixture
async def ledger(edge: Edge, fresh_topic: Any) -> AsyncIterator[asyncpg.Connection]:
    """The real ledger consuming the edge's topic into the edge's database (it migrates
    at start); yields a connection to read ``ledger.usage_records``."""
    from tollway_ledger.app import create_app
    from tollway_ledger.settings import LedgerSettings

    settings = LedgerSettings(
        postgres_dsn=edge.dsn,
        kafka_bootstrap_servers=edge.kafka,
        topic=edge.topic,
        dlq_topic=await fresh_topic(partitions=1),
        consumer_group=f"test-ledger-{uuid.uuid4().hex[:10]}",
        auto_offset_reset="earliest",
        batch_timeout_ms=100,
        shutdown_timeout_seconds=10,
    )
    runner = web.AppRunner(create_app(settings), handle_signals=False)
    await runner.setup()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    await web.TCPSite(runner, "127.0.0.1", port).start()
    conn = await asyncpg.connect(edge.dsn)
    try:
        yield conn
    finally:
        await conn.close()
        with contextlib.suppress(Exception):
            await runner.cleanup()


async def _ledger_row(db: asyncpg.Connection, request_id: str, within_s: float = 20.0) -> asyncpg.Record:
    """Wait until the ledger holds the call's terminal row."""
    deadline = time.monotonic() + within_s
    while True:
        row = await db.fetchrow(
            f"SELECT {LEDGER_COLUMNS} FROM ledger.usage_records WHERE request_id = $1", uuid.UUID(request_id)
        )
        if row is not None and row["status"] != "started":
            return row
        if time.monotonic() > deadline:
            raise AssertionError(f"the ledger has no terminal row for {request_id}: {row}")
        await asyncio.sleep(0.1)


def _anthropic(edge: Edge, key: str) -> AsyncAnthropic:
    return AsyncAnthropic(base_url=edge.url, api_key=key, max_retries=0, timeout=20)


def _openai(edge: Edge, key: str) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=edge.base_url, api_key=key, max_retries=0, timeout=20)


def _openai_tool(tool: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool["name"],
            "description": tool["description"],
            "parameters": tool["input_schema"],
        },
    }


async def _billed_as_logged(
    edge: Edge, fake_provider: Any, request_id: str, api: str, ledger: asyncpg.Connection
) -> dict[str, Any]:
    records = fake_provider.requests(request_id)
    assert len(records) == 1, records
    record = records[0]
    assert record["api"] == api
    events = await edge.events({request_id}, 2)
    for e in events:
        validate_produced(e)
    assert [e["type"] for e in events] == ["started", "completed"], events
    done = events[1]
    assert done["status_code"] == 200
    assert done["prompt_tokens"] == record["prompt_tokens"] > 0
    assert done["completion_tokens"] == record["completion_tokens"] > 0
    assert done["cached_tokens"] == record["cached_tokens"]
    assert done["cache_write_tokens"] == record["cache_write_tokens"]
    cost = cost_micro_usd(
        CLAUDE_PRICES if record["body"]["model"] == "claude-fake" else PRICES,
        prompt_tokens=record["prompt_tokens"],
        completion_tokens=record["completion_tokens"],
        cached_tokens=record["cached_tokens"],
        cache_write_tokens=record["cache_write_tokens"],
    )
    assert done["cost_micro_usd"] == cost
    row = await _ledger_row(ledger, request_id)
    assert row["status"] == "completed" and row["status_code"] == 200
    assert (row["prompt_tokens"], row["completion_tokens"]) == (
        record["prompt_tokens"],
        record["completion_tokens"],
    )
    assert (row["cached_tokens"], row["cache_write_tokens"]) == (
        record["cached_tokens"],
        record["cache_write_tokens"],
    )
    assert row["total_tokens"] == record["prompt_tokens"] + record["completion_tokens"]
    assert row["cost_micro_usd"] == cost
    return record


async def test_messages_native_non_stream_with_cache_tokens(
    edge: Edge, fake_provider: Any, ledger: asyncpg.Connection
) -> None:
    key = await edge.new_key("a")
    raw = await _anthropic(edge, key).messages.with_raw_response.create(
        model="claude-test",
        max_tokens=200,
        system="be brief",
        messages=[
            {
                "role": "user",
                "content": "hello claude fake-cache-read-7 fake-cache-write-100 " + "lorem " * 100,
            }
        ],
        extra_headers={"anthropic-version": "2025-05-05", "anthropic-beta": "fake-beta"},
    )
    message = await raw.parse()
    assert message.type == "message" and message.stop_reason == "end_turn"
    assert message.content[0].type == "text" and message.content[0].text
    assert message.usage.cache_read_input_tokens == 7 and message.usage.cache_creation_input_tokens == 100
    record = await _billed_as_logged(edge, fake_provider, raw.headers["x-request-id"], "messages", ledger)
    assert record["path"] == "/v1/messages" and record["body"]["model"] == "claude-fake"
    headers = {k.lower(): v for k, v in record["headers"].items()}
    assert headers["x-api-key"] == "sk-test-provider" and "authorization" not in headers
    # the client's version and beta flags pass through (the provider's own default is 2023-06-01)
    assert headers["anthropic-version"] == "2025-05-05" and headers["anthropic-beta"] == "fake-beta"
    assert record["cached_tokens"] == 7 and record["cache_write_tokens"] == 100
    prompt = message.usage.input_tokens + 7 + 100
    assert record["prompt_tokens"] == prompt
    # cache writes are billed at the model's cache_write_input rate, not at input
    at_input = cost_micro_usd(
        PRICES, prompt_tokens=prompt, completion_tokens=record["completion_tokens"], cached_tokens=7
    )
    (done,) = [e for e in await edge.events({raw.headers["x-request-id"]}, 2) if e["type"] == "completed"]
    assert done["cost_micro_usd"] > at_input


async def test_messages_native_stream_with_parallel_tools(
    edge: Edge, fake_provider: Any, ledger: asyncpg.Connection
) -> None:
    key = await edge.new_key("a")
    client = _anthropic(edge, key)
    async with client.messages.stream(
        model="claude-test",
        max_tokens=300,
        tools=[WEATHER, TIME],  # type: ignore[list-item]  # plain dicts, as users write them
        messages=[{"role": "user", "content": "weather and time in Paris"}],
    ) as stream:
        message = await stream.get_final_message()
        request_id = stream.response.headers["x-request-id"]
    assert message.stop_reason == "tool_use"
    uses = [b for b in message.content if b.type == "tool_use"]
    assert [u.name for u in uses] == ["get_weather", "get_time"]
    assert all(isinstance(u.input, dict) and u.input for u in uses)
    record = await _billed_as_logged(edge, fake_provider, request_id, "messages", ledger)
    assert record["stream"] is True
    assert message.usage.output_tokens == record["completion_tokens"]


async def test_messages_translated_to_openai_provider(
    edge: Edge, fake_provider: Any, ledger: asyncpg.Connection
) -> None:
    key = await edge.new_key("a")
    client = _anthropic(edge, key)
    raw = await client.messages.with_raw_response.create(
        model="gpt-4o-mini",
        max_tokens=100,
        system="be brief",
        messages=[{"role": "user", "content": "hello through chat"}],
    )
    message = await raw.parse()
    assert message.type == "message" and message.stop_reason == "end_turn"
    assert message.content[0].type == "text" and message.content[0].text
    record = await _billed_as_logged(
        edge, fake_provider, raw.headers["x-request-id"], "chat.completions", ledger
    )
    assert record["path"] == "/v1/chat/completions"
    assert record["body"]["messages"][0] == {"role": "system", "content": "be brief"}
    assert record["body"]["max_completion_tokens"] == 100
    assert (
        message.usage.input_tokens + (message.usage.cache_read_input_tokens or 0) == record["prompt_tokens"]
    )

    async with client.messages.stream(
        model="gpt-4o-mini",
        max_tokens=300,
        tools=[WEATHER, TIME],  # type: ignore[list-item]
        messages=[{"role": "user", "content": "weather and time in Paris"}],
    ) as stream:
        final = await stream.get_final_message()
        request_id = stream.response.headers["x-request-id"]
    assert final.stop_reason == "tool_use"
    uses = [b for b in final.content if b.type == "tool_use"]
    assert [u.name for u in uses] == ["get_weather", "get_time"]
    assert all(isinstance(u.input, dict) and u.input for u in uses)
    record = await _billed_as_logged(edge, fake_provider, request_id, "chat.completions", ledger)
    assert final.usage.output_tokens == record["completion_tokens"]

    azure = await client.messages.with_raw_response.create(  # Azure: the deployment URL, api-key
        model="azure-chat", max_tokens=50, messages=[{"role": "user", "content": "hello azure"}]
    )
    assert (await azure.parse()).content[0].type == "text"
    record = await _billed_as_logged(
        edge, fake_provider, azure.headers["x-request-id"], "chat.completions", ledger
    )
    assert record["path"] == "/openai/deployments/chat-deployment/chat/completions"

    async with client.messages.stream(
        model="gpt-4o-mini", max_tokens=100, messages=[{"role": "user", "content": "say words"}]
    ) as text_stream:
        text = "".join([t async for t in text_stream.text_stream])
        request_id = text_stream.response.headers["x-request-id"]
    assert len(text.split()) > 0
    await _billed_as_logged(edge, fake_provider, request_id, "chat.completions", ledger)


async def test_chat_translated_to_anthropic_provider(
    edge: Edge, fake_provider: Any, ledger: asyncpg.Connection
) -> None:
    key = await edge.new_key("a")
    client = _openai(edge, key)
    raw = await client.chat.completions.with_raw_response.create(
        model="claude-test",
        messages=[
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "hello from openai fake-cache-read-5 fake-cache-write-2"},
        ],
    )
    completion = raw.parse()
    assert completion.choices[0].message.content and completion.choices[0].finish_reason == "stop"
    record = await _billed_as_logged(edge, fake_provider, raw.headers["x-request-id"], "messages", ledger)
    assert record["path"] == "/v1/messages" and record["body"]["system"] == "be brief"
    assert record["body"]["max_tokens"] > 0
    assert completion.usage is not None and completion.usage.prompt_tokens == record["prompt_tokens"]
    assert record["cached_tokens"] == 5 and record["cache_write_tokens"] == 2

    tools = [_openai_tool(WEATHER), _openai_tool(TIME)]
    calls = await client.chat.completions.create(
        model="claude-test",
        messages=[{"role": "user", "content": "weather and time in Paris"}],
        tools=tools,  # type: ignore[arg-type]
    )
    tool_calls = calls.choices[0].message.tool_calls or []
    assert calls.choices[0].finish_reason == "tool_calls"
    assert [c.function.name for c in tool_calls] == ["get_weather", "get_time"]  # type: ignore[union-attr]

    stream = await client.chat.completions.with_raw_response.create(
        model="claude-test",
        messages=[{"role": "user", "content": "weather and time in Paris"}],
        tools=tools,  # type: ignore[arg-type]
        stream=True,
        stream_options={"include_usage": True},
    )
    by_index: dict[int, dict[str, str]] = {}
    finish = None
    usage = None
    async for chunk in stream.parse():
        if chunk.usage is not None:
            usage = chunk.usage
        for choice in chunk.choices:
            finish = choice.finish_reason or finish
            for delta in choice.delta.tool_calls or []:
                slot = by_index.setdefault(delta.index, {"name": "", "arguments": ""})
                if delta.function and delta.function.name:
                    slot["name"] = delta.function.name
                if delta.function and delta.function.arguments:
                    slot["arguments"] += delta.function.arguments
    assert finish == "tool_calls"
    assert [by_index[i]["name"] for i in sorted(by_index)] == ["get_weather", "get_time"]
    assert sorted(by_index) == [0, 1]
    record = await _billed_as_logged(edge, fake_provider, stream.headers["x-request-id"], "messages", ledger)
    assert usage is not None and usage.completion_tokens == record["completion_tokens"]

    text_stream = await client.chat.completions.create(
        model="claude-test", messages=[{"role": "user", "content": "say words"}], stream=True
    )
    text = "".join([c.choices[0].delta.content or "" async for c in text_stream if c.choices])
    assert len(text.split()) > 0


async def test_messages_errors_are_anthropic_format(edge: Edge, fake_provider: Any) -> None:
    key = await edge.new_key("a")
    with pytest.raises(anthropic.AuthenticationError) as auth:
        await _anthropic(edge, "tw_nope_nope").messages.create(
            model="claude-test", max_tokens=10, messages=[{"role": "user", "content": "x"}]
        )
    assert auth.value.body == {  # Anthropic's error format on Anthropic's endpoint
        "type": "error",
        "error": {"type": "authentication_error", "message": "Incorrect API key provided."},
    }
    with pytest.raises(anthropic.NotFoundError):
        await _anthropic(edge, key).messages.create(
            model="no-such-model", max_tokens=10, messages=[{"role": "user", "content": "x"}]
        )
    with pytest.raises(anthropic.BadRequestError) as bad:  # top_k: chat completions have none
        await _anthropic(edge, key).messages.create(
            model="gpt-4o-mini",
            max_tokens=10,
            messages=[{"role": "user", "content": "x"}],
            extra_body={"top_k": 5},  # SDK 2.x no longer has it; older clients send it
        )
    body = bad.value.response.json()
    assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"
    assert "top_k" in body["error"]["message"]
    request_id = bad.value.response.headers["x-request-id"]
    assert fake_provider.requests(request_id) == []  # nothing sent
    events = await edge.events({request_id}, 1)
    assert [(e["type"], e["status_code"]) for e in events] == [("failed", 400)]  # no `started`


async def test_chat_translation_refusal_is_openai_format(edge: Edge, fake_provider: Any) -> None:
    key = await edge.new_key("a")
    with pytest.raises(openai.BadRequestError) as bad:  # Anthropic has no logprobs
        await _openai(edge, key).chat.completions.create(
            model="claude-test", logprobs=True, messages=[{"role": "user", "content": "x"}]
        )
    assert bad.value.code == "unsupported_parameter" and bad.value.param == "logprobs"
    assert fake_provider.requests(bad.value.response.headers["x-request-id"]) == []


async def test_count_tokens_forwarded_rate_limited_never_billed(edge: Edge, fake_provider: Any) -> None:
    from tollway_edge.metrics import COUNT_TOKENS
    from tollway_testing.fake_provider import count_anthropic_input_tokens

    # 2 requests a minute; 1 token a minute would refuse any message, so counting reserves no tokens
    limits = [{"scope": "key", "scope_id": "$key", "requests_per_minute": 2, "tokens_per_minute": 1}]
    key = await edge.new_key("a", limits=limits)
    client = _anthropic(edge, key)
    counted_before = COUNT_TOKENS.labels("200", "claude-test")._value.get()
    messages: Any = [{"role": "user", "content": "how many tokens is this?"}]
    raw = await client.messages.with_raw_response.count_tokens(
        model="claude-test", system="be brief", messages=messages
    )
    counted = await raw.parse()
    expected = count_anthropic_input_tokens(
        {"model": "claude-fake", "system": "be brief", "messages": messages}
    )
    assert counted.input_tokens == expected
    request_id = raw.headers["x-request-id"]
    record = fake_provider.requests(request_id)
    assert len(record) == 1 and record[0]["path"] == "/v1/messages/count_tokens"
    assert record[0]["body"]["model"] == "claude-fake"
    assert COUNT_TOKENS.labels("200", "claude-test")._value.get() == counted_before + 1
    # no usage event will settle it: the edge settled its (zero) reservation itself
    from tollway_admission import keys as admission_keys
    from tollway_admission import valkey_client

    valkey = valkey_client(edge.valkey_url)
    try:
        assert await valkey.exists(admission_keys.record_key("tenant-1", request_id)) == 0
        assert await valkey.get(admission_keys.settled_key("tenant-1", request_id)) == b"0:0"
    finally:
        await valkey.aclose()

    await client.messages.count_tokens(model="claude-test", messages=messages)
    with pytest.raises(anthropic.RateLimitError) as limited:  # the third in the minute
        await client.messages.count_tokens(model="claude-test", messages=messages)
    assert limited.value.response.json()["error"]["type"] == "rate_limit_error"

    other = await edge.new_key("b")
    with pytest.raises(anthropic.BadRequestError) as bad:  # an OpenAI provider cannot count
        await _anthropic(edge, other).messages.count_tokens(model="gpt-4o-mini", messages=messages)
    assert bad.value.response.json()["error"]["type"] == "invalid_request_error"
    assert fake_provider.requests(bad.value.response.headers["x-request-id"]) == []

    ids = {
        request_id,
        limited.value.response.headers["x-request-id"],
        bad.value.response.headers["x-request-id"],
    }
    assert await edge.events(ids, 1, within_s=3.0) == []  # no usage event, ever


CUT = {"stream_allowance_tokens": 5, "stream_extend_tokens": 5}


@pytest.mark.parametrize("edge", [CUT], indirect=True)
@pytest.mark.parametrize("model", ["claude-test", "gpt-4o-mini"])  # native, translated
async def test_messages_stream_cut_when_extension_refused(edge: Edge, fake_provider: Any, model: str) -> None:
    messages: Any = [{"role": "user", "content": "tell me a long story"}]
    prompt = len(orjson.dumps(messages)) + 3  # the prompt bound (admission.bounds' rule)
    key = await edge.new_key(
        "a", limits=[{"scope": "key", "scope_id": "$key", "tokens_per_minute": prompt + 12}]
    )
    async with _anthropic(edge, key).messages.stream(
        model=model, max_tokens=500, messages=messages
    ) as stream:
        deltas = [e async for e in stream if e.type == "content_block_delta"]
        final = await stream.get_final_message()
        request_id = stream.response.headers["x-request-id"]
    assert len(deltas) == 12  # one completion token per text delta: exactly what the limit allows
    assert final.stop_reason == "max_tokens" and final.usage.output_tokens == 12
    (done,) = [e for e in await edge.events({request_id}, 2) if e["type"] != "started"]
    validate_produced(done)
    assert done["type"] == "completed" and done["error_type"] == "stream_limit_reached"
    # the client received exactly 12 completion tokens; the prompt is the edge's figure for a
    # call whose provider usage never arrived (the admission bound, or an estimate), priced as such
    assert done["completion_tokens"] == 12 and 0 < done["prompt_tokens"] <= prompt
    prices = CLAUDE_PRICES if model == "claude-test" else PRICES
    billed = cost_micro_usd(prices, prompt_tokens=done["prompt_tokens"], completion_tokens=12)
    assert done["cost_micro_usd"] == billed


@pytest.mark.parametrize("edge", [CUT], indirect=True)
async def test_chat_to_anthropic_stream_cut_when_extension_refused(edge: Edge, fake_provider: Any) -> None:
    messages: Any = [{"role": "user", "content": "tell me a long story"}]
    prompt = len(orjson.dumps(messages)) + 3
    key = await edge.new_key(
        "a", limits=[{"scope": "key", "scope_id": "$key", "tokens_per_minute": prompt + 12}]
    )
    raw = await _openai(edge, key).chat.completions.with_raw_response.create(
        model="claude-test", messages=messages, stream=True, stream_options={"include_usage": True}
    )
    chunks = [c async for c in raw.parse()]
    texts = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    finish = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert len(texts) == 12 and finish == ["length"]
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens == 12
    (done,) = [e for e in await edge.events({raw.headers["x-request-id"]}, 2) if e["type"] != "started"]
    assert done["error_type"] == "stream_limit_reached" and done["completion_tokens"] == 12


async def test_provider_errors_reach_each_client_in_its_own_format(edge: Edge, fake_provider: Any) -> None:
    key = await edge.new_key("a")
    fake_provider.set_faults({"model:claude-fake": {"status": 400}, "model:fake-model": {"status": 400}})
    with pytest.raises(openai.BadRequestError) as to_openai:  # Anthropic's error, OpenAI's format
        await _openai(edge, key).chat.completions.create(
            model="claude-test", messages=[{"role": "user", "content": "x"}]
        )
    error = to_openai.value.response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"} and error["type"] == "invalid_request_error"
    with pytest.raises(anthropic.BadRequestError) as to_anthropic:  # OpenAI's error, Anthropic's format
        await _anthropic(edge, key).messages.create(
            model="gpt-4o-mini", max_tokens=10, messages=[{"role": "user", "content": "x"}]
        )
    body = to_anthropic.value.response.json()
    assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"
    assert body["error"]["message"]
    ids = {
        to_openai.value.response.headers["x-request-id"],
        to_anthropic.value.response.headers["x-request-id"],
    }
    failed = [e for e in await edge.events(ids, 4) if e["type"] == "failed"]
    assert sorted(e["status_code"] for e in failed) == [400, 400]


async def test_native_stream_cut_by_the_provider_raises_in_the_sdk(edge: Edge, fake_provider: Any) -> None:
    key = await edge.new_key("a")
    fake_provider.set_faults({"model:claude-fake": {"cut_after_chunks": 3}})
    with pytest.raises(anthropic.APIStatusError) as cut:
        async with _anthropic(edge, key).messages.stream(
            model="claude-test", max_tokens=100, messages=[{"role": "user", "content": "say words"}]
        ) as stream:
            request_id = stream.response.headers["x-request-id"]
            async for _ in stream:
                pass
    assert "provider ended the stream" in str(cut.value)
    (done,) = [e for e in await edge.events({request_id}, 2) if e["type"] != "started"]
    assert done["type"] == "failed" and done["error_type"] == "upstream_stream_error"


async def test_messages_fail_closed_under_a_redacting_policy(edge: Edge, fake_provider: Any) -> None:
    full, key_id, _ = await upsert_key(edge.dsn, PEPPER.encode())
    policy = {"mode": "block"}
    await set_policy(edge.dsn, key_id, policy)
    expected = parse_redaction_policy(policy)
    for _ in range(100):
        p = edge.app[STATE].snapshot.by_key_id.get(key_id)
        if p is not None and p.redaction_policy == expected:
            break
        await asyncio.sleep(0.05)
    with pytest.raises(
        anthropic.BadRequestError
    ) as info:  # the redaction step cannot walk content blocks yet
        await _anthropic(edge, full).messages.create(
            model="claude-test", max_tokens=10, messages=[{"role": "user", "content": "jane@example.com"}]
        )
    body = info.value.response.json()
    assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"
    assert fake_provider.requests(info.value.response.headers["x-request-id"]) == []


async def test_chat_to_anthropic_images_and_tool_results_bearer_messages(
    edge: Edge, fake_provider: Any, ledger: asyncpg.Connection
) -> None:
    key = await edge.new_key("a")
    pixel = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    messages: Any = [
        {"role": "system", "content": "be brief"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "image_url", "image_url": {"url": pixel}},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                },
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "get_time", "arguments": '{"city":"Paris"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "call_2", "content": "noon"},
    ]
    raw = await _openai(edge, key).chat.completions.with_raw_response.create(
        model="claude-test", messages=messages, tools=[_openai_tool(WEATHER), _openai_tool(TIME)]
    )
    answer = raw.parse()
    assert (
        answer.choices[0].message.content and answer.choices[0].finish_reason == "stop"
    )  # after tool results
    record = await _billed_as_logged(edge, fake_provider, raw.headers["x-request-id"], "messages", ledger)
    sent = record["body"]["messages"]
    assert sent[0]["role"] == "user" and sent[0]["content"][1]["type"] == "image"
    assert sent[0]["content"][1]["source"]["type"] == "base64"
    assert [b["type"] for b in sent[1]["content"]] == ["tool_use", "tool_use"]
    assert sent[2]["role"] == "user" and [b["tool_use_id"] for b in sent[2]["content"]] == [
        "call_1",
        "call_2",
    ]

    # the anthropic SDK with a Bearer token (auth_token) instead of x-api-key
    bearer = AsyncAnthropic(base_url=edge.url, auth_token=key, max_retries=0, timeout=20)
    message = await bearer.messages.create(
        model="claude-test", max_tokens=50, messages=[{"role": "user", "content": "hello"}]
    )
    assert message.content[0].type == "text"
