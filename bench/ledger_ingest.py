"""Ledger ingest benchmark: sustained events/s of ONE ledger process, and its
CPU per 1,000 events.

1. creates a fresh database and a fresh topic (``--partitions``), pre-fills
   the topic with ``--calls`` calls (``started`` + ``completed``: 2 events
   each, realistic field values, keyed by request id);
2. starts ``python -m tollway_ledger`` (optionally under pyinstrument) on them
   with a fresh consumer group;
3. polls the group's committed offsets; measures from the moment 5 % of the
   events are committed until all are (start-up and migration excluded):
   events/s, and CPU (user+sys from ``/proc/<pid>/stat``) of the ledger and of
   its Postgres backends per 1,000 events;
4. stops the ledger (SIGTERM), checks the row count, drops database and topic.

Usage (from the repository root, the local stack running):

    uv run python bench/ledger_ingest.py --calls 50000
    uv run python bench/ledger_ingest.py --calls 50000 --profile /tmp/ledger.html

Only talks to 127.0.0.1. Results go to docs/ledger-bench.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import orjson
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from consumer_bench import (  # a sibling: these run as scripts (bench/ on sys.path)
    backend_pids,
    committed,
    cpu_seconds,
    free_port,
)


def fmt(ts: datetime) -> str:
    return ts.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def call_events(rng: random.Random, i: int, base: datetime) -> list[tuple[bytes, bytes]]:
    """One call's ``started`` and ``completed`` events as (key, value) bytes."""
    rid = str(uuid.uuid4())
    ts_start = base + timedelta(milliseconds=i * 3)
    latency = rng.lognormvariate(6.5, 1.0)
    p, c = rng.randrange(5, 4000), rng.randrange(1, 1500)
    common = {
        "schema_version": 1,
        "request_id": rid,
        "tenant_id": f"t{rng.randrange(20)}",
        "team_id": rng.choice([None, "team-a", "team-b"]),
        "user_id": f"u{rng.randrange(500)}",
        "key_id": f"k{rng.randrange(100)}",
        "ts_start": fmt(ts_start),
        "model": rng.choice(["gpt-4o-mini", "gpt-4o", "claude-sonnet"]),
        "provider": "openai",
        "upstream_model": "gpt-4o-mini-2024-07-18",
        "stream": rng.random() < 0.5,
        "trace_id": uuid.uuid4().hex,
    }
    started = {
        **common,
        "type": "started",
        "event_id": str(uuid.uuid4()),
        "attempts": 0,
        "reservation": {
            "key": {"tokens": 5000, "cost_micro_usd": 2000},
            "tenant": {"tokens": 5000, "cost_micro_usd": 2000},
        },
    }
    done = {
        **common,
        "type": "completed",
        "event_id": str(uuid.uuid4()),
        "ts_end": fmt(ts_start + timedelta(milliseconds=latency)),
        "status_code": 200,
        "attempts": 1,
        "prompt_tokens": p,
        "completion_tokens": c,
        "cached_tokens": p // 4,
        "reasoning_tokens": 0,
        "total_tokens": p + c,
        "cost_micro_usd": p * 3 + c * 12,
        "latency_ms": latency,
        "ttft_ms": latency / 3,
        "overhead_ms": 1.1,
        "redaction": {
            "mode": "redact",
            "entities": {"PERSON": 1},
            "cache_hit": False,
            "cached_texts": 0,
            "total_texts": 2,
            "duration_ms": 3.5,
        },
    }
    key = rid.encode()
    return [(key, orjson.dumps(started)), (key, orjson.dumps(done))]


