"""Request translation, both ways: OpenAI chat completion <-> Anthropic Messages.

Every produced request is checked, strictly (no unknown key, every required key,
every value of its declared type), against the SDKs' own request types:
``anthropic.types.MessageCreateParams`` and ``openai.types.chat.CompletionCreateParams``.
"""

from __future__ import annotations

import collections.abc
import functools
import json
import types
import typing
from typing import Any

import pytest
import typing_extensions
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming as AnthropicParams
from anthropic.types.message_create_params import MessageCreateParamsStreaming as AnthropicStreamParams
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming as OpenAIParams
from openai.types.chat.completion_create_params import CompletionCreateParamsStreaming as OpenAIStreamParams

from tollway_edge.translate import (
    TranslationError,
    anthropic_to_openai_request,
    documented_max_tokens,
    openai_to_anthropic_request,
)

pytestmark = pytest.mark.unit

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


# --- a strict conformance check against the SDKs' TypedDicts --------------------------


def mismatches(value: Any, tp: Any, path: str = "$") -> list[str]:
    """Where ``value`` does not conform to the type ``tp`` (empty: it conforms)."""
    origin = typing.get_origin(tp)
    if tp is Any or tp is object:
        return []
    if origin is typing.Union or origin is types.UnionType:
        found = [mismatches(value, arm, path) for arm in typing.get_args(tp)]
        return [] if any(not f for f in found) else min(found, key=len)
    if origin is typing.Literal:
        return [] if value in typing.get_args(tp) else [f"{path}: {value!r} not in {typing.get_args(tp)}"]
    if typing_extensions.is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{path}: not an object"]
        hints = type_hints(tp)
        out = [f"{path}.{k}: unknown key" for k in value if k not in hints]
        out += [f"{path}.{k}: missing" for k in required_keys(tp) if k not in value]
        for k, v in value.items():
            if k in hints:
                out += mismatches(v, hints[k], f"{path}.{k}")
        return out
    if origin in (list, collections.abc.Iterable, collections.abc.Sequence) or tp is list:
        if not isinstance(value, list):
            return [f"{path}: not a list"]
        (item,) = typing.get_args(tp) or (Any,)
        return [m for i, v in enumerate(value) for m in mismatches(v, item, f"{path}[{i}]")]
    if origin is dict or tp is dict:
        return [] if isinstance(value, dict) else [f"{path}: not an object"]
    if isinstance(tp, type):
        if tp is float:
            return [] if isinstance(value, int | float) else [f"{path}: not a number"]
        if tp is int and isinstance(value, bool):
            return [f"{path}: a bool, not an int"]
        return [] if isinstance(value, tp) else [f"{path}: {type(value).__name__} is not {tp.__name__}"]
    return []  # IO, PathLike and other arms a JSON body never takes


@functools.cache
def type_hints(tp: Any) -> dict[str, Any]:
    return typing_extensions.get_type_hints(tp)


@functools.cache
def required_keys(tp: Any) -> set[str]:
    """A TypedDict's required keys, read from each class's own annotations (the SDKs use
    ``from __future__ import annotations``, under which ``__required_keys__`` misses
    ``Required[...]`` on Python 3.11)."""
    keys: set[str] = set()
    inherited: set[str] = set()
    for base in getattr(tp, "__orig_bases__", ()):
        if typing_extensions.is_typeddict(base):
            keys |= required_keys(base)
            inherited |= set(base.__annotations__)
    for key, ann in tp.__annotations__.items():
        if key in inherited:
            continue  # TypedDict copies its bases' annotations into its own
        text = ann.__forward_arg__ if isinstance(ann, typing.ForwardRef) else str(ann)
        if text.startswith(("Required[", "typing_extensions.Required[", "typing.Required[")):
            keys.add(key)
        elif tp.__total__ and not text.startswith(("NotRequired[", "typing_extensions.NotRequired[")):
            keys.add(key)
    return keys


# The anthropic SDK 2.x types describe API version 2026-10-21, which refuses sampling
# settings; requests for version 2023-06-01 still carry them (and nothing else outside).
SAMPLING = ("temperature", "top_p")


