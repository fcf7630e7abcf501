"""The OpenAI endpoints beside chat (embeddings, legacy completions,
moderations) and the outbound provider kinds (openai, azure, anthropic),
through the official openai SDK → a real edge → the fake provider, with the
usage events read back from a fresh Kafka topic: what the event bills is
exactly what the fake provider logged; unsupported cells are a 400 with
nothing billed and nothing sent."""

from __future__ import annotations

import asyncio
import base64
import struct
from typing import Any

import openai
import pytest
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

CHAT_PRICES = Prices(input=150000, cached_input=75000, output=600000)
EMBED_PRICES = Prices(input=20000, output=0)


def _client(edge: Edge, key: str) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=edge.base_url, api_key=key, max_retries=0, timeout=20)


async def _terminal(edge: Edge, request_id: str, count: int = 2) -> dict[str, Any]:
    events = await edge.events({request_id}, count)
    for e in events:
        validate_produced(e)
    terminal = [e for e in events if e["type"] != "started"]
    assert len(terminal) == 1, events
    return terminal[0]


def _one_record(fake_provider: Any, request_id: str) -> dict[str, Any]:
    records = fake_provider.requests(request_id)
    assert len(records) == 1, records
    return records[0]


def _assert_billed_as_logged(done: dict[str, Any], record: dict[str, Any], prices: Prices) -> None:
    assert done["type"] == "completed" and done["status_code"] == 200
    assert done["prompt_tokens"] == record["prompt_tokens"]
    assert done["completion_tokens"] == (record["completion_tokens"] or 0)
    assert done["cost_micro_usd"] == cost_micro_usd(
        prices,
        prompt_tokens=record["prompt_tokens"],
        completion_tokens=record["completion_tokens"] or 0,
        cached_tokens=record["cached_tokens"],
    )


async def test_embeddings_string_float_billed_on_prompt_tokens(edge: Edge, fake_provider: Any) -> None:
    key = await edge.new_key("a")
    raw = await _client(edge, key).embeddings.with_raw_response.create(
        model="text-embedding-3-small", input="hello embeddings", encoding_format="float"
    )
    result = raw.parse()
    request_id = raw.headers["x-request-id"]
    assert len(result.data) == 1 and len(result.data[0].embedding) > 0
    record = _one_record(fake_provider, request_id)
    assert record["api"] == "embeddings" and record["body"]["model"] == "fake-embedding"
    assert result.usage.prompt_tokens == record["prompt_tokens"] > 0
    done = await _terminal(edge, request_id)
    _assert_billed_as_logged(done, record, EMBED_PRICES)
    assert done["provider"] == "fake" and done["upstream_model"] == "fake-embedding"


async def test_embeddings_lists_token_arrays_dimensions_base64(edge: Edge, fake_provider: Any) -> None:
    key = await edge.new_key("a")
    client = _client(edge, key)
    listed = await client.embeddings.create(model="text-embedding-3-small", input=["one", "two", "three"])
    assert [d.index for d in listed.data] == [0, 1, 2]
    tokens = await client.embeddings.with_raw_response.create(
        model="text-embedding-3-small", input=[[1, 2, 3], [4, 5]], dimensions=8, encoding_format="base64"
    )
    record = _one_record(fake_provider, tokens.headers["x-request-id"])
    assert record["body"]["input"] == [[1, 2, 3], [4, 5]] and record["body"]["dimensions"] == 8
    assert record["prompt_tokens"] == 5  # one per token id
    data = tokens.parse().data
    vector = data[0].embedding
    if isinstance(vector, str):  # base64 as sent: little-endian float32s
        vector = list(struct.unpack("<8f", base64.b64decode(vector)))
    assert len(vector) == 8
    done = await _terminal(edge, tokens.headers["x-request-id"])
    _assert_billed_as_logged(done, record, EMBED_PRICES)


async def test_embeddings_to_azure_use_deployment_url_api_version_api_key(
    edge: Edge, fake_provider: Any
) -> None:
    key = await edge.new_key("a")
    raw = await _client(edge, key).embeddings.with_raw_response.create(model="azure-embedding", input="hi")
    record = _one_record(fake_provider, raw.headers["x-request-id"])
    assert record["path"] == "/openai/deployments/embed-deployment/embeddings"
    assert record["deployment"] == "embed-deployment"
    headers = {k.lower(): v for k, v in record["headers"].items()}
    assert headers["api-key"] == "sk-test-provider" and "authorization" not in headers
    done = await _terminal(edge, raw.headers["x-request-id"])
    assert done["provider"] == "azure"
    _assert_billed_as_logged(done, record, EMBED_PRICES)


