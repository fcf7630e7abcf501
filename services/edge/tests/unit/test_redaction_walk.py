"""The body walk (issue 11): every string of a request body is decided by its
endpoint's field table; what the issue found unscanned is scanned; the
answer is applied copy-on-write; odd ``arguments`` never raise."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

import msgspec
import orjson
import pytest

from tollway_contracts.redaction import (
    Detection,
    RedactedText,
    RedactionCacheStats,
    RedactionPolicy,
    RedactionText,
    RedactResponse,
)
from tollway_edge.errors import EdgeError
from tollway_edge.redaction import TextRef, redact_request, walk_body
from tollway_edge.redaction.apply import apply_texts
from tollway_edge.redaction.fields import (
    CHAT_FIELDS,
    COMPLETIONS_FIELDS,
    EMBEDDINGS_FIELDS,
    MODERATIONS_FIELDS,
    RESPONSES_FIELDS,
)
from tollway_edge.redaction.walk import MAX_DEPTH, nesting_depth, parse_arguments

pytestmark = pytest.mark.unit

PII = "Jane Roe"


class PlantedRedactor:
    """Answers like the redactor would if ``PII`` were its only detection."""

    def __init__(self) -> None:
        self.seen: list[TextRef | RedactionText] = []

    async def redact(
        self, policy: RedactionPolicy, texts: Sequence[TextRef | RedactionText], deadline_ms: float
    ) -> RedactResponse:
        self.seen = list(texts)
        results = []
        for t in texts:
            dets = []
            start = t.text.find(PII)
            while start != -1:
                dets.append(
                    Detection(
                        entity_type="PERSON",
                        start=start,
                        end=start + len(PII),
                        score=0.9,
                        placeholder="<PERSON_1>",
                    )
                )
                start = t.text.find(PII, start + len(PII))
            results.append(
                RedactedText(id=t.id, detections=dets, anonymized_text=t.text.replace(PII, "<PERSON_1>"))
            )
        return RedactResponse(
            results=results, cache=RedactionCacheStats(hits=0, misses=len(results)), model_version="t"
        )


def issue_body() -> dict[str, Any]:
    """PII in every field the issue found unscanned, plus the ones chat always had."""
    return {
        "model": "gpt-4o-mini",
        "user": f"{PII}",
        "safety_identifier": f"{PII}",
        "metadata": {"customer": f"{PII}", "ticket": "T-1"},
        "prediction": {"type": "content", "content": f"Dear {PII},"},
        "stop": [f"Bye {PII}"],
        "messages": [
            {"role": "system", "content": f"You help {PII}."},
            {"role": "user", "name": PII, "content": [{"type": "text", "text": f"I am {PII}"}]},
            {"role": "user", "content": [{"type": "input_text", "text": f"input_text part {PII}"}]},
            {
                "role": "user",
                "content": [
                    {
                        "type": "image_url",
                        "image_url": {"url": "data:image/png;base64,AAAA", "detail": "low"},
                    },
                    {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
                ],
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "lookup", "arguments": json.dumps({"who": PII, "n": 1})},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": f"found {PII}"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "lookup",
                    "description": f"Looks up people like {PII}",
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "who": {
                                "type": "string",
                                "description": f"e.g. {PII}",
                                "enum": [PII, "someone else"],
                                "examples": [PII],
                                "default": PII,
                            }
                        },
                        "required": ["who"],
                    },
                },
            }
        ],
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": "person",
                "description": f"A record about {PII}",
                "schema": {
                    "type": "object",
                    "properties": {"name": {"type": "string", "examples": [PII], "description": PII}},
                },
            },
        },
    }


async def test_no_planted_value_survives_redact_mode() -> None:
    body = issue_body()
    original = copy.deepcopy(body)
    outcome = await redact_request(body, RedactionPolicy(mode="redact"), PlantedRedactor(), 1000.0)
    out = orjson.dumps(outcome.body).decode()
    assert PII not in out
    assert body == original  # the client's body is never modified
    # opaque fields pass byte for byte
    assert outcome.body["model"] == "gpt-4o-mini"
    assert outcome.body["messages"][3] is body["messages"][3]  # untouched message shared (copy-on-write)
    assert outcome.body["tools"][0]["function"]["name"] == "lookup"
    assert outcome.body["tools"][0]["function"]["parameters"]["required"] == ["who"]
    assert outcome.body["tools"][0]["function"]["parameters"]["properties"]["who"]["type"] == "string"
    assert json.loads(outcome.body["messages"][4]["tool_calls"][0]["function"]["arguments"]) == {
        "who": "<PERSON_1>",
        "n": 1,
    }


async def test_block_mode_blocks_on_any_field() -> None:
    for pointer_body in (
        {"model": "m", "messages": [{"role": "user", "content": "hi"}], "user": PII},
        {"model": "m", "messages": [{"role": "user", "content": "hi"}], "metadata": {"k": PII}},
        {
            "model": "m",
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [{"type": "function", "function": {"name": "f", "parameters": {"enum": [PII]}}}],
        },
    ):
        outcome = await redact_request(pointer_body, RedactionPolicy(mode="block"), PlantedRedactor(), 1000.0)
        assert outcome.blocked is not None and outcome.blocked["error"]["code"] == "pii_detected"


def test_opaque_fields_are_not_sent() -> None:
    walk = walk_body(issue_body(), CHAT_FIELDS)
    ids = {t.id for t in walk.texts}
    assert "/model" not in ids
    assert not any(i.endswith(("/role", "/id", "/type", "/function/name", "/url", "/data")) for i in ids)
    assert "/tools/0/function/parameters/required/0" not in ids
    assert walk.unknown == [] and walk.unscannable == []


def test_unknown_field_strings_are_scanned_and_reported() -> None:
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": "x", "x_note": PII}],
        "vendor_extra": {"a": PII},
    }
    walk = walk_body(body, CHAT_FIELDS)
    assert walk.unknown == ["/messages/0/x_note", "/vendor_extra"]
    ids = {t.id for t in walk.texts}
    assert {"/messages/0/x_note", "/vendor_extra/a"} <= ids
    # the unknown fields' names and the unknown object's keys are text too; known names are not
    assert {"key:/messages/0/x_note", "key:/vendor_extra", "key:/vendor_extra/a"} <= ids
    assert not any(i in ids for i in ("key:/model", "key:/messages", "key:/messages/0/content"))
    numbers = {"model": "m", "messages": [], "temperature": 0.2, "max_tokens": 5, "stream": True, "seed": 1}
    assert walk_body(numbers, CHAT_FIELDS).texts == []  # known numeric fields send nothing


async def test_keys_holding_pii_are_renamed_copy_on_write() -> None:
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": "x"}],
        "metadata": {PII: "vip", "plan": PII},
        "x_vendor": {"nested": {PII: 1}},
        PII: True,
    }
    original = copy.deepcopy(body)
    outcome = await redact_request(body, RedactionPolicy(mode="redact"), PlantedRedactor(), 1000.0)
    assert body == original
    assert PII not in orjson.dumps(outcome.body).decode()
    assert outcome.body["metadata"] == {"<PERSON_1>": "vip", "plan": "<PERSON_1>"}
    assert list(outcome.body)[-1] == "<PERSON_1>"  # key order kept
    assert outcome.body["x_vendor"] == {"nested": {"<PERSON_1>": 1}}
    assert outcome.body["messages"] is body["messages"]
    blocked = await redact_request(
        {"model": "m", "messages": [], "metadata": {PII: "x"}},
        RedactionPolicy(mode="block"),
        PlantedRedactor(),
        1000.0,
    )
    assert blocked.blocked is not None


def test_schema_property_names_and_argument_keys_are_structure() -> None:
    body = {
        "model": "m",
        "messages": [
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"who": "x"}'}}
                ],
            }
        ],
        "tools": [
            {
                "type": "function",
                "function": {"name": "f", "parameters": {"properties": {"who": {"type": "string"}}}},
            }
        ],
    }
    ids = [t.id for t in walk_body(body, CHAT_FIELDS).texts]
    assert ids == ["/messages/0/tool_calls/0/function/arguments#/who"]


async def test_unknown_fields_refuse_policy() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "x"}], "vendor_extra": "y"}
    policy = RedactionPolicy(mode="redact", unknown_fields="refuse")
    with pytest.raises(EdgeError) as info:
        await redact_request(body, policy, PlantedRedactor(), 1000.0)
    assert (
        info.value.status == 400
        and info.value.code == "unknown_field"
        and info.value.param == "/vendor_extra"
    )
    # detect mode records, never refuses
    await redact_request(body, msgspec.structs.replace(policy, mode="detect"), PlantedRedactor(), 1000.0)


@pytest.mark.parametrize("mode", ["redact", "block"])
async def test_file_parts_are_unscannable(mode: str) -> None:
    body = {
        "model": "m",
        "messages": [
            {
                "role": "user",
                "content": [{"type": "file", "file": {"file_data": "JVBERi0=", "filename": "a.pdf"}}],
            }
        ],
    }
    redactor = PlantedRedactor()
    with pytest.raises(EdgeError) as info:
        await redact_request(body, RedactionPolicy(mode=mode), redactor, 1000.0)  # type: ignore[arg-type]
    assert info.value.code == "unscannable_content" and info.value.param == "/messages/0/content/0/file"
    assert redactor.seen == []  # refused before anything is analysed


@pytest.mark.parametrize(
    ("table", "body", "pointer"),
    [
        (EMBEDDINGS_FIELDS, {"model": "m", "input": [1, 2]}, "/input/0"),
        (EMBEDDINGS_FIELDS, {"model": "m", "input": [[1, 2]]}, "/input/0/0"),
        (COMPLETIONS_FIELDS, {"model": "m", "prompt": [1]}, "/prompt/0"),
        (
            RESPONSES_FIELDS,
            {"model": "m", "input": [{"role": "user", "content": [{"type": "input_file", "file_id": "f"}]}]},
            "/input/0/content/0/file_id",
        ),
    ],
)
def test_token_arrays_and_files_are_unscannable(table: Any, body: dict[str, Any], pointer: str) -> None:
    assert walk_body(body, table).unscannable[0] == pointer


@pytest.mark.parametrize(
    ("table", "body", "expected"),
    [
        (
            COMPLETIONS_FIELDS,
            {"model": "m", "prompt": ["a", "b"], "suffix": "c", "user": "u"},
            ["/prompt/0", "/prompt/1", "/suffix", "/user"],
        ),
        (EMBEDDINGS_FIELDS, {"model": "m", "input": "a", "encoding_format": "float"}, ["/input"]),
        (
            MODERATIONS_FIELDS,
            {
                "model": "m",
                "input": [{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {"url": "u"}}],
            },
            ["/input/0/text"],
        ),
        (
            RESPONSES_FIELDS,
            {
                "model": "m",
                "instructions": "i",
                "previous_response_id": "resp_1",
                "input": [
                    {"role": "user", "content": [{"type": "input_text", "text": "t"}]},
                    {"type": "function_call", "call_id": "c", "name": "f", "arguments": '{"q": "a"}'},
                    {"type": "function_call_output", "call_id": "c", "output": "o"},
                ],
                "tools": [
                    {
                        "type": "function",
                        "name": "f",
                        "description": "d",
                        "parameters": {"type": "object", "description": "p"},
                    }
                ],
            },
            [
                "/instructions",
                "/input/0/content/0/text",
                "/input/1/arguments#/q",
                "/input/2/output",
                "/tools/0/description",
                "/tools/0/parameters/description",
            ],
        ),
    ],
)
def test_other_endpoints_texts(table: Any, body: dict[str, Any], expected: list[str]) -> None:
    walk = walk_body(body, table)
    assert [t.id for t in walk.texts] == expected and walk.unknown == [] and walk.unscannable == []


def _nested(depth: int) -> str:
    return '{"a":' * depth + '"Jane Roe"' + "}" * depth


@pytest.mark.parametrize(
    "arguments", [_nested(5000), _nested(MAX_DEPTH + 1), "{not json Jane Roe", '"Jane Roe"', "[" * 3000]
)
async def test_odd_arguments_are_one_text_never_an_error(arguments: str) -> None:
    body = {
        "model": "m",
        "messages": [
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "f", "arguments": arguments}}
                ],
            }
        ],
    }
    assert parse_arguments(arguments) is None
    walk = walk_body(body, CHAT_FIELDS)
    assert [t.id for t in walk.texts] == ["/messages/0/tool_calls/0/function/arguments"]
    outcome = await redact_request(body, RedactionPolicy(mode="redact"), PlantedRedactor(), 1000.0)
    assert PII not in orjson.dumps(outcome.body).decode()


def test_arguments_at_the_depth_limit_are_walked() -> None:
    parsed = parse_arguments(_nested(MAX_DEPTH))
    assert parsed is not None and nesting_depth(parsed) == MAX_DEPTH


def test_apply_texts_copies_only_changed_paths() -> None:
    body = {"a": {"b": "x", "c": {"d": "y"}}, "e": ["z"]}
    texts = walk_body(body, {"a": "text", "e": "text"}).texts
    out = apply_texts(body, {t.id: ("X" if t.text == "x" else t.text) for t in texts}, texts)
    assert out == {"a": {"b": "X", "c": {"d": "y"}}, "e": ["z"]}
    assert body["a"]["b"] == "x"  # type: ignore[index]
    assert out["a"]["c"] is body["a"]["c"] and out["e"] is body["e"]  # type: ignore[index]


MAPPING = {"<PERSON_1>": 'Jane "JR" Roe'}


def test_restore_legacy_completion_and_responses_answers() -> None:
    from tollway_edge.redaction import restore_response

    legacy = {"object": "text_completion", "choices": [{"index": 0, "text": "Dear <PERSON_1>,"}]}
    assert restore_response(legacy, MAPPING)["choices"][0]["text"] == 'Dear Jane "JR" Roe,'
    answer = {
        "object": "response",
        "output": [
            {"type": "message", "content": [{"type": "output_text", "text": "Hi <PERSON_1>"}]},
            {"type": "function_call", "name": "f", "arguments": '{"who": "<PERSON_1>"}'},
        ],
    }
    out = restore_response(answer, MAPPING)
    assert out["output"][0]["content"][0]["text"] == 'Hi Jane "JR" Roe'
    assert json.loads(out["output"][1]["arguments"]) == {"who": 'Jane "JR" Roe'}


@pytest.mark.parametrize("cut", range(1, 12))
def test_restore_legacy_completion_stream_split_anywhere(cut: int) -> None:
    from tollway_edge.redaction import ChunkRestorer

    text = "Dear <PERSON_1>, thanks"
    restorer = ChunkRestorer(MAPPING)
    pieces = [text[:cut], text[cut:]]
    out = []
    for i, piece in enumerate(pieces):
        last = i == len(pieces) - 1
        chunk = {
            "object": "text_completion",
            "choices": [{"index": 0, "text": piece, "finish_reason": "stop" if last else None}],
        }
        restored = restorer.restore_chunk(chunk)
        assert "delta" not in restored["choices"][0]  # legacy chunks keep their shape
        out.append(restored["choices"][0]["text"])
    assert restorer.flush() is None
    assert "".join(out) == 'Dear Jane "JR" Roe, thanks'


def test_restore_legacy_stream_flush_at_done() -> None:
    from tollway_edge.redaction import ChunkRestorer

    restorer = ChunkRestorer(MAPPING)
    chunk = {
        "object": "text_completion",
        "choices": [{"index": 0, "text": "Dear <PERS", "finish_reason": None}],
    }
    assert restorer.restore_chunk(chunk)["choices"][0]["text"] == "Dear "
    tail = restorer.flush()
    assert tail is not None and tail["object"] == "text_completion"
    assert tail["choices"] == [{"index": 0, "text": "<PERS", "finish_reason": None}]


async def test_keys_with_pointer_characters() -> None:
    body = {"model": "m", "messages": [], "metadata": {"a#b": PII, "c/d~e": PII, "#": PII}}
    outcome = await redact_request(body, RedactionPolicy(mode="redact"), PlantedRedactor(), 1000.0)
    assert outcome.body["metadata"] == {"a#b": "<PERSON_1>", "c/d~e": "<PERSON_1>", "#": "<PERSON_1>"}


def test_keys_spelling_patterns_are_unknown_fields() -> None:
    body = {"model": "m", "messages": [], "web_search_options.search_context_size": PII, "tools[].type": PII}
    walk = walk_body(body, CHAT_FIELDS)
    assert walk.unknown == ["/web_search_options.search_context_size", "/tools[].type"]
    assert {t.text for t in walk.texts} >= {PII, "web_search_options.search_context_size", "tools[].type"}


def anthropic_body() -> dict[str, Any]:
    return {
        "model": "claude-test",
        "max_tokens": 50,
        "system": [{"type": "text", "text": f"You help {PII}.", "cache_control": {"type": "ephemeral"}}],
        "metadata": {"user_id": PII},
        "stop_sequences": [PII],
        "tools": [
            {
                "name": "lookup",
                "description": f"Finds {PII}",
                "input_schema": {
                    "type": "object",
                    "properties": {"who": {"type": "string", "description": PII}},
                },
            }
        ],
        "messages": [
            {"role": "user", "content": f"I am {PII}"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": f"{PII} asks", "signature": "sig"},
                    {"type": "tool_use", "id": "tu_1", "name": "lookup", "input": {"type": PII, "n": 1}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "tu_1",
                        "content": [{"type": "text", "text": f"found {PII}"}],
                    },
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"},
                    },
                    {
                        "type": "document",
                        "source": {"type": "text", "media_type": "text/plain", "data": f"Dear {PII}"},
                    },
                    {
                        "type": "text",
                        "text": "ok",
                        "citations": [{"type": "char_location", "cited_text": PII}],
                    },
                ],
            },
        ],
    }


async def test_anthropic_messages_every_field_redacted() -> None:
    from tollway_edge.redaction.fields import ANTHROPIC_MESSAGES_FIELDS

    body = anthropic_body()
    original = copy.deepcopy(body)
    walk = walk_body(body, ANTHROPIC_MESSAGES_FIELDS)
    assert walk.unknown == [] and walk.unscannable == []
    outcome = await redact_request(
        body, RedactionPolicy(mode="redact"), PlantedRedactor(), 1000.0, ANTHROPIC_MESSAGES_FIELDS
    )
    assert body == original
    assert PII not in orjson.dumps(outcome.body).decode()
    out = outcome.body
    assert out["messages"][1]["content"][1]["input"] == {"type": "<PERSON_1>", "n": 1}  # keys are names
    assert out["messages"][1]["content"][0]["signature"] == "sig"
    assert out["messages"][2]["content"][1] is body["messages"][2]["content"][1]  # the image passes
    assert out["tools"][0]["input_schema"]["properties"]["who"]["type"] == "string"


@pytest.mark.parametrize(
    "source",
    [
        {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="},
        {"type": "file", "file_id": "file_1"},
    ],
)
def test_anthropic_pdf_and_file_documents_are_unscannable(source: dict[str, Any]) -> None:
    from tollway_edge.redaction.fields import ANTHROPIC_MESSAGES_FIELDS

    body = {
        "model": "c",
        "max_tokens": 5,
        "messages": [{"role": "user", "content": [{"type": "document", "source": source}]}],
    }
    assert walk_body(body, ANTHROPIC_MESSAGES_FIELDS).unscannable == ["/messages/0/content/0/source"]


def test_restore_anthropic_message() -> None:
    from tollway_edge.redaction import restore_response

    answer = {
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Hi <PERSON_1>"},
            {"type": "tool_use", "id": "t", "name": "f", "input": {"who": ["<PERSON_1>"]}},
        ],
    }
    out = restore_response(answer, MAPPING)
    assert out["content"][0]["text"] == 'Hi Jane "JR" Roe'
    assert out["content"][1]["input"] == {"who": ['Jane "JR" Roe']}


def _anthropic_sse(obj: dict[str, Any]) -> bytes:
    return b"event: " + obj["type"].encode() + b"\ndata: " + orjson.dumps(obj) + b"\n\n"


@pytest.mark.parametrize("cut", range(1, 16))
def test_restore_anthropic_stream_split_anywhere(cut: int) -> None:
    from tollway_edge.redaction import SSERestorer
    from tollway_edge.streaming.sse import SSEEvent

    text = "Dear <PERSON_1>, thanks"
    args = '{"who": "<PERSON_1>"}'
    events = [
        {"type": "message_start", "message": {"id": "m"}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text[:cut]}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text[cut:]}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "t", "name": "f"},
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": args[:cut]},
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": args[cut:]},
        },
        {"type": "content_block_stop", "index": 1},
        {"type": "message_stop"},
    ]
    restorer = SSERestorer(MAPPING)
    out = restorer.restore([SSEEvent(_anthropic_sse(e)) for e in events])
    texts, partial = [], []
    for ev in out:
        assert ev.raw.startswith(b"event: ")  # Anthropic clients dispatch on the event name
        obj = orjson.loads(ev.data or b"null")
        assert ev.raw.startswith(b"event: " + obj["type"].encode() + b"\n")
        if obj["type"] == "content_block_delta":
            d = obj["delta"]
            (texts if obj["index"] == 0 else partial).append(d.get("text") or d.get("partial_json") or "")
    assert "".join(texts) == 'Dear Jane "JR" Roe, thanks'
    assert json.loads("".join(partial)) == {"who": 'Jane "JR" Roe'}
    assert restorer.answer == 'Dear Jane "JR" Roe, thanks'
    kinds = [orjson.loads(ev.data or b"null")["type"] for ev in out]
    assert kinds[-1] == "message_stop" and kinds.count("content_block_stop") == 2
