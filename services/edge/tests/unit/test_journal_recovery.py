"""Recovery of a dead worker's calls left in flight (``journal.recovery``): real segment
files as a killed worker leaves them, adopted and read back; pure otherwise."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tollway_contracts.catalogue import Prices
from tollway_contracts.events import UsageEvent, decode_usage_event, encode_usage_event
from tollway_edge.journal import format as fmt
from tollway_edge.journal import recovery, segments
from tollway_edge.usage import Tokens

pytestmark = pytest.mark.unit

MAX = 1 << 20
T0 = datetime(2026, 12, 2, 7, 0, 0, 123456, tzinfo=UTC)
PRICES = Prices(input=2_500_000, output=10_000_000, cached_input=1_250_000)


def started(rid: uuid.UUID, **extra: object) -> bytes:
    event = UsageEvent(
        type="started",
        request_id=rid,
        tenant_id="t1",
        key_id="k1",
        ts_start=T0,
        model="gpt-x",
        provider="fake",
        upstream_model="gpt-x-up",
        deployment="fake-a",
        stream=True,
        reservation=None,
        **extra,  # type: ignore[arg-type]
    )
    return encode_usage_event(event)


def terminal(rid: uuid.UUID) -> bytes:
    event = UsageEvent(
        type="completed",
        request_id=rid,
        tenant_id="t1",
        key_id="k1",
        ts_start=T0,
        ts_end=T0 + timedelta(seconds=1),
        model="gpt-x",
        status_code=200,
        prompt_tokens=10,
        completion_tokens=5,
        total_tokens=15,
        cost_micro_usd=75,
    )
    return encode_usage_event(event)


def ts(seconds: float) -> int:
    return int((T0 + timedelta(seconds=seconds)).timestamp() * 1e6)


Rec = tuple[bytes, bytes, int, bool] | tuple[bytes, bytes, int, bool, bytes]


def write_orphan(root: Path, name: str, recs: list[Rec]) -> Path:
    """A dead worker's journal directory: (key, value, ts, local[, checkpoint]) records."""
    d = root / f"w-{name}"
    d.mkdir(parents=True)
    data = bytearray(fmt.MAGIC)
    for key, value, t, local, *cp in recs:
        data += fmt.encode(key, value, t, local=local, checkpoint=cp[0] if cp else b"")
    (d / fmt.segment_name(0)).write_bytes(bytes(data))
    return d


def opening(layout: str, key: bytes, event: bytes, checkpoint: bytes, t: int) -> list[Rec]:
    """A call's `started` and open checkpoint as the edge journals them: one record
    (``v4``, this version) or the event then a local record (``v3``, still read)."""
    if layout == "v4":
        return [(key, event, t, False, checkpoint)]
    return [(key, event, t, False), (key, checkpoint, t, True)]


def test_local_flag_roundtrips_and_is_distinct_from_trace() -> None:
    buf = fmt.encode(b"k", b"v", 1, b"00-abc", local=True) + fmt.encode(b"k2", b"v2", 2)
    a, b = list(fmt.decode(buf, 0, MAX))
    assert (a.key, a.value, a.trace, a.local) == (b"k", b"v", b"00-abc", True)
    assert (b.key, b.value, b.local) == (b"k2", b"v2", False)


@pytest.mark.parametrize("layout", ["v4", "v3"])
def test_calls_left_in_flight_are_billed_by_estimate_and_deterministically(
    tmp_path: Path, layout: str
) -> None:
    streamed, plain, ended, unrecoverable = (uuid.uuid4() for _ in range(4))
    key = {r: str(r).encode() for r in (streamed, plain, ended, unrecoverable)}
    recs = [
        *opening(layout, key[streamed], started(streamed), recovery.open_checkpoint(40, PRICES), ts(0)),
        *opening(layout, key[plain], started(plain), recovery.open_checkpoint(12, PRICES), ts(0.1)),
        *opening(layout, key[ended], started(ended), recovery.open_checkpoint(7, PRICES), ts(0.2)),
        (key[streamed], recovery.progress_checkpoint(9), ts(1.0), True),
        (key[unrecoverable], started(unrecoverable), ts(1.1), False),  # no checkpoint: not recoverable
        (key[streamed], recovery.progress_checkpoint(21), ts(2.0), True),
        (key[ended], terminal(ended), ts(2.5), False),
    ]
    path = write_orphan(tmp_path, "1-aa", recs)
    jdir = segments.try_adopt(path, MAX)
    assert jdir is not None
    try:
        out = recovery.recover([jdir], MAX)
        again = recovery.recover([jdir], MAX)
    finally:
        jdir.release(remove=False)
    assert out == again  # a second adopter writes byte-identical events (one event_id: deduped)
    assert [k for k, _ in out] == [key[streamed], key[plain]]
    events = {k: decode_usage_event(v) for k, v in out}

    s = events[key[streamed]]
    assert s.type == "failed" and s.error_type == recovery.ERROR_TYPE and s.status_code is None
    assert s.event_id == recovery.terminal_event_id(streamed) == uuid.uuid5(streamed, "tollway-adopted")
    assert s.usage_estimated is True
    assert (s.prompt_tokens, s.completion_tokens, s.total_tokens) == (40, 21, 61)
    assert s.cost_micro_usd == Tokens(40, 21, 0, 0, 61).cost(PRICES) > 0
    assert s.ts_end == T0 + timedelta(seconds=2)  # the last record the dead worker journaled for it
    assert s.latency_ms == 2000.0
    assert (s.deployment, s.provider, s.upstream_model, s.stream) == ("fake-a", "fake", "gpt-x-up", True)
    assert s.attempts == 1

    p = events[key[plain]]
    assert (p.prompt_tokens, p.completion_tokens) == (12, 0)  # nothing relayed: completion 0
    assert p.cost_micro_usd == Tokens(12, 0, 0, 0, 12).cost(PRICES)


