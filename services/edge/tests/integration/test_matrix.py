"""Issue 12's matrix, every cell: endpoint × provider kind (``openai``, ``azure``,
``anthropic``), each called with the official SDK (``openai`` for chat,
completions, embeddings, moderations, responses; ``anthropic`` for messages and
count_tokens) → a real edge → the fake provider (spoken to as each kind), with a
real ledger consuming the edge's topic into the test's database.

A served cell asserts the content the provider produced (the fake's text is
``completion_words(n)``, so the client's text is checked word for word), the
tool calls (two tools offered: both called, arguments parsed by the SDK, in
their own indices), stream and not, and that the ledger row bills exactly what
the fake provider logged (tokens, cache reads and writes, cost from the
catalogue's prices). An ``unsupported`` cell asserts the 400, that nothing
reached a provider and that the ledger's row is a ``failed`` one with no cost.
Calls that consume nothing (count_tokens, stored-response reads) assert that no
usage event exists."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import asyncpg
import openai
import pytest
from anthropic import AsyncAnthropic
from openai import AsyncOpenAI

from tollway_contracts.catalogue import Prices
from tollway_contracts.events import validate_produced
from tollway_contracts.pricing import cost_micro_usd
from tollway_testing.fake_provider import completion_words, count_anthropic_input_tokens

from .conftest import Edge
from .test_anthropic import TIME, WEATHER, _ledger_row, _openai_tool, ledger  # noqa: F401

pytestmark = pytest.mark.integration

KINDS = ("openai", "azure", "anthropic")
CHAT = {"openai": "gpt-4o-mini", "azure": "azure-chat", "anthropic": "claude-test"}
INSTRUCT = {"openai": "gpt-3.5-turbo-instruct", "azure": "azure-instruct", "anthropic": "claude-test"}
EMBED = {"openai": "text-embedding-3-small", "azure": "azure-embedding", "anthropic": "claude-test"}
MODERATE = {"openai": "omni-moderation-latest", "azure": "azure-chat", "anthropic": "claude-test"}
PATH = {  # what the fake provider received, by (kind, API)
    ("openai", "chat.completions"): "/v1/chat/completions",
    ("azure", "chat.completions"): "/openai/deployments/chat-deployment/chat/completions",
    ("anthropic", "messages"): "/v1/messages",
    ("openai", "completions"): "/v1/completions",
    ("azure", "completions"): "/openai/deployments/instruct-deployment/completions",
    ("openai", "embeddings"): "/v1/embeddings",
    ("azure", "embeddings"): "/openai/deployments/embed-deployment/embeddings",
    ("openai", "responses"): "/v1/responses",
    ("azure", "responses"): "/openai/responses",
}
NATIVE_API = {"openai": "chat.completions", "azure": "chat.completions", "anthropic": "messages"}
RESPONSES_TOOLS: Any = [
    {"type": "function", "name": t["name"], "description": t["description"], "parameters": t["input_schema"]}
    for t in (WEATHER, TIME)
]


def _openai(edge: Edge) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=edge.base_url, api_key=edge.keys["a"], max_retries=0, timeout=20)


def _anthropic(edge: Edge) -> AsyncAnthropic:
    return AsyncAnthropic(base_url=edge.url, api_key=edge.keys["a"], max_retries=0, timeout=20)


def _words(record: dict[str, Any]) -> str:
    """The text the fake provider produced for this request."""
    return " ".join(completion_words(record["completion_tokens"]))


def _record(fake_provider: Any, request_id: str, kind: str, api: str) -> dict[str, Any]:
    (record,) = fake_provider.requests(request_id)
    assert record["api"] == api and record["status"] == 200
    assert record["path"] == PATH[(kind, api)]
    return record


async def _billed(
    edge: Edge, db: asyncpg.Connection, record: dict[str, Any], model: str, stream: bool
) -> None:
    """One started and one completed event, and the ledger row, bill what the fake logged."""
    request_id = record["request_id"]
    events = await edge.events({request_id}, 2)
    for e in events:
        validate_produced(e)
    assert sorted(e["type"] for e in events) == ["completed", "started"], events
    prices = Prices(**edge.catalogue["models"][model]["prices"])
    cost = cost_micro_usd(
        prices,
        prompt_tokens=record["prompt_tokens"],
        completion_tokens=record["completion_tokens"] or 0,
        cached_tokens=record["cached_tokens"],
        cache_write_tokens=record["cache_write_tokens"],
    )
    row = await _ledger_row(db, request_id)
    assert (row["status"], row["status_code"], row["stream"], row["model"]) == (
        "completed",
        200,
        stream,
        model,
    )
    assert row["prompt_tokens"] == record["prompt_tokens"] > 0
    assert row["completion_tokens"] == (record["completion_tokens"] or 0)
    assert (row["cached_tokens"], row["cache_write_tokens"]) == (
        record["cached_tokens"],
        record["cache_write_tokens"],
    )
    assert row["cost_micro_usd"] == cost


async def _nothing_billed(
    fake_provider: Any, db: asyncpg.Connection, err: openai.APIStatusError | anthropic.APIStatusError
) -> None:
    """An unsupported cell: 400 ``unsupported``, nothing sent, a failed row without cost."""
    assert err.status_code == 400
    request_id = err.response.headers["x-request-id"]
    assert fake_provider.requests(request_id) == []
    row = await _ledger_row(db, request_id)
    assert (row["status"], row["status_code"], row["cost_micro_usd"]) == ("failed", 400, None)
    assert row["prompt_tokens"] in (None, 0)


def _tool_args(arguments: str | dict[str, Any]) -> dict[str, Any]:
    parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
    assert isinstance(parsed, dict) and isinstance(parsed.get("city"), str)
    return parsed


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("kind", KINDS)
async def test_chat_completions(
    edge: Edge,
    fake_provider: Any,
    ledger: asyncpg.Connection,  # noqa: F811
    kind: str,
    stream: bool,
) -> None:
    await edge.new_key("a")
    client, model, api = _openai(edge), CHAT[kind], NATIVE_API[kind]
    kwargs: Any = {"stream_options": {"include_usage": True}} if stream else {}
    text_call = await client.chat.completions.with_raw_response.create(
        model=model, messages=[{"role": "user", "content": "hello matrix"}], stream=stream, **kwargs
    )
    tools_call = await client.chat.completions.with_raw_response.create(
        model=model,
        messages=[{"role": "user", "content": "weather and time in Paris"}],
        tools=[_openai_tool(WEATHER), _openai_tool(TIME)],  # type: ignore[list-item]
        stream=stream,
        **kwargs,
    )
    if stream:
        text, calls, finish = "", {}, None
        async for chunk in text_call.parse():
            text += "".join(c.delta.content or "" for c in chunk.choices)
        async for chunk in tools_call.parse():
            for choice in chunk.choices:
                finish = choice.finish_reason or finish
                for d in choice.delta.tool_calls or []:
                    slot = calls.setdefault(d.index, {"name": "", "arguments": ""})
                    slot["name"] += (d.function.name or "") if d.function else ""
                    slot["arguments"] += (d.function.arguments or "") if d.function else ""
        named = [(calls[i]["name"], calls[i]["arguments"]) for i in sorted(calls)]
        assert sorted(calls) == [0, 1]
    else:
        answer = text_call.parse()
        text = answer.choices[0].message.content or ""
        message = tools_call.parse().choices[0]
        finish = message.finish_reason
        named = [(c.function.name, c.function.arguments) for c in message.message.tool_calls or []]  # type: ignore[union-attr]
    record = _record(fake_provider, text_call.headers["x-request-id"], kind, api)
    assert text == _words(record)
    assert finish == "tool_calls" and [n for n, _ in named] == ["get_weather", "get_time"]
    assert all(_tool_args(a) for _, a in named)
    await _billed(edge, ledger, record, model, stream)
    await _billed(
        edge, ledger, _record(fake_provider, tools_call.headers["x-request-id"], kind, api), model, stream
    )


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("kind", KINDS)
async def test_messages(
    edge: Edge,
    fake_provider: Any,
    ledger: asyncpg.Connection,  # noqa: F811
    kind: str,
    stream: bool,
) -> None:
    await edge.new_key("a")
    client, model, api = _anthropic(edge), CHAT[kind], NATIVE_API[kind]
    ids: list[str] = []
    messages: Any = [{"role": "user", "content": "hello matrix"}]
    tool_messages: Any = [{"role": "user", "content": "weather and time in Paris"}]
    tools: Any = [WEATHER, TIME]
    if stream:
        async with client.messages.stream(model=model, max_tokens=200, messages=messages) as s:
            text = "".join([t async for t in s.text_stream])
            ids.append(s.response.headers["x-request-id"])
        async with client.messages.stream(
            model=model, max_tokens=300, messages=tool_messages, tools=tools
        ) as s:
            final = await s.get_final_message()
            ids.append(s.response.headers["x-request-id"])
    else:
        raw = await client.messages.with_raw_response.create(model=model, max_tokens=200, messages=messages)
        block = (await raw.parse()).content[0]
        text = block.text if block.type == "text" else ""
        ids.append(raw.headers["x-request-id"])
        raw = await client.messages.with_raw_response.create(
            model=model, max_tokens=300, messages=tool_messages, tools=tools
        )
        final = await raw.parse()
        ids.append(raw.headers["x-request-id"])
    record = _record(fake_provider, ids[0], kind, api)
    assert text == _words(record)
    uses = [b for b in final.content if b.type == "tool_use"]
    assert final.stop_reason == "tool_use" and [u.name for u in uses] == ["get_weather", "get_time"]
    assert all(_tool_args(u.input) for u in uses)  # type: ignore[arg-type]
    await _billed(edge, ledger, record, model, stream)
    await _billed(edge, ledger, _record(fake_provider, ids[1], kind, api), model, stream)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("kind", KINDS)
async def test_responses(
    edge: Edge,
    fake_provider: Any,
    ledger: asyncpg.Connection,  # noqa: F811
    kind: str,
    stream: bool,
) -> None:
    await edge.new_key("a")
    client, model = _openai(edge), CHAT[kind]
    if kind == "anthropic":
        with pytest.raises(openai.BadRequestError) as info:
            await client.responses.create(model=model, input="x", stream=stream)
        assert info.value.code == "unsupported"
        await _nothing_billed(fake_provider, ledger, info.value)
        return
    if stream:
        text_events = await client.responses.create(model=model, input="hello matrix", stream=True)
        events = [e async for e in text_events]
        text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
        assert text == events[-1].response.output_text
        tool_events = await client.responses.create(
            model=model, input="weather and time in Paris", tools=RESPONSES_TOOLS, stream=True
        )
        final = [e async for e in tool_events][-1].response
        ids = [text_events.response.headers["x-request-id"], tool_events.response.headers["x-request-id"]]
    else:
        raw = await client.responses.with_raw_response.create(model=model, input="hello matrix")
        text = raw.parse().output_text
        tools_raw = await client.responses.with_raw_response.create(
            model=model, input="weather and time in Paris", tools=RESPONSES_TOOLS
        )
        final = tools_raw.parse()
        ids = [raw.headers["x-request-id"], tools_raw.headers["x-request-id"]]
    record = _record(fake_provider, ids[0], kind, "responses")
    assert text == _words(record)
    calls = [item for item in final.output if item.type == "function_call"]
    assert [c.name for c in calls] == ["get_weather", "get_time"]
    assert all(_tool_args(c.arguments) for c in calls)
    await _billed(edge, ledger, record, model, stream)
    await _billed(edge, ledger, _record(fake_provider, ids[1], kind, "responses"), model, stream)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("kind", KINDS)
async def test_legacy_completions(
    edge: Edge,
    fake_provider: Any,
    ledger: asyncpg.Connection,  # noqa: F811
    kind: str,
    stream: bool,
) -> None:
    await edge.new_key("a")
    client, model = _openai(edge), INSTRUCT[kind]
    if kind == "anthropic":
        with pytest.raises(openai.BadRequestError) as info:
            await client.completions.create(model=model, prompt="x", stream=stream)
        assert info.value.code == "unsupported"
        await _nothing_billed(fake_provider, ledger, info.value)
        return
    raw = await client.completions.with_raw_response.create(
        model=model, prompt="Say something", stream=stream
    )
    if stream:
        text = "".join([c.choices[0].text async for c in raw.parse() if c.choices])
    else:
        text = raw.parse().choices[0].text
    record = _record(fake_provider, raw.headers["x-request-id"], kind, "completions")
    assert text == _words(record)
    await _billed(edge, ledger, record, model, stream)


@pytest.mark.parametrize("kind", KINDS)
async def test_embeddings(
    edge: Edge,
    fake_provider: Any,
    ledger: asyncpg.Connection,  # noqa: F811
    kind: str,
) -> None:
    await edge.new_key("a")
    client, model = _openai(edge), EMBED[kind]
    if kind == "anthropic":
        with pytest.raises(openai.BadRequestError) as info:
            await client.embeddings.create(model=model, input="x")
        assert info.value.code == "unsupported"
        await _nothing_billed(fake_provider, ledger, info.value)
        return
    raw = await client.embeddings.with_raw_response.create(model=model, input=["one text", "two texts"])
    result = raw.parse()
    assert [d.index for d in result.data] == [0, 1] and all(d.embedding for d in result.data)
    record = _record(fake_provider, raw.headers["x-request-id"], kind, "embeddings")
    assert result.usage.prompt_tokens == record["prompt_tokens"]
    await _billed(edge, ledger, record, model, False)


@pytest.mark.parametrize("kind", KINDS)
async def test_moderations(
    edge: Edge,
    fake_provider: Any,
    ledger: asyncpg.Connection,  # noqa: F811
    kind: str,
) -> None:
    await edge.new_key("a")
    client, model = _openai(edge), MODERATE[kind]
    if kind != "openai":  # Azure and Anthropic serve no moderations
        with pytest.raises(openai.BadRequestError) as info:
            await client.moderations.create(model=model, input="x")
        assert info.value.code == "unsupported"
        await _nothing_billed(fake_provider, ledger, info.value)
        return
    raw = await client.moderations.with_raw_response.create(model=model, input=["fine", "fake-flagged text"])
    assert [r.flagged for r in raw.parse().results] == [False, True]
    request_id = raw.headers["x-request-id"]
    (record,) = fake_provider.requests(request_id)
    assert record["path"] == "/v1/moderations" and record["billable"] is False  # OpenAI charges nothing
    row = await _ledger_row(ledger, request_id)
    assert (row["status"], row["status_code"], row["cost_micro_usd"]) == ("completed", 200, None)


@pytest.mark.parametrize("kind", KINDS)
async def test_count_tokens(edge: Edge, fake_provider: Any, kind: str) -> None:
    await edge.new_key("a")
    client, model = _anthropic(edge), CHAT[kind]
    messages: Any = [{"role": "user", "content": "how many tokens is this?"}]
    if kind != "anthropic":  # no tokenizer offline: an OpenAI or Azure provider cannot count
        with pytest.raises(anthropic.BadRequestError) as info:
            await client.messages.count_tokens(model=model, messages=messages)
        assert info.value.response.json()["error"]["type"] == "invalid_request_error"
        request_id = info.value.response.headers["x-request-id"]
        assert fake_provider.requests(request_id) == []
    else:
        raw = await client.messages.with_raw_response.count_tokens(model=model, messages=messages)
        expected = count_anthropic_input_tokens({"model": "claude-fake", "messages": messages})
        assert (await raw.parse()).input_tokens == expected
        request_id = raw.headers["x-request-id"]
        assert [r["path"] for r in fake_provider.requests(request_id)] == ["/v1/messages/count_tokens"]
    assert await edge.events({request_id}, 1, within_s=2.0) == []  # counting is never billed


@pytest.mark.parametrize("kind", ["openai", "azure"])  # anthropic: no response is ever created (400 above)
async def test_stored_response_reads(edge: Edge, fake_provider: Any, kind: str) -> None:
    await edge.new_key("a")
    client = _openai(edge)
    created = await client.responses.create(model=CHAT[kind], input="keep this")
    got = await client.responses.with_raw_response.retrieve(created.id)
    assert got.parse().output_text == created.output_text
    items = await client.responses.input_items.with_raw_response.list(created.id)
    assert items.parse().data[0].content[0].text == "keep this"  # type: ignore[union-attr]
    deleted = await client.responses.with_raw_response.delete(created.id)
    prefix = PATH[(kind, "responses")] + "/" + created.id
    ids = [r.headers["x-request-id"] for r in (got, items, deleted)]
    paths = [fake_provider.requests(i)[0]["path"] for i in ids]
    assert paths == [prefix, prefix + "/input_items", prefix]
    assert await edge.events(set(ids), 1, within_s=2.0) == []  # reads and deletes are never billed
