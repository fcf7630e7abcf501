"""The edge's stream formats (``streaming.formats``) over the edge's own splitter:
for every cut of the provider's bytes the client receives the same events
(byte for byte), its SDK accumulates the same text and tool calls, and the
tokens read keep OpenAI's meaning. Plus the Anthropic and Responses terminators' endings."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from anthropic.lib.streaming._messages import accumulate_event  # the SDK's own accumulator
from anthropic.types import RawMessageStreamEvent
from hypothesis import given
from hypothesis import strategies as st
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk
from openai.types.responses import ResponseIncompleteEvent, ResponseStreamEvent
from pydantic import TypeAdapter

from tollway_edge.streaming.formats import AnthropicReader, ResponsesReader, TranslatingReader
from tollway_edge.streaming.readers import UsageReader
from tollway_edge.streaming.sse import SSESplitter, split_events
from tollway_edge.streaming.terminator import AnthropicTerminator, ResponsesTerminator
from tollway_edge.translate import AnthropicToOpenAIStream, OpenAIToAnthropicStream
from tollway_edge.usage import Tokens

pytestmark = pytest.mark.unit

ANTHROPIC_EVENT: TypeAdapter[Any] = TypeAdapter(RawMessageStreamEvent)


def _a(obj: dict[str, Any]) -> bytes:
    return b"event: " + obj["type"].encode() + b"\ndata: " + orjson.dumps(obj) + b"\n\n"


def _o(obj: Any) -> bytes:
    return b"data: " + (obj if isinstance(obj, bytes) else orjson.dumps(obj)) + b"\n\n"


USAGE = {
    "input_tokens": 10,
    "cache_read_input_tokens": 5,
    "cache_creation_input_tokens": 3,
    "output_tokens": 9,
}
ANTHROPIC = b"".join(
    [
        _a(
            {
                "type": "message_start",
                "message": {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-x",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {**USAGE, "output_tokens": 1},
                },
            }
        ),
        _a({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        _a({"type": "ping"}),
        _a({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Héllo "}}),
        _a({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "wörld"}}),
        _a({"type": "content_block_stop", "index": 0}),
        _a(
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
            }
        ),
        _a(
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": '{"a":'},
            }
        ),
        _a(
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": "1}"},
            }
        ),
        _a({"type": "content_block_stop", "index": 1}),
        _a(
            {
                "type": "content_block_start",
                "index": 2,
                "content_block": {"type": "tool_use", "id": "toolu_2", "name": "g", "input": {}},
            }
        ),
        _a(
            {
                "type": "content_block_delta",
                "index": 2,
                "delta": {"type": "input_json_delta", "partial_json": "{}"},
            }
        ),
        _a({"type": "content_block_stop", "index": 2}),
        _a(
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                "usage": {"output_tokens": 9},
            }
        ),
        _a({"type": "message_stop"}),
    ]
)

_CHUNK = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-x"}


def _delta(delta: dict[str, Any], finish: str | None = None) -> bytes:
    return _o(
        {**_CHUNK, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
    )


OPENAI = b"".join(
    [
        _delta({"role": "assistant", "content": ""}),
        _delta({"content": "Héllo "}),
        _delta({"content": "wörld"}),
        _delta(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "f", "arguments": ""},
                    }
                ]
            }
        ),
        _delta({"tool_calls": [{"index": 0, "function": {"arguments": '{"a":1}'}}]}),
        _delta(
            {
                "tool_calls": [
                    {
                        "index": 1,
                        "id": "call_2",
                        "type": "function",
                        "function": {"name": "g", "arguments": "{}"},
                    }
                ]
            }
        ),
        _delta({}, "tool_calls"),
        _o(
            {
                **_CHUNK,
                "choices": [],
                "usage": {
                    "prompt_tokens": 18,
                    "completion_tokens": 9,
                    "total_tokens": 27,
                    "prompt_tokens_details": {"cached_tokens": 5, "cache_write_tokens": 3},
                },
            }
        ),
        _o(b"[DONE]"),
    ]
)

EXPECTED = Tokens(18, 9, 5, 0, 27, 3)  # prompt = 10 input + 5 read + 3 written


def _relay(reader: Any, data: bytes, cuts: list[int]) -> bytes:
    """What the relay's reader hands on for the provider's bytes cut at ``cuts``."""
    points = sorted({c % (len(data) + 1) for c in cuts})
    splitter = SSESplitter()
    out = []
    for a, b in zip([0, *points], [*points, len(data)], strict=True):
        if data[a:b]:
            out += reader.filter(splitter.feed(data[a:b]))
    out += reader.filter(splitter.finish()) + reader.close()
    return b"".join(e.raw for e in out)


def _openai_client(data: bytes) -> Any:
    state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
    events = split_events(data)
    assert events[-1].is_done
    for e in events[:-1]:
        state.handle_chunk(ChatCompletionChunk.model_validate(e.json()))
    return state.current_completion_snapshot


def _anthropic_client(data: bytes) -> Any:
    snapshot, bufs = None, {}
    for e in split_events(data):
        if e.json()["type"] == "ping":
            continue  # the SDK skips pings too
        snapshot = accumulate_event(
            event=ANTHROPIC_EVENT.validate_python(e.json()), current_snapshot=snapshot, json_bufs=bufs
        )
    return snapshot


@given(st.lists(st.integers(min_value=0), max_size=12))
def test_anthropic_to_openai_same_for_every_cut(cuts: list[int]) -> None:
    whole = TranslatingReader(AnthropicToOpenAIStream(include_usage=True, created=1))
    expected = _relay(whole, ANTHROPIC, [])
    reader = TranslatingReader(AnthropicToOpenAIStream(include_usage=True, created=1))
    assert _relay(reader, ANTHROPIC, cuts) == expected
    assert reader.done and reader.tokens() == EXPECTED
    completion = _openai_client(expected)
    message = completion.choices[0].message
    assert message.content == "Héllo wörld" and completion.choices[0].finish_reason == "tool_calls"
    assert [(c.id, c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls] == [
        ("toolu_1", "f", {"a": 1}),
        ("toolu_2", "g", {}),
    ]
    assert completion.usage.prompt_tokens == 18 and completion.usage.completion_tokens == 9


@given(st.lists(st.integers(min_value=0), max_size=12))
def test_openai_to_anthropic_same_for_every_cut(cuts: list[int]) -> None:
    expected = _relay(TranslatingReader(OpenAIToAnthropicStream()), OPENAI, [])
    reader = TranslatingReader(OpenAIToAnthropicStream())
    assert _relay(reader, OPENAI, cuts) == expected
    assert reader.done and reader.tokens() == EXPECTED
    message = _anthropic_client(expected)
    assert [b.type for b in message.content] == ["text", "tool_use", "tool_use"]
    assert message.content[0].text == "Héllo wörld"
    assert [(b.id, b.name, b.input) for b in message.content[1:]] == [
        ("call_1", "f", {"a": 1}),
        ("call_2", "g", {}),
    ]
    assert message.stop_reason == "tool_use"
    assert (message.usage.input_tokens, message.usage.cache_read_input_tokens) == (10, 5)
    assert (message.usage.cache_creation_input_tokens, message.usage.output_tokens) == (3, 9)


@given(st.lists(st.integers(min_value=0), max_size=12))
def test_native_anthropic_relayed_byte_for_byte(cuts: list[int]) -> None:
    reader = AnthropicReader()
    assert _relay(reader, ANTHROPIC, cuts) == ANTHROPIC
    assert reader.done and reader.tokens() == EXPECTED


def test_completion_tokens_counted_on_each_format() -> None:
    # one per non-empty text / partial_json / content / arguments delta (admission's counter)
    anthropic_tokens = sum(e.completion_tokens for e in split_events(ANTHROPIC))
    assert anthropic_tokens == 5  # 2 text deltas + 3 input_json deltas
    translated = split_events(
        _relay(TranslatingReader(AnthropicToOpenAIStream(include_usage=False, created=1)), ANTHROPIC, [])
    )
    assert sum(e.completion_tokens for e in translated) == 5  # 2 contents + '{"a":', '1}', '{}'


def test_untranslatable_event_ends_the_translation_as_failed() -> None:
    reader = TranslatingReader(AnthropicToOpenAIStream(include_usage=False, created=1))
    i = ANTHROPIC.index(b"event: content_block_stop")
    out = _relay(reader, ANTHROPIC[:i] + b"data: {not json\n\n" + ANTHROPIC[i:], [])
    assert not reader.done and b"[DONE]" not in out


def test_provider_error_event_is_not_done() -> None:
    reader = TranslatingReader(AnthropicToOpenAIStream(include_usage=False, created=1))
    error = _a({"type": "error", "error": {"type": "overloaded_error", "message": "busy"}})
    out = _relay(reader, ANTHROPIC[: ANTHROPIC.index(b"event: content_block_stop")] + error, [])
    assert not reader.done and b'"error"' in out and b"[DONE]" not in out


def test_usage_reader_unchanged_for_openai() -> None:
    reader = UsageReader(forward_usage_chunk=False)
    out = _relay(reader, OPENAI, [7, 100])
    assert b'"usage"' not in out and reader.done and reader.tokens() == EXPECTED


def test_anthropic_terminator_endings() -> None:
    head = ANTHROPIC[: ANTHROPIC.index(b"event: content_block_stop")]  # cut inside the text block
    end = AnthropicTerminator().clean_end(prompt_tokens=40, completion_tokens=2, include_usage=False)
    message = _anthropic_client(head + end)
    assert message.stop_reason == "max_tokens" and message.content[0].text == "Héllo wörld"
    assert message.usage.output_tokens == 2
    (error,) = split_events(AnthropicTerminator().error_end("cut", "upstream_stream_error"))
    assert error.raw.startswith(b"event: error\n")
    assert error.json() == {"type": "error", "error": {"type": "api_error", "message": "cut"}}


RESPONSE_EVENT: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)
_RESP = {  # as OpenAI's response.created carries it
    "id": "resp_1",
    "object": "response",
    "created_at": 1,
    "model": "m",
    "output": [],
    "status": "in_progress",
    "error": None,
    "incomplete_details": None,
    "instructions": None,
    "metadata": {},
    "parallel_tool_calls": True,
    "temperature": 1.0,
    "tool_choice": "auto",
    "tools": [],
    "top_p": 1.0,
    "usage": None,
}
_RESP_USAGE = {
    "input_tokens": 40,
    "input_tokens_details": {"cached_tokens": 8},
    "output_tokens": 9,
    "output_tokens_details": {"reasoning_tokens": 2},
    "total_tokens": 49,
}
RESPONSES = b"".join(
    _a(e)
    for e in [
        {"type": "response.created", "sequence_number": 0, "response": _RESP},
        {"type": "response.output_text.delta", "sequence_number": 1, "item_id": "m", "delta": "Hé"},
        {"type": "response.output_text.delta", "sequence_number": 2, "item_id": "m", "delta": ""},
        {
            "type": "response.function_call_arguments.delta",
            "sequence_number": 3,
            "item_id": "f",
            "delta": "{}",
        },
        {"type": "response.output_text.done", "sequence_number": 4, "item_id": "m", "text": "Hé"},
        {
            "type": "response.completed",
            "sequence_number": 5,
            "response": {**_RESP, "status": "completed", "usage": _RESP_USAGE},
        },
    ]
)


@given(st.lists(st.integers(min_value=0), max_size=12))
def test_responses_relayed_byte_for_byte_usage_from_completed(cuts: list[int]) -> None:
    reader = ResponsesReader()
    out = _relay(reader, RESPONSES, cuts)
    assert out == RESPONSES and reader.done
    # OpenAI chat's meaning: prompt = input_tokens (cached inside), completion = output_tokens
    tokens = reader.tokens()
    assert tokens is not None
    assert (tokens.prompt_tokens, tokens.cached_tokens, tokens.completion_tokens) == (40, 8, 9)
    assert tokens.reasoning_tokens == 2
    # one per non-empty *.delta; the *.done and response.* events repeat text and count none
    counted = ResponsesReader().filter(split_events(RESPONSES))
    assert [e.completion_tokens for e in counted] == [0, 1, 0, 1, 0, 0]


def test_responses_failed_is_not_done_but_billed() -> None:
    reader = ResponsesReader()
    failed = {"type": "response.failed", "response": {**_RESP, "status": "failed", "usage": _RESP_USAGE}}
    _relay(reader, RESPONSES[: RESPONSES.index(b"event: response.completed")] + _a(failed), [])
    tokens = reader.tokens()
    assert not reader.done and tokens is not None and tokens.completion_tokens == 9


def test_responses_terminator_endings() -> None:
    terminator = ResponsesTerminator("resp_fallback", "m")
    events = split_events(RESPONSES)
    terminator.observe(events[0])
    terminator.observe(events[2])
    (end,) = split_events(terminator.clean_end(prompt_tokens=40, completion_tokens=2, include_usage=False))
    event = ResponseIncompleteEvent.model_validate(end.json())  # the SDK's own type
    assert event.type == "response.incomplete" and event.response.id == "resp_1"
    assert event.response.incomplete_details.reason == "max_output_tokens"
    assert (event.response.usage.input_tokens, event.response.usage.output_tokens) == (40, 2)
    assert event.sequence_number == 3  # after the last relayed event
    (error,) = split_events(terminator.error_end("cut", "upstream_stream_error"))
    assert error.raw.startswith(b"event: error\n")
    body = error.json()
    assert body["error"]["message"] == "cut"  # the openai SDK raises APIError on an "error" key
    assert RESPONSE_EVENT.validate_python(body).type == "error" and body["sequence_number"] == 3
