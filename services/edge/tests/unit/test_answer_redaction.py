"""Answer redaction, pure parts: the release point, call-wide placeholders,
detections applied (raw JSON kept valid), the text fields of answers."""

from __future__ import annotations

import json

from tollway_contracts.redaction import Detection, RedactionPolicy
from tollway_edge.auth.principals import Principal
from tollway_edge.redaction.answers import Placeholders, answer_slots, answers_on, redact_text
from tollway_edge.streaming.holdback import release_point


def _d(entity_type: str, start: int, end: int) -> Detection:
    return Detection(entity_type=entity_type, start=start, end=end, score=1.0, placeholder="<X_1>")


def test_release_point_holds_at_most_the_window_and_never_past_a_sentence_end() -> None:
    assert release_point("short text without an end", 64, False) == 0
    assert release_point("a" * 100, 64, False) == 36
    text = "First sentence. Then more"
    assert release_point(text, 64, False) == len("First sentence. ")
    assert release_point("line one\nline", 64, False) == len("line one\n")
    assert release_point("ends with a dot.", 64, False) == 0  # "v2.1" or an e-mail may follow
    assert release_point("東京です。次", 64, False) == len("東京です。")
    assert release_point("anything", 64, True) == len("anything")


def test_placeholders_are_call_wide_and_numbered_after_the_prompt() -> None:
    p = Placeholders({"PERSON": 2}, ["<EMAIL_ADDRESS_4>"])
    assert p.of("PERSON", "Ana Lee") == "<PERSON_3>"
    assert p.of("PERSON", "ana  lee") == "<PERSON_3>"  # case and spacing ignored
    assert p.of("PERSON", "Bo") == "<PERSON_4>"
    assert p.of("EMAIL_ADDRESS", "a@b.org") == "<EMAIL_ADDRESS_5>"
    assert Placeholders().of("CREDIT_CARD", "4111") == "<CREDIT_CARD_1>"


def test_redact_text_keeps_raw_json_valid() -> None:
    args = json.dumps({"to": "ana@example.org", "note": "call Ana\nLee"})
    start = args.index("ana@")
    # a detection that swallowed the closing quote, and one that starts inside an escape
    found = [_d("EMAIL_ADDRESS", start, start + len("ana@example.org") + 1)]
    nl = args.index("\\n")
    found.append(_d("PERSON", nl + 1, nl + 5))
    out = redact_text(args, found, Placeholders(), json_text=True)
    parsed = json.loads(out)
    assert parsed["to"] == "<EMAIL_ADDRESS_1>"
    assert "Lee" not in parsed["note"] and "<PERSON_1>" in parsed["note"]


def test_answer_slots_cover_every_answer_shape() -> None:
    chat = {
        "choices": [
            {
                "message": {
                    "content": "hi Ana",
                    "refusal": "no",
                    "tool_calls": [{"function": {"name": "f", "arguments": '{"a": "Ana"}'}}],
                }
            },
            {"text": "legacy"},
        ]
    }
    ids = [s.id for s in answer_slots(chat)]
    assert ids == [
        "/choices/0/message/content",
        "/choices/0/message/refusal",
        "/choices/0/message/tool_calls/0/function/arguments",
        "/choices/1/text",
    ]
    message = {
        "type": "message",
        "content": [
            {"type": "text", "text": "hello"},
            {"type": "tool_use", "input": {"who": {"name": "Ana", "tags": ["x", 1]}}},
        ],
    }
    slots = answer_slots(message)
    assert [s.id for s in slots] == [
        "/content/0/text",
        "/content/1/input/who/name",
        "/content/1/input/who/tags/0",
    ]
    slots[1].put("<PERSON_1>")
    assert message["content"][1]["input"]["who"]["name"] == "<PERSON_1>"  # type: ignore[index]
    responses = {"output": [{"content": [{"type": "output_text", "text": "t"}]}, {"arguments": "{}"}]}
    assert [s.id for s in answer_slots(responses)] == ["/output/0/content/0/text", "/output/1/arguments"]


def test_answers_on_and_the_principal_keeps_an_answers_only_policy() -> None:
    assert not answers_on(None) and not answers_on(RedactionPolicy(mode="redact"))
    assert answers_on(RedactionPolicy(answers="block"))
    row = {
        "key_id": "k",
        "secret_hash": b"",
        "tenant_id": "t",
        "team_id": None,
        "user_id": None,
        "allowed_models": None,
        "revoked": False,
        "expires_at": None,
        "redaction_policy": {"mode": "off", "answers": "redact"},
        "limits": None,
        "version": 1,
        "allowed_regions": None,
        "response_cache_ttl_seconds": None,
    }
    assert Principal.from_row(row).redaction_policy == RedactionPolicy(answers="redact")  # type: ignore[arg-type]
    assert Principal.from_row({**row, "redaction_policy": {"mode": "off"}}).redaction_policy is None  # type: ignore[arg-type]
