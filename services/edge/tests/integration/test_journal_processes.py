"""The usage journal across processes: a SIGKILLed worker's journal is adopted, live ones never are.

Each "worker" is a child Python process running a :class:`UsageJournal`
with Kafka unreachable (nothing listening on its bootstrap port), so its
records stay in its journal; the adopter is this test process, with the
real Kafka.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tollway_edge.journal import UsageJournal
from tollway_edge.journal import format as fmt

from .test_journal_kafka import consume, free_port, journal_dirs, make_journal, wait_for

pytestmark = pytest.mark.integration

CHILD = r"""
import asyncio, sys, uuid
from pathlib import Path
import orjson
from tollway_edge.journal import JournalSettings, UsageJournal

async def main(root: str, bootstrap: str, topic: str, n: int, out: str) -> None:
    settings = JournalSettings(
        root_dir=Path(root), segment_bytes=16384, max_record_bytes=4096, adopt_interval_seconds=0.2
    )
    journal = UsageJournal(settings, bootstrap, topic, registry=None, connect_backoff_max_seconds=0.5)
    await journal.start()
    records = []
    for i in range(n):
        key = str(uuid.uuid4()).encode()
        value = orjson.dumps({"event_id": str(uuid.uuid4()), "request_id": key.decode(), "i": i})
        assert journal.append(key, value)
        records.append([key.decode(), value.decode()])
        if i % 50 == 0:
            await asyncio.sleep(0)
    await journal.written()  # written to the OS; deliberately no fsync: a kill must lose nothing anyway
    Path(out + ".tmp").write_bytes(orjson.dumps(records))
    Path(out + ".tmp").rename(out)  # the parent's "ready" signal
    while True:
        await asyncio.sleep(0.2)
        st = journal.stats()
        Path(out + ".stats.tmp").write_text(f"adopted={st.adopted_journals} records={st.records}")
        Path(out + ".stats.tmp").rename(out + ".stats")

asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]))
"""


class Child:
    """A worker process holding ``n`` unshipped records in its journal under ``root``."""

    def __init__(self, root: Path, topic: str, n: int, out: Path) -> None:
        self.out = out
        self.stats_file = Path(f"{out}.stats")
        self.log = Path(f"{out}.log").open("wb")  # noqa: SIM115 - closed in cleanup()
        self.proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(root), f"127.0.0.1:{free_port()}", topic, str(n), str(out)],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    async def ready(self, within_s: float = 60.0) -> list[tuple[bytes, bytes]]:
        """Wait until the child has appended and written all its records; returns them."""
        await wait_for(
            lambda: self.stats_file.exists() or self.proc.poll() is not None, within_s, "child ready"
        )
        assert self.proc.poll() is None, self.log_tail()
        return [(k.encode(), v.encode()) for k, v in orjson.loads(self.out.read_bytes())]

    def log_tail(self) -> str:
        return Path(f"{self.out}.log").read_text()[-2000:]

    async def last_stats(self) -> str:
        """The child's latest stats line (written every 0.2 s)."""
        await asyncio.sleep(0.3)
        return self.stats_file.read_text()

    def kill9(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def cleanup(self) -> None:
        if self.proc.poll() is None:
            self.kill9()
        self.log.close()


def third_dir(journal: UsageJournal, root: Path) -> Path:
    own = journal._own  # the test peeks at the journal's own directory
    assert own is not None
    return root / own.path.name


def dir_b(dirs: list[Path], b: Child) -> Path:
    return next(d for d in dirs if d.name.startswith(f"w-{b.proc.pid}-"))


def records_on_disk(jdir: Path) -> int:
    return sum(fmt.scan(p, 1 << 20).records for p in jdir.glob("seg-*.log"))


async def test_sigkilled_worker_journal_is_adopted_and_shipped(
    tmp_path: Path, kafka_bootstrap_servers: str, fresh_topic: object
) -> None:
    topic = await fresh_topic(partitions=3)  # type: ignore[operator]
    root = tmp_path / "journal"
    child = Child(root, topic, 500, tmp_path / "appended.json")
    try:
        appended = await child.ready()
        child.kill9()  # no drain, no fsync: only what write() gave the OS
    finally:
        child.cleanup()
    [orphan] = journal_dirs(root)
    assert records_on_disk(orphan) == 500

    adopter, _ = make_journal(root, kafka_bootstrap_servers, topic, adopt_interval_seconds=0.2)
    await adopter.start()
    try:
        await wait_for(lambda: adopter.stats().acked_total == 500, 60, "the orphan's 500 records shipped")
        await wait_for(lambda: not orphan.exists(), 5, "the orphan journal removed")
        consumed = await consume(kafka_bootstrap_servers, topic, 500)
        assert sorted(consumed) == sorted(appended)
    finally:
        assert await adopter.stop(5.0) is True


async def test_live_workers_never_adopt_each_others_journals(
    tmp_path: Path, kafka_bootstrap_servers: str, fresh_topic: object
) -> None:
    topic = await fresh_topic(partitions=3)  # type: ignore[operator]
    root = tmp_path / "journal"
    a = Child(root, topic, 100, tmp_path / "a.json")
    b = Child(root, topic, 150, tmp_path / "b.json")
    try:
        appended_a = await a.ready()
        appended_b = await b.ready()
        dirs = journal_dirs(root)
        assert len(dirs) == 2
        # Both children look for orphans every 0.2 s; so does a third journal with Kafka up.
        third, _ = make_journal(root, kafka_bootstrap_servers, topic, adopt_interval_seconds=0.2)
        await third.start()
        await asyncio.sleep(1.5)
        assert third.stats().adopted_journals == 0 and third.stats().acked_total == 0
        for child in (a, b):
            assert "adopted=0" in await child.last_stats()
        assert sorted(records_on_disk(d) for d in dirs) == [100, 150]

        # A dies: its journal is orphaned and adopted by whoever locks it first, the third
        # journal (which ships it) or B (Kafka unreachable: B keeps it on disk, locked).
        a.kill9()
        by_b = False

        def adopted() -> bool:
            nonlocal by_b
            by_b = "adopted=1" in b.stats_file.read_text()
            return by_b or third.stats().adopted_journals > 0 or third.stats().acked_total > 0

        await wait_for(adopted, 10, "A's journal adopted")
        expected = list(appended_a)
        if by_b:
            b.kill9()  # B dies holding A's journal and its own: both orphaned now
            expected += appended_b
        await wait_for(lambda: third.stats().acked_total == len(expected), 60, "the orphans shipped")
        consumed = await consume(kafka_bootstrap_servers, topic, len(expected), within_s=10)
        assert sorted(consumed) == sorted(expected)
        if not by_b:
            assert journal_dirs(root) == sorted([third_dir(third, root), dir_b(dirs, b)])
        assert await third.stop(5.0) is True
    finally:
        a.cleanup()
        b.cleanup()
