"""Stream translation, both ways, through the SDKs' own accumulators.

The provider's bytes are cut at arbitrary points, framed by a minimal SSE
splitter (standing in for the edge's), translated event by event, framed again,
validated event by event with the client SDK's models and accumulated by the
client SDK's own stream state (``openai``'s ``ChatCompletionStreamState``,
``anthropic``'s ``accumulate_event``): the client must see the same text, tool
calls, stop reason and usage as the non-stream translation of the same answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from anthropic.lib.streaming._messages import accumulate_event  # the SDK's own accumulator
from anthropic.types import Message, RawMessageStreamEvent
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from pydantic import TypeAdapter

from tollway_edge.translate import (
    AnthropicToOpenAIStream,
    Event,
    OpenAIToAnthropicStream,
    TranslationError,
    anthropic_to_openai_response,
    openai_to_anthropic_response,
)

pytestmark = pytest.mark.unit

ANTHROPIC_EVENT: TypeAdapter[Any] = TypeAdapter(RawMessageStreamEvent)


# --- a minimal SSE splitter (the edge has its own; this one only feeds the tests) ------


@dataclass
class SSE:
    event: str | None
    data: bytes


class Splitter:
    def __init__(self) -> None:
        self.buf = b""

    def feed(self, chunk: bytes) -> list[SSE]:
        self.buf += chunk.replace(b"\r\n", b"\n")
        out: list[SSE] = []
        while (i := self.buf.find(b"\n\n")) != -1:
            raw, self.buf = self.buf[:i], self.buf[i + 2 :]
            name, data = None, []
            for line in raw.split(b"\n"):
                if line.startswith(b"event:"):
                    name = line[6:].strip().decode()
                elif line.startswith(b"data:"):
                    data.append(line[5:].removeprefix(b" "))
            if data:
                out.append(SSE(name, b"\n".join(data)))
        return out


def fed(translator: Any, obj: Any) -> bytes:
    """What ``translator`` makes of one provider event carrying ``obj``, as bytes."""
    return b"".join(translator.feed(Event(json.dumps(obj).encode())))


def split_bytes(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


def pieces(text: str, sizes: list[int]) -> list[str]:
    out, i, k = [], 0, 0
    while i < len(text):
        n = sizes[k % len(sizes)] if sizes else len(text)
        out.append(text[i : i + n])
        i, k = i + n, k + 1
    return out


def frame(name: str | None, obj: Any) -> bytes:
    head = f"event: {name}\n".encode() if name else b""
    return head + b"data: " + json.dumps(obj).encode() + b"\n\n"


def run(translator: Any, provider_bytes: bytes, cuts: list[int]) -> list[SSE]:
    """Provider bytes (cut at ``cuts``) -> splitter -> translator -> splitter: the client's events."""
    upstream, client, out = Splitter(), Splitter(), []
    for piece in split_bytes(provider_bytes, cuts):
        for event in upstream.feed(piece):
            translated = translator.feed(event)
            assert all(len(Splitter().feed(e)) == 1 for e in translated)  # one complete event per item
            out += client.feed(b"".join(translated))
    out += client.feed(b"".join(translator.finish()))
    assert client.buf == b""
    return out


# --- provider streams as the providers send them ---------------------------------------


def anthropic_stream(message: dict[str, Any], sizes: list[int]) -> bytes:
    """Anthropic's event sequence for ``message`` (Messages API, "Streaming messages")."""
    usage = dict(message["usage"])
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    out = [
        frame("message_start", {"type": "message_start", "message": start}),
        frame("ping", {"type": "ping"}),
    ]
    for i, block in enumerate(message["content"]):
        if block["type"] == "text":
            first, deltas = (
                {"type": "text", "text": ""},
                [{"type": "text_delta", "text": p} for p in pieces(block["text"], sizes)],
            )
        elif block["type"] == "tool_use":
            first = {**block, "input": {}}
            raw = json.dumps(block["input"])
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in ["", *pieces(raw, sizes)]]
        else:
            first = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [
                {"type": "thinking_delta", "thinking": block["thinking"]},
                {"type": "signature_delta", "signature": "s"},
            ]
        out.append(
            frame("content_block_start", {"type": "content_block_start", "index": i, "content_block": first})
        )
        out += [
            frame("content_block_delta", {"type": "content_block_delta", "index": i, "delta": d})
            for d in deltas
        ]
        out.append(frame("content_block_stop", {"type": "content_block_stop", "index": i}))
    delta = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    out.append(
        frame(
            "message_delta",
            {"type": "message_delta", "delta": delta, "usage": {"output_tokens": usage["output_tokens"]}},
        )
    )
    out.append(frame("message_stop", {"type": "message_stop"}))
    return b"".join(out)


