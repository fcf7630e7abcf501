"""The redaction step's pure parts: policy parsing and the SSE restorer (over the splitter's events)."""

from __future__ import annotations

import orjson
import pytest

from tollway_contracts.redaction import RedactionPolicy
from tollway_edge.auth.principals import Principal, parse_redaction_policy
from tollway_edge.redaction import SSERestorer as EventRestorer
from tollway_edge.streaming.sse import split_events

pytestmark = pytest.mark.unit

MAPPING = {"<PERSON_1>": "Maria Garcia", "<EMAIL_ADDRESS_1>": "maria@example.com"}


class SSERestorer:
    """Bytes in, bytes out: the restorer as the relay runs it (splitter events in, events out)."""

    def __init__(self, mapping: dict[str, str]) -> None:
        self._r = EventRestorer(mapping)

    def feed(self, data: bytes) -> bytes:
        return b"".join(e.raw for e in self._r.restore(split_events(data)))

    @property
    def answer(self) -> str:
        return self._r.answer


def _event(content: str | None, finish: str | None = None) -> bytes:
    delta = {} if content is None else {"content": content}
    chunk = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + orjson.dumps(chunk) + b"\n\n"


def _contents(data: bytes) -> list[str]:
    out = []
    for event in data.split(b"\n\n"):
        if event.startswith(b"data: {"):
            for c in orjson.loads(event[6:])["choices"]:
                out.append(c["delta"].get("content", ""))
    return out


def test_a_placeholder_split_across_events_is_restored_holding_back_only_its_prefix() -> None:
    r = SSERestorer(MAPPING)
    first = r.feed(_event("Hello <PER"))
    assert _contents(first) == ["Hello "]  # the event is forwarded at once; only "<PER" waits
    second = r.feed(_event("SON_1>, mail <EMAIL_ADDRESS_1> now"))
    assert _contents(second) == ["Maria Garcia, mail maria@example.com now"]
    tail = r.feed(_event(None, "stop") + b"data: [DONE]\n\n")
    assert tail.endswith(b"data: [DONE]\n\n")
    assert r.answer == "Hello Maria Garcia, mail maria@example.com now"


def test_text_that_cannot_start_a_placeholder_is_never_held() -> None:
    r = SSERestorer(MAPPING)
    assert _contents(r.feed(_event("a < b and <x>"))) == ["a < b and <x>"]


def test_an_unfinished_placeholder_is_released_before_done() -> None:
    r = SSERestorer(MAPPING)
    out = r.feed(_event("ends with <PERSON"))
    assert _contents(out) == ["ends with "]
    out = r.feed(b"data: [DONE]\n\n")
    assert _contents(out) == ["<PERSON"] and out.endswith(b"data: [DONE]\n\n")


def test_without_a_mapping_events_pass_through_byte_for_byte() -> None:
    r = SSERestorer({})
    data = _event("Hi <PERSON_1>") + b": comment\n\n" + b"data: [DONE]\n\n"
    assert r.feed(data) == data
    assert r.answer == "Hi <PERSON_1>"


def test_effective_policy_parses_the_stored_json() -> None:
    # Parsed once when the snapshot loads (Principal.from_row), not per call.
    assert parse_redaction_policy(None).mode == "off"
    p = parse_redaction_policy({"mode": "block", "entity_types": ["PERSON"], "score_threshold": 0.5})
    assert p == RedactionPolicy(mode="block", entity_types=["PERSON"], score_threshold=0.5)
    assert parse_redaction_policy('{"mode": "redact", "reversible": true}').reversible is True
    with pytest.raises(ValueError):
        parse_redaction_policy({"mode": "shred"})


def test_a_row_is_typed_once_and_an_unreadable_column_is_marked() -> None:
    row = {
        "key_id": "k",
        "secret_hash": "h",
        "tenant_id": "t",
        "team_id": None,
        "user_id": None,
        "allowed_models": None,
        "revoked": False,
        "expires_at": None,
        "redaction_policy": {"mode": "redact", "reversible": True},
        "limits": [{"scope": "key", "scope_id": "k", "requests_per_minute": 5}],
        "version": 3,
        "allowed_regions": None,
        "response_cache_ttl_seconds": None,
    }
    p = Principal.from_row(row)
    assert p.redaction_policy == RedactionPolicy(mode="redact", reversible=True)
    assert p.limits is not None and p.limits[0].requests_per_minute == 5 and not p.unreadable
    assert Principal.from_row({**row, "redaction_policy": None}).redaction_policy is None  # off
    bad = Principal.from_row({**row, "redaction_policy": {"mode": "shred"}, "limits": [{"scope": "x"}]})
    assert bad.unreadable == {"redaction_policy", "limits"}
    assert p.allowed_regions is None
    assert Principal.from_row({**row, "allowed_regions": ["eu", "eu-west"]}).allowed_regions == {
        "eu",
        "eu-west",
    }
