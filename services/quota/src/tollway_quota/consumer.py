"""The usage consumer: ``tollway.usage.v1`` -> settle reservations -> alerts.

Consumer group ``tollway_contracts.topics.QUOTA_CONSUMER_GROUP``; automatic
commit is off. Work is done per fetched batch (``getmany``, up to
``max_records``), in this order:

1. :func:`tollway_quota.settlement.plan_settlement` (pure) on every record;
   ``started`` events are skipped after a cheap JSON look, every event that
   settles is fully validated. A poison message (not a valid usage event) is
   produced to ``tollway.usage.dlq.v1`` as a
   :class:`~tollway_contracts.events.DeadLetter` and the producer's ack is
   awaited before moving on.
2. The batch's settlements in one call: ``settle_many`` (one pipeline of the
   settle script, ``tollway_admission.Admission.settle_many``) when the settler
   has it, else ``settle`` one by one. Exactly once per request id, enforced by
   the settle script, so a redelivered message (or batch) changes no counter.
3. ``after_settle`` (budget alerts) for the batch: ``after_batch`` when the hook
   has it (one catalog query, one read per budget counter), else per command;
   state-based and deduplicated by markers, so it is safe to repeat.
4. One commit of the batch's offsets, then one ``usage_batch`` log line.

The loop itself (fetch, pipelining by one batch, commit after the effect,
graceful stop) is the shared :class:`tollway_runtime.kafka.BatchConsumer`;
this module is the batch's write step.

Transient failures (Valkey, Postgres, Kafka produce) are retried with backoff
(tenacity, :func:`tollway_runtime.kafka.with_backoff`) on the same batch step,
which holds the batch back: none of its offsets is committed until all of its
messages are settled (or dead-lettered) and alerted. A stop request ends the
retries (the batch is then redelivered).

Dead-letter rate limit (CONVENTIONS 10): more than ``dlq_max_per_minute``
dead letters within 60 s stops the consumer (readiness fails) instead of
dead-lettering everything after a bad deploy.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import structlog
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRecord, TopicPartition
from aiokafka.errors import KafkaError
from opentelemetry.trace import Tracer
from prometheus_client import Counter
from structlog.contextvars import bound_contextvars

from tollway_contracts.dead_letter import DeadLetter
from tollway_contracts.events import utcnow
from tollway_quota.settlement import Poison, SettleCommand, Settler, plan_settlement
from tollway_runtime.dlq import DlqLimit, DlqLimitExceeded
from tollway_runtime.kafka import BatchConsumer, StopAfterCommit, with_backoff

log = structlog.get_logger("tollway_quota.consumer")

__all__ = ["DlqLimit", "DlqLimitExceeded", "UsageConsumer"]

_T = TypeVar("_T")

SETTLEMENTS = Counter(
    "tollway_quota_settlements_total",
    "Usage events processed by the settlement consumer, by outcome: settled (a reservation "
    "settled now), already_settled (a redelivery: nothing changed), unknown (no reservation "
    "found), dead_lettered (poison or unsettleable, sent to the DLQ).",
    ["outcome"],
)

AfterSettle = Callable[[SettleCommand, str], Awaitable[None]]

Batch = list[ConsumerRecord[Any, Any]]


class UsageConsumer(BatchConsumer[Batch]):
    """Consumes usage events and settles their reservations.

    Args:
        bootstrap_servers: Kafka, ``host:port[,...]``.
        topic, group_id, dlq_topic: names (tests use unique ones).
        settler: settles one reservation (``tollway_admission.Admission``).
        producer: a started producer (dead letters; shared with alerts).
        after_settle: called with the command and the settle status.
        dlq_limit: dead-letter rate limit.
        max_records: records per fetch.
        fetch_min_bytes, fetch_max_wait_ms: the broker holds a fetch until
            this many bytes are ready or this long passed (bytes, ms; the
            service passes ``QuotaSettings``'; default aiokafka's 1 byte, 500 ms).
        retry_initial_seconds, retry_max_seconds: backoff on transient errors.
        tracer: one CONSUMER span per batch, linked to each message's trace
            (``tollway_runtime.tracing``); default none.
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
        fetch_min_bytes: int = 1,
        fetch_max_wait_ms: int = 500,
        retry_initial_seconds: float = 0.2,
        retry_max_seconds: float = 5.0,
        tracer: Tracer | None = None,
    ) -> None:
        super().__init__(
            AIOKafkaConsumer(
                topic,
                bootstrap_servers=bootstrap_servers,
                group_id=group_id,
                enable_auto_commit=False,
                auto_offset_reset="earliest",
                client_id=f"{group_id}-settlement",
                fetch_min_bytes=fetch_min_bytes,
                fetch_max_wait_ms=fetch_max_wait_ms,
            ),
            name="usage-consumer",
            prepare=lambda records: records,
            write=self._process_batch,
            max_records=max_records,
            timeout_ms=500,
            tracer=tracer,
            consumer_group=group_id,
        )
        self.topic = topic
        self.group_id = group_id
        self.dlq_topic = dlq_topic
        self._settler = settler
        self._producer = producer
        self._after = after_settle
        self._dlq_limit = dlq_limit or DlqLimit(60)
        self._retry_initial = retry_initial_seconds
        self._retry_max = retry_max_seconds
        self.settled = 0
        self.dead_lettered = 0

    async def _process_batch(self, records: list[ConsumerRecord]) -> None:
        """One fetched batch, one canonical log line (``usage_batch``; plus
        ``usage_dead_lettered`` per dead letter).

        1. plan every record (poison -> DLQ, acked before going on);
        2. settle every command in one pipelined call (``settle_many`` when the
           settler has it), retried as a whole on a transient error;
        3. dead-letter the commands the settler rejects (``ValueError``);
        4. alerts for the batch (``after_batch`` when the hook has it), retried.
        """
        started = time.perf_counter()
        commands: list[tuple[ConsumerRecord, SettleCommand]] = []
        planned: dict[TopicPartition, int] = {}
        limit_hit: DlqLimitExceeded | None = None
        for record in records:
            try:
                command = plan_settlement(record.value)
            except Poison as exc:
                try:
                    with bound_contextvars(partition=record.partition, offset=record.offset):
                        await self._dead_letter(record, str(exc))
                except DlqLimitExceeded as hit:
                    limit_hit = hit
                    break
                command = None
            if command is not None:
                commands.append((record, command))
            planned[TopicPartition(record.topic, record.partition)] = record.offset + 1
        statuses: list[str] = []
        if commands:
            results = await self._retrying("settle_retry", lambda: self._settle_all([c for _, c in commands]))
            done: list[tuple[SettleCommand, str]] = []
            for (record, command), result in zip(commands, results, strict=True):
                if isinstance(result, ValueError):  # the event's content cannot be settled
                    with bound_contextvars(
                        partition=record.partition, offset=record.offset, request_id=command.request_id
                    ):
                        await self._dead_letter(record, f"cannot settle: {result}"[:500])
                    continue
                done.append((command, result))
            statuses = [s for _, s in done]
            if self._after is not None and done:
                await self._retrying("alerts_retry", lambda: self._after_all(done))
        settled = statuses.count("settled")
        self.settled += settled
        for status in ("settled", "already_settled", "unknown"):
            if n := statuses.count(status):
                SETTLEMENTS.labels(status).inc(n)
        log.info(
            "usage_batch",
            records=len(records),
            commands=len(commands),
            settled=settled,
            settled_late=statuses.count("settled_late"),
            already_settled=statuses.count("already_settled"),
            unknown=statuses.count("unknown"),
            partitions=sorted(f"{tp.topic}[{tp.partition}]@{o}" for tp, o in planned.items()),
            duration_ms=round((time.perf_counter() - started) * 1000, 2),
        )
        if limit_hit is not None:
            # The dead-letter limit stops the consumer: what came before the
            # refused dead letter is done (settled, alerted, or acked on the DLQ),
            # so its offsets are committed; the refused message and the rest are not.
            raise StopAfterCommit(planned, limit_hit)

    async def _settle_all(self, commands: list[SettleCommand]) -> list[str | ValueError]:
        many = getattr(self._settler, "settle_many", None)
        if many is not None:
            results = await many([(c.tenant_id, c.request_id, c.tokens, c.cost_micro_usd) for c in commands])
            return [r if isinstance(r, ValueError) else str(r.status) for r in results]
        out: list[str | ValueError] = []
        for c in commands:
            try:
                r = await self._settler.settle(
                    tenant_id=c.tenant_id,
                    request_id=c.request_id,
                    tokens=c.tokens,
                    cost_micro_usd=c.cost_micro_usd,
                )
                out.append(str(r.status))
            except ValueError as exc:
                out.append(exc)
        return out

    async def _after_all(self, done: list[tuple[SettleCommand, str]]) -> None:
        assert self._after is not None
        batch = getattr(self._after, "after_batch", None)
        if batch is not None:
            await batch(done)
            return
        for command, status in done:
            await self._after(command, status)

    async def _retrying(self, what: str, step: Callable[[], Awaitable[_T]]) -> _T:
        """Run ``step`` until it succeeds; transient errors back off; a stop
        request ends the retries (``Abandon``: nothing of the batch is committed)."""
        return await with_backoff(
            step,
            what=what,
            initial_seconds=self._retry_initial,
            max_seconds=self._retry_max,
            stop=self.stopping,
        )

    async def _dead_letter(self, record: ConsumerRecord, reason: str) -> None:
        self._dlq_limit.check(1, 1)
        letter = DeadLetter(
            source_topic=record.topic,
            partition=record.partition,
            offset=record.offset,
            consumer_group=self.group_id,
            reason=reason,
            key=None if record.key is None else record.key.decode("utf-8", "replace"),
            value=None if record.value is None else record.value.decode("utf-8", "replace"),
            ts=utcnow(),
        )
        value = letter.model_dump_json().encode()
        await with_backoff(
            lambda: self._producer.send_and_wait(self.dlq_topic, value, key=record.key),
            what="dead_letter_retry",
            initial_seconds=self._retry_initial,
            max_seconds=self._retry_max,
            retry_on=(KafkaError,),
            stop=self.stopping,
        )
        self.dead_lettered += 1
        SETTLEMENTS.labels("dead_lettered").inc()
        log.warning("usage_dead_lettered", reason=reason[:200])
