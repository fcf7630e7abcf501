"""``Pins``: an endpoint whose calls are pinned to state a provider keeps
(``pipeline.Endpoint.pins``; today OpenAI's stored responses,
``endpoints.response_state``). Endpoints without such state have ``pins = None``
and are routed, retried and fallen back as usual (``routing.forward``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from tollway_contracts.catalogue import Deployment, Model
from tollway_edge.call import Call
from tollway_edge.routing.forward import Answer

if TYPE_CHECKING:
    from tollway_edge.state import EdgeState


class Pins(Protocol):
    """Provider-held state one endpoint's calls are pinned to."""

    async def pin(
        self, state: EdgeState, call: Call, body: dict[str, Any], entry: Model, deployments: list[Deployment]
    ) -> list[Deployment]:
        """The call's plan (``routing.plan``), narrowed to the one deployment holding the
        state the body names (no fallback), or unchanged when it names none.

        Raises:
            tollway_edge.errors.EdgeError: the state is unknown for the caller (4xx) or
                its whereabouts cannot be read (503).
        """

    async def created(self, state: EdgeState, call: Call, body: dict[str, Any], answer: Answer) -> None:
        """Record which deployment holds the state an answer created, before the client
        gets the answer (a stream: before its first byte is relayed)."""