def assert_anthropic_request(body: dict[str, Any], version: str = "2023-06-01") -> None:
    tp = AnthropicStreamParams if body.get("stream") else AnthropicParams
    if version < "2026-10-21":
        body = {k: v for k, v in body.items() if k not in SAMPLING}
    assert mismatches(body, tp) == []


def assert_openai_request(body: dict[str, Any]) -> None:
    tp = OpenAIStreamParams if body.get("stream") else OpenAIParams
    assert mismatches(body, tp) == []


def test_the_checker_catches_what_it_should() -> None:
    assert mismatches({"model": "m", "max_tokens": 1, "messages": [], "bogus": 1}, AnthropicParams)
    assert mismatches({"model": "m", "messages": []}, AnthropicParams)
    bad_block = {"role": "user", "content": [{"type": "text", "txt": "x"}]}
    assert mismatches({"model": "m", "max_tokens": 1, "messages": [bad_block]}, AnthropicParams)
    assert mismatches({"model": "m", "messages": [{"role": "robot", "content": "x"}]}, OpenAIParams)


# --- OpenAI -> Anthropic --------------------------------------------------------------


def to_anthropic(body: dict[str, Any], **kw: Any) -> dict[str, Any]:
    out = openai_to_anthropic_request(body, **kw)
    assert_anthropic_request(out, kw.get("anthropic_version", "2023-06-01"))
    return out


def test_text_conversation_with_system_and_developer_messages_hoisted() -> None:
    body = {
        "model": "claude-sonnet-4-5",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hi", "name": "ann"},
            {"role": "assistant", "content": "Hello."},
            {"role": "developer", "content": [{"type": "text", "text": "Answer in French."}]},
            {"role": "user", "content": [{"type": "text", "text": "How are you?"}]},
        ],
        "max_tokens": 100,
        "temperature": 0.5,
        "top_p": 0.9,
        "stop": "END",
        "user": "u-42",
    }
    assert to_anthropic(body) == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 100,
        "system": [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Answer in French."}],
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello."},
            {"role": "user", "content": [{"type": "text", "text": "How are you?"}]},
        ],
        "stop_sequences": ["END"],
        "temperature": 0.5,
        "top_p": 0.9,
        "metadata": {"user_id": "u-42"},
    }


def test_sampling_settings_are_dropped_for_api_versions_that_refuse_them() -> None:
    body = {"model": "c", "messages": [{"role": "user", "content": "x"}], "temperature": 0.0, "top_p": 0.5}
    assert to_anthropic(body)["temperature"] == 0.0
    out = to_anthropic(body, anthropic_version="2026-10-21")
    assert "temperature" not in out and "top_p" not in out
    # Dropped, so not refused either (OpenAI's 0-2 range only matters when it is sent).
    assert "temperature" not in to_anthropic({**body, "temperature": 1.5}, anthropic_version="2026-10-21")


def test_image_url_given_as_a_bare_string_is_read_too() -> None:
    part = {"type": "image_url", "image_url": "https://example.com/x.gif"}
    out = to_anthropic({"model": "c", "messages": [{"role": "user", "content": [part]}]})
    assert out["messages"][0]["content"] == [
        {"type": "image", "source": {"type": "url", "url": "https://example.com/x.gif"}}
    ]


def test_single_system_message_is_a_string_and_model_is_the_routes() -> None:
    body = {
        "model": "alias",
        "messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "Q"}],
    }
    out = to_anthropic(body, model="claude-haiku-4-5", default_max_tokens=512)
    assert out["system"] == "S" and out["model"] == "claude-haiku-4-5" and out["max_tokens"] == 512


def test_images_data_url_to_base64_and_http_url_to_url_source() -> None:
    parts = [
        {"type": "text", "text": "Compare"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}", "detail": "low"}},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}},
    ]
    out = to_anthropic({"model": "claude-x", "messages": [{"role": "user", "content": parts}]})
    assert out["messages"][0]["content"] == [
        {"type": "text", "text": "Compare"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
        {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.jpg"}},
    ]


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("data:image/bmp;base64,AAAA", "unsupported_parameter"),
        ("data:image/png,rawbytes", "invalid_request"),
        ("ftp://example.com/x.png", "invalid_request"),
    ],
)
def test_images_anthropic_cannot_read_are_refused(url: str, code: str) -> None:
    part = {"type": "image_url", "image_url": {"url": url}}
    with pytest.raises(TranslationError) as e:
        openai_to_anthropic_request({"model": "c", "messages": [{"role": "user", "content": [part]}]})
    assert e.value.status == 400 and e.value.code == code
    assert e.value.param == "messages[0].content[0].image_url.url"


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    },
    {"type": "function", "function": {"name": "now"}},
]


