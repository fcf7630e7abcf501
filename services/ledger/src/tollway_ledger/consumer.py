"""The ledger's batch steps on the shared consumer loop
(:class:`tollway_runtime.kafka.BatchConsumer`): prepare = the pure handler and
the dead-letter limit; write = DLQ publish → DB transaction (retried forever
with backoff) → then the loop commits the offsets.

All decisions live in :mod:`tollway_ledger.handler` and
:mod:`tollway_ledger.store`; this module only moves bytes between Kafka and
them.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from typing import Any

import asyncpg
import structlog
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRecord
from opentelemetry.trace import Tracer

from tollway_runtime.kafka import BatchConsumer, with_backoff

from .handler import DlqLimit, Effects, Message, handle
from .metrics import LedgerMetrics
from .store import ApplyResult, LedgerStore

log = structlog.get_logger("tollway_ledger.consumer")

# Errors after which the batch transaction is retried (never skipped).
# InternalClientError: asyncpg's protocol state after the server vanished
# mid-commit ("cannot switch to state …"), seen when Postgres stops under load.
RETRYABLE_DB_ERRORS = (
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,
    OSError,
    asyncio.TimeoutError,
)

Prepared = tuple[Effects, float]


class LedgerConsumer(BatchConsumer[Prepared]):
    """Runs the consume loop of one ledger replica.

    Args:
        consumer: an unstarted ``AIOKafkaConsumer`` subscribed to the usage
            topic with ``enable_auto_commit=False`` (started by :meth:`start`,
            left by :meth:`stop`).
        producer: a started ``AIOKafkaProducer`` for dead letters.
        store: the Postgres adapter.
        metrics: where counts go.
        dlq_topic, consumer_group: names.
        dlq_limit: the dead-letter rate limit.
        batch_max_records, batch_timeout_ms: ``getmany`` limits.
        retry_initial_seconds, retry_max_seconds: Postgres retry backoff.
        tracer: one CONSUMER span per batch, linked to each message's trace
            (``tollway_runtime.tracing``); default none.
    """

    def __init__(
        self,
        *,
        consumer: AIOKafkaConsumer,
        producer: AIOKafkaProducer,
        store: LedgerStore,
        metrics: LedgerMetrics,
        dlq_topic: str,
        consumer_group: str,
        dlq_limit: DlqLimit,
        batch_max_records: int,
        batch_timeout_ms: int,
        retry_initial_seconds: float,
        retry_max_seconds: float,
        tracer: Tracer | None = None,
    ) -> None:
        super().__init__(
            consumer,
            name="ledger-consumer",
            prepare=self._prepare_batch,
            write=self._write_batch,
            max_records=batch_max_records,
            timeout_ms=batch_timeout_ms,
            tracer=tracer,
            consumer_group=consumer_group,
        )
        self.producer = producer
        self.store = store
        self.metrics = metrics
        self.dlq_topic = dlq_topic
        self.consumer_group = consumer_group
        self.dlq_limit = dlq_limit
        self.retry_initial_seconds = retry_initial_seconds
        self.retry_max_seconds = retry_max_seconds

    def _prepare_batch(self, records: list[ConsumerRecord[Any, Any]]) -> Prepared:
        started = time.perf_counter()
        messages = [Message(r.topic, r.partition, r.offset, r.key, r.value) for r in records]
        effects = handle(messages, consumer_group=self.consumer_group)
        # Raises DlqLimitExceeded: the loop stops with an error; nothing of this
        # batch is dead-lettered or committed, so a fixed deploy re-reads it.
        self.dlq_limit.check(len(effects.dead_letters), effects.size)
        return effects, started

    async def _write_batch(self, prepared: Prepared) -> None:
        effects, started = prepared
        await self._dead_letter(effects)
        result = await with_backoff(
            lambda: self.store.apply(effects),
            what="batch_transaction_failed",
            initial_seconds=self.retry_initial_seconds,
            max_seconds=self.retry_max_seconds,
            retry_on=RETRYABLE_DB_ERRORS,
            on_retry=lambda _: self.metrics.db_retries.inc(),
            level="error",
        )
        # The loop commits the offsets when this returns, i.e. only AFTER the
        # DB transaction committed:
        # - DLQ publish fails -> exception, no DB write, no commit: the loop
        #   stops and the batch is re-read (a dead letter may then be
        #   published twice).
        # - DB transaction fails -> rolled back, retried with backoff above
        #   forever (never skipped); a crash meanwhile re-reads the batch.
        # - DB commit succeeds, offset commit fails (rebalance, crash) -> the
        #   batch is re-read by whoever owns the partitions next; re-applying
        #   it changes nothing (started: insert-if-absent; terminal: only an
        #   in-flight or orphaned row is finalised; rollups count only rows
        #   finalised now).
        self._record(effects, result, time.perf_counter() - started)

    async def _dead_letter(self, effects: Effects) -> None:
        futures = []
        for dl in effects.dead_letters:
            log.warning(
                "dead_lettered",
                topic=dl.source_topic,
                partition=dl.partition,
                offset=dl.offset,
                reason=dl.reason,
            )
            futures.append(
                await self.producer.send(
                    self.dlq_topic,
                    key=dl.key.encode() if dl.key is not None else None,
                    value=dl.model_dump_json().encode(),
                )
            )
        if futures:
            await asyncio.gather(*futures)

    def _record(self, effects: Effects, result: ApplyResult, seconds: float) -> None:
        outcomes: Counter[tuple[str, str]] = effects.outcomes + result.outcomes
        for (event_type, outcome), n in outcomes.items():
            self.metrics.events.labels(type=event_type, outcome=outcome).inc(n)
        self.metrics.batch_seconds.observe(seconds)
        if result.orphans_finalised:
            self.metrics.orphans_finalised.inc(result.orphans_finalised)
        # One canonical line per batch (per-message lines would cost more than
        # the write); dead letters are logged one by one above.
        log.info(
            "batch",
            messages=effects.size,
            dead_letters=len(effects.dead_letters),
            terminal_applied=result.terminal_applied,
            orphans_finalised=result.orphans_finalised,
            outcomes={f"{t}:{o}": n for (t, o), n in sorted(outcomes.items())},
            partitions=sorted(f"{t}[{p}]@{o}" for (t, p), o in effects.commit_offsets.items()),
            duration_ms=round(seconds * 1000, 2),
        )
