"""OpenAI's Responses API streamed through the official ``openai`` SDK → a real
edge → the fake provider: the provider's typed events reach the SDK unchanged;
the call is billed from ``response.completed`` exactly as the fake provider
logged it, in the usage event and in the row a real ledger writes; admission's
cut ends the stream with ``response.incomplete``; a provider cut raises in the
SDK."""

from __future__ import annotations

from typing import Any

import asyncpg
import openai
import pytest
from openai import AsyncOpenAI

from tollway_contracts.catalogue import Prices
from tollway_contracts.events import validate_produced
from tollway_contracts.pricing import cost_micro_usd

from .conftest import Edge
from .test_anthropic import _ledger_row, ledger  # noqa: F401  # the real ledger fixture

pytestmark = pytest.mark.integration

PRICES = Prices(input=150000, cached_input=75000, output=600000)


def _client(edge: Edge, key: str) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=edge.base_url, api_key=key, max_retries=0, timeout=20)


async def _terminal(edge: Edge, request_id: str) -> dict[str, Any]:
    events = await edge.events({request_id}, 2)
    for e in events:
        validate_produced(e)
    (done,) = [e for e in events if e["type"] != "started"]
    return done


async def test_streamed_response_relayed_and_billed_from_response_completed(
    edge: Edge,
    fake_provider: Any,
    ledger: asyncpg.Connection,  # noqa: F811
) -> None:
    key = await edge.new_key("a")
    stream = await _client(edge, key).responses.create(
        model="gpt-4o-mini", input="Hello streams", stream=True
    )
    request_id = stream.response.headers["x-request-id"]
    events = [e async for e in stream]
    kinds = [e.type for e in events]
    assert kinds[:2] == ["response.created", "response.in_progress"] and kinds[-1] == "response.completed"
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    final = events[-1].response
    assert text and text == final.output_text
    (record,) = fake_provider.requests(request_id)
    assert record["api"] == "responses" and record["body"]["stream"] is True
    assert "stream_options" not in record["body"]  # the Responses API has no include_usage
    assert final.usage.input_tokens == record["prompt_tokens"] > 0
    assert final.usage.output_tokens == record["completion_tokens"] > 0
    done = await _terminal(edge, request_id)
    assert done["type"] == "completed" and done["stream"] is True and done["usage_estimated"] is False
    cost = cost_micro_usd(
        PRICES,
        prompt_tokens=record["prompt_tokens"],
        completion_tokens=record["completion_tokens"],
        cached_tokens=record["cached_tokens"],
    )
    assert (done["prompt_tokens"], done["completion_tokens"], done["cost_micro_usd"]) == (
        record["prompt_tokens"],
        record["completion_tokens"],
        cost,
    )
    row = await _ledger_row(ledger, request_id)
    assert row["status"] == "completed" and row["stream"] is True
    assert (row["prompt_tokens"], row["completion_tokens"], row["cached_tokens"]) == (
        record["prompt_tokens"],
        record["completion_tokens"],
        record["cached_tokens"],
    )
    assert row["cost_micro_usd"] == cost


@pytest.mark.parametrize(
    "edge", [{"_ledger": True, "stream_allowance_tokens": 5, "stream_extend_tokens": 5}], indirect=True
)
async def test_streamed_response_cut_by_admission_ends_incomplete(edge: Edge, fake_provider: Any) -> None:
    prompt = "Stream a long answer please"
    bound = len(prompt.encode())  # responses._items_bound
    key = await edge.new_key(
        "a", limits=[{"scope": "key", "scope_id": "$key", "tokens_per_minute": bound + 6}]
    )
    stream = await _client(edge, key).responses.create(
        model="gpt-4o-mini", input=prompt, stream=True, max_output_tokens=200
    )
    request_id = stream.response.headers["x-request-id"]
    events = [e async for e in stream]  # the SDK parses every event, the clean end included
    deltas = [e for e in events if e.type == "response.output_text.delta"]
    assert len(deltas) == 6
    end = events[-1]
    assert end.type == "response.incomplete" and end.response.status == "incomplete"
    assert end.response.incomplete_details.reason == "max_output_tokens"
    assert end.response.id == events[0].response.id and end.response.usage.output_tokens == 6
    done = await _terminal(edge, request_id)
    assert done["type"] == "completed" and done["error_type"] == "stream_limit_reached"
    assert done["usage_estimated"] is True and done["completion_tokens"] == 6
    assert done["cost_micro_usd"] == cost_micro_usd(
        PRICES, prompt_tokens=done["prompt_tokens"], completion_tokens=6
    )


