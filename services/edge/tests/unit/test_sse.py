"""SSE relay: every event passes through as it arrives; usage is read from the last chunk."""

from __future__ import annotations

import orjson
import pytest

from tollway_edge.sse import SSERelay

pytestmark = pytest.mark.unit


def _event(obj: dict) -> bytes:
    return b"data: " + orjson.dumps(obj) + b"\n\n"


CONTENT = [
    _event({"id": "c", "choices": [{"index": 0, "delta": {"content": w}}], "usage": None})
    for w in ("alpha", "bravo", "charlie")
]
USAGE = {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}
USAGE_CHUNK = _event({"id": "c", "choices": [], "usage": USAGE})
DONE = b"data: [DONE]\n\n"
STREAM = b"".join(CONTENT) + USAGE_CHUNK + DONE


def test_whole_events_are_forwarded_immediately() -> None:
    relay = SSERelay(forward_usage_chunk=True)
    for event in CONTENT:
        assert relay.feed(event) == event


def test_split_event_is_forwarded_once_complete() -> None:
    relay = SSERelay(forward_usage_chunk=True)
    event = CONTENT[0]
    assert relay.feed(event[:7]) == b""
    assert relay.feed(event[7:]) == event


@pytest.mark.parametrize("size", [1, 3, 17, 64, 10_000])
def test_usage_chunk_dropped_when_client_did_not_ask(size: int) -> None:
    relay = SSERelay(forward_usage_chunk=False)
    out = b"".join(relay.feed(STREAM[i : i + size]) for i in range(0, len(STREAM), size)) + relay.finish()
    assert out == b"".join(CONTENT) + DONE
    assert relay.usage == USAGE
    assert relay.done


def test_usage_chunk_kept_when_client_asked() -> None:
    relay = SSERelay(forward_usage_chunk=True)
    assert relay.feed(STREAM) + relay.finish() == STREAM
    assert relay.usage == USAGE


def test_usage_on_a_content_chunk_is_read_and_kept() -> None:
    chunk = _event({"choices": [{"index": 0, "delta": {"content": "x"}}], "usage": USAGE})
    relay = SSERelay(forward_usage_chunk=False)
    assert relay.feed(chunk) == chunk
    assert relay.usage == USAGE


def test_crlf_separators_and_unterminated_tail() -> None:
    relay = SSERelay(forward_usage_chunk=False)
    crlf = STREAM.replace(b"\n\n", b"\r\n\r\n")
    out = relay.feed(crlf[:-4]) + relay.finish()
    assert relay.usage == USAGE
    assert b'"usage":{' not in out
    assert b"alpha" in out and b"[DONE]" in out
