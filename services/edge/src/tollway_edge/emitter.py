"""Usage events to Kafka without touching the client's critical path (adapter).

:meth:`UsageEmitter.emit` only appends to a bounded in-memory buffer and never
awaits. One background task wakes at most every ``linger_ms``, takes every
buffered event, packs them per partition into aiokafka batches (the default
partitioner's choice: murmur2 of the key, so a call's events stay in order on
one partition) and hands each batch to the producer (acks=all, idempotent)
in one ``send_batch``. Packing a whole window at once costs far less than one
``send`` per event, and it happens in one slice of loop time every
``linger_ms`` instead of in the middle of every call: at concurrency 1 the
per-event producer work was ~2 ms of a call's latency
(docs/edge-performance.md). A full buffer, a producer that is not up yet, or
a send that fails is logged and counted in
``tollway_usage_events_dropped_total`` — the call itself is never slowed or
failed by Kafka. At stop the buffer is drained and the producer flushed
within ``drain_seconds``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable
from typing import Any

import structlog
from aiokafka import AIOKafkaProducer
from aiokafka.partitioner import murmur2

from tollway_edge.metrics import EVENTS_DROPPED

log = structlog.get_logger("tollway_edge.emitter")


class UsageEmitter:
    """Bounded buffer + background batching producer.

    Args:
        bootstrap_servers: Kafka ``host:port[,host:port]``.
        topic: the usage topic (``tollway.usage.v1`` in production).
        queue_size: events held while Kafka is slow or down; beyond it, dropped.
        linger_ms: how long the emitter collects events before handing them
            to Kafka in batches, ms (0: as soon as the loop is free).
        drain_seconds: time allowed to flush at stop, s.
    """

    def __init__(
        self,
        bootstrap_servers: str,
        topic: str,
        *,
        queue_size: int = 100_000,
        linger_ms: int = 50,
        drain_seconds: float = 10.0,
    ) -> None:
        self.topic = topic
        self._bootstrap = bootstrap_servers
        self._linger_s = linger_ms / 1000.0
        self._drain_seconds = drain_seconds
        self._max = queue_size
        self._buffer: deque[tuple[bytes, bytes]] = deque()
        self._wake = asyncio.Event()
        self._producer: AIOKafkaProducer | None = None
        self._task: asyncio.Task[None] | None = None
        self._started = asyncio.Event()
        self._closing = False

    @property
    def ready(self) -> bool:
        """True once the producer has connected."""
        return self._started.is_set()

    def emit(self, key: bytes, value: bytes) -> None:
        """Buffer one event (key = request id, value = event JSON); never blocks."""
        if self._closing:
            EVENTS_DROPPED.labels("closing").inc()
            return
        if len(self._buffer) >= self._max:
            EVENTS_DROPPED.labels("queue_full").inc()
            log.warning("usage_event_dropped", reason="queue_full")
            return
        self._buffer.append((key, value))
        if not self._wake.is_set():
            self._wake.set()

    async def start(self) -> None:
        """Start the background task (it connects and retries on its own)."""
        self._task = asyncio.create_task(self._run(), name="usage-emitter")

    async def _connect(self) -> AIOKafkaProducer:
        delay = 0.5
        while True:
            producer = AIOKafkaProducer(
                bootstrap_servers=self._bootstrap,
                acks="all",
                enable_idempotence=True,
                linger_ms=0,  # the emitter batches; a batch handed over is ready
                request_timeout_ms=30_000,
                client_id="tollway-edge",
            )
            try:
                await producer.start()
                return producer
            except Exception:  # noqa: BLE001 - Kafka down: retry, events queue meanwhile
                log.warning("kafka_producer_start_failed", exc_info=True)
                with contextlib.suppress(Exception):
                    await producer.stop()
                await asyncio.sleep(delay)
                delay = min(delay * 2, 10.0)

    async def _run(self) -> None:
        self._producer = await self._connect()
        self._started.set()
        log.info("kafka_producer_started", topic=self.topic)
        while not self._closing:
            await self._wake.wait()
            if self._linger_s and not self._closing:
                await asyncio.sleep(self._linger_s)
            self._wake.clear()
            await self._flush_buffer()

    async def _flush_buffer(self) -> None:
        """Hand every buffered event to the producer, one batch per partition (or more when full)."""
        producer = self._producer
        assert producer is not None
        buffer = self._buffer
        if not buffer:
            return
        events = list(buffer)
        buffer.clear()
        try:
            partitions = sorted(await producer.partitions_for(self.topic))
        except Exception:  # noqa: BLE001
            EVENTS_DROPPED.labels("send_error").inc(len(events))
            log.warning("usage_event_dropped", reason="send_error", count=len(events), exc_info=True)
            return
        n = len(partitions)
        by_partition: dict[int, list[tuple[bytes, bytes]]] = {}
        for ev in events:
            p = partitions[0] if n == 1 else partitions[(murmur2(ev[0]) & 0x7FFFFFFF) % n]
            by_partition.setdefault(p, []).append(ev)
        for partition, evs in by_partition.items():
            batch = producer.create_batch()
            count = 0
            for key, value in evs:
                if batch.append(key=key, value=value, timestamp=None) is None:
                    await self._send_batch(batch, partition, count)
                    batch = producer.create_batch()
                    count = 0
                    if batch.append(key=key, value=value, timestamp=None) is None:  # larger than a batch
                        EVENTS_DROPPED.labels("send_error").inc()
                        log.warning("usage_event_dropped", reason="too_large", size=len(value))
                        continue
                count += 1
            if count:
                await self._send_batch(batch, partition, count)

    async def _send_batch(self, batch, partition: int, count: int) -> None:  # type: ignore[no-untyped-def]
        assert self._producer is not None
        try:
            future = await self._producer.send_batch(batch, self.topic, partition=partition)
        except Exception:  # noqa: BLE001
            EVENTS_DROPPED.labels("send_error").inc(count)
            log.warning("usage_event_dropped", reason="send_error", count=count, exc_info=True)
            return
        future.add_done_callback(_delivery_done(count))

    async def stop(self) -> None:
        """Stop intake, drain the buffer and flush the producer within ``drain_seconds``."""
        self._closing = True
        try:
            async with asyncio.timeout(self._drain_seconds):
                if self._started.is_set():
                    if self._task is not None:
                        self._wake.set()  # the task finishes its window and stops
                        await self._task
                    # Everything not yet handed over, then wait for delivery.
                    await self._flush_buffer()
                    assert self._producer is not None
                    await self._producer.flush()
        except TimeoutError:
            log.warning("usage_flush_timeout", pending=len(self._buffer))
        finally:
            if self._task is not None and not self._task.done():
                self._task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await self._task
            lost = len(self._buffer)
            if lost:
                EVENTS_DROPPED.labels("shutdown").inc(lost)
            if self._producer is not None:
                with contextlib.suppress(Exception):
                    await self._producer.stop()


def _delivery_done(count: int) -> Callable[[asyncio.Future[Any]], None]:
    def done(future: asyncio.Future[Any]) -> None:
        if future.cancelled():
            EVENTS_DROPPED.labels("cancelled").inc(count)
            return
        exc = future.exception()
        if exc is not None:
            EVENTS_DROPPED.labels("delivery_error").inc(count)
            log.warning("usage_event_dropped", reason="delivery_error", count=count, error=repr(exc))

    return done
