"""The fake provider's other OpenAI APIs and Azure's routes, checked with the official openai SDK."""

from __future__ import annotations

import base64
import math
import struct

import httpx
import openai
import pytest
from openai import AsyncAzureOpenAI, AsyncOpenAI

from tollway_testing.fake_provider import completion_words, tool_arguments, tool_call_tokens

pytestmark = pytest.mark.unit

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
    "required": ["city", "unit"],
}
CHAT_TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER_SCHEMA}},
    {
        "type": "function",
        "function": {"name": "get_time", "parameters": {"type": "object", "properties": {}}},
    },
]


def _client(fake_provider, deployment: str | None = None) -> AsyncOpenAI:
    base = fake_provider.deployment_url(deployment) if deployment else fake_provider.base_url
    return AsyncOpenAI(base_url=base, api_key="sk-test", max_retries=0)


async def test_legacy_completions(fake_provider) -> None:
    client = _client(fake_provider)
    resp = await client.completions.create(model="fake-tokens-4", prompt="Say something")  # 13 bytes
    assert resp.object == "text_completion"
    assert resp.choices[0].text == " ".join(completion_words(4))
    assert (resp.usage.prompt_tokens, resp.usage.completion_tokens) == (4, 4)
    two = await client.completions.create(model="m", prompt=["abcd", "efgh"], max_tokens=2)
    assert [c.index for c in two.choices] == [0, 1]
    assert [c.finish_reason for c in two.choices] == ["length", "length"]
    assert (two.usage.prompt_tokens, two.usage.completion_tokens) == (2, 4)
    stream = await client.completions.create(
        model="m", prompt=[1, 2, 3], stream=True, max_tokens=3, stream_options={"include_usage": True}
    )
    chunks = [c async for c in stream]
    assert "".join(c.choices[0].text for c in chunks if c.choices) == " ".join(completion_words(3))
    assert chunks[-1].usage.prompt_tokens == 3 and chunks[-1].usage.completion_tokens == 3
    rec = fake_provider.requests(api="completions")[-1]
    assert (rec["stream"], rec["usage_reported"], rec["usage"]["total_tokens"]) == (True, True, 6)


async def test_embeddings_inputs_dimensions_and_base64(fake_provider) -> None:
    client = _client(fake_provider)
    floats = await client.embeddings.create(model="e", input=["hello world", "abc"], dimensions=16)
    assert [len(d.embedding) for d in floats.data] == [16, 16]
    assert floats.usage.prompt_tokens == 3 + 1
    tokens = await client.embeddings.create(model="e", input=[[1, 2, 3], [4, 5]])
    assert tokens.usage.prompt_tokens == 5
    single = await client.embeddings.create(model="e", input=[7, 8, 9, 10])
    assert single.usage.prompt_tokens == 4 and len(single.data) == 1
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        r = await http.post(
            "/v1/embeddings",
            json={"model": "e", "input": "hello world", "dimensions": 16, "encoding_format": "base64"},
        )
    raw = base64.b64decode(r.json()["data"][0]["embedding"])
    decoded = struct.unpack("<16f", raw)
    assert decoded == pytest.approx(floats.data[0].embedding, abs=1e-6)
    # the SDK asks for base64 by default and decodes it itself
    sdk = await client.embeddings.create(model="e", input="hello world", dimensions=16)
    assert sdk.data[0].embedding == pytest.approx(floats.data[0].embedding, abs=1e-6)
    # more dimensions than OpenAI's largest model: a 400 (a fuzzer's 10**14 once hung the provider)
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        big = await http.post("/v1/embeddings", json={"model": "e", "input": "x", "dimensions": 10**14})
        most = await http.post("/v1/embeddings", json={"model": "e", "input": "x", "dimensions": 3072})
    assert big.status_code == 400 and big.json()["error"]["param"] == "dimensions"
    assert len(most.json()["data"][0]["embedding"]) == 3072


async def test_moderations(fake_provider) -> None:
    client = _client(fake_provider)
    resp = await client.moderations.create(input=["a kind word", "fake-flagged threat"])
    assert [r.flagged for r in resp.results] == [False, True]
    assert resp.results[1].categories.violence is True
    rec = fake_provider.requests(api="moderations")[-1]
    assert (rec["billable"], rec["usage_reported"], rec["prompt_tokens"]) == (False, False, 3 + 5)


