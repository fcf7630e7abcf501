"""Body validation: what clients get back for each malformed field."""

from __future__ import annotations

import orjson
import pytest

from tollway_edge.endpoints.chat_body import parse_chat_body, wants_usage
from tollway_edge.errors import EdgeError

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