@pytest.mark.parametrize(
    ("choice", "parallel", "expected"),
    [
        (None, None, None),
        ("auto", None, {"type": "auto"}),
        ("none", None, {"type": "none"}),
        ("required", None, {"type": "any"}),
        ({"type": "function", "function": {"name": "now"}}, None, {"type": "tool", "name": "now"}),
        ("required", False, {"type": "any", "disable_parallel_tool_use": True}),
        (None, False, {"type": "auto", "disable_parallel_tool_use": True}),
        ("none", False, {"type": "none"}),
    ],
)
def test_tools_and_tool_choice(choice: Any, parallel: Any, expected: Any) -> None:
    body = {"model": "c", "messages": [{"role": "user", "content": "weather?"}], "tools": TOOLS}
    if choice is not None:
        body["tool_choice"] = choice
    if parallel is not None:
        body["parallel_tool_calls"] = parallel
    out = to_anthropic(body)
    assert out["tools"] == [
        {
            "name": "get_weather",
            "description": "Weather for a city",
            "input_schema": TOOLS[0]["function"]["parameters"],  # type: ignore[index]  # test data
        },
        {"name": "now", "input_schema": {"type": "object", "properties": {}}},
    ]
    assert out.get("tool_choice") == expected


def tool_conversation() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Weather in Paris and Oslo?"},
        {
            "role": "assistant",
            "content": "Let me check.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                },
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                },
                {"id": "call_3", "type": "function", "function": {"name": "now", "arguments": ""}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "18C"},
        {"role": "tool", "tool_call_id": "call_2", "content": [{"type": "text", "text": "4C"}]},
        {"role": "tool", "tool_call_id": "call_3", "content": "12:00"},
        {"role": "user", "content": "Thanks"},
    ]


def test_tool_calls_become_tool_use_and_consecutive_tool_results_one_user_turn() -> None:
    out = to_anthropic({"model": "c", "messages": tool_conversation(), "tools": TOOLS})
    assert out["messages"] == [
        {"role": "user", "content": "Weather in Paris and Oslo?"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "call_2", "name": "get_weather", "input": {"city": "Oslo"}},
                {"type": "tool_use", "id": "call_3", "name": "now", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "call_1", "content": "18C"},
                {"type": "tool_result", "tool_use_id": "call_2", "content": [{"type": "text", "text": "4C"}]},
                {"type": "tool_result", "tool_use_id": "call_3", "content": "12:00"},
            ],
        },
        {"role": "user", "content": "Thanks"},
    ]


def test_tool_results_separated_by_a_turn_are_separate_user_turns() -> None:
    msgs = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "tool_calls": [{"id": "a", "type": "function", "function": {"name": "now", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "a", "content": "1"},
        {
            "role": "assistant",
            "tool_calls": [{"id": "b", "type": "function", "function": {"name": "now", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "b", "content": "2"},
    ]
    out = to_anthropic({"model": "c", "messages": msgs, "tools": TOOLS})
    assert [m["role"] for m in out["messages"]] == ["user", "assistant", "user", "assistant", "user"]
    assert out["messages"][1]["content"] == [{"type": "tool_use", "id": "a", "name": "now", "input": {}}]


@pytest.mark.parametrize("arguments", ['{"city": "Par', "[1, 2]", '"text"', "null"])
def test_tool_call_arguments_that_are_not_a_json_object_are_a_400(arguments: str) -> None:
    msgs = tool_conversation()
    msgs[1]["tool_calls"][1]["function"]["arguments"] = arguments
    with pytest.raises(TranslationError) as e:
        openai_to_anthropic_request({"model": "c", "messages": msgs})
    assert e.value.status == 400
    assert e.value.param == "messages[1].tool_calls[1].function.arguments"
    assert e.value.openai_body()["error"]["param"] == e.value.param
    assert e.value.anthropic_body()["error"]["type"] == "invalid_request_error"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"max_completion_tokens": 7, "max_tokens": 9}, 7),
        ({"max_tokens": 9}, 9),
        ({}, 4096),
    ],
)
def test_max_tokens_precedence(body: dict[str, Any], expected: int) -> None:
    body = {"model": "someone-elses-model", "messages": [{"role": "user", "content": "x"}], **body}
    assert to_anthropic(body)["max_tokens"] == expected