def openai_stream(completion: dict[str, Any], sizes: list[int]) -> bytes:
    """OpenAI's chunk sequence for ``completion`` (with ``include_usage``)."""
    base = {k: completion[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        return frame(
            None,
            {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]},
        )

    message = completion["choices"][0]["message"]
    out = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"content": p}) for p in pieces(message.get("content") or "", sizes)]
    for k, call in enumerate(message.get("tool_calls") or []):
        fn = call["function"]
        out.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": k,
                            "id": call["id"],
                            "type": "function",
                            "function": {"name": fn["name"], "arguments": ""},
                        }
                    ]
                }
            )
        )
        out += [
            chunk({"tool_calls": [{"index": k, "function": {"arguments": p}}]})
            for p in pieces(fn["arguments"], sizes)
        ]
    out.append(chunk({}, completion["choices"][0]["finish_reason"]))
    out.append(frame(None, {**base, "choices": [], "usage": completion["usage"]}))
    return b"".join(out) + b"data: [DONE]\n\n"


# --- client sides: validate every event and accumulate with the SDK ---------------------


def openai_client(events: list[SSE]) -> tuple[Any, list[dict[str, Any]]]:
    assert events and events[-1].data == b"[DONE]"
    assert [e.data for e in events].count(b"[DONE]") == 1
    state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
    chunks = []
    for e in events[:-1]:
        chunk = json.loads(e.data)
        chunks.append(chunk)
        state.handle_chunk(ChatCompletionChunk.model_validate(chunk))
    return state.current_completion_snapshot, chunks


def anthropic_client(events: list[SSE]) -> tuple[Any, list[dict[str, Any]]]:
    objs = [json.loads(e.data) for e in events]
    assert [e.event for e in events] == [o["type"] for o in objs]
    kinds = [o["type"] for o in objs]
    assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
    # Blocks: start(i), deltas(i)..., stop(i) for i = 0, 1, 2... in order.
    expected_index = 0
    open_index = None
    for o in objs[1:-2]:
        if o["type"] == "content_block_start":
            assert open_index is None and o["index"] == expected_index
            open_index, expected_index = o["index"], expected_index + 1
        elif o["type"] == "content_block_delta":
            assert o["index"] == open_index
        else:
            assert o["type"] == "content_block_stop" and o["index"] == open_index
            open_index = None
    assert open_index is None
    snapshot, bufs = None, {}
    for o in objs:
        snapshot = accumulate_event(
            event=ANTHROPIC_EVENT.validate_python(o), current_snapshot=snapshot, json_bufs=bufs
        )
    Message.model_validate(snapshot.model_dump())
    return snapshot, objs


# --- Anthropic provider -> OpenAI client ----------------------------------------------

_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)
_input = st.dictionaries(
    st.sampled_from(["city", "n", "q"]), st.one_of(st.integers(-5, 99), _text), max_size=3
)
_sizes = st.lists(st.integers(1, 7), min_size=1, max_size=4)
_cuts = st.lists(st.integers(0, 10_000), max_size=25)
_usage_n = st.integers(0, 5000)


