"""Answer redaction (issue 11, "Answers too") end to end: client (OpenAI and
Anthropic SDKs) → edge → a real redactor process (Presidio + spaCy) → the
echo fake provider, whose answer is the caller's own text. A key with
``mode: off`` sends its PII to the provider, which answers it back: the answer
scan is what keeps it from the client. Billing from the usage events."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import anthropic
import openai
import orjson
import pytest
import pytest_asyncio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai import AsyncOpenAI

from tollway_contracts.events import validate_produced
from tollway_contracts.redaction import RedactionPolicy
from tollway_edge.auth.principals import parse_redaction_policy
from tollway_edge.redaction import RedactorPool, TextRef
from tollway_edge.redaction.coalesce import CoalescingRedactor
from tollway_edge.state import STATE
from tollway_edge.streaming.holdback import StreamScanner
from tollway_edge.streaming.sse import SSEEvent, SSESplitter
from tollway_testing.fake_provider import FakeProviderConfig

from .conftest import PEPPER, Edge, edge_catalogue, edge_settings, running_edge
from .principals_schema import create_principals_schema, upsert_key
from .redaction_support import RedactorProcess, closed_port_url, leased_valkey_db, set_policy, start_redactor

pytestmark = pytest.mark.integration

NAME, EMAIL, CARD = "Maria Garcia", "maria.garcia@example.com", "4111 1111 1111 1111"
PII = f"Please write to {NAME} at {EMAIL} today. Her card number is {CARD} and nothing else."
VALUES = (EMAIL, CARD, "Garcia")


@pytest_asyncio.fixture(scope="module")
async def redactor(
    valkey_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[RedactorProcess]:
    """One real redactor process (1 worker) over a leased Valkey db."""
    async with leased_valkey_db(valkey_url) as url:
        proc = await start_redactor(url, "test:answers:", tmp_path_factory.mktemp("redactor"))
        try:
            yield proc
        finally:
            proc.stop()


@pytest_asyncio.fixture
async def echo_provider(fake_provider_factory: Any) -> Any:
    """A fake provider answering with the last user message (one word per chunk when streaming)."""
    return fake_provider_factory(FakeProviderConfig(echo=True, access_log=False, chunk_interval_ms=3))


@pytest_asyncio.fixture
async def edge(
    fresh_database: str,
    valkey_test_url: str,
    fresh_topic: Any,
    kafka_bootstrap_servers: str,
    echo_provider: Any,
    redactor: RedactorProcess,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> AsyncIterator[Edge]:
    """An in-process edge routing to the echo provider, behind the redactor
    (``redactor_urls="$closed"`` by indirect parametrisation: a port nothing listens on)."""
    await create_principals_schema(fresh_database)
    topic = await fresh_topic(partitions=1)
    catalogue = edge_catalogue(echo_provider.base_url, closed_port_url(), echo_provider.base_url)
    values = edge_settings(
        fresh_database,
        valkey_test_url,
        kafka_bootstrap_servers,
        topic,
        catalogue,
        tmp_path,
        redactor_urls=closed_port_url() if getattr(request, "param", None) == "$closed" else redactor.url,
        redaction_deadline_ms=10_000,
        log_format="console",
    )
    async with running_edge(values, catalogue) as running:
        yield running


async def _key(edge: Edge, policy: dict[str, Any]) -> str:
    """A key with ``policy``, visible to the edge before it is returned."""
    full, key_id, _ = await upsert_key(edge.dsn, PEPPER.encode())
    await set_policy(edge.dsn, key_id, policy)
    expected = parse_redaction_policy(policy)
    for _ in range(100):
        p = edge.app[STATE].snapshot.by_key_id.get(key_id)
        if p is not None and p.redaction_policy == expected:
            break
        await asyncio.sleep(0.05)
    return full


def _client(edge: Edge, key: str) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=edge.base_url, api_key=key, max_retries=0)


async def _terminal(edge: Edge, request_id: str) -> dict[str, Any]:
    events = await edge.events({request_id}, 2)
    for e in events:
        validate_produced(e)
    (terminal,) = [e for e in events if e["type"] != "started"]
    return terminal


async def test_redact_plain_answer_client_sees_placeholders(edge: Edge, echo_provider: Any) -> None:
    key = await _key(edge, {"mode": "off", "answers": "redact"})
    raw = await _client(edge, key).chat.completions.with_raw_response.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": PII}]
    )
    text = raw.parse().choices[0].message.content or ""
    request_id = raw.headers["x-request-id"]
    (received,) = echo_provider.requests(request_id)
    assert EMAIL in orjson.dumps(received["body"]).decode()  # mode off: the provider got the PII
    for value in VALUES:
        assert value not in text
    assert "<EMAIL_ADDRESS_1>" in text and "<CREDIT_CARD_1>" in text and "<PERSON_1>" in text
    done = await _terminal(edge, request_id)
    assert done["type"] == "completed" and done["completion_tokens"] > 0


async def test_redact_streamed_answer_client_sees_placeholders(edge: Edge) -> None:
    key = await _key(edge, {"mode": "off", "answers": "redact"})
    stream = await _client(edge, key).chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": PII}], stream=True
    )
    deltas = [c.choices[0].delta.content or "" async for c in stream if c.choices]
    text = "".join(deltas)
    for value in VALUES:
        assert value not in text
    assert "<EMAIL_ADDRESS_1>" in text and "<CREDIT_CARD_1>" in text
    assert text.startswith("Please write to") and text.endswith("nothing else.")
    assert sum(1 for d in deltas if d) >= 2  # the first sentence left at its end, not with the whole answer


async def test_concurrent_streams_each_get_their_own_answer(edge: Edge) -> None:
    """Scans of concurrent streams share redactor requests (``redaction.coalesce``): no cross-talk."""
    key = await _key(edge, {"mode": "off", "answers": "redact"})
    client = _client(edge, key)

    async def one(i: int) -> str:
        content = f"Ticket {i} says write to user{i}@example.com today. Thanks."
        chunks = await client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": content}], stream=True
        )
        return "".join([c.choices[0].delta.content or "" async for c in chunks if c.choices])

    texts = await asyncio.gather(*(one(i) for i in range(12)))
    assert texts == [f"Ticket {i} says write to <EMAIL_ADDRESS_1> today. Thanks." for i in range(12)]


async def test_coalesced_scans_get_their_own_results(redactor: RedactorProcess) -> None:
    async with aiohttp.ClientSession() as http:
        coalescer = CoalescingRedactor(RedactorPool([redactor.url], http), max_in_flight=1)
        policy = RedactionPolicy(mode="redact")
        texts = [[TextRef("0", f"mail n{i}@example.com now"), TextRef("1", f"call {i}")] for i in range(10)]
        answers = await asyncio.gather(*(coalescer.redact(policy, t, 10_000) for t in texts))
    for i, answer in enumerate(answers):  # the detections are each scan's own (numbering is the edge's)
        assert [r.id for r in answer.results] == ["0", "1"]
        (found,) = answer.results[0].detections
        assert texts[i][0].text[found.start : found.end] == f"n{i}@example.com"
        assert answer.results[1].detections == [] and answer.results[1].anonymized_text == f"call {i}"


async def test_block_plain_answer_is_502_and_billed(edge: Edge) -> None:
    key = await _key(edge, {"mode": "off", "answers": "block"})
    with pytest.raises(openai.APIStatusError) as info:
        await _client(edge, key).chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": PII}]
        )
    err = info.value
    assert err.status_code == 502 and err.code == "answer_blocked"
    assert err.response.headers["x-should-retry"] == "false"
    body = err.response.text
    assert "EMAIL_ADDRESS" in body and EMAIL not in body
    failed = await _terminal(edge, err.response.headers["x-request-id"])
    assert failed["type"] == "failed" and failed["error_type"] == "answer_blocked"
    assert failed["completion_tokens"] > 0 and failed["cost_micro_usd"] > 0  # what the provider produced


async def test_block_streamed_answer_ends_with_error_event_and_is_billed(edge: Edge) -> None:
    key = await _key(edge, {"mode": "off", "answers": "block"})
    raw = await _client(edge, key).chat.completions.with_raw_response.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": PII}], stream=True
    )
    request_id = raw.headers["x-request-id"]
    got: list[str] = []
    with pytest.raises(openai.APIError) as info:
        async for chunk in raw.parse():
            got.extend(c.delta.content or "" for c in chunk.choices)
    assert "answer_blocked" in str(info.value.body) or "personal data" in info.value.message
    text = "".join(got)
    assert EMAIL not in text and CARD not in text and "Garcia" not in text
    failed = await _terminal(edge, request_id)
    assert failed["type"] == "failed" and failed["error_type"] == "answer_blocked"
    assert failed["completion_tokens"] > 0 and failed["cost_micro_usd"] > 0


async def test_an_answer_from_the_response_cache_is_scanned_too(edge: Edge) -> None:
    """The cache stores the provider's answer; each hit is scanned under the caller's policy."""
    full, key_id, _ = await upsert_key(edge.dsn, PEPPER.encode(), response_cache_ttl_seconds=60)
    await set_policy(edge.dsn, key_id, {"mode": "off", "answers": "redact"})
    for _ in range(100):
        p = edge.app[STATE].snapshot.by_key_id.get(key_id)
        if p is not None and p.redaction_policy is not None:
            break
        await asyncio.sleep(0.05)
    messages: Any = [{"role": "user", "content": f"{PII} Run {uuid.uuid4().hex}."}]
    seen = []
    for _ in range(2):
        raw = await _client(edge, full).chat.completions.with_raw_response.create(
            model="gpt-4o-mini", messages=messages
        )
        seen.append((raw.headers.get("x-tollway-cache"), raw.parse().choices[0].message.content or ""))
    assert [h for h, _ in seen] == ["miss", "hit"]
    for _, text in seen:
        assert EMAIL not in text and CARD not in text and "<EMAIL_ADDRESS_1>" in text
    assert seen[0][1] == seen[1][1]


async def test_answers_off_relays_the_answer_unchanged(edge: Edge) -> None:
    key = await _key(edge, {"mode": "detect"})
    answer = await _client(edge, key).chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": PII}]
    )
    assert answer.choices[0].message.content == PII
    stream = await _client(edge, key).chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": PII}], stream=True
    )
    assert "".join([c.choices[0].delta.content or "" async for c in stream if c.choices]) == PII


@pytest.mark.parametrize("stream", [False, True])
async def test_restored_values_are_not_re_redacted(edge: Edge, echo_provider: Any, stream: bool) -> None:
    """Reversible prompt redaction + answer redaction: the provider echoes the
    prompt's placeholders, restored for the caller (its own values), never redacted again."""
    key = await _key(edge, {"mode": "redact", "reversible": True, "answers": "redact"})
    client = _client(edge, key)
    messages: Any = [{"role": "user", "content": PII}]
    if stream:
        chunks = await client.chat.completions.create(model="gpt-4o-mini", messages=messages, stream=True)
        text = "".join([c.choices[0].delta.content or "" async for c in chunks if c.choices])
    else:
        answer = await client.chat.completions.create(model="gpt-4o-mini", messages=messages)
        text = answer.choices[0].message.content or ""
    assert text == PII


