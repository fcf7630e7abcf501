"""Usage extraction and the usage events the edge builds (checked by the strict contract model)."""

from __future__ import annotations

import uuid

import orjson
import pytest

from tollway_contracts.catalogue import Prices
from tollway_contracts.events import format_ts, utcnow, validate_produced
from tollway_edge.usage import Tokens, build_event, extract_usage

pytestmark = pytest.mark.unit


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


def _common() -> dict:
    return {
        "request_id": str(uuid.uuid4()),
        "ts_start": format_ts(utcnow()),
        "tenant_id": "t1",
        "team_id": None,
        "user_id": "u1",
        "key_id": "abcdefabcdef",
        "model": "gpt-4o-mini",
        "stream": True,
    }


def test_built_events_satisfy_the_strict_contract() -> None:
    common = _common()
    started = validate_produced(
        orjson.loads(
            build_event("started", ts_end=None, provider="fake", upstream_model="m", attempts=1, **common)
        )
    )
    assert started.type == "started" and started.prompt_tokens is None
    done = validate_produced(
        orjson.loads(
            build_event(
                "completed",
                ts_end=format_ts(utcnow()),
                provider="fake",
                upstream_model="m",
                status_code=200,
                attempts=1,
                tokens=Tokens(10, 5, 0, 0, 15),
                cost=3,
                latency_ms=12.5,
                ttft_ms=3.25,
                overhead_ms=0.3,
                **common,
            )
        )
    )
    assert done.completion_tokens == 5 and done.cost_micro_usd == 3
    assert format_ts(done.ts_start) == common["ts_start"]
    failed = validate_produced(
        orjson.loads(
            build_event(
                "failed", ts_end=format_ts(utcnow()), status_code=400, error_type="invalid_json", **common
            )
        )
    )
    assert failed.attempts == 0


def test_fast_ids_match_the_contract_formats() -> None:
    from datetime import UTC, datetime

    from tollway_edge.ids import now_ts, uuid4_str

    text = uuid4_str()
    assert str(uuid.UUID(text)) == text
    assert uuid.UUID(uuid4_str()).version == 4
    ts = now_ts()
    parsed = datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    assert format_ts(parsed) == ts
