"""The journal's on-disk format: segment header and record framing (pure, no I/O but the scan).

A segment file ``seg-<20-digit number>.log`` is::

    header   8 bytes   b"TWJRNL" 0x00 0x04   (magic, format version 4; 1 to 3 are read too)
    record*

and each record is::

    length   u32 big-endian   bytes of the payload (>= 12)
    crc32    u32 big-endian   zlib.crc32 of the payload
    payload  ts_us  u64 BE    when it was appended, µs since the Unix epoch
             klen   u32 BE    bytes of the key; bit 31 set: a trace context follows the key;
                              bit 30 set: a local record (never shipped, see below);
                              bit 29 set: a recovery checkpoint rides with the value (see below)
             key    klen bytes   (the Kafka key: the request id)
             [tlen  u16 BE    bytes of the trace context      (only when bit 31 is set)
              trace tlen bytes   W3C ``traceparent``, then ``\n`` + ``tracestate`` if any (ASCII)]
             [clen  u16 BE    bytes of the checkpoint         (only when bit 29 is set)
              cp    clen bytes   the call's open checkpoint (JSON, ``journal.recovery``)]
             value  the rest     (the Kafka value: the usage event JSON)

Version 2 only adds the optional trace context (issue 15: the call's
``traceparent`` rides to Kafka as record headers). A version-1 record never
has bit 31 set (keys are far shorter than 2 GiB), so segments written before
are read unchanged; a version-1 reader refuses a version-2 segment by its
magic rather than misreading it (drain the journal before a downgrade).

Version 3 adds local records (bit 30 of ``klen``): a call's recovery
checkpoints (``journal.recovery``), read back only when a dead worker's
journal is adopted, never produced to Kafka (the shipper counts them
acknowledged as it reads them). Earlier versions never set bit 30; a
version-2 reader refuses a version-3 segment by its magic.

Version 4 lets a record carry a local part (bit 29 of ``klen``): a call's
``started`` event and its open checkpoint are ONE record (one encode, one
CRC, one frame), the event shipped as the Kafka value, the checkpoint read
back only by an adopter. Version 3 wrote them as two adjacent records (the
event, then a local record); both layouts are read. A version-3 reader
refuses a version-4 segment by its magic.

A record is valid only if the whole frame is in the file, its length is in
range and its CRC matches. A crash can leave a torn tail (a partial frame,
or zeros where the file system had extended the file but not yet written the
data: a length below 12 is rejected, so an all-zero header never validates);
the scan stops at the first invalid frame and the caller truncates the
segment there, so a damaged record is never read as an event.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

MAGIC = b"TWJRNL\x00\x04"
MAGIC_V1 = b"TWJRNL\x00\x01"
MAGIC_V2 = b"TWJRNL\x00\x02"
MAGIC_V3 = b"TWJRNL\x00\x03"
READABLE_MAGICS = (MAGIC, MAGIC_V3, MAGIC_V2, MAGIC_V1)
HEADER_BYTES = len(MAGIC)
_FRAME = struct.Struct(">II")
_PAYLOAD_HEAD = struct.Struct(">QI")
_TLEN = struct.Struct(">H")
_TRACED = 0x8000_0000
_LOCAL = 0x4000_0000
_CHECKPOINT = 0x2000_0000
_FLAGS = _TRACED | _LOCAL | _CHECKPOINT
MAX_TRACE_BYTES = 1024
"""Longest trace context kept (``traceparent`` is 55 bytes; a longer ``tracestate`` is dropped)."""
FRAME_OVERHEAD = _FRAME.size + _PAYLOAD_HEAD.size  # 20 bytes per record besides key and value
MIN_PAYLOAD = _PAYLOAD_HEAD.size
SEGMENT_GLOB = "seg-*.log"


def segment_name(number: int) -> str:
    """File name of segment ``number`` (zero-padded so names sort in order)."""
    return f"seg-{number:020d}.log"


def segment_number(path: Path) -> int:
    """The number in a segment's file name. Raises ValueError for another name."""
    name = path.name
    if not (name.startswith("seg-") and name.endswith(".log")):
        raise ValueError(f"not a segment file: {name}")
    return int(name[4:-4])


def encode(
    key: bytes, value: bytes, ts_us: int, trace: bytes = b"", *, local: bool = False, checkpoint: bytes = b""
) -> bytes:
    """One framed record (:func:`record_bytes` bytes).

    ``trace``: the call's W3C trace context (``traceparent`` [``\n``
    ``tracestate``], ASCII; empty: none, the version-1 layout). ``local``:
    a record kept on this machine only (never shipped to Kafka).
    ``checkpoint``: a local part riding with the value (the call's open
    checkpoint, at most 65,535 bytes; never shipped). One concatenation and
    one CRC pass: measured faster than an incremental CRC over the parts
    that avoids copying the value (1 KB values).
    """
    klen = len(key) | _LOCAL if local else len(key)
    if trace:
        klen |= _TRACED
        key = key + _TLEN.pack(len(trace)) + trace
    if checkpoint:
        klen |= _CHECKPOINT
        key = key + _TLEN.pack(len(checkpoint)) + checkpoint
    payload = _PAYLOAD_HEAD.pack(ts_us, klen) + key + value
    return _FRAME.pack(len(payload), zlib.crc32(payload)) + payload


