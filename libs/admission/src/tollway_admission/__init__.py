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
from tollway_admission.registry import EdgeRegistry, Heartbeat
from tollway_admission.roundtrips import VALKEY_ROUND_TRIPS, count_round_trips
from tollway_admission.urls import (
    VALKEY_UNAVAILABLE,
    ValkeyClient,
    ValkeyTarget,
    drop_idle_connections,
    mask_url,
    node_url,
    parse_valkey_url,
    valkey_client,
)

__all__ = [
    "Admission",
    "AdmitResult",
    "BudgetUsage",
    "EdgeRegistry",
    "Heartbeat",
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
    "VALKEY_ROUND_TRIPS",
    "VALKEY_UNAVAILABLE",
    "ValkeyClient",
    "ValkeyTarget",
    "Window",
    "applicable",
    "count_round_trips",
    "drop_idle_connections",
    "mask_url",
    "minute_window",
    "node_url",
    "openai_duration",
    "parse_valkey_url",
    "period_window",
    "plan",
    "utc_now",
    "valkey_client",
]
