"""Composition root of the redactor: ``create_app(settings)``.

Routes: ``POST /v1/redact`` (``tollway_contracts.redaction``), ``/healthz``,
``/readyz`` (ready once every worker has loaded the model).
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable

import orjson
import redis.asyncio as aioredis
import structlog
from aiohttp import web

from tollway_contracts.errors import error_json
from tollway_contracts.redaction import REDACT_PATH, REDACTION_TOO_LARGE_CODE, encode, request_from
from tollway_redactor.cache import DetectionCache
from tollway_redactor.metrics import REDACTION_DURATION, REDACTION_ENTITIES, REDACTION_TEXTS
from tollway_redactor.pool import AnalyzerPool, AnalyzerUnavailable
from tollway_redactor.service import Redactor, UnknownEntityTypes
from tollway_redactor.settings import RedactorSettings
from tollway_runtime.health import add_health_routes
from tollway_runtime.metrics import add_metrics_route, http_metrics_middleware
from tollway_runtime.tracing import setup_tracing, tracing_middleware

log = structlog.get_logger("tollway_redactor")

SETTINGS: web.AppKey[RedactorSettings] = web.AppKey("settings", RedactorSettings)
POOL: web.AppKey[AnalyzerPool] = web.AppKey("pool", AnalyzerPool)
REDACTOR: web.AppKey[Redactor] = web.AppKey("redactor", Redactor)


def _error(status: int, message: str, code: str, type_: str = "invalid_request_error") -> web.Response:
    return web.Response(
        status=status, body=error_json(message, type=type_, code=code), content_type="application/json"
    )


async def redact_handler(request: web.Request) -> web.Response:
    """``POST /v1/redact``: 200 ``RedactResponse``; 400 malformed body
    (``invalid_redaction_request``) or an entity type no recognizer emits
    (``unknown_entity_type``); 413
    ``redaction_request_too_large`` over the limits (texts, characters, body
    bytes; never retryable); 503 ``redactor_unavailable`` when the workers
    cannot answer."""
    started = time.perf_counter()
    settings = request.app[SETTINGS]
    try:
        raw = await request.read()
    except web.HTTPRequestEntityTooLarge:
        log.info("redact", status=413, error="body_too_large")
        return _error(413, "redaction request body too large", REDACTION_TOO_LARGE_CODE)
    try:
        body = request_from(orjson.loads(raw))
    except ValueError as exc:  # orjson.JSONDecodeError, msgspec.ValidationError
        # not UTF-8, not JSON (a lone surrogate escape too), wrong shape
        log.info("redact", status=400, error=type(exc).__name__)
        return _error(400, "malformed redaction request", "invalid_redaction_request")
    total_chars = sum(len(t.text) for t in body.texts)
    if len(body.texts) > settings.max_texts or total_chars > settings.max_total_chars:
        log.info("redact", status=413, texts=len(body.texts), chars=total_chars)
        return _error(413, "too many texts or characters in one redaction request", REDACTION_TOO_LARGE_CODE)
    try:
        answer = await request.app[REDACTOR].redact(body)
    except UnknownEntityTypes as exc:
        log.info("redact", status=400, error="unknown_entity_type", entity_types=exc.entity_types)
        return _error(400, str(exc), "unknown_entity_type")
    except AnalyzerUnavailable:
        log.error("redact", status=503, texts=len(body.texts), chars=total_chars)
        return _error(503, "redactor unavailable", "redactor_unavailable", "api_error")
    entities = Counter(d.entity_type for r in answer.results for d in r.detections)
    duration = time.perf_counter() - started
    REDACTION_DURATION.observe(duration)
    REDACTION_TEXTS.labels("hit").inc(answer.cache.hits)
    REDACTION_TEXTS.labels("miss").inc(answer.cache.misses)
    for entity_type, n in entities.items():
        REDACTION_ENTITIES.labels(entity_type).inc(n)
    log.info(
        "redact",
        status=200,
        texts=len(body.texts),
        chars=total_chars,
        cache_hits=answer.cache.hits,
        entities=dict(entities),
        duration_ms=round(duration * 1000, 3),
    )
    return web.Response(body=encode(answer), content_type="application/json")


def _log_loaded(pool: AnalyzerPool) -> Callable[[asyncio.Task[None]], None]:
    def done(task: asyncio.Task[None]) -> None:
        if task.cancelled():
            return
        if task.exception() is not None:
            pool.broken = True
            log.error("model_load_failed", error=repr(task.exception()))
        else:
            log.info("model_loaded", model_version=pool.model_version, workers=pool.workers)

    return done


def create_app(settings: RedactorSettings) -> web.Application:
    """Build the redactor application (tests call this too).

    Resources (worker pool, Valkey client) are acquired in ``cleanup_ctx``:
    the pool's start blocks the app's startup until every worker has loaded
    the model, and ``/readyz`` reports ``model`` until then.
    """
    tracing = setup_tracing("tollway-redactor")  # OTEL_* variables; off (no middleware) without an endpoint
    # A SERVER span per request, continuing the edge's traceparent (never any text).
    middlewares = [http_metrics_middleware("redactor")]
    if tracing.enabled:
        middlewares.append(tracing_middleware(tracing.tracer))
    app = web.Application(middlewares=middlewares, client_max_size=settings.max_body_bytes)
    app[SETTINGS] = settings
    checks = add_health_routes(app)
    pool = AnalyzerPool(settings.engine_config(), settings.worker_count())
    app[POOL] = pool
    checks["model"] = lambda: pool.ready

    async def resources(app: web.Application) -> AsyncIterator[None]:
        client = None
        cache = None
        if settings.cache_enabled:
            client = aioredis.Redis.from_url(
                settings.valkey_url, socket_connect_timeout=0.5, socket_timeout=0.5, health_check_interval=30
            )
            cache = DetectionCache(client, settings.cache_prefix, settings.cache_ttl_seconds)
        app[REDACTOR] = Redactor(
            pool,
            cache,
            settings.default_entity_types,
            settings.default_score_threshold,
            settings.unsupported_language_policy,
        )
        # Load in the background: /healthz answers at once, /readyz says
        # "model" until every worker has loaded it, /v1/redact answers 503.
        loading = asyncio.create_task(pool.start())
        loading.add_done_callback(_log_loaded(pool))
        try:
            yield
        finally:
            if not loading.done():
                loading.cancel()
            await pool.close()
            if client is not None:
                await client.aclose()
            await asyncio.to_thread(tracing.shutdown)  # flush the last spans

    app.cleanup_ctx.append(resources)
    app.router.add_post(REDACT_PATH, redact_handler)
    add_metrics_route(app)  # GET /metrics (tollway_redactor.metrics, tollway_runtime.metrics)
    return app
