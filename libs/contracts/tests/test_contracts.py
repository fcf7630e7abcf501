"""Unit tests of the contracts: examples validate, schemas don't drift, money is exact."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import msgspec
import pytest
from msgspec import ValidationError

from tollway_contracts import keys
from tollway_contracts.catalogue import Prices, catalogue_from_dict, load_catalogue
from tollway_contracts.events import (
    UsageEvent,
    decode_usage_event,
    encode_usage_event,
    format_ts,
    parse_usage_event,
    validate_produced,
)
from tollway_contracts.pricing import cost_micro_usd
from tollway_contracts.redaction import strictest_language_policy
from tollway_contracts.schema_export import SCHEMA_DIR, render, schemas

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples" / "usage").glob("*.json"))
REPO = ROOT.parents[1]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_is_a_valid_strict_event(path: Path) -> None:
    data = json.loads(path.read_text())
    event = validate_produced(data)
    # Round trip through the wire format keeps every field.
    again = parse_usage_event(event.to_json())
    assert msgspec.structs.asdict(again) == msgspec.structs.asdict(event)
    # ... and writes every field with the meaning of the example's.
    wire = json.loads(encode_usage_event(event))
    assert list(wire) == list(UsageEvent.__struct_fields__)
    assert {k: v for k, v in wire.items() if k in data} == data
    assert all(wire[k] in (None, 0, False) for k in wire.keys() - data.keys())


def test_examples_exist_for_each_type() -> None:
    types = {json.loads(p.read_text())["type"] for p in EXAMPLES}
    assert types == {"started", "completed", "failed"}


def test_committed_schemas_match_models() -> None:
    for name, schema in schemas().items():
        assert (SCHEMA_DIR / name).read_bytes() == render(schema), (
            f"{name} is stale: run python -m tollway_contracts.schema_export"
        )


def _event(**over: object) -> UsageEvent:
    base = dict(
        type="completed",
        request_id=uuid.uuid4(),
        tenant_id="t",
        key_id="k" * 12,
        ts_start=datetime(2026, 11, 30, 23, 59, 59, 999999, tzinfo=UTC),
        ts_end=datetime(2026, 12, 1, tzinfo=UTC),
        model="m",
        prompt_tokens=1,
        completion_tokens=2,
    )
    base.update(over)
    return UsageEvent(**base)  # type: ignore[arg-type]  # test helper: keyword overrides of any field


def _produce(**over: object) -> bytes:
    return encode_usage_event(_event(**over))


def test_producer_is_strict_about_unknown_fields_and_types() -> None:
    # The Struct refuses unknown fields and shapes on construction (TypeError,
    # ValueError); the strict encoder refuses wrong types and bounds
    # (msgspec.ValidationError, a ValueError).
    with pytest.raises(TypeError):
        _produce(surprise=1)
    with pytest.raises(msgspec.ValidationError):
        _produce(prompt_tokens=-1)
    with pytest.raises(msgspec.ValidationError):
        _produce(prompt_tokens="1")
    with pytest.raises(ValueError):
        _produce(ts_start=datetime(2026, 1, 1))  # naive
    with pytest.raises(ValueError):
        _produce(type="started")  # tokens on started
    # The same checks on what a producer emitted as JSON.
    raw = json.loads(_produce())
    for bad in (
        {"surprise": 1},
        {"prompt_tokens": -1},
        {"prompt_tokens": "1"},
        {"ts_start": "2026-01-01T00:00:00"},
    ):
        with pytest.raises(msgspec.ValidationError):
            validate_produced({**raw, **bad})
    with pytest.raises(msgspec.ValidationError):
        validate_produced({**raw, "reservation": {"key:k": {"tokens": 1, "surprise": 2}}})
    with pytest.raises(msgspec.ValidationError):
        validate_produced({**raw, "redaction_language_policy": "ja"})


def test_consumer_is_tolerant_of_unknown_fields() -> None:
    raw = json.loads(_event().to_json())
    raw["added_in_a_later_release"] = {"x": 1}
    assert parse_usage_event(json.dumps(raw)).prompt_tokens == 1


def test_consumer_rejects_other_schema_versions_and_non_objects() -> None:
    raw = json.loads(_event().to_json())
    raw["schema_version"] = 2
    with pytest.raises(ValueError):
        parse_usage_event(json.dumps(raw))
    with pytest.raises(ValueError):
        parse_usage_event(b"[1, 2]")
    with pytest.raises(ValueError):
        parse_usage_event(b"{not json")


def test_timestamps_are_utc_rfc3339_with_microseconds() -> None:
    plus2 = timezone(timedelta(hours=2))
    event = _event(ts_start=datetime(2026, 12, 1, 1, 0, 0, 5, tzinfo=plus2))
    wire = json.loads(event.to_json())
    assert wire["ts_start"] == "2026-11-30T23:00:00.000005Z"
    assert format_ts(datetime(2026, 1, 1, tzinfo=UTC)) == "2026-01-01T00:00:00.000000Z"
    # Whole seconds still carry six digits on the wire (msgspec alone omits them).
    whole = _event(
        ts_start=datetime(2026, 12, 1, tzinfo=UTC), ts_end=datetime(2026, 12, 1, 0, 0, 1, tzinfo=plus2)
    )
    wire = json.loads(whole.to_json())
    assert (wire["ts_start"], wire["ts_end"]) == (
        "2026-12-01T00:00:00.000000Z",
        "2026-11-30T22:00:01.000000Z",
    )
    assert decode_usage_event(whole.to_json()) == whole


def test_consumer_reads_every_field_and_coerces_like_before() -> None:
    event = _event(
        team_id="tm",
        user_id="us",
        provider="p",
        upstream_model="u",
        stream=True,
        status_code=200,
        error_type="x",
        attempts=2,
        cached_tokens=1,
        reasoning_tokens=0,
        total_tokens=3,
        cost_micro_usd=9,
        latency_ms=1.5,
        ttft_ms=0.5,
        overhead_ms=0.25,
        redaction_language_policy="patterns_only",
        trace_id="tr",
    )
    assert decode_usage_event(event.to_json()) == event
    raw = json.loads(event.to_json())
    raw["status_code"] = 200.0  # lax, as the pydantic consumer was
    assert decode_usage_event(json.dumps(raw)).status_code == 200
    raw["status_code"] = 200.5
    with pytest.raises(msgspec.ValidationError):
        decode_usage_event(json.dumps(raw))


def test_cost_rounds_up_once_per_call_in_integers() -> None:
    prices = Prices(input=150_000, cached_input=75_000, output=600_000)
    # 1 uncached prompt token = 0.15 micro-USD -> rounds up to 1.
    assert cost_micro_usd(prices, prompt_tokens=1, completion_tokens=0) == 1
    # 120 prompt (64 cached), 48 completion:
    # 56*150000 + 64*75000 + 48*600000 = 8_400_000 + 4_800_000 + 28_800_000 = 42_000_000 -> 42
    assert cost_micro_usd(prices, prompt_tokens=120, completion_tokens=48, cached_tokens=64) == 42
    assert cost_micro_usd(prices, prompt_tokens=0, completion_tokens=0) == 0
    # cached price falls back to input price
    assert (
        cost_micro_usd(
            Prices(input=1_000_000, output=0), prompt_tokens=3, completion_tokens=9, cached_tokens=3
        )
        == 3
    )
    with pytest.raises(ValueError):
        cost_micro_usd(prices, prompt_tokens=1, completion_tokens=0, cached_tokens=2)


def test_cache_writes_priced_at_their_rate_defaulting_to_input() -> None:
    # Anthropic's Sonnet 4.5: $3 input, $0.30 cache read, $3.75 cache write, $15 output per million.
    prices = Prices(input=3_000_000, cached_input=300_000, cache_write_input=3_750_000, output=15_000_000)
    # 1000 prompt = 600 uncached + 100 read + 300 written; 10 completion:
    # 600*3e6 + 100*3e5 + 300*3.75e6 + 10*15e6 = 1.8e9 + 3e7 + 1.125e9 + 1.5e8 = 3.105e9 -> 3105
    cost = cost_micro_usd(
        prices, prompt_tokens=1000, completion_tokens=10, cached_tokens=100, cache_write_tokens=300
    )
    assert cost == 3105
    no_rate = Prices(input=3_000_000, cached_input=300_000, output=15_000_000)
    assert (
        cost_micro_usd(
            no_rate, prompt_tokens=1000, completion_tokens=10, cached_tokens=100, cache_write_tokens=300
        )
        == (900 * 3_000_000 + 100 * 300_000 + 10 * 15_000_000) // 1_000_000
    )
    with pytest.raises(ValueError):  # reads and writes are both part of the prompt
        cost_micro_usd(prices, prompt_tokens=10, completion_tokens=0, cached_tokens=6, cache_write_tokens=5)


def test_key_round_trip_and_constant_time_verify() -> None:
    full, parsed = keys.new_key()
    assert keys.parse_key(full) == parsed
    assert full.startswith("tw_") and len(parsed.key_id) == 12 and len(parsed.secret) == 32
    pepper = b"pepper"
    stored = keys.hash_secret(pepper, parsed.key_id, parsed.secret)
    assert keys.verify_secret(pepper, parsed.key_id, parsed.secret, stored)
    assert not keys.verify_secret(b"other", parsed.key_id, parsed.secret, stored)
    assert not keys.verify_secret(pepper, "x" * 12, parsed.secret, stored)
    for bad in ("", "tw_", "sk-abc", full + "x", full.replace("tw_", "tx_"), full.upper()):
        assert keys.parse_key(bad) is None


def test_catalogue_rejects_unknown_provider_and_negative_price() -> None:
    good = {
        "providers": {"p": {"base_url": "http://127.0.0.1:9000/v1"}},
        "models": {
            "m": {"routes": [{"provider": "p", "upstream_model": "u"}], "prices": {"input": 1, "output": 2}}
        },
    }
    assert catalogue_from_dict(good).models["m"].prices.output == 2
    bad = json.loads(json.dumps(good))
    bad["models"]["m"]["routes"][0]["provider"] = "nope"
    with pytest.raises(ValidationError, match="model 'm' routes to unknown provider 'nope'"):
        catalogue_from_dict(bad)
    bad = json.loads(json.dumps(good))
    bad["models"]["m"]["prices"]["input"] = -1
    with pytest.raises(ValidationError, match=r"Expected `int` >= 0 - at `\$.models\[...\].prices.input`"):
        catalogue_from_dict(bad)
    bad = json.loads(json.dumps(good))
    bad["providers"]["p"]["base_url"] = "ftp://x/"
    with pytest.raises(ValidationError, match="base_url must be an http"):
        catalogue_from_dict(bad)
    bad = json.loads(json.dumps(good))
    bad["providers"]["p"]["colour"] = "red"
    with pytest.raises(ValidationError, match="unknown field `colour`"):
        catalogue_from_dict(bad)


def test_local_catalogue_file_is_valid() -> None:
    cat = load_catalogue(REPO / "infra" / "catalogue.yaml")
    assert cat.models, "the local catalogue defines models"


def test_the_strictest_language_policy_of_a_call() -> None:
    assert strictest_language_policy([]) is None
    assert strictest_language_policy([None, None]) is None
    assert strictest_language_policy(["supported", None]) == "supported"
    assert strictest_language_policy(["supported", "pass"]) == "pass"
    assert strictest_language_policy(["pass", "patterns_only", "supported"]) == "patterns_only"
    assert strictest_language_policy(["block", "patterns_only", "pass", "supported"]) == "block"
    assert strictest_language_policy(iter(["supported", "block", "pass"])) == "block"
