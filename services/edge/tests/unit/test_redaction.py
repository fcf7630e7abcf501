"""Unit tests of the edge-side redaction module (no redactor process needed,
except the client tests, which run a tiny aiohttp server on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import aiohttp
import msgspec
import pytest
from aiohttp import web

try:
    from tollway_edge import redaction as R
except ModuleNotFoundError:  # on the redactor branch the edge package is not installed yet
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
    from tollway_edge import redaction as R

from tollway_contracts.events import RedactionSummary
from tollway_contracts.redaction import (
    Detection,
    RedactedText,
    RedactionCacheStats,
    RedactionPolicy,
    RedactResponse,
    encode,
)
from tollway_edge.redaction.fields import CHAT_FIELDS

pytestmark = pytest.mark.unit


def fake_redactor_answer(texts, values: dict[str, str]) -> RedactResponse:
    """What the redactor would answer if it detected exactly ``values`` (value -> type),
    numbering like the real one (first occurrence order)."""
    counters: dict[str, int] = {}
    assigned: dict[str, str] = {}
    results = []
    for ref in texts:
        found = []
        for value, etype in values.items():
            start = ref.text.find(value)
            while start != -1:
                found.append((start, start + len(value), etype, value))
                start = ref.text.find(value, start + len(value))
        found.sort()
        pieces, cursor, dets = [], 0, []
        for start, end, etype, value in found:
            if value not in assigned:
                counters[etype] = counters.get(etype, 0) + 1
                assigned[value] = f"<{etype}_{counters[etype]}>"
            ph = assigned[value]
            pieces += [ref.text[cursor:start], ph]
            cursor = end
            dets.append(Detection(entity_type=etype, start=start, end=end, score=0.9, placeholder=ph))
        pieces.append(ref.text[cursor:])
        results.append(RedactedText(id=ref.id, detections=dets, anonymized_text="".join(pieces)))
    return RedactResponse(
        results=results,
        cache=RedactionCacheStats(hits=0, misses=len(results)),
        model_version="test",
    )


BODY = {
    "model": "gpt-4o-mini",
    "messages": [
        {"role": "system", "content": "You help Jane Roe."},
        {"role": "user", "name": "Jane Roe", "content": "Email jane@example.com please"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Call Jane Roe at +1 415 555 0134"},
                {"type": "image_url", "image_url": {"url": "https://img.example/jane.png"}},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {
                        "name": "send_mail",
                        "arguments": '{"to": "jane@example.com", "cc": ["Jane Roe"], "n": 1}',
                    },
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "sent to jane@example.com"},
        {
            "role": "assistant",
            "content": "Done",
            "function_call": {"name": "f", "arguments": "not json Jane Roe"},
        },
    ],
}
VALUES = {"Jane Roe": "PERSON", "jane@example.com": "EMAIL_ADDRESS", "+1 415 555 0134": "PHONE_NUMBER"}


def test_extract_every_message_shape():
    texts = R.extract_texts(BODY)
    assert [(t.id, t.text) for t in texts] == [
        ("/messages/0/content", "You help Jane Roe."),
        ("/messages/1/name", "Jane Roe"),
        ("/messages/1/content", "Email jane@example.com please"),
        ("/messages/2/content/0/text", "Call Jane Roe at +1 415 555 0134"),
        ("/messages/3/tool_calls/0/function/arguments#/to", "jane@example.com"),
        ("/messages/3/tool_calls/0/function/arguments#/cc/0", "Jane Roe"),
        ("/messages/4/content", "sent to jane@example.com"),
        ("/messages/5/content", "Done"),
        ("/messages/5/function_call/arguments", "not json Jane Roe"),
    ]
    # roles, ids, function names, image urls are opaque; a participant's name is text
    assert all("url" not in t.id and "/function/name" not in t.id and "/id" not in t.id for t in texts)


def test_odd_shapes_never_hide_a_string():
    assert R.extract_texts({}) == []
    # a string where the table expects a list is still scanned, as an unknown field
    walk = R.walk_body({"messages": "x"}, CHAT_FIELDS)
    assert [t.id for t in walk.texts] == ["/messages"] and walk.unknown == ["/messages"]
    body = {
        "messages": [
            1,
            {"role": "user", "content": ""},
            {"role": "user", "content": [{"type": "text", "text": 3}]},
        ]
    }
    walk = R.walk_body(body, CHAT_FIELDS)
    assert walk.texts == []
    assert walk.unscannable == ["/messages/2/content/0/text"]  # a number where text belongs
    body = {
        "messages": [
            {"role": "assistant", "tool_calls": [{"function": {"arguments": '{"a/b": {"c~d": "x"}}'}}]}
        ]
    }
    ids = [t.id for t in R.extract_texts(body)]
    assert ids == ["/messages/0/tool_calls/0/function/arguments#/a~1b/c~0d"]


def test_apply_redaction_replaces_every_text_and_keeps_the_original():
    original = json.loads(json.dumps(BODY))
    texts = R.extract_texts(BODY)
    answer = fake_redactor_answer(texts, VALUES)
    out = R.apply_redaction(BODY, texts, answer)
    assert BODY == original  # not modified
    msgs = out["messages"]
    assert msgs[0]["content"] == "You help <PERSON_1>."
    assert msgs[1]["content"] == "Email <EMAIL_ADDRESS_1> please"
    assert msgs[1]["name"] == "<PERSON_1>"  # a participant's name is text (issue 11)
    assert msgs[2]["content"][0]["text"] == "Call <PERSON_1> at <PHONE_NUMBER_1>"
    assert msgs[2]["content"][1] == BODY["messages"][2]["content"][1]
    args = json.loads(msgs[3]["tool_calls"][0]["function"]["arguments"])
    assert args == {"to": "<EMAIL_ADDRESS_1>", "cc": ["<PERSON_1>"], "n": 1}
    assert msgs[4]["content"] == "sent to <EMAIL_ADDRESS_1>"
    assert msgs[5]["function_call"]["arguments"] == "not json <PERSON_1>"
    serialized = json.dumps(out)
    for value in VALUES:
        assert value not in serialized


def test_unchanged_arguments_are_kept_byte_for_byte():
    body = {
        "messages": [
            {"role": "assistant", "tool_calls": [{"function": {"arguments": '{ "q" :  "weather" }'}}]}
        ]
    }
    texts = R.extract_texts(body)
    out = R.apply_redaction(body, texts, fake_redactor_answer(texts, {}))
    assert out["messages"][0]["tool_calls"][0]["function"]["arguments"] == '{ "q" :  "weather" }'


def test_missing_text_in_answer_fails_closed():
    texts = R.extract_texts(BODY)
    answer = fake_redactor_answer(texts[:-1], VALUES)
    with pytest.raises(R.RedactionUnavailable):
        R.apply_redaction(BODY, texts, answer)


def test_block_error_names_types_never_values():
    texts = R.extract_texts(BODY)
    err = R.block_error(fake_redactor_answer(texts, VALUES))
    assert err["error"]["code"] == "pii_detected"
    assert err["error"]["type"] == "invalid_request_error"
    message = err["error"]["message"]
    assert "EMAIL_ADDRESS" in message and "PERSON" in message and "PHONE_NUMBER" in message
    for value in VALUES:
        assert value not in json.dumps(err)
    assert R.block_error(fake_redactor_answer(texts, {})) is None


def test_mapping_and_non_stream_restore():
    texts = R.extract_texts(BODY)
    mapping = R.build_mapping(texts, fake_redactor_answer(texts, VALUES))
    assert mapping == {
        "<PERSON_1>": "Jane Roe",
        "<EMAIL_ADDRESS_1>": "jane@example.com",
        "<PHONE_NUMBER_1>": "+1 415 555 0134",
    }
    response = {
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "Hello <PERSON_1>, I wrote to <EMAIL_ADDRESS_1>. <PERSON_9> is unknown.",
                    "tool_calls": [{"function": {"name": "f", "arguments": '{"who": "<PERSON_1>"}'}}],
                },
            }
        ]
    }
    out = R.restore_response(response, mapping)
    assert (
        out["choices"][0]["message"]["content"]
        == "Hello Jane Roe, I wrote to jane@example.com. <PERSON_9> is unknown."
    )
    assert json.loads(out["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]) == {
        "who": "Jane Roe"
    }


def test_restore_escapes_values_inside_json_arguments():
    mapping = {"<PERSON_1>": 'Jo "the" O\\Neil'}
    args = R.restore_text('{"who": "<PERSON_1>"}', mapping, json_escape=True)
    assert json.loads(args) == {"who": 'Jo "the" O\\Neil'}


MAPPING = {"<PERSON_1>": "Jane Roe", "<EMAIL_ADDRESS_12>": "jane@example.com", "<PERSON_2>": "Bob"}
LONGEST = max(len(k) for k in MAPPING)


def _stream(chunks: list[str]) -> tuple[str, list[str]]:
    r = R.StreamRestorer(MAPPING)
    outs = [r.feed(c) for c in chunks]
    return "".join(outs) + r.flush(), outs


@pytest.mark.parametrize(
    "text",
    [
        "Hi <PERSON_1>, mail <EMAIL_ADDRESS_12> now. <PERSON_2><PERSON_1> a<b <PERSON_3> <PERSON_1",
        "<PERSON_1>",
        "x < y and <<PERSON_2>> <EMAIL_ADDRESS_1> <EMAIL_ADDRESS_12>",
    ],
)
def test_stream_restorer_every_split_position(text):
    expected = R.restore_text(text, MAPPING)
    # one split anywhere
    for i in range(len(text) + 1):
        got, _ = _stream([text[:i], text[i:]])
        assert got == expected, i
    # two splits anywhere
    for i in range(len(text) + 1):
        for j in range(i, len(text) + 1):
            got, _ = _stream([text[:i], text[i:j], text[j:]])
            assert got == expected, (i, j)
    # one character at a time
    got, outs = _stream(list(text))
    assert got == expected


def test_stream_restorer_holds_back_little_and_never_plain_text():
    r = R.StreamRestorer(MAPPING)
    assert r.feed("Hello there, ") == "Hello there, "  # nothing that can start a placeholder
    assert r.feed("a < b ") == "a < b "  # '<' followed by a space cannot be a placeholder
    assert r.feed("dear <PERS") == "dear "
    assert r.held == "<PERS"
    assert r.feed("ON_1>!") == "Jane Roe!"
    assert r.feed("<EMAIL_ADDRESS_1") == ""
    assert len(r.held) < LONGEST
    assert r.feed("3>") == "<EMAIL_ADDRESS_13>"  # unknown placeholder passes through
    assert r.feed("<PERSON_X") == "<PERSON_X"  # cannot be a known placeholder any more
    assert r.feed("<") == "" and r.flush() == "<"


def test_stream_restorer_without_mapping_is_identity():
    r = R.StreamRestorer({})
    assert r.feed("<PERSON_1") == "<PERSON_1"
    assert r.flush() == ""


def test_chunk_restorer_content_and_tool_calls():
    mapping = {"<PERSON_1>": 'Jane "J" Roe'}
    cr = R.ChunkRestorer(mapping)

    def chunk(delta, finish=None):
        return {
            "id": "c1",
            "object": "chat.completion.chunk",
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    outs = [
        cr.restore_chunk(chunk({"role": "assistant", "content": "Hi <PER"})),
        cr.restore_chunk(chunk({"content": "SON_1>, bye <PERSON_"})),
        cr.restore_chunk(chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"a": "<PERSON'}}]})),
        cr.restore_chunk(chunk({"tool_calls": [{"index": 0, "function": {"arguments": '_1>"}'}}]})),
        cr.restore_chunk(chunk({}, finish="stop")),
    ]
    content = "".join(o["choices"][0]["delta"].get("content") or "" for o in outs)
    assert content == 'Hi Jane "J" Roe, bye <PERSON_'  # held tail released with finish_reason
    args = "".join(
        c["function"]["arguments"] for o in outs for c in o["choices"][0]["delta"].get("tool_calls") or []
    )
    assert json.loads(args) == {"a": 'Jane "J" Roe'}
    assert cr.flush() is None


def test_chunk_restorer_flush_at_done():
    cr = R.ChunkRestorer({"<PERSON_1>": "Jane"})
    cr.restore_chunk(
        {"id": "c", "choices": [{"index": 0, "delta": {"content": "Bye <PERSON"}, "finish_reason": None}]}
    )
    final = cr.flush()
    assert final["id"] == "c"
    assert final["choices"][0]["delta"]["content"] == "<PERSON"


def test_summary_matches_usage_event_model():
    texts = R.extract_texts(BODY)
    answer = fake_redactor_answer(texts, VALUES)
    s = R.summarize(RedactionPolicy(mode="redact"), answer, 12.5)
    assert isinstance(s, RedactionSummary)
    assert s.entities == {"PERSON": 5, "EMAIL_ADDRESS": 3, "PHONE_NUMBER": 1}
    assert s.total_texts == len(texts) and s.cached_texts == 0 and s.cache_hit is False
    assert s.duration_ms == 12.5


# --- the client, against a small local aiohttp server --------------------------

REDACTOR_ERRORS = {
    "413": (413, "redaction_request_too_large"),
    "400": (400, "invalid_redaction_request"),
    "400_entity": (400, "unknown_entity_type"),
    "503": (503, "redactor_unavailable"),
}


@pytest.fixture
async def edge_redactor_stub():
    """A stand-in redactor on 127.0.0.1 whose behaviour the test picks."""
    state = {"mode": "ok", "seen": []}

    async def handler(request: web.Request) -> web.Response:
        body = await request.json()
        state["seen"].append(body)
        if state["mode"] == "slow":
            await asyncio.sleep(2)
        if state["mode"] == "500":
            return web.json_response({"error": "boom"}, status=500)
        if state["mode"] in REDACTOR_ERRORS:
            status, code = REDACTOR_ERRORS[state["mode"]]
            return web.json_response({"error": {"message": "no", "type": "x", "code": code}}, status=status)
        if state["mode"] == "garbage":
            return web.Response(text="not json")
        refs = [R.TextRef(t["id"], t["text"]) for t in body["texts"]]
        if state["mode"] == "partial":
            refs = refs[:-1]
        answer = fake_redactor_answer(refs, VALUES)
        if state["mode"] == "lang_block":  # one text in a script no model covers, under `block`
            results = [
                msgspec.structs.replace(r, language="en", language_policy="supported") for r in answer.results
            ]
            results[-1] = msgspec.structs.replace(results[-1], language_policy="block")
            answer = msgspec.structs.replace(answer, results=results)
        return web.Response(body=encode(answer), content_type="application/json")

    app = web.Application()
    app.router.add_post("/v1/redact", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    client = R.RedactorClient(f"http://127.0.0.1:{port}")
    try:
        yield state, client
    finally:
        await client.close()
        await runner.cleanup()


async def test_client_redact_request_end_to_end(edge_redactor_stub):
    state, client = edge_redactor_stub
    policy = RedactionPolicy(mode="redact", reversible=True)
    outcome = await R.redact_request(BODY, policy, client, deadline_ms=2000)
    assert len(state["seen"]) == 1  # all texts of the call in one request
    assert state["seen"][0]["policy"]["mode"] == "redact"
    assert outcome.blocked is None
    assert outcome.body["messages"][1]["content"] == "Email <EMAIL_ADDRESS_1> please"
    assert outcome.mapping["<PERSON_1>"] == "Jane Roe"
    assert outcome.summary.entities["PERSON"] == 5


async def test_block_mode_outcome(edge_redactor_stub):
    _, client = edge_redactor_stub
    outcome = await R.redact_request(BODY, RedactionPolicy(mode="block"), client, deadline_ms=2000)
    assert outcome.blocked["error"]["code"] == "pii_detected"
    assert outcome.body is BODY


async def test_detect_mode_forwards_unchanged(edge_redactor_stub):
    _, client = edge_redactor_stub
    outcome = await R.redact_request(BODY, RedactionPolicy(mode="detect"), client, deadline_ms=2000)
    assert outcome.body is BODY and outcome.blocked is None and outcome.mapping == {}
    assert outcome.summary.entities["EMAIL_ADDRESS"] == 3


async def test_off_mode_does_not_call(edge_redactor_stub):
    state, client = edge_redactor_stub
    outcome = await R.redact_request(BODY, RedactionPolicy(mode="off"), client, deadline_ms=2000)
    assert outcome.body is BODY and outcome.summary is None and state["seen"] == []


@pytest.mark.parametrize("mode", ["500", "garbage", "partial", "slow"])
async def test_client_fails_closed(edge_redactor_stub, mode):
    state, client = edge_redactor_stub
    state["mode"] = mode
    with pytest.raises(R.RedactionUnavailable):
        await R.redact_request(BODY, RedactionPolicy(mode="redact"), client, deadline_ms=300)


async def test_client_connection_refused_fails_closed():
    client = R.RedactorClient("http://127.0.0.1:9")  # discard port: nothing listens
    try:
        with pytest.raises(R.RedactionUnavailable):
            await client.redact(RedactionPolicy(mode="redact"), [R.TextRef("/messages/0/content", "x")], 500)
    finally:
        await client.close()


async def test_prime_never_raises(edge_redactor_stub):
    state, client = edge_redactor_stub
    policy = RedactionPolicy(mode="redact")
    assert await client.prime(policy, [R.TextRef("/messages/9/content", "Hi Jane Roe")], 2000) is True
    state["mode"] = "500"
    assert await client.prime(policy, [R.TextRef("/messages/9/content", "Hi Jane Roe")], 2000) is False
    assert await client.prime(RedactionPolicy(mode="off"), [R.TextRef("a", "x")], 2000) is False


# --- issue 11: the redactor's answers mapped, language policy ------------------


@pytest.mark.parametrize(
    ("mode", "code"), [("413", "redaction_request_too_large"), ("400_entity", "unknown_entity_type")]
)
async def test_a_redactor_4xx_is_rejected_not_unavailable(edge_redactor_stub, mode, code):
    state, client = edge_redactor_stub
    state["mode"] = mode
    with pytest.raises(R.RedactionRejected) as info:
        await R.redact_request(BODY, RedactionPolicy(mode="redact"), client, deadline_ms=2000)
    assert info.value.code == code and info.value.status == REDACTOR_ERRORS[mode][0]


async def test_a_redactor_5xx_is_unavailable(edge_redactor_stub):
    state, client = edge_redactor_stub
    state["mode"] = "503"
    with pytest.raises(R.RedactorServerError):
        await R.redact_request(BODY, RedactionPolicy(mode="redact"), client, deadline_ms=2000)


def test_rejection_errors_are_honest_and_carry_no_retry_advice():
    big = R.rejection_error(R.RedactionRejected(413, "redaction_request_too_large"))
    assert (big.status, big.code, big.type) == (413, "redaction_request_too_large", "invalid_request_error")
    bad = R.rejection_error(R.RedactionRejected(400, "unknown_entity_type"))
    assert (bad.status, bad.code, bad.type) == (502, "redaction_rejected", "api_error")
    assert "unknown_entity_type" in bad.message
    for err in (big, bad):
        assert "Retry-After" not in (err.headers or {}) and err.headers == {"x-should-retry": "false"}


@pytest.fixture
async def two_stubs(edge_redactor_stub):
    """A second stand-in redactor (always answers well) and a pool over both (first = the picky one)."""
    seen: list[object] = []

    async def ok(request: web.Request) -> web.Response:
        body = await request.json()
        seen.append(body)
        refs = [R.TextRef(t["id"], t["text"]) for t in body["texts"]]
        return web.Response(body=encode(fake_redactor_answer(refs, VALUES)), content_type="application/json")

    app = web.Application()
    app.router.add_post("/v1/redact", ok)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    state, first = edge_redactor_stub
    async with aiohttp.ClientSession() as session:
        pool = R.RedactorPool([first._url.removesuffix("/v1/redact"), f"http://127.0.0.1:{port}"], session)
        try:
            yield state, seen, pool
        finally:
            await runner.cleanup()


async def test_the_pool_fails_over_on_5xx_but_never_on_4xx(two_stubs):
    state, seen, pool = two_stubs
    policy = RedactionPolicy(mode="redact")
    state["mode"] = "503"
    for _ in range(2):  # whichever URL round-robin starts on, the call succeeds
        outcome = await R.redact_request(BODY, policy, pool, deadline_ms=2000)
        assert outcome.summary.entities["PERSON"] == 5
    state["mode"] = "413"
    state["seen"].clear()
    seen.clear()
    rejected = 0
    for _ in range(2):
        try:
            await R.redact_request(BODY, policy, pool, deadline_ms=2000)
        except R.RedactionRejected:
            rejected += 1
    # the call starting on the picky redactor is rejected there and never retried elsewhere
    assert rejected == 1 and len(state["seen"]) == 1 and len(seen) == 1


@pytest.mark.parametrize("mode", ["redact", "block"])
async def test_language_policy_block_refuses_redacting_and_blocking_calls(edge_redactor_stub, mode):
    state, client = edge_redactor_stub
    state["mode"] = "lang_block"
    policy = RedactionPolicy(mode=mode, unsupported_language="block")
    outcome = await R.redact_request(BODY, policy, client, deadline_ms=2000)
    assert outcome.language_blocked is True and outcome.language_policy == "block"
    assert outcome.body is BODY  # nothing applied: the call is refused whole
    assert state["seen"][0]["policy"]["unsupported_language"] == "block"


async def test_language_policy_block_only_records_in_detect_mode(edge_redactor_stub):
    state, client = edge_redactor_stub
    state["mode"] = "lang_block"
    outcome = await R.redact_request(BODY, RedactionPolicy(mode="detect"), client, deadline_ms=2000)
    assert outcome.language_blocked is False and outcome.body is BODY
    assert outcome.language_policy == "block"  # recorded for the usage event


async def test_the_key_language_policy_is_sent(edge_redactor_stub):
    state, client = edge_redactor_stub
    await R.redact_request(
        BODY, RedactionPolicy(mode="redact", unsupported_language="patterns_only"), client, 2000
    )
    assert state["seen"][0]["policy"]["unsupported_language"] == "patterns_only"