async def test_streamed_response_cut_by_the_provider_raises_in_the_sdk(
    edge: Edge, fake_provider: Any
) -> None:
    key = await edge.new_key("a")
    fake_provider.set_faults({"model:fake-model": {"cut_after_chunks": 3}})
    stream = await _client(edge, key).responses.create(model="gpt-4o-mini", input="say words", stream=True)
    request_id = stream.response.headers["x-request-id"]
    with pytest.raises(openai.APIError) as cut:
        async for _ in stream:
            pass
    assert "provider ended the stream" in str(cut.value)
    done = await _terminal(edge, request_id)
    assert done["type"] == "failed" and done["error_type"] == "upstream_stream_error"
    assert done["usage_estimated"] is True and done["cost_micro_usd"] is not None


async def test_streamed_tool_calls_to_azure_then_chained_on_the_same_deployment(
    edge: Edge, fake_provider: Any
) -> None:
    key = await edge.new_key("a")
    client = _client(edge, key)
    tool = {
        "type": "function",
        "name": "get_weather",
        "description": "Weather of a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    }
    stream = await client.responses.create(
        model="azure-chat", input="Weather in Paris?", tools=[tool], tool_choice="required", stream=True
    )
    request_id = stream.response.headers["x-request-id"]
    events = [e async for e in stream]
    arguments = "".join(e.delta for e in events if e.type == "response.function_call_arguments.delta")
    final = events[-1].response
    (call,) = [item for item in final.output if item.type == "function_call"]
    assert call.name == "get_weather" and arguments == call.arguments
    (record,) = fake_provider.requests(request_id)
    assert record["path"] == "/openai/responses" and record["body"]["stream"] is True
    done = await _terminal(edge, request_id)
    assert done["type"] == "completed" and done["provider"] == "azure"
    assert (done["prompt_tokens"], done["completion_tokens"]) == (
        record["prompt_tokens"],
        record["completion_tokens"],
    )
    # a streamed follow-up naming the stored response reaches the deployment holding it
    follow = await client.responses.create(
        model="azure-chat",
        previous_response_id=final.id,
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": "sunny"}],
        stream=True,
    )
    follow_events = [e async for e in follow]
    assert follow_events[-1].type == "response.completed"
    (second,) = fake_provider.requests(follow.response.headers["x-request-id"])
    assert second["path"] == "/openai/responses" and second["prompt_tokens"] > record["prompt_tokens"]


@pytest.mark.parametrize("stream", [False, True])
async def test_cache_reads_billed_at_the_cached_rate_and_no_cache_write(
    edge: Edge,
    fake_provider: Any,
    ledger: asyncpg.Connection,  # noqa: F811
    stream: bool,
) -> None:
    key = await edge.new_key("a")
    client = _client(edge, key)
    text = "a long shared prefix fake-cache-read-12 " + "lorem " * 60
    if stream:
        events = await client.responses.create(model="gpt-4o-mini", input=text, stream=True)
        request_id = events.response.headers["x-request-id"]
        usage = [e async for e in events][-1].response.usage
    else:
        raw = await client.responses.with_raw_response.create(model="gpt-4o-mini", input=text)
        request_id, usage = raw.headers["x-request-id"], raw.parse().usage
    assert usage is not None and usage.input_tokens_details.cached_tokens == 12
    (record,) = fake_provider.requests(request_id)
    assert record["cached_tokens"] == 12 and record["cache_write_tokens"] == 0
    done = await _terminal(edge, request_id)
    cost = cost_micro_usd(
        PRICES,
        prompt_tokens=record["prompt_tokens"],
        completion_tokens=record["completion_tokens"],
        cached_tokens=12,
    )
    assert (done["prompt_tokens"], done["cached_tokens"], done["cache_write_tokens"]) == (
        record["prompt_tokens"],
        12,
        0,
    )
    assert done["cost_micro_usd"] == cost
    assert cost < cost_micro_usd(  # the 12 cached tokens at the cached rate, not at input
        PRICES, prompt_tokens=record["prompt_tokens"], completion_tokens=record["completion_tokens"]
    )
    row = await _ledger_row(ledger, request_id)
    assert (row["cached_tokens"], row["cache_write_tokens"], row["cost_micro_usd"]) == (12, 0, cost)
