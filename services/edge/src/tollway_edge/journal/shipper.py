"""Ships journaled records to Kafka and tracks their acknowledgements (the background side).

The shipper reads records from the journal's segments (its cursor is each
segment's ``read_offset``; adopted journals first, then this process's own),
packs them per partition into aiokafka batches (the default partitioner's
choice: murmur2 of the key, so a call's events stay on one partition) and
hands each batch to an idempotent ``acks=all`` producer. Every batch's
future carries the records it holds: on success each record's segment
counts it acknowledged (the journal then deletes fully acknowledged
segments, oldest first); on failure its records go back to a retry queue and
are sent again — a record is never forgotten, only possibly sent twice
(consumers dedupe by ``event_id``) — except a record the broker refuses for
itself (too large for the topic, corrupt), which is split out of its batch,
then given up and counted so it cannot wedge the journal. After an error
that breaks the idempotent producer's sequence state the producer is
replaced. At most ``window_bytes`` of records are read and unacknowledged at
a time, so memory stays bounded however large the journal on disk is.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import structlog
from aiokafka import AIOKafkaProducer

from tollway_edge.journal import format as fmt
from tollway_edge.journal.batches import RECORD_ERRORS, RESET_ERRORS, Shipment, pack_batches
from tollway_edge.journal.partition import partition_for
from tollway_edge.journal.segments import JournalDir, Segment

log = structlog.get_logger("tollway_edge.journal")

READ_CHUNK_BYTES = 256 * 1024
BATCH_BYTES = 512 * 1024  # below the broker's default message.max.bytes (1 MiB)
TRICKLE_BYTES = READ_CHUNK_BYTES // 2  # a pass that shipped less lingers before the next one


class Shipper:
    """Reads unacknowledged records and produces them to Kafka.

    Args:
        bootstrap_servers: Kafka ``host:port[,host:port]``.
        topic: the usage topic.
        dirs: returns the journal directories to ship from, in order.
        on_acked: called with the records of each acknowledged batch.
        on_rejected: called with a record the broker refuses for itself (too
            large for the topic, corrupt): it can never be delivered.
        max_record_bytes: the journal's bound on a record's payload.
        linger_ms: after being woken, and after a pass that shipped under
            ``TRICKLE_BYTES`` (a trickle, not a backlog), wait this long so the
            next pass ships more (ms): ~one produce request per linger under load.
        window_bytes: bound of records read and not yet acknowledged (bytes).
        connect_backoff_max_seconds: cap of the reconnect backoff (s).
        request_timeout_ms: the producer's request timeout (a batch not
            acknowledged within it fails and is retried), ms.
    """

    def __init__(
        self,
        bootstrap_servers: str,
        topic: str,
        *,
        dirs: Callable[[], Sequence[JournalDir]],
        on_acked: Callable[[list[Shipment]], None],
        on_rejected: Callable[[Shipment], None],
        max_record_bytes: int,
        linger_ms: int = 50,
        window_bytes: int = 8 * 1024 * 1024,
        connect_backoff_max_seconds: float = 5.0,
        request_timeout_ms: int = 30_000,
    ) -> None:
        self.topic = topic
        self._bootstrap = bootstrap_servers
        self._dirs = dirs
        self._on_acked = on_acked
        self._on_rejected = on_rejected
        self._max_payload = max_record_bytes
        self._linger_s = linger_ms / 1000.0
        self._window = window_bytes
        self._backoff_max = connect_backoff_max_seconds
        self._request_timeout_ms = request_timeout_ms
        self._wake = asyncio.Event()
        self._retry: deque[Shipment] = deque()
        self._in_flight: dict[int, tuple[int, int]] = {}  # batch id -> (bytes, min ts_us)
        self._in_flight_bytes = 0
        self._failed = False
        self._read_fd: tuple[Segment, int] | None = None
        self.producer: AIOKafkaProducer | None = None
        self.connected = False
        self._reset = False
        self._generation = 0

    def wake(self) -> None:
        """Tell the shipper there may be something to do (records written, acks, adoption)."""
        self._wake.set()

    def oldest_in_memory_ts_us(self) -> int | None:
        """Append time of the oldest record in flight or waiting for a retry."""
        stamps = [ts for _, ts in self._in_flight.values()]
        if self._retry:
            stamps.append(min(s.ts_us for s in self._retry))
        return min(stamps) if stamps else None

    # --- producer -----------------------------------------------------------------------

    async def _connect(self) -> AIOKafkaProducer:
        delay = 0.2
        while True:
            producer = AIOKafkaProducer(
                bootstrap_servers=self._bootstrap,
                acks="all",
                enable_idempotence=True,
                linger_ms=0,  # the shipper batches; a batch handed over is ready
                max_batch_size=BATCH_BYTES,
                request_timeout_ms=self._request_timeout_ms,
                client_id="tollway-edge-journal",
            )
            try:
                await producer.start()
                return producer
            except asyncio.CancelledError:  # stopped while connecting: close what was opened
                with contextlib.suppress(Exception):
                    await producer.stop()
                raise
            except Exception as exc:  # noqa: BLE001 - Kafka down: retry; the journal holds the records
                log.warning("journal_kafka_connect_failed", error=repr(exc), retry_in_s=delay)
                with contextlib.suppress(Exception):
                    await producer.stop()
                await asyncio.sleep(delay)
                delay = min(delay * 2, self._backoff_max)

    async def close_producer(self) -> None:
        """Stop the producer (the caller bounds the wait) and close the read descriptor."""
        self._close_read_fd()
        producer, self.producer = self.producer, None
        self.connected = False
        if producer is not None:
            await producer.stop()

    # --- the loop -----------------------------------------------------------------------

    async def run(self) -> None:
        """Ship forever (cancel to stop): connect, then read → batch → send, retrying failures."""
        self.producer = await self._connect()
        self.connected = True
        log.info("journal_kafka_connected", topic=self.topic)
        delay = 0.2
        while True:
            if self._reset:
                await self._renew_producer()
            if self._failed:
                self._failed = False
                await asyncio.sleep(delay)
                delay = min(delay * 2, self._backoff_max)
            try:
                if await self._pass():
                    delay = 0.2
            except Exception as exc:  # noqa: BLE001 - e.g. a journal file gone: log, back off, go on
                log.error("journal_shipper_error", error=repr(exc), exc_info=True)
                self._failed = True

    async def _renew_producer(self) -> None:
        """Replace a producer whose idempotence state broke; batches still on the old one fail and retry."""
        self._reset = False
        self._generation += 1
        old, self.producer = self.producer, None
        self.connected = False
        log.warning("journal_producer_renewed", generation=self._generation)
        if old is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(5.0):
                    await old.stop()
        self.producer = await self._connect()
        self.connected = True

    async def _pass(self) -> bool:
        """One pass: send retries or newly read records, else wait to be woken; False on a send failure."""
        assert self.producer is not None
        records = self._take_retries()
        if not records and self._in_flight_bytes < self._window:
            records = await self._read(self._window - self._in_flight_bytes)
        if records:
            sent = await self._send(self.producer, records)
            if sent and self._linger_s and sum(r.size for r in records) < TRICKLE_BYTES:
                await asyncio.sleep(self._linger_s)  # under load, something is always unread: let it gather
            return sent
        self._wake.clear()
        if self._in_flight_bytes < self._window and self._has_unread():
            return True
        await self._wake.wait()
        if self._linger_s:
            await asyncio.sleep(self._linger_s)
        return True

    def _has_unread(self) -> bool:
        return any(d.first_unread() is not None for d in self._dirs())

    def _take_retries(self) -> list[Shipment]:
        records = list(self._retry)
        self._retry.clear()
        return records

    def _requeue(self, records: list[Shipment]) -> None:
        self._retry.extend(records)
        self._failed = True
        self._wake.set()

    # --- reading --------------------------------------------------------------------------

    async def _read(self, budget: int) -> list[Shipment]:
        """Records from the first segment with unread data, up to about ``budget`` bytes."""
        for jdir in self._dirs():
            seg = jdir.first_unread()
            if seg is None:
                continue
            start = seg.read_offset
            want = min(
                seg.size - start, max(min(budget, READ_CHUNK_BYTES), self._max_payload + fmt.FRAME_OVERHEAD)
            )
            if jdir.own:
                buf = os.pread(self._fd_for(seg), want, start)  # written by this loop: in the page cache
            else:
                buf = await asyncio.to_thread(_pread_path, seg, want, start)
            out: list[Shipment] = []
            end = local = 0
            for rec in fmt.decode(buf, 0, self._max_payload):
                end = rec.end
                if rec.local:  # a recovery checkpoint: read back only by an adopter, never shipped
                    local += 1
                    continue
                out.append(Shipment(seg, rec.ts_us, rec.key, rec.value, trace=rec.trace))
            if not end and want:
                # Unreachable for a journal this code wrote or validated; never loop on it.
                log.error("journal_unreadable_record", segment=seg.path.name, offset=start)
                seg.records = seg.read_records
                seg.read_offset = seg.size
                continue
            seg.read_offset = start + end
            seg.read_records += len(out) + local
            if not jdir.own:  # the own journal's writer counted them acknowledged when it wrote them
                seg.acked += local
            if seg.read_offset >= seg.size and seg.sealed:
                self._close_read_fd(seg)
            if local:
                self._on_acked([])  # done with them: their segment may go
            return out
        return []

    def _fd_for(self, seg: Segment) -> int:
        if self._read_fd is not None and self._read_fd[0] is seg:
            return self._read_fd[1]
        self._close_read_fd()
        fd = os.open(seg.path, os.O_RDONLY)
        self._read_fd = (seg, fd)
        return fd

    def _close_read_fd(self, seg: Segment | None = None) -> None:
        if self._read_fd is not None and (seg is None or self._read_fd[0] is seg):
            with contextlib.suppress(OSError):
                os.close(self._read_fd[1])
            self._read_fd = None

    # --- sending --------------------------------------------------------------------------

    async def _send(self, producer: AIOKafkaProducer, records: list[Shipment]) -> bool:
        """Hand ``records`` to the producer in per-partition batches; False if any went back to retry."""
        try:
            partitions = sorted(await producer.partitions_for(self.topic))
        except Exception as exc:  # noqa: BLE001 - metadata unavailable: retry later, records kept
            log.warning("journal_send_failed", stage="metadata", records=len(records), error=repr(exc))
            self._requeue(records)
            return False
        groups: dict[int, list[Shipment]] = {}
        if len(partitions) == 1:
            groups[partitions[0]] = records
        else:
            for r in records:
                groups.setdefault(partition_for(r.key, partitions), []).append(r)
        batches = [
            (p, batch, members)
            for p, recs in groups.items()
            for batch, members in pack_batches(producer, recs)
        ]
        for n, (partition, batch, members) in enumerate(batches):
            if not await self._submit(producer, batch, partition, members):
                self._requeue([r for _, _, rest in batches[n + 1 :] for r in rest])
                return False
        return True

    async def _submit(
        self, producer: AIOKafkaProducer, batch: Any, partition: int, members: list[Shipment]
    ) -> bool:
        try:
            future = await producer.send_batch(batch, self.topic, partition=partition)
        except Exception as exc:  # noqa: BLE001 - not accepted: the records stay ours
            log.warning("journal_send_failed", stage="send", records=len(members), error=repr(exc))
            self._requeue(members)
            return False
        nbytes = sum(r.size for r in members)
        key = id(future)
        self._in_flight[key] = (nbytes, min(r.ts_us for r in members))
        self._in_flight_bytes += nbytes
        generation = self._generation
        future.add_done_callback(lambda f: self._delivered(f, key, members, generation))
        return True

    def _rejected(self, members: list[Shipment], exc: BaseException) -> None:
        """The broker refused a batch for what it holds (never retriable as is): split, then give up per record."""
        if len(members) > 1:
            log.warning("journal_batch_rejected", records=len(members), error=repr(exc), action="split")
            for r in members:
                r.solo = True
            self._requeue(members)
            return
        r = members[0]
        log.error("journal_record_rejected", segment=r.seg.path.name, size=r.size, error=repr(exc))
        self._on_rejected(r)
        self._wake.set()

    def _delivered(
        self, future: asyncio.Future[Any], key: int, members: list[Shipment], generation: int
    ) -> None:
        nbytes, _ = self._in_flight.pop(key, (0, 0))
        self._in_flight_bytes -= nbytes
        exc: BaseException | None = asyncio.CancelledError() if future.cancelled() else future.exception()
        if isinstance(exc, RESET_ERRORS) and generation == self._generation:
            self._reset = True
        if isinstance(exc, RECORD_ERRORS):
            self._rejected(members, exc)
            return
        if exc is not None:
            log.warning("journal_delivery_failed", records=len(members), error=repr(exc))
            self._requeue(members)
            return
        self._on_acked(members)
        self._wake.set()


def _pread_path(seg: Segment, n: int, offset: int) -> bytes:
    fd = os.open(seg.path, os.O_RDONLY)
    try:
        return os.pread(fd, n, offset)
    finally:
        os.close(fd)
