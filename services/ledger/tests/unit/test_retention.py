"""The pure retention rule: which monthly partitions expire, and when."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tollway_ledger.retention import (
    add_months,
    expired_partitions,
    partition_month,
    retention_cutoff,
)
from tollway_ledger.settings import LedgerSettings

pytestmark = pytest.mark.unit

NOW = datetime(2026, 11, 29, 19, 0, tzinfo=UTC)


def test_cutoff_keeps_current_month_and_n_before() -> None:
    assert retention_cutoff(NOW, 13) == datetime(2025, 10, 1, tzinfo=UTC)
    assert retention_cutoff(NOW, 1) == datetime(2026, 10, 1, tzinfo=UTC)
    assert retention_cutoff(datetime(2026, 1, 1, tzinfo=UTC), 1) == datetime(2025, 12, 1, tzinfo=UTC)
    assert retention_cutoff(NOW, 0) is None


def test_add_months_crosses_years() -> None:
    jan = datetime(2026, 1, 1, tzinfo=UTC)
    assert add_months(jan, -1) == datetime(2025, 12, 1, tzinfo=UTC)
    assert add_months(jan, 12) == datetime(2027, 1, 1, tzinfo=UTC)
    assert add_months(jan, -25) == datetime(2023, 12, 1, tzinfo=UTC)


def test_expired_partitions_exactly_the_old_ones() -> None:
    names = [f"usage_records_y{y}m{m:02d}" for y in (2025, 2026) for m in range(1, 13)]
    names += ["usage_records_default", "usage_records_y2024m13", "other_table"]
    expired = expired_partitions(names, NOW, 3)
    # Kept: Aug, Sep, Oct (3 before) and Nov 2026 (current) and later.
    assert expired == [f"usage_records_y2025m{m:02d}" for m in range(1, 13)] + [
        f"usage_records_y2026m{m:02d}" for m in range(1, 8)
    ]
    assert expired_partitions(names, NOW, 0) == []


def test_month_boundary_is_utc() -> None:
    from datetime import timedelta, timezone

    # 2026-12-01 00:30 at +01:00 is still November in UTC.
    local = datetime(2026, 12, 1, 0, 30, tzinfo=timezone(timedelta(hours=1)))
    assert retention_cutoff(local, 1) == datetime(2026, 10, 1, tzinfo=UTC)
    assert partition_month("usage_records_y2026m11") == datetime(2026, 11, 1, tzinfo=UTC)


def test_rollups_never_expire_before_rows() -> None:
    with pytest.raises(ValueError):
        LedgerSettings(retention_months=13, rollup_hourly_retention_months=6)
    with pytest.raises(ValueError):
        LedgerSettings(retention_months=0, rollup_daily_retention_months=24)
    ok = LedgerSettings(retention_months=13, rollup_hourly_retention_months=13)
    assert ok.rollup_retention_months["usage_rollup_hourly"] == 13
