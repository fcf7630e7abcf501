"""The ledger's composition root: ``create_app(settings)`` builds every adapter.

Resources, in acquire order (released in reverse by aiohttp's cleanup_ctx):
1. Postgres: migrations (schema ``ledger``; with ``migrate_on_start`` off, a
   check that none is pending), asyncpg pool, partitions for the
   current UTC month and the next ``partition_months_ahead``, and the
   maintenance tasks (partitions ahead, retention, orphan reconciliation; see
   :mod:`tollway_ledger.maintenance`).
2. Kafka: DLQ producer, consumer (``enable_auto_commit=False``), and the loop
   task. At shutdown: stop fetching, finish + commit the current batch within
   ``shutdown_timeout_seconds``, leave the group, flush the producer; then the
   pool closes.

Tracing (``tollway_runtime.tracing``, from the standard ``OTEL_*`` variables,
off by default): one CONSUMER span per batch, linked to each message's trace;
flushed after the consumer stops.

The app serves ``/healthz``, ``/readyz`` (Postgres answers and the consumer
loop runs and has joined its group) and ``/metrics`` (``tollway_runtime.metrics``) on ``health_port``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import structlog
from aiohttp import web
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from tollway_runtime.health import add_health_routes
from tollway_runtime.metrics import add_metrics_route
from tollway_runtime.migrations import migrate_or_check
from tollway_runtime.tracing import Tracing, setup_tracing

from .consumer import LedgerConsumer
from .handler import DlqLimit
from .maintenance import Clock, Maintenance, utc_now
from .metrics import LedgerMetrics
from .migrate import MIGRATIONS_DIR
from .settings import LedgerSettings
from .store import LedgerStore

SETTINGS = web.AppKey("ledger_settings", LedgerSettings)
METRICS = web.AppKey("ledger_metrics", LedgerMetrics)
STORE = web.AppKey("ledger_store", LedgerStore)
CONSUMER = web.AppKey("ledger_consumer", LedgerConsumer)
MAINTENANCE = web.AppKey("ledger_maintenance", Maintenance)
TRACING = web.AppKey("ledger_tracing", Tracing)
CLOCK: web.AppKey[Clock] = web.AppKey("ledger_clock")

log = structlog.get_logger("tollway_ledger.app")


async def _postgres(app: web.Application) -> AsyncIterator[None]:
    settings = app[SETTINGS]
    applied = await asyncio.to_thread(
        migrate_or_check, settings.postgres_dsn, MIGRATIONS_DIR, migrate=settings.migrate_on_start
    )
    log.info("migrations_applied", applied=applied)
    pool = await asyncpg.create_pool(
        settings.postgres_dsn, min_size=1, max_size=settings.pool_size, command_timeout=60
    )
    store = LedgerStore(pool)
    app[STORE] = store
    maintenance = Maintenance(store, settings, app[METRICS], app[CLOCK])
    app[MAINTENANCE] = maintenance
    await maintenance.ensure_partitions()
    maintenance.start()
    app[_CHECKS]["postgres"] = store.ping
    try:
        yield
    finally:
        await maintenance.stop()
        await pool.close()


async def _kafka(app: web.Application) -> AsyncIterator[None]:
    settings = app[SETTINGS]
    producer = AIOKafkaProducer(
        bootstrap_servers=settings.kafka_bootstrap_servers, acks="all", enable_idempotence=True
    )
    consumer = AIOKafkaConsumer(
        settings.topic,
        bootstrap_servers=settings.kafka_bootstrap_servers,
        group_id=settings.consumer_group,
        enable_auto_commit=False,
        auto_offset_reset=settings.auto_offset_reset,
        isolation_level="read_committed",
        max_partition_fetch_bytes=settings.max_partition_fetch_bytes,
        **settings.fetch_kwargs(),
    )
    await producer.start()
    loop = LedgerConsumer(
        consumer=consumer,
        producer=producer,
        store=app[STORE],
        metrics=app[METRICS],
        dlq_topic=settings.dlq_topic,
        consumer_group=settings.consumer_group,
        dlq_limit=DlqLimit(
            max_per_window=settings.dlq_max_per_window,
            window_seconds=settings.dlq_window_seconds,
            max_batch_fraction=settings.dlq_max_batch_fraction,
            min_batch=settings.dlq_min_batch,
        ),
        batch_max_records=settings.batch_max_records,
        batch_timeout_ms=settings.batch_timeout_ms,
        retry_initial_seconds=settings.db_retry_initial_seconds,
        retry_max_seconds=settings.db_retry_max_seconds,
        tracer=app[TRACING].tracer,
    )
    app[CONSUMER] = loop
    app[_CHECKS]["consumer"] = loop.ready
    try:
        await loop.start()  # joins the group
    except BaseException:
        await producer.stop()
        raise
    try:
        yield
    finally:
        # Ordered, timed shutdown: stop intake + finish/commit the batch in hand
        # (bounded), leave the group, flush dead letters; the pool closes after.
        await loop.stop(settings.shutdown_timeout_seconds)
        await producer.stop()
        await asyncio.to_thread(app[TRACING].shutdown)  # flush the last batch spans


_CHECKS = web.AppKey("ledger_readiness_checks", dict)


def create_app(settings: LedgerSettings, clock: Clock = utc_now) -> web.Application:
    """Build the ledger application (health server + consumer lifecycle).

    Args:
        settings: validated settings.
        clock: current time, aware UTC, for retention and orphan runs
            (tests inject one).

    Returns:
        An aiohttp app; starting it (``AppRunner.setup``) migrates, starts the
        consumer loop; cleaning it up runs the ordered shutdown.
    """
    app = web.Application()
    app[SETTINGS] = settings
    app[CLOCK] = clock
    app[METRICS] = LedgerMetrics()
    app[TRACING] = setup_tracing("tollway-ledger")  # OTEL_* variables; off without an endpoint
    app[_CHECKS] = add_health_routes(app)
    add_metrics_route(app)
    app.cleanup_ctx.append(_postgres)
    app.cleanup_ctx.append(_kafka)
    return app
