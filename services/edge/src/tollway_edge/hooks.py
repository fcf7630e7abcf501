"""Extension points of the request path that later issues fill in.

Both are called on every admitted call, in this order, after validation and
before the provider call. ``redact`` is a no-op until the redaction module lands.
"""

from __future__ import annotations

from typing import Any

from tollway_contracts.catalogue import Model

from tollway_edge.admission import EdgeAdmission, Ticket
from tollway_edge.principals import Principal


async def admit(
    admission: EdgeAdmission,
    principal: Principal,
    model: str,
    entry: Model,
    body: dict[str, Any],
    request_id: str,
    stream: bool,
) -> Ticket | None:
    """Admission (DESIGN.md "The request path" 3): ONE Valkey round trip runs
    the admission script over every scope that applies (key, user, team,
    tenant; optionally per model) with the limits from ``principal.limits``,
    reserving the call's upper bound on all or none (``tollway_edge.admission``).

    Returns:
        The reservation ticket, or None when no limit applies.

    Raises:
        EdgeError: 429 with ``Retry-After`` and ``x-ratelimit-*`` headers;
            503 when Valkey is unreachable in ``refuse`` mode.
    """
    return await admission.admit(principal, model, entry, body, request_id, stream)


async def redact(principal: Principal, body: dict[str, Any], request_id: str) -> dict[str, Any]:
    """Redaction (DESIGN.md "The request path" 4) — placeholder, returns ``body`` as is.

    The redaction module (``tollway_edge.redaction``, written on another
    branch) replaces this: when ``principal.redaction_policy`` requires it,
    send the texts to the redactor and apply its answer; a redactor that
    cannot answer fails the call closed (503).
    """
    return body
