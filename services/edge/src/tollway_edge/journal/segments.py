"""Journal directories and their segments (file-system side; blocking calls are marked).

One directory per worker process life, ``<root>/w-<pid>-<hex>``, holding
segment files (``format.segment_name``). The process holds an exclusive
``fcntl.flock`` on the directory's own file descriptor while alive; the
kernel releases it when the process dies, however it dies (SIGKILL
included). A directory whose lock can be taken belongs to no live process:
it is an orphan, and whoever locks it adopts it (replays, then removes it).

A new directory is created as ``.new-<pid>-<hex>``, locked, and only then
renamed to ``w-…`` (the lock follows the inode), so no other process can
adopt a directory between its creation and its lock; scanners skip ``.new-``
names except to remove empty ones left by a crash.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import structlog

from tollway_edge.journal import format as fmt

log = structlog.get_logger("tollway_edge.journal")

DIR_PREFIX = "w-"
NEW_PREFIX = ".new-"
PROBE_NAME = ".probe"


@dataclass(eq=False)
class Segment:
    """One segment file and what is known of its records.

    Attributes:
        path: the file.
        number: its number (order within the directory).
        size: bytes of valid data in it (header included).
        records: valid records in it.
        acked: records Kafka acknowledged (acks=all).
        read_offset: the shipper's cursor (next byte to ship).
        read_records: records the shipper has read.
        sealed: no more records will be added.
        first_ts_us: append time of its first record.
        fd: the write descriptor (the active segment of a live journal only).
        dirty: written since the last fsync.
    """

    path: Path
    number: int
    size: int = 0
    records: int = 0
    acked: int = 0
    read_offset: int = fmt.HEADER_BYTES
    read_records: int = 0
    sealed: bool = False
    first_ts_us: int | None = None
    fd: int | None = None
    dirty: bool = False

    @property
    def done(self) -> bool:
        """Sealed and every record acknowledged: the file may be deleted."""
        return self.sealed and self.acked >= self.records and self.read_offset >= self.size


@dataclass(eq=False)
class JournalDir:
    """A locked journal directory: this process's own, or an adopted orphan.

    Attributes:
        path: the directory.
        lock_fd: descriptor holding the exclusive flock.
        own: True for this process's own (appendable) journal.
        segments: live segments, oldest first.
        next_number: number of the next segment to create.
        removed: the directory has been deleted.
        released: the lock has been dropped.
    """

    path: Path
    lock_fd: int
    own: bool
    segments: deque[Segment] = field(default_factory=deque)
    next_number: int = 0
    removed: bool = False
    released: bool = False

    @property
    def held_bytes(self) -> int:
        """Bytes of all live segments."""
        return sum(s.size for s in self.segments)

    @property
    def unacked(self) -> int:
        """Records written and not yet acknowledged."""
        return sum(s.records - s.acked for s in self.segments)

    def first_unread(self) -> Segment | None:
        """The segment holding the shipper's cursor (None: everything written has been read)."""
        for seg in self.segments:
            if seg.read_offset < seg.size:
                return seg
        return None

    def cursor_ts_us(self) -> int | None:
        """Append time of the first record not yet read by the shipper (reads one header; None: none)."""
        seg = self.first_unread()
        if seg is None:
            return None
        if seg.read_offset == fmt.HEADER_BYTES and seg.first_ts_us is not None:
            return seg.first_ts_us
        try:
            fd = os.open(seg.path, os.O_RDONLY)
            try:
                return fmt.peek_ts(os.pread(fd, fmt.FRAME_OVERHEAD, seg.read_offset))
            finally:
                os.close(fd)
        except OSError:
            return None

    def delete_done(self) -> int:
        """Delete the leading segments whose records are all acknowledged (in order); returns bytes freed.

        The write descriptor of a deleted segment is left to its owner
        (:class:`~tollway_edge.journal.writer.JournalWriter` closes it after its fsync).
        """
        freed = 0
        while self.segments and self.segments[0].done:
            seg = self.segments.popleft()
            with contextlib.suppress(FileNotFoundError):
                seg.path.unlink()
            freed += seg.size
            log.debug("journal_segment_deleted", segment=seg.path.name, records=seg.records)
        return freed

    def release(self, *, remove: bool) -> None:
        """Drop the lock (blocking but fast); with ``remove``, delete the directory first if empty.

        Idempotent: a second call does nothing (the descriptor number may belong to another file by then).
        """
        if self.released:
            return
        if remove and not self.removed:
            try:
                for leftover in self.path.glob(fmt.SEGMENT_GLOB):
                    if not any(s.path == leftover for s in self.segments):
                        leftover.unlink()
                with contextlib.suppress(FileNotFoundError):
                    (self.path / PROBE_NAME).unlink()  # the writer's scratch file, if a kill left it
                self.path.rmdir()
                self.removed = True
            except OSError as exc:
                log.warning("journal_dir_not_removed", dir=self.path.name, error=repr(exc))
        self.released = True
        with contextlib.suppress(OSError):
            os.close(self.lock_fd)


