"""Admission and load: 429 for a limit or budget, 503 when the edge cannot
admit (load shedding, a full usage journal, unreadable limits, Valkey down in
``refuse`` mode) or authenticate."""

from __future__ import annotations

from tollway_edge.errors.base import EdgeError


def budget_exceeded(scope: str, limit_micro_usd: int, period: str, headers: dict[str, str]) -> EdgeError:
    """429 ``insufficient_quota``/``budget_exceeded``: a budget (micro-USD per period) is spent."""
    return EdgeError(
        429,
        f"Budget exceeded for {scope}: {limit_micro_usd} micro-USD per {period}.",
        type="insufficient_quota",
        code="budget_exceeded",
        headers=headers,
    )


def rate_limited(
    kind: str, scope: str, limit: int, used: int, requested: int, headers: dict[str, str]
) -> EdgeError:
    """429 ``rate_limit_exceeded`` for a requests/tokens per minute or concurrency limit."""
    what = {
        "requests": "requests per minute",
        "tokens": "tokens per minute",
        "concurrency": "concurrent calls",
    }
    return EdgeError(
        429,
        f"Rate limit reached for {what[kind]} on {scope}: limit {limit}, used {used}, requested {requested}.",
        type=kind if kind != "concurrency" else "requests",
        code="rate_limit_exceeded",
        headers=headers,
    )


def overloaded() -> EdgeError:
    """503 when the process is at ``TOLLWAY_EDGE_MAX_IN_FLIGHT`` (load shedding)."""
    return EdgeError(503, "The gateway is at capacity; retry shortly.", type="api_error", code="overloaded")


def journal_full() -> EdgeError:
    """503 ``journal_full`` while the usage journal has no room (``refuse`` policy,
    ``UsageJournal.has_room``): the call is not admitted, so no event is written."""
    return EdgeError(
        503,
        "The gateway cannot record usage right now; retry shortly.",
        type="api_error",
        code="journal_full",
    )


def limits_invalid() -> EdgeError:
    """503 when the key's stored ``limits`` cannot be read (fail closed)."""
    return EdgeError(503, "The key's limits cannot be read.", type="api_error", code="limits_invalid")


def admission_unavailable() -> EdgeError:
    """503 while Valkey is unreachable in ``refuse`` mode."""
    return EdgeError(
        503,
        "Rate limiting is temporarily unavailable; retry shortly.",
        type="api_error",
        code="admission_unavailable",
    )


def auth_unavailable() -> EdgeError:
    """503 while principals are not loaded or an unknown id cannot be looked up."""
    return EdgeError(
        503, "Authentication is temporarily unavailable.", type="api_error", code="auth_unavailable"
    )
