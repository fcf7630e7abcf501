"""What every handler shares, built once by ``create_app`` (``app.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from aiohttp import web

from tollway_contracts.catalogue import Catalogue
from tollway_edge.admission import EdgeAdmission
from tollway_edge.auth import PrincipalsSync, Snapshot
from tollway_edge.call import Call
from tollway_edge.journal import UsageJournal
from tollway_edge.redaction import EdgeRedaction
from tollway_edge.routing.breaker import Breakers
from tollway_edge.routing.upstream import Upstream


@dataclass(slots=True)
class EdgeState:
    """The edge's adapters and limits.

    Attributes:
        pepper: the key pepper (``TOLLWAY_KEY_PEPPER``), bytes; never logged.
        max_body_bytes: request bodies beyond this are refused (413), bytes.
        max_in_flight: calls beyond this are shed (503), per process.
        in_flight: calls in flight now in this process.
        catalogue_version: the loaded catalogue file's version
            (``tollway_contracts.catalogue.catalogue_version``), on every
            usage event (price provenance).
        breakers: the deployments' circuit breakers (``routing.breaker``).
    """

    catalogue: Catalogue
    snapshot: Snapshot
    sync: PrincipalsSync | None
    pepper: bytes
    journal: UsageJournal
    upstreams: dict[str, Upstream] = field(default_factory=dict)
    max_body_bytes: int = 4 * 1024 * 1024
    max_in_flight: int = 4096
    in_flight: int = 0
    admission: EdgeAdmission | None = None
    redaction: EdgeRedaction | None = None
    catalogue_version: str | None = None
    breakers: Breakers | None = None

    def new_call(self) -> Call:
        """A call wired to this edge's usage journal and admission."""
        return Call(self.journal, self.admission)


STATE: web.AppKey[EdgeState] = web.AppKey("edge_state", EdgeState)
CALL_KEY: web.RequestKey[Call] = web.RequestKey("tollway_call", Call)