@st.composite
def anthropic_messages(draw: st.DrawFn) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = []
    if draw(st.booleans()):
        blocks.append({"type": "thinking", "thinking": draw(_text), "signature": "s"})
    for n in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            blocks.append({"type": "text", "text": draw(_text)})
        else:
            blocks.append(
                {
                    "type": "tool_use",
                    "id": f"toolu_{n}",
                    "name": draw(st.sampled_from(["f", "get_weather"])),
                    "input": draw(_input),
                }
            )
    tools = any(b["type"] == "tool_use" for b in blocks)
    message = {
        "id": "msg_x",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": blocks,
        "stop_reason": "tool_use"
        if tools
        else draw(st.sampled_from(["end_turn", "stop_sequence", "max_tokens"])),
        "stop_sequence": None,
        "usage": {
            "input_tokens": draw(_usage_n),
            "cache_read_input_tokens": draw(_usage_n),
            "cache_creation_input_tokens": draw(_usage_n),
            "output_tokens": draw(_usage_n),
        },
    }
    Message.model_validate(message)
    return message


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(anthropic_messages(), _sizes, _cuts, st.booleans())
def test_anthropic_stream_matches_the_non_stream_translation(
    message: dict[str, Any], sizes: list[int], cuts: list[int], include_usage: bool
) -> None:
    expected, expected_usage = anthropic_to_openai_response(message, created=7)
    ChatCompletion.model_validate(expected)
    translator = AnthropicToOpenAIStream(include_usage=include_usage, created=7)
    snapshot, chunks = openai_client(run(translator, anthropic_stream(message, sizes), cuts))
    want = expected["choices"][0]
    got = snapshot.choices[0]
    assert (got.message.content or "") == (want["message"]["content"] or "")
    got_calls = [
        (c.id, c.function.name, json.loads(c.function.arguments)) for c in got.message.tool_calls or []
    ]
    want_calls = [
        (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in want["message"].get("tool_calls", [])
    ]
    assert got_calls == want_calls
    assert [c.index for c in got.message.tool_calls or []] == list(range(len(want_calls)))
    assert got.finish_reason == want["finish_reason"]
    assert snapshot.id == expected["id"] and snapshot.model == expected["model"]
    if include_usage:
        assert snapshot.usage.model_dump(exclude_none=True) == expected["usage"]
        assert chunks[-1]["choices"] == [] and "usage" in chunks[-1]
    else:
        assert snapshot.usage is None
    assert translator.usage == expected_usage and translator.done


def test_anthropic_stream_exact_chunks() -> None:
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [
            {"type": "text", "text": "Hi"},
            {"type": "tool_use", "id": "toolu_a", "name": "f", "input": {"x": 1}},
            {"type": "tool_use", "id": "toolu_b", "name": "g", "input": {}},
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 3, "cache_read_input_tokens": 4, "output_tokens": 5},
    }
    translator = AnthropicToOpenAIStream(include_usage=True, created=9, model="alias")
    events = run(translator, anthropic_stream(message, [100]), [])
    deltas = [json.loads(e.data)["choices"] for e in events[:-1]]
    assert [d[0]["delta"] if d else None for d in deltas] == [
        {"role": "assistant", "content": ""},
        {"content": "Hi"},
        {
            "tool_calls": [
                {"index": 0, "id": "toolu_a", "type": "function", "function": {"name": "f", "arguments": ""}}
            ]
        },
        {"tool_calls": [{"index": 0, "function": {"arguments": '{"x": 1}'}}]},
        {
            "tool_calls": [
                {"index": 1, "id": "toolu_b", "type": "function", "function": {"name": "g", "arguments": ""}}
            ]
        },
        {"tool_calls": [{"index": 1, "function": {"arguments": "{}"}}]},
        {},
        None,
    ]
    assert deltas[-2][0]["finish_reason"] == "tool_calls"
    usage_chunk = json.loads(events[-2].data)
    assert usage_chunk["model"] == "alias" and usage_chunk["usage"]["prompt_tokens"] == 7
    assert usage_chunk["usage"]["prompt_tokens_details"] == {"cached_tokens": 4, "cache_write_tokens": 0}
    assert events[-1].data == b"[DONE]"


def test_anthropic_stream_error_ping_unknown_and_cut() -> None:
    t = AnthropicToOpenAIStream(include_usage=False, created=1)
    start = {
        "type": "message_start",
        "message": {"id": "m", "model": "c", "usage": {"input_tokens": 2, "output_tokens": 1}},
    }
    assert b'"role":"assistant"' in fed(t, start)
    assert t.feed(Event(b'{"type": "ping"}', "ping")) == []
    assert t.feed(Event(b'{"type": "brand_new"}', "brand_new")) == []
    assert t.feed(Event(None)) == []  # an event without data (a comment line, say)
    assert t.finish() == []  # cut before any stop reason: the edge fails the call
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    (out,) = t.feed(Event(json.dumps(error).encode(), "error"))
    assert json.loads(out.removeprefix(b"data: ")) == {
        "error": {"message": "Overloaded", "type": "overloaded_error", "param": None, "code": None}
    }
    assert t.done and t.error == error["error"] and t.feed(Event(b"{}", "ping")) == []
    assert t.usage is not None and t.usage.prompt_tokens == 2


