"""The relay's direct path (``streaming.direct``, issue 9): chunks that arrive one
by one, as from a real model, are written to the client from the provider
connection's read callback; what the client gets and what is billed are the
loop's (the edge in process over real Valkey and Kafka, the fake provider
streaming its chunks 5 ms apart).

The direct path is counted by wrapping ``DirectRelay.__call__`` (its answers
are unchanged), so each test also proves the path it is about was taken.
"""

from __future__ import annotations

from typing import Any

import aiohttp
import orjson
import pytest

from tollway_edge.admission.bounds import prompt_token_bound
from tollway_edge.streaming import direct
from tollway_testing.fake_provider import count_prompt_tokens

from .conftest import Edge

pytestmark = pytest.mark.integration

MESSAGES = [{"role": "user", "content": "Tell me about the gateway, word by word."}]
WORDS = 20  # the fake provider's answer: 20 words, one per content chunk


@pytest.fixture
def taken(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Every answer of the direct path in this test (True: it relayed the bytes)."""
    answers: list[bool] = []
    call = direct.DirectRelay.__call__

    def counted(self: direct.DirectRelay, data: bytes) -> bool:
        answers.append(call(self, data))
        return answers[-1]

    monkeypatch.setattr(direct.DirectRelay, "__call__", counted)
    return answers


async def _stream(
    edge_http: aiohttp.ClientSession, edge: Edge, key: str, body: dict[str, Any]
) -> tuple[str, bytes]:
    h = {"Authorization": f"Bearer {key}"}
    async with edge_http.post(edge.base_url + "/chat/completions", json=body, headers=h) as resp:
        assert resp.status == 200
        return resp.headers["x-request-id"], await resp.read()


def _data(raw: bytes) -> list[bytes]:
    return [e[len(b"data: ") :] for e in raw.split(b"\n\n") if e.startswith(b"data: ")]


@pytest.mark.parametrize("client_usage", [True, False])
async def test_chunks_one_by_one_reach_the_client_whole_and_are_billed_exactly(
    edge: Edge, edge_http: aiohttp.ClientSession, fake_provider: Any, taken: list[bool], client_usage: bool
) -> None:
    fake_provider.set_faults({"model:fake-model": {"chunk_interval_ms": 5}})
    key = await edge.new_key("a", limits=[{"scope": "key", "scope_id": "$key", "tokens_per_minute": 10_000}])
    body: dict[str, Any] = {"model": "gpt-4o-mini", "messages": MESSAGES, "stream": True}
    if client_usage:
        body["stream_options"] = {"include_usage": True}
    request_id, raw = await _stream(edge_http, edge, key, body)

    assert raw.endswith(b"data: [DONE]\n\n") and raw.count(b"\n\n") == raw.count(b"data: ")
    events = _data(raw)
    chunks = [orjson.loads(e) for e in events[:-1]]
    words = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]).split()
    assert len(words) == WORDS
    usage_chunks = [c for c in chunks if not c["choices"]]
    assert len(usage_chunks) == (1 if client_usage else 0)  # the usage-only chunk: only when asked
    assert sum(taken) >= WORDS // 2, taken  # most content chunks went the direct way

    (done,) = [e for e in await edge.events({request_id}, 2) if e["type"] != "started"]
    assert done["type"] == "completed" and done["error_type"] is None
    assert done["usage_estimated"] is False  # the provider's usage, read by the loop from the last chunks
    assert (done["prompt_tokens"], done["completion_tokens"]) == (count_prompt_tokens(MESSAGES), WORDS)


@pytest.mark.parametrize(
    "edge", [{"_ledger": True, "stream_allowance_tokens": 5, "stream_extend_tokens": 5}], indirect=True
)
async def test_the_reservation_is_extended_and_the_cut_is_clean_between_direct_chunks(
    edge: Edge, edge_http: aiohttp.ClientSession, fake_provider: Any, taken: list[bool]
) -> None:
    fake_provider.set_faults({"model:fake-model": {"chunk_interval_ms": 5}})
    body: dict[str, Any] = {"model": "gpt-4o-mini", "messages": MESSAGES, "stream": True}
    prompt = prompt_token_bound(body)
    # Allowance 5 + one extension of 5 + extensions of the exact deficit up to 12 completion tokens.
    key = await edge.new_key(
        "a", limits=[{"scope": "key", "scope_id": "$key", "tokens_per_minute": prompt + 12}]
    )
    request_id, raw = await _stream(edge_http, edge, key, body)

    events = _data(raw)
    assert events[-1] == b"[DONE]"
    chunks = [orjson.loads(e) for e in events[:-1]]
    words = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks).split()
    assert len(words) == 12  # exactly what the limit allows: none lost, none beyond
    finish = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"][0]["finish_reason"]]
    assert finish == ["length"]
    assert sum(taken) >= 5 and not all(taken), taken  # direct within the reservation, the loop beyond it

    (done,) = [e for e in await edge.events({request_id}, 2) if e["type"] != "started"]
    assert done["type"] == "completed" and done["error_type"] == "stream_limit_reached"
    assert done["completion_tokens"] == 12
