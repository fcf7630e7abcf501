"""Quota settlement benchmark: settled events/s of ONE quota process, and its
CPU per settled event.

1. creates a fresh database, fresh topics (usage, DLQ, alerts) and a fresh
   consumer group; starts ``python -m tollway_quota`` without the consumer to
   create a tenant, a team, a user and ``--keys`` keys with limits of every
   kind through the admin API (team budget with 25/50 % thresholds, tenant
   budget, key tpm/rpm/concurrency), then stops it;
2. makes ``--calls`` reservations through ``tollway_admission`` (Valkey db
   ``--valkey-db``, never 0) with each key's limits as the edge sees them
   (``catalog.edge_principals``), and pre-fills the topic with each call's
   ``started`` and ``completed`` events (``reservation`` as the edge writes it);
3. starts ``python -m tollway_quota`` with the consumer on that topic (optionally
   under pyinstrument); measures from the moment 5 % of the events are
   committed until all are: events/s, and CPU (user+sys, ``/proc/<pid>/stat``)
   per settled call (= per ``completed`` event; the ``started`` events ride along);
4. checks every reservation is settled (no budget left reserved), stops the
   process (SIGTERM), deletes the database, topics and Valkey keys.

Usage (repository root, local stack running):

    uv run --no-sync python bench/quota_settlement.py --calls 20000
    uv run --no-sync python bench/quota_settlement.py --calls 20000 --profile /tmp/quota.html
    # the code of another commit (its quota package first on sys.path):
    PYTHONPATH=/tmp/old/services/quota/src uv run --no-sync python bench/quota_settlement.py

Only talks to 127.0.0.1. Results go to docs/quota-settlement-bench.md.
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
    committed,
    cpu_seconds,
    free_port,
)
from redis.asyncio import Redis

from tollway_admission import Admission
from tollway_contracts.admin import KeyCreate, LimitSet, TeamCreate, TenantCreate, UserCreate
from tollway_contracts.events import UsageEvent
from tollway_contracts.limits import parse_limit
from tollway_quota.client import AdminClient

TOKEN = "bench-admin-token-0123456789abcdef"
PEPPER = "bench-pepper-0123456789abcdef0123456789"


def start_quota(env: dict[str, str], profile: str | None) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "tollway_quota"]
    if profile:
        renderer = "html" if profile.endswith(".html") else "text"
        cmd = [
            sys.executable,
            "-m",
            "pyinstrument",
            "--renderer",
            renderer,
            "-o",
            profile,
            "-m",
            "tollway_quota",
        ]
    return subprocess.Popen(cmd, env=env)


def wait_ready(client: AdminClient, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not client.ready():
        if proc.poll() is not None:
            raise SystemExit(f"quota exited with {proc.returncode}")
        if time.monotonic() > deadline:
            raise SystemExit("quota not ready in time")
        time.sleep(0.2)


def stop(proc: subprocess.Popen, profile: bool = False) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT if profile else signal.SIGTERM)
        proc.wait(timeout=60)


def setup_principals(base_url: str, keys: int, calls: int) -> tuple[str, list[str]]:
    """Tenant, team, user and keys with limits; returns (tenant id, key ids)."""
    with AdminClient(base_url, TOKEN) as c:
        tenant = c.create_tenant(TenantCreate(name=f"bench-{uuid.uuid4().hex[:8]}"))
        team = c.create_team(TeamCreate(tenant_id=tenant.id, name="eng"))
        user = c.create_user(UserCreate(tenant_id=tenant.id, team_id=team.id, name="ada"))
        key_ids = [
            c.create_key(
                KeyCreate(tenant_id=tenant.id, team_id=team.id, user_id=user.id, name=f"k{i}")
            ).key_id
            for i in range(keys)
        ]
        # every call reserves 2,000 micro-USD and spends ~1,000: the team crosses 25 % and 50 %
        c.set_limit(
            LimitSet(
                scope="team",
                scope_id=team.id,
                budget_micro_usd=calls * 2_000 + 10_000,
                budget_period="month",
                thresholds_percent=[25, 50],
            )
        )
        c.set_limit(
            LimitSet(scope="tenant", scope_id=tenant.id, budget_micro_usd=10**12, budget_period="day")
        )
        for k in key_ids:
            c.set_limit(
                LimitSet(
                    scope="key",
                    scope_id=k,
                    tokens_per_minute=10**9,
                    requests_per_minute=10**7,
                    max_concurrent=10**6,
                )
            )
    return tenant.id, key_ids


async def reserve_and_fill(
    args, valkey: Redis, dsn: str, tenant_id: str, key_ids: list[str], topic: str
) -> int:
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch(
            "SELECT key_id, team_id, user_id, limits FROM catalog.edge_principals WHERE key_id = ANY($1)",
            key_ids,
        )
    finally:
        await conn.close()
    keys = {
        r["key_id"]: (
            r["team_id"],
            r["user_id"],
            [parse_limit(x) for x in orjson.loads(r["limits"])],
        )
        for r in rows
    }

    async def zero(limit, window) -> int:  # noqa: ANN001 - fresh counters start at 0
        return 0

    adm = Admission(valkey, seed_provider=zero)
    await adm.load()
    rng = random.Random(1)
    t_base = datetime.now(UTC) - timedelta(seconds=5)
    producer = AIOKafkaProducer(
        bootstrap_servers=args.bootstrap, acks=1, linger_ms=50, max_batch_size=512 * 1024
    )
    await producer.start()
    sent = 0
    try:
        sem = asyncio.Semaphore(50)

        async def one(i: int) -> list[tuple[bytes, bytes]]:
            key_id = key_ids[i % len(key_ids)]
            team_id, user_id, limits = keys[key_id]
            rid = uuid.uuid4()
            async with sem:
                res = await adm.admit(
                    tenant_id=tenant_id,
                    request_id=str(rid),
                    limits=limits,
                    model="gpt-4o-mini",
                    tokens=5_000,
                    cost_micro_usd=2_000,
                )
            assert res.admitted, res.status
            common = dict(
                request_id=rid,
                tenant_id=tenant_id,
                team_id=team_id,
                user_id=user_id,
                key_id=key_id,
                ts_start=t_base,
                model="gpt-4o-mini",
                provider="openai",
                stream=rng.random() < 0.5,
                reservation=res.reservation_by_scope(),
                trace_id=uuid.uuid4().hex,
            )
            p, c = rng.randrange(5, 2000), rng.randrange(1, 800)
            started = UsageEvent(type="started", **common)
            done = UsageEvent(
                type="completed",
                ts_end=t_base + timedelta(seconds=1),
                status_code=200,
                attempts=1,
                prompt_tokens=p,
                completion_tokens=c,
                total_tokens=p + c,
                cost_micro_usd=min(2_000, p + c),
                latency_ms=900.0,
                ttft_ms=200.0,
                overhead_ms=1.0,
                **common,
            )
            return [(started.kafka_key(), started.to_json()), (done.kafka_key(), done.to_json())]

        for lo in range(0, args.calls, 2_000):
            batch = await asyncio.gather(*(one(i) for i in range(lo, min(args.calls, lo + 2_000))))
            futs = [await producer.send(topic, key=k, value=v) for pair in batch for k, v in pair]
            await asyncio.gather(*futs)
            sent += len(futs)
    finally:
        await producer.stop()
    return sent


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=20_000, help="calls (2 events each: started + completed)")
    ap.add_argument("--keys", type=int, default=20)
    ap.add_argument("--partitions", type=int, default=3)
    ap.add_argument("--bootstrap", default="127.0.0.1:9092")
    ap.add_argument("--valkey-db", type=int, default=12)
    ap.add_argument(
        "--dsn",
        default="postgresql://tollway:tollway@127.0.0.1:5432/tollway",
        help="admin DSN; a fresh database is created next to it",
    )
    ap.add_argument("--log-level", default="WARNING", help="quota's TOLLWAY_LOG_LEVEL")
    ap.add_argument("--profile", default=None, help="pyinstrument profile of quota (.html, else text)")
    args = ap.parse_args()
    if args.valkey_db == 0:
        raise SystemExit("--valkey-db must not be 0 (the running stack's)")

    suffix = uuid.uuid4().hex[:10]
    db, group = f"quota_bench_{suffix}", f"bench-quota-{suffix}"
    topic, dlq, alerts = (f"bench.quota.{n}.{suffix}" for n in ("usage", "dlq", "alerts"))
    parts = urlsplit(args.dsn)
    dsn = urlunsplit((parts.scheme, parts.netloc, f"/{db}", parts.query, parts.fragment))
    admin_db = await asyncpg.connect(args.dsn)
    await admin_db.execute(f'CREATE DATABASE "{db}"')
    await admin_db.close()
    admin = AIOKafkaAdminClient(bootstrap_servers=args.bootstrap)
    await admin.start()
    await admin.create_topics(
        [NewTopic(topic, args.partitions, 1), NewTopic(dlq, 1, 1), NewTopic(alerts, 1, 1)]
    )
    valkey = Redis.from_url(f"redis://127.0.0.1:6379/{args.valkey_db}")
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOLLWAY_")}
    env.update(
        TOLLWAY_POSTGRES_DSN=dsn,
        TOLLWAY_VALKEY_URL=f"redis://127.0.0.1:6379/{args.valkey_db}",
        TOLLWAY_ADMIN_TOKEN=TOKEN,
        TOLLWAY_KEY_PEPPER=PEPPER,
        TOLLWAY_QUOTA_PORT=str(port),
        TOLLWAY_KAFKA_BOOTSTRAP_SERVERS=args.bootstrap,
        TOLLWAY_QUOTA_USAGE_TOPIC=topic,
        TOLLWAY_QUOTA_DLQ_TOPIC=dlq,
        TOLLWAY_QUOTA_ALERTS_TOPIC=alerts,
        TOLLWAY_QUOTA_CONSUMER_GROUP=group,
        TOLLWAY_QUOTA_RECONCILE_EXPIRED="false",
        TOLLWAY_QUOTA_INVALIDATION_CHANNEL=f"bench:inv:{suffix}",
        TOLLWAY_LOG_LEVEL=args.log_level,
        TOLLWAY_LOG_FORMAT="json",
    )
    proc = None
    tenant_id = None
    try:
        proc = start_quota({**env, "TOLLWAY_QUOTA_CONSUME_USAGE": "false"}, None)
        with AdminClient(base_url, TOKEN) as c:
            wait_ready(c, proc)
        tenant_id, key_ids = setup_principals(base_url, args.keys, args.calls)
        stop(proc)
        t = time.perf_counter()
        total = await reserve_and_fill(args, valkey, dsn, tenant_id, key_ids, topic)
        print(f"reserved {args.calls} calls and pre-filled {total} events in {time.perf_counter() - t:.1f} s")
        tps = [TopicPartition(topic, p) for p in range(args.partitions)]

        proc = start_quota({**env, "TOLLWAY_QUOTA_CONSUME_USAGE": "true"}, args.profile)
        t0 = c0 = cpu0 = None
        while True:
            await asyncio.sleep(0.1)
            done = await committed(admin, group, tps)
            now = time.perf_counter()
            if t0 is None and done >= total * 0.05:
                t0, c0, cpu0 = now, done, cpu_seconds(proc.pid)
            if done >= total:
                t1, c1, cpu1 = now, done, cpu_seconds(proc.pid)
                break
            if proc.poll() is not None:
                raise SystemExit(f"quota exited with {proc.returncode}")
        events = c1 - c0
        secs = t1 - t0
        cpu = cpu1 - cpu0
        print(
            f"events measured: {events} in {secs:.2f} s -> {events / secs:,.0f} events/s "
            f"({events / 2 / secs:,.0f} settled calls/s)"
        )
        print(
            f"quota CPU: {cpu:.2f} s ({cpu / secs:.0%} of one core) = {cpu / (events / 2) * 1000:.3f} ms per settled "
            f"call ({cpu / events * 1000:.3f} ms per event)"
        )
        print(f"load average: {os.getloadavg()}")
        stop(proc, bool(args.profile))
        # every reservation settled: nothing left reserved on the budgets, no reservation record left
        left = [k async for k in valkey.scan_iter(match=f"tw:{{{tenant_id}}}:res:*", count=1000)]
        reserved = 0
        async for k in valkey.scan_iter(match=f"tw:{{{tenant_id}}}:budget:*", count=1000):
            reserved += int(await valkey.hget(k, "reserved") or 0)
        print(f"reservation records left: {len(left)}; budget micro-USD still reserved: {reserved}")
        probe = AIOKafkaConsumer(
            alerts, bootstrap_servers=args.bootstrap, auto_offset_reset="earliest", group_id=None
        )
        await probe.start()
        n = sum((await probe.end_offsets([TopicPartition(alerts, 0)])).values())
        await probe.stop()
        print(f"alerts published: {n}")
    finally:
        if proc is not None:
            stop(proc, bool(args.profile))
        if tenant_id is not None:
            for pattern in (f"tw:{{{tenant_id}}}:*", f"tw:alert:{{{tenant_id}}}:*"):
                batch = [k async for k in valkey.scan_iter(match=pattern, count=1000)]
                for i in range(0, len(batch), 1000):
                    await valkey.delete(*batch[i : i + 1000])
        await valkey.aclose()
        await admin.delete_topics([topic, dlq, alerts])
        await admin.close()
        admin_db = await asyncpg.connect(args.dsn)
        await admin_db.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        await admin_db.close()


if __name__ == "__main__":
    asyncio.run(main())
