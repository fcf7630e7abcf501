"""Tollway admission: reservations on Valkey counters (DESIGN.md "Reservations").

The Lua scripts in ``lua/`` and :mod:`tollway_admission.keys` alone define
the layout of counters and reservation records; use :class:`Admission`.
"""

from typing import Any

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
from tollway_admission.errors import (
    NoScriptError,
    ValkeyConnectionError,
    ValkeyError,
    ValkeyResponseError,
    ValkeyTimeoutError,
    is_noscript,
    is_unavailable,
    unavailable_errors,
)
from tollway_admission.node import NodeClient, NodePipeline, PubSub
from tollway_admission.periods import Clock, Window, minute_window, period_window, utc_now
from tollway_admission.pipelined import PipelinedClient
from tollway_admission.plan import CheckKind, PlannedCheck, applicable, plan
from tollway_admission.registry import EdgeRegistry, Heartbeat
from tollway_admission.roundtrips import VALKEY_ROUND_TRIPS, count_round_trips
from tollway_admission.urls import (
    ValkeyClient,
    ValkeyTarget,
    drop_idle_connections,
    is_cluster_client,
    mask_url,
    node_url,
    parse_valkey_url,
    valkey_client,
)


def __getattr__(name: str) -> Any:
    """``VALKEY_UNAVAILABLE``: every "cannot answer now" class, redis-py's included
    (imports redis-py; code that must not load it uses :func:`is_unavailable`)."""
    if name == "VALKEY_UNAVAILABLE":
        from tollway_admission import urls

        return urls.VALKEY_UNAVAILABLE
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    "NoScriptError",
    "NodeClient",
    "NodePipeline",
    "PipelinedClient",
    "PubSub",
    "PlannedCheck",
    "Reservation",
    "SeedProvider",
    "SeedRequest",
    "SettleResult",
    "VALKEY_ROUND_TRIPS",
    "VALKEY_UNAVAILABLE",
    "ValkeyClient",
    "ValkeyConnectionError",
    "ValkeyError",
    "ValkeyResponseError",
    "ValkeyTimeoutError",
    "ValkeyTarget",
    "Window",
    "applicable",
    "count_round_trips",
    "drop_idle_connections",
    "is_cluster_client",
    "is_noscript",
    "is_unavailable",
    "mask_url",
    "minute_window",
    "node_url",
    "openai_duration",
    "parse_valkey_url",
    "period_window",
    "plan",
    "unavailable_errors",
    "utc_now",
    "valkey_client",
]
