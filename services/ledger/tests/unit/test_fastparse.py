"""The consumer's fast path never accepts what the contract model refuses, and
stores exactly what the model path would."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import orjson
import pytest

from tollway_contracts.events import parse_usage_event
from tollway_ledger.fastparse import fast_stage_row
from tollway_ledger.handler import Message, handle, parse_staged, stage_row

from ..conftest import make_call

pytestmark = pytest.mark.unit

POOL = [
    None,
    -1,
    0,
    1,
    7,
    1.5,
    -2.5,
    "1",
    "x",
    True,
    False,
    {},
    [],
    {"a": 1},
    2**70,
    "2026-11-29T12:00:00",
    "2026-11-29T12:00:00Z",
    "2026-11-29T12:00:00.5+02:00",
    "2026-11-29 12:00:00Z",
    "3f5e1d3a-8a0b-4c7e-9d52-1a2b3c4d5e6f",
    "3F5E1D3A8A0B4C7E9D521A2B3C4D5E6F",
    "started",
    "completed",
    "failed",
    {"key": {"tokens": 1}},
    {"key": {"tokens": -1}},
    {"key": {"tokens": 1, "extra": 2}},
    {"key": 5},
    {"mode": "redact"},
    {"mode": "redact", "entities": {"PERSON": -1}},
    {"mode": 1},
    {"mode": "x", "cache_hit": 1},
]


def _model_row(data: dict) -> tuple | None:
    try:
        return stage_row(parse_usage_event(data))
    except ValueError:
        return None


def _samples() -> list[dict]:
    out = []
    for i in range(6):
        for event in make_call(i, failed=i % 3 == 2):
            out.append(orjson.loads(event.to_json()))
    # Valid variants: offsets other than Z, ints for floats, missing optionals, unknown fields.
    v = dict(out[1])
    v.update(
        ts_start="2026-11-29T13:00:00.25+01:00", ts_end="2026-11-29T12:00:01Z", latency_ms=40, future_field=1
    )
    v.pop("trace_id")
    out.append(v)
    return out


def test_valid_events_same_row_both_paths() -> None:
    for data in _samples():
        fast = fast_stage_row(data)
        assert fast is not None, data
        assert fast == _model_row(data)


def test_fuzzed_events_fast_path_is_a_subset_of_the_model() -> None:
    rng = random.Random(11)
    samples = _samples()
    accepted_fast = refused = 0
    for _ in range(4000):
        data = dict(rng.choice(samples))
        for _ in range(rng.randrange(1, 3)):
            field = rng.choice([*data.keys(), "schema_version", "reservation", "redaction"])
            if rng.random() < 0.1:
                data.pop(field, None)
            else:
                data[field] = rng.choice(POOL)
        fast = fast_stage_row(data)
        model = _model_row(data)
        if fast is not None:
            accepted_fast += 1
            assert model == fast, data
        if model is None:
            refused += 1
    assert accepted_fast > 200 and refused > 1000  # both branches exercised


def test_handler_falls_back_to_the_model_for_unusual_valid_forms() -> None:
    _, completed = make_call(1)
    data = orjson.loads(completed.to_json())
    data["status_code"] = 200.0  # lax but valid for the model
    data["request_id"] = data["request_id"].replace("-", "")
    effects = handle([Message("u", 0, 0, None, orjson.dumps(data))], consumer_group="g")
    assert effects.dead_letters == []
    assert effects.terminal[0].row == stage_row(completed)


def test_nul_characters_are_dead_lettered_not_retried_forever() -> None:
    started, _ = make_call(1)
    data = orjson.loads(started.to_json())
    data["user_id"] = "a\x00b"
    effects = handle([Message("u", 0, 0, None, orjson.dumps(data))], consumer_group="g")
    assert [d.reason for d in effects.dead_letters] == ["user_id contains a NUL character"]


def test_parse_staged_reports_the_model_reason() -> None:
    with pytest.raises(ValueError, match="tenant_id"):
        parse_staged(
            orjson.dumps(
                {
                    "type": "started",
                    "request_id": "3f5e1d3a-8a0b-4c7e-9d52-1a2b3c4d5e6f",
                    "key_id": "k",
                    "model": "m",
                    "ts_start": datetime.now(UTC).isoformat(),
                }
            )
        )