def test_max_tokens_defaults_documented_per_model() -> None:
    assert documented_max_tokens("claude-3-5-haiku-20241022") == 8192
    assert documented_max_tokens("claude-opus-4-1-20250805") == 32000
    assert documented_max_tokens("claude-opus-4-5") == 64000
    assert documented_max_tokens("claude-sonnet-4-5") == 64000
    body = {"model": "claude-3-haiku-20240307", "messages": [{"role": "user", "content": "x"}]}
    assert to_anthropic(body)["max_tokens"] == 4096
    assert to_anthropic(body, default_max_tokens=1000)["max_tokens"] == 1000


def test_stream_flag_and_neutral_or_dropped_fields() -> None:
    body = {
        "model": "c",
        "messages": [{"role": "user", "content": "x"}],
        "stream": True,
        "stream_options": {"include_usage": True},
        "n": 1,
        "logprobs": False,
        "presence_penalty": 0,
        "response_format": {"type": "text"},
        "seed": 3,
        "store": False,
        "metadata": {"k": "v"},
        "stop": ["a", "b"],
        "safety_identifier": "hashed-user",
        "temperature": None,
    }
    out = to_anthropic(body)
    assert out["stream"] is True and out["stop_sequences"] == ["a", "b"]
    assert out["metadata"] == {"user_id": "hashed-user"}
    assert "temperature" not in out and "seed" not in out


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"n": 2}, "n"),
        ({"logprobs": True}, "logprobs"),
        ({"top_logprobs": 3}, "top_logprobs"),
        ({"response_format": {"type": "json_object"}}, "response_format"),
        ({"response_format": {"type": "json_schema", "json_schema": {"name": "x"}}}, "response_format"),
        ({"frequency_penalty": 0.5}, "frequency_penalty"),
        ({"logit_bias": {"50256": -100}}, "logit_bias"),
        ({"modalities": ["text", "audio"]}, "modalities"),
        ({"audio": {"voice": "alloy", "format": "mp3"}}, "audio"),
        ({"functions": [{"name": "f"}]}, "functions"),
        ({"function_call": "auto"}, "function_call"),
        ({"prediction": {"type": "content", "content": "x"}}, "prediction"),
        ({"reasoning_effort": "high"}, "reasoning_effort"),
        ({"web_search_options": {}}, "web_search_options"),
        ({"store": True}, "store"),
        ({"temperature": 1.5}, "temperature"),
        ({"some_vendor_field": 1}, "some_vendor_field"),
        ({"tools": [{"type": "custom", "custom": {"name": "x"}}]}, "tools[0].type"),
        ({"tools": TOOLS, "tool_choice": {"type": "allowed_tools", "allowed_tools": {}}}, "tool_choice"),
    ],
)
def test_unsupported_openai_fields_are_refused_by_name(extra: dict[str, Any], param: str) -> None:
    body = {"model": "c", "messages": [{"role": "user", "content": "x"}], **extra}
    with pytest.raises(TranslationError) as e:
        openai_to_anthropic_request(body)
    assert e.value.status == 400 and e.value.param == param and param in e.value.message


