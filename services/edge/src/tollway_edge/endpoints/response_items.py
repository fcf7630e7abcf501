"""``GET``/``DELETE /v1/responses/{id}`` and ``GET /v1/responses/{id}/input_items``:
OpenAI's stored responses, read and deleted on the deployment holding them.

Like ``count_tokens`` these consume no tokens: the call is authenticated,
checked against the key's allow-list (the response's model) and its
residency policy, and rate-limited on the key's **requests per minute**
limits only — never charged to token limits, budgets or concurrency — and
emits **no usage event** (``Call.metered = False``): only the metric
``tollway_response_state_total{op,outcome}`` (``op`` = ``get``, ``delete``,
``input_items``; ``outcome`` = the HTTP status).

The deployment is the one recorded when the response was created
(``endpoints.response_state``); the call goes there and nowhere else — no
fallback: its retries, then its error, are the answer. An id not recorded
for the caller's tenant (never created through this gateway, another
tenant's, deleted, expired after ``response_state_ttl_seconds``, or held by
a deployment since removed from the catalogue) is a 404
``response_not_found``; Valkey unreachable is a 503
``response_state_unavailable`` (retryable). The query string is passed
through (``include[]``, ``after``, ``limit``, ``order``...), except
``stream=true`` on ``GET``, a 400 (a replayed stream is not relayed). A
``DELETE`` the provider answers 200 or 404 removes the record.
"""

from __future__ import annotations

from aiohttp import web

from tollway_contracts.catalogue import Deployment
from tollway_edge.auth import authenticate
from tollway_edge.endpoints.count_tokens import forward_unmetered, requests_only
from tollway_edge.endpoints.response_state import (
    Holder,
    response_not_found,
    response_state_unavailable,
    valid_id,
)
from tollway_edge.errors import EdgeError, bad_request, model_not_allowed, model_not_in_allowed_regions
from tollway_edge.metrics import RESPONSE_STATE
from tollway_edge.routing.forward import Target
from tollway_edge.routing.plan import admitted
from tollway_edge.state import CALL_KEY, STATE, EdgeState


class _NoBody:
    """The outbound of a ``GET``/``DELETE``: nothing is sent."""

    def encoded(self, upstream_model: str) -> bytes:
        """No body."""
        return b""


_NO_BODY = _NoBody()


def _deployment(state: EdgeState, holder: Holder) -> Deployment | None:
    """The catalogue's deployment that holds the response, if still configured."""
    entry = state.catalogue.models.get(holder.model)
    if entry is None or holder.provider not in state.upstreams:
        return None
    held = [d for d in entry.deployments if holder.holds(d)]
    named = [d for d in held if d.name is not None and d.name == holder.deployment]
    return (named or held)[0] if held else None


async def _stored(request: web.Request, op: str, method: str, suffix: str) -> web.StreamResponse:
    """One read or delete of a stored response (module doc).

    Raises:
        tollway_edge.errors.EdgeError: 401, 400 (``stream=true``), 403 (allow-list,
            regions), 404 ``response_not_found``, 429 (requests per minute),
            502 (the deployment did not answer), 503 (Valkey).
    """
    state = request.app[STATE]
    call = request[CALL_KEY]
    call.metered = False  # nothing generated: no usage event, a metric only
    response_id = request.match_info["response_id"]
    try:
        call.principal = await authenticate(state.snapshot, state.sync, state.pepper, request.headers)
        if method == "GET" and request.query.get("stream", "").lower() == "true":
            raise bad_request("Streaming a stored response is not served by this gateway.", "stream")
        directory = state.response_directory
        if directory is None:
            raise response_state_unavailable()
        tenant = call.principal.tenant_id
        holder = await directory.get(tenant, response_id) if valid_id(response_id) else None
        deployment = _deployment(state, holder) if holder is not None else None
        if holder is None or deployment is None:
            raise response_not_found(response_id)
        call.model = holder.model
        if not call.principal.may_use(holder.model):
            raise model_not_allowed(holder.model)
        if not admitted(deployment, call.principal.allowed_regions):
            raise model_not_in_allowed_regions(holder.model)
        entry = state.catalogue.models[holder.model]
        if state.admission is not None:
            call.ticket = await state.admission.admit(
                requests_only(call.principal), holder.model, entry, 0, 0, call.request_id, False
            )
        query = tuple(request.query.items())
        target = Target(f"/responses/{response_id}{suffix}", _NO_BODY, method=method, query=query)

        async def targets() -> dict[str, Target]:
            return {deployment.provider: target}

        out = await forward_unmetered(
            call, state, state.upstreams, state.catalogue.retry_of, [deployment], targets, False
        )
        if method == "DELETE" and out.status in (200, 404):
            await directory.delete(tenant, response_id)
        return out
    except EdgeError as err:
        call.status, call.error_type = err.status, err.code
        raise
    finally:
        RESPONSE_STATE.labels(op, str(call.status or 500)).inc()


async def retrieve_response(request: web.Request) -> web.StreamResponse:
    """``GET /v1/responses/{response_id}`` (module doc)."""
    return await _stored(request, "get", "GET", "")


async def delete_response(request: web.Request) -> web.StreamResponse:
    """``DELETE /v1/responses/{response_id}`` (module doc)."""
    return await _stored(request, "delete", "DELETE", "")


async def response_input_items(request: web.Request) -> web.StreamResponse:
    """``GET /v1/responses/{response_id}/input_items`` (module doc)."""
    return await _stored(request, "input_items", "GET", "/input_items")
