from datetime import UTC, datetime, timedelta

import pytest

from tollway_admission import keys as K
from tollway_admission import minute_window, openai_duration, period_window
from tollway_admission.admission import applicable
from tollway_contracts.limits import Limit

pytestmark = pytest.mark.unit


def test_minute_window_is_the_utc_calendar_minute():
    w = minute_window(datetime(2026, 3, 10, 12, 0, 59, 999000, tzinfo=UTC))
    assert w.start == datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
    assert w.end - w.start == timedelta(minutes=1)


def test_naive_clock_is_rejected():
    with pytest.raises(ValueError):
        minute_window(datetime(2026, 3, 10))


def test_month_in_paris_starts_at_local_midnight_on_the_first():
    # 23:30 UTC on 31 January is 00:30 on 1 February in Paris (UTC+1).
    w = period_window("month", "Europe/Paris", datetime(2026, 1, 31, 23, 30, tzinfo=UTC))
    assert w.start == datetime(2026, 1, 31, 23, 0, tzinfo=UTC)
    assert w.end == datetime(2026, 2, 28, 23, 0, tzinfo=UTC)
    # In UTC the same instant is still January.
    u = period_window("month", "UTC", datetime(2026, 1, 31, 23, 30, tzinfo=UTC))
    assert u.start == datetime(2026, 1, 1, tzinfo=UTC)


def test_month_across_dst_change_in_paris():
    # March 2026: Paris switches to UTC+2 on the 29th; April starts at 22:00 UTC.
    w = period_window("month", "Europe/Paris", datetime(2026, 3, 15, tzinfo=UTC))
    assert w.start == datetime(2026, 2, 28, 23, 0, tzinfo=UTC)
    assert w.end == datetime(2026, 3, 31, 22, 0, tzinfo=UTC)


def test_week_starts_monday_local_midnight():
    # Wednesday 2026-03-11 10:00 UTC in New York (UTC-4 after 8 March).
    w = period_window("week", "America/New_York", datetime(2026, 3, 11, 10, tzinfo=UTC))
    assert w.start == datetime(2026, 3, 9, 4, 0, tzinfo=UTC)
    assert w.end == datetime(2026, 3, 16, 4, 0, tzinfo=UTC)


def test_day_with_23_hours():
    w = period_window("day", "Europe/Paris", datetime(2026, 3, 29, 12, tzinfo=UTC))
    assert w.end - w.start == timedelta(hours=23)


def test_december_rolls_into_next_year():
    w = period_window("month", "Asia/Tokyo", datetime(2026, 12, 20, tzinfo=UTC))
    assert w.end == datetime(2026, 12, 31, 15, 0, tzinfo=UTC)


def test_unknown_period():
    with pytest.raises(ValueError):
        period_window("year", "UTC", datetime(2026, 1, 1, tzinfo=UTC))


def test_openai_duration_format():
    assert openai_duration(0.25) == "250ms"
    assert openai_duration(1) == "1s"
    assert openai_duration(40.2) == "41s"
    assert openai_duration(360) == "6m0s"
    assert openai_duration(3601) == "1h0m1s"


def test_keys_share_the_tenant_hash_tag_and_escape_ids():
    lim = Limit(scope="key", scope_id="a@b:c", model="gpt-4o")
    k = K.rpm_key("t42", lim, 60)
    assert k.startswith("tw:{t42}:rpm:")
    assert "a%40b%3Ac@gpt-4o" in k
    other = Limit(scope="key", scope_id="a", model="b:c")
    assert K.scope_token(lim) != K.scope_token(other)
    with pytest.raises(ValueError):
        K.prefix("t{1}")


def test_applicable_limits_by_model():
    a = Limit(scope="key", scope_id="k", requests_per_minute=1)
    b = Limit(scope="key", scope_id="k", model="m1", requests_per_minute=1)
    c = Limit(scope="key", scope_id="k", model="m2", requests_per_minute=1)
    assert applicable([a, b, c], "m1") == [a, b]
    assert applicable([a, b, c], None) == [a]
