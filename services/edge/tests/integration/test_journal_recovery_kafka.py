"""A dead worker's calls left in flight, billed by the adopter, through real Kafka:
checkpoints (local records) never reach the topic, the adopter's terminal events do."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
import pytest_asyncio

from tollway_contracts.events import decode_usage_event
from tollway_edge.journal import recovery

from ..unit.test_journal_recovery import PRICES, started, terminal
from .kafka_forwarder import free_port
from .test_journal_kafka import consume, journal_dirs, make_journal, wait_for

pytestmark = pytest.mark.integration


@pytest_asyncio.fixture
async def topic(fresh_topic: object) -> str:
    return await fresh_topic(partitions=3)  # type: ignore[operator, no-any-return]


async def test_adopter_bills_calls_left_in_flight_and_ships_no_checkpoint(
    tmp_path: Path, kafka_bootstrap_servers: str, topic: str
) -> None:
    dead, _ = make_journal(tmp_path, f"127.0.0.1:{free_port()}", topic, segment_bytes=8192)
    await dead.start()
    open_ids = [uuid.uuid4() for _ in range(30)]
    ended_ids = [uuid.uuid4() for _ in range(30)]
    shipped: list[tuple[bytes, bytes]] = []
    for n, rid in enumerate(open_ids + ended_ids):
        key = str(rid).encode()
        shipped.append((key, started(rid)))
        dead.append(*shipped[-1])
        dead.append(key, recovery.open_checkpoint(100 + n, PRICES), local=True)
        dead.append(key, recovery.progress_checkpoint(n), local=True)
    for rid in ended_ids:
        shipped.append((str(rid).encode(), terminal(rid)))
        dead.append(*shipped[-1])
    assert await dead.stop(0.3) is False  # Kafka unreachable: everything stays on disk, as a kill leaves it

    adopter, _ = make_journal(tmp_path, kafka_bootstrap_servers, topic, segment_bytes=8192)
    await adopter.start()
    await wait_for(
        lambda: adopter.stats().adopted_journals == 0 and adopter.stats().records == 0, 30, "replayed"
    )
    consumed = await consume(kafka_bootstrap_servers, topic, len(shipped) + len(open_ids))
    assert await adopter.stop(5.0) is True
    assert journal_dirs(tmp_path) == []

    billed = [(k, v) for k, v in consumed if (k, v) not in shipped]
    assert sorted(set(consumed) - set(billed)) == sorted(shipped)  # every event once, no checkpoint
    assert len(consumed) == len(shipped) + len(open_ids)
    events = {decode_usage_event(v).request_id: decode_usage_event(v) for _, v in billed}
    assert set(events) == set(open_ids)
    for n, rid in enumerate(open_ids):
        e = events[rid]
        assert e.type == "failed" and e.usage_estimated and e.error_type == "edge_worker_lost"
        assert (e.prompt_tokens, e.completion_tokens) == (100 + n, n)
        assert e.cost_micro_usd is not None and e.cost_micro_usd > 0
        assert e.event_id == recovery.terminal_event_id(rid)


async def test_a_live_journal_ships_events_never_checkpoints_and_drains(
    tmp_path: Path, kafka_bootstrap_servers: str, topic: str
) -> None:
    journal, _ = make_journal(tmp_path, kafka_bootstrap_servers, topic, segment_bytes=8192)
    await journal.start()
    events = []
    for _ in range(40):
        rid = uuid.uuid4()
        key = str(rid).encode()
        events.append((key, started(rid)))
        journal.append(*events[-1])
        journal.append(key, journal.open_calls.opened(key, events[-1][1], 10, PRICES), local=True)
        journal.append(key, journal.open_calls.progress(key, 3), local=True)
        events.append((key, terminal(rid)))
        journal.append(*events[-1])
        journal.open_calls.closed(key)
    assert journal.stats().records == 80  # checkpoints are not usage events waiting for Kafka
    consumed = await consume(kafka_bootstrap_servers, topic, 80)
    assert sorted(consumed) == sorted(events)
    assert len(journal.open_calls) == 0
    assert await journal.stop(5.0) is True  # drained: segments of checkpoints only are deleted too
    assert journal_dirs(tmp_path) == []
