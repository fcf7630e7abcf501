"""Usage extraction and the usage events the edge builds (checked by the strict contract model)."""

from __future__ import annotations

import uuid
from datetime import UTC

import orjson
import pytest

from tollway_contracts.catalogue import Prices
from tollway_contracts.events import format_ts, validate_produced
from tollway_edge.auth.principals import Principal
from tollway_edge.call import Call
from tollway_edge.usage import Tokens, extract_usage, responses_usage

pytestmark = pytest.mark.unit


def test_responses_usage_in_chat_meaning_cache_reads_and_no_cache_writes() -> None:
    usage = {
        "input_tokens": 120,
        "input_tokens_details": {"cached_tokens": 64},
        "output_tokens": 30,
        "output_tokens_details": {"reasoning_tokens": 12},
        "total_tokens": 150,
    }
    tokens = responses_usage(usage)
    assert tokens == Tokens(120, 30, 64, 12, 150, cache_write_tokens=0)  # OpenAI reports no cache write
    prices = Prices(input=1_000_000, cached_input=500_000, cache_write_input=2_000_000, output=4_000_000)
    assert tokens is not None and tokens.cost(prices) == 56 * 1 + 64 // 2 + 30 * 4
    # a provider that does report writes is read as chat's prompt_tokens_details.cache_write_tokens
    written = responses_usage(
        {**usage, "input_tokens_details": {"cached_tokens": 64, "cache_write_tokens": 50}}
    )
    assert written is not None and written.cache_write_tokens == 50
    assert responses_usage(None) is None and responses_usage("x") is None


def test_extract_usage_reads_details() -> None:
    tokens = extract_usage(
        {
            "prompt_tokens": 100,
            "completion_tokens": 50,
            "total_tokens": 150,
            "prompt_tokens_details": {"cached_tokens": 40},
            "completion_tokens_details": {"reasoning_tokens": 10},
        }
    )
    assert tokens == Tokens(100, 50, 40, 10, 150)


def test_extract_usage_tolerates_missing_and_malformed() -> None:
    assert extract_usage(None) is None
    assert extract_usage({"prompt_tokens": "x", "completion_tokens": 2}) == Tokens(0, 2, 0, 0, 2)


def test_cost_uses_cached_price() -> None:
    prices = Prices(input=150_000, cached_input=75_000, output=600_000)
    # (60 × 0.15 + 40 × 0.075 + 50 × 0.6) USD/M → (9,000,000 + 3,000,000 + 30,000,000) / 1e6 = 42
    assert Tokens(100, 50, 40, 0, 150).cost(prices) == 42


class _Journal:
    """Collects what the call appends to the usage journal."""

    def __init__(self) -> None:
        self.sent: list[tuple[bytes, bytes]] = []

    def append(
        self, key: bytes, value: bytes, trace: bytes = b"", *, local: bool = False, checkpoint: bytes = b""
    ) -> bool:
        self.sent.append((key, value))
        return True


def _call(journal: _Journal) -> Call:
    call = Call(journal)  # type: ignore[arg-type]  # duck-typed journal
    call.principal = Principal(
        key_id="abcdefabcdef",
        secret_hash="h",
        tenant_id="t1",
        team_id=None,
        user_id="u1",
        allowed_models=None,
        revoked=False,
        expires_at=None,
        redaction_policy=None,
        limits=None,
        version=1,
    )
    call.model = "gpt-4o-mini"
    call.stream = True
    return call