@pytest.mark.parametrize(
    ("message", "param"),
    [
        (
            {"role": "user", "content": [{"type": "input_audio", "input_audio": {}}]},
            "messages[0].content[0].type",
        ),
        (
            {"role": "user", "content": [{"type": "file", "file": {"file_id": "f"}}]},
            "messages[0].content[0].file",
        ),
        (
            {
                "role": "user",
                "content": [{"type": "file", "file": {"file_data": "data:text/csv;base64,YQ=="}}],
            },
            "messages[0].content[0].file.file_data",
        ),
        ({"role": "function", "name": "f", "content": "x"}, "messages[0].role"),
        (
            {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}},
            "messages[0].function_call",
        ),
        ({"role": "tool", "content": "x"}, "messages[0].tool_call_id"),
        ({"role": "robot", "content": "x"}, "messages[0].role"),
    ],
)
def test_unsupported_or_malformed_messages_are_refused_by_path(message: dict[str, Any], param: str) -> None:
    with pytest.raises(TranslationError) as e:
        openai_to_anthropic_request({"model": "c", "messages": [message]})
    assert e.value.status == 400 and e.value.param == param


# --- Anthropic -> OpenAI --------------------------------------------------------------


def to_openai(body: dict[str, Any], **kw: Any) -> dict[str, Any]:
    out = anthropic_to_openai_request(body, **kw)
    assert_openai_request(out)
    return out


def anthropic_tool_request() -> dict[str, Any]:
    return {
        "model": "gpt-4o",
        "max_tokens": 256,
        "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is here?"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
                    {"type": "image", "source": {"type": "url", "url": "https://example.com/a.webp"}},
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                    {"type": "text", "text": "Checking."},
                    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
                    {"type": "tool_use", "id": "toolu_2", "name": "now", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "18C"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_2",
                        "content": [{"type": "text", "text": "noon"}],
                    },
                    {"type": "text", "text": "And tomorrow?"},
                ],
            },
        ],
        "tools": [
            {
                "name": "get_weather",
                "description": "Weather",
                "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
                "cache_control": {"type": "ephemeral"},
            },
            {"name": "now", "input_schema": {"type": "object"}, "type": "custom"},
        ],
        "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
        "stop_sequences": ["END"],
        "temperature": 0.2,
        "metadata": {"user_id": "u-1"},
    }


def test_anthropic_request_with_tools_images_and_results() -> None:
    out = to_openai(anthropic_tool_request())
    assert out == {
        "model": "gpt-4o",
        "max_completion_tokens": 256,
        "messages": [
            {"role": "system", "content": [{"type": "text", "text": "Be brief."}]},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is here?"},
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
                    {"type": "image_url", "image_url": {"url": "https://example.com/a.webp"}},
                ],
            },
            {
                "role": "assistant",
                "content": "Checking.",
                "tool_calls": [
                    {
                        "id": "toolu_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                    },
                    {"id": "toolu_2", "type": "function", "function": {"name": "now", "arguments": "{}"}},
                ],
            },
            {"role": "tool", "tool_call_id": "toolu_1", "content": "18C"},
            {"role": "tool", "tool_call_id": "toolu_2", "content": [{"type": "text", "text": "noon"}]},
            {"role": "user", "content": [{"type": "text", "text": "And tomorrow?"}]},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                    "description": "Weather",
                },
            },
            {"type": "function", "function": {"name": "now", "parameters": {"type": "object"}}},
        ],
        "tool_choice": "required",
        "parallel_tool_calls": False,
        "stop": ["END"],
        "temperature": 0.2,
        "user": "u-1",
    }


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ({"type": "auto"}, "auto"),
        ({"type": "none"}, "none"),
        ({"type": "tool", "name": "now"}, {"type": "function", "function": {"name": "now"}}),
    ],
)
def test_anthropic_tool_choice(choice: dict[str, Any], expected: Any) -> None:
    body = anthropic_tool_request()
    body["tool_choice"] = choice
    out = to_openai(body)
    assert out["tool_choice"] == expected and "parallel_tool_calls" not in out


def test_anthropic_string_system_stream_and_is_error() -> None:
    body = {
        "model": "m",
        "max_tokens": 10,
        "system": "S",
        "stream": True,
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {"a": [1]}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t", "content": "boom", "is_error": True}],
            },
        ],
        "tools": [{"name": "f", "input_schema": {"type": "object"}}],
    }
    out = to_openai(body, max_tokens_field="max_tokens", model="gpt-4o-mini")
    assert out["model"] == "gpt-4o-mini" and out["max_tokens"] == 10
    assert out["stream"] is True and out["stream_options"] == {"include_usage": True}
    assert out["messages"][0] == {"role": "system", "content": "S"}
    assert out["messages"][2]["content"] is None
    assert out["messages"][3] == {"role": "tool", "tool_call_id": "t", "content": "Error: boom"}


