"""Where each stored response lives: the Responses API's state, pinned to its deployment.

A response the provider stores (``store`` is not false) lives on the
deployment that created it, and only there: a follow-up naming it
(``previous_response_id``) and ``GET``/``DELETE /v1/responses/{id}`` and
``GET /v1/responses/{id}/input_items`` must reach that deployment, never a
fallback. So when a ``POST /v1/responses`` answers 200 (JSON, or a stream's
first event ``response.created``), the edge records

    ``tw:resp:v1:{<tenant>}:<response id>`` → ``{t, m, p, u, d}``

(the tenant; the catalogue model; the provider, its upstream model and the
deployment's name that answered) with a TTL of
``EdgeSettings.response_state_ttl_seconds`` (30 days by default). The tenant
is the key's hash tag (DESIGN.md "Valkey Cluster") and part of the key: a
tenant never finds another tenant's response (404, as for an unknown id).

The record is written before the client gets the answer: a non-streamed
answer's JSON is read for its ``id``; a stream's first SSE event is read
whole (at most :data:`MAX_FIRST_EVENT_BYTES`) before the relay starts,
which adds one Valkey round trip to a Responses stream's first byte. A
record that cannot be written (Valkey down or slow) is logged
(``response_state_unrecorded``) and counted
(``tollway_response_state_total{op="record",outcome="error"}``); the call
itself succeeds, and its response cannot be continued, read or deleted
through the gateway later (404). A lookup that Valkey cannot answer is a
503 ``response_state_unavailable`` (retryable), never a guess.

:class:`ResponsePins` is the ``pipeline.Pins`` of ``POST /v1/responses``: a
call without ``previous_response_id`` is routed (and falls back) like any
call; with one, its plan is the one deployment holding that response.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson
import structlog

from tollway_admission.urls import valkey_client
from tollway_contracts.catalogue import Deployment, Model
from tollway_edge.call import Call
from tollway_edge.errors import EdgeError, model_not_in_allowed_regions
from tollway_edge.metrics import RESPONSE_STATE
from tollway_edge.routing.forward import Answer
from tollway_edge.streaming.sse import SSESplitter

if TYPE_CHECKING:
    from tollway_edge.state import EdgeState

log = structlog.get_logger("tollway_edge.response_state")

KEY_PREFIX = "tw:resp:v1:"
MAX_FIRST_EVENT_BYTES = 64 * 1024
"""A stream's ``response.created`` event is read whole up to this size for its id."""
_ID = re.compile(r"[A-Za-z0-9_-]{1,200}")


def valid_id(response_id: str) -> bool:
    """True for an id the edge may record and put in a provider URL (letters,
    digits, ``_`` and ``-``; OpenAI's are ``resp_<hex>``)."""
    return _ID.fullmatch(response_id) is not None


def state_key(tenant_id: str, response_id: str) -> str:
    """``tw:resp:v1:{<tenant>}:<id>`` (the tenant is the hash tag)."""
    return f"{KEY_PREFIX}{{{tenant_id}}}:{response_id}"


@dataclass(frozen=True, slots=True)
class Holder:
    """The deployment holding one stored response.

    Attributes:
        tenant_id: the tenant of the key that created it.
        model: the catalogue model it was created with.
        provider, upstream_model: the catalogue provider and its model that answered.
        deployment: that deployment's name, when the catalogue names it.
    """

    tenant_id: str
    model: str
    provider: str
    upstream_model: str
    deployment: str | None = None

    def encode(self) -> bytes:
        """The stored JSON."""
        return orjson.dumps(
            {
                "t": self.tenant_id,
                "m": self.model,
                "p": self.provider,
                "u": self.upstream_model,
                "d": self.deployment,
            }
        )

    @classmethod
    def decode(cls, raw: bytes) -> Holder:
        """Read :meth:`encode`'s JSON.

        Raises:
            ValueError, KeyError, TypeError: not such a record.
        """
        obj = orjson.loads(raw)
        return cls(str(obj["t"]), str(obj["m"]), str(obj["p"]), str(obj["u"]), obj.get("d"))

    def holds(self, deployment: Deployment) -> bool:
        """True when ``deployment`` is the one that answered (same provider and upstream model)."""
        return deployment.provider == self.provider and deployment.upstream_model == self.upstream_model


def response_state_unavailable() -> EdgeError:
    """503 (retryable) when Valkey cannot say which deployment holds a stored response."""
    return EdgeError(
        503,
        "The stored-response directory is temporarily unavailable; retry shortly.",
        type="api_error",
        code="response_state_unavailable",
    )


def response_not_found(response_id: str) -> EdgeError:
    """404 (OpenAI's wording): no response ``response_id`` is recorded for the caller's
    tenant (not created through this gateway, another tenant's, deleted or expired)."""
    return EdgeError(404, f"Response with id '{response_id}' not found.", code="response_not_found")


def previous_response_not_found(response_id: str) -> EdgeError:
    """400, as OpenAI answers an unknown ``previous_response_id``."""
    return EdgeError(
        400,
        f"Previous response with id '{response_id}' not found.",
        code="previous_response_not_found",
        param="previous_response_id",
    )


def previous_response_elsewhere(response_id: str, model: str) -> EdgeError:
    """400: the response is held by a deployment that does not serve ``model``."""
    return EdgeError(
        400,
        f"Previous response with id '{response_id}' is held by a deployment that does not serve "
        f"the model '{model}'; continue it with the model that created it.",
        code="previous_response_elsewhere",
        param="previous_response_id",
    )