def test_anthropic_stream_ended_after_message_delta_is_closed_by_finish() -> None:
    t = AnthropicToOpenAIStream(include_usage=True, created=1)
    start = {
        "type": "message_start",
        "message": {"id": "m", "model": "c", "usage": {"input_tokens": 2, "output_tokens": 1}},
    }
    fed(t, start)
    delta = {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}}
    assert b'"finish_reason":"stop"' in fed(t, delta)
    usage, done = t.finish()
    assert done == b"data: [DONE]\n\n" and b'"completion_tokens":3' in usage


def test_malformed_provider_events_are_a_502() -> None:
    with pytest.raises(TranslationError) as e:
        AnthropicToOpenAIStream(include_usage=False, created=1).feed(Event(b"{not json", "message_start"))
    assert e.value.status == 502
    with pytest.raises(TranslationError):
        OpenAIToAnthropicStream().feed(Event(b"[1, 2]"))


# --- OpenAI provider -> Anthropic client ----------------------------------------------


@st.composite
def openai_completions(draw: st.DrawFn) -> dict[str, Any]:
    calls = [
        {
            "id": f"call_{k}",
            "type": "function",
            "function": {"name": draw(st.sampled_from(["f", "g"])), "arguments": json.dumps(a)},
        }
        for k, a in enumerate(draw(st.lists(_input, max_size=3)))
    ]
    message: dict[str, Any] = {"role": "assistant", "content": draw(_text), "refusal": None}
    if calls:
        message["tool_calls"] = calls
    prompt, cached, written = draw(_usage_n), draw(_usage_n), draw(_usage_n)
    completion = {
        "id": "chatcmpl-x",
        "object": "chat.completion",
        "created": 5,
        "model": "gpt-4o",
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": "tool_calls" if calls else draw(st.sampled_from(["stop", "length"])),
            }
        ],
        "usage": {
            "prompt_tokens": prompt + cached + written,
            "completion_tokens": draw(_usage_n),
            "total_tokens": 0,
            "prompt_tokens_details": {"cached_tokens": cached, "cache_write_tokens": written},
        },
    }
    ChatCompletion.model_validate(completion)
    return completion


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(openai_completions(), _sizes, _cuts)
def test_openai_stream_matches_the_non_stream_translation(
    completion: dict[str, Any], sizes: list[int], cuts: list[int]
) -> None:
    expected, expected_usage = openai_to_anthropic_response(completion)
    translator = OpenAIToAnthropicStream()
    snapshot, objs = anthropic_client(run(translator, openai_stream(completion, sizes), cuts))
    got = snapshot.model_dump(exclude_none=True)
    assert [b for b in got["content"]] == expected["content"]
    assert got["stop_reason"] == expected["stop_reason"]
    assert {k: got["usage"].get(k, 0) for k in expected["usage"]} == expected["usage"]
    assert got["id"] == expected["id"] and got["model"] == expected["model"]
    assert translator.usage == expected_usage and translator.done