async def test_chat_to_azure_deployment(edge: Edge, fake_provider: Any) -> None:
    key = await edge.new_key("a")
    client = _client(edge, key)
    raw = await client.chat.completions.with_raw_response.create(
        model="azure-chat", messages=[{"role": "user", "content": "hello azure"}]
    )
    assert raw.parse().choices[0].message.content
    record = _one_record(fake_provider, raw.headers["x-request-id"])
    assert record["path"] == "/openai/deployments/chat-deployment/chat/completions"
    done = await _terminal(edge, raw.headers["x-request-id"])
    _assert_billed_as_logged(done, record, CHAT_PRICES)
    stream = await client.chat.completions.create(
        model="azure-chat", messages=[{"role": "user", "content": "hello azure"}], stream=True
    )
    text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
    assert len(text.split()) == 20


async def test_legacy_completions_non_stream_and_stream(edge: Edge, fake_provider: Any) -> None:
    key = await edge.new_key("a")
    client = _client(edge, key)
    raw = await client.completions.with_raw_response.create(
        model="gpt-3.5-turbo-instruct", prompt="Say something", max_tokens=5
    )
    completion = raw.parse()
    assert completion.choices[0].text and completion.usage.completion_tokens == 5
    record = _one_record(fake_provider, raw.headers["x-request-id"])
    assert record["api"] == "completions" and record["body"]["model"] == "fake-instruct"
    _assert_billed_as_logged(await _terminal(edge, raw.headers["x-request-id"]), record, CHAT_PRICES)

    stream = await client.completions.create(model="gpt-3.5-turbo-instruct", prompt="Stream it", stream=True)
    request_id = stream.response.headers["x-request-id"]
    chunks = [c async for c in stream]
    assert all(c.usage is None for c in chunks)  # the edge's usage chunk is not forwarded unasked
    text = "".join(c.choices[0].text for c in chunks if c.choices)
    record = _one_record(fake_provider, request_id)
    assert record["stream"] is True and len(text.split()) == record["completion_tokens"]
    done = await _terminal(edge, request_id)
    assert done["stream"] is True
    _assert_billed_as_logged(done, record, CHAT_PRICES)


async def test_moderations_default_model_not_billed(edge: Edge, fake_provider: Any) -> None:
    key = await edge.new_key("a")
    raw = await _client(edge, key).moderations.with_raw_response.create(input=["fine", "fake-flagged text"])
    result = raw.parse()
    assert [r.flagged for r in result.results] == [False, True]
    record = _one_record(fake_provider, raw.headers["x-request-id"])
    assert record["api"] == "moderations" and record["billable"] is False
    done = await _terminal(edge, raw.headers["x-request-id"])
    assert done["type"] == "completed" and done["model"] == "omni-moderation-latest"
    assert done["cost_micro_usd"] is None and done["prompt_tokens"] is None  # OpenAI reports no usage


@pytest.mark.parametrize(
    ("call", "model"),
    [
        ("embeddings", "claude-test"),
        ("completions", "claude-test"),
        ("moderations", "claude-test"),
        ("moderations", "azure-chat"),
    ],
)
async def test_unsupported_cells_are_400_and_bill_nothing(
    edge: Edge, fake_provider: Any, call: str, model: str
) -> None:
    key = await edge.new_key("a")
    client = _client(edge, key)
    with pytest.raises(openai.BadRequestError) as info:
        if call == "embeddings":
            await client.embeddings.create(model=model, input="x")
        elif call == "completions":
            await client.completions.create(model=model, prompt="x")
        else:
            await client.moderations.create(model=model, input="x")
    err = info.value
    assert err.code == "unsupported" and err.param == "model"
    request_id = err.response.headers["x-request-id"]
    done = await _terminal(edge, request_id, 1)
    assert done["type"] == "failed" and done["error_type"] == "unsupported" and done["status_code"] == 400
    assert done["cost_micro_usd"] is None and done["attempts"] == 0
    assert fake_provider.requests(request_id) == []


