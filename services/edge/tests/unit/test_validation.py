"""Body validation: what clients get back for each malformed field."""

from __future__ import annotations

import orjson
import pytest

from tollway_edge.endpoints.chat_body import parse_chat_body, wants_usage
from tollway_edge.errors import EdgeError
from tollway_edge.redaction.walk import MAX_DEPTH, may_nest_past, nesting_depth

pytestmark = pytest.mark.unit

OK = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}


def _err(raw: bytes) -> EdgeError:
    with pytest.raises(EdgeError) as info:
        parse_chat_body(raw)
    assert info.value.status == 400
    return info.value


def test_valid_body_passes_through_unchanged() -> None:
    body = {**OK, "temperature": 0.2, "stream": True, "max_tokens": 5, "stream_options": {}, "x": [1]}
    assert parse_chat_body(orjson.dumps(body)) == body


def test_nulls_count_as_absent() -> None:
    body = {**OK, "stream": None, "max_tokens": None, "stream_options": None}
    assert parse_chat_body(orjson.dumps(body)) == body


@pytest.mark.parametrize(
    ("raw", "param", "code"),
    [
        (b"{not json", None, "invalid_json"),
        (b'{"model": "\xff\xfe"}', None, "invalid_utf8"),
        (b"[1, 2]", None, "invalid_body"),
        (orjson.dumps({"messages": OK["messages"]}), "model", "missing_required_parameter"),
        (orjson.dumps({**OK, "model": 3}), "model", "invalid_type"),
        (orjson.dumps({"model": "m"}), "messages", "missing_required_parameter"),
        (orjson.dumps({**OK, "messages": []}), "messages", "invalid_type"),
        (orjson.dumps({**OK, "messages": "hi"}), "messages", "invalid_type"),
        (orjson.dumps({**OK, "messages": ["hi"]}), "messages[0]", "invalid_type"),
        (
            orjson.dumps({**OK, "messages": [{"role": "user"}, {"content": "x"}]}),
            "messages[1].role",
            "invalid_type",
        ),
        (orjson.dumps({**OK, "stream": "yes"}), "stream", "invalid_type"),
        (orjson.dumps({**OK, "max_tokens": 0}), "max_tokens", "invalid_type"),
        (orjson.dumps({**OK, "max_tokens": 1.5}), "max_tokens", "invalid_type"),
        (orjson.dumps({**OK, "max_tokens": True}), "max_tokens", "invalid_type"),
        (orjson.dumps({**OK, "max_completion_tokens": "10"}), "max_completion_tokens", "invalid_type"),
        (orjson.dumps({**OK, "stream_options": True}), "stream_options", "invalid_type"),
    ],
)
def test_bad_bodies_name_the_field(raw: bytes, param: str | None, code: str) -> None:
    err = _err(raw)
    assert err.param == param
    assert err.code == code
    body = orjson.loads(err.body())
    assert body["error"]["type"] == "invalid_request_error"
    assert body["error"]["param"] == param


def test_wants_usage() -> None:
    assert wants_usage({"stream_options": {"include_usage": True}})
    assert not wants_usage({"stream_options": {"include_usage": False}})
    assert not wants_usage({})


def _msg(**fields: object) -> dict[str, object]:
    return {**OK, "messages": [{"role": "user", **fields}]}