@pytest.mark.parametrize("layout", ["v4", "v3"])
def test_a_terminal_in_another_adopted_journal_closes_the_call(tmp_path: Path, layout: str) -> None:
    rid = uuid.uuid4()
    k = str(rid).encode()
    a = write_orphan(
        tmp_path, "1-aa", opening(layout, k, started(rid), recovery.open_checkpoint(5, PRICES), ts(0))
    )
    adopter_left = write_orphan(tmp_path, "2-bb", [(k, terminal(rid), ts(1), False)])
    dirs = [segments.try_adopt(p, MAX) for p in (a, adopter_left)]
    try:
        assert recovery.recover([d for d in dirs if d is not None], MAX) == []
        only_a = [d for d in dirs[:1] if d is not None]
        assert [key for key, _ in recovery.recover(only_a, MAX)] == [k]
    finally:
        for d in dirs:
            if d is not None:
                d.release(remove=False)


def test_an_open_checkpoint_without_its_started_event_is_not_billed(tmp_path: Path) -> None:
    rid, other = uuid.uuid4(), uuid.uuid4()
    path = write_orphan(
        tmp_path,
        "1-aa",
        [
            (
                str(other).encode(),
                started(other),
                ts(0),
                False,
            ),  # `started` of rid was dropped (journal full)
            (str(rid).encode(), recovery.open_checkpoint(5, PRICES), ts(0), True),
        ],
    )
    jdir = segments.try_adopt(path, MAX)
    assert jdir is not None
    try:
        assert recovery.recover([jdir], MAX) == []
    finally:
        jdir.release(remove=False)


async def test_a_new_segment_restates_the_calls_in_flight(tmp_path: Path) -> None:
    """The segment holding a call's `started` may be acknowledged and deleted while the
    call runs: every new segment starts with the open calls, so an adopter still bills it."""
    from tollway_edge.journal import JournalSettings
    from tollway_edge.journal.writer import JournalWriter

    settings = JournalSettings(root_dir=tmp_path, segment_bytes=8192, max_record_bytes=4096)
    jdir = segments.create_own(tmp_path)
    calls = recovery.OpenCalls()
    writer = JournalWriter(jdir, settings, on_written=lambda: None, on_drop=lambda r, n: None)
    writer.carry = calls.frames
    writer.start()
    rid, done = uuid.uuid4(), uuid.uuid4()
    key, done_key = str(rid).encode(), str(done).encode()
    for r, k in ((rid, key), (done, done_key)):
        event = started(r)
        writer.append(k, event, checkpoint=calls.opened(k, event, 33, PRICES))  # as ``Call.started``
    writer.append(key, calls.progress(key, 17), local=True)
    writer.append(done_key, terminal(done))
    calls.closed(done_key)
    await writer.written()
    while len(jdir.segments) < 3:  # other calls' events roll the segment twice
        writer.append(b"other", terminal(uuid.uuid4()))
        await writer.written()
    await writer.close()
    first = jdir.segments.popleft()  # acknowledged and deleted: `started` of both calls is gone
    first.path.unlink()
    jdir.release(remove=False)
    orphan = segments.try_adopt(jdir.path, MAX)
    assert orphan is not None
    try:
        out = recovery.recover([orphan], MAX)
    finally:
        orphan.release(remove=False)
    assert [k for k, _ in out] == [key]  # the ended call was not carried
    event = decode_usage_event(out[0][1])
    assert (event.prompt_tokens, event.completion_tokens, event.request_id) == (33, 17, rid)
