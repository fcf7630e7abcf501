"""The composition root: ``create_app(settings)`` builds every adapter (tests call it too)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

from aiohttp import web

from tollway_admission import Clock, utc_now
from tollway_contracts.catalogue import parse_catalogue, version_of
from tollway_edge.admission import EdgeAdmission
from tollway_edge.auth import PrincipalsSync, Snapshot
from tollway_edge.cache import ResponseCache
from tollway_edge.catalogue_live import CatalogueWatcher
from tollway_edge.config import EdgeConfig
from tollway_edge.endpoints.chat import chat_completions
from tollway_edge.endpoints.completions import completions
from tollway_edge.endpoints.count_tokens import count_tokens
from tollway_edge.endpoints.embeddings import embeddings
from tollway_edge.endpoints.messages import messages
from tollway_edge.endpoints.models import list_models
from tollway_edge.endpoints.moderations import moderations
from tollway_edge.endpoints.not_served import add_not_served_routes, not_served_handler
from tollway_edge.endpoints.response_items import delete_response, response_input_items, retrieve_response
from tollway_edge.endpoints.response_state import ResponseDirectory
from tollway_edge.endpoints.responses import responses
from tollway_edge.journal import UsageJournal
from tollway_edge.metrics import EVENTS_DROPPED
from tollway_edge.middleware import edge_middleware, on_prepare
from tollway_edge.redaction import EdgeRedaction
from tollway_edge.routing.breaker import Breakers
from tollway_edge.routing.upstream import close_upstreams, open_upstreams
from tollway_edge.state import STATE, EdgeState
from tollway_runtime.health import READINESS_DETAILS, add_health_routes
from tollway_runtime.metrics import metrics_handler
from tollway_runtime.tracing import setup_tracing, tracing_middleware

if TYPE_CHECKING:  # a worker gets an EdgeConfig and never imports pydantic-settings
    from tollway_edge.settings import EdgeSettings


def create_app(settings: EdgeConfig | EdgeSettings, *, admission_clock: Clock = utc_now) -> web.Application:
    """Build the edge application.

    Startup order (cleanup_ctx, reversed at stop): usage journal (this
    process's own directory under ``journal_dir``, locked; orphan journals
    adopted and replayed; Kafka connects in the background and events wait
    on disk meanwhile) → provider sessions → admission (Valkey; starts
    degraded when unreachable) → principals snapshot (loaded before the
    first request is served; its loops keep it current). At stop:
    principals loops, provider sessions, then the journal ships what it
    holds for up to ``journal_flush_seconds`` (the rest stays on disk), and
    last the tracing exporter flushes its spans. Tracing
    (``tollway_edge.tracing``) is on only when the standard ``OTEL_*``
    variables name an OTLP endpoint.

    Args:
        settings: the edge's settings (``EdgeSettings.config()``; an
            ``EdgeSettings`` is converted here).
        admission_clock: the admission clock (minute windows, budget
            periods); tests inject one.

    Raises:
        OSError, yaml.YAMLError, msgspec.ValidationError (a ValueError): a bad catalogue.
    """
    if not isinstance(settings, EdgeConfig):
        settings = settings.config()
    raw_catalogue = Path(settings.catalogue_path).read_bytes()
    catalogue = parse_catalogue(raw_catalogue)  # reloaded when the file changes (catalogue_live)
    snapshot = Snapshot(settings.negative_cache_size)
    journal = UsageJournal(
        settings.journal,
        settings.kafka_bootstrap_servers,
        settings.usage_topic,
        dropped_counter=EVENTS_DROPPED,
        linger_ms=settings.kafka_linger_ms,
    )
    sync = PrincipalsSync(
        snapshot, settings.postgres_dsn, settings.valkey_url, settings.version_poll_interval_seconds
    )
    admission = EdgeAdmission(
        valkey_url=settings.valkey_url,
        failure_mode=settings.admission_failure_mode,
        expected_processes=settings.expected_processes,
        stream_allowance_tokens=settings.stream_allowance_tokens,
        stream_extend_tokens=settings.stream_extend_tokens,
        timeout_seconds=settings.admission_timeout_seconds,
        probe_interval_seconds=settings.admission_probe_interval_seconds,
        max_connections=settings.admission_max_connections,
        pipelined=settings.admission_pipelined,
        quota_url=settings.quota_url or None,
        quota_seed_token=settings.quota_seed_token.get_secret_value(),
        clock=admission_clock,
        enabled=settings.admission_enabled,
    )
    # OTEL_* variables; off (no middleware, no spans) without an endpoint
    tracing = setup_tracing("tollway-edge")
    tracer = tracing.tracer if tracing.enabled else None
    redaction = EdgeRedaction(
        settings.redactor_url_list,
        settings.redaction_deadline_ms,
        tracer=tracer,
        answer_window=settings.answer_holdback_chars,
    )
    state = EdgeState(
        catalogue=catalogue,
        snapshot=snapshot,
        sync=sync,
        pepper=settings.key_pepper.get_secret_value().encode(),
        journal=journal,
        max_body_bytes=settings.max_body_bytes,
        max_in_flight=settings.max_in_flight,
        admission=admission,
        redaction=redaction,
        tracer=tracer,
        catalogue_version=version_of(raw_catalogue),
        breakers=Breakers(catalogue.breaker, settings.valkey_url),
        response_cache=ResponseCache(settings.valkey_url),  # connects on first opted-in call
        response_directory=ResponseDirectory(  # connects on the first stored response
            settings.valkey_url,
            ttl_seconds=settings.response_state_ttl_seconds,
            timeout_seconds=settings.response_state_timeout_seconds,
        ),
    )

    # The tracing middleware (SERVER span from the client's traceparent) runs outside the edge's,
    # so the span is current when the call adopts it and when the canonical line is written.
    middlewares = [edge_middleware] if tracer is None else [tracing_middleware(tracer), edge_middleware]
    app = web.Application(middlewares=middlewares, client_max_size=settings.max_body_bytes)
    app[STATE] = state
    app.on_response_prepare.append(on_prepare)

    async def journal_ctx(_: web.Application) -> AsyncIterator[None]:
        await journal.start()
        yield
        await journal.stop(settings.journal_flush_seconds)

    async def upstreams_ctx(_: web.Application) -> AsyncIterator[None]:
        state.upstreams = await open_upstreams(catalogue)
        yield
        await close_upstreams(state.upstreams)

    async def catalogue_ctx(_: web.Application) -> AsyncIterator[None]:
        watcher = CatalogueWatcher(
            state,
            settings.catalogue_path,
            settings.catalogue_poll_interval_seconds,
            settings.catalogue_retire_seconds,
        )
        await watcher.start()
        yield
        await watcher.stop()

    async def breakers_ctx(_: web.Application) -> AsyncIterator[None]:
        assert state.breakers is not None
        await state.breakers.start()
        yield
        await state.breakers.stop()

    async def admission_ctx(_: web.Application) -> AsyncIterator[None]:
        await admission.start()
        yield
        await admission.stop()

    async def principals_ctx(_: web.Application) -> AsyncIterator[None]:
        await sync.start()
        yield
        await sync.stop()

    async def redaction_ctx(_: web.Application) -> AsyncIterator[None]:
        await redaction.start()
        yield
        await redaction.stop()

    async def response_cache_ctx(_: web.Application) -> AsyncIterator[None]:
        yield
        assert state.response_cache is not None and state.response_directory is not None
        await state.response_cache.close()
        await state.response_directory.close()

    async def tracing_ctx(_: web.Application) -> AsyncIterator[None]:
        yield
        await asyncio.to_thread(tracing.shutdown)  # flush the last spans (OTEL_BSP_EXPORT_TIMEOUT)

    async def streams_ctx(_: web.Application) -> AsyncIterator[None]:
        await state.streams.start()
        yield
        await state.streams.stop()

    app.cleanup_ctx.extend(
        [
            tracing_ctx,
            journal_ctx,
            upstreams_ctx,
            catalogue_ctx,
            breakers_ctx,
            admission_ctx,
            redaction_ctx,
            response_cache_ctx,
            principals_ctx,
            streams_ctx,
        ]
    )

    checks = add_health_routes(app)
    checks["principals"] = lambda: snapshot.loaded
    checks["journal"] = lambda: journal.ready  # Kafka does not matter while the journal has room
    checks["draining"] = lambda: not state.draining  # 503 from SIGTERM on (drain.py)
    app[READINESS_DETAILS]["draining"] = lambda: state.draining
    app[READINESS_DETAILS]["kafka_connected"] = lambda: journal.kafka_connected
    app[READINESS_DETAILS]["admission_mode"] = lambda: admission.mode if admission.enabled else "off"
    app.router.add_post("/v1/chat/completions", chat_completions)
    app.router.add_post("/v1/completions", completions)
    app.router.add_post("/v1/embeddings", embeddings)
    app.router.add_post("/v1/moderations", moderations)
    app.router.add_post("/v1/responses", responses)
    app.router.add_get("/v1/responses/{response_id}", retrieve_response)
    app.router.add_delete("/v1/responses/{response_id}", delete_response)
    app.router.add_get("/v1/responses/{response_id}/input_items", response_input_items)
    app.router.add_post("/v1/responses/{response_id}", not_served_handler)  # input_tokens, compact
    app.router.add_route("*", "/v1/responses/{response_id}/{tail:.*}", not_served_handler)  # cancel...
    app.router.add_post("/v1/messages", messages)
    app.router.add_post("/v1/messages/count_tokens", count_tokens)
    app.router.add_get("/v1/models", list_models)
    add_not_served_routes(app)  # images, audio, files, ...: 404 endpoint_not_served, not unknown_url
    app.router.add_get("/metrics", metrics_handler)  # every worker's metrics (tollway_runtime.metrics)
    return app
