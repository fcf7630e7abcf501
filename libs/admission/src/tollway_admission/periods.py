"""Calendar arithmetic for admission: minute windows and budget periods.

All of it runs in Python at an injectable clock, and the results reach the
Lua scripts as plain millisecond timestamps (ARGV), so the scripts carry no
time-zone logic and tests can move time freely.

Why the client's clock and not Valkey ``TIME``: budget periods need the
tenant's IANA time zone (``Limit.time_zone``), which Lua cannot resolve; using
one clock for both minute windows and periods keeps a call's windows
consistent. Edge hosts are NTP-synchronised; a skew of a few hundred ms only
moves a minute boundary by that much for that host.

Rules (from ``tollway_contracts.limits``):
- minute windows are calendar minutes in UTC;
- a day starts at local midnight, a week on Monday at local midnight
  (ISO 8601), a month at local midnight on the 1st, in the limit's zone.
  Where local midnight does not exist (a DST jump at 00:00, e.g.
  ``America/Santiago``), the period starts at the first instant after the
  gap, which is what ``zoneinfo`` gives for the non-existent wall time with
  ``fold=0`` normalised through UTC.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

Clock = Callable[[], datetime]
"""Returns the current time as an aware datetime (any zone; UTC preferred)."""


def utc_now() -> datetime:
    """The default clock: ``datetime.now(UTC)``."""
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Window:
    """A half-open interval ``[start, end)`` of UTC time.

    Attributes:
        start: aware UTC datetime.
        end: aware UTC datetime, exclusive.
    """

    start: datetime
    end: datetime

    @property
    def start_ms(self) -> int:
        """Start as Unix epoch milliseconds."""
        return _ms(self.start)

    @property
    def end_ms(self) -> int:
        """End (exclusive) as Unix epoch milliseconds."""
        return _ms(self.end)


def _ms(dt: datetime) -> int:
    return int(dt.timestamp() * 1000)


@lru_cache(maxsize=512)
def _zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def minute_window(now: datetime) -> Window:
    """The calendar minute (UTC) containing ``now``.

    Raises:
        ValueError: ``now`` is naive.
    """
    _require_aware(now)
    start = now.astimezone(UTC).replace(second=0, microsecond=0)
    return Window(start, start + timedelta(minutes=1))


def _local_midnight(d: date, zone: ZoneInfo) -> datetime:
    # A naive local wall time made aware and normalised through UTC: for a
    # wall time inside a DST gap this lands on the first instant after it.
    local = datetime(d.year, d.month, d.day, tzinfo=zone)
    return local.astimezone(UTC)


def period_window(period: str, time_zone: str, now: datetime) -> Window:
    """The budget period (``day`` | ``week`` | ``month``) containing ``now``.

    Args:
        period: ``day``, ``week`` (ISO, starts Monday) or ``month``.
        time_zone: IANA zone name, e.g. ``Europe/Paris``.
        now: aware datetime.

    Returns:
        The period as a UTC :class:`Window`.

    Raises:
        ValueError: unknown period, naive ``now``.
        zoneinfo.ZoneInfoNotFoundError: unknown zone.
    """
    _require_aware(now)
    zone = _zone(time_zone)
    local_day = now.astimezone(zone).date()
    if period == "day":
        first, nxt = local_day, local_day + timedelta(days=1)
    elif period == "week":
        first = local_day - timedelta(days=local_day.weekday())
        nxt = first + timedelta(days=7)
    elif period == "month":
        first = local_day.replace(day=1)
        nxt = (first + timedelta(days=32)).replace(day=1)
    else:
        raise ValueError(f"unknown budget period {period!r}")
    return Window(_local_midnight(first, zone), _local_midnight(nxt, zone))


def _require_aware(now: datetime) -> None:
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("the clock must return an aware datetime")