async def prefill(bootstrap: str, topic: str, calls: int) -> int:
    rng = random.Random(1)
    base = datetime.now(UTC).replace(microsecond=0) - timedelta(days=1)
    producer = AIOKafkaProducer(
        bootstrap_servers=bootstrap, acks=1, linger_ms=50, max_batch_size=512 * 1024, compression_type=None
    )
    await producer.start()
    sent = 0
    try:
        pending = []
        for i in range(calls):
            for key, value in call_events(rng, i, base):
                pending.append(await producer.send(topic, key=key, value=value))
                sent += 1
            if len(pending) >= 20000:
                await asyncio.gather(*pending)
                pending = []
        await asyncio.gather(*pending)
    finally:
        await producer.stop()
    return sent


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=50_000, help="calls to pre-fill (2 events each)")
    ap.add_argument("--partitions", type=int, default=3)
    ap.add_argument("--bootstrap", default="127.0.0.1:9092")
    ap.add_argument(
        "--dsn",
        default="postgresql://tollway:tollway@127.0.0.1:5432/tollway",
        help="admin DSN; a fresh database is created next to it",
    )
    ap.add_argument("--batch-max-records", type=int, default=None, help="TOLLWAY_LEDGER_BATCH_MAX_RECORDS")
    ap.add_argument(
        "--log-level", default="WARNING", help="the ledger's TOLLWAY_LOG_LEVEL (INFO shows each batch)"
    )
    ap.add_argument(
        "--profile", default=None, help="write a pyinstrument profile of the ledger here (.html, else text)"
    )
    args = ap.parse_args()

    suffix = uuid.uuid4().hex[:10]
    db, topic, dlq, group = (
        f"ledger_bench_{suffix}",
        f"bench.ledger.usage.{suffix}",
        f"bench.ledger.dlq.{suffix}",
        f"bench-ledger-{suffix}",
    )
    parts = urlsplit(args.dsn)
    dsn = urlunsplit((parts.scheme, parts.netloc, f"/{db}", parts.query, parts.fragment))
    admin_db = await asyncpg.connect(args.dsn)
    await admin_db.execute(f'CREATE DATABASE "{db}"')
    await admin_db.close()
    admin = AIOKafkaAdminClient(bootstrap_servers=args.bootstrap)
    await admin.start()
    await admin.create_topics([NewTopic(topic, args.partitions, 1), NewTopic(dlq, 1, 1)])
    proc = None
    try:
        t = time.perf_counter()
        total = await prefill(args.bootstrap, topic, args.calls)
        print(f"pre-filled {total} events ({args.calls} calls) in {time.perf_counter() - t:.1f} s")
        tps = [TopicPartition(topic, p) for p in range(args.partitions)]
        probe = AIOKafkaConsumer(bootstrap_servers=args.bootstrap)
        await probe.start()
        assert sum((await probe.end_offsets(tps)).values()) == total
        await probe.stop()

        env = {k: v for k, v in os.environ.items() if not k.startswith("TOLLWAY_")}
        env.update(
            TOLLWAY_POSTGRES_DSN=dsn,
            TOLLWAY_KAFKA_BOOTSTRAP_SERVERS=args.bootstrap,
            TOLLWAY_LEDGER_TOPIC=topic,
            TOLLWAY_LEDGER_DLQ_TOPIC=dlq,
            TOLLWAY_LEDGER_CONSUMER_GROUP=group,
            TOLLWAY_LEDGER_HEALTH_PORT=str(free_port()),
            TOLLWAY_LOG_LEVEL=args.log_level,
            TOLLWAY_LOG_FORMAT="json",
        )
        if args.batch_max_records:
            env["TOLLWAY_LEDGER_BATCH_MAX_RECORDS"] = str(args.batch_max_records)
        cmd = [sys.executable, "-m", "tollway_ledger"]
        if args.profile:
            renderer = "html" if args.profile.endswith(".html") else "text"
            cmd = [
                sys.executable,
                "-m",
                "pyinstrument",
                "--renderer",
                renderer,
                "-o",
                args.profile,
                "-m",
                "tollway_ledger",
            ]
        proc = subprocess.Popen(cmd, env=env)  # noqa: ASYNC220 - started once

        t0 = c0 = cpu0 = None
        pg0: dict[int, float] = {}
        pids: list[int] = []
        while True:
            await asyncio.sleep(0.1)
            done = await committed(admin, group, tps)
            now = time.perf_counter()
            if t0 is None and done >= total * 0.05:
                pids = await backend_pids(args.dsn, db)
                t0, c0, cpu0 = now, done, cpu_seconds(proc.pid)
                pg0 = {p: cpu_seconds(p) for p in pids}
            if done >= total:
                t1, c1, cpu1 = now, done, cpu_seconds(proc.pid)
                pg1 = {p: cpu_seconds(p) for p in pids}
                break
            if proc.poll() is not None:
                raise SystemExit(f"ledger exited with {proc.returncode}")
        events = c1 - c0
        secs = t1 - t0
        ledger_cpu = cpu1 - cpu0
        pg_cpu = sum(pg1[p] - pg0[p] for p in pids if pg1.get(p))
        print(f"events measured: {events} in {secs:.2f} s -> {events / secs:,.0f} events/s")
        print(
            f"ledger CPU: {ledger_cpu:.2f} s ({ledger_cpu / secs:.0%} of one core) = "
            f"{ledger_cpu / events * 1000 * 1000:.1f} ms per 1,000 events"
        )
        print(
            f"its Postgres backends ({len(pids)}): {pg_cpu:.2f} s = {pg_cpu / events * 1000 * 1000:.1f} ms per 1,000 events"
        )
        print(f"load average: {os.getloadavg()}")
    finally:
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM if not args.profile else signal.SIGINT)
            proc.wait(timeout=60)
        with_rows = await asyncpg.connect(dsn)
        try:
            if await with_rows.fetchval("SELECT to_regclass('ledger.usage_records')"):
                print("rows:", await with_rows.fetchval("SELECT count(*) FROM ledger.usage_records"))
        finally:
            await with_rows.close()
        await admin.delete_topics([topic, dlq])
        await admin.close()
        admin_db = await asyncpg.connect(args.dsn)
        await admin_db.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        await admin_db.close()


if __name__ == "__main__":
    asyncio.run(main())
