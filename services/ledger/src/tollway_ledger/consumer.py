"""The thin consumer loop: fetch → handle (pure) → DLQ → DB transaction → commit.

All decisions live in :mod:`tollway_ledger.handler` and
:mod:`tollway_ledger.store`; this module only moves bytes between Kafka and
them, retries Postgres, and runs the ordered shutdown.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter

import asyncpg
import structlog
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.errors import CommitFailedError, KafkaError

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


class LedgerConsumer:
    """Runs the consume loop of one ledger replica.

    Args:
        consumer: a started-or-not ``AIOKafkaConsumer`` subscribed to the
            usage topic with ``enable_auto_commit=False``.
        producer: an ``AIOKafkaProducer`` for dead letters.
        store: the Postgres adapter.
        metrics: where counts go.
        dlq_topic, consumer_group: names.
        dlq_limit: the dead-letter rate limit.
        batch_max_records, batch_timeout_ms: ``getmany`` limits.
        retry_initial_seconds, retry_max_seconds: Postgres retry backoff.
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
    ) -> None:
        self.consumer = consumer
        self.producer = producer
        self.store = store
        self.metrics = metrics
        self.dlq_topic = dlq_topic
        self.consumer_group = consumer_group
        self.dlq_limit = dlq_limit
        self.batch_max_records = batch_max_records
        self.batch_timeout_ms = batch_timeout_ms
        self.retry_initial_seconds = retry_initial_seconds
        self.retry_max_seconds = retry_max_seconds
        self._stop = asyncio.Event()
        self.joined = False
        self.task: asyncio.Task[None] | None = None

    @property
    def ready(self) -> bool:
        """True while the loop runs and has completed its first fetch (joined the group)."""
        return self.task is not None and not self.task.done() and self.joined

    def start(self) -> asyncio.Task[None]:
        """Start :meth:`run` as a task (the caller keeps it)."""
        self.task = asyncio.create_task(self.run(), name="ledger-consumer")
        return self.task

    def request_stop(self) -> None:
        """Stop fetching; the batch in hand is finished and committed."""
        self._stop.set()

    async def run(self) -> None:
        """Consume until :meth:`request_stop`.

        Pipelined by one batch: while batch N is written (DLQ publish → DB
        transaction → offset commit, all in a task), batch N+1 is fetched and
        decoded. Writes never overlap: N+1's write starts only after N's
        offsets were committed, so "first in offset order" and the
        commit-after-write rule hold exactly as without the pipeline.

        Raises:
            handler.DlqLimitExceeded: too many poison messages; that batch is
                neither dead-lettered nor committed (the batch before it is
                finished first).
            KafkaError: an unrecoverable Kafka error.
        """
        writing: asyncio.Task[None] | None = None
        try:
            while not self._stop.is_set():
                batch = await self.consumer.getmany(
                    timeout_ms=self.batch_timeout_ms, max_records=self.batch_max_records
                )
                self.joined = True
                if batch:
                    started = time.perf_counter()
                    effects = self._prepare(batch)
                    if writing is not None:
                        await writing
                    writing = asyncio.create_task(self._write(effects, started))
                elif writing is not None and writing.done():
                    await writing
                    writing = None
                await self._update_lag()
            if writing is not None:
                await writing
        except asyncio.CancelledError:
            # Shutdown deadline passed: the write in hand rolls back, its
            # offsets stay uncommitted, the batch is re-read later.
            if writing is not None:
                writing.cancel()
                await asyncio.gather(writing, return_exceptions=True)
            raise
        except BaseException:
            # E.g. the DLQ limit tripped on batch N+1: finish batch N first.
            if writing is not None:
                await asyncio.gather(writing, return_exceptions=True)
            raise

    def _prepare(self, batch: dict) -> Effects:
        messages = [
            Message(tp.topic, tp.partition, r.offset, r.key, r.value)
            for tp, records in batch.items()
            for r in records
        ]
        effects = handle(messages, consumer_group=self.consumer_group)
        # Raises DlqLimitExceeded: the loop stops with an error; nothing of this
        # batch is dead-lettered or committed, so a fixed deploy re-reads it.
        self.dlq_limit.check(len(effects.dead_letters), effects.size)
        return effects

    async def _write(self, effects: Effects, started: float) -> None:
        await self._dead_letter(effects)
        result = await self._apply_with_retry(effects)
        # Offsets are committed only AFTER the DB transaction committed:
        # - DLQ publish fails -> exception, no DB write, no commit: the batch
        #   is re-read (a dead letter may then be published twice).
        # - DB transaction fails -> rolled back, retried with backoff here
        #   forever (never skipped); a crash meanwhile re-reads the batch.
        # - DB commit succeeds, offset commit fails (rebalance, crash) -> the
        #   batch is re-read by whoever owns the partitions next; re-applying
        #   it changes nothing (started: insert-if-absent; terminal: only an
        #   in-flight or orphaned row is finalised; rollups count only rows
        #   finalised now).
        offsets = {TopicPartition(t, p): o for (t, p), o in effects.commit_offsets.items()}
        try:
            await self.consumer.commit(offsets)
        except (CommitFailedError, KafkaError) as exc:
            log.warning("offset_commit_failed", error=str(exc), partitions=len(offsets))
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

    async def _apply_with_retry(self, effects: Effects) -> ApplyResult:
        delay = self.retry_initial_seconds
        while True:
            try:
                return await self.store.apply(effects)
            except RETRYABLE_DB_ERRORS as exc:
                self.metrics.db_retries.inc()
                log.error("batch_transaction_failed", error=str(exc), retry_in_s=round(delay, 2))
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.retry_max_seconds)

    async def _update_lag(self) -> None:
        try:
            for tp in self.consumer.assignment():
                hw = self.consumer.highwater(tp)
                if hw is None:
                    continue
                position = await self.consumer.position(tp)
                self.metrics.lag.labels(partition=str(tp.partition)).set(max(hw - position, 0))
        except (KafkaError, AssertionError, ValueError):  # rebalance in progress
            pass

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

    async def stop(self, timeout_seconds: float) -> None:
        """Ordered, timed shutdown of the loop: stop fetching, let the current
        batch finish (DB commit + offset commit) within ``timeout_seconds``,
        else cancel it (the DB transaction rolls back, offsets stay uncommitted,
        the batch is re-read later). Does not close the clients."""
        self.request_stop()
        if self.task is None or self.task.done():
            return
        done, _ = await asyncio.wait({self.task}, timeout=timeout_seconds)
        if not done:
            log.warning("shutdown_deadline_passed", timeout_s=timeout_seconds)
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
