"""Appends: buffered per loop iteration, one write() per pass, fsync on an interval.

``append`` only encodes the record and adds it to a list; the first append of
a loop iteration schedules ``_flush`` with ``loop.call_soon``, so everything
appended in that iteration reaches the OS in ONE ``os.write`` at the start
of the next one (before any I/O callback of that iteration runs). After
the write the record is in the kernel's page cache: a killed process loses
nothing written. A background task fsyncs every written segment in a thread
each ``fsync_interval_ms``: a machine crash loses at most that interval.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable
from pathlib import Path

import structlog

from tollway_edge.journal import format as fmt
from tollway_edge.journal.segments import PROBE_NAME, JournalDir, Segment, fsync_dir
from tollway_edge.journal.settings import JournalSettings

log = structlog.get_logger("tollway_edge.journal")

DropCallback = Callable[[str, int], None]
PROBE_BYTES = 64 * 1024


class JournalWriter:
    """The append side of this process's own journal directory.

    Args:
        jdir: the locked own directory (:func:`~tollway_edge.journal.segments.create_own`).
        settings: bounds and intervals.
        on_written: called after each successful write (wakes the shipper).
        on_drop: ``on_drop(reason, count)`` for records that were not journaled.

    Attributes:
        carry: ``carry(ts_us)`` gives the framed records every new segment starts
            with (``recovery.OpenCalls.frames``: the calls still in flight); None: nothing.
    """

    def __init__(
        self,
        jdir: JournalDir,
        settings: JournalSettings,
        *,
        on_written: Callable[[], None],
        on_drop: DropCallback,
    ) -> None:
        self.dir = jdir
        self._settings = settings
        self._on_written = on_written
        self._on_drop = on_drop
        self.carry: Callable[[int], list[bytes]] | None = None
        self._pending: list[bytes] = []
        self._pending_bytes = 0
        self._pending_local = 0  # local records among them (never shipped: acknowledged once written)
        # A batch whose write failed (disk full), kept to be written first by the next pass:
        # (data, records, local records, first ts); at most ``reserve_bytes``.
        self._stash: tuple[bytes, int, int, int | None] | None = None
        self._pending_first_ts_us: int | None = None
        self._scheduled = False
        self._waiters: list[asyncio.Future[None]] = []
        self._active: Segment | None = None
        self._to_close: list[Segment] = []
        self._dir_dirty = False
        self._closed = False
        self.disk_bytes = 0
        self.write_failed = False
        self.appended_total = 0
        self.batches_total = 0
        self._fsync_task: asyncio.Task[None] | None = None
        self._sync_in_thread: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    # --- append path (the call's path: never awaits) -----------------------------

    @property
    def held_bytes(self) -> int:
        """Bytes held: written segments plus what is buffered for this loop pass."""
        return self.disk_bytes + self._pending_bytes + (len(self._stash[0]) if self._stash else 0)

    @property
    def pending_records(self) -> int:
        """Usage events appended and not yet written (this loop pass's, and a batch kept after a failed write)."""
        kept = self._stash[1] - self._stash[2] if self._stash else 0
        return len(self._pending) - self._pending_local + kept

    @property
    def pending_first_ts_us(self) -> int | None:
        """Append time of the oldest record not yet written."""
        return self._pending_first_ts_us

    def append(
        self, key: bytes, value: bytes, trace: bytes = b"", *, local: bool = False, checkpoint: bytes = b""
    ) -> bool:
        """Buffer one record (``trace``: its W3C trace context; ``local``: never shipped;
        ``checkpoint``: a local part riding with it; ``format.encode``) for this loop
        pass's write; False (and ``on_drop``) when it cannot be kept."""
        if self._closed:
            self._on_drop("closing", 1)
            return False
        size = fmt.record_bytes(key, value, trace, checkpoint)
        if size - fmt.FRAME_OVERHEAD + fmt.MIN_PAYLOAD > self._settings.max_record_bytes:
            self._on_drop("too_large", 1)
            return False
        if self.held_bytes + size + fmt.HEADER_BYTES > self._settings.max_bytes:
            self._on_drop("journal_full", 1)
            return False
        ts_us = time.time_ns() // 1000
        self._pending.append(fmt.encode(key, value, ts_us, trace, local=local, checkpoint=checkpoint))
        self._pending_local += local
        self._pending_bytes += size
        if self._pending_first_ts_us is None:
            self._pending_first_ts_us = ts_us
        if not self._scheduled:
            self._scheduled = True
            loop = self._loop or asyncio.get_running_loop()
            loop.call_soon(self._flush)
        return True

    def written(self) -> asyncio.Future[None]:
        """A future done once every record appended so far has been written (or dropped)."""
        loop = self._loop or asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        if not self._pending:
            fut.set_result(None)
        else:
            self._waiters.append(fut)
        return fut

    # --- the write, once per loop pass ------------------------------------------------

    def _flush(self) -> None:
        self._scheduled = False
        if not self._pending and self._stash is None:
            self._wake_waiters()
            return
        data = b"".join(self._pending)
        count = len(self._pending)
        local, self._pending_local = self._pending_local, 0
        first_ts = self._pending_first_ts_us
        self._pending.clear()
        self._pending_bytes = 0
        self._pending_first_ts_us = None
        if self._stash is not None:  # the batch a failed write kept goes first
            kept, kept_count, kept_local, kept_ts = self._stash
            self._stash = None
            data, count, local = kept + data, kept_count + count, kept_local + local
            first_ts = kept_ts if kept_ts is not None else first_ts
        try:
            self._write(data, count, first_ts, local)
        finally:
            self._wake_waiters()

    def _write(self, data: bytes, count: int, first_ts: int | None, local: int = 0) -> None:
        seg = self._active
        if seg is None or (seg.records and seg.size + len(data) > self._settings.segment_bytes):
            seg = self._roll()
            if seg is None:
                self._keep(data, count, local, first_ts)
                return
            if self.carry is not None:  # the calls still in flight, re-stated (local records)
                carried = self.carry(time.time_ns() // 1000)
                data, count = b"".join([*carried, data]), count + len(carried)
                local += len(carried)
        before = seg.size
        buf = fmt.MAGIC + data if before == 0 else data
        assert seg.fd is not None
        try:
            view = memoryview(buf)
            while view:
                n = os.write(seg.fd, view)
                view = view[n:]
        except OSError as exc:
            # Disk full or I/O error: take back what part of the batch was written, so
            # the segment ends on a whole record, and keep the batch for the next pass.
            with contextlib.suppress(OSError):
                os.ftruncate(seg.fd, before)
            self._keep(data, count, local, first_ts)
            if not self.write_failed:
                log.error("journal_write_failed", segment=seg.path.name, records=count, error=repr(exc))
            self.write_failed = True
            return
        if self.write_failed:
            log.info("journal_write_recovered", segment=seg.path.name)
        self.write_failed = False
        seg.size += len(buf)
        seg.records += count
        seg.acked += local  # local records never go to Kafka: nothing to wait for
        seg.dirty = True
        if seg.first_ts_us is None:
            seg.first_ts_us = first_ts
        self.disk_bytes += len(buf)
        self.appended_total += count - local
        self.batches_total += 1
        self._on_written()

    def _keep(self, data: bytes, count: int, local: int, first_ts: int | None) -> None:
        """A batch that could not be written: kept in memory for the next pass (in
        ``refuse`` mode no new call is admitted meanwhile, so only the calls in flight
        add to it), or, beyond ``reserve_bytes``, dropped and counted
        (``journal_write_error``). A process kill loses what is kept."""
        if len(data) <= self._settings.reserve_bytes:
            self._stash = (data, count, local, first_ts)
        else:
            self._on_drop("journal_write_error", count)
        self.write_failed = True

    def _roll(self) -> Segment | None:
        """Seal the active segment and open the next one (None when it cannot be created)."""
        old = self._active
        if old is not None:
            old.sealed = True
            self._to_close.append(old)
            self._active = None
        jdir = self.dir
        path = jdir.path / fmt.segment_name(jdir.next_number)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
        except OSError as exc:
            if not self.write_failed:
                log.error("journal_segment_create_failed", segment=path.name, error=repr(exc))
            self.write_failed = True
            return None
        seg = Segment(path, jdir.next_number, fd=fd)
        jdir.next_number += 1
        jdir.segments.append(seg)
        self._active = seg
        self._dir_dirty = True
        return seg

    def _wake_waiters(self) -> None:
        waiters, self._waiters = self._waiters, []
        for fut in waiters:
            if not fut.done():
                fut.set_result(None)

    def freed(self, nbytes: int) -> None:
        """The shipper deleted segments holding ``nbytes``."""
        self.disk_bytes -= nbytes

    # --- fsync ----------------------------------------------------------------------------

    def start(self) -> None:
        """Start the fsync task (call from the running loop)."""
        self._loop = asyncio.get_running_loop()
        self._fsync_task = asyncio.create_task(self._fsync_loop(), name="journal-fsync")

    async def _fsync_loop(self) -> None:
        interval = self._settings.fsync_interval_ms / 1000.0
        while True:
            await asyncio.sleep(interval)
            try:
                await self.sync()
            except OSError as exc:
                log.error("journal_fsync_failed", error=repr(exc))
            if self.write_failed:
                self._probe()

    def _probe(self) -> None:
        """After a failed write, try a small write in a scratch file: the disk may have room again.

        In ``refuse`` mode nothing else would clear the failure (no call is
        admitted, so nothing is appended). The next real write confirms it.
        """
        probe = self.dir.path / PROBE_NAME
        try:
            fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                os.write(fd, bytes(PROBE_BYTES))
            finally:
                os.close(fd)
                probe.unlink()
        except OSError:
            return
        self.write_failed = False
        log.info("journal_write_probe_succeeded")
        if self._stash is not None and not self._scheduled and self._loop is not None:
            self._scheduled = True  # write the kept batch now
            self._loop.call_soon(self._flush)

    async def sync(self) -> None:
        """fsync every segment written since the last sync (in a thread), then close sealed ones."""
        dirty = [s for s in self.dir.segments if s.dirty and s.fd is not None]
        dirty += [s for s in self._to_close if s.dirty and s.fd is not None and s not in dirty]
        for seg in dirty:
            seg.dirty = False
        fds = [s.fd for s in dirty if s.fd is not None]
        dir_dirty, self._dir_dirty = self._dir_dirty, False
        if fds or dir_dirty:
            # Shielded: a cancelled caller must not let close() release descriptors the
            # thread is still syncing; close() waits for this future instead.
            fut = asyncio.ensure_future(
                asyncio.to_thread(_fsync_all, fds, self.dir.path if dir_dirty else None)
            )
            self._sync_in_thread = fut
            await asyncio.shield(fut)
        still_dirty = [s for s in self._to_close if s.dirty]
        for seg in self._to_close:
            if not seg.dirty and seg.fd is not None:
                os.close(seg.fd)
                seg.fd = None
        self._to_close = still_dirty

    async def close(self) -> None:
        """Write what is buffered, seal the active segment, fsync and close everything."""
        self._flush()
        self._closed = True
        if self._stash is not None:  # the disk is still full: the kept batch is lost now
            self._on_drop("journal_write_error", self._stash[1])
            self._stash = None
        if self._fsync_task is not None:
            self._fsync_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._fsync_task
        if self._sync_in_thread is not None:
            with contextlib.suppress(OSError):
                await self._sync_in_thread
        if self._active is not None:
            self._active.sealed = True
            self._to_close.append(self._active)
            self._active = None
        await self.sync()


def _fsync_all(fds: list[int], directory: Path | None) -> None:
    for fd in fds:
        os.fsync(fd)
    if directory is not None:
        fsync_dir(directory)
