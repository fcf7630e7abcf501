"""The fake provider's Anthropic Messages API, checked with the official anthropic SDK and on the wire."""

from __future__ import annotations

import math

import anthropic
import httpx
import httpx2
import orjson
import pytest

from tollway_testing.fake_provider import (
    completion_words,
    count_anthropic_input_tokens,
    tool_arguments,
    tool_call_tokens,
)

pytestmark = pytest.mark.unit

SYSTEM = "You are terse."  # 14 bytes
MESSAGES = [{"role": "user", "content": "Hello, Claude"}]  # 13 bytes
HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
WEATHER = {
    "name": "get_weather",
    "description": "Weather in a city",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"],
    },
}
TIME = {"name": "get_time", "description": "Now", "input_schema": {"type": "object", "properties": {}}}


def _client(fake_provider, deployment: str | None = None) -> anthropic.AsyncAnthropic:
    base = fake_provider.url + (f"/d/{deployment}" if deployment else "")
    return anthropic.AsyncAnthropic(base_url=base, api_key="sk-ant-test", max_retries=0)


def _events(raw: str) -> list[tuple[str, dict]]:
    out = []
    for block in raw.split("\n\n"):
        if not block:
            continue
        name, data = block.split("\n")
        assert name.startswith("event: ") and data.startswith("data: ")
        payload = orjson.loads(data[6:])
        assert payload["type"] == name[7:]
        out.append((name[7:], payload))
    return out


def test_input_token_rule() -> None:
    body = {"system": SYSTEM, "messages": MESSAGES}
    assert count_anthropic_input_tokens(body) == math.ceil((14 + 13) / 4) + 3 + 3
    with_tool = {"messages": MESSAGES, "tools": [TIME]}
    schema = orjson.dumps(TIME["input_schema"]).decode()
    assert count_anthropic_input_tokens(with_tool) == math.ceil((13 + len("get_timeNow" + schema)) / 4) + 3


async def test_message_with_the_sdk(fake_provider) -> None:
    client = _client(fake_provider, "claude-eu")
    msg = await client.messages.create(
        model="claude-fake",
        max_tokens=100,
        system=SYSTEM,
        messages=MESSAGES,
        extra_headers={"x-request-id": "m1"},
    )
    assert msg.type == "message" and msg.role == "assistant"
    assert msg.content[0].type == "text" and msg.content[0].text == " ".join(completion_words(20))
    assert msg.stop_reason == "end_turn"
    assert (msg.usage.input_tokens, msg.usage.output_tokens) == (13, 20)
    assert (msg.usage.cache_read_input_tokens, msg.usage.cache_creation_input_tokens) == (0, 0)
    [rec] = fake_provider.requests("m1")
    assert (rec["deployment"], rec["api"], rec["prompt_tokens"], rec["completion_tokens"]) == (
        "claude-eu",
        "messages",
        13,
        20,
    )
    assert rec["usage"]["input_tokens"] == 13 and rec["billable"] and rec["usage_reported"]
    capped = await client.messages.create(model="m", max_tokens=3, messages=MESSAGES)
    assert capped.stop_reason == "max_tokens" and capped.usage.output_tokens == 3


