"""Admit plans kept while their windows last (``tollway_admission.prepared``): a kept
plan is exactly what :func:`plan` would compute at that instant."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tollway_admission import plan
from tollway_admission.pipelined import pack_bulk
from tollway_admission.prepared import PlanCache
from tollway_contracts.limits import Limit

pytestmark = pytest.mark.unit

GRACE = timedelta(days=2)


def _limits() -> list[Limit]:
    return [
        Limit(
            scope="key",
            scope_id="k1",
            requests_per_minute=10,
            tokens_per_minute=1000,
            max_concurrent=3,
            budget_micro_usd=500,
            budget_period="day",
            time_zone="Europe/Paris",
        )
    ]


def _same_as_plan(cache: PlanCache, limits: list[Limit], now: datetime) -> None:
    got = cache.get("t1", limits, "m", now)
    want = plan("t1", limits, "m", now, budget_grace=GRACE)
    assert [c._replace(reset_seconds=0.0) for c in got.checks] == [
        c._replace(reset_seconds=0.0) for c in want
    ]
    assert [got.reset_seconds(c, now) for c in got.checks] == [c.reset_seconds for c in want]
    assert got.keys_tail == pack_bulk([c.key for c in want])


def test_a_kept_plan_is_plans_answer_at_every_instant_across_minute_and_period_ends() -> None:
    cache = PlanCache(GRACE)
    limits = _limits()
    start = datetime(2026, 3, 10, 22, 58, 30, tzinfo=UTC)  # 23:00 UTC is midnight in Paris
    for seconds in range(0, 240, 7):  # across two minute ends and the day's end
        _same_as_plan(cache, limits, start + timedelta(seconds=seconds, microseconds=123))


def test_kept_within_its_windows_rebuilt_after_them_or_for_new_limits() -> None:
    cache = PlanCache(GRACE)
    limits = _limits()
    now = datetime(2026, 3, 10, 12, 0, 20, tzinfo=UTC)
    first = cache.get("t1", limits, "m", now)
    assert cache.get("t1", limits, "m", now + timedelta(seconds=39)) is first
    later = cache.get("t1", limits, "m", now + timedelta(seconds=40))  # the next minute
    assert later is not first and later.checks[0].key != first.checks[0].key
    # a changed key row is a new limits object: planned again, even with equal values
    assert cache.get("t1", _limits(), "m", now + timedelta(seconds=41)) is not later
    assert cache.get("t2", limits, "m", now + timedelta(seconds=41)).checks[0].key.startswith("tw:{t2}:")
