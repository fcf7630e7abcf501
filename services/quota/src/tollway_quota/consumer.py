"""The usage consumer: ``tollway.usage.v1`` -> settle reservations -> alerts.

Consumer group ``tollway_contracts.topics.QUOTA_CONSUMER_GROUP``; automatic
commit is off. Per message, in partition order:

1. :func:`tollway_quota.settlement.plan_settlement` (pure). A poison message
   (not a valid usage event) is produced to ``tollway.usage.dlq.v1`` as a
   :class:`~tollway_contracts.events.DeadLetter` and the producer's ack is
   awaited before moving on.
2. ``Settler.settle`` — exactly once per request id, enforced by the settle
   script, so a redelivered message changes no counter.
3. ``after_settle`` (budget alerts); state-based and deduplicated by markers,
   so it is safe to repeat.

Transient failures (Valkey, Postgres, Kafka produce) are retried with backoff
on the same message, which holds its partition back: nothing later is
committed past an unsettled message. A stop request ends the retries.

Dead-letter rate limit (CONVENTIONS 10): more than ``dlq_max_per_minute``
dead letters within 60 s stops the consumer (readiness fails) instead of
dead-lettering everything after a bad deploy.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

import structlog
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRecord, TopicPartition
from aiokafka.errors import CommitFailedError, IllegalStateError, KafkaError
from structlog.contextvars import bound_contextvars

from tollway_contracts.events import DeadLetter, utcnow
from tollway_runtime.dlq import DlqLimit, DlqLimitExceeded
from tollway_quota.settlement import Poison, SettleCommand, Settler, plan_settlement

log = structlog.get_logger("tollway_quota.consumer")

__all__ = ["DlqLimit", "DlqLimitExceeded", "UsageConsumer"]

AfterSettle = Callable[[SettleCommand, str], Awaitable[None]]


class _Stopping(Exception):
    pass


class UsageConsumer:
    """Consumes usage events and settles their reservations.

    Args:
        bootstrap_servers: Kafka, ``host:port[,...]``.
        topic, group_id, dlq_topic: names (tests use unique ones).
        settler: settles one reservation (``tollway_admission.Admission``).
        producer: a started producer (dead letters; shared with alerts).
        after_settle: called with the command and the settle status.
        dlq_limit: dead-letter rate limit.
        max_records: records per fetch.
        retry_initial_seconds, retry_max_seconds: backoff on transient errors.
    """

    def __init__(
        self,
        *,
        bootstrap_servers: str,
        topic: str,
        group_id: str,
        dlq_topic: str,
        settler: Settler,
        producer: AIOKafkaProducer,
        after_settle: AfterSettle | None = None,
        dlq_limit: DlqLimit | None = None,
        max_records: int = 500,
        retry_initial_seconds: float = 0.2,
        retry_max_seconds: float = 5.0,
    ) -> None:
        self.topic = topic
        self.group_id = group_id
        self.dlq_topic = dlq_topic
        self._settler = settler
        self._producer = producer
        self._after = after_settle
        self._dlq_limit = dlq_limit or DlqLimit(60)
        self._max_records = max_records
        self._retry_initial = retry_initial_seconds
        self._retry_max = retry_max_seconds
        self._consumer = AIOKafkaConsumer(
            topic,
            bootstrap_servers=bootstrap_servers,
            group_id=group_id,
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            client_id=f"{group_id}-settlement",
        )
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.failure: BaseException | None = None
        self.settled = 0
        self.dead_lettered = 0

    # --- lifecycle -------------------------------------------------------------

    async def start(self) -> None:
        """Join the group and start the loop task."""
        await self._consumer.start()
        self._task = asyncio.create_task(self._run(), name="usage-consumer")

    def healthy(self) -> bool:
        """False once the loop has died (e.g. the dead-letter limit)."""
        return self._task is not None and not self._task.done()

    async def stop(self, timeout_seconds: float = 10.0) -> None:
        """Stop intake, let the message in hand finish (or give up retrying),
        commit what was processed, leave the group."""
        self._stop.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._task), timeout_seconds)
            except TimeoutError:
                self._task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._task
            except Exception:  # noqa: BLE001 - already recorded in self.failure
                pass
        await self._consumer.stop()

    # --- loop --------------------------------------------------------------------

    async def _run(self) -> None:
        try:
            while not self._stop.is_set():
                batches = await self._consumer.getmany(timeout_ms=500, max_records=self._max_records)
                done: dict[TopicPartition, int] = {}
                try:
                    for tp, records in batches.items():
                        for record in records:
                            with bound_contextvars(partition=record.partition, offset=record.offset):
                                await self._process(record)
                            done[tp] = record.offset + 1
                finally:
                    # Commit after the effect: every offset committed here belongs to a
                    # message whose reservation is settled (or that Kafka acked on the
                    # DLQ). A crash before this line redelivers those messages; settle
                    # is once-only and alerts are deduplicated, so replaying them
                    # changes nothing. A message whose settle failed is not in `done`.
                    await self._commit(done)
        except _Stopping:
            return
        except BaseException as exc:
            self.failure = exc
            log.error("usage_consumer_stopped", error=type(exc).__name__, detail=str(exc)[:300])
            raise

    async def _commit(self, offsets: dict[TopicPartition, int]) -> None:
        if not offsets:
            return
        try:
            await self._consumer.commit(offsets)
        except (CommitFailedError, IllegalStateError, KafkaError) as exc:
            # Reassigned partitions or a broker hiccup: whoever reads them next re-reads
            # from the last successful commit and settles again, which changes nothing;
            # the next successful commit here covers these offsets too.
            log.warning("commit_failed", error=type(exc).__name__, detail=str(exc)[:200])

    async def _process(self, record: ConsumerRecord) -> None:
        """One message, one canonical log line (``usage_settled`` or
        ``usage_dead_lettered``; nothing for events that need no settlement)."""
        try:
            command = plan_settlement(record.value)
        except Poison as exc:
            await self._dead_letter(record, str(exc))
            return
        if command is None:
            return
        with bound_contextvars(request_id=command.request_id, tenant_id=command.tenant_id):
            await self._settle(record, command)

    async def _settle(self, record: ConsumerRecord, command: SettleCommand) -> None:
        delay = self._retry_initial
        while True:
            try:
                result = await self._settler.settle(
                    tenant_id=command.tenant_id, request_id=command.request_id,
                    tokens=command.tokens, cost_micro_usd=command.cost_micro_usd,
                )
                status = str(result.status)
                if self._after is not None:
                    await self._after(command, status)
                break
            except ValueError as exc:  # the event's content cannot be settled (e.g. tenant id)
                await self._dead_letter(record, f"cannot settle: {exc}"[:500])
                return
            except Exception as exc:  # noqa: BLE001 - transient: retry this message
                log.warning("settle_retry", error=type(exc).__name__, retry_in_s=delay)
                if await self._sleep_or_stop(delay):
                    raise _Stopping from None
                delay = min(delay * 2, self._retry_max)
        self.settled += status == "settled"
        log.info("usage_settled", status=status, tokens=command.tokens, cost_micro_usd=command.cost_micro_usd)

    async def _dead_letter(self, record: ConsumerRecord, reason: str) -> None:
        self._dlq_limit.check(1, 1)
        letter = DeadLetter(
            source_topic=record.topic, partition=record.partition, offset=record.offset,
            consumer_group=self.group_id, reason=reason,
            key=None if record.key is None else record.key.decode("utf-8", "replace"),
            value=None if record.value is None else record.value.decode("utf-8", "replace"),
            ts=utcnow(),
        )
        delay = self._retry_initial
        while True:
            try:
                await self._producer.send_and_wait(self.dlq_topic, letter.model_dump_json().encode(),
                                                   key=record.key)
                break
            except KafkaError as exc:
                log.warning("dead_letter_retry", error=type(exc).__name__, retry_in_s=delay)
                if await self._sleep_or_stop(delay):
                    raise _Stopping from None
                delay = min(delay * 2, self._retry_max)
        self.dead_lettered += 1
        log.warning("usage_dead_lettered", reason=reason[:200])

    async def _sleep_or_stop(self, seconds: float) -> bool:
        """Sleep ``seconds`` unless a stop comes first; True when stopping."""
        try:
            await asyncio.wait_for(self._stop.wait(), seconds)
        except TimeoutError:
            return False
        return True
