"""Tollway admission: reservations on Valkey counters (DESIGN.md "Reservations").

The Lua scripts in ``lua/`` and :mod:`tollway_admission.keys` alone define
the layout of counters and reservation records; use :class:`Admission`.
"""

from tollway_admission.admission import (
    Admission,
    AdmitResult,
    BudgetUsage,
    ExpiredReservation,
    ExtendResult,
    LimitCheck,
    Reservation,
    SeedProvider,
    SeedRequest,
    SettleResult,
    openai_duration,
)
from tollway_admission.periods import Clock, Window, minute_window, period_window, utc_now
from tollway_admission.pipelined import PipelinedClient
from tollway_admission.plan import CheckKind, PlannedCheck, applicable, plan

__all__ = [
    "Admission",
    "AdmitResult",
    "BudgetUsage",
    "CheckKind",
    "Clock",
    "ExpiredReservation",
    "ExtendResult",
    "LimitCheck",
    "PipelinedClient",
    "PlannedCheck",
    "Reservation",
    "SeedProvider",
    "SeedRequest",
    "SettleResult",
    "Window",
    "applicable",
    "minute_window",
    "openai_duration",
    "period_window",
    "plan",
    "utc_now",
]