def test_built_events_satisfy_the_strict_contract() -> None:
    journal = _Journal()
    call = _call(journal)
    call.provider, call.upstream_model, call.attempts = "fake", "m", 1
    call.started()
    call.ttft = call.t0 + 0.00325
    call.completed(200, Tokens(10, 5, 0, 0, 15), 3)
    [(key, raw_started), (_, raw_done)] = journal.sent
    assert key == call.request_id.encode()
    started = validate_produced(orjson.loads(raw_started))
    assert started.type == "started" and started.prompt_tokens is None
    done = validate_produced(orjson.loads(raw_done))
    assert done.completion_tokens == 5 and done.cost_micro_usd == 3
    assert done.ts_start == started.ts_start == call.ts_start and done.status_code == 200
    assert done.ttft_ms == 3.25
    call.fail(500, "internal_error")  # one terminal event per call
    assert len(journal.sent) == 2

    journal = _Journal()
    failed_call = _call(journal)
    failed_call.fail(400, "invalid_json")
    [(_, raw_failed)] = journal.sent
    failed = validate_produced(orjson.loads(raw_failed))
    assert failed.attempts == 0 and failed.error_type == "invalid_json" and failed.type == "failed"


def test_call_ids_match_the_contract_formats() -> None:
    call = Call()
    text = call.request_id
    assert str(uuid.UUID(text)) == text
    assert uuid.UUID(text).version == 4
    assert call.ts_start.tzinfo is UTC
    assert format_ts(call.ts_start).endswith("Z")
    assert Call().request_id != text


def test_prompt_estimate_is_the_fake_providers_count_plus_priming() -> None:
    from tollway_edge.usage import estimate_prompt_tokens
    from tollway_testing.fake_provider import count_prompt_tokens

    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "Grüße, wie geht's?"}, {"type": "image_url"}]},
    ]
    assert estimate_prompt_tokens({"messages": messages}) == count_prompt_tokens(messages) + 3
    # 9 + 20 bytes of text = 8 tokens, 3 per message, 3 priming
    assert estimate_prompt_tokens({"messages": messages}) == 8 + 6 + 3


def test_prompt_estimate_counts_tool_calls_tools_and_legacy_prompts() -> None:
    from tollway_edge.usage import estimate_prompt_tokens

    call = {"role": "assistant", "tool_calls": [{"function": {"name": "abcd", "arguments": '{"x":1}'}}]}
    assert estimate_prompt_tokens({"messages": [call]}) == 3 + 3 + 3  # ceil(11 / 4) + 3 + 3
    tools = [{"type": "function", "function": {"name": "f"}}]
    with_tools = estimate_prompt_tokens({"messages": [call], "tools": tools})
    assert with_tools > estimate_prompt_tokens({"messages": [call]})
    assert estimate_prompt_tokens({"prompt": "abcdefgh", "suffix": "x"}) == 2 + 1
    assert estimate_prompt_tokens({"prompt": [[1, 2, 3], [4]]}) == 4
    assert estimate_prompt_tokens({"model": "m"}) == 0


def test_answer_estimate_counts_the_generated_text_by_the_prompt_rule() -> None:
    from tollway_edge.usage import estimate_answer_tokens, estimated_answer

    chat = {
        "choices": [
            {"message": {"role": "assistant", "content": "x" * 10}},
            {
                "message": {
                    "content": None,
                    "refusal": "no",
                    "tool_calls": [{"function": {"name": "get", "arguments": '{"a":1}'}}],
                }
            },
        ]
    }
    assert estimate_answer_tokens(chat) == -(-(10 + 2 + 3 + 7) // 4)
    assert estimate_answer_tokens({"choices": [{"text": "y" * 9}]}) == 3  # legacy completions
    responses = {"output": [{"type": "message", "content": [{"type": "output_text", "text": "z" * 8}]}]}
    assert estimate_answer_tokens(responses) == 2
    messages = {"content": [{"type": "text", "text": "abcd"}, {"type": "tool_use", "input": {"k": "v"}}]}
    assert estimate_answer_tokens(messages) == -(-(4 + len(b'{"k":"v"}')) // 4)
    assert estimate_answer_tokens({"data": [{"embedding": [0.1]}]}) is None  # nothing generated
    tokens = estimated_answer({"choices": [{"text": "w" * 16}]}, lambda: 11)
    assert tokens is not None and (tokens.prompt_tokens, tokens.completion_tokens, tokens.total_tokens) == (
        11,
        4,
        15,
    )
    assert estimated_answer({"results": []}, lambda: 11) is None
