"""What every handler shares, built once by ``create_app`` (``app.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from aiohttp import web
from opentelemetry.trace import Tracer

from tollway_contracts.catalogue import Catalogue
from tollway_edge.admission import EdgeAdmission
from tollway_edge.auth import PrincipalsSync, Snapshot
from tollway_edge.cache import ResponseCache
from tollway_edge.call import Call
from tollway_edge.endpoints.response_state import ResponseDirectory
from tollway_edge.journal import UsageJournal
from tollway_edge.redaction import EdgeRedaction
from tollway_edge.routing.breaker import Breakers
from tollway_edge.routing.upstream import Upstream
from tollway_edge.streaming.live import LiveStreams


@dataclass(slots=True)
class EdgeState:
    """The edge's adapters and limits.

    Attributes:
        pepper: the key pepper (``TOLLWAY_KEY_PEPPER``), bytes; never logged.
        max_body_bytes: request bodies beyond this are refused (413), bytes.
        max_in_flight: calls beyond this are shed (503), per process.
        in_flight: calls in flight now in this process.
        tracer: the OpenTelemetry tracer when tracing is on, else None
            (``tollway_edge.tracing``).
        streams: the streams relayed now (client-gone watch, drain deadline).
        catalogue_version: the loaded catalogue file's version
            (``tollway_contracts.catalogue.catalogue_version``), on every
            usage event (price provenance).
        draining: True from SIGTERM on (``drain``): ``/readyz`` answers 503.
        breakers: the deployments' circuit breakers (``routing.breaker``).
        response_cache: the exact response cache (``cache``); used only by
            calls whose key opted in.
        response_directory: which deployment holds each stored response
            (``endpoints.response_state``); None: no Responses state is kept
            (a follow-up or a read of a stored response is a 503).
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
    tracer: Tracer | None = None
    streams: LiveStreams = field(default_factory=LiveStreams)
    catalogue_version: str | None = None
    draining: bool = False
    breakers: Breakers | None = None
    response_cache: ResponseCache | None = None
    response_directory: ResponseDirectory | None = None

    def new_call(self) -> Call:
        """A call wired to this edge's usage journal, admission and tracer."""
        return Call(self.journal, self.admission, self.tracer)


STATE: web.AppKey[EdgeState] = web.AppKey("edge_state", EdgeState)
CALL_KEY: web.RequestKey[Call] = web.RequestKey("tollway_call", Call)
