"""Micro-benchmark of the usage journal's append path (and, with Kafka, its shipping).

Runs on uvloop, as the edge does, in a temporary journal root (removed at
the end). Three measurements:

1. ``append``: µs of CPU per ``journal.append(key, value)`` call, the part
   on the call's path (encode + CRC32 + list append), for ``--events``
   events of ``--value-bytes`` bytes, ``--per-pass`` appended per loop
   iteration; plus µs of the once-per-pass write (``os.write`` of the batch),
   per pass and per event.
2. ``calls``: ``--concurrency`` simulated calls, each appending a ``started``
   and a terminal event around a short sleep (a provider call), for
   ``--seconds``; prints the distribution of per-loop-iteration batch sizes
   (events per ``write()``).
3. ``per-call`` (``--per-call-rounds``, default 5): one call at a time, as at
   concurrency 1, each journaling what the edge journals for a non-streamed
   call that reached the provider: ``started`` and its open recovery
   checkpoint (awaited: written before the provider hears of the call), then
   ``completed`` (awaited: written before the answer). Two layouts on the same
   journal, interleaved per round: ``3 appends`` (format 3: the checkpoint
   as a local record of its own) and ``2 appends`` (format 4, the edge now:
   the checkpoint rides in the ``started`` record); µs of process CPU per
   call (appends, the two writes, the loop passes) and µs of CPU in the appends alone
   (with the open-calls registry's bookkeeping; each read of the CPU clock adds ~1 µs).
4. ``ship`` (only with ``--kafka host:port``): time until Kafka acknowledged
   every event appended in (1), on a fresh 12-partition topic (deleted after),
   and the process's CPU per event for the whole path.

    uv run python services/edge/bench/journal_append.py [--events 100000] [--per-pass 64]
        [--value-bytes 1000] [--concurrency 200] [--seconds 3] [--kafka 127.0.0.1:9092]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import socket
import statistics
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

import uvloop
from prometheus_client import CollectorRegistry

from tollway_edge.journal import JournalSettings, UsageJournal
from tollway_edge.journal.writer import JournalWriter


def _unreachable() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def _journal(root: Path, bootstrap: str, topic: str) -> UsageJournal:
    settings = JournalSettings(root_dir=root, max_bytes=4 << 30)
    return UsageJournal(
        settings, bootstrap, topic, registry=CollectorRegistry(), connect_backoff_max_seconds=1
    )


def _record_batches(sizes: list[int], write_us: list[float]) -> None:
    """Wrap the writer's once-per-pass write to record its batch size and duration."""
    original = JournalWriter._write

    def timed(self: JournalWriter, data: bytes, count: int, first_ts: int | None, local: int = 0) -> None:
        t0 = time.perf_counter()
        original(self, data, count, first_ts, local)
        write_us.append((time.perf_counter() - t0) * 1e6)
        sizes.append(count)

    JournalWriter._write = timed  # type: ignore[method-assign]  # bench instrumentation only


