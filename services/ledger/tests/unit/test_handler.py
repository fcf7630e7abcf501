"""The pure batch handler and the DLQ rate limit."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import msgspec
import orjson
import pytest

from tollway_contracts.events import USAGE_EVENT_FIELDS, AttemptDetail, ScopeReservation, ShadowRefusal
from tollway_ledger.handler import (
    JSON_FIELDS,
    STAGE_COLUMNS,
    DlqLimit,
    DlqLimitExceeded,
    Message,
    handle,
    months_of,
    parse_staged,
    stage_record,
    stage_row,
)

from ..conftest import make_call

pytestmark = pytest.mark.unit


def msg(offset: int, value: bytes | None, partition: int = 0, key: bytes | None = b"k") -> Message:
    return Message("usage", partition, offset, key, value)


def test_started_and_terminal_kept_once_per_call_first_terminal_wins() -> None:
    started, completed = make_call(1)
    other = msgspec.structs.replace(completed, event_id=uuid.uuid4(), type="failed")
    batch = [
        msg(0, completed.to_json()),
        msg(1, started.to_json()),
        msg(2, completed.to_json()),  # exact redelivery
        msg(3, other.to_json()),  # a second, different terminal event
        msg(4, started.to_json()),
    ]
    effects = handle(batch, consumer_group="g")
    assert [e.event_id for e in effects.started] == [started.event_id]
    assert [e.event_id for e in effects.terminal] == [completed.event_id]
    assert effects.outcomes == {
        ("completed", "duplicate"): 1,
        ("failed", "ignored"): 1,
        ("started", "duplicate"): 1,
    }
    assert effects.commit_offsets == {("usage", 0): 5}
    assert effects.dead_letters == []


def test_offset_order_decides_first_terminal_whatever_the_input_order() -> None:
    _, completed = make_call(1)
    failed = msgspec.structs.replace(completed, event_id=uuid.uuid4(), type="failed")
    effects = handle([msg(7, failed.to_json()), msg(3, completed.to_json())], consumer_group="g")
    assert [e.type for e in effects.terminal] == ["completed"]
    assert effects.commit_offsets == {("usage", 0): 8}


def test_poison_becomes_dead_letters_with_reasons() -> None:
    now = datetime(2026, 11, 29, tzinfo=UTC)
    _, completed = make_call(1)
    far = orjson.loads(completed.to_json())
    far["ts_start"] = "1970-01-01T00:00:00.000000Z"
    huge = orjson.loads(completed.to_json())
    huge["prompt_tokens"] = 2**63  # fits JSON parsers, not bigint
    v2 = orjson.loads(completed.to_json())
    v2["schema_version"] = 2
    batch = [
        msg(0, b"not json"),
        msg(1, None),
        msg(2, b"[1, 2]"),
        msg(3, orjson.dumps(far)),
        msg(4, orjson.dumps(huge)),
        msg(5, orjson.dumps(v2)),
        msg(6, completed.to_json(), partition=1),
    ]
    effects = handle(batch, consumer_group="grp", now=now)
    reasons = [d.reason for d in effects.dead_letters]
    assert len(reasons) == 6
    assert reasons[0].startswith("invalid usage event")
    assert "tombstone" in reasons[1]
    assert "Expected `object`, got `array`" in reasons[2]  # msgspec words "not a JSON object" so
    assert "ts_start out of range" in reasons[3]
    assert "prompt_tokens out of range" in reasons[4]
    assert "schema_version" in reasons[5]
    assert all(d.consumer_group == "grp" and d.ts == now for d in effects.dead_letters)
    assert effects.dead_letters[0].value == "not json" and effects.dead_letters[0].offset == 0
    assert [e.event_id for e in effects.terminal] == [completed.event_id]
    assert effects.commit_offsets == {("usage", 0): 6, ("usage", 1): 7}
    assert effects.outcomes == {("unknown", "dead_lettered"): 6}


def test_unknown_fields_are_ignored() -> None:
    started, _ = make_call(1)
    data = orjson.loads(started.to_json())
    data["a_future_field"] = {"x": 1}
    effects = handle([msg(0, orjson.dumps(data))], consumer_group="g")
    assert effects.dead_letters == [] and len(effects.started) == 1


def test_stage_record_matches_columns_and_months() -> None:
    started, completed = make_call(1, datetime(2026, 1, 31, 23, 59, 59, 999999, tzinfo=UTC))
    record = stage_record(0, completed)
    assert len(record) == len(STAGE_COLUMNS)
    row = dict(zip(STAGE_COLUMNS, record, strict=True))
    assert row["event_type"] == "completed" and row["cost_micro_usd"] == completed.cost_micro_usd
    assert orjson.loads(row["redaction"])["entities"] == {"PERSON": 1}
    assert orjson.loads(stage_record(0, started)[STAGE_COLUMNS.index("reservation")]) == {
        "key": {"tokens": 100, "cost_micro_usd": 50}
    }
    assert months_of([started, make_call(2, datetime(2026, 2, 1, tzinfo=UTC))[0]]) == {
        datetime(2026, 1, 1, tzinfo=UTC),
        datetime(2026, 2, 1, tzinfo=UTC),
    }


def test_dlq_limit_window_and_fraction() -> None:
    now = [0.0]
    limit = DlqLimit(
        max_per_window=3, window_seconds=10, max_batch_fraction=0.5, min_batch=4, clock=lambda: now[0]
    )
    limit.check(2, 100)
    limit.check(1, 100)
    with pytest.raises(DlqLimitExceeded):
        limit.check(1, 100)
    now[0] = 11.0  # the window slid past the first three
    limit.check(3, 100)
    with pytest.raises(DlqLimitExceeded):
        DlqLimit(max_per_window=100, min_batch=4, clock=lambda: 0.0).check(3, 4)
    DlqLimit(max_per_window=100, min_batch=4, clock=lambda: 0.0).check(2, 3)  # small batch: no fraction rule


def test_every_field_of_the_contract_reaches_the_staging_row() -> None:
    # One definition: the staging columns are the Struct's fields (type named
    # event_type, schema_version not stored), and each value is the event's.
    assert set(STAGE_COLUMNS) == {"seq", "event_type"} | (
        set(USAGE_EVENT_FIELDS) - {"schema_version", "type"}
    )
    _, completed = make_call(3)
    completed = msgspec.structs.replace(
        completed,
        error_type="e",
        reservation={"key:k": ScopeReservation(tokens=7, cost_micro_usd=3)},
        deployment="openai-eu",
        cache_write_tokens=4,
        usage_estimated=True,
        attempt_details=[AttemptDetail(deployment="openai-eu", status_code=200, prompt_tokens=5)],
        response_cache_hit=True,
        catalogue_version="sha256:abc",
        shadow_refusals=[ShadowRefusal(scope="team:t", limit="budget")],
    )
    effects = handle([msg(0, completed.to_json())], consumer_group="g")
    row = dict(zip(STAGE_COLUMNS, stage_record(9, effects.terminal[0]), strict=True))
    assert row.pop("seq") == 9 and row.pop("event_type") == "completed"
    for name, value in row.items():
        expected = getattr(completed, name)
        if name in JSON_FIELDS:
            assert orjson.loads(value) == msgspec.to_builtins(expected), name
        else:
            assert value == expected, name
            assert value is not None, name  # every field was set: none lost on the way


def test_handler_accepts_unusual_valid_forms_like_the_model() -> None:
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