def _lock(path: Path) -> int | None:
    """Open ``path`` and take a non-blocking exclusive flock; None if a live process holds it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except OSError:
        os.close(fd)
        raise
    return fd


def create_own(root: Path) -> JournalDir:
    """Create and lock this process's journal directory under ``root`` (blocking). Raises OSError."""
    root.mkdir(parents=True, exist_ok=True)
    tag = f"{os.getpid()}-{secrets.token_hex(4)}"
    tmp = root / f"{NEW_PREFIX}{tag}"
    tmp.mkdir()
    fd = _lock(tmp)
    if fd is None:  # pragma: no cover - nobody else can know this fresh name
        raise OSError(f"could not lock {tmp}")
    final = root / f"{DIR_PREFIX}{tag}"
    tmp.rename(final)
    fsync_dir(root)
    return JournalDir(final, fd, own=True)


def orphan_candidates(root: Path, exclude: set[Path]) -> list[Path]:
    """Journal directories under ``root`` not in ``exclude`` (blocking), oldest first by mtime."""
    try:
        entries = [p for p in root.iterdir() if p.is_dir() and p not in exclude]
    except FileNotFoundError:
        return []
    found: list[tuple[float, Path]] = []
    for p in entries:
        if p.name.startswith(NEW_PREFIX):
            fd = _lock(p)  # a crash between mkdir and rename: empty, remove it
            if fd is not None:
                with contextlib.suppress(OSError):
                    p.rmdir()
                os.close(fd)
            continue
        if p.name.startswith(DIR_PREFIX):
            with contextlib.suppress(FileNotFoundError):
                found.append((p.stat().st_mtime, p))
    return [p for _, p in sorted(found)]


def try_adopt(path: Path, max_payload: int) -> JournalDir | None:
    """Lock an orphan journal and validate its segments (blocking: run in a thread).

    Each segment is scanned; a torn tail (partial or corrupt frame) is
    truncated away and logged, never read as a record. Returns None when a
    live process holds the directory (or it is gone).
    """
    fd = _lock(path)
    if fd is None:
        return None
    jdir = JournalDir(path, fd, own=False)
    try:
        files = sorted(path.glob(fmt.SEGMENT_GLOB), key=fmt.segment_number)
    except OSError:
        files = []
    for file in files:
        result = fmt.scan(file, max_payload)
        if result.torn_bytes:
            log.warning(
                "journal_torn_tail_truncated",
                dir=path.name,
                segment=file.name,
                kept_records=result.records,
                kept_bytes=result.good_bytes,
                discarded_bytes=result.torn_bytes,
            )
            if result.good_bytes == 0 or result.records == 0:
                file.unlink()
                continue
            os.truncate(file, result.good_bytes)
        elif result.records == 0:
            file.unlink()
            continue
        jdir.segments.append(
            Segment(
                file,
                fmt.segment_number(file),
                size=result.good_bytes,
                records=result.records,
                sealed=True,
                first_ts_us=result.first_ts_us,
            )
        )
    return jdir


def adopt_orphans(root: Path, held: set[Path], max_payload: int) -> list[JournalDir]:
    """Adopt every orphan journal under ``root`` not in ``held`` (blocking: run in a thread).

    Empty orphans are removed at once; the others are returned locked and
    validated (:func:`try_adopt`), oldest first, for the shipper to replay.
    """
    adopted: list[JournalDir] = []
    for path in orphan_candidates(root, held):
        jdir = try_adopt(path, max_payload)
        if jdir is None:
            continue
        if not jdir.segments:
            jdir.release(remove=True)
            log.info("journal_adopted_empty", dir=path.name)
            continue
        log.info("journal_adopted", dir=path.name, records=jdir.unacked, bytes=jdir.held_bytes)
        adopted.append(jdir)
    return adopted


def fsync_dir(path: Path) -> None:
    """fsync a directory so entries created or renamed in it survive a crash (blocking)."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