def record_bytes(key: bytes, value: bytes, trace: bytes = b"", checkpoint: bytes = b"") -> int:
    """Bytes of the frame :func:`encode` makes for these parts."""
    return (
        FRAME_OVERHEAD
        + len(key)
        + len(value)
        + (_TLEN.size + len(trace) if trace else 0)
        + (_TLEN.size + len(checkpoint) if checkpoint else 0)
    )


def trace_context(traceparent: str, tracestate: str | None = None) -> bytes:
    """The ``trace`` bytes of :func:`encode` (``tracestate`` dropped when the
    whole would exceed :data:`MAX_TRACE_BYTES`)."""
    out = traceparent.encode("ascii", "replace")
    if tracestate:
        both = out + b"\n" + tracestate.encode("ascii", "replace")
        if len(both) <= MAX_TRACE_BYTES:
            return both
    return out[:MAX_TRACE_BYTES]


def kafka_headers(trace: bytes) -> list[tuple[str, bytes]] | None:
    """Kafka record headers (``traceparent``, ``tracestate``) of a record's trace context; None without one."""
    if not trace:
        return None
    parent, _, state = trace.partition(b"\n")
    return [("traceparent", parent), ("tracestate", state)] if state else [("traceparent", parent)]


@dataclass(frozen=True, slots=True)
class Record:
    """A decoded record.

    Attributes:
        end: offset just past the frame, in the buffer it was decoded from.
        size: bytes of the whole frame.
        ts_us: append time, µs since the epoch.
        key, value: the Kafka key and value, as appended.
        trace: the trace context appended with it (empty: none).
        local: a local record (never shipped to Kafka).
        checkpoint: the local part appended with it (empty: none; never shipped).
    """

    end: int
    size: int
    ts_us: int
    key: bytes
    value: bytes
    trace: bytes = b""
    local: bool = False
    checkpoint: bytes = b""


def decode(buf: bytes, start: int, max_payload: int, *, check_crc: bool = True) -> Iterator[Record]:
    """Yield the valid records of ``buf`` from ``start``, stopping at the first incomplete or bad frame.

    The caller tells a torn tail from a frame that merely continues past the
    buffer by comparing the last ``end`` with what it knows of the file.
    """
    n = len(buf)
    pos = start
    frame = _FRAME.unpack_from
    head = _PAYLOAD_HEAD.unpack_from
    while pos + _FRAME.size <= n:
        length, crc = frame(buf, pos)
        if length < MIN_PAYLOAD or length > max_payload:
            return
        body = pos + _FRAME.size
        end = body + length
        if end > n:
            return
        if check_crc and zlib.crc32(buf[body:end]) != crc:
            return
        ts_us, klen = head(buf, body)
        kstart = body + _PAYLOAD_HEAD.size
        if not klen & _FLAGS:  # the common record: key and value
            if kstart + klen > end:
                return
            yield Record(end, end - pos, ts_us, buf[kstart : kstart + klen], buf[kstart + klen : end])
            pos = end
            continue
        flags = klen & _FLAGS
        klen &= ~_FLAGS
        vstart = kstart + klen
        if vstart > end:
            return
        trace = checkpoint = b""
        if flags & _TRACED:
            section = _section(buf, vstart, end)
            if section is None:
                return
            trace, vstart = section
        if flags & _CHECKPOINT:
            section = _section(buf, vstart, end)
            if section is None:
                return
            checkpoint, vstart = section
        yield Record(
            end,
            end - pos,
            ts_us,
            buf[kstart : kstart + klen],
            buf[vstart:end],
            trace,
            bool(flags & _LOCAL),
            checkpoint,
        )
        pos = end


def peek_ts(buf: bytes) -> int | None:
    """The ``ts_us`` of a record whose first bytes are ``buf`` (None if too short)."""
    if len(buf) < FRAME_OVERHEAD:
        return None
    ts_us, _ = _PAYLOAD_HEAD.unpack_from(buf, _FRAME.size)
    return int(ts_us)


@dataclass(frozen=True, slots=True)
class ScanResult:
    """What a segment holds.

    Attributes:
        records: valid records.
        good_bytes: file offset just past the last valid record (the size to
            truncate to); 0 when even the header is bad.
        file_bytes: size of the file as found.
        first_ts_us: append time of the first record (None when empty).
    """

    records: int
    good_bytes: int
    file_bytes: int
    first_ts_us: int | None

    @property
    def torn_bytes(self) -> int:
        """Bytes past the last valid record (a torn tail, to be truncated)."""
        return self.file_bytes - self.good_bytes


def scan(path: Path, max_payload: int) -> ScanResult:
    """Validate a segment file (blocking I/O: run it in a thread). Raises OSError."""
    data = path.read_bytes()
    if len(data) < HEADER_BYTES or data[:HEADER_BYTES] not in READABLE_MAGICS:
        return ScanResult(0, 0, len(data), None)
    records = 0
    good = HEADER_BYTES
    first: int | None = None
    for rec in decode(data, HEADER_BYTES, max_payload):
        if first is None:
            first = rec.ts_us
        records += 1
        good = rec.end
    return ScanResult(records, good, len(data), first)


def _section(buf: bytes, start: int, end: int) -> tuple[bytes, int] | None:
    """One optional length-prefixed section of a record (the trace context or the
    recovery checkpoint): ``(its bytes, the offset after it)``, or None when it
    runs past ``end`` (a torn tail)."""
    if start + _TLEN.size > end:
        return None
    (length,) = _TLEN.unpack_from(buf, start)
    body = start + _TLEN.size
    after = body + length
    if after > end:
        return None
    return buf[body:after], after