async def test_translated_stream_answer_redacted(edge: Edge) -> None:
    """An OpenAI client of an Anthropic provider: the translated chunks are scanned."""
    key = await _key(edge, {"mode": "off", "answers": "redact"})
    stream = await _client(edge, key).chat.completions.create(
        model="claude-test", messages=[{"role": "user", "content": PII}], stream=True
    )
    text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
    for value in VALUES:
        assert value not in text
    assert "<EMAIL_ADDRESS_1>" in text and text.endswith("nothing else.")


@pytest.mark.parametrize("stream", [False, True])
async def test_anthropic_messages_answer_redacted(edge: Edge, stream: bool) -> None:
    key = await _key(edge, {"mode": "off", "answers": "redact"})
    client = anthropic.AsyncAnthropic(base_url=edge.url, api_key=key, max_retries=0)
    messages: Any = [{"role": "user", "content": PII}]
    if stream:
        async with client.messages.stream(model="claude-test", max_tokens=200, messages=messages) as s:
            message = await s.get_final_message()
    else:
        message = await client.messages.create(model="claude-test", max_tokens=200, messages=messages)
    text = "".join(b.text for b in message.content if b.type == "text")
    for value in VALUES:
        assert value not in text
    assert "<EMAIL_ADDRESS_1>" in text and "<CREDIT_CARD_1>" in text


