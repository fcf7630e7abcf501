"""The composition root: :func:`create_app` builds every adapter (tests call it too).

Start order (one ``cleanup_ctx``, released in reverse): apply the ``catalog``
migrations (yoyo, in a thread; a failure stops the start), open the Postgres
pool, connect Valkey. ``/readyz`` checks Postgres, Valkey and that the
migrations were applied.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import structlog
from aiohttp import web
from psycopg_pool import AsyncConnectionPool
from redis.asyncio import Redis

from tollway_quota.api import ADMIN_TOKEN, PEPPER, PUBLISHER, STORE, add_admin_routes, admin_middleware
from tollway_quota.invalidations import InvalidationPublisher
from tollway_quota.reporting_tokens import add_reporting_token_routes
from tollway_quota.settings import QuotaSettings
from tollway_quota.store import CatalogStore
from tollway_runtime.health import add_health_routes
from tollway_runtime.migrations import apply_migrations

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
SETTINGS: web.AppKey[QuotaSettings] = web.AppKey("settings", QuotaSettings)
log = structlog.get_logger("tollway_quota.app")

# Issue 3 adds here: the usage consumer (Kafka, QUOTA_CONSUMER_GROUP) for
# settlement, counter seeding and budget alerts, each as its own cleanup_ctx.


def create_app(settings: QuotaSettings) -> web.Application:
    """Build the quota application: admin API under ``/admin/v1``, ``/healthz``,
    ``/readyz``. Nothing connects until the app starts."""
    app = web.Application(middlewares=[admin_middleware])
    app[SETTINGS] = settings
    app[ADMIN_TOKEN] = settings.admin_token.get_secret_value().encode()
    app[PEPPER] = settings.key_pepper.get_secret_value().encode()
    checks = add_health_routes(app)
    migrated = {"done": False}

    async def resources(app: web.Application) -> AsyncIterator[None]:
        applied = await asyncio.to_thread(apply_migrations, settings.postgres_dsn, MIGRATIONS_DIR)
        migrated["done"] = True
        log.info("migrations_applied", applied=applied)
        pool = AsyncConnectionPool(
            settings.postgres_dsn, min_size=1, max_size=settings.pool_max_size, open=False
        )
        await pool.open(wait=True, timeout=30)
        valkey = Redis.from_url(settings.valkey_url)
        store = CatalogStore(pool)
        app[STORE] = store
        app[PUBLISHER] = InvalidationPublisher(valkey, settings.invalidation_channel)
        checks["postgres"] = store.ping
        checks["valkey"] = valkey.ping
        checks["migrations"] = lambda: migrated["done"]
        try:
            yield
        finally:
            await valkey.aclose()
            await pool.close()

    app.cleanup_ctx.append(resources)
    add_admin_routes(app)
    add_reporting_token_routes(app)
    return app
