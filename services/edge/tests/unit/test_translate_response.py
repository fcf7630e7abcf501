"""Non-stream answers both ways, usage and stop reasons.

Produced answers are validated with the SDKs' own response models
(``anthropic.types.Message``, ``openai.types.chat.ChatCompletion``), which a
client's SDK would parse them with.
"""

from __future__ import annotations

from typing import Any

import pytest
from anthropic.types import Message
from openai.types.chat import ChatCompletion

from tollway_edge.translate import (
    TokenUsage,
    TranslationError,
    anthropic_to_openai_response,
    finish_reason_of,
    openai_to_anthropic_response,
    stop_reason_of,
)

pytestmark = pytest.mark.unit


def anthropic_message(**over: Any) -> dict[str, Any]:
    message = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [
            {"type": "thinking", "thinking": "let me see", "signature": "sig"},
            {"type": "text", "text": "Checking both."},
            {"type": "tool_use", "id": "toolu_A", "name": "get_weather", "input": {"city": "Paris"}},
            {
                "type": "tool_use",
                "id": "toolu_B",
                "name": "get_weather",
                "input": {"city": "Oslo", "n": [1, 2]},
            },
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {
            "input_tokens": 10,
            "cache_read_input_tokens": 100,
            "cache_creation_input_tokens": 20,
            "output_tokens": 30,
        },
    }
    message.update(over)
    Message.model_validate(message)  # the fixture itself is a valid Anthropic message
    return message


def test_anthropic_message_to_chat_completion() -> None:
    completion, usage = anthropic_to_openai_response(anthropic_message(), created=1700000000)
    ChatCompletion.model_validate(completion)
    assert completion == {
        "id": "msg_01",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "claude-sonnet-4-5",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "Checking both.",
                    "refusal": None,
                    "tool_calls": [
                        {
                            "id": "toolu_A",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                        },
                        {
                            "id": "toolu_B",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Oslo","n":[1,2]}'},
                        },
                    ],
                },
                "logprobs": None,
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {
            "prompt_tokens": 130,
            "completion_tokens": 30,
            "total_tokens": 160,
            "prompt_tokens_details": {"cached_tokens": 100, "cache_write_tokens": 20},
        },
    }
    assert usage == TokenUsage(
        prompt_tokens=130, completion_tokens=30, cached_tokens=100, cache_write_tokens=20
    )


def test_text_blocks_join_and_model_override() -> None:
    content = [{"type": "text", "text": "Hello, "}, {"type": "text", "text": "world."}]
    msg = anthropic_message(
        content=content, stop_reason="end_turn", usage={"input_tokens": 5, "output_tokens": 2}
    )
    completion, usage = anthropic_to_openai_response(msg, created=1, model="my-alias")
    ChatCompletion.model_validate(completion)
    choice = completion["choices"][0]
    assert choice["message"]["content"] == "Hello, world." and "tool_calls" not in choice["message"]
    assert choice["finish_reason"] == "stop" and completion["model"] == "my-alias"
    assert completion["usage"]["prompt_tokens"] == 5 and usage.cached_tokens == 0


@pytest.mark.parametrize(
    ("stop_reason", "finish_reason"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("tool_use", "tool_calls"),
        ("refusal", "content_filter"),
        ("pause_turn", "stop"),
        ("model_context_window_exceeded", "length"),
    ],
)
def test_stop_reasons_anthropic_to_openai(stop_reason: str, finish_reason: str) -> None:
    assert finish_reason_of(stop_reason) == finish_reason
    completion, _ = anthropic_to_openai_response(anthropic_message(stop_reason=stop_reason), created=1)
    assert completion["choices"][0]["finish_reason"] == finish_reason


@pytest.mark.parametrize(
    ("finish_reason", "stop_reason"),
    [
        ("stop", "end_turn"),
        ("length", "max_tokens"),
        ("tool_calls", "tool_use"),
        ("function_call", "tool_use"),
        ("content_filter", "refusal"),
    ],
)
def test_stop_reasons_openai_to_anthropic(finish_reason: str, stop_reason: str) -> None:
    assert stop_reason_of(finish_reason) == stop_reason
    message, _ = openai_to_anthropic_response(openai_completion(finish_reason=finish_reason))
    assert message["stop_reason"] == stop_reason


def openai_completion(**over: Any) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "assistant",
        "content": "Checking both.",
        "refusal": None,
        "tool_calls": [
            {
                "id": "call_A",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            },
            {"id": "call_B", "type": "function", "function": {"name": "now", "arguments": ""}},
        ],
    }
    message.update(over.pop("message", {}))
    completion = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o",
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": "tool_calls"}],
        "usage": {
            "prompt_tokens": 130,
            "completion_tokens": 30,
            "total_tokens": 160,
            "prompt_tokens_details": {"cached_tokens": 100},
            "completion_tokens_details": {"reasoning_tokens": 12},
        },
    }
    if "finish_reason" in over:
        completion["choices"][0]["finish_reason"] = over.pop("finish_reason")  # type: ignore[index]  # test data
    completion.update(over)
    ChatCompletion.model_validate(completion)
    return completion


