"""Pure retention and orphan rules (no I/O): which monthly partitions and
rollup buckets have expired, and when a call counts as orphaned.

Retention rule (README "Retention"): with ``months = N > 0`` the current UTC
month and the N months before it are kept; a monthly partition is dropped once
its whole month starts before ``cutoff = first day of the current UTC month − N
months``. So every record is kept at least N full months, at most N + 1.
``N = 0`` keeps everything forever.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

# Partitions of ledger.usage_records are named usage_records_yYYYYmMM
# (migration 0001, ledger.ensure_usage_partition). Anything else is never dropped.
PARTITION_NAME = re.compile(r"^usage_records_y(\d{4})m(\d{2})$")


def month_start(ts: datetime) -> datetime:
    """The first instant of ``ts``'s UTC month (aware UTC).

    Raises:
        ValueError: ``ts`` is naive.
    """
    if ts.tzinfo is None:
        raise ValueError("timestamps must be timezone-aware (UTC)")
    return ts.astimezone(UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0)


def add_months(month: datetime, months: int) -> datetime:
    """``month`` (a month start) moved by ``months`` (may be negative)."""
    index = month.year * 12 + (month.month - 1) + months
    return month.replace(year=index // 12, month=index % 12 + 1)


def retention_cutoff(now: datetime, months: int) -> datetime | None:
    """The first month start that is KEPT, or None when ``months == 0`` (forever).

    Example: now 2026-11-29, months 13 → 2025-10-01 (Sep 2025 and older expire).

    Raises:
        ValueError: ``months`` is negative or ``now`` is naive.
    """
    if months < 0:
        raise ValueError("retention months must be >= 0")
    if months == 0:
        return None
    return add_months(month_start(now), -months)


def partition_month(name: str) -> datetime | None:
    """The UTC month a ``usage_records_yYYYYmMM`` partition holds, or None for other names."""
    m = PARTITION_NAME.match(name)
    if m is None:
        return None
    year, month = int(m.group(1)), int(m.group(2))
    if not 1 <= month <= 12:
        return None
    return datetime(year, month, 1, tzinfo=UTC)


def expired_partitions(names: list[str], now: datetime, months: int) -> list[str]:
    """The partition names (of ``names``) whose whole month is past retention, oldest first.

    Names not of the form ``usage_records_yYYYYmMM`` are never returned.
    """
    cutoff = retention_cutoff(now, months)
    if cutoff is None:
        return []
    dated = [(partition_month(n), n) for n in names]
    return [n for month, n in sorted(d for d in dated if d[0] is not None) if month < cutoff]  # type: ignore[operator]


def orphan_cutoff(now: datetime, orphan_after_seconds: float) -> datetime:
    """Calls still in flight that started before this instant are orphaned."""
    return now - timedelta(seconds=orphan_after_seconds)
