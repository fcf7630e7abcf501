"""The admission planner (pure): which counters one call is checked against."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tollway_admission import PlannedCheck, plan
from tollway_admission import keys as K
from tollway_contracts.limits import Limit, parse_limit

pytestmark = pytest.mark.unit

NOW = datetime(2026, 3, 10, 12, 0, 20, tzinfo=UTC)
MINUTE_START = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


def _lim(**kw: object) -> Limit:
    return parse_limit({"scope": "key", "scope_id": "k1", **kw})


def test_every_kind_of_a_limit_in_a_fixed_order_with_keys_windows_and_expiries() -> None:
    lim = _lim(requests_per_minute=10, tokens_per_minute=1000, max_concurrent=3, budget_micro_usd=500)
    checks = plan("t1", [lim], "m", NOW)
    assert [c.kind for c in checks] == ["requests", "tokens", "concurrency", "budget"]
    rpm, tpm, conc, budget = checks
    m_s = int(MINUTE_START.timestamp())
    assert rpm == PlannedCheck(
        "requests",
        lim,
        10,
        K.rpm_key("t1", lim, m_s),
        40.0,
        rpm.window,
        int((MINUTE_START + timedelta(minutes=2)).timestamp() * 1000),
    )
    assert rpm.window is not None and rpm.window.start == MINUTE_START
    assert tpm.value == 1000 and tpm.key == K.tpm_key("t1", lim, m_s) and tpm.window == rpm.window
    assert conc.value == 3 and conc.key == K.conc_key("t1", lim)
    assert (conc.reset_seconds, conc.window, conc.expire_at_ms) == (1.0, None, 0)
    # A budget without a period is monthly, in the limit's zone.
    assert budget.limit.budget_period == "month" and budget.value == 500
    assert budget.window is not None
    assert budget.window.start == datetime(2026, 3, 1, tzinfo=UTC)
    assert budget.window.end == datetime(2026, 4, 1, tzinfo=UTC)
    assert budget.key == K.budget_key("t1", budget.limit, int(budget.window.start.timestamp()))
    assert budget.reset_seconds == (budget.window.end - NOW).total_seconds()
    assert budget.expire_at_ms == int((budget.window.end + timedelta(days=2)).timestamp() * 1000)


def test_budget_grace_and_time_zone() -> None:
    lim = _lim(budget_micro_usd=1, budget_period="day", time_zone="Europe/Paris")
    (c,) = plan("t1", [lim], None, NOW, budget_grace=timedelta(hours=1))
    assert c.window is not None
    assert c.window.start == datetime(2026, 3, 9, 23, 0, tzinfo=UTC)  # local midnight, UTC+1
    assert c.expire_at_ms == int((c.window.end + timedelta(hours=1)).timestamp() * 1000)


def test_limits_narrowed_to_another_model_are_skipped_and_order_is_kept() -> None:
    a = _lim(requests_per_minute=1)
    b = _lim(scope="tenant", scope_id="t1", requests_per_minute=2, model="gpt-4o")
    c = _lim(scope="team", scope_id="x", requests_per_minute=3, model="other")
    assert [p.value for p in plan("t1", [a, b, c], "gpt-4o", NOW)] == [1, 2]
    assert [p.value for p in plan("t1", [a, b, c], None, NOW)] == [1]
    assert plan("t1", [], "gpt-4o", NOW) == []


def test_every_key_carries_the_tenant_hash_tag() -> None:
    lim = _lim(requests_per_minute=1, tokens_per_minute=1, max_concurrent=1, budget_micro_usd=1)
    assert all(c.key.startswith("tw:{t1}:") for c in plan("t1", [lim], "m", NOW))
    with pytest.raises(ValueError):
        plan("bad{tenant}", [lim], "m", NOW)