class ResponseDirectory:
    """The Valkey records (module doc): one SET EX per stored response, one GET per lookup.

    Args:
        valkey_url: the Valkey URL (``tollway_admission.urls`` forms).
        ttl_seconds: how long a record lives, s.
        timeout_seconds: bound on one round trip, s.
    """

    def __init__(self, valkey_url: str, *, ttl_seconds: int, timeout_seconds: float = 0.5) -> None:
        self._url = valkey_url
        self.ttl_seconds = ttl_seconds
        self._timeout = timeout_seconds
        self._client: Any = None

    def _valkey(self) -> Any:
        if self._client is None:  # created on first use: an edge serving no responses opens nothing
            self._client = valkey_client(self._url, max_connections=64, timeout=self._timeout, service="edge")
        return self._client

    async def put(self, response_id: str, holder: Holder) -> bool:
        """Record ``holder`` for ``response_id``; False (logged, counted) when Valkey fails."""
        try:
            key = state_key(holder.tenant_id, response_id)
            await asyncio.wait_for(
                self._valkey().set(key, holder.encode(), ex=self.ttl_seconds), self._timeout
            )
        except Exception as err:  # noqa: BLE001 - the call is answered anyway; only follow-ups lose it
            RESPONSE_STATE.labels("record", "error").inc()
            log.warning("response_state_unrecorded", error=type(err).__name__)
            return False
        RESPONSE_STATE.labels("record", "stored").inc()
        return True

    async def get(self, tenant_id: str, response_id: str) -> Holder | None:
        """The holder of ``response_id`` for ``tenant_id``, or None (never recorded for it).

        Raises:
            tollway_edge.errors.EdgeError: 503 ``response_state_unavailable``
                (Valkey error or timeout).
        """
        try:
            raw = await asyncio.wait_for(self._valkey().get(state_key(tenant_id, response_id)), self._timeout)
        except Exception as err:  # noqa: BLE001 - any Valkey failure: the answer is unknown, not "absent"
            RESPONSE_STATE.labels("lookup", "error").inc()
            log.warning("response_state_unavailable", error=type(err).__name__)
            raise response_state_unavailable() from None
        if raw is None:
            return None
        try:
            return Holder.decode(raw)
        except (ValueError, KeyError, TypeError):
            log.warning("response_state_unreadable")
            return None

    async def delete(self, tenant_id: str, response_id: str) -> None:
        """Forget the record (a failure is logged: the record then expires with its TTL)."""
        try:
            await asyncio.wait_for(self._valkey().delete(state_key(tenant_id, response_id)), self._timeout)
        except Exception as err:  # noqa: BLE001 - the provider deleted it; a stale record only 404s later
            log.warning("response_state_not_deleted", error=type(err).__name__)

    async def close(self) -> None:
        """Close the Valkey client, if one was opened."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None


def _json_id(raw: bytes) -> str | None:
    """The ``id`` of a Responses JSON object, or None."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    rid = obj.get("id") if type(obj) is dict else None
    return rid if type(rid) is str else None


async def _stream_id(answer: Answer) -> str | None:
    """The response id from a stream's first event (``response.created``), read whole:
    more of the stream is read into ``answer.first`` until that event is complete."""
    splitter = SSESplitter()
    first = answer.first or b""
    events = splitter.feed(first)
    while not events and len(first) < MAX_FIRST_EVENT_BYTES:
        try:
            more = await answer.response.content.readany()
        except Exception:  # noqa: BLE001 - the relay meets (and bills) the same failure on its next read
            break
        if not more:
            break
        first += more
        events = splitter.feed(more)
    answer.first = first
    if not events:
        return None
    obj = events[0].json()
    response = obj.get("response") if type(obj) is dict else None
    rid = response.get("id") if type(response) is dict else None
    return rid if type(rid) is str else None


class ResponsePins:
    """``POST /v1/responses``' state pinning (module doc; a ``pipeline.Pins``)."""

    async def pin(
        self, state: EdgeState, call: Call, body: dict[str, Any], entry: Model, deployments: list[Deployment]
    ) -> list[Deployment]:
        """The call's plan: unchanged without ``previous_response_id``; else the one
        planned deployment holding that response.

        Raises:
            tollway_edge.errors.EdgeError: 400 ``previous_response_not_found`` (not
                recorded for the caller's tenant), 400 ``previous_response_elsewhere``
                (held by a deployment of another model), 403
                ``model_not_in_allowed_regions`` (held outside the caller's regions),
                503 ``response_state_unavailable``.
        """
        previous = body.get("previous_response_id")
        if previous is None:
            return deployments
        assert call.principal is not None and type(previous) is str  # authenticated; parse checked the type
        directory = state.response_directory
        if directory is None:
            raise response_state_unavailable()
        holder = await directory.get(call.principal.tenant_id, previous) if valid_id(previous) else None
        if holder is None:
            raise previous_response_not_found(previous)
        pinned = [d for d in deployments if holder.holds(d)]
        if pinned:
            named = [d for d in pinned if d.name is not None and d.name == holder.deployment]
            return (named or pinned)[:1]
        model = str(body.get("model"))
        if any(holder.holds(d) for d in entry.deployments):
            raise model_not_in_allowed_regions(model)
        raise previous_response_elsewhere(previous, model)

    async def created(self, state: EdgeState, call: Call, body: dict[str, Any], answer: Answer) -> None:
        """Record which deployment holds the response a 200 created (module doc);
        nothing for ``store: false``, an error status or an answer without an id."""
        if answer.response.status != 200 or body.get("store") is False or state.response_directory is None:
            return
        if call.principal is None or call.provider is None or call.upstream_model is None:
            return
        rid = _json_id(answer.body) if answer.body is not None else await _stream_id(answer)
        if rid is None or not valid_id(rid):
            log.warning("response_state_no_id")
            return
        holder = Holder(
            call.principal.tenant_id, str(call.model), call.provider, call.upstream_model, call.deployment
        )
        if state.response_directory is not None:
            await state.response_directory.put(rid, holder)