async def test_anthropic_block_is_anthropic_format(edge: Edge) -> None:
    key = await _key(edge, {"mode": "off", "answers": "block"})
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{edge.url}/v1/messages",
            json={"model": "claude-test", "max_tokens": 200, "messages": [{"role": "user", "content": PII}]},
            headers={"x-api-key": key, "anthropic-version": "2023-06-01"},
        ) as r,
    ):
        body = await r.json()
    assert r.status == 502 and body["type"] == "error" and body["error"]["type"] == "api_error"
    assert EMAIL not in orjson.dumps(body).decode()


async def test_anthropic_stream_block_ends_with_an_error_event_the_sdk_raises(edge: Edge) -> None:
    key = await _key(edge, {"mode": "off", "answers": "block"})
    client = anthropic.AsyncAnthropic(base_url=edge.url, api_key=key, max_retries=0)
    got: list[str] = []
    with pytest.raises(anthropic.APIError):
        async with client.messages.stream(
            model="claude-test", max_tokens=200, messages=[{"role": "user", "content": PII}]
        ) as s:
            async for text in s.text_stream:
                got.append(text)
    assert EMAIL not in "".join(got) and "Garcia" not in "".join(got)


async def test_responses_stream_answer_redacted_through_the_sdk(edge: Edge, echo_provider: Any) -> None:
    """``responses.create(stream=True)`` under ``answers: redact``: the deltas the
    SDK accumulates and every event repeating the text (``*.done``, the final
    ``response``) carry placeholders, never the echoed values; sequence numbers
    stay consecutive; billed as completed."""
    key = await _key(edge, {"mode": "off", "answers": "redact"})
    raw = await _client(edge, key).responses.with_raw_response.create(
        model="gpt-4o-mini", input=PII, stream=True
    )
    request_id = raw.headers["x-request-id"]
    events = [e async for e in raw.parse()]
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    text = "".join(deltas)
    (done,) = [e.text for e in events if e.type == "response.output_text.done"]
    (final,) = [e.response for e in events if e.type == "response.completed"]
    for value in VALUES:
        assert value not in text and value not in done and value not in final.output_text
    assert "<EMAIL_ADDRESS_1>" in text and "<CREDIT_CARD_1>" in text and "<PERSON_1>" in text
    assert text.startswith("Please write to") and text.endswith("nothing else.")
    assert done == text == final.output_text  # the repeats say what the deltas delivered
    assert [e.sequence_number for e in events] == list(range(len(events)))
    (received,) = echo_provider.requests(request_id)
    assert EMAIL in orjson.dumps(received["body"]).decode()  # mode off: the provider got (and echoed) it
    completed = await _terminal(edge, request_id)
    assert completed["type"] == "completed" and completed["completion_tokens"] > 0