async def test_stream_event_sequence_on_the_wire(fake_provider) -> None:
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        r = await http.post(
            "/v1/messages",
            json={"model": "fake-tokens-4", "max_tokens": 50, "messages": MESSAGES, "stream": True},
            headers={**HEADERS, "x-fake-chunks": "2"},
        )
    assert r.headers["content-type"].startswith("text/event-stream")
    events = _events(r.text)
    assert [e for e, _ in events] == [
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    start = events[0][1]["message"]
    assert start["usage"]["input_tokens"] == 7 and start["stop_reason"] is None and start["content"] == []
    assert [p["delta"]["text"] for e, p in events if e == "content_block_delta"] == [
        "alpha bravo",
        " charlie delta",
    ]
    delta = events[-2][1]
    assert delta["delta"] == {"stop_reason": "end_turn", "stop_sequence": None}
    assert delta["usage"]["output_tokens"] == 4 and delta["usage"]["input_tokens"] == 7


async def test_stream_with_the_sdk(fake_provider) -> None:
    client = _client(fake_provider)
    async with client.messages.stream(model="m", max_tokens=100, messages=MESSAGES) as stream:
        text = "".join([t async for t in stream.text_stream])
        final = await stream.get_final_message()
    assert text == " ".join(completion_words(20))
    assert (final.usage.input_tokens, final.usage.output_tokens, final.stop_reason) == (7, 20, "end_turn")


async def test_tools_json_and_stream(fake_provider) -> None:
    client = _client(fake_provider)
    msg = await client.messages.create(model="m", max_tokens=200, messages=MESSAGES, tools=[WEATHER, TIME])
    assert msg.stop_reason == "tool_use"
    assert [(b.type, b.name, b.input) for b in msg.content] == [
        ("tool_use", "get_weather", {"city": "alpha"}),
        ("tool_use", "get_time", {}),
    ]
    assert msg.usage.output_tokens == tool_call_tokens(tool_arguments(WEATHER["input_schema"])) + 2
    async with client.messages.stream(
        model="m", max_tokens=200, messages=MESSAGES, tools=[WEATHER, TIME]
    ) as stream:
        final = await stream.get_final_message()
    assert [(b.name, b.input) for b in final.content] == [(b.name, b.input) for b in msg.content]
    assert final.usage.output_tokens == msg.usage.output_tokens
    forced = await client.messages.create(
        model="m",
        max_tokens=200,
        messages=MESSAGES,
        tools=[WEATHER, TIME],
        tool_choice={"type": "tool", "name": "get_time"},
    )
    assert [b.name for b in forced.content] == ["get_time"]
    single = await client.messages.create(
        model="m",
        max_tokens=200,
        messages=MESSAGES,
        tools=[WEATHER, TIME],
        tool_choice={"type": "auto", "disable_parallel_tool_use": True},
    )
    assert [b.name for b in single.content] == ["get_weather"]
    answered = [
        *MESSAGES,
        {"role": "assistant", "content": [b.model_dump() for b in msg.content]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": msg.content[0].id, "content": "sunny"}],
        },
    ]
    after = await client.messages.create(
        model="fake-tokens-2", max_tokens=50, messages=answered, tools=[WEATHER]
    )
    assert after.content[0].text == "alpha bravo" and after.stop_reason == "end_turn"


async def test_tool_stream_on_the_wire(fake_provider) -> None:
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        r = await http.post(
            "/v1/messages",
            json={"model": "m", "max_tokens": 50, "messages": MESSAGES, "tools": [WEATHER], "stream": True},
            headers=HEADERS,
        )
    events = _events(r.text)
    kinds = [e for e, _ in events]
    assert kinds[:2] == ["message_start", "content_block_start"]
    assert kinds[-3:] == ["content_block_stop", "message_delta", "message_stop"]
    assert events[1][1]["content_block"]["type"] == "tool_use"
    partial = "".join(p["delta"]["partial_json"] for e, p in events if e == "content_block_delta")
    assert partial == '{"city":"alpha"}'
    assert events[-2][1]["delta"]["stop_reason"] == "tool_use"


async def test_cache_usage_by_marker_and_header(fake_provider) -> None:
    client = _client(fake_provider)
    long = "fake-cache-read-10 " + "y" * 200
    msg = await client.messages.create(model="m", max_tokens=5, messages=[{"role": "user", "content": long}])
    total = math.ceil(len(long) / 4) + 3
    assert (msg.usage.cache_read_input_tokens, msg.usage.cache_creation_input_tokens) == (10, 0)
    assert msg.usage.input_tokens == total - 10
    written = await client.messages.create(
        model="m",
        max_tokens=5,
        messages=[{"role": "user", "content": long}],
        extra_headers={"x-fake-cache-read-tokens": "0", "x-fake-cache-write-tokens": "20"},
    )
    assert (written.usage.cache_read_input_tokens, written.usage.cache_creation_input_tokens) == (0, 20)
    assert written.usage.input_tokens == total - 20
    rec = fake_provider.requests()[-1]
    # the record keeps OpenAI's meaning: prompt_tokens includes cache reads and writes
    assert (rec["prompt_tokens"], rec["cached_tokens"], rec["cache_write_tokens"]) == (total, 0, 20)


async def test_count_tokens(fake_provider) -> None:
    client = _client(fake_provider)
    counted = await client.messages.count_tokens(model="m", system=SYSTEM, messages=MESSAGES)
    assert counted.input_tokens == count_anthropic_input_tokens({"system": SYSTEM, "messages": MESSAGES})
    rec = fake_provider.requests()[-1]
    assert (rec["api"], rec["billable"], rec["usage_reported"]) == ("count_tokens", False, False)


async def test_credentials_and_version_required(fake_provider) -> None:
    body = {"model": "m", "max_tokens": 5, "messages": MESSAGES}
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        no_key = await http.post("/v1/messages", json=body, headers={"anthropic-version": "2023-06-01"})
        no_version = await http.post("/v1/messages", json=body, headers={"x-api-key": "k"})
        no_max = await http.post("/v1/messages", json={**body, "max_tokens": None}, headers=HEADERS)
        bearer = await http.post(
            "/v1/messages",
            json=body,
            headers={"authorization": "Bearer k", "anthropic-version": "2023-06-01"},
        )
    assert no_key.status_code == 401
    assert no_key.json() == {
        "type": "error",
        "error": {"type": "authentication_error", "message": "x-api-key header is required"},
    }
    assert no_version.status_code == 400 and no_version.json()["error"]["type"] == "invalid_request_error"
    assert no_max.status_code == 400
    assert bearer.status_code == 200


async def test_cut_stream_record(fake_provider) -> None:
    fake_provider.set_faults({"claude": {"cut_after_chunks": 5}})
    client = _client(fake_provider, "claude")
    seen = []
    with pytest.raises(httpx2.RemoteProtocolError):  # the SDK's transport sees the cut
        async with client.messages.stream(
            model="m", max_tokens=100, messages=MESSAGES, extra_headers={"x-request-id": "acut"}
        ) as stream:
            async for t in stream.text_stream:
                seen.append(t)
    assert "".join(seen) == " ".join(completion_words(5))
    [rec] = fake_provider.requests("acut")
    assert (rec["completion_tokens"], rec["usage_reported"], rec["billable"]) == (5, False, True)