async def test_responses_non_stream_and_state_per_deployment(fake_provider) -> None:
    client = _client(fake_provider, "east")
    first = await client.responses.create(model="fake-tokens-5", input="Hello!", instructions="Be brief.")
    # ceil((6 + 9) / 4) + 3 x 2 items
    assert (first.usage.input_tokens, first.usage.output_tokens) == (10, 5)
    assert first.output_text == " ".join(completion_words(5))
    assert first.status == "completed"
    second = await client.responses.create(model="m", input="More?", previous_response_id=first.id)
    assert second.usage.input_tokens == 2 + 3 + 10 + 5
    got = await client.responses.retrieve(first.id)
    assert got.id == first.id and got.output_text == first.output_text
    west = _client(fake_provider, "west")
    with pytest.raises(openai.NotFoundError):
        await west.responses.retrieve(first.id)
    with pytest.raises(openai.BadRequestError):
        await west.responses.create(model="m", input="x", previous_response_id=first.id)
    await client.responses.delete(first.id)
    with pytest.raises(openai.NotFoundError):
        await client.responses.retrieve(first.id)
    capped = await client.responses.create(model="m", input="x", max_output_tokens=3)
    assert capped.status == "incomplete" and capped.usage.output_tokens == 3
    recs = fake_provider.requests(deployment="east", api="responses")
    assert [r["usage"]["input_tokens"] for r in recs] == [10, 20, 4]