async def test_responses_stream_block_ends_with_the_error_event_and_is_billed(edge: Edge) -> None:
    key = await _key(edge, {"mode": "off", "answers": "block"})
    raw = await _client(edge, key).responses.with_raw_response.create(
        model="gpt-4o-mini", input=PII, stream=True
    )
    got: list[str] = []
    with pytest.raises(openai.APIError) as info:
        async for event in raw.parse():
            if event.type == "response.output_text.delta":
                got.append(event.delta)
    assert "answer_blocked" in str(info.value.body) or "personal data" in info.value.message
    text = "".join(got)
    assert EMAIL not in text and CARD not in text and "Garcia" not in text
    failed = await _terminal(edge, raw.headers["x-request-id"])
    assert failed["type"] == "failed" and failed["error_type"] == "answer_blocked"
    assert failed["completion_tokens"] > 0 and failed["cost_micro_usd"] > 0


async def test_held_text_is_released_scanned_when_the_provider_breaks_off(
    edge: Edge, echo_provider: Any
) -> None:
    """The provider drops the connection while the hold-back holds "Please write
    to Maria Garcia" (no sentence end yet): that text reaches the client,
    redacted, before the error event — not dropped."""
    echo_provider.set_faults({"model:fake-model": {"cut_after_chunks": 5}})
    key = await _key(edge, {"mode": "off", "answers": "redact"})
    raw = await _client(edge, key).chat.completions.with_raw_response.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": PII}], stream=True
    )
    got: list[str] = []
    with pytest.raises(openai.APIError) as info:
        async for chunk in raw.parse():
            got.extend(c.delta.content or "" for c in chunk.choices)
    assert "upstream_stream_error" in str(info.value.body) or "provider ended" in info.value.message
    text = "".join(got)
    assert text.startswith("Please write to <PERSON_1>") and "Garcia" not in text
    failed = await _terminal(edge, raw.headers["x-request-id"])
    assert failed["type"] == "failed" and failed["error_type"] == "upstream_stream_error"


