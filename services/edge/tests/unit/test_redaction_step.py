"""The redaction step's pure parts: policy parsing and the SSE restorer."""

from __future__ import annotations

from dataclasses import replace

import orjson
import pytest

from tollway_contracts.redaction import RedactionPolicy
from tollway_edge.principals import Principal
from tollway_edge.redaction_step import SSERestorer, effective_policy

pytestmark = pytest.mark.unit

MAPPING = {"<PERSON_1>": "Maria Garcia", "<EMAIL_ADDRESS_1>": "maria@example.com"}


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


def _principal(policy: object) -> Principal:
    return Principal(
        key_id="k",
        secret_hash="h",
        tenant_id="t",
        team_id=None,
        user_id=None,
        allowed_models=None,
        revoked=False,
        expires_at=None,
        redaction_policy=policy,
        limits=None,
        version=1,
    )


def test_effective_policy_parses_the_stored_json() -> None:
    assert effective_policy(_principal(None)).mode == "off"
    p = effective_policy(_principal({"mode": "block", "entity_types": ["PERSON"], "score_threshold": 0.5}))
    assert p == RedactionPolicy(mode="block", entity_types=["PERSON"], score_threshold=0.5)
    assert effective_policy(_principal('{"mode": "redact", "reversible": true}')).reversible is True
    with pytest.raises(ValueError):
        effective_policy(replace(_principal({"mode": "shred"})))
