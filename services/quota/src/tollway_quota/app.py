"""The composition root: :func:`create_app` builds every adapter (tests call it too).

Start order (one ``cleanup_ctx``, released in reverse): apply the ``catalog``
migrations (yoyo, in a thread; a failure stops the start; with
``migrate_on_start`` off, only check none is pending), open the Postgres
pool, connect Valkey. ``/readyz`` checks Postgres, Valkey and that the
migrations were applied.

When ``reconcile_expired`` is on, a ``cleanup_ctx`` runs the reconciliation
of expired reservations (:mod:`tollway_quota.reconciliation`) as a task,
cancelled at shutdown. ``/metrics`` is ``tollway_runtime.metrics``'s (process-global
metrics; requests counted by its ``http_metrics_middleware``).

Then, when ``consume_usage`` is on, a second ``cleanup_ctx``: the Kafka
producer (dead letters, alerts), the webhook workers and the usage consumer
(settlement + budget alerts). Shutdown plan, in order: stop the consumer
(stop intake, finish or abandon the message in hand, commit what was
processed, leave the group; ``shutdown_timeout_seconds``), drain webhooks
(5 s), flush and stop the producer, then close Valkey and Postgres.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import structlog
from aiohttp import web
from aiokafka import AIOKafkaProducer
from psycopg_pool import AsyncConnectionPool
from redis.asyncio import Redis

from tollway_admission import Admission, PipelinedClient, count_round_trips
from tollway_quota.alerting import AdmissionBudgetReader, AlertEmitter, SettlementAlerts
from tollway_quota.api import ADMIN_TOKEN, PEPPER, PUBLISHER, STORE, add_admin_routes, admin_middleware
from tollway_quota.consumer import DlqLimit, UsageConsumer
from tollway_quota.invalidations import InvalidationPublisher
from tollway_quota.migrate import MIGRATIONS_DIR
from tollway_quota.reconciliation import LedgerLookup, ReconcileMetrics, Reconciler
from tollway_quota.reporting_tokens import add_reporting_token_routes
from tollway_quota.seeding import ROUTE as SEED_ROUTE
from tollway_quota.seeding import SEED_TOKENS, SEEDER, BudgetSeeder, LedgerSpend, seed_budget
from tollway_quota.settings import QuotaSettings
from tollway_quota.store import CatalogStore
from tollway_quota.webhooks import WebhookNotifier
from tollway_runtime.health import add_health_routes
from tollway_runtime.metrics import add_metrics_route, http_metrics_middleware
from tollway_runtime.migrations import migrate_or_check
from tollway_runtime.tracing import setup_tracing

SETTINGS: web.AppKey[QuotaSettings] = web.AppKey("settings", QuotaSettings)
VALKEY: web.AppKey[Redis] = web.AppKey("valkey", Redis)
CONSUMER: web.AppKey[UsageConsumer] = web.AppKey("consumer", UsageConsumer)
RECONCILER: web.AppKey[Reconciler] = web.AppKey("reconciler", Reconciler)
log = structlog.get_logger("tollway_quota.app")


def create_app(settings: QuotaSettings) -> web.Application:
    """Build the quota application: admin API under ``/admin/v1``, the edges'
    ``POST /internal/v1/budget-seeds`` (:mod:`tollway_quota.seeding`),
    ``/healthz``, ``/readyz``, ``/metrics``. Nothing connects until the app starts."""
    app = web.Application(middlewares=[http_metrics_middleware("quota"), admin_middleware])
    app[SETTINGS] = settings
    reconcile_metrics = ReconcileMetrics()
    app[ADMIN_TOKEN] = settings.admin_token.get_secret_value().encode()
    app[PEPPER] = settings.key_pepper.get_secret_value().encode()
    app[SEED_TOKENS] = tuple(
        t.get_secret_value().encode() for t in (settings.seed_token, settings.admin_token) if t is not None
    )
    checks = add_health_routes(app)
    migrated = {"done": False}

    async def resources(app: web.Application) -> AsyncIterator[None]:
        applied = await asyncio.to_thread(
            migrate_or_check, settings.postgres_dsn, MIGRATIONS_DIR, migrate=settings.migrate_on_start
        )
        migrated["done"] = True
        log.info("migrations_applied", applied=applied)
        pool = AsyncConnectionPool(
            settings.postgres_dsn, min_size=1, max_size=settings.pool_max_size, open=False
        )
        await pool.open(wait=True, timeout=30)
        valkey = count_round_trips(Redis.from_url(settings.valkey_url), "quota")  # counts its round trips
        store = CatalogStore(pool)
        app[STORE] = store
        app[VALKEY] = valkey
        app[PUBLISHER] = InvalidationPublisher(valkey, settings.invalidation_channel)
        app[SEEDER] = BudgetSeeder(Admission(valkey), LedgerSpend(pool))
        checks["postgres"] = store.ping
        checks["valkey"] = valkey.ping
        checks["migrations"] = lambda: migrated["done"]
        try:
            yield
        finally:
            await valkey.aclose()
            await pool.close()

    async def settlement(app: web.Application) -> AsyncIterator[None]:
        from tollway_admission import Admission

        tracing = setup_tracing("tollway-quota")  # OTEL_* variables; off without an endpoint
        producer = AIOKafkaProducer(
            bootstrap_servers=settings.kafka_bootstrap_servers, acks="all", client_id="tollway-quota"
        )
        await producer.start()
        http = httpx.AsyncClient(timeout=settings.webhook_timeout_seconds)
        webhooks = WebhookNotifier(
            http,
            queue_size=settings.webhook_queue_size,
            attempts=settings.webhook_attempts,
            backoff_initial_seconds=settings.webhook_backoff_seconds,
        )
        webhooks.start()
        valkey = app[VALKEY]
        store = app[STORE]
        # Each batch's settlements go out as two packed writes on one lean connection
        # (tollway_admission.PipelinedClient): redis-py's pipeline cost more CPU per
        # settled call than the scripts (docs/edge-performance.md "Whole-stack CPU per call").
        fast = PipelinedClient(settings.valkey_url, service="quota")
        admission = Admission(valkey, pipelined=fast)
        emitter = AlertEmitter(valkey, producer, settings.alerts_topic, store.tenant_webhook, webhooks)
        consumer = UsageConsumer(
            bootstrap_servers=settings.kafka_bootstrap_servers,
            topic=settings.usage_topic,
            group_id=settings.consumer_group,
            dlq_topic=settings.dlq_topic,
            settler=admission,
            producer=producer,
            after_settle=SettlementAlerts(
                store.key_limits,
                AdmissionBudgetReader(admission),
                emitter,
                limits_of_many=store.key_limits_many,
            ),
            dlq_limit=DlqLimit(settings.dlq_max_per_minute),
            max_records=settings.batch_max_records,
            **settings.fetch_kwargs(),
            tracer=tracing.tracer,
        )
        await consumer.start()
        app[CONSUMER] = consumer
        checks["usage_consumer"] = consumer.healthy
        try:
            yield
        finally:
            await consumer.stop(settings.shutdown_timeout_seconds)
            await webhooks.stop(5.0)
            await http.aclose()
            await producer.stop()
            await fast.aclose()
            await asyncio.to_thread(tracing.shutdown)  # flush the last batch spans

    async def reconciliation(app: web.Application) -> AsyncIterator[None]:
        from datetime import timedelta

        from tollway_admission import Admission

        reconciler = Reconciler(
            app[VALKEY],
            Admission(app[VALKEY]),
            LedgerLookup(app[STORE]._pool),  # noqa: SLF001
            reconcile_metrics,
            grace=timedelta(seconds=settings.reconcile_grace_seconds),
            lock_ttl=timedelta(seconds=settings.reconcile_lock_ttl_seconds),
        )
        app[RECONCILER] = reconciler
        task = asyncio.create_task(
            reconciler.run_forever(settings.reconcile_interval_seconds), name="quota-reconcile"
        )
        try:
            yield
        finally:
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass

    app.cleanup_ctx.append(resources)
    if settings.reconcile_expired:
        app.cleanup_ctx.append(reconciliation)
    if settings.consume_usage:
        app.cleanup_ctx.append(settlement)
    add_metrics_route(app)
    add_admin_routes(app)
    app.router.add_post(SEED_ROUTE, seed_budget)
    add_reporting_token_routes(app)
    return app