async def bench_append(args: argparse.Namespace, root: Path, bootstrap: str, topic: str) -> UsageJournal:
    journal = _journal(root, bootstrap, topic)
    await journal.start()
    value = b"{" + b"x" * (args.value_bytes - 2) + b"}"
    # Two events per request id, as a call's started + terminal events (not timed).
    keys = [str(uuid.uuid4()).encode() for _ in range(args.events // 2 + 1)]
    sizes: list[int] = []
    write_us: list[float] = []
    _record_batches(sizes, write_us)
    append = journal.append
    spent = 0.0
    done = 0
    while done < args.events:
        n = min(args.per_pass, args.events - done)
        t0 = time.perf_counter()
        for i in range(n):
            append(keys[(done + i) >> 1], value)
        spent += time.perf_counter() - t0
        done += n
        await asyncio.sleep(0)  # end of the loop pass: the write happens
    await journal.written()
    per_append = spent / args.events * 1e6
    print(f"append: {args.events} events of {args.value_bytes} B, {args.per_pass} per loop pass")
    print(f"  {per_append:.2f} µs per append (call path)")
    print(
        f"  write per pass: mean {statistics.fmean(write_us):.1f} µs, p99 "
        f"{sorted(write_us)[int(len(write_us) * 0.99)]:.1f} µs; "
        f"{sum(write_us) / args.events:.2f} µs per event; {len(write_us)} writes"
    )
    return journal


async def bench_calls(args: argparse.Namespace, root: Path) -> None:
    journal = _journal(root, _unreachable(), "bench")
    await journal.start()
    sizes: list[int] = []
    _record_batches(sizes, [])
    loop = asyncio.get_running_loop()
    stop_at = loop.time() + args.seconds
    value = b"{" + b"x" * (args.value_bytes - 2) + b"}"
    calls = 0

    async def client() -> None:
        nonlocal calls
        while loop.time() < stop_at:
            key = str(uuid.uuid4()).encode()
            journal.append(key, value)  # started
            await asyncio.sleep(random.uniform(0.001, 0.02))  # the provider call
            journal.append(key, value)  # completed
            calls += 1

    await asyncio.gather(*(client() for _ in range(args.concurrency)))
    await journal.written()
    dist = Counter(sizes)
    top = ", ".join(f"{k}:{v}" for k, v in sorted(dist.items())[:12])
    print(f"calls: {args.concurrency} concurrent for {args.seconds}s, {calls} calls, {sum(sizes)} events")
    print(
        f"  events per write(): mean {statistics.fmean(sizes):.2f}, median {statistics.median(sizes):.0f}, "
        f"max {max(sizes)}; {len(sizes)} writes; sizes (size:count) {top}{' …' if len(dist) > 12 else ''}"
    )
    await journal.stop(0.1)


async def bench_per_call(args: argparse.Namespace, root: Path) -> None:
    from tollway_contracts.catalogue import Prices

    journal = _journal(root, _unreachable(), "bench")
    await journal.start()
    started = b"{" + b"s" * 600 + b"}"  # about a `started` event's size
    ended = b"{" + b"c" * (args.value_bytes - 2) + b"}"
    prices = Prices(input=150_000, output=600_000, cached_input=75_000)
    calls = journal.open_calls
    append, written = journal.append, journal.written

    async def run(layout: int, n: int) -> tuple[float, float]:
        in_appends = 0.0
        cpu0 = time.process_time()
        for _ in range(n):
            key = str(uuid.uuid4()).encode()
            t0 = time.process_time()
            checkpoint = calls.opened(key, started, 42, prices)
            if layout == 3:
                append(key, started)
                append(key, checkpoint, local=True)
            else:
                append(key, started, checkpoint=checkpoint)
            in_appends += time.process_time() - t0
            await written()  # before the provider request
            t0 = time.process_time()
            calls.closed(key)
            append(key, ended)
            in_appends += time.process_time() - t0
            await written()  # before the answer
        return (time.process_time() - cpu0) / n * 1e6, in_appends / n * 1e6

    n = max(1, args.events // 20)
    await run(3, n // 4)  # warm
    await run(2, n // 4)
    got: dict[int, list[tuple[float, float]]] = {3: [], 2: []}
    for r in range(args.per_call_rounds):
        for layout in (3, 2) if r % 2 == 0 else (2, 3):
            got[layout].append(await run(layout, n))
    print(
        f"per-call: {n} calls at a time of 1 per layout and round, {args.per_call_rounds} rounds, interleaved"
    )
    for layout, label in ((3, "3 appends (format 3)"), (2, "2 appends (format 4)")):
        cpu = [c for c, _ in got[layout]]
        app = [a for _, a in got[layout]]
        print(
            f"  {label}: process CPU per call median {statistics.median(cpu):.1f} µs "
            f"({', '.join(f'{c:.1f}' for c in cpu)}); in appends median {statistics.median(app):.2f} µs"
        )
    await journal.stop(0.1)


async def bench_ship(args: argparse.Namespace, root: Path) -> None:
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    topic = f"tollway.bench.journal.{uuid.uuid4().hex[:8]}"
    admin = AIOKafkaAdminClient(bootstrap_servers=args.kafka)
    await admin.start()
    await admin.create_topics([NewTopic(topic, num_partitions=12, replication_factor=1)])
    try:
        t0 = time.perf_counter()
        cpu0 = time.process_time()
        journal = await bench_append(args, root, args.kafka, topic)
        while journal.stats().acked_total < args.events:  # noqa: ASYNC110 - polling a counter, no event to wait on
            await asyncio.sleep(0.01)
        took = time.perf_counter() - t0
        cpu_us = (time.process_time() - cpu0) / args.events * 1e6
        print(
            f"ship: {args.events} events appended and acknowledged (acks=all) in {took:.2f} s "
            f"({args.events / took:,.0f} events/s, producer connect included); "
            f"process CPU {cpu_us:.1f} µs per event (append + write + read back + produce)"
        )
        await journal.stop(10)
    finally:
        await admin.delete_topics([topic])
        await admin.close()


async def main(args: argparse.Namespace) -> None:
    base = Path(tempfile.mkdtemp(prefix="journal-bench-"))
    try:
        if args.kafka:
            await bench_ship(args, base / "ship")
        else:
            journal = await bench_append(args, base / "append", _unreachable(), "bench")
            await journal.stop(0.1)
        await bench_calls(args, base / "calls")
        if args.per_call_rounds:
            await bench_per_call(args, base / "per-call")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--per-pass", type=int, default=64)
    parser.add_argument("--value-bytes", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--kafka", default="", help="bootstrap servers: also measure shipping")
    parser.add_argument("--per-call-rounds", type=int, default=5, help="0: skip the per-call comparison")
    os.environ.setdefault("TOLLWAY_LOG_LEVEL", "warning")
    import logging

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.CRITICAL))
    logging.getLogger("aiokafka").setLevel(logging.CRITICAL)
    uvloop.run(main(parser.parse_args()))