@pytest.mark.parametrize(
    ("change", "param"),
    [
        ({"top_k": 5}, "top_k"),
        ({"thinking": {"type": "enabled", "budget_tokens": 1024}}, "thinking"),
        ({"output_config": {"effort": "low"}}, "output_config"),
        ({"mcp_servers": [{"type": "url"}]}, "mcp_servers"),
        ({"container": "c"}, "container"),
        ({"something_new": 1}, "something_new"),
        ({"tools": [{"type": "web_search_20250305", "name": "web_search"}]}, "tools[0].type"),
        ({"max_tokens": None}, "max_tokens"),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "document",
                                "source": {"type": "text", "media_type": "text/plain", "data": "x"},
                            }
                        ],
                    }
                ]
            },
            "messages[0].content[0].source",
        ),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": "t",
                                "content": [{"type": "image", "source": {"type": "url", "url": "https://x"}}],
                            }
                        ],
                    }
                ]
            },
            "messages[0].content[0].content[0].type",
        ),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [{"type": "image", "source": {"type": "file", "file_id": "f"}}],
                    }
                ]
            },
            "messages[0].content[0].source.type",
        ),
    ],
)
def test_unsupported_anthropic_fields_are_refused_by_name(change: dict[str, Any], param: str) -> None:
    body = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "x"}], **change}
    with pytest.raises(TranslationError) as e:
        anthropic_to_openai_request(body)
    assert e.value.status == 400 and e.value.param == param


def test_disabled_thinking_and_hints_are_accepted() -> None:
    body = {
        "model": "m",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": "x"}],
        "thinking": {"type": "disabled"},
        "service_tier": "auto",
        "cache_control": {"type": "ephemeral"},
    }
    assert to_openai(body) == {
        "model": "m",
        "max_completion_tokens": 10,
        "messages": [{"role": "user", "content": "x"}],
    }


# --- round trips ----------------------------------------------------------------------


def test_openai_to_anthropic_to_openai_keeps_the_meaning() -> None:
    original = {
        "model": "m",
        "messages": [
            {"role": "system", "content": "Be brief."},
            *tool_conversation(),
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "and this?"},
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
                ],
            },
        ],
        "tools": TOOLS,
        "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
        "parallel_tool_calls": False,
        "max_completion_tokens": 50,
        "stop": ["x"],
        "temperature": 0.3,
        "top_p": 0.5,
        "user": "u",
    }
    back = to_openai(to_anthropic(original))
    expected = dict(original)
    expected["messages"] = [dict(m) for m in original["messages"]]  # type: ignore[attr-defined]  # test data
    # The one normalisation: arguments come back as compact JSON of the same object.
    for call in expected["messages"][2]["tool_calls"]:
        call["function"] = {
            **call["function"],
            "arguments": call["function"]["arguments"].replace(" ", "") or "{}",
        }
    expected["tools"] = [
        {
            "type": "function",
            "function": {
                **t["function"],
                "parameters": t["function"].get("parameters") or {"type": "object", "properties": {}},
            },
        }  # type: ignore[index]  # test data
        for t in TOOLS
    ]
    assert back == expected


def test_anthropic_to_openai_to_anthropic_keeps_the_meaning() -> None:
    original = anthropic_tool_request()
    back = to_anthropic(to_openai(original))
    expected = dict(original)
    # Dropped on the way (documented): cache_control hints, thinking blocks; the type
    # "custom" marker; OpenAI puts tool results first in their user turn (they are here).
    expected["system"] = "Be brief."
    assistant = original["messages"][1]
    expected["messages"] = [original["messages"][0], {**assistant, "content": assistant["content"][1:]}]
    expected["messages"].append(
        {"role": "user", "content": original["messages"][2]["content"][:2]},
    )
    expected["messages"].append({"role": "user", "content": [{"type": "text", "text": "And tomorrow?"}]})
    expected["tools"] = [
        {k: v for k, v in t.items() if k not in ("cache_control", "type")} for t in original["tools"]
    ]
    assert back == expected