def test_chat_completion_to_anthropic_message() -> None:
    message, usage = openai_to_anthropic_response(openai_completion())
    Message.model_validate(message)
    assert message == {
        "id": "chatcmpl-1",
        "type": "message",
        "role": "assistant",
        "model": "gpt-4o",
        "content": [
            {"type": "text", "text": "Checking both."},
            {"type": "tool_use", "id": "call_A", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "call_B", "name": "now", "input": {}},
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {
            "input_tokens": 30,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 100,
            "output_tokens": 30,
        },
    }
    assert usage == TokenUsage(130, 30, cached_tokens=100, reasoning_tokens=12)


def test_refusal_and_empty_content() -> None:
    refused, _ = openai_to_anthropic_response(
        openai_completion(
            message={"content": None, "refusal": "I can't help.", "tool_calls": None}, finish_reason="stop"
        )
    )
    Message.model_validate(refused)
    assert (
        refused["content"] == [{"type": "text", "text": "I can't help."}]
        and refused["stop_reason"] == "refusal"
    )
    empty, _ = openai_to_anthropic_response(openai_completion(message={"content": "", "tool_calls": None}))
    Message.model_validate(empty)
    assert empty["content"] == []


@pytest.mark.parametrize("arguments", ['{"city": ', "[1]", "3"])
def test_provider_tool_arguments_that_are_not_an_object_are_a_502(arguments: str) -> None:
    completion = openai_completion()
    completion["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = arguments
    with pytest.raises(TranslationError) as e:
        openai_to_anthropic_response(completion)
    assert e.value.status == 502 and e.value.code == "invalid_provider_response"
    assert e.value.anthropic_body()["error"]["type"] == "api_error"


def test_malformed_provider_answers_are_a_502() -> None:
    with pytest.raises(TranslationError) as e:
        openai_to_anthropic_response({"choices": []})
    assert e.value.status == 502
    with pytest.raises(TranslationError) as e:
        anthropic_to_openai_response({"type": "error", "error": {}}, created=1)
    assert e.value.status == 502


# --- usage ----------------------------------------------------------------------------


def test_usage_in_openai_meaning_from_anthropic() -> None:
    u = TokenUsage.from_anthropic(
        {
            "input_tokens": 7,
            "cache_read_input_tokens": 3,
            "cache_creation_input_tokens": 5,
            "output_tokens": 11,
        }
    )
    assert (u.prompt_tokens, u.cached_tokens, u.cache_write_tokens, u.completion_tokens) == (15, 3, 5, 11)
    assert u.to_openai()["total_tokens"] == 26
    assert u.to_anthropic() == {
        "input_tokens": 7,
        "cache_creation_input_tokens": 5,
        "cache_read_input_tokens": 3,
        "output_tokens": 11,
    }
    # Nulls (Anthropic sends null cache counts when caching was not used) count as 0.
    assert TokenUsage.from_anthropic(
        {"input_tokens": 4, "cache_read_input_tokens": None, "output_tokens": 1}
    ) == (TokenUsage(4, 1))


def test_usage_from_openai_to_anthropic_subtracts_cached() -> None:
    u = TokenUsage.from_openai(
        {
            "prompt_tokens": 50,
            "completion_tokens": 9,
            "prompt_tokens_details": {"cached_tokens": 20, "cache_write_tokens": 10},
        }
    )
    assert u.to_anthropic() == {
        "input_tokens": 20,
        "cache_creation_input_tokens": 10,
        "cache_read_input_tokens": 20,
        "output_tokens": 9,
    }
    assert TokenUsage.from_openai(u.to_openai()) == u
    assert TokenUsage.from_anthropic(u.to_anthropic()) == TokenUsage(50, 9, 20, 10)
    # A provider reporting more cached than prompt tokens never yields negative input.
    assert TokenUsage(prompt_tokens=5, cached_tokens=9).to_anthropic()["input_tokens"] == 0


def test_response_round_trip_anthropic_openai_anthropic() -> None:
    original = anthropic_message()
    completion, usage = anthropic_to_openai_response(original, created=1)
    back, usage_back = openai_to_anthropic_response(completion)
    Message.model_validate(back)
    assert back["content"] == original["content"][1:]  # thinking is not shown to OpenAI clients
    assert back["stop_reason"] == "tool_use" and back["usage"] == original["usage"] and usage_back == usage


def test_response_round_trip_openai_anthropic_openai() -> None:
    original = openai_completion()
    message, usage = openai_to_anthropic_response(original)
    back, usage_back = anthropic_to_openai_response(message, created=1)
    ChatCompletion.model_validate(back)
    calls = back["choices"][0]["message"]["tool_calls"]
    assert [c["id"] for c in calls] == ["call_A", "call_B"]
    assert [c["function"]["arguments"] for c in calls] == ['{"city":"Paris"}', "{}"]
    assert back["choices"][0]["message"]["content"] == "Checking both."
    assert back["choices"][0]["finish_reason"] == "tool_calls"
    assert usage_back.prompt_tokens == usage.prompt_tokens == 130 and usage_back.cached_tokens == 100