async def test_responses_stream(fake_provider) -> None:
    client = _client(fake_provider)
    stream = await client.responses.create(model="fake-tokens-6", input="Hi", stream=True)
    events = [e async for e in stream]
    kinds = [e.type for e in events]
    assert kinds[:4] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
    ]
    assert kinds[-4:] == [
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [e.sequence_number for e in events] == list(range(len(events)))
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert text == " ".join(completion_words(6))
    assert events[-1].response.usage.output_tokens == 6
    assert events[-1].response.usage.input_tokens == 1 + 3


async def test_responses_function_calls(fake_provider) -> None:
    client = _client(fake_provider)
    tools = [{"type": "function", "name": "get_weather", "parameters": WEATHER_SCHEMA, "strict": False}]
    resp = await client.responses.create(model="m", input="Weather?", tools=tools)
    [call] = resp.output
    assert call.type == "function_call" and call.name == "get_weather"
    assert call.arguments == tool_arguments(WEATHER_SCHEMA) == '{"city":"alpha","unit":"c"}'
    assert resp.usage.output_tokens == tool_call_tokens(call.arguments)
    async with client.responses.stream(model="m", input="Weather?", tools=tools) as stream:
        final = await stream.get_final_response()
    assert final.output[0].arguments == call.arguments
    followup = [
        {"type": "function_call", "call_id": call.call_id, "name": call.name, "arguments": call.arguments},
        {"type": "function_call_output", "call_id": call.call_id, "output": "sunny"},
    ]
    after = await client.responses.create(model="fake-tokens-2", input=followup, tools=tools)
    assert after.output_text == "alpha bravo"


async def test_chat_tool_calls(fake_provider) -> None:
    client = _client(fake_provider)
    messages = [{"role": "user", "content": "weather and time?"}]
    resp = await client.chat.completions.create(model="m", messages=messages, tools=CHAT_TOOLS)
    calls = resp.choices[0].message.tool_calls
    assert resp.choices[0].finish_reason == "tool_calls"
    assert [(c.function.name, c.function.arguments) for c in calls] == [
        ("get_weather", '{"city":"alpha","unit":"c"}'),
        ("get_time", "{}"),
    ]
    assert resp.usage.completion_tokens == tool_call_tokens(calls[0].function.arguments) + 2
    one = await client.chat.completions.create(
        model="m",
        messages=messages,
        tools=CHAT_TOOLS,
        tool_choice={"type": "function", "function": {"name": "get_time"}},
    )
    assert [c.function.name for c in one.choices[0].message.tool_calls] == ["get_time"]
    stream = await client.chat.completions.create(
        model="m", messages=messages, tools=CHAT_TOOLS, stream=True, stream_options={"include_usage": True}
    )
    by_index: dict[int, dict[str, str]] = {}
    async for chunk in stream:
        for d in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
            slot = by_index.setdefault(d.index, {"name": "", "arguments": "", "id": ""})
            slot["id"] += d.id or ""
            slot["name"] += (d.function.name or "") if d.function else ""
            slot["arguments"] += (d.function.arguments or "") if d.function else ""
    assert [(s["name"], s["arguments"]) for s in by_index.values()] == [
        (c.function.name, c.function.arguments) for c in calls
    ]
    assert all(s["id"].startswith("call_") for s in by_index.values())
    answered = messages + [
        {"role": "assistant", "tool_calls": [c.model_dump() for c in calls]},
        {"role": "tool", "tool_call_id": calls[0].id, "content": "sunny"},
    ]
    final = await client.chat.completions.create(model="fake-tokens-3", messages=answered, tools=CHAT_TOOLS)
    assert final.choices[0].message.content == "alpha bravo charlie"


async def test_cached_tokens_marker(fake_provider) -> None:
    client = _client(fake_provider)
    text = "fake-cache-read-8 " + "x" * 100
    resp = await client.chat.completions.create(model="m", messages=[{"role": "user", "content": text}])
    assert resp.usage.prompt_tokens == math.ceil(len(text) / 4) + 3
    assert resp.usage.prompt_tokens_details.cached_tokens == 8
    rec = fake_provider.requests()[-1]
    assert (rec["cached_tokens"], rec["prompt_tokens"]) == (8, resp.usage.prompt_tokens)


async def test_azure_deployment_routes(fake_provider) -> None:
    client = AsyncAzureOpenAI(
        azure_endpoint=fake_provider.url, api_key="az-key", api_version="2024-10-21", max_retries=0
    )
    resp = await client.chat.completions.create(
        model="gpt4o-eu", messages=[{"role": "user", "content": "hi"}], max_tokens=2
    )
    assert resp.choices[0].message.content == "alpha bravo"
    emb = await client.embeddings.create(model="emb-eu", input="abcd")
    assert emb.usage.prompt_tokens == 1
    comp = await client.completions.create(model="inst-eu", prompt="abcd", max_tokens=1)
    assert comp.choices[0].text == "alpha"
    resp = await client.responses.create(model="resp-eu", input="abcd", max_output_tokens=2)
    assert resp.output_text == "alpha bravo"
    assert (await client.responses.retrieve(resp.id)).id == resp.id
    recs = fake_provider.requests()
    assert [r["deployment"] for r in recs] == ["gpt4o-eu", "emb-eu", "inst-eu", "default", "default"]
    assert recs[3]["path"] == "/openai/responses"
    assert recs[0]["path"] == "/openai/deployments/gpt4o-eu/chat/completions"
    assert recs[0]["headers"]["api-key"] == "az-key"
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        body = {"messages": [{"role": "user", "content": "hi"}]}
        no_key = await http.post("/openai/deployments/d/chat/completions?api-version=1", json=body)
        no_version = await http.post(
            "/openai/deployments/d/chat/completions", json=body, headers={"api-key": "k"}
        )
        ok = await http.post(
            "/d/east/openai/deployments/d/chat/completions?api-version=1", json=body, headers={"api-key": "k"}
        )
    assert (no_key.status_code, no_version.status_code, ok.status_code) == (401, 400, 200)
    assert ok.json()["model"] == "d"
    assert fake_provider.requests()[-1]["deployment"] == "east"


async def test_filters_on_the_requests_endpoint(fake_provider) -> None:
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        await http.post("/d/a/v1/embeddings", json={"input": "x"})
        await http.post("/d/b/v1/embeddings", json={"input": "x"}, headers={"x-fake-status": "500"})
        listed = (await http.get("/_fake/requests", params={"deployment": "b"})).json()
        assert [(r["deployment"], r["status"]) for r in listed] == [("b", 500)]
        billable = (await http.get("/_fake/requests", params={"billable": "true"})).json()
        assert [r["deployment"] for r in billable] == ["a"]
