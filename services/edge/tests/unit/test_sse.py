"""SSE framing and relay: every event passes through as it arrives; usage is
read from the last chunk; any split of a stream yields the same events."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tollway_edge.streaming.readers import UsageReader
from tollway_edge.streaming.sse import SSEEvent, SSESplitter, split_events

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


class SSERelay:
    """The relay's pure part as the edge runs it: splitter → usage reader → bytes."""

    def __init__(self, forward_usage_chunk: bool) -> None:
        self.splitter = SSESplitter()
        self.reader = UsageReader(forward_usage_chunk)

    def feed(self, chunk: bytes) -> bytes:
        return b"".join(e.raw for e in self.reader.filter(self.splitter.feed(chunk)))

    def finish(self) -> bytes:
        return b"".join(e.raw for e in self.reader.filter(self.splitter.finish()))

    @property
    def usage(self) -> dict | None:
        return self.reader.usage

    @property
    def done(self) -> bool:
        return self.reader.done


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


def test_event_fields_are_parsed_on_demand_and_once() -> None:
    [event] = split_events(b'event: x\ndata: {"a":\ndata: 1}\n\n')
    assert event.data == b'{"a":\n1}'
    assert event.json() == {"a": 1}
    assert event.json() is event.json()
    assert not event.is_done and split_events(DONE)[0].is_done


# --- property: framing does not depend on how the bytes arrive ---------------------

_line = st.text(
    alphabet=st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)), max_size=12
).map(str.encode)
_field = st.sampled_from([b"data: ", b"data:", b"event: ", b"id: ", b": ", b"retry: "])
_event_lines = st.lists(st.tuples(_field, _line).map(lambda t: t[0] + t[1]), min_size=1, max_size=4)
_eol = st.sampled_from([b"\n", b"\r\n", b"\r"])


@st.composite
def streams(draw: st.DrawFn) -> bytes:
    """A valid SSE stream: events of field lines, any line ends, each event ending in a blank line."""
    out = b""
    for lines in draw(st.lists(_event_lines, max_size=6)):
        for line in lines:
            out += line + draw(_eol)
        out += draw(_eol)
    return out


@settings(max_examples=300, deadline=None)
@given(data=streams(), cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=12))
def test_any_split_of_a_stream_yields_the_same_events(data: bytes, cuts: list[int]) -> None:
    whole = [e.raw for e in split_events(data)]
    splitter = SSESplitter()
    got = []
    bounds = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})
    for a, b in zip(bounds, bounds[1:], strict=False):
        got += [e.raw for e in splitter.feed(data[a:b])]
    got += [e.raw for e in splitter.finish()]
    assert got == whole
    assert [e.data for e in split_events(data)] == [e.data for e in split_events(b"".join(whole))]


@settings(max_examples=200, deadline=None)
@given(events=st.lists(_event_lines, max_size=6), cut=st.integers(min_value=0, max_value=400))
def test_each_event_is_yielded_once_with_its_data(events: list[list[bytes]], cut: int) -> None:
    data = b"".join(b"".join(line + b"\r\n" for line in lines) + b"\r\n" for lines in events)
    splitter = SSESplitter()
    got = splitter.feed(data[:cut]) + splitter.feed(data[cut:]) + splitter.finish()
    assert len(got) == len(events)
    for event, lines in zip(got, events, strict=True):
        datas = [line.split(b":", 1)[1].removeprefix(b" ") for line in lines if line.startswith(b"data:")]
        assert event.data == (b"\n".join(datas) if datas else None)


def test_completion_tokens_count_chat_tool_and_legacy_completion_deltas() -> None:
    chat = SSEEvent(b'data: {"choices":[{"delta":{"content":"hi"}}]}\n\n')
    tool = SSEEvent(b'data: {"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"{\\"a"}}]}}]}\n\n')
    legacy = SSEEvent(b'data: {"object":"text_completion","choices":[{"text":" word","index":0}]}\n\n')
    finish = SSEEvent(
        b'data: {"object":"text_completion","choices":[{"text":"","finish_reason":"stop"}]}\n\n'
    )
    assert [e.completion_tokens for e in (chat, tool, legacy, finish)] == [1, 1, 1, 0]
