"""Extension points of the request path that later issues fill in.

Both are called on every admitted call, in this order, after validation and
before the provider call.
"""

from __future__ import annotations

from typing import Any

from tollway_contracts.catalogue import Model
from tollway_edge.admission import EdgeAdmission, Ticket
from tollway_edge.principals import Principal
from tollway_edge.redaction_step import EdgeRedaction


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


async def redact(redaction: EdgeRedaction | None, call: Any, body: dict[str, Any]) -> dict[str, Any]:
    """Redaction (DESIGN.md "The request path" 4): when the principal's
    effective ``redaction_policy`` is not ``off``, send every text the
    provider would see to the redactor and apply its answer
    (``tollway_edge.redaction_step.EdgeRedaction.apply``); records the
    ``RedactionSummary`` and the reversible mapping on ``call``.

    Returns:
        The body to forward (``body`` itself when redaction is off).

    Raises:
        EdgeError: 400 ``pii_detected`` (``block``, entity types only); 503
            ``redaction_unavailable`` (fail closed: nothing reaches the provider).
    """
    if redaction is None:
        return body
    return await redaction.apply(call, body)