@pytest.mark.parametrize("edge", ["$closed"], indirect=True)
@pytest.mark.parametrize("stream", [False, True])
async def test_an_answer_that_cannot_be_scanned_is_not_delivered(
    edge: Edge, echo_provider: Any, stream: bool
) -> None:
    """Fail closed: no redactor answers, so the answer (the PII echoed) never reaches the client; billed."""
    key = await _key(edge, {"mode": "off", "answers": "redact"})
    client = _client(edge, key)
    messages: Any = [{"role": "user", "content": PII}]
    if stream:
        raw = await client.chat.completions.with_raw_response.create(
            model="gpt-4o-mini", messages=messages, stream=True
        )
        request_id = raw.headers["x-request-id"]
        got: list[str] = []
        with pytest.raises(openai.APIError):
            async for chunk in raw.parse():
                got.extend(c.delta.content or "" for c in chunk.choices)
        assert EMAIL not in "".join(got)
    else:
        with pytest.raises(openai.APIStatusError) as info:
            await client.chat.completions.create(model="gpt-4o-mini", messages=messages)
        assert info.value.status_code == 503 and EMAIL not in info.value.response.text
        request_id = info.value.response.headers["x-request-id"]
    assert len(echo_provider.requests(request_id)) == 1  # the provider answered
    failed = await _terminal(edge, request_id)
    assert failed["type"] == "failed" and failed["error_type"] == "redaction_unavailable"
    assert failed["completion_tokens"] > 0


# --- the hold-back's property, against the real redactor ---------------------------------------

_WORDS = st.sampled_from(["the", "order", "ships", "soon", "ok", "thanks", "see", "you", "v2.1", "at"])
_PII = st.sampled_from(["ana.lee@example.org", "4111111111111111", "bo@example.com"])
_SEP = st.sampled_from([" ", " ", ", ", ". ", "\n"])


def _chunks(text: str, cuts: list[int]) -> bytes:
    """An OpenAI chunk stream of ``text`` split at ``cuts``, then finish and ``[DONE]``."""
    bounds = [0, *sorted({c for c in cuts if 0 < c < len(text)}), len(text)]
    out = b""
    for a, b in zip(bounds, bounds[1:], strict=False):
        choice = {"index": 0, "delta": {"content": text[a:b]}, "finish_reason": None}
        out += b"data: " + orjson.dumps({"id": "c", "object": "chat.completion.chunk", "choices": [choice]})
        out += b"\n\n"
    end = {"index": 0, "delta": {}, "finish_reason": "stop"}
    out += (
        b"data: " + orjson.dumps({"id": "c", "object": "chat.completion.chunk", "choices": [end]}) + b"\n\n"
    )
    return out + b"data: [DONE]\n\n"


class _Call:
    request_id = "property"
    redaction = None
    redaction_mapping = None

    def __init__(self, policy: RedactionPolicy) -> None:
        self.redaction_policy = policy

    def fail(self, *args: Any) -> None:
        raise AssertionError("not used")


