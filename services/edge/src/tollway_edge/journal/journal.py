"""``UsageJournal``: the durable usage journal of one edge worker process (the facade).

Life of a usage event: ``append`` (on the call's path, never awaits) →
written to this process's own segment in one ``write()`` per loop pass →
fsynced within ``fsync_interval_ms`` → read back and produced to Kafka by
the shipper → acknowledged (acks=all) → its segment deleted once every
record in it is acknowledged. What a previous life left (any journal
directory no live process holds) is adopted at start and every
``adopt_interval_seconds``, replayed, then removed.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

import structlog
from prometheus_client import REGISTRY, CollectorRegistry, Counter

from tollway_edge.journal import recovery, segments
from tollway_edge.journal.batches import Shipment
from tollway_edge.journal.drops import Drops
from tollway_edge.journal.metrics import (
    JournalGauges,
    JournalStats,
    claim_default_gauges,
    keep_gauges,
    release_default_gauges,
)
from tollway_edge.journal.segments import JournalDir
from tollway_edge.journal.settings import JournalSettings
from tollway_edge.journal.shipper import Shipper
from tollway_edge.journal.writer import JournalWriter

log = structlog.get_logger("tollway_edge.journal")


class UsageJournal:
    """Append-only local journal of usage events, shipped to Kafka in the background.

    A drop-in for the emitter's role: ``append``/``emit``, ``start``, ``stop``.

    Args:
        settings: the journal's knobs (:class:`JournalSettings`).
        bootstrap_servers: Kafka ``host:port[,host:port]``.
        topic: the usage topic (``tollway.usage.v1``).
        dropped_counter: a Counter with a ``reason`` label (the edge's
            ``tollway_usage_events_dropped_total``) to count records not
            journaled (``journal_full``, ``journal_write_error``,
            ``too_large``, ``closing``) or refused by Kafka for themselves
            (``kafka_rejected``); None counts only in :meth:`stats`.
        registry: where the journal's metrics live (:class:`JournalGauges`):
            the global registry by default (the first journal of the process
            owns them; another one exports nothing), a registry of the
            caller's (tests), or None (no metrics).
        metrics_interval_seconds: how often the gauges are set from
            :meth:`stats` while the journal runs, s.
        linger_ms: the shipper waits this long after being woken, ms.
        connect_backoff_max_seconds: cap of the Kafka reconnect backoff, s.
        request_timeout_ms: the producer's request timeout, ms.
    """

    def __init__(
        self,
        settings: JournalSettings,
        bootstrap_servers: str,
        topic: str,
        *,
        dropped_counter: Counter | None = None,
        registry: CollectorRegistry | None = REGISTRY,
        linger_ms: int = 50,
        connect_backoff_max_seconds: float = 5.0,
        request_timeout_ms: int = 30_000,
        metrics_interval_seconds: float = 1.0,
    ) -> None:
        self.settings = settings
        self._registry = registry
        self._gauges: JournalGauges | None = None
        self._metrics_interval = metrics_interval_seconds
        self._metrics_task: asyncio.Task[None] | None = None
        self._drop = Drops(dropped_counter)
        self._own: JournalDir | None = None
        self._writer: JournalWriter | None = None
        self._adopted: list[JournalDir] = []
        self.open_calls = recovery.OpenCalls()  # calls between `started` and their end (``recovery``)
        self._shipper = Shipper(
            bootstrap_servers,
            topic,
            dirs=self._dirs,
            on_acked=self._acked,
            on_rejected=self._rejected,
            max_record_bytes=settings.max_record_bytes,
            linger_ms=linger_ms,
            connect_backoff_max_seconds=connect_backoff_max_seconds,
            request_timeout_ms=request_timeout_ms,
        )
        self._ship_task: asyncio.Task[None] | None = None
        self._adopt_task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()
        self._drained = asyncio.Event()
        self._closing = False
        self._started = False
        self._acked_total = 0
        self._was_full = False

    # --- the call's path ----------------------------------------------------------------

    def append(
        self, key: bytes, value: bytes, trace: bytes = b"", *, local: bool = False, checkpoint: bytes = b""
    ) -> bool:
        """Journal one event (key = request id, value = event JSON; ``trace``: the call's W3C trace
        context, shipped as the record's ``traceparent``/``tracestate`` headers, ``format.trace_context``;
        ``local``: a recovery checkpoint, never shipped; ``checkpoint``: the call's open checkpoint in
        its ``started`` record, never shipped; ``journal.recovery``); never awaits, never raises.

        The record reaches the OS in one ``write()`` with everything else appended in this loop
        iteration (scheduled with ``call_soon``). Returns False when it was dropped and counted
        (journal full at ``max_bytes``, write failing, record over ``max_record_bytes``, or stopped).
        """
        writer = self._writer
        if writer is None:
            self._drop("closing", 1)
            return False
        return writer.append(key, value, trace, local=local, checkpoint=checkpoint)

    emit = append  # the UsageEmitter's name, so the journal can replace it as is

    def written(self) -> asyncio.Future[None]:
        """Awaitable done once every event appended so far is written to the OS (one loop pass)."""
        if self._writer is None:
            fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            fut.set_result(None)
            return fut
        return self._writer.written()

    def has_room(self) -> bool:
        """May the edge admit a new call? Check it before admission; cheap.

        ``drop`` policy: always True (events that do not fit are dropped and
        counted). ``refuse`` policy: False before start, while stopping, while
        writes fail (disk full), or once the own journal holds more than
        ``max_bytes - reserve_bytes``; the edge then answers 503
        ``journal_full`` (``errors.journal_full``; OpenAI's or Anthropic's format
        by endpoint, ``middleware.responses``).
        """
        if self.settings.full_policy == "drop":
            return True
        writer = self._writer
        if writer is None or self._closing:
            return False
        room = (
            not writer.write_failed
            and writer.held_bytes <= self.settings.max_bytes - self.settings.reserve_bytes
        )
        if room == self._was_full:  # a transition: one log line each way
            self._was_full = not room
            log.warning("journal_full" if not room else "journal_has_room", own_bytes=writer.held_bytes)
        return room

    @property
    def ready(self) -> bool:
        """Readiness: started, not stopping, and :meth:`has_room` (Kafka's state does not matter)."""
        return self._started and not self._closing and self.has_room()

    @property
    def kafka_connected(self) -> bool:
        """The shipper's producer is connected (a /readyz detail, not a condition)."""
        return self._shipper.connected

    # --- life -----------------------------------------------------------------------------

    async def start(self) -> None:
        """Create and lock this process's journal directory, then start fsync, shipping and adoption.

        Adoption of orphan journals runs in the background (records ship as
        soon as Kafka is reachable). Raises OSError when ``root_dir`` is not
        writable.
        """
        own = await asyncio.to_thread(segments.create_own, self.settings.root_dir)
        self._own = own
        self._writer = JournalWriter(own, self.settings, on_written=self._shipper.wake, on_drop=self._drop)
        self._writer.carry = self.open_calls.frames  # a new segment re-states the calls in flight
        self._writer.start()
        self._ship_task = asyncio.create_task(self._shipper.run(), name="journal-shipper")
        self._adopt_task = asyncio.create_task(self._adopt_loop(), name="journal-adopt")
        self._started = True
        if self._registry is REGISTRY:
            self._gauges = claim_default_gauges()
            if self._gauges is None:  # another journal of this process owns them (tests)
                log.warning("journal_metrics_not_registered", reason="duplicate")
        elif self._registry is not None:
            self._gauges = JournalGauges(self._registry)
        if self._gauges is not None:
            self._gauges.update(self.stats())
            self._metrics_task = asyncio.create_task(
                keep_gauges(self._gauges, self.stats, self._metrics_interval), name="journal-metrics"
            )
        log.info("journal_started", dir=own.path.name, root=str(self.settings.root_dir))

    async def stop(self, deadline_seconds: float = 10.0) -> bool:
        """Drain: write and fsync what is buffered, ship within the deadline, leave the rest on disk.

        Args:
            deadline_seconds: time allowed for shipping, s (the producer's
                close gets at most 1 s more).

        Returns:
            True when Kafka acknowledged everything (the journal directory is
            then removed); False when records stay on disk for the next life.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + deadline_seconds
        self._closing = True
        self._stopping.set()
        if self._adopt_task is not None:  # not cancelled: a scan in a thread must hand back its locks
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(self._adopt_task), max(0.1, deadline - loop.time()))
        if self._writer is not None:
            await self._writer.close()  # seals the active segment: it may now be deleted
        self._reclaim()
        self._shipper.wake()
        with contextlib.suppress(TimeoutError):  # past the deadline: what is left stays on disk
            async with asyncio.timeout(max(0.0, deadline - loop.time())):
                await self._drained.wait()
        if self._ship_task is not None:
            self._ship_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._ship_task
        try:
            async with asyncio.timeout(max(0.0, deadline - loop.time()) + 1.0):
                await self._shipper.close_producer()
        except Exception as exc:  # noqa: BLE001 - Kafka gone: what is unacked stays on disk anyway
            log.warning("journal_producer_close_failed", error=repr(exc))
        left = self._unacked()
        # Batches in flight at the deadline may have been acknowledged while the producer closed.
        shipped = left == 0 and all(not d.segments for d in self._dirs())
        for jdir in [*self._adopted, *([self._own] if self._own else [])]:
            await asyncio.to_thread(jdir.release, remove=not jdir.segments)
        self._adopted.clear()
        if self._metrics_task is not None:
            self._metrics_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._metrics_task
        if self._gauges is not None:
            release_default_gauges(self._gauges)
            self._gauges = None
        self._writer = None
        if shipped:
            log.info("journal_stopped", shipped_all=True)
        else:
            log.warning("journal_stopped", shipped_all=False, records_left=left)
        return shipped

    # --- state ----------------------------------------------------------------------------

    def stats(self) -> JournalStats:
        """A snapshot of depth, age and counts (cheap; reads at most one record header per journal)."""
        writer = self._writer
        own_bytes = writer.held_bytes if writer else 0
        dirs = self._dirs()
        return JournalStats(
            bytes=own_bytes + sum(d.held_bytes for d in self._adopted),
            own_bytes=own_bytes,
            records=self._unacked(),
            oldest_unacked_age_seconds=self._oldest_age_seconds(dirs),
            adopted_journals=len(self._adopted),
            appended_total=writer.appended_total if writer else 0,
            acked_total=self._acked_total,
            dropped=self._drop.totals(),
            full=not self.has_room(),
            kafka_connected=self._shipper.connected,
        )

    def _dirs(self) -> list[JournalDir]:
        return [*self._adopted, *([self._own] if self._own is not None else [])]

    def _unacked(self) -> int:
        pending = self._writer.pending_records if self._writer else 0
        return pending + sum(d.unacked for d in self._dirs())

    def _oldest_age_seconds(self, dirs: list[JournalDir]) -> float:
        stamps: list[int] = []
        in_memory = self._shipper.oldest_in_memory_ts_us()
        if in_memory is not None:
            stamps.append(in_memory)
        stamps += [ts for ts in (d.cursor_ts_us() for d in dirs) if ts is not None]
        if self._writer is not None and self._writer.pending_first_ts_us is not None:
            stamps.append(self._writer.pending_first_ts_us)
        if not stamps:
            return 0.0
        return max(0.0, time.time() - min(stamps) / 1e6)

    def _acked(self, records: list[Shipment]) -> None:
        for rec in records:
            rec.seg.acked += 1
        self._acked_total += len(records)
        self._reclaim()

    def _rejected(self, record: Shipment) -> None:
        """A record Kafka refuses for itself: counted as dropped (``kafka_rejected``) so its segment can go."""
        record.seg.acked += 1
        self._drop("kafka_rejected", 1)
        self._reclaim()

    def _reclaim(self) -> None:
        """Delete fully acknowledged segments (oldest first), remove replayed orphans, note a drain."""
        own = self._own
        if own is not None:
            freed = own.delete_done()
            if freed and self._writer is not None:
                self._writer.freed(freed)
        for jdir in list(self._adopted):
            jdir.delete_done()
            if not jdir.segments:
                jdir.release(remove=True)
                self._adopted.remove(jdir)
                log.info("journal_adopted_replayed", dir=jdir.path.name)
        self._check_drained()

    def _check_drained(self) -> None:
        if self._closing and self._unacked() == 0 and all(not d.segments for d in self._dirs()):
            self._drained.set()

    # --- adoption -------------------------------------------------------------------------

    async def _adopt_loop(self) -> None:
        interval = self.settings.adopt_interval_seconds
        while not self._stopping.is_set():
            try:
                await self._adopt_once()
            except OSError as exc:
                log.error("journal_adoption_failed", error=repr(exc))
            if interval <= 0:
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), interval)

    async def _adopt_once(self) -> None:
        held = {d.path for d in self._dirs()}
        root, max_payload = self.settings.root_dir, self.settings.max_record_bytes
        found = await asyncio.to_thread(segments.adopt_orphans, root, held, max_payload)
        billed = await recovery.bill_left_calls(found, self._writer, max_payload)  # calls left in flight
        if self._stopping.is_set() or not billed:  # stopped meanwhile: leave them to the next live process
            for jdir in found:
                jdir.release(remove=False)
            return
        self._adopted.extend(found)
        if found:
            self._shipper.wake()