# A hypothesis round trip over generated conversations (text, images, tool calls, results).
_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_args = st.dictionaries(st.sampled_from(["a", "b", "city"]), st.one_of(st.integers(), _text), max_size=3)


@st.composite
def conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"role": "user", "content": draw(_text)}]
    for turn in range(draw(st.integers(0, 3))):
        calls = [
            {
                "id": f"call_{turn}_{i}",
                "type": "function",
                "function": {"name": "f", "arguments": json.dumps(a)},
            }
            for i, a in enumerate(draw(st.lists(_args, max_size=3)))
        ]
        text = draw(_text)
        msg: dict[str, Any] = {"role": "assistant", "content": text or (None if calls else "")}
        if calls:
            msg["tool_calls"] = calls
        msgs.append(msg)
        msgs += [{"role": "tool", "tool_call_id": c["id"], "content": draw(_text)} for c in calls]
        image = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}
        msgs.append({"role": "user", "content": [{"type": "text", "text": draw(_text)}, image]})
    return msgs


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conversations())
def test_round_trip_property(msgs: list[dict[str, Any]]) -> None:
    body = {"model": "m", "messages": msgs, "max_completion_tokens": 5}
    assert with_parsed_arguments(to_openai(to_anthropic(body))) == with_parsed_arguments(body)


def with_parsed_arguments(body: dict[str, Any]) -> dict[str, Any]:
    """Tool call arguments as the objects they encode (the meaning, not the bytes)."""
    out = json.loads(json.dumps(body))
    for m in out["messages"]:
        for call in m.get("tool_calls") or ():
            call["function"]["arguments"] = json.loads(call["function"]["arguments"] or "{}")
    return out


@st.composite
def anthropic_conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"role": "user", "content": draw(_text)}]
    for turn in range(draw(st.integers(0, 3))):
        uses = [
            {"type": "tool_use", "id": f"toolu_{turn}_{i}", "name": "f", "input": a}
            for i, a in enumerate(draw(st.lists(_args, max_size=3)))
        ]
        text = draw(st.lists(_text.filter(bool), max_size=1))
        if not uses and not text:
            text = ["ok"]
        msgs.append({"role": "assistant", "content": [{"type": "text", "text": t} for t in text] + uses})
        results = [{"type": "tool_result", "tool_use_id": u["id"], "content": draw(_text)} for u in uses]
        image = {"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": PNG}}
        msgs.append({"role": "user", "content": [*results, {"type": "text", "text": draw(_text)}, image]})
    return msgs


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(anthropic_conversations(), st.one_of(st.none(), _text))
def test_anthropic_round_trip_property(msgs: list[dict[str, Any]], system: str | None) -> None:
    body: dict[str, Any] = {"model": "m", "max_tokens": 5, "messages": msgs}
    if system is not None:
        body["system"] = system
    back = to_anthropic(to_openai(body))
    # OpenAI has no separate turn for tool results: they come back as their own user turn.
    expected_msgs: list[dict[str, Any]] = []
    for m in msgs:
        content = m["content"]
        results = (
            [b for b in content if isinstance(b, dict) and b["type"] == "tool_result"]
            if isinstance(content, list)
            else []
        )
        if results:
            expected_msgs.append({"role": "user", "content": results})
            expected_msgs.append({"role": "user", "content": content[len(results) :]})
        elif m["role"] == "assistant" and len(content) == 1 and content[0]["type"] == "text":
            expected_msgs.append({"role": "assistant", "content": content[0]["text"]})
        else:
            expected_msgs.append(m)
    assert back == {**body, "messages": expected_msgs}


PDF = "JVBERi0xLjQK"


def test_pdf_documents_both_ways() -> None:
    part = {"type": "file", "file": {"filename": "a.pdf", "file_data": f"data:application/pdf;base64,{PDF}"}}
    body = {
        "model": "c",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Sum up"}, part]}],
    }
    out = to_anthropic(body)
    assert out["messages"][0]["content"][1] == {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": PDF},
        "title": "a.pdf",
    }
    back = to_openai(out)
    assert back["messages"] == body["messages"]
