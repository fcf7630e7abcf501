"""The journal's append side over real files: one write() per loop pass, bounds, write errors, fsync."""

from __future__ import annotations

import asyncio
import resource
import signal
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tollway_edge.journal import JournalSettings, segments
from tollway_edge.journal import format as fmt
from tollway_edge.journal.writer import JournalWriter

pytestmark = pytest.mark.unit


@pytest.fixture
def drops() -> Counter[str]:
    return Counter()


@pytest.fixture
def make_writer(tmp_path: Path, drops: Counter[str]) -> Iterator[object]:
    made: list[JournalWriter] = []

    def make(**knobs: object) -> JournalWriter:
        knobs.setdefault("max_record_bytes", 4096)
        settings = JournalSettings(root_dir=tmp_path, **knobs)  # type: ignore[arg-type]
        jdir = segments.create_own(tmp_path)
        writer = JournalWriter(
            jdir, settings, on_written=lambda: None, on_drop=lambda r, n: drops.update({r: n})
        )
        made.append(writer)
        return writer

    yield make
    for w in made:
        w.dir.release(remove=False)


def failed(writer: JournalWriter) -> bool:
    """``writer.write_failed``, read through a call so mypy does not narrow it across awaits."""
    return writer.write_failed


def on_disk(writer: JournalWriter) -> int:
    return sum(fmt.scan(s.path, 1 << 20).records for s in writer.dir.segments)


async def test_one_write_per_loop_pass(make_writer: object) -> None:
    writer: JournalWriter = make_writer()  # type: ignore[operator]
    writer.start()
    for i in range(100):
        assert writer.append(b"k%d" % i, b"v" * 100)
    assert writer.pending_records == 100 and on_disk(writer) == 0  # nothing written inside the pass
    await asyncio.sleep(0)
    assert writer.batches_total == 1 and on_disk(writer) == 100
    for _ in range(3):
        writer.append(b"k", b"v")
        writer.append(b"k", b"v")
        await asyncio.sleep(0)
    assert writer.batches_total == 4 and writer.appended_total == 106
    await writer.close()


async def test_written_future_and_segment_roll(make_writer: object) -> None:
    writer: JournalWriter = make_writer(segment_bytes=4096)  # type: ignore[operator]
    writer.start()
    for _ in range(10):
        for _ in range(5):
            writer.append(b"key", b"v" * 200)
        await writer.written()
    assert len(writer.dir.segments) >= 3
    assert all(s.size <= 4096 + 5 * 223 for s in writer.dir.segments)
    assert on_disk(writer) == 50
    assert writer.held_bytes == sum(p.stat().st_size for p in writer.dir.path.glob("seg-*.log"))
    await writer.close()
    assert all(s.sealed and s.fd is None for s in writer.dir.segments)


async def test_bound_and_record_size(make_writer: object, drops: Counter[str]) -> None:
    writer: JournalWriter = make_writer(segment_bytes=4096, max_bytes=8192, reserve_bytes=1024)  # type: ignore[operator]
    writer.start()
    kept = sum(writer.append(b"key", b"v" * 500) for _ in range(40))
    assert kept == (8192 - fmt.HEADER_BYTES) // (fmt.FRAME_OVERHEAD + 503)
    assert drops["journal_full"] == 40 - kept
    assert not writer.append(b"key", b"v" * 5000)
    assert drops["too_large"] == 1
    await writer.close()
    assert not writer.append(b"k", b"v") and drops["closing"] == 1


async def test_fsync_runs_on_the_interval(make_writer: object, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    writer: JournalWriter = make_writer(fsync_interval_ms=20)  # type: ignore[operator]
    synced: list[int] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    writer.start()
    writer.append(b"k", b"v")
    await writer.written()
    assert not synced
    await asyncio.sleep(0.1)
    assert synced  # the segment (and the directory entry) reached the disk
    assert not any(s.dirty for s in writer.dir.segments)
    await writer.close()


async def test_write_error_keeps_the_batch_rolls_back_and_recovers(
    make_writer: object, drops: Counter[str]
) -> None:
    """A file-size limit (RLIMIT_FSIZE) stands in for a full disk: write() fails with EFBIG.
    The batch is kept in memory (the calls in flight must still be billed) and written
    once the disk takes writes again."""
    writer: JournalWriter = make_writer(fsync_interval_ms=50)  # type: ignore[operator]
    writer.start()
    writer.append(b"k", b"v" * 100)
    await writer.written()
    size = writer.dir.segments[0].size
    old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size + 150, hard))
    try:
        for _ in range(5):
            writer.append(b"k", b"v" * 100)  # 5 × 123 bytes: only a part fits
        await writer.written()
        assert drops["journal_write_error"] == 0 and failed(writer)
        assert writer.pending_records == 5  # kept for the next pass
        assert writer.dir.segments[0].path.stat().st_size == size  # the partial write was taken back
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, old_handler)
    # Nothing is appended (refuse mode admits no call), yet the failure clears once the disk
    # takes writes again: the fsync task probes it and writes the kept batch.
    for _ in range(40):
        if not failed(writer) and writer.pending_records == 0:
            break
        await asyncio.sleep(0.05)
    assert not failed(writer) and on_disk(writer) == 6 and drops["journal_write_error"] == 0
    writer.append(b"k", b"v" * 100)
    await writer.written()
    assert not failed(writer) and on_disk(writer) == 7
    await writer.close()


async def test_a_failed_batch_beyond_the_reserve_is_dropped_and_counted(
    make_writer: object, drops: Counter[str]
) -> None:
    writer: JournalWriter = make_writer(fsync_interval_ms=50, reserve_bytes=200)  # type: ignore[operator]
    writer.start()
    writer.append(b"k", b"v" * 100)
    await writer.written()
    size = writer.dir.segments[0].size
    old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size + 150, hard))
    try:
        for _ in range(5):
            writer.append(b"k", b"v" * 100)  # 615 bytes > the 200-byte reserve
        await writer.written()
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, old_handler)
    assert drops["journal_write_error"] == 5 and failed(writer) and writer.pending_records == 0
    await writer.close()
