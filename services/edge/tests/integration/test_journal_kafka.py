"""The usage journal against real Kafka and real files, in process.

Kafka unreachable = a bootstrap address on a free port with nothing
listening; "Kafka comes back" = a TCP forwarder starts listening on that
port (the broker then advertises its own address, 127.0.0.1:9092).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import orjson
import pytest
import pytest_asyncio
from aiokafka import AIOKafkaConsumer
from prometheus_client import CollectorRegistry, Counter

from tollway_edge.journal import JournalSettings, UsageJournal
from tollway_edge.journal import format as fmt

from .kafka_forwarder import Forwarder, free_port

pytestmark = pytest.mark.integration


def event(i: int, run: str = "") -> tuple[bytes, bytes]:
    """A usage-event-shaped record: key = request id, value = JSON with an event_id."""
    request_id = str(uuid.uuid4())
    value = orjson.dumps(
        {"event_id": str(uuid.uuid4()), "request_id": request_id, "type": "completed", "i": i, "run": run}
    )
    return request_id.encode(), value


def make_journal(
    root: Path, bootstrap: str, topic: str, *, registry: CollectorRegistry | None = None, **knobs: object
) -> tuple[UsageJournal, Counter]:
    registry = registry or CollectorRegistry()
    dropped = Counter("tollway_usage_events_dropped_total", "dropped", ["reason"], registry=registry)
    request_timeout_ms = int(knobs.pop("request_timeout_ms", 5_000))  # type: ignore[call-overload]
    knobs.setdefault("max_record_bytes", 4096)
    settings = JournalSettings(root_dir=root, **knobs)  # type: ignore[arg-type]
    journal = UsageJournal(
        settings,
        bootstrap,
        topic,
        dropped_counter=dropped,
        registry=registry,
        linger_ms=5,
        connect_backoff_max_seconds=0.5,
        request_timeout_ms=request_timeout_ms,
    )
    return journal, dropped


async def consume(
    bootstrap: str, topic: str, expected: int, within_s: float = 30.0
) -> list[tuple[bytes, bytes]]:
    """Every (key, value) of ``topic`` from the beginning, until ``expected`` are read or ``within_s`` passed.

    Keeps reading 1 s past ``expected`` so duplicates or extras would show.
    """
    consumer = AIOKafkaConsumer(
        topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest", enable_auto_commit=False
    )
    await consumer.start()
    out: list[tuple[bytes, bytes]] = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within_s
    extra_until: float | None = None
    try:
        while loop.time() < (extra_until or deadline):
            batches = await consumer.getmany(timeout_ms=200)
            for msgs in batches.values():
                out.extend((m.key, m.value) for m in msgs)
            if len(out) >= expected and extra_until is None:
                extra_until = loop.time() + 1.0
    finally:
        await consumer.stop()
    return out


async def wait_for(predicate: object, within_s: float, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within_s
    while not predicate():  # type: ignore[operator]
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {within_s}s waiting for {what}")
        await asyncio.sleep(0.05)


def segment_files(root: Path) -> list[Path]:
    return sorted(root.glob("*/seg-*.log"))


def journal_dirs(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.is_dir()) if root.exists() else []


@pytest_asyncio.fixture
async def topic(fresh_topic: object) -> str:
    return await fresh_topic(partitions=3)  # type: ignore[operator, no-any-return]


@pytest_asyncio.fixture
async def forwarder(kafka_bootstrap_servers: str) -> AsyncIterator[Forwarder]:
    fwd = Forwarder(free_port(), kafka_bootstrap_servers)
    yield fwd
    await fwd.stop()


# --- tests -----------------------------------------------------------------------------------


async def test_appended_events_are_shipped_and_segments_deleted(
    tmp_path: Path, kafka_bootstrap_servers: str, topic: str
) -> None:
    journal, _ = make_journal(
        tmp_path, kafka_bootstrap_servers, topic, segment_bytes=8192, max_bytes=1 << 20, reserve_bytes=4096
    )
    await journal.start()
    appended = []
    for i in range(300):  # ~40 KiB: several 8 KiB segments
        rec = event(i)
        assert journal.append(*rec)
        appended.append(rec)
        if i % 25 == 0:
            await asyncio.sleep(0)  # a few loop passes, a few writes
    await journal.written()
    assert len(segment_files(tmp_path)) >= 2
    await wait_for(lambda: journal.stats().records == 0, 30, "every record acknowledged")
    # Only the active segment may remain, and it holds nothing unacknowledged.
    assert len(segment_files(tmp_path)) <= 1
    assert journal.stats().acked_total == 300
    assert journal.stats().oldest_unacked_age_seconds == 0.0
    consumed = await consume(kafka_bootstrap_servers, topic, 300)
    assert sorted(consumed) == sorted(appended)
    assert await journal.stop(5.0) is True
    assert journal_dirs(tmp_path) == []  # all shipped: the directory is gone


async def test_outage_refuse_at_bound_then_everything_shipped_on_return(
    tmp_path: Path, kafka_bootstrap_servers: str, topic: str, forwarder: Forwarder
) -> None:
    journal, dropped = make_journal(
        tmp_path,
        f"127.0.0.1:{forwarder.port}",
        topic,
        segment_bytes=8192,
        max_bytes=64 * 1024,
        reserve_bytes=8192,
    )
    await journal.start()
    assert journal.ready and journal.has_room()
    appended: list[tuple[bytes, bytes]] = []
    i = 0
    while journal.has_room():  # the edge admits a call only while there is room
        rec = event(i)
        assert journal.append(*rec)
        appended.append(rec)
        i += 1
        await asyncio.sleep(0)
    assert (journal.ready, journal.stats().full) == (False, True)
    assert journal.stats().own_bytes > 64 * 1024 - 8192
    # The reserve still takes the admitted calls' terminal events...
    while True:
        rec = event(i)
        i += 1
        if not journal.append(*rec):
            break
        appended.append(rec)
    await journal.written()
    # ...and past max_bytes an event is dropped and counted.
    assert dropped.labels("journal_full")._value.get() == 1
    assert journal.stats().own_bytes <= 64 * 1024
    assert journal.stats().records == len(appended)
    assert not journal.kafka_connected
    await asyncio.sleep(0.3)
    assert journal.stats().oldest_unacked_age_seconds >= 0.3

    await forwarder.start()  # Kafka is back
    await wait_for(lambda: journal.stats().records == 0, 60, "the backlog shipped")
    assert journal.has_room() and journal.ready
    consumed = await consume(kafka_bootstrap_servers, topic, len(appended))
    assert sorted(consumed) == sorted(appended)
    assert await journal.stop(5.0) is True


async def test_outage_drop_policy_keeps_serving_and_counts(
    tmp_path: Path, kafka_bootstrap_servers: str, topic: str
) -> None:
    journal, dropped = make_journal(
        tmp_path,
        f"127.0.0.1:{free_port()}",
        topic,
        segment_bytes=8192,
        max_bytes=32 * 1024,
        reserve_bytes=4096,
        full_policy="drop",
    )
    await journal.start()
    kept = 0
    for i in range(400):
        assert journal.has_room()  # drop: the edge keeps serving
        kept += journal.append(*event(i))
        await asyncio.sleep(0)
    await journal.written()
    assert journal.ready
    assert 0 < kept < 400
    assert dropped.labels("journal_full")._value.get() == 400 - kept
    assert journal.stats().dropped == {"journal_full": 400 - kept}
    assert journal.stats().records == kept
    assert await journal.stop(0.2) is False
    assert sum(fmt.scan(p, 1 << 20).records for p in segment_files(tmp_path)) == kept


async def test_restart_replays_what_the_previous_life_left(
    tmp_path: Path, kafka_bootstrap_servers: str, topic: str
) -> None:
    first, _ = make_journal(tmp_path, f"127.0.0.1:{free_port()}", topic, segment_bytes=8192)
    await first.start()
    appended = [event(i) for i in range(200)]
    for rec in appended:
        first.append(*rec)
    t0 = time.monotonic()
    assert await first.stop(0.5) is False  # Kafka down: drained within the deadline, kept on disk
    assert time.monotonic() - t0 < 3.0
    assert len(journal_dirs(tmp_path)) == 1
    assert sum(fmt.scan(p, 1 << 20).records for p in segment_files(tmp_path)) == 200

    second, _ = make_journal(tmp_path, kafka_bootstrap_servers, topic, segment_bytes=8192)
    await second.start()
    await wait_for(lambda: second.stats().acked_total == 200, 30, "the orphan replayed")
    await wait_for(lambda: second.stats().adopted_journals == 0, 5, "the orphan removed")
    consumed = await consume(kafka_bootstrap_servers, topic, 200)
    assert sorted(consumed) == sorted(appended)
    assert await second.stop(5.0) is True
    assert journal_dirs(tmp_path) == []


async def test_torn_tail_is_truncated_and_good_records_replay(
    tmp_path: Path, kafka_bootstrap_servers: str, topic: str
) -> None:
    first, _ = make_journal(tmp_path, f"127.0.0.1:{free_port()}", topic, segment_bytes=8192)
    await first.start()
    appended = [event(i) for i in range(100)]
    for rec in appended:
        first.append(*rec)
    await first.stop(0.2)
    last = segment_files(tmp_path)[-1]
    size = last.stat().st_size
    with last.open("r+b") as f:  # a crash mid-write: the last record cut in the middle
        f.truncate(size - 7)
    kept = sum(fmt.scan(p, 1 << 20).records for p in segment_files(tmp_path))
    assert kept == 99

    second, _ = make_journal(tmp_path, kafka_bootstrap_servers, topic, segment_bytes=8192)
    await second.start()
    await wait_for(lambda: second.stats().acked_total == 99, 30, "the good records replayed")
    consumed = await consume(kafka_bootstrap_servers, topic, 99)
    assert sorted(consumed) == sorted(appended[:99])
    assert await second.stop(5.0) is True


async def test_drain_ships_everything_within_the_deadline(
    tmp_path: Path, kafka_bootstrap_servers: str, topic: str
) -> None:
    journal, _ = make_journal(tmp_path, kafka_bootstrap_servers, topic)
    await journal.start()
    await wait_for(lambda: journal.kafka_connected, 15, "the producer connected")
    appended = [event(i) for i in range(2000)]
    for rec in appended:
        journal.append(*rec)
    t0 = time.monotonic()
    assert await journal.stop(10.0) is True
    assert time.monotonic() - t0 < 10.0
    assert not journal.append(*event(-1))  # stopped: refused, counted as "closing"
    assert journal_dirs(tmp_path) == []
    consumed = await consume(kafka_bootstrap_servers, topic, 2000)
    assert sorted(consumed) == sorted(appended)


async def test_metrics_exposed(tmp_path: Path, kafka_bootstrap_servers: str, topic: str) -> None:
    from prometheus_client import generate_latest

    registry = CollectorRegistry()
    journal, _ = make_journal(tmp_path, f"127.0.0.1:{free_port()}", topic, registry=registry)
    await journal.start()
    for i in range(10):
        journal.append(*event(i))
    await journal.written()
    deadline = time.monotonic() + 5.0  # the gauges are set once a second
    while "tollway_journal_records 10.0" not in (text := generate_latest(registry).decode()):
        assert time.monotonic() < deadline, text
        await asyncio.sleep(0.1)
    assert "tollway_journal_appended_total 10.0" in text
    assert "tollway_journal_full 0.0" in text
    assert "tollway_journal_oldest_unacked_age_seconds" in text
    assert "tollway_journal_kafka_connected 0.0" in text
    await journal.stop(0.1)
    assert "tollway_journal_records 0.0" in generate_latest(registry).decode()  # stopped: holds nothing


async def test_send_failures_are_retried_until_acknowledged(
    tmp_path: Path, kafka_bootstrap_servers: str
) -> None:
    """Kafka up but the topic missing (auto-create is off): sends fail, records stay, then all ship."""
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    name = f"tollway.test.{uuid.uuid4().hex[:12]}"
    journal, _ = make_journal(tmp_path, kafka_bootstrap_servers, name, request_timeout_ms=1_000)
    await journal.start()
    appended = [event(i) for i in range(50)]
    for rec in appended:
        journal.append(*rec)
    await wait_for(lambda: journal.kafka_connected, 15, "the producer connected")
    await asyncio.sleep(2.5)  # more than one metadata timeout: the send failed and was queued for retry
    assert journal.stats().records == 50 and journal.stats().acked_total == 0
    assert journal.stats().oldest_unacked_age_seconds >= 2.0
    admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap_servers)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(name, num_partitions=3, replication_factor=1)])
        await wait_for(
            lambda: journal.stats().acked_total == 50, 60, "the records shipped once the topic exists"
        )
        consumed = await consume(kafka_bootstrap_servers, name, 50)
        assert sorted(consumed) == sorted(appended)
        assert await journal.stop(5.0) is True
    finally:
        await admin.delete_topics([name])
        await admin.close()


async def test_stop_twice_and_stop_before_start(
    tmp_path: Path, kafka_bootstrap_servers: str, topic: str
) -> None:
    never, _ = make_journal(tmp_path / "never", kafka_bootstrap_servers, topic)
    assert not never.ready and not never.has_room()
    assert not never.append(*event(0))  # not started: refused and counted
    assert await never.stop(0.1) is True
    journal, _ = make_journal(tmp_path / "twice", kafka_bootstrap_servers, topic)
    await journal.start()
    journal.append(*event(1))
    assert await journal.stop(5.0) is True
    assert await journal.stop(0.1) is True
    assert journal_dirs(tmp_path / "twice") == []


async def test_a_record_the_topic_refuses_is_counted_and_never_wedges_the_journal(
    tmp_path: Path, kafka_bootstrap_servers: str, fresh_topic: object
) -> None:
    """Topic max.message.bytes 3000: batches of small records are split, one 5 KB record is given up."""
    small_topic = await fresh_topic(partitions=1, config={"max.message.bytes": "3000"})  # type: ignore[operator]
    journal, dropped = make_journal(tmp_path, kafka_bootstrap_servers, small_topic, max_record_bytes=8192)
    await journal.start()
    small = [event(i) for i in range(60)]  # ~150 B each: ~9 KB, more than one batch may hold
    big = (b"big", b"x" * 5000)
    for rec in small[:30]:
        journal.append(*rec)
    journal.append(*big)
    for rec in small[30:]:
        journal.append(*rec)
    await wait_for(lambda: journal.stats().records == 0, 60, "every record acknowledged or given up")
    assert dropped.labels("kafka_rejected")._value.get() == 1
    consumed = await consume(kafka_bootstrap_servers, small_topic, 60)
    assert sorted(consumed) == sorted(small)
    assert await journal.stop(5.0) is True
