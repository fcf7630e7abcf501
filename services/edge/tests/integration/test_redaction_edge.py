"""Redaction on the edge's request path, end to end: client → edge → real
redactor processes (``python -m tollway_redactor``, shared Valkey cache) →
fake provider, asserting on what the provider received and on the usage events."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest
import pytest_asyncio
import yaml

from tollway_contracts.events import validate_produced
from tollway_edge.auth.principals import parse_redaction_policy
from tollway_edge.redaction import RedactorPool
from tollway_edge.settings import EdgeSettings
from tollway_edge.state import STATE
from tollway_testing.fake_provider import FakeProviderConfig

from .conftest import PEPPER, Edge, edge_catalogue, running_edge
from .principals_schema import create_principals_schema, upsert_key
from .redaction_support import (
    RedactorProcess,
    closed_port_url,
    leased_valkey_db,
    set_policy,
    slow_redactor,
    start_redactor,
)

pytestmark = pytest.mark.integration

NAME, EMAIL, PHONE, CARD = (
    "Maria Garcia",
    "maria.garcia@example.com",
    "+1 415 555 0134",
    "4111 1111 1111 1111",
)
VALUES = (NAME, EMAIL, "415 555 0134", CARD)
TYPES = {"PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD"}
PII = f"Hi, I'm {NAME}, reach me at {EMAIL} or {PHONE}; my card is {CARD}."
REDACT = {"mode": "redact"}


def _tool_call(arguments: str) -> dict[str, Any]:
    return {
        "id": "call_1",
        "type": "function",
        "function": {"name": "lookup_customer", "arguments": arguments},
    }


SHAPES: dict[str, list[dict[str, Any]]] = {
    "system": [{"role": "system", "content": PII}, {"role": "user", "content": "Hello."}],
    "user": [{"role": "user", "content": PII}],
    "assistant": [
        {"role": "user", "content": "Who is my contact?"},
        {"role": "assistant", "content": PII},
        {"role": "user", "content": "Thanks."},
    ],
    "content_parts": [
        {"role": "user", "content": [{"type": "text", "text": "Context:"}, {"type": "text", "text": PII}]}
    ],
    "tool_call_arguments": [
        {"role": "user", "content": "Look the customer up."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [_tool_call(json.dumps({"query": PII, "limit": 1}))],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "found"},
    ],
    "tool_result": [
        {"role": "user", "content": "Look the customer up."},
        {"role": "assistant", "content": None, "tool_calls": [_tool_call('{"id": 7}')]},
        {"role": "tool", "tool_call_id": "call_1", "content": PII},
    ],
}


@pytest_asyncio.fixture(scope="module")
async def redactors(
    valkey_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[list[RedactorProcess]]:
    """Two redactor processes (1 worker each) sharing one detection cache in a leased Valkey db."""
    log_dir = tmp_path_factory.mktemp("redactors")
    async with leased_valkey_db(valkey_url) as url:
        prefix = "test:edge-redaction:"
        procs = await asyncio.gather(
            start_redactor(url, prefix, log_dir), start_redactor(url, prefix, log_dir)
        )
        try:
            yield list(procs)
        finally:
            for p in procs:
                p.stop()


@pytest_asyncio.fixture
async def echo_provider(fake_provider_factory: Any) -> Any:
    """A fake provider answering with the last user message (word by word when streaming)."""
    return fake_provider_factory(FakeProviderConfig(echo=True, access_log=False))


@pytest_asyncio.fixture
async def redaction_edge(
    fresh_database: str,
    valkey_test_url: str,
    fresh_topic: Any,
    kafka_bootstrap_servers: str,
    echo_provider: Any,
    redactors: list[RedactorProcess],
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> AsyncIterator[Edge]:
    """An in-process edge whose models route to the echo provider, behind
    both redactors (settings overridable with indirect parametrisation;
    ``redactor_urls`` may name ``$0``/``$1`` for the running redactors and
    ``$closed`` for a port nothing listens on)."""
    overrides = dict(getattr(request, "param", {}) or {})
    await create_principals_schema(fresh_database)
    topic = await fresh_topic(partitions=1)
    catalogue = edge_catalogue(echo_provider.base_url, closed_port_url(), echo_provider.base_url)
    path = tmp_path / "catalogue.yaml"
    path.write_text(yaml.safe_dump(catalogue))
    urls = overrides.pop("redactor_urls", "$0,$1")
    for i, r in enumerate(redactors):
        urls = urls.replace(f"${i}", r.url)
    urls = urls.replace("$closed", closed_port_url())
    values: dict[str, Any] = {
        "postgres_dsn": fresh_database,
        "valkey_url": valkey_test_url,
        "kafka_bootstrap_servers": kafka_bootstrap_servers,
        "key_pepper": PEPPER,
        "catalogue_path": str(path),
        "usage_topic": topic,
        "log_format": "console",
        "redactor_urls": urls,
        "redaction_deadline_ms": 10_000,  # a shared 2-core machine; the deadline tests set their own
        "journal_dir": str(tmp_path / "journal"),
        "quota_url": "",
    }
    values.update(overrides)
    async with running_edge(EdgeSettings(**values), catalogue) as running:
        yield running


async def _key(edge: Edge, policy: dict[str, Any] | None, limits: list[dict[str, Any]] | None = None) -> str:
    """A key with ``policy`` (and admission ``limits``), visible to the edge before it is returned."""
    full, key_id, _ = await upsert_key(edge.dsn, PEPPER.encode(), limits=limits)
    await set_policy(edge.dsn, key_id, policy)
    snapshot = edge.app[STATE].snapshot
    # The snapshot holds parsed policies (``off`` as None): compare like with like.
    parsed = parse_redaction_policy(policy)
    expected = None if parsed.mode == "off" else parsed
    for _ in range(100):
        p = snapshot.by_key_id.get(key_id)
        if p is not None and p.redaction_policy == expected:
            break
        await asyncio.sleep(0.05)
    return full


async def _post(edge: Edge, key: str, messages: list[dict[str, Any]], **extra: Any) -> tuple[int, Any, str]:
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{edge.base_url}/chat/completions",
            json={"model": "gpt-4o-mini", "messages": messages, **extra},
            headers={"Authorization": f"Bearer {key}"},
        ) as r,
    ):
        raw = await r.read()
        body = raw if extra.get("stream") and r.status == 200 else orjson.loads(raw)
        return r.status, body, r.headers["x-request-id"]


def _stream_text(raw: bytes) -> tuple[str, list[str]]:
    deltas: list[str] = []
    for event in raw.split(b"\n\n"):
        if not event.startswith(b"data: ") or event == b"data: [DONE]":
            continue
        obj = orjson.loads(event[6:])
        for choice in obj.get("choices") or []:
            if choice.get("delta", {}).get("content"):
                deltas.append(choice["delta"]["content"])
    return "".join(deltas), deltas


def _terminal(events: list[dict[str, Any]]) -> dict[str, Any]:
    for e in events:
        validate_produced(e)
    (terminal,) = [e for e in events if e["type"] != "started"]
    return terminal


@pytest.mark.parametrize("shape", list(SHAPES))
async def test_no_raw_value_reaches_the_provider_in_any_message_shape(
    redaction_edge: Edge, echo_provider: Any, shape: str
) -> None:
    key = await _key(redaction_edge, REDACT)
    status, body, request_id = await _post(redaction_edge, key, SHAPES[shape])
    assert status == 200, body
    (received,) = echo_provider.requests(request_id)
    sent = orjson.dumps(received["body"]).decode()
    for value in VALUES:
        assert value not in sent
    for placeholder in ("<PERSON_1>", "<EMAIL_ADDRESS_1>", "<PHONE_NUMBER_1>", "<CREDIT_CARD_1>"):
        assert placeholder in sent
    if shape == "tool_call_arguments":  # arguments stay valid JSON, keys untouched
        args = json.loads(received["body"]["messages"][1]["tool_calls"][0]["function"]["arguments"])
        assert args["limit"] == 1 and "<PERSON_1>" in args["query"]
    done = _terminal(await redaction_edge.events({request_id}, 2))
    assert done["type"] == "completed"
    assert done["redaction"]["mode"] == "redact"
    assert set(done["redaction"]["entities"]) >= TYPES


async def test_block_refuses_with_400_naming_types_only(redaction_edge: Edge, echo_provider: Any) -> None:
    key = await _key(redaction_edge, {"mode": "block"})
    status, body, request_id = await _post(redaction_edge, key, SHAPES["user"])
    assert status == 400
    assert body["error"]["code"] == "pii_detected"
    message = body["error"]["message"]
    for t in TYPES:
        assert t in message
    for value in VALUES:
        assert value not in orjson.dumps(body).decode()
    assert echo_provider.requests(request_id) == []
    (failed,) = await redaction_edge.events({request_id}, 1)
    validate_produced(failed)
    assert (
        failed["type"] == "failed" and failed["status_code"] == 400 and failed["error_type"] == "pii_detected"
    )
    assert set(failed["redaction"]["entities"]) >= TYPES and failed["redaction"]["mode"] == "block"

    clean = [{"role": "user", "content": "What is the capital of France?"}]
    status, _, request_id = await _post(redaction_edge, key, clean)
    assert status == 200 and len(echo_provider.requests(request_id)) == 1


async def test_detect_forwards_unchanged_and_records_counts(redaction_edge: Edge, echo_provider: Any) -> None:
    key = await _key(redaction_edge, {"mode": "detect"})
    status, _, request_id = await _post(redaction_edge, key, SHAPES["user"])
    assert status == 200
    (received,) = echo_provider.requests(request_id)
    assert received["body"]["messages"][0]["content"] == PII
    done = _terminal(await redaction_edge.events({request_id}, 2))
    assert done["redaction"]["mode"] == "detect" and set(done["redaction"]["entities"]) >= TYPES
    assert done["redaction_language_policy"] == "supported"


async def test_policy_off_never_calls_the_redactor(redaction_edge: Edge, echo_provider: Any) -> None:
    key = await _key(redaction_edge, None)
    status, _, request_id = await _post(redaction_edge, key, SHAPES["user"])
    assert status == 200
    assert echo_provider.requests(request_id)[0]["body"]["messages"][0]["content"] == PII
    done = _terminal(await redaction_edge.events({request_id}, 2))
    assert done["redaction"] is None and done["redaction_language_policy"] is None


@pytest.mark.parametrize("redaction_edge", [{"redactor_urls": "$closed"}], indirect=True)
async def test_unreachable_redactor_fails_closed_with_503(redaction_edge: Edge, echo_provider: Any) -> None:
    key = await _key(redaction_edge, REDACT)
    ids = set()
    for stream in (False, True):
        status, body, request_id = await _post(redaction_edge, key, SHAPES["user"], stream=stream)
        assert status == 503
        assert body["error"]["code"] == "redaction_unavailable"
        assert echo_provider.requests(request_id) == []
        ids.add(request_id)
    failed = await redaction_edge.events(ids, 2)
    assert len(failed) == 2
    for event in failed:
        validate_produced(event)
        assert event["type"] == "failed" and event["status_code"] == 503
        assert event["error_type"] == "redaction_unavailable"
        assert event["redaction"]["mode"] == "redact" and event["redaction"]["entities"] == {}


@pytest.mark.parametrize("redaction_edge", [{"redactor_urls": "$closed"}], indirect=True)
async def test_a_redaction_refusal_gives_back_what_admission_reserved(
    redaction_edge: Edge, echo_provider: Any, redactors: list[RedactorProcess]
) -> None:
    limits = [{"scope": "key", "scope_id": "$key", "max_concurrent": 1, "tokens_per_minute": 1_000_000}]
    key = await _key(redaction_edge, REDACT, limits)
    ids = set()
    for _ in range(3):  # a leaked concurrency slot would turn the 2nd into a 429
        status, body, request_id = await _post(redaction_edge, key, SHAPES["user"])
        assert status == 503 and body["error"]["code"] == "redaction_unavailable"
        ids.add(request_id)
    state = redaction_edge.app[STATE]
    state.redaction.pool = RedactorPool([redactors[0].url], state.redaction._session)
    status, _, _ = await _post(redaction_edge, key, SHAPES["user"])
    assert status == 200
    for event in await redaction_edge.events(ids, 3):
        # quota settles the reservation to zero from this failed event (no tokens)
        assert event["type"] == "failed" and event["reservation"] and event["total_tokens"] is None


@pytest.mark.parametrize("redaction_edge", [{"redactor_urls": "$closed,$0"}], indirect=True)
async def test_connection_error_fails_over_to_the_next_redactor(
    redaction_edge: Edge, echo_provider: Any
) -> None:
    key = await _key(redaction_edge, REDACT)
    for _ in range(3):  # round-robin starts on each URL in turn; every call succeeds
        status, _, request_id = await _post(redaction_edge, key, SHAPES["user"])
        assert status == 200
        sent = orjson.dumps(echo_provider.requests(request_id)[0]["body"]).decode()
        assert EMAIL not in sent and "<EMAIL_ADDRESS_1>" in sent


async def test_killed_redactor_fails_closed(
    redaction_edge: Edge, echo_provider: Any, valkey_test_url: str, tmp_path: Path
) -> None:
    own = await start_redactor(valkey_test_url, "test:edge-redaction-kill:", tmp_path)
    try:
        state = redaction_edge.app[STATE]
        state.redaction.pool = RedactorPool([own.url], state.redaction._session)
        key = await _key(redaction_edge, REDACT)
        status, _, _ = await _post(redaction_edge, key, SHAPES["user"])
        assert status == 200
    finally:
        own.stop()
    status, body, request_id = await _post(redaction_edge, key, SHAPES["user"])
    assert status == 503 and body["error"]["code"] == "redaction_unavailable"
    assert echo_provider.requests(request_id) == []


@pytest.mark.parametrize("redaction_edge", [{"redaction_deadline_ms": 300}], indirect=True)
async def test_redactor_slower_than_the_deadline_fails_closed(
    redaction_edge: Edge, echo_provider: Any
) -> None:
    state = redaction_edge.app[STATE]
    key = await _key(redaction_edge, REDACT)
    async with slow_redactor(3.0) as slow_url:
        state.redaction.pool = RedactorPool([slow_url], state.redaction._session)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        status, body, request_id = await _post(redaction_edge, key, SHAPES["user"])
        assert loop.time() - t0 < 2.5  # refused at the deadline, not when the stub answers
    assert status == 503 and body["error"]["code"] == "redaction_unavailable"
    assert echo_provider.requests(request_id) == []


@pytest.mark.parametrize("redaction_edge", [{"redaction_deadline_ms": 1}], indirect=True)
async def test_one_ms_deadline_against_the_real_redactor_fails_closed(
    redaction_edge: Edge, echo_provider: Any
) -> None:
    key = await _key(redaction_edge, REDACT)
    status, body, request_id = await _post(redaction_edge, key, SHAPES["user"])
    assert status == 503 and body["error"]["code"] == "redaction_unavailable"
    assert echo_provider.requests(request_id) == []


REVERSIBLE = {"mode": "redact", "reversible": True}


async def test_reversible_restores_values_in_a_plain_answer(redaction_edge: Edge, echo_provider: Any) -> None:
    key = await _key(redaction_edge, REVERSIBLE)
    status, body, request_id = await _post(redaction_edge, key, SHAPES["user"])
    assert status == 200
    sent = echo_provider.requests(request_id)[0]["body"]["messages"][0]["content"]
    assert NAME not in sent and "<PERSON_1>" in sent
    answer = body["choices"][0]["message"]["content"]
    assert answer == " ".join(PII.split())  # the echo, with every original value back
    assert "<" not in answer


async def test_reversible_restores_values_in_a_stream(redaction_edge: Edge, echo_provider: Any) -> None:
    key = await _key(redaction_edge, REVERSIBLE)
    status, raw, request_id = await _post(
        redaction_edge, key, SHAPES["user"], stream=True, stream_options={"include_usage": True}
    )
    assert status == 200
    sent = echo_provider.requests(request_id)[0]["body"]["messages"][0]["content"]
    assert EMAIL not in sent and "<EMAIL_ADDRESS_1>" in sent
    text, deltas = _stream_text(raw)
    assert text == " ".join(PII.split())
    assert len(deltas) == len(sent.split())  # relayed as the provider sent it, word by word
    assert "Maria Garcia," in deltas[2]  # a whole placeholder restored within its own chunk
    assert raw.endswith(b"data: [DONE]\n\n")
    assert b'"usage"' in raw
    done = _terminal(await redaction_edge.events({request_id}, 2))
    assert done["type"] == "completed" and done["redaction"]["mode"] == "redact"


async def test_two_redactors_share_load_and_cache(
    redaction_edge: Edge, echo_provider: Any, redactors: list[RedactorProcess]
) -> None:
    key = await _key(redaction_edge, REVERSIBLE)
    before = [r.served() for r in redactors]
    ids = []
    conversation = [{"role": "system", "content": "You help customers."}]
    for i in range(4):
        conversation.append({"role": "user", "content": f"Turn {i}: {PII}"})
        status, body, request_id = await _post(redaction_edge, key, conversation)
        assert status == 200
        ids.append(request_id)
        conversation.append({"role": "assistant", "content": body["choices"][0]["message"]["content"]})
        await asyncio.sleep(0.3)  # let the fire-and-forget priming of the answer land
    for _ in range(50):
        after = [r.served() for r in redactors]
        if all(a > b for a, b in zip(after, before, strict=True)):
            break
        await asyncio.sleep(0.1)
    assert all(a > b for a, b in zip(after, before, strict=True)), (before, after)  # both served calls
    # The same conversation again: every text is in the shared cache, whichever process answers.
    status, _, again = await _post(redaction_edge, key, conversation[:-1])
    assert status == 200
    events = await redaction_edge.events({*ids, again}, 2 * (len(ids) + 1))
    by_id = {e["request_id"]: e for e in events if e["type"] == "completed"}
    assert by_id[again]["redaction"]["cache_hit"] is True
    assert by_id[again]["redaction"]["cached_texts"] == by_id[again]["redaction"]["total_texts"] > 1
    # Turn 2+ sent back the previous (restored) answer: served from the cache thanks to priming.
    later = by_id[ids[2]]["redaction"]
    assert later["cached_texts"] >= later["total_texts"] - 1


# --- issue 11: the redactor's definitive answers, the language policy ----------------


async def _post_headers(
    edge: Edge, key: str, messages: list[dict[str, Any]]
) -> tuple[int, Any, str, dict[str, str]]:
    """As :func:`_post` (non-stream), with the response headers."""
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{edge.base_url}/chat/completions",
            json={"model": "gpt-4o-mini", "messages": messages},
            headers={"Authorization": f"Bearer {key}"},
        ) as r,
    ):
        return r.status, orjson.loads(await r.read()), r.headers["x-request-id"], dict(r.headers)


async def _settled_count(redactors: list[RedactorProcess], status: int, at_least: int) -> int:
    """Requests the redactors answered with ``status`` once their logs show ``at_least`` (≤ 5 s)."""
    total = 0
    for _ in range(50):
        total = sum(r.answered(status) for r in redactors)
        if total >= at_least:
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.3)  # a failover would show up by now
    return sum(r.answered(status) for r in redactors)


async def test_a_prompt_past_the_redactors_maximum_is_a_413_without_retry_or_failover(
    redaction_edge: Edge, echo_provider: Any, redactors: list[RedactorProcess]
) -> None:
    key = await _key(redaction_edge, REDACT)
    before = sum(r.answered(413) for r in redactors)
    huge = "lorem ipsum " * 175_000  # 2.1 M characters: past the redactor's MAX_TOTAL_CHARS (2 M)
    status, body, request_id, headers = await _post_headers(
        redaction_edge, key, [{"role": "user", "content": huge}]
    )
    assert status == 413, body
    assert body["error"]["code"] == "redaction_request_too_large"
    assert body["error"]["type"] == "invalid_request_error"
    assert "Retry-After" not in headers and headers.get("x-should-retry") == "false"
    assert echo_provider.requests(request_id) == []
    assert await _settled_count(redactors, 413, before + 1) == before + 1  # one redactor asked, no failover
    (failed,) = await redaction_edge.events({request_id}, 1)
    validate_produced(failed)
    assert failed["type"] == "failed" and failed["status_code"] == 413
    assert failed["error_type"] == "redaction_request_too_large" and failed["redaction"]["mode"] == "redact"


async def test_a_policy_the_redactor_rejects_fails_closed_without_retry_advice(
    redaction_edge: Edge, echo_provider: Any, redactors: list[RedactorProcess]
) -> None:
    key = await _key(redaction_edge, {"mode": "redact", "entity_types": ["NO_SUCH_ENTITY"]})
    before = sum(r.answered(400) for r in redactors)
    status, body, request_id, headers = await _post_headers(redaction_edge, key, SHAPES["user"])
    assert status == 502, body
    assert body["error"]["code"] == "redaction_rejected" and body["error"]["type"] == "api_error"
    assert "unknown_entity_type" in body["error"]["message"]
    assert "Retry-After" not in headers and headers.get("x-should-retry") == "false"
    assert echo_provider.requests(request_id) == []
    assert await _settled_count(redactors, 400, before + 1) == before + 1  # no failover loop
    (failed,) = await redaction_edge.events({request_id}, 1)
    validate_produced(failed)
    assert failed["type"] == "failed" and failed["status_code"] == 502
    assert failed["error_type"] == "redaction_rejected"


JAPANESE_NAME = "山田太郎"
JAPANESE = [
    {
        "role": "user",
        "content": f"Please write a short thank-you note to my colleague {JAPANESE_NAME} for his help with the report.",
    }
]


@pytest.mark.parametrize("mode", ["redact", "block"])
async def test_language_policy_block_refuses_an_uncovered_script(
    redaction_edge: Edge, echo_provider: Any, mode: str
) -> None:
    key = await _key(redaction_edge, {"mode": mode, "unsupported_language": "block"})
    status, body, request_id, headers = await _post_headers(redaction_edge, key, JAPANESE)
    assert status == 400, body
    assert body["error"]["code"] == "unsupported_language"
    assert "unsupported_language: block" in body["error"]["message"]
    assert JAPANESE_NAME not in orjson.dumps(body).decode()
    assert "Retry-After" not in headers
    assert echo_provider.requests(request_id) == []
    (failed,) = await redaction_edge.events({request_id}, 1)
    validate_produced(failed)
    assert failed["type"] == "failed" and failed["status_code"] == 400
    assert failed["error_type"] == "unsupported_language"
    assert failed["redaction_language_policy"] == "block"


async def test_language_policy_patterns_only_passes_the_name(
    redaction_edge: Edge, echo_provider: Any
) -> None:
    key = await _key(redaction_edge, {"mode": "redact", "unsupported_language": "patterns_only"})
    status, body, request_id, _ = await _post_headers(redaction_edge, key, JAPANESE)
    assert status == 200, body
    (received,) = echo_provider.requests(request_id)
    assert JAPANESE_NAME in received["body"]["messages"][0]["content"]
    done = _terminal(await redaction_edge.events({request_id}, 2))
    assert done["type"] == "completed" and done["redaction"]["mode"] == "redact"
    assert done["redaction_language_policy"] == "patterns_only"  # reported, never silent


# --- issue 11: every field of the body, every endpoint ----------------------


def _tool(description: str = "Looks a customer up.", **prop: Any) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": "lookup_customer",
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string", **prop}},
                "required": ["query"],
            },
        },
    }


_USER = [{"role": "user", "content": "Hello."}]
# Each case plants PII in one field of the chat request (issue 11's list, then
# the other string fields of CreateChatCompletionRequest): (messages, extra fields).
FIELD_CASES: dict[str, tuple[list[dict[str, Any]], dict[str, Any]]] = {
    "tools.function.description": (_USER, {"tools": [_tool(PII)]}),
    "tools.function.parameters.description": (_USER, {"tools": [_tool(description=PII)]}),
    "tools.function.parameters.enum": (_USER, {"tools": [_tool(enum=[PII, "someone else"])]}),
    "functions.description": (_USER, {"functions": [{"name": "f", "description": PII, "parameters": {}}]}),
    "response_format.json_schema": (
        _USER,
        {
            "response_format": {
                "type": "json_schema",
                "json_schema": {
                    "name": "contact",
                    "description": PII,
                    "schema": {
                        "type": "object",
                        "properties": {"who": {"type": "string", "examples": [PII]}},
                    },
                },
            }
        },
    ),
    "user": (_USER, {"user": PII}),
    "safety_identifier": (_USER, {"safety_identifier": PII}),
    "metadata": (_USER, {"metadata": {"customer": PII}}),
    "prediction.content": (_USER, {"prediction": {"type": "content", "content": PII}}),
    "prediction.content.parts": (
        _USER,
        {"prediction": {"type": "content", "content": [{"type": "text", "text": PII}]}},
    ),
    "stop": (_USER, {"stop": [PII]}),
    "input_text.part": ([{"role": "user", "content": [{"type": "input_text", "text": PII}]}], {}),
    "messages.name": (
        [{"role": "user", "name": NAME, "content": f"Mail me at {EMAIL} or {PHONE}, card {CARD}."}],
        {},
    ),
    "messages.refusal": ([*_USER, {"role": "assistant", "content": None, "refusal": PII}, *_USER], {}),
    "web_search_options.user_location": (
        _USER,
        {"web_search_options": {"user_location": {"type": "approximate", "approximate": {"city": PII}}}},
    ),
    "unknown_field": (_USER, {"x_vendor_note": PII}),
    "unknown_object": (_USER, {"x_vendor": {"contact": {"who": PII}}}),
    "metadata.key": (_USER, {"metadata": {f"{NAME} {EMAIL}": "vip"}}),
}


@pytest.mark.parametrize("case", list(FIELD_CASES))
async def test_pii_in_every_field_is_redacted(redaction_edge: Edge, echo_provider: Any, case: str) -> None:
    messages, extra = FIELD_CASES[case]
    key = await _key(redaction_edge, REDACT)
    status, body, request_id = await _post(redaction_edge, key, messages, **extra)
    assert status == 200, body
    (received,) = echo_provider.requests(request_id)
    sent = orjson.dumps(received["body"]).decode()
    for value in VALUES:
        assert value not in sent, (case, value)
    assert "<PERSON_1>" in sent or "<EMAIL_ADDRESS_1>" in sent
    if case.startswith("tools"):  # the schema's structure is untouched
        params = received["body"]["tools"][0]["function"]["parameters"]
        assert params["required"] == ["query"] and params["properties"]["query"]["type"] == "string"


@pytest.mark.parametrize("case", list(FIELD_CASES))
async def test_pii_in_every_field_is_blocked(redaction_edge: Edge, echo_provider: Any, case: str) -> None:
    messages, extra = FIELD_CASES[case]
    key = await _key(redaction_edge, {"mode": "block"})
    status, body, request_id = await _post(redaction_edge, key, messages, **extra)
    assert status == 400 and body["error"]["code"] == "pii_detected", body
    assert echo_provider.requests(request_id) == []


async def test_unscannable_and_malformed_bodies_send_nothing(
    redaction_edge: Edge, echo_provider: Any
) -> None:
    key = await _key(redaction_edge, REDACT)
    file_part = [
        {
            "role": "user",
            "content": [{"type": "file", "file": {"file_data": "JVBERi0xLjQK", "filename": "a.pdf"}}],
        }
    ]
    cases: list[tuple[list[dict[str, Any]], dict[str, Any], str, str | None]] = [
        (file_part, {}, "unscannable_content", "/messages/0/content/0/file"),
        ([{"role": "user", "content": {"text": PII}}], {}, "invalid_type", "messages[0].content"),
        (_USER, {"tools": "lookup_customer"}, "invalid_type", "tools"),
        (
            [
                *_USER,
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "c", "type": "function", "function": {"name": "f", "arguments": {"q": PII}}}
                    ],
                },
            ],
            {},
            "invalid_type",
            "messages[1].tool_calls[0].function.arguments",
        ),
        (_USER, {"x": json.loads("[" * 200 + "]" * 200)}, "nesting_too_deep", None),
    ]
    for messages, extra, code, param in cases:
        status, body, request_id = await _post(redaction_edge, key, messages, **extra)
        assert (status, body["error"]["code"], body["error"]["param"]) == (400, code, param), body
        assert echo_provider.requests(request_id) == []


async def test_unknown_fields_refuse_policy(redaction_edge: Edge, echo_provider: Any) -> None:
    key = await _key(redaction_edge, {"mode": "redact", "unknown_fields": "refuse"})
    status, body, request_id = await _post(redaction_edge, key, _USER, x_vendor_note="note")
    assert (status, body["error"]["code"], body["error"]["param"]) == (400, "unknown_field", "/x_vendor_note")
    assert echo_provider.requests(request_id) == []
    status, _, request_id = await _post(redaction_edge, key, _USER, user="u-1")  # known fields pass
    assert status == 200 and len(echo_provider.requests(request_id)) == 1


async def test_deeply_nested_tool_arguments_are_one_text(redaction_edge: Edge, echo_provider: Any) -> None:
    """Issue 11: 5,000-deep JSON in ``arguments`` was a 500 (RecursionError)."""
    key = await _key(redaction_edge, REDACT)
    arguments = '{"a":' * 5000 + json.dumps(PII) + "}" * 5000
    messages = [
        *_USER,
        {"role": "assistant", "content": None, "tool_calls": [_tool_call(arguments)]},
        {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
    ]
    status, body, request_id = await _post(redaction_edge, key, messages)
    assert status == 200, body
    (received,) = echo_provider.requests(request_id)
    sent = orjson.dumps(received["body"]).decode()
    for value in VALUES:
        assert value not in sent


async def _post_api(edge: Edge, key: str, path: str, payload: dict[str, Any]) -> tuple[int, Any, str]:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{edge.base_url}{path}", json=payload, headers={"Authorization": f"Bearer {key}"}) as r,
    ):
        return r.status, orjson.loads(await r.read()), r.headers["x-request-id"]


API_CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "completions": (
        "/completions",
        {"model": "gpt-3.5-turbo-instruct", "prompt": [PII], "suffix": PII, "user": PII},
    ),
    "embeddings": ("/embeddings", {"model": "text-embedding-3-small", "input": [PII, "other"]}),
    "moderations": ("/moderations", {"input": [{"type": "text", "text": PII}]}),
    "responses": (
        "/responses",
        {
            "model": "gpt-4o-mini",
            "instructions": PII,
            "input": [{"role": "user", "content": [{"type": "input_text", "text": PII}]}],
            "metadata": {"customer": PII},
        },
    ),
}


@pytest.mark.parametrize("api", list(API_CASES))
async def test_other_endpoints_are_redacted_and_blocked(
    redaction_edge: Edge, echo_provider: Any, api: str
) -> None:
    path, payload = API_CASES[api]
    key = await _key(redaction_edge, REDACT)
    status, body, request_id = await _post_api(redaction_edge, key, path, payload)
    assert status == 200, body
    (received,) = echo_provider.requests(request_id)
    sent = orjson.dumps(received["body"]).decode()
    for value in VALUES:
        assert value not in sent, value
    assert "<PERSON_1>" in sent
    key = await _key(redaction_edge, {"mode": "block"})
    status, body, request_id = await _post_api(redaction_edge, key, path, payload)
    assert status == 400 and body["error"]["code"] == "pii_detected", body
    assert echo_provider.requests(request_id) == []


async def test_reversible_restores_completions_and_responses(
    redaction_edge: Edge, echo_provider: Any
) -> None:
    """The echo provider answers with the (redacted) prompt; the client gets the originals back."""
    key = await _key(redaction_edge, {"mode": "redact", "reversible": True})
    prompt = f"Write to {NAME} at {EMAIL} today"
    status, body, request_id = await _post_api(
        redaction_edge,
        key,
        "/completions",
        {"model": "gpt-3.5-turbo-instruct", "prompt": prompt, "max_tokens": 50},
    )
    assert status == 200, body
    assert NAME not in orjson.dumps(echo_provider.requests(request_id)[0]["body"]).decode()
    assert NAME in body["choices"][0]["text"] and EMAIL in body["choices"][0]["text"]

    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{redaction_edge.base_url}/completions",
            json={"model": "gpt-3.5-turbo-instruct", "prompt": prompt, "max_tokens": 50, "stream": True},
            headers={"Authorization": f"Bearer {key}"},
        ) as r,
    ):
        raw = await r.read()
        assert r.status == 200
    texts = [
        c["text"]
        for e in raw.split(b"\n\n")
        if e.startswith(b"data: {")
        for c in orjson.loads(e[6:]).get("choices") or []
        if isinstance(c.get("text"), str)
    ]
    streamed = "".join(texts)
    assert NAME in streamed and EMAIL in streamed and "<PERSON_1>" not in streamed

    status, body, request_id = await _post_api(
        redaction_edge, key, "/responses", {"model": "gpt-4o-mini", "input": prompt}
    )
    assert status == 200, body
    assert NAME not in orjson.dumps(echo_provider.requests(request_id)[0]["body"]).decode()
    answer = "".join(p.get("text", "") for item in body["output"] for p in item.get("content") or [])
    assert NAME in answer and EMAIL in answer


async def test_anthropic_messages_redacted_blocked_and_restored(
    redaction_edge: Edge, echo_provider: Any
) -> None:
    """POST /v1/messages walks Anthropic's shapes (system blocks, tools, tool_use
    input, tool_result, documents, metadata) instead of refusing redacting keys."""
    payload = {
        "model": "claude-test",
        "max_tokens": 60,
        "system": [{"type": "text", "text": f"You help {NAME}."}],
        "metadata": {"user_id": EMAIL},
        "tools": [{"name": "lookup", "description": f"Finds {NAME}", "input_schema": {"type": "object"}}],
        "messages": [
            {"role": "user", "content": "Look me up."},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "tu_1", "name": "lookup", "input": {"q": PII}}],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "tu_1", "content": f"found {EMAIL}"},
                    {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": PII}},
                    {"type": "text", "text": f"Write to {NAME} at {EMAIL} today"},
                ],
            },
        ],
    }
    key = await _key(redaction_edge, {"mode": "redact", "reversible": True})
    status, body, request_id = await _post_api(redaction_edge, key, "/messages", payload)
    assert status == 200, body
    sent = orjson.dumps(echo_provider.requests(request_id)[0]["body"]).decode()
    for value in VALUES:
        assert value not in sent, value
    answer = "".join(b.get("text", "") for b in body["content"])
    assert NAME in answer and EMAIL in answer  # the echo of the placeholders, restored

    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{redaction_edge.base_url}/messages",
            json={**payload, "stream": True},
            headers={"Authorization": f"Bearer {key}"},
        ) as r,
    ):
        raw = await r.read()
        assert r.status == 200
    streamed = ""
    for e in raw.split(b"\n\n"):
        if e.startswith(b"event: content_block_delta\n"):
            streamed += orjson.loads(e.split(b"data: ", 1)[1])["delta"].get("text", "")
    assert NAME in streamed and EMAIL in streamed and "<PERSON_1>" not in streamed

    key = await _key(redaction_edge, {"mode": "block"})
    status, body, request_id = await _post_api(redaction_edge, key, "/messages", payload)
    assert status == 400 and body["type"] == "error", body
    assert echo_provider.requests(request_id) == []


async def test_count_tokens_sends_nothing_unscanned(redaction_edge: Edge, echo_provider: Any) -> None:
    payload = {
        "model": "claude-test",
        "system": f"You help {NAME}.",
        "messages": [{"role": "user", "content": PII}],
    }
    key = await _key(redaction_edge, REDACT)
    status, body, request_id = await _post_api(redaction_edge, key, "/messages/count_tokens", payload)
    assert status == 200 and body["input_tokens"] > 0, body
    (received,) = echo_provider.requests(request_id)
    sent = orjson.dumps(received["body"]).decode()
    for value in VALUES:
        assert value not in sent, value
    key = await _key(redaction_edge, {"mode": "block"})
    status, body, request_id = await _post_api(redaction_edge, key, "/messages/count_tokens", payload)
    assert status == 400 and body["type"] == "error", body
    assert echo_provider.requests(request_id) == []


async def test_response_cache_holds_placeholders_and_restores_each_callers_values(
    redaction_edge: Edge, echo_provider: Any
) -> None:
    """The exact response cache under a reversible policy: the entry is the answer
    to the redacted body (placeholders, no value the policy removed), and a hit is
    restored with the hitting call's own values."""
    from tollway_admission import valkey_client

    full, key_id, _ = await upsert_key(
        redaction_edge.dsn, PEPPER.encode(), tenant_id="tenant-rc", response_cache_ttl_seconds=60
    )
    await set_policy(redaction_edge.dsn, key_id, REVERSIBLE)
    snapshot = redaction_edge.app[STATE].snapshot
    for _ in range(100):
        p = snapshot.by_key_id.get(key_id)
        if p is not None and p.redaction_policy is not None:
            break
        await asyncio.sleep(0.05)

    async def post(text: str) -> tuple[str | None, str, str]:
        async with (
            aiohttp.ClientSession() as http,
            http.post(
                f"{redaction_edge.base_url}/chat/completions",
                json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": text}]},
                headers={"Authorization": f"Bearer {full}"},
            ) as r,
        ):
            assert r.status == 200
            body = orjson.loads(await r.read())
            return (
                r.headers.get("x-tollway-cache"),
                body["choices"][0]["message"]["content"],
                r.headers["x-request-id"],
            )

    first = await post(PII)
    second = await post(PII)
    assert (first[0], second[0]) == ("miss", "hit")
    assert first[1] == second[1] == " ".join(PII.split())  # restored on the hit too
    assert echo_provider.requests(second[2]) == []  # the hit reached no provider

    # a streamed miss is stored from its chunks, before restoration, too
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{redaction_edge.base_url}/chat/completions",
            json={
                "model": "gpt-4o-mini",
                "messages": [{"role": "user", "content": PII + " Thanks."}],
                "stream": True,
            },
            headers={"Authorization": f"Bearer {full}"},
        ) as r,
    ):
        assert r.status == 200 and r.headers["x-tollway-cache"] == "miss"
        text, _ = _stream_text(await r.read())
    assert text == " ".join((PII + " Thanks.").split())

    valkey = valkey_client(redaction_edge.valkey_url)
    try:
        keys = [k async for k in valkey.scan_iter(match="tw:rc:v1:tenant-rc:*")]
        assert len(keys) == 2
        entries = [await valkey.get(k) for k in keys]
    finally:
        await valkey.aclose()
    for stored in entries:
        assert b"<PERSON_1>" in stored and b"<EMAIL_ADDRESS_1>" in stored
        for value in VALUES:
            assert value.encode() not in stored  # no text the policy removed