async def _released(pool: RedactorPool, stream: bytes, reads: list[int], window: int) -> str:
    """The content the client receives when ``stream`` arrives in reads cut at ``reads``."""
    policy = RedactionPolicy(answers="redact", entity_types=["EMAIL_ADDRESS", "CREDIT_CARD"])
    scanner = StreamScanner(_Call(policy), pool, 10_000, window)  # type: ignore[arg-type]
    splitter = SSESplitter()
    bounds = [0, *sorted({r for r in reads if 0 < r < len(stream)}), len(stream)]
    out: list[SSEEvent] = []
    for a, b in zip(bounds, bounds[1:], strict=False):
        events = splitter.feed(stream[a:b])
        if events:
            out.extend(await scanner.scan(events))
    text = ""
    for e in out:
        obj = e.json()
        if isinstance(obj, dict):
            text += "".join(c.get("delta", {}).get("content") or "" for c in obj["choices"])
    return text


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    parts=st.lists(st.tuples(st.one_of(_WORDS, _PII), _SEP), min_size=1, max_size=30),
    cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=40),
    reads=st.lists(st.integers(min_value=0, max_value=6000), max_size=10),
    window=st.sampled_from([24, 64]),
)
def test_any_split_of_the_stream_releases_the_same_text(
    redactor: RedactorProcess, parts: list[tuple[str, str]], cuts: list[int], reads: list[int], window: int
) -> None:
    """Entities no longer than the window: the released text does not depend on
    how the provider's text is cut into deltas nor how its bytes arrive."""
    text = "".join(w + s for w, s in parts)

    async def run() -> tuple[str, str]:
        async with aiohttp.ClientSession() as http:
            pool = RedactorPool([redactor.url], http)
            whole = await _released(pool, _chunks(text, []), [], window)
            split = await _released(pool, _chunks(text, cuts), reads, window)
            return whole, split

    whole, split = asyncio.run(run())
    assert split == whole
    for value in (
        "ana.lee@example.org",
        "bo@example.com",
    ):  # (whether a card counts depends on its context words)
        assert value not in whole


def _responses_event(kind: str, seq: int, **data: Any) -> bytes:
    return (
        b"event: "
        + kind.encode()
        + b"\ndata: "
        + orjson.dumps({"type": kind, **data, "sequence_number": seq})
        + b"\n\n"
    )


async def test_responses_events_held_text_goes_before_the_done_and_repeats_are_scanned(
    redactor: RedactorProcess,
) -> None:
    """Held text released at ``output_text.done`` (a read later than the last
    delta) arrives in an inserted delta with the next sequence number; a
    function call's arguments that came in no delta are scanned in the repeat."""
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    args = orjson.dumps({"to": "ana.lee@example.org"}).decode()
    item = {"type": "function_call", "id": "fc_1", "name": "send", "arguments": args}
    reads = [
        _responses_event("response.output_text.delta", 0, **where, delta="Mail ana.lee@", logprobs=[]),
        _responses_event("response.output_text.delta", 1, **where, delta="example.org now", logprobs=[]),
        _responses_event("response.output_text.done", 2, **where, text="Mail ana.lee@example.org now")
        + _responses_event("response.output_item.done", 3, output_index=1, item=item),
    ]
    policy = RedactionPolicy(answers="redact", entity_types=["EMAIL_ADDRESS"])
    async with aiohttp.ClientSession() as http:
        scanner = StreamScanner(_Call(policy), RedactorPool([redactor.url], http), 10_000, 64)  # type: ignore[arg-type]
        splitter = SSESplitter()
        out: list[SSEEvent] = []
        for read in reads:
            out.extend(await scanner.scan(splitter.feed(read)))
    objs = [e.json() for e in out]
    assert [o["sequence_number"] for o in objs] == list(range(len(objs)))
    assert all(e.raw.startswith(b"event: " + o["type"].encode()) for e, o in zip(out, objs, strict=True))
    text = "".join(o["delta"] for o in objs if o["type"] == "response.output_text.delta")
    assert text == "Mail <EMAIL_ADDRESS_1> now"
    (done,) = [o for o in objs if o["type"] == "response.output_text.done"]
    assert done["text"] == text
    (item_done,) = [o for o in objs if o["type"] == "response.output_item.done"]
    assert orjson.loads(item_done["item"]["arguments"]) == {"to": "<EMAIL_ADDRESS_1>"}
    assert [o["type"] for o in objs].count("response.output_text.delta") == 3  # one inserted
