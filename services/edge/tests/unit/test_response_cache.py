"""The exact response cache's pure rules (``tollway_edge.cache``): what is
cached, the key, ``Cache-Control``, the entry's residency check and the
stream replay an SDK parses."""

from __future__ import annotations

import orjson
from multidict import CIMultiDict, CIMultiDictProxy

from tollway_edge.cache import Entry, cache_key, cacheable, directives, replay_stream
from tollway_edge.usage import Tokens

BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0}


def test_cacheable_one_choice_no_tools() -> None:
    assert cacheable(BODY) and cacheable({**BODY, "n": 1})
    assert not cacheable({**BODY, "n": 2})
    assert not cacheable({**BODY, "tools": [{"type": "function"}]})
    assert not cacheable({**BODY, "functions": [{"name": "f"}]})
    assert cacheable({**BODY, "tools": []})  # an empty list offers nothing


def test_key_per_tenant_and_body_not_stream() -> None:
    key = cache_key("t1", "/chat/completions", BODY)
    assert key.startswith("tw:rc:v1:t1:")
    assert cache_key("t2", "/chat/completions", BODY).split(":")[-1] != key.split(":")[-1]
    streamed = {**BODY, "stream": True, "stream_options": {"include_usage": True}}
    assert cache_key("t1", "/chat/completions", streamed) == key  # stream and not share an entry
    reordered = dict(reversed(list(BODY.items())))
    assert cache_key("t1", "/chat/completions", reordered) == key
    assert cache_key("t1", "/chat/completions", {**BODY, "temperature": 1}) != key


def test_directives() -> None:
    def parse(*values: str) -> tuple[bool, bool]:
        d = directives(CIMultiDictProxy(CIMultiDict([("Cache-Control", v) for v in values])))
        return d.lookup, d.store

    assert parse() == (True, True)
    assert parse("no-cache") == (False, True)
    assert parse("No-Store, max-age=0") == (True, False)
    assert parse("no-cache", "no-store") == (False, False)


def _entry(regions: frozenset[str]) -> Entry:
    answer = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "Hello"}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
    }
    return Entry(answer, Tokens(3, 1, 0, 0, 4), "p", "m", "d", regions)


def test_entry_round_trip_and_residency() -> None:
    entry = _entry(frozenset({"eu"}))
    assert Entry.decode(entry.encode()) == entry
    assert entry.admitted_by(None) and entry.admitted_by(frozenset({"eu", "us"}))
    assert not entry.admitted_by(frozenset({"us"}))
    assert not _entry(frozenset()).admitted_by(frozenset({"eu"}))  # untagged: never under a policy


def test_replay_stream_chunks() -> None:
    raw = replay_stream(_entry(frozenset()).answer, wants_usage=True)
    events = [e.removeprefix(b"data: ") for e in raw.split(b"\n\n") if e]
    assert events[-1] == b"[DONE]"
    chunks = [orjson.loads(e) for e in events[:-1]]
    assert all(c["object"] == "chat.completion.chunk" and c["id"] == "chatcmpl-1" for c in chunks)
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": "Hello"}
    assert chunks[1]["choices"][0]["finish_reason"] == "stop"
    assert chunks[2]["choices"] == [] and chunks[2]["usage"]["completion_tokens"] == 1
    no_usage = replay_stream(_entry(frozenset()).answer, wants_usage=False)
    assert b'"usage"' not in no_usage


def test_stream_collector_assembles_what_replay_splits() -> None:
    from tollway_edge.cache import StreamCollector
    from tollway_edge.streaming.readers import UsageReader
    from tollway_edge.streaming.sse import split_events

    answer = _entry(frozenset()).answer
    collector = StreamCollector(UsageReader(forward_usage_chunk=False))
    collector.filter(split_events(replay_stream(answer, wants_usage=True)))
    assert collector.done
    tokens = collector.tokens()
    assert tokens is not None and tokens.completion_tokens == 1
    rebuilt = collector.answer(tokens)
    assert rebuilt is not None
    assert rebuilt["choices"] == [
        {"index": 0, "message": {"role": "assistant", "content": "Hello"}, "finish_reason": "stop"}
    ]
    assert rebuilt["id"] == "chatcmpl-1" and rebuilt["usage"]["total_tokens"] == 4

    tool = StreamCollector(UsageReader(forward_usage_chunk=False))
    chunk = {
        "id": "x",
        "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0}]}, "finish_reason": None}],
    }
    tool.filter(split_events(b"data: " + orjson.dumps(chunk) + b"\n\n"))
    assert tool.answer(tokens) is None  # a tool call is never stored
