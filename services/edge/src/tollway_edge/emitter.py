"""Usage events to Kafka without touching the client's critical path (adapter).

:meth:`UsageEmitter.emit` only appends to a bounded in-memory queue and never
awaits. One background task hands events to an aiokafka producer (acks=all,
idempotent, lingering for batching). A full queue, a producer that is not up
yet, or a send that fails is logged and counted in
``tollway_usage_events_dropped_total`` — the call itself is never slowed or
failed by Kafka. At stop the queue is drained and the producer flushed within
``drain_seconds``.
"""

from __future__ import annotations

import asyncio
import contextlib

import structlog
from aiokafka import AIOKafkaProducer

from tollway_edge.metrics import EVENTS_DROPPED

log = structlog.get_logger("tollway_edge.emitter")


class UsageEmitter:
    """Bounded queue + background producer.

    Args:
        bootstrap_servers: Kafka ``host:port[,host:port]``.
        topic: the usage topic (``tollway.usage.v1`` in production).
        queue_size: events held while Kafka is slow or down; beyond it, dropped.
        linger_ms: producer batching delay, ms.
        drain_seconds: time allowed to flush at stop, s.
    """

    def __init__(
        self,
        bootstrap_servers: str,
        topic: str,
        *,
        queue_size: int = 100_000,
        linger_ms: int = 5,
        drain_seconds: float = 10.0,
    ) -> None:
        self.topic = topic
        self._bootstrap = bootstrap_servers
        self._linger_ms = linger_ms
        self._drain_seconds = drain_seconds
        self._queue: asyncio.Queue[tuple[bytes, bytes]] = asyncio.Queue(maxsize=queue_size)
        self._producer: AIOKafkaProducer | None = None
        self._task: asyncio.Task | None = None
        self._started = asyncio.Event()
        self._closing = False

    @property
    def ready(self) -> bool:
        """True once the producer has connected."""
        return self._started.is_set()

    def emit(self, key: bytes, value: bytes) -> None:
        """Queue one event (key = request id, value = event JSON); never blocks."""
        if self._closing:
            EVENTS_DROPPED.labels("closing").inc()
            return
        try:
            self._queue.put_nowait((key, value))
        except asyncio.QueueFull:
            EVENTS_DROPPED.labels("queue_full").inc()
            log.warning("usage_event_dropped", reason="queue_full")

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
                linger_ms=self._linger_ms,
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
        while True:
            key, value = await self._queue.get()
            await self._send(key, value)

    async def _send(self, key: bytes, value: bytes) -> None:
        assert self._producer is not None
        try:
            future = await self._producer.send(self.topic, value=value, key=key)
        except Exception:  # noqa: BLE001
            EVENTS_DROPPED.labels("send_error").inc()
            log.warning("usage_event_dropped", reason="send_error", exc_info=True)
            return
        future.add_done_callback(_delivery_done)

    async def stop(self) -> None:
        """Stop intake, drain the queue and flush the producer within ``drain_seconds``."""
        self._closing = True
        try:
            async with asyncio.timeout(self._drain_seconds):
                if self._started.is_set():
                    while not self._queue.empty():
                        await asyncio.sleep(0.01)
                    if self._task is not None:
                        self._task.cancel()
                        with contextlib.suppress(asyncio.CancelledError):
                            await self._task
                    # Leftovers the cancelled task had not yet handed over.
                    while not self._queue.empty():
                        await self._send(*self._queue.get_nowait())
                    assert self._producer is not None
                    await self._producer.flush()
        except TimeoutError:
            log.warning("usage_flush_timeout", pending=self._queue.qsize())
        finally:
            if self._task is not None and not self._task.done():
                self._task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await self._task
            lost = self._queue.qsize()
            if lost:
                EVENTS_DROPPED.labels("shutdown").inc(lost)
            if self._producer is not None:
                with contextlib.suppress(Exception):
                    await self._producer.stop()


def _delivery_done(future: asyncio.Future) -> None:
    if future.cancelled():
        EVENTS_DROPPED.labels("cancelled").inc()
        return
    exc = future.exception()
    if exc is not None:
        EVENTS_DROPPED.labels("delivery_error").inc()
        log.warning("usage_event_dropped", reason="delivery_error", error=repr(exc))
