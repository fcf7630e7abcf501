"""The redactor never answers 500 (issue 11): hypothesis drives ``POST /v1/redact``
over HTTP with arbitrary text (sizes, unicode, control characters, lone
surrogates as escaped JSON) and odd body shapes, against the real models
and a leased Valkey db. Also: 413 in OpenAI's format past the limits, and the
language fields of the answer.

Hypothesis generates the inputs (a sync ``@given`` collects them); the async
test sends them to the one server of the module, so the model loads once.
A failure names the body that caused it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import orjson
import pytest
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tollway_contracts.redaction import REDACTION_TOO_LARGE_CODE, RedactResponse
from tollway_redactor.app import POOL, create_app
from tollway_redactor.settings import RedactorSettings
from tollway_testing.pytest_plugin import leased_valkey_db

pytestmark = pytest.mark.integration

MAX_TOTAL_CHARS = 400_000
MAX_BODY_BYTES = 4 * 1024 * 1024


def examples(strategy: st.SearchStrategy[Any], n: int) -> list[Any]:
    """``n`` inputs drawn by hypothesis (generation phase only)."""
    out: list[Any] = []

    @settings(
        max_examples=n,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(value: Any) -> None:
        out.append(value)

    collect()
    return out


@pytest.fixture(scope="module")
async def client(valkey_url: str) -> AsyncIterator[TestClient]:
    async with leased_valkey_db(valkey_url) as url:
        app = create_app(
            RedactorSettings(
                workers=1,
                valkey_url=url,
                window_chars=2_000,
                window_overlap_chars=200,
                max_total_chars=MAX_TOTAL_CHARS,
                max_body_bytes=MAX_BODY_BYTES,
            )
        )
        client = TestClient(TestServer(app, host="127.0.0.1"))
        await client.start_server()
        await app[POOL].wait_ready(timeout=180)
        yield client
        await client.close()


PII = [
    "Jane Roe",
    "山田太郎",
    "jane.roe@example.com",
    "+1 415 555 0134",
    "2221 0000 0000 0009",
    "4000000000000000006",
    "DE89 3704 0044 0532 0130 00",
    "ORD-2024-000123",
    "Tel.",
    "221B Baker Street",
]
any_char = st.characters(exclude_categories=("Cs",))  # lone surrogates cannot be str -> JSON; see below
chunk = st.one_of(
    st.text(any_char, max_size=40), st.sampled_from(PII), st.sampled_from([" ", "\n", "\x00", "\u200b"])
)
texts = st.one_of(
    st.lists(chunk, max_size=12).map("".join),
    st.builds(
        lambda c, n: c * n, st.lists(chunk, min_size=1, max_size=4).map(" ".join), st.integers(1, 4_000)
    ),
)
policies = st.fixed_dictionaries(
    {"mode": st.sampled_from(["off", "detect", "redact", "block"])},
    optional={
        "entity_types": st.one_of(
            st.none(),
            st.lists(
                st.sampled_from(["PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "NOPE"]),
                max_size=4,
            ),
        ),
        "score_threshold": st.one_of(st.none(), st.floats(0, 1)),
        "unsupported_language": st.one_of(st.none(), st.sampled_from(["block", "patterns_only", "pass"])),
        "reversible": st.booleans(),
    },
)
requests = st.fixed_dictionaries(
    {
        "policy": policies,
        "texts": st.lists(
            st.fixed_dictionaries({"id": st.text(min_size=1, max_size=8), "text": texts}), max_size=5
        ),
    }
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


def _check_answer(request_body: dict[str, Any], answer: dict[str, Any]) -> None:
    parsed = msgspec.convert(answer, RedactResponse)
    assert len(parsed.results) == len(request_body["texts"])
    for item, result in zip(request_body["texts"], parsed.results, strict=True):
        text = item["text"]
        rebuilt, cursor = [], 0
        for d in result.detections:
            assert cursor <= d.start < d.end <= len(text)
            rebuilt += [text[cursor : d.start], d.placeholder]
            cursor = d.end
        rebuilt.append(text[cursor:])
        assert "".join(rebuilt) == result.anonymized_text  # text between detections untouched


async def test_arbitrary_requests_never_500(client):
    cases = examples(requests, 60)
    assert len(cases) >= 30
    for body in cases:
        raw = orjson.dumps(body)
        resp = await client.post("/v1/redact", data=raw, headers={"Content-Type": "application/json"})
        payload = await resp.json()
        assert resp.status in (200, 400, 413), (resp.status, payload, raw[:2_000])
        if resp.status == 200:
            _check_answer(body, payload)
        elif resp.status == 400:
            assert payload["error"]["code"] == "unknown_entity_type" and "NOPE" in payload["error"]["message"]
        elif resp.status == 413:
            assert payload["error"]["code"] == REDACTION_TOO_LARGE_CODE


async def test_odd_shapes_and_bytes_are_400_never_500(client):
    bodies = [json.dumps(v).encode() for v in examples(json_values, 40)]  # stdlib: ints past 64 bits too
    bodies += examples(st.binary(max_size=200), 20)
    bodies += [
        b'{"policy": {"mode": "redact"}, "texts": [{"id": "a", "text": "lone \\ud800 surrogate"}]}',
        b'{"policy": {"mode": "redact"}, "texts": [{"id": "a", "text": "\\udfff"}]}',
        b'{"policy": {"mode": "redact"}, "texts": [{"id": "a", "text": {"nested": "object"}}]}',
        b'{"policy": {"mode": "redact"}, "texts": "a string"}',
        b"[" * 5_000 + b"]" * 5_000,
        b"",
    ]
    for raw in bodies:
        resp = await client.post("/v1/redact", data=raw, headers={"Content-Type": "application/json"})
        assert resp.status in (200, 400), (resp.status, raw[:500])
        if resp.status == 400:
            assert (await resp.json())["error"]["code"] == "invalid_redaction_request"


async def test_unknown_entity_type_is_400_not_500(client):
    body = {
        "policy": {"mode": "redact", "entity_types": ["EMAIL_ADDRESS", "NOPE"]},
        "texts": [{"id": "a", "text": "x"}],
    }
    resp = await client.post("/v1/redact", json=body)
    assert resp.status == 400
    assert (await resp.json())["error"]["code"] == "unknown_entity_type"


async def test_past_the_limits_is_413_in_openai_format(client):
    body = {"policy": {"mode": "redact"}, "texts": [{"id": "a", "text": "x" * (MAX_TOTAL_CHARS + 1)}]}
    resp = await client.post("/v1/redact", json=body)
    assert resp.status == 413
    error = (await resp.json())["error"]
    assert error["code"] == REDACTION_TOO_LARGE_CODE and error["type"] == "invalid_request_error"
    raw = json.dumps({"policy": {"mode": "redact"}, "texts": [{"id": "a", "text": "é" * MAX_BODY_BYTES}]})
    resp = await client.post("/v1/redact", data=raw.encode(), headers={"Content-Type": "application/json"})
    assert resp.status == 413
    assert (await resp.json())["error"]["code"] == REDACTION_TOO_LARGE_CODE


async def test_long_text_up_to_the_maximum_is_analysed_in_windows(client):
    text = ("lorem ipsum dolor sit amet " * 14_000)[: MAX_TOTAL_CHARS - 60] + " card 2221 0000 0000 0009 end"
    body = {
        "policy": {"mode": "redact", "entity_types": ["CREDIT_CARD"]},
        "texts": [{"id": "a", "text": text}],
    }
    resp = await client.post("/v1/redact", json=body)
    assert resp.status == 200
    result = (await resp.json())["results"][0]
    assert result["anonymized_text"].endswith(" card <CREDIT_CARD_1> end")


async def test_answer_reports_language_and_policy_and_the_cache_keeps_them(client):
    texts = [
        {"id": "en", "text": "Please tell 山田太郎 that the meeting moved to Thursday afternoon."},
        {"id": "fr", "text": "Bonjour, je m'appelle Lucas Chevalier et je voudrais résilier mon abonnement."},
        {"id": "short", "text": "ok"},
    ]
    body = {"policy": {"mode": "redact", "unsupported_language": "block"}, "texts": texts}
    for attempt in range(2):
        resp = await client.post("/v1/redact", json=body)
        answer = await resp.json()
        assert resp.status == 200
        got = {
            r["id"]: (r["language"], r["language_policy"], r["anonymized_text"]) for r in answer["results"]
        }
        assert got["en"] == (
            "en",
            "block",
            "Please tell <UNSUPPORTED_LANGUAGE_1> that the meeting moved to Thursday afternoon.",
        )
        assert got["fr"][:2] == ("fr", "supported") and "Lucas Chevalier" not in got["fr"][2]
        assert got["short"][:2] == (None, "supported")
        assert answer["supported_languages"] == ["en", "fr"]
        assert answer["cache"]["hits"] == (0 if attempt == 0 else 3)
    body["policy"]["unsupported_language"] = "patterns_only"
    answer = await (await client.post("/v1/redact", json=body)).json()
    assert answer["cache"]["hits"] == 0  # another policy, another cache scope
    assert answer["results"][0]["language_policy"] == "patterns_only"
    assert "山田太郎" in answer["results"][0]["anonymized_text"]