@pytest.mark.parametrize(
    ("body", "param", "code"),
    [
        (_msg(content={"text": "hi"}), "messages[0].content", "invalid_type"),
        (_msg(content=[{"type": "text", "text": {"x": 1}}]), "messages[0].content[0].text", "invalid_type"),
        (_msg(content=["hi"]), "messages[0].content[0]", "invalid_type"),
        (_msg(content=[{"text": "hi"}]), "messages[0].content[0].type", "missing_required_parameter"),
        (_msg(content="hi", name=["Jane"]), "messages[0].name", "invalid_type"),
        ({**OK, "tools": "get_weather"}, "tools", "invalid_type"),
        (
            {**OK, "tools": [{"type": "function", "function": {"name": "f", "description": 3}}]},
            "tools[0].function.description",
            "invalid_type",
        ),
        (
            {**OK, "tools": [{"type": "function", "function": {"name": "f", "parameters": "{}"}}]},
            "tools[0].function.parameters",
            "invalid_type",
        ),
        (_msg(role="assistant", tool_calls="call"), "messages[0].tool_calls", "invalid_type"),
        (
            _msg(
                tool_calls=[{"id": "c", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}]
            ),
            "messages[0].tool_calls[0].function.arguments",
            "invalid_type",
        ),
        (
            _msg(tool_calls=[{"id": "c", "type": "function", "function": {"name": "f"}}]),
            "messages[0].tool_calls[0].function.arguments",
            "missing_required_parameter",
        ),
        (
            _msg(tool_calls=[{"id": "c", "type": "function", "function": "f()"}]),
            "messages[0].tool_calls[0].function",
            "invalid_type",
        ),
        ({**OK, "metadata": {"k": {"nested": "Jane"}}}, "metadata.k", "invalid_type"),
        ({**OK, "user": {"id": 1}}, "user", "invalid_type"),
        ({**OK, "prediction": {"type": "content", "content": 3}}, "prediction.content", "invalid_type"),
        (
            {
                **OK,
                "response_format": {"type": "json_schema", "json_schema": {"name": "n", "description": []}},
            },
            "response_format.json_schema.description",
            "invalid_type",
        ),
        ({**OK, "stop": [1]}, "stop[0]", "invalid_type"),
    ],
)
def test_wrong_shapes_are_400_naming_the_param(body: dict[str, object], param: str, code: str) -> None:
    err = _err(orjson.dumps(body))
    assert (err.param, err.code, err.type) == (param, code, "invalid_request_error")


def test_every_documented_shape_passes() -> None:
    body = {
        **OK,
        "messages": [
            {"role": "system", "content": "s", "name": "ops"},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "t"},
                    {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
                ],
            },
            {
                "role": "assistant",
                "content": None,
                "refusal": None,
                "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": "c", "content": "r"},
        ],
        "tools": [{"type": "function", "function": {"name": "f", "description": "d", "parameters": {}}}],
        "metadata": {"k": "v"},
        "user": "u",
        "stop": ["a"],
        "prediction": {"type": "content", "content": [{"type": "text", "text": "p"}]},
        "response_format": {"type": "json_schema", "json_schema": {"name": "n", "schema": {}}},
        "tool_choice": {"type": "function", "function": {"name": "f"}},
    }
    assert parse_chat_body(orjson.dumps(body)) == body


@pytest.mark.parametrize("depth", [129, 1000, 5000])
def test_nesting_past_128_levels_is_400_nesting_too_deep(depth: int) -> None:
    raw = (
        b'{"model": "m", "messages": [{"role": "user", "content": "x"}], "x": '
        + b"[" * depth
        + b"]" * depth
        + b"}"
    )
    err = _err(raw)
    assert err.code == "nesting_too_deep" and err.status == 400


def test_nesting_at_128_levels_passes() -> None:
    raw = (
        b'{"model": "m", "messages": [{"role": "user", "content": "x"}], "x": '
        + b"[" * 127
        + b"]" * 127
        + b"}"
    )
    assert parse_chat_body(raw)["model"] == "m"


def test_many_brackets_at_a_shallow_depth_pass() -> None:
    """More than 128 brackets (in strings and side by side) at depth 3: the walk runs, nothing refused."""
    raw = (
        b'{"model": "m", "messages": [{"role": "user", "content": "'
        + b"[{" * 200
        + b'"}], "x": ['
        + b",".join([b"[]"] * 300)
        + b"]}"
    )
    assert may_nest_past(raw, MAX_DEPTH)
    assert parse_chat_body(raw)["model"] == "m"


@pytest.mark.parametrize("depth", [1, 2, 64, 128, 129, 300])
def test_may_nest_past_never_clears_a_deeper_text(depth: int) -> None:
    """The bracket count is an upper bound on the depth: a text nesting ``depth``
    levels is never cleared for a limit below it (bytes and str alike)."""
    text = "[" * (depth - 1) + "{}" + "]" * (depth - 1)
    assert nesting_depth(orjson.loads(text)) == depth
    for limit in (depth - 1, depth // 2, 0):
        assert may_nest_past(text, limit) and may_nest_past(text.encode(), limit)
    assert not may_nest_past(text, depth) and not may_nest_past(text.encode(), depth)