async def test_redacting_policy_refuses_token_arrays(edge: Edge, fake_provider: Any) -> None:
    full, key_id, _ = await upsert_key(edge.dsn, PEPPER.encode())
    policy = {"mode": "redact"}
    await set_policy(edge.dsn, key_id, policy)
    expected = parse_redaction_policy(policy)
    for _ in range(100):
        p = edge.app[STATE].snapshot.by_key_id.get(key_id)
        if p is not None and p.redaction_policy == expected:
            break
        await asyncio.sleep(0.05)
    with pytest.raises(openai.BadRequestError) as info:
        await _client(edge, full).embeddings.create(model="text-embedding-3-small", input=[[1, 2, 3]])
    assert info.value.code == "unscannable_content" and info.value.param == "/input/0/0"
    assert fake_provider.requests(info.value.response.headers["x-request-id"]) == []


@pytest.mark.parametrize(
    "edge", [{"_ledger": True, "stream_allowance_tokens": 5, "stream_extend_tokens": 5}], indirect=True
)
async def test_legacy_completion_stream_cut_cleanly_when_extension_refused(
    edge: Edge, fake_provider: Any
) -> None:
    prompt = "Stream it"
    bound = len(prompt.encode())  # openai_json.text_bound
    key = await edge.new_key(
        "a", limits=[{"scope": "key", "scope_id": "$key", "tokens_per_minute": bound + 8}]
    )
    stream = await _client(edge, key).completions.create(
        model="gpt-3.5-turbo-instruct", prompt=prompt, stream=True, max_tokens=50
    )
    request_id = stream.response.headers["x-request-id"]
    chunks = [c async for c in stream]  # the SDK parses every chunk, the clean end included
    assert chunks[-1].object == "text_completion" and chunks[-1].choices[0].finish_reason == "length"
    sent = sum(1 for c in chunks if c.choices and c.choices[0].text)
    assert sent == 8
    done = await _terminal(edge, request_id)
    assert done["error_type"] == "stream_limit_reached" and done["completion_tokens"] == 8
    estimate = 3  # usage.estimate_prompt_tokens: ceil(9 bytes / 4), as the fake provider counts it
    assert done["usage_estimated"] is True and done["prompt_tokens"] == estimate
    assert done["cost_micro_usd"] == cost_micro_usd(CHAT_PRICES, prompt_tokens=estimate, completion_tokens=8)


async def test_responses_chain_pinned_and_billed(edge: Edge, fake_provider: Any) -> None:
    key = await edge.new_key("a")
    client = _client(edge, key)
    first = await client.responses.with_raw_response.create(model="gpt-4o-mini", input="Hello responses")
    answer = first.parse()
    assert answer.output_text
    record = _one_record(fake_provider, first.headers["x-request-id"])
    assert record["api"] == "responses" and record["body"]["model"] == "fake-model"
    _assert_billed_as_logged(await _terminal(edge, first.headers["x-request-id"]), record, CHAT_PRICES)
    # previous_response_id reaches the deployment that stored the first response
    second = await client.responses.with_raw_response.create(
        model="gpt-4o-mini", input="And again", previous_response_id=answer.id
    )
    assert second.parse().output_text
    record = _one_record(fake_provider, second.headers["x-request-id"])
    assert record["prompt_tokens"] > answer.usage.input_tokens  # the stored conversation counted
    _assert_billed_as_logged(await _terminal(edge, second.headers["x-request-id"]), record, CHAT_PRICES)


async def test_fresh_responses_fall_back_follow_ups_are_pinned_and_reach_azure(
    edge: Edge, fake_provider: Any
) -> None:
    key = await edge.new_key("a")
    client = _client(edge, key)
    # a new response falls back like chat (the dead route first, then fake) ...
    fresh = await client.responses.with_raw_response.create(model="fallback-dead", input="x")
    record = _one_record(fake_provider, fresh.headers["x-request-id"])
    done = await _terminal(edge, fresh.headers["x-request-id"])
    assert done["attempts"] == 3 and done["provider"] == "fake"  # two refused connections, then fake
    _assert_billed_as_logged(done, record, CHAT_PRICES)
    # ... and its follow-up goes straight to the deployment that holds it
    follow = await client.responses.with_raw_response.create(
        model="fallback-dead", input="y", previous_response_id=fresh.parse().id
    )
    _one_record(fake_provider, follow.headers["x-request-id"])
    done = await _terminal(edge, follow.headers["x-request-id"])
    assert done["attempts"] == 1 and done["provider"] == "fake"
    raw = await client.responses.with_raw_response.create(model="azure-chat", input="hi azure")
    record = _one_record(fake_provider, raw.headers["x-request-id"])
    assert record["path"] == "/openai/responses" and record["body"]["model"] == "chat-deployment"
    with pytest.raises(openai.BadRequestError) as bad:
        await client.responses.create(model="claude-test", input="x")
    assert bad.value.code == "unsupported"
