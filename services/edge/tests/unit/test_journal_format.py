"""Journal framing, segment scan (torn tails), directory locks and settings: pure, over real files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tollway_edge.journal import JournalSettings, segments
from tollway_edge.journal import format as fmt

pytestmark = pytest.mark.unit

MAX = 1 << 20


def records(n: int) -> list[tuple[bytes, bytes, int]]:
    return [
        (f"req-{i}".encode(), b'{"event_id": "%d"}' % i + b"x" * (i % 7), 1_700_000_000_000_000 + i)
        for i in range(n)
    ]


def write_segment(path: Path, recs: list[tuple[bytes, bytes, int]]) -> list[int]:
    """Write a segment; returns the file offset after each record."""
    data = bytearray(fmt.MAGIC)
    ends = []
    for key, value, ts in recs:
        data += fmt.encode(key, value, ts)
        ends.append(len(data))
    path.write_bytes(bytes(data))
    return ends


def test_roundtrip() -> None:
    recs = records(5)
    buf = b"".join(fmt.encode(k, v, ts) for k, v, ts in recs)
    out = list(fmt.decode(buf, 0, MAX))
    assert [(r.key, r.value, r.ts_us) for r in out] == recs
    assert out[-1].end == len(buf)
    assert out[0].size == fmt.FRAME_OVERHEAD + len(recs[0][0]) + len(recs[0][1])
    assert fmt.peek_ts(buf) == recs[0][2]


TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def test_a_trace_context_rides_with_its_record_and_untraced_records_keep_the_v1_layout() -> None:
    trace = fmt.trace_context(TRACEPARENT, "vendor=abc")
    traced = fmt.encode(b"req-1", b'{"a": 1}', 7, trace)
    plain = fmt.encode(b"req-2", b'{"b": 2}', 8)
    assert len(traced) == fmt.record_bytes(b"req-1", b'{"a": 1}', trace)
    assert len(plain) == fmt.record_bytes(b"req-2", b'{"b": 2}') == fmt.FRAME_OVERHEAD + 5 + 8
    a, b = fmt.decode(traced + plain, 0, MAX)
    assert (a.key, a.value, a.ts_us, a.trace) == (b"req-1", b'{"a": 1}', 7, trace)
    assert (b.key, b.value, b.trace) == (b"req-2", b'{"b": 2}', b"")
    assert fmt.kafka_headers(a.trace) == [
        ("traceparent", TRACEPARENT.encode()),
        ("tracestate", b"vendor=abc"),
    ]
    assert fmt.kafka_headers(fmt.trace_context(TRACEPARENT)) == [("traceparent", TRACEPARENT.encode())]
    assert fmt.kafka_headers(b"") is None
    # Every cut of a traced record is a torn tail, never a record.
    for cut in range(len(traced)):
        assert list(fmt.decode(traced[:cut], 0, MAX)) == []


def test_a_checkpoint_rides_with_its_record_and_is_not_part_of_the_value() -> None:
    """Version 4: `started` and its open checkpoint are one record; the value (what is
    shipped) is the event alone, whatever else rides with it."""
    trace = fmt.trace_context(TRACEPARENT)
    cp = b'{"c":0,"p":12,"i":1,"o":2}'
    both = fmt.encode(b"req-1", b'{"a": 1}', 7, trace, checkpoint=cp)
    only = fmt.encode(b"req-2", b'{"b": 2}', 8, checkpoint=cp)
    carried = fmt.encode(b"req-3", b'{"c": 3}', 9, local=True, checkpoint=cp)
    assert len(both) == fmt.record_bytes(b"req-1", b'{"a": 1}', trace, cp)
    assert len(only) == fmt.record_bytes(b"req-2", b'{"b": 2}', b"", cp)
    a, b, c = fmt.decode(both + only + carried, 0, MAX)
    assert (a.key, a.value, a.trace, a.checkpoint, a.local) == (b"req-1", b'{"a": 1}', trace, cp, False)
    assert (b.key, b.value, b.trace, b.checkpoint, b.local) == (b"req-2", b'{"b": 2}', b"", cp, False)
    assert (c.key, c.value, c.checkpoint, c.local) == (b"req-3", b'{"c": 3}', cp, True)
    for cut in range(len(both)):  # every cut is a torn tail, never a record
        assert list(fmt.decode(both[:cut], 0, MAX)) == []


def test_a_version_3_segment_is_still_read(tmp_path: Path) -> None:
    path = tmp_path / fmt.segment_name(0)
    recs = records(3)
    path.write_bytes(fmt.MAGIC_V3 + b"".join(fmt.encode(k, v, ts) for k, v, ts in recs))
    assert fmt.scan(path, MAX).records == 3


def test_a_version_1_segment_is_still_read(tmp_path: Path) -> None:
    recs = records(3)
    path = tmp_path / fmt.segment_name(1)
    path.write_bytes(fmt.MAGIC_V1 + b"".join(fmt.encode(k, v, ts) for k, v, ts in recs))
    assert fmt.scan(path, MAX).records == 3


def test_every_cut_of_the_last_record_is_a_torn_tail(tmp_path: Path) -> None:
    path = tmp_path / fmt.segment_name(0)
    recs = records(3)
    ends = write_segment(path, recs)
    full = path.read_bytes()
    for cut in range(ends[1] + 1, ends[2]):  # every length that cuts the third record
        path.write_bytes(full[:cut])
        result = fmt.scan(path, MAX)
        assert (result.records, result.good_bytes, result.torn_bytes) == (2, ends[1], cut - ends[1])
    path.write_bytes(full)
    assert fmt.scan(path, MAX).records == 3 and fmt.scan(path, MAX).torn_bytes == 0


def test_corrupt_or_zeroed_records_are_never_read(tmp_path: Path) -> None:
    path = tmp_path / fmt.segment_name(0)
    ends = write_segment(path, records(3))
    data = bytearray(path.read_bytes())
    data[ends[0] + 12] ^= 0xFF  # one bit flip inside the second record's payload
    path.write_bytes(bytes(data))
    assert fmt.scan(path, MAX).records == 1
    # A crash after the file grew but before its data landed: zeros at the tail.
    write_segment(path, records(2))
    path.write_bytes(path.read_bytes() + b"\x00" * 64)
    result = fmt.scan(path, MAX)
    assert (result.records, result.torn_bytes) == (2, 64)
    # A length beyond the bound is not trusted either.
    path.write_bytes(fmt.MAGIC + (10**9).to_bytes(4, "big") + b"\x00" * 40)
    assert fmt.scan(path, MAX).records == 0
    path.write_bytes(b"TWJ")  # not even a header
    assert fmt.scan(path, MAX).good_bytes == 0


def test_adoption_truncates_a_torn_tail_and_keeps_the_good_records(tmp_path: Path) -> None:
    jdir = tmp_path / "w-1-dead"
    jdir.mkdir()
    ends0 = write_segment(jdir / fmt.segment_name(0), records(4))
    ends1 = write_segment(jdir / fmt.segment_name(1), records(3))
    seg1 = jdir / fmt.segment_name(1)
    os.truncate(seg1, ends1[2] - 5)
    write_segment(jdir / fmt.segment_name(2), [])  # a header only: nothing to replay
    adopted = segments.try_adopt(jdir, MAX)
    assert adopted is not None
    assert [(s.number, s.records, s.size) for s in adopted.segments] == [(0, 4, ends0[3]), (1, 2, ends1[1])]
    assert seg1.stat().st_size == ends1[1]
    assert not (jdir / fmt.segment_name(2)).exists()
    adopted.release(remove=False)


def test_a_live_journal_cannot_be_adopted(tmp_path: Path) -> None:
    own = segments.create_own(tmp_path)
    assert own.path.name.startswith(f"w-{os.getpid()}-")
    assert segments.orphan_candidates(tmp_path, set()) == [own.path]
    assert segments.try_adopt(own.path, MAX) is None  # another open file description: the flock conflicts
    own.release(remove=False)
    adopted = segments.try_adopt(own.path, MAX)
    assert adopted is not None and not adopted.segments
    adopted.release(remove=True)
    assert not own.path.exists()


def test_stale_new_directories_are_cleaned(tmp_path: Path) -> None:
    (tmp_path / ".new-1-dead").mkdir()
    assert segments.orphan_candidates(tmp_path, set()) == []
    assert not (tmp_path / ".new-1-dead").exists()


def test_settings_defaults_and_bounds(tmp_path: Path) -> None:
    s = JournalSettings()
    assert (s.segment_bytes, s.max_bytes, s.reserve_bytes) == (16 << 20, 1 << 30, 16 << 20)
    assert (s.fsync_interval_ms, s.full_policy, s.max_record_bytes) == (200, "refuse", 256 << 10)
    with pytest.raises(ValueError):
        JournalSettings(segment_bytes=2 << 20, max_bytes=1 << 20)
    with pytest.raises(ValueError):
        JournalSettings(max_bytes=1 << 20, reserve_bytes=1 << 20)
    with pytest.raises(ValueError):
        JournalSettings(full_policy="block")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="fsync_interval_ms"):
        JournalSettings(fsync_interval_ms=0)
    with pytest.raises(ValueError, match="max_record_bytes"):
        JournalSettings(max_record_bytes=600_000)
    with pytest.raises(ValueError, match="segment_bytes"):
        JournalSettings(segment_bytes="big")  # type: ignore[arg-type]
