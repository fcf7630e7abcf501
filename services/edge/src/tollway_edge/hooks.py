"""Extension points of the request path that later issues fill in.

Both are called on every admitted call, in this order, after validation and
before the provider call; both are no-ops today.
"""

from __future__ import annotations

from typing import Any

from tollway_edge.principals import Principal


async def admit(principal: Principal, model: str, body: dict[str, Any], request_id: str) -> None:
    """Admission (DESIGN.md "The request path" 3) — placeholder, admits everything.

    Issue 3 fills it in: ONE Valkey round trip runs the admission script over
    every scope that applies (key, user, team, tenant; optionally per model)
    with the limits from ``principal.limits``, reserving on all or none.

    Raises (once implemented):
        EdgeError: 429 with ``Retry-After`` and ``x-ratelimit-*`` headers.
    """
    return None


async def redact(principal: Principal, body: dict[str, Any], request_id: str) -> dict[str, Any]:
    """Redaction (DESIGN.md "The request path" 4) — placeholder, returns ``body`` as is.

    The redaction module (``tollway_edge.redaction``, written on another
    branch) replaces this: when ``principal.redaction_policy`` requires it,
    send the texts to the redactor and apply its answer; a redactor that
    cannot answer fails the call closed (503).
    """
    return body
