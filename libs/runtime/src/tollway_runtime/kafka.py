"""One Kafka batch consumer for every Tollway consumer, and backoff through tenacity.

:class:`BatchConsumer` owns the loop that the ledger and the quota service
used to write by hand: fetch a batch (``getmany``), ``prepare`` it (pure, CPU),
``write`` its effect (I/O, made durable and idempotent by the service), then
commit the batch's offsets — only then (CONVENTIONS.md habit 8). It pipelines
by one batch: batch N+1 is fetched and prepared while batch N is written;
writes never overlap, so per-partition order and commit-after-effect hold as
without the pipeline.

What happens when each step fails:

- ``prepare`` raises (e.g. :class:`~tollway_runtime.dlq.DlqLimitExceeded`):
  the batch in writing is finished and committed first, then the loop stops
  with that error; nothing of the refused batch is committed.
- ``write`` raises :class:`StopAfterCommit`: its ``offsets`` (what the batch
  finished) are committed, then the loop stops with its ``cause``.
- ``write`` raises :class:`Abandon` (a stop came while it waited to retry):
  nothing of the batch is committed; the loop ends quietly; the batch is
  re-read by whoever owns the partitions next.
- ``write`` raises anything else: nothing of the batch is committed; the
  loop stops with the error (``failure``).
- the offset commit fails (rebalance, broker hiccup): logged; whoever reads
  those partitions next re-reads from the last commit, and re-applying an
  idempotent effect changes nothing.

Graceful stop (:meth:`BatchConsumer.stop`): stop fetching, finish the batch
in hand and commit it within the deadline (else cancel it: uncommitted,
re-read later), then leave the group (``AIOKafkaConsumer.stop``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Generic, TypeVar

import structlog
from aiokafka import AIOKafkaConsumer, ConsumerRecord, TopicPartition
from aiokafka.errors import CommitFailedError, IllegalStateError, KafkaError
from opentelemetry.trace import NoOpTracer, Tracer, format_trace_id
from prometheus_client import Gauge, Histogram
from structlog.contextvars import bound_contextvars
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, wait_exponential

from .tracing import consumer_batch_span

log = structlog.get_logger("tollway_runtime.kafka")

CONSUMER_LAG = Gauge(
    "tollway_consumer_lag_messages",
    "Messages behind per assigned partition: high watermark minus the consumer's position, "
    "updated after every fetch (multiprocess: max over live processes).",
    ["consumer", "topic", "partition"],
    multiprocess_mode="livemax",
)
CONSUMER_BATCH_RECORDS = Histogram(
    "tollway_consumer_batch_records",
    "Records per fetched, non-empty batch.",
    ["consumer"],
    buckets=(1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000),
)
CONSUMER_BATCH_WRITE_SECONDS = Histogram(
    "tollway_consumer_batch_write_seconds",
    "Wall time of one batch's write (the durable effect, retries included) and offset commit, seconds.",
    ["consumer", "outcome"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
"""``outcome``: ``committed`` (write returned, offsets committed), ``partial``
(:class:`StopAfterCommit`), ``failed`` (any other exception, nothing committed)."""

P = TypeVar("P")
T = TypeVar("T")

Offsets = Mapping[TopicPartition, int]
"""Offsets to commit: the NEXT offset to read per partition (last done + 1)."""


class Abandon(Exception):
    """Raised inside a batch's write when a stop request ends its retries:
    nothing of the batch is committed and the loop ends without an error."""


class StopAfterCommit(Exception):
    """Raised by a batch's write to commit part of the batch, then stop.

    Args:
        offsets: what the batch finished (next offset per partition).
        cause: the error the consumer stops with (``BatchConsumer.failure``).
    """

    def __init__(self, offsets: Offsets, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.offsets = offsets
        self.cause = cause


def next_offsets(records: list[ConsumerRecord[Any, Any]]) -> dict[TopicPartition, int]:
    """The offsets that commit ``records``: per partition, the highest offset + 1."""
    out: dict[TopicPartition, int] = {}
    for r in records:
        tp = TopicPartition(r.topic, r.partition)
        if r.offset + 1 > out.get(tp, -1):
            out[tp] = r.offset + 1
    return out


async def with_backoff(
    step: Callable[[], Awaitable[T]],
    *,
    what: str,
    initial_seconds: float,
    max_seconds: float,
    retry_on: tuple[type[BaseException], ...] = (Exception,),
    stop: asyncio.Event | None = None,
    on_retry: Callable[[BaseException], None] | None = None,
    level: str = "warning",
) -> T:
    """Run ``step`` until it succeeds, backing off exponentially (tenacity).

    The first wait is ``initial_seconds``, each next one doubles, capped at
    ``max_seconds``. There is no attempt limit: a transient failure holds the
    caller's batch back rather than skipping it.

    Args:
        step: the coroutine function to run (called once per attempt).
        what: the log event of each retry (with ``error`` and ``retry_in_s``).
        retry_on: exception types that are retried; others propagate at once.
        stop: when set, the next wait ends at once and retrying ends with
            :class:`Abandon` (the first attempt always runs: a stop lets the
            batch in hand finish when its dependencies answer).
        on_retry: called with each retried error (e.g. a metric).
        level: log level of the retry line (``warning``, ``error``, ...).

    Raises:
        Abandon: ``stop`` was set.
        BaseException: any error not in ``retry_on``, unchanged.
    """

    async def sleep(seconds: float) -> None:
        if stop is None:
            await asyncio.sleep(seconds)
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), seconds)
        if stop.is_set():
            raise Abandon(what)

    def before_sleep(state: RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome is not None else None
        wait = state.next_action.sleep if state.next_action is not None else 0.0
        if error is not None and on_retry is not None:
            on_retry(error)
        getattr(log, level)(
            what,
            error=type(error).__name__,
            detail=str(error)[:300],
            retry_in_s=round(wait, 3),
        )

    retrying = AsyncRetrying(
        retry=retry_if_exception_type(retry_on),
        wait=wait_exponential(multiplier=initial_seconds, max=max_seconds),
        sleep=sleep,
        before_sleep=before_sleep,
        reraise=True,
    )
    async for attempt in retrying:
        with attempt:
            return await step()
    raise AssertionError("unreachable: tenacity retries until success or raises")


_LOGGED_TRACE_IDS = 20


def _batch_trace_fields(span_context: Any, records: list[ConsumerRecord[Any, Any]]) -> dict[str, Any]:
    """The log context of a batch: ``trace_id`` (the batch span's, if recorded),
    ``trace_links`` (records carrying a W3C ``traceparent`` header: the batch
    span's links when tracing is on) and ``linked_trace_ids`` (their trace
    ids, first 20 distinct)."""
    linked: dict[str, None] = {}
    links = 0
    for r in records:
        for key, value in r.headers or ():
            if key == "traceparent":
                parts = value.split(b"-")
                if len(parts) == 4 and len(parts[1]) == 32:
                    links += 1
                    if len(linked) < _LOGGED_TRACE_IDS:
                        linked[parts[1].decode("ascii", "replace")] = None
                break
    fields: dict[str, Any] = {"linked_trace_ids": list(linked), "trace_links": links}
    if span_context.is_valid:
        fields["trace_id"] = format_trace_id(span_context.trace_id)
    return fields


class BatchConsumer(Generic[P]):
    """The consume loop: fetch → prepare → write → commit, pipelined by one batch.

    Args:
        consumer: an unstarted ``AIOKafkaConsumer`` subscribed to its topics,
            with ``enable_auto_commit=False``; this object starts it and, on
            :meth:`stop`, stops it (leaves the group).
        name: the task's and log lines' name.
        prepare: pure work on a fetched batch (decode, validate, reduce); runs
            while the previous batch is written. An exception stops the loop
            after the previous batch is committed.
        write: makes the prepared batch's effect durable (dead letters, DB
            transaction, settlement, ...), retrying transient failures itself
            (:func:`with_backoff`). The batch's offsets are committed when it
            returns; see :class:`Abandon` and :class:`StopAfterCommit`.
        max_records: records per fetch.
        timeout_ms: how long a fetch waits for records, ms.
        after_fetch: awaited after every fetch; errors are its own to handle.
        tracer: makes one CONSUMER span per batch around its write and commit
            (:func:`tollway_runtime.tracing.consumer_batch_span`: linked to each
            record's ``traceparent``); default: no spans.
        consumer_group: ``messaging.consumer.group.name`` of those spans.

    While a batch is written, structlog's context carries ``trace_id`` (the
    batch span's, when tracing is on), ``trace_links`` (how many records carry
    a W3C ``traceparent``) and ``linked_trace_ids`` (their trace ids,
    deduplicated, at most 20), so the service's canonical batch line names
    the traces it served.

    Metrics (labelled ``consumer=name``): ``tollway_consumer_lag_messages``
    per topic and partition (after every fetch), ``tollway_consumer_batch_records``
    and ``tollway_consumer_batch_write_seconds{outcome}`` per batch.
    """

    def __init__(
        self,
        consumer: AIOKafkaConsumer,
        *,
        name: str,
        prepare: Callable[[list[ConsumerRecord[Any, Any]]], P],
        write: Callable[[P], Awaitable[None]],
        max_records: int,
        timeout_ms: int,
        after_fetch: Callable[[], Awaitable[None]] | None = None,
        tracer: Tracer | None = None,
        consumer_group: str | None = None,
    ) -> None:
        self.consumer = consumer
        self.name = name
        self._prepare = prepare
        self._write = write
        self.max_records = max_records
        self.timeout_ms = timeout_ms
        self._after_fetch = after_fetch
        self.tracer: Tracer = tracer if tracer is not None else NoOpTracer()
        self._span_group = consumer_group
        self.stopping = asyncio.Event()
        """Set by :meth:`request_stop`; pass it to :func:`with_backoff`."""
        self.joined = False
        self.task: asyncio.Task[None] | None = None
        self.failure: BaseException | None = None

    # --- lifecycle ---------------------------------------------------------------

    async def start(self) -> asyncio.Task[None]:
        """Start the Kafka consumer (joins the group) and the loop task."""
        await self.consumer.start()
        self.task = asyncio.create_task(self.run(), name=self.name)
        return self.task

    def healthy(self) -> bool:
        """True while the loop task runs (a liveness/readiness check)."""
        return self.task is not None and not self.task.done()

    def ready(self) -> bool:
        """True while the loop runs and has completed a fetch (joined its group)."""
        return self.healthy() and self.joined

    def request_stop(self) -> None:
        """Stop fetching; the batch in hand is finished and committed."""
        self.stopping.set()

    async def stop(self, timeout_seconds: float = 10.0) -> None:
        """Ordered, timed stop: stop fetching, let the batch in hand finish and
        commit within ``timeout_seconds`` (else cancel it: it rolls back, stays
        uncommitted and is re-read later), then leave the group. A failure of
        the loop is not raised here (it is in :attr:`failure`)."""
        self.request_stop()
        task = self.task
        if task is not None and not task.done():
            done, _ = await asyncio.wait({task}, timeout=timeout_seconds)
            if not done:
                log.warning("shutdown_deadline_passed", consumer=self.name, timeout_s=timeout_seconds)
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        if task is not None and task.done() and not task.cancelled():
            task.exception()  # retrieved: it is in self.failure (and was logged)
        await self.consumer.stop()

    # --- the loop ------------------------------------------------------------------

    async def run(self) -> None:
        """Consume until :meth:`request_stop` (then return) or a failure (then
        raise it, also kept in :attr:`failure`)."""
        writing: asyncio.Task[None] | None = None
        try:
            while not self.stopping.is_set():
                fetched = await self.consumer.getmany(
                    timeout_ms=self.timeout_ms, max_records=self.max_records
                )
                self.joined = True
                records = [r for batch in fetched.values() for r in batch]
                if records:
                    CONSUMER_BATCH_RECORDS.labels(self.name).observe(len(records))
                    prepared = self._prepare(records)
                    if writing is not None:
                        await writing
                    writing = asyncio.create_task(
                        self._write_and_commit(prepared, next_offsets(records), records)
                    )
                elif writing is not None and writing.done():
                    await writing
                    writing = None
                await self._update_lag()
                if self._after_fetch is not None:
                    await self._after_fetch()
            if writing is not None:
                await writing
        except Abandon:
            return
        except asyncio.CancelledError:
            # Shutdown deadline passed: the write in hand is cancelled (a DB
            # transaction rolls back), its offsets stay uncommitted.
            if writing is not None:
                writing.cancel()
                await asyncio.gather(writing, return_exceptions=True)
            raise
        except BaseException as exc:
            # E.g. prepare refused batch N+1: finish (and commit) batch N first.
            if writing is not None and not writing.done():
                await asyncio.gather(writing, return_exceptions=True)
            self.failure = exc
            log.error("consumer_stopped", consumer=self.name, error=type(exc).__name__, detail=str(exc)[:300])
            raise

    async def _update_lag(self) -> None:
        """``tollway_consumer_lag_messages`` for every assigned partition whose
        high watermark is known (a rebalance in progress skips the update)."""
        try:
            for tp in self.consumer.assignment():
                hw = self.consumer.highwater(tp)
                if hw is None:
                    continue
                position = await self.consumer.position(tp)
                CONSUMER_LAG.labels(self.name, tp.topic, str(tp.partition)).set(max(hw - position, 0))
        except (KafkaError, AssertionError, ValueError):  # rebalance in progress
            pass

    async def _write_and_commit(
        self, prepared: P, offsets: Offsets, records: list[ConsumerRecord[Any, Any]]
    ) -> None:
        topic = records[0].topic if records else ""
        with (
            consumer_batch_span(
                self.tracer, topic=topic, records=records, consumer_group=self._span_group
            ) as span,
            bound_contextvars(**_batch_trace_fields(span.get_span_context(), records)),
        ):
            await self._timed_write_and_commit(prepared, offsets)

    async def _timed_write_and_commit(self, prepared: P, offsets: Offsets) -> None:
        started = time.perf_counter()
        outcome = "failed"
        try:
            try:
                await self._write(prepared)
            except StopAfterCommit as partial:
                await self.commit(partial.offsets)
                outcome = "partial"
                raise partial.cause from None
            # The effect is durable: only now are the batch's offsets committed. A
            # crash before this line re-reads the batch; re-applying it is a no-op.
            await self.commit(offsets)
            outcome = "committed"
        finally:
            CONSUMER_BATCH_WRITE_SECONDS.labels(self.name, outcome).observe(time.perf_counter() - started)

    async def commit(self, offsets: Offsets) -> None:
        """Commit ``offsets``; a failed commit is logged, not raised (the
        partitions' next reader re-reads from the last commit)."""
        if not offsets:
            return
        try:
            await self.consumer.commit(dict(offsets))
        except (CommitFailedError, IllegalStateError, KafkaError) as exc:
            log.warning(
                "offset_commit_failed",
                consumer=self.name,
                error=type(exc).__name__,
                detail=str(exc)[:200],
                partitions=len(offsets),
            )
