"""The composition root: :func:`create_app` builds every adapter (tests call it too).

Start (one ``cleanup_ctx``, released in reverse): open the asyncpg pool,
build the store and the token verifier. ``/readyz`` checks Postgres and
that the views and the token table exist. The
service applies no migrations: it only reads the ledger's views (ledger
migration 0003) and quota's ``catalog.reporting_tokens`` (quota migration 0003).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import structlog
from aiohttp import web

from tollway_reporting.api import LIMITS, STORE, VERIFIER, Limits, add_routes, reporting_middleware
from tollway_reporting.auth import TokenVerifier
from tollway_reporting.settings import ReportingSettings
from tollway_reporting.store import ReportingStore
from tollway_runtime.health import add_health_routes
from tollway_runtime.metrics import add_metrics_route, http_metrics_middleware

SETTINGS: web.AppKey[ReportingSettings] = web.AppKey("settings", ReportingSettings)
log = structlog.get_logger("tollway_reporting.app")


def create_app(settings: ReportingSettings) -> web.Application:
    """Build the reporting app: ``/v1/reporting/*``, ``/dashboard``, ``/healthz``,
    ``/readyz``, ``/metrics`` (``tollway_runtime.metrics``: requests counted and
    timed by ``http_metrics_middleware``). Nothing connects until the app starts."""
    app = web.Application(middlewares=[http_metrics_middleware("reporting"), reporting_middleware])
    app[SETTINGS] = settings
    app[LIMITS] = Limits(settings.max_rows)
    checks = add_health_routes(app)

    async def resources(app: web.Application) -> AsyncIterator[None]:
        pool = await asyncpg.create_pool(settings.postgres_dsn, min_size=1, max_size=settings.pool_max_size)
        store = ReportingStore(pool, settings.statement_timeout_ms)
        app[STORE] = store
        app[VERIFIER] = TokenVerifier(
            store,
            pepper=settings.key_pepper.get_secret_value().encode(),
            admin_token=settings.admin_token.get_secret_value().encode(),
            ttl=settings.token_cache_seconds,
        )
        checks["postgres"] = store.ping
        checks["schema"] = store.schema_ready
        try:
            yield
        finally:
            await pool.close()

    app.cleanup_ctx.append(resources)
    add_routes(app)
    add_metrics_route(app)
    return app