def test_openai_stream_exact_events_and_input_tokens_hint() -> None:
    completion = {
        "id": "chatcmpl-1",
        "created": 1,
        "model": "gpt-4o",
        "choices": [
            {
                "index": 0,
                "message": {
                    "content": "Hi",
                    "tool_calls": [{"id": "call_a", "function": {"name": "f", "arguments": '{"x":1}'}}],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 4, "prompt_tokens_details": {"cached_tokens": 6}},
    }
    translator = OpenAIToAnthropicStream(model="claude-alias", input_tokens=9)
    objs = [json.loads(e.data) for e in run(translator, openai_stream(completion, [100]), [])]
    assert objs == [
        {
            "type": "message_start",
            "message": {
                "id": "chatcmpl-1",
                "type": "message",
                "role": "assistant",
                "model": "claude-alias",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 9, "output_tokens": 0},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "call_a", "name": "f", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": '{"x":1}'},
        },
        {"type": "content_block_stop", "index": 1},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {
                "input_tokens": 4,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 6,
                "output_tokens": 4,
            },
        },
        {"type": "message_stop"},
    ]


def test_openai_interleaved_tool_fragments_keep_their_block() -> None:
    base = {"id": "c", "model": "m", "object": "chat.completion.chunk", "created": 1}

    def tc(index: int, **fn: Any) -> Event:
        extra = {"id": f"call_{index}", "type": "function"} if "name" in fn else {}
        delta = {"tool_calls": [{"index": index, **extra, "function": fn}]}
        return Event(
            json.dumps({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}).encode()
        )

    t = OpenAIToAnthropicStream()
    out = b"".join(
        b"".join(t.feed(e))
        for e in [tc(0, name="f", arguments='{"a":'), tc(1, name="g", arguments="{}"), tc(0, arguments="1}")]
    )
    out += fed(t, {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    out += b"".join(t.finish())  # no [DONE]: the finish_reason came, so the message is closed
    events = Splitter().feed(out)
    snapshot, bufs = None, {}
    for e in events:
        snapshot = accumulate_event(
            event=ANTHROPIC_EVENT.validate_python(json.loads(e.data)),
            current_snapshot=snapshot,
            json_bufs=bufs,
        )
    assert [(b.name, b.input) for b in snapshot.content] == [("f", {"a": 1}), ("g", {})]
    assert snapshot.stop_reason == "tool_use" and t.done


def test_openai_stream_error_refusal_and_empty() -> None:
    t = OpenAIToAnthropicStream()
    out = b"".join(t.feed(Event(b'{"error": {"message": "boom", "type": "server_error"}}')))
    assert json.loads(Splitter().feed(out)[0].data) == {
        "type": "error",
        "error": {"type": "api_error", "message": "boom"},
    }
    assert t.done and t.error == {"message": "boom", "type": "server_error"}

    t = OpenAIToAnthropicStream()
    chunk = {
        "id": "c",
        "model": "m",
        "choices": [{"index": 0, "delta": {"refusal": "No."}, "finish_reason": "stop"}],
    }
    out = fed(t, chunk) + b"".join(t.feed(Event(b"[DONE]")))
    snapshot, _ = anthropic_client(Splitter().feed(out))
    assert snapshot.content[0].text == "No." and snapshot.stop_reason == "refusal"

    t = OpenAIToAnthropicStream(model="m")
    snapshot, objs = anthropic_client(Splitter().feed(b"".join(t.feed(Event(b"[DONE]")))))
    assert snapshot.content == [] and t.usage is None and objs[-2]["usage"] == {"output_tokens": 0}
    assert OpenAIToAnthropicStream().finish() == []
    t = OpenAIToAnthropicStream()
    fed(
        t,
        {
            "id": "c",
            "model": "m",
            "choices": [{"index": 0, "delta": {"refusal": "No"}, "finish_reason": None}],
        },
    )
    assert (
        t.finish() == [] and t.stop_reason is None
    )  # cut before its finish_reason  # cut before anything: the edge fails the call


class DataOnly:
    """An event with nothing but a ``data`` property, like the edge splitter's."""

    def __init__(self, raw: bytes | None) -> None:
        self._raw = raw

    @property
    def data(self) -> bytes | None:
        return self._raw


def test_any_event_with_data_is_accepted() -> None:
    t = AnthropicToOpenAIStream(include_usage=False, created=1)
    start = {
        "type": "message_start",
        "message": {"id": "m", "model": "c", "usage": {"input_tokens": 1, "output_tokens": 1}},
    }
    assert len(t.feed(DataOnly(json.dumps(start).encode()))) == 1
    assert t.feed(DataOnly(None)) == []
    o = OpenAIToAnthropicStream()
    assert [f.split(b"\n")[0] for f in o.feed(DataOnly(b"[DONE]"))] == [
        b"event: message_start",
        b"event: message_delta",
        b"event: message_stop",
    ]
