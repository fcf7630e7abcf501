"""Metering's cost at a steady call rate: CPU of Kafka, Postgres, Valkey, quota and
ledger per call, this checkout beside a reference checkout, interleaved.

The whole-stack figure of ``bench/run.sh`` (issue 9) measures every process
under wrk at concurrency 16; most of what is not the edge is metering: the
usage events going through Kafka to the ledger (Postgres) and to quota
(settlement in Valkey). This harness isolates that part, without an edge:

1. creates a fresh database (ledger and quota migrate it), fresh topics
   (usage with 12 partitions like ``tollway_contracts.topics.USAGE``, DLQs,
   alerts), a Valkey db of its own (``--valkey-db``, never 0); starts quota
   once (consumer off) to create a tenant, team, user and keys with limits of
   every kind (``quota_settlement.setup_principals``);
2. per round and variant: reserves the round's calls through
   ``tollway_admission`` (as the edge's admit would), starts ``python -m
   tollway_ledger`` and ``python -m tollway_quota`` of that variant (its
   ``.venv/bin/python``; fresh consumer groups, a fresh topic), then
   journals each call's ``started`` and ``completed`` events at ``--rate``
   calls/s for ``--seconds`` in ``--producers`` processes of
   ``metering_shipper.py`` run by the variant's interpreter: the edge's own
   usage journal and Kafka shipper (``tollway_edge.journal``), one per edge
   worker, with the variant's default linger unless ``--linger-ms`` (this
   checkout) or ``--ref-linger-ms`` (the reference);
3. measures CPU (utime+stime+cutime+cstime, ``/proc``) over the window: the
   journal processes (after their start-up), the ledger and quota processes, the Postgres backends connected to the bench
   database, and the whole Kafka broker (``:9092``), Valkey (``:6379``) and
   Postgres (``:5432``) process groups, which other users of the machine share:
   an idle window of the same length right before gives their background,
   reported beside (``idle``) and subtracted (``net``);
4. waits until both groups committed every event, checks no reservation is
   left, stops the services (SIGTERM); at the end drops database, topics and
   Valkey keys.

Per call = CPU seconds ÷ calls produced in the window. Settings of a variant
can be overridden with ``--env NAME=VALUE`` (both variants) or
``--ref-env``/``--new-env`` (one). Only ratios from one run mean anything.

    uv run --no-sync python bench/metering_cost.py --reference /work/main --rounds 3

Only talks to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pickle
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import orjson
from aiokafka import TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from consumer_bench import committed, free_port  # siblings: these run as scripts (bench/ on sys.path)
from procs import CLK_TCK, metric_total, port_group_pids, read_stat
from quota_settlement import PEPPER, TOKEN, setup_principals, stop, wait_ready
from redis.asyncio import Redis

from tollway_admission import Admission
from tollway_contracts.events import UsageEvent
from tollway_contracts.limits import Limit, parse_limit
from tollway_quota.client import AdminClient

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PARTITIONS = 12


def ticks(pids: set[int]) -> int:
    """utime+stime+cutime+cstime of ``pids`` (gone processes count 0)."""
    total = 0
    for pid in pids:
        st = read_stat(pid)
        if st is not None:
            total += st.ticks
    return total


def tree(pid: int) -> set[int]:
    """``pid`` and its descendants (a service's worker processes)."""
    from procs import descendants

    return descendants([pid])


async def db_backends(dsn: str, db: str) -> set[int]:
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch(
            "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", db
        )
        return {r[0] for r in rows}
    finally:
        await conn.close()


async def reserve(
    adm: Admission, keys: dict[str, tuple[str | None, str | None, list[Limit]]], tenant_id: str, calls: int
) -> list[list[tuple[bytes, bytes]]]:
    """Admit ``calls`` calls (as the edge would) and build each call's two events."""
    rng = random.Random(calls)
    key_ids = list(keys)
    sem = asyncio.Semaphore(50)
    t_base = datetime.now(UTC)

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
            upstream_model="gpt-4o-mini-2024-07-18",
            stream=False,
            reservation=res.reservation_by_scope(),
            trace_id=uuid.uuid4().hex,
        )
        p, c = rng.randrange(5, 2000), rng.randrange(1, 800)
        started = UsageEvent(type="started", **common)
        done = UsageEvent(
            type="completed",
            ts_end=t_base + timedelta(milliseconds=40),
            status_code=200,
            attempts=1,
            prompt_tokens=p,
            completion_tokens=c,
            total_tokens=p + c,
            cost_micro_usd=min(2_000, p + c),
            latency_ms=40.0,
            ttft_ms=40.0,
            overhead_ms=1.0,
            **common,
        )
        return [(started.kafka_key(), started.to_json()), (done.kafka_key(), done.to_json())]

    out: list[list[tuple[bytes, bytes]]] = []
    for lo in range(0, calls, 2_000):
        out.extend(await asyncio.gather(*(one(i) for i in range(lo, min(calls, lo + 2_000)))))
    return out


class Shippers:
    """``--producers`` processes of ``metering_shipper.py`` (the edge's workers' journals)
    run with a variant's interpreter, each given its share of ``calls`` round-robin."""

    def __init__(
        self,
        python: str,
        topic: str,
        calls: list[list[tuple[bytes, bytes]]],
        rate: float,
        n: int,
        linger: int | None,
        bootstrap: str,
    ) -> None:
        self.files = []
        self.procs: list[subprocess.Popen[str]] = []
        for i in range(n):
            f = tempfile.NamedTemporaryFile(prefix="metering-calls-", suffix=".pickle", delete=False)  # noqa: SIM115
            f.write(pickle.dumps(calls[i::n]))
            f.close()
            self.files.append(f.name)
            cmd = [python, str(HERE / "metering_shipper.py"), "--calls", f.name, "--topic", topic, "--rate"]
            cmd += [str(rate / n), "--bootstrap", bootstrap]
            cmd += [] if linger is None else ["--linger-ms", str(linger)]
            log = open(LOG_DIR / f"shipper-{os.getpid()}-{i}.log", "a")  # noqa: SIM115
            self.procs.append(
                subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True)
            )
        for p in self.procs:
            assert p.stdout is not None
            while (line := p.stdout.readline()) and line.strip() != "ready":
                pass
            if not line:
                raise SystemExit("a shipper failed to start")

    def pids(self) -> set[int]:
        return {p.pid for p in self.procs}

    def go(self) -> None:
        for p in self.procs:
            assert p.stdin is not None
            p.stdin.write("go\n")
            p.stdin.flush()

    async def wait(self) -> float:
        """Wait for every shipper to exit (all acknowledged); their total CPU seconds (rusage)."""
        cpu = 0.0
        for p in self.procs:
            while True:
                pid, status, ru = os.wait4(p.pid, os.WNOHANG)  # noqa: ASYNC222 - WNOHANG: never blocks
                if pid:
                    break
                await asyncio.sleep(0.05)
            p.returncode = os.waitstatus_to_exitcode(status)
            if p.returncode != 0:
                raise SystemExit(f"a shipper exited with {p.returncode}")
            cpu += ru.ru_utime + ru.ru_stime
        for name in self.files:
            os.unlink(name)
        return cpu


LOG_DIR = Path(tempfile.gettempdir()) / "metering-cost-logs"


def start(python: str, module: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """``python -m module``; its output in ``$TMPDIR/metering-cost-logs/<module>-<pid>.log``."""
    LOG_DIR.mkdir(exist_ok=True)
    log = tempfile.NamedTemporaryFile(dir=LOG_DIR, prefix=f"{module}-", suffix=".log", delete=False)  # noqa: SIM115
    return subprocess.Popen([python, "-m", module], env=env, stdout=log, stderr=subprocess.STDOUT)


async def wait_caught_up(
    admin: AIOKafkaAdminClient, group: str, tps: list[TopicPartition], total: int
) -> None:
    deadline = time.monotonic() + 120
    while await committed(admin, group, tps) < total:
        if time.monotonic() > deadline:
            raise SystemExit(f"{group} did not commit {total} events in 120 s")
        await asyncio.sleep(0.1)


async def wait_leaders(admin: AIOKafkaAdminClient, topic: str) -> None:
    """Until every partition of the new ``topic`` has a leader (metadata settles)."""
    for _ in range(200):
        described = await admin.describe_topics([topic])
        parts = described[0].get("partitions", []) if described else []
        if len(parts) == PARTITIONS and all(p.get("leader", -1) >= 0 for p in parts):
            return
        await asyncio.sleep(0.1)
    raise SystemExit(f"{topic}: no leaders after 20 s")


def batches(url: str) -> tuple[float, float]:
    """(records, batches) so far of the service's consumer, from its ``/metrics`` (0, 0 if absent)."""
    return (
        metric_total(url, "tollway_consumer_batch_records_sum") or 0.0,
        metric_total(url, "tollway_consumer_batch_records_count") or 0.0,
    )


def parse_env(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        name, _, value = item.partition("=")
        out[name] = value
    return out


async def main() -> None:  # noqa: PLR0915 - a linear script
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rate", type=float, default=800.0, help="calls/s (2 events each)")
    ap.add_argument("--seconds", type=float, default=15.0, help="measured window per variant and round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--producers", type=int, default=2, help="journals (the edge's worker processes)")
    ap.add_argument(
        "--linger-ms", type=int, default=None, help="this checkout's journals' linger, ms (default: its own)"
    )
    ap.add_argument("--ref-linger-ms", type=int, default=None, help="the reference's journals' linger, ms")
    ap.add_argument("--keys", type=int, default=20)
    ap.add_argument(
        "--reference", type=Path, help="another checkout (with its .venv) measured beside this one"
    )
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE for both variants' services")
    ap.add_argument("--ref-env", action="append", default=[], help="NAME=VALUE for the reference only")
    ap.add_argument("--new-env", action="append", default=[], help="NAME=VALUE for this checkout only")
    ap.add_argument("--bootstrap", default="127.0.0.1:9092")
    ap.add_argument("--valkey-db", type=int, default=13)
    ap.add_argument("--dsn", default="postgresql://tollway:tollway@127.0.0.1:5432/tollway")
    args = ap.parse_args()
    if args.valkey_db == 0:
        raise SystemExit("--valkey-db must not be 0 (the running stack's)")

    variants: dict[str, tuple[str, dict[str, str], int | None]] = {}
    if args.reference is not None:
        variants["reference"] = (
            str(args.reference / ".venv/bin/python"),
            parse_env(args.env + args.ref_env),
            args.ref_linger_ms,
        )
    variants["this checkout"] = (
        str(REPO / ".venv/bin/python"),
        parse_env(args.env + args.new_env),
        args.linger_ms,
    )

    suffix = uuid.uuid4().hex[:10]
    db = f"metering_bench_{suffix}"
    ldlq, qdlq, alerts = (f"bench.metering.{n}.{suffix}" for n in ("ldlq", "qdlq", "alerts"))
    parts = urlsplit(args.dsn)
    dsn = urlunsplit((parts.scheme, parts.netloc, f"/{db}", parts.query, parts.fragment))
    conn = await asyncpg.connect(args.dsn)
    await conn.execute(f'CREATE DATABASE "{db}"')
    await conn.close()
    admin = AIOKafkaAdminClient(bootstrap_servers=args.bootstrap)
    await admin.start()
    await admin.create_topics([NewTopic(ldlq, 1, 1), NewTopic(qdlq, 1, 1), NewTopic(alerts, 1, 1)])
    topics: list[str] = []
    valkey = Redis.from_url(f"redis://127.0.0.1:6379/{args.valkey_db}")
    quota_port = free_port()
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("TOLLWAY_")}
    base_env.update(
        TOLLWAY_POSTGRES_DSN=dsn,
        TOLLWAY_VALKEY_URL=f"redis://127.0.0.1:6379/{args.valkey_db}",
        TOLLWAY_KAFKA_BOOTSTRAP_SERVERS=args.bootstrap,
        TOLLWAY_ADMIN_TOKEN=TOKEN,
        TOLLWAY_KEY_PEPPER=PEPPER,
        TOLLWAY_QUOTA_PORT=str(quota_port),
        TOLLWAY_QUOTA_DLQ_TOPIC=qdlq,
        TOLLWAY_QUOTA_ALERTS_TOPIC=alerts,
        TOLLWAY_QUOTA_RECONCILE_EXPIRED="false",
        TOLLWAY_QUOTA_INVALIDATION_CHANNEL=f"bench:inv:{suffix}",
        TOLLWAY_LEDGER_DLQ_TOPIC=ldlq,
        TOLLWAY_LOG_LEVEL="WARNING",
        TOLLWAY_LOG_FORMAT="json",
    )
    tenant_id = None
    procs: list[subprocess.Popen[bytes]] = []
    results: dict[str, list[dict[str, float]]] = {name: [] for name in variants}
    try:
        first = start(sys.executable, "tollway_quota", {**base_env, "TOLLWAY_QUOTA_CONSUME_USAGE": "false"})
        with AdminClient(f"http://127.0.0.1:{quota_port}", TOKEN) as c:
            wait_ready(c, first)
        tenant_id, key_ids = setup_principals(f"http://127.0.0.1:{quota_port}", args.keys, 10**7)
        stop(first)
        conn = await asyncpg.connect(dsn)
        rows = await conn.fetch(
            "SELECT key_id, team_id, user_id, limits FROM catalog.edge_principals WHERE key_id = ANY($1)",
            key_ids,
        )
        await conn.close()
        keys = {
            r["key_id"]: (
                r["team_id"],
                r["user_id"],
                [parse_limit(x) for x in orjson.loads(r["limits"])],
            )
            for r in rows
        }

        async def zero(limit: Limit, window: int) -> int:
            return 0

        adm = Admission(valkey, seed_provider=zero)
        await adm.load()
        calls_per_window = int(args.rate * args.seconds)
        for rnd in range(args.rounds):
            for name, (python, extra, linger) in variants.items():
                group = f"bench-metering-{suffix}-{rnd}-{name.replace(' ', '-')}"
                topic = f"bench.metering.usage.{suffix}.{rnd}.{name.replace(' ', '-')}"
                await admin.create_topics([NewTopic(topic, PARTITIONS, 1)])
                await wait_leaders(admin, topic)
                topics.append(topic)
                tps = [TopicPartition(topic, p) for p in range(PARTITIONS)]
                ledger_port = free_port()
                env = {
                    **base_env,
                    "TOLLWAY_QUOTA_USAGE_TOPIC": topic,
                    "TOLLWAY_LEDGER_TOPIC": topic,
                    "TOLLWAY_QUOTA_CONSUMER_GROUP": f"{group}-quota",
                    "TOLLWAY_LEDGER_CONSUMER_GROUP": f"{group}-ledger",
                    "TOLLWAY_LEDGER_HEALTH_PORT": str(ledger_port),
                    **extra,
                }
                calls = await reserve(adm, keys, tenant_id, calls_per_window)
                warm = await reserve(adm, keys, tenant_id, int(args.rate * 2))
                ledger = start(python, "tollway_ledger", env)
                quota = start(python, "tollway_quota", {**env, "TOLLWAY_QUOTA_CONSUME_USAGE": "true"})
                procs = [ledger, quota]
                with AdminClient(f"http://127.0.0.1:{quota_port}", TOKEN) as c:
                    wait_ready(c, quota)
                warmers = Shippers(python, topic, warm, args.rate, args.producers, linger, args.bootstrap)
                warmers.go()  # warm-up: 2 s at the rate
                await warmers.wait()
                produced = 2 * len(warm)
                await wait_caught_up(admin, f"{group}-ledger", tps, produced)
                await wait_caught_up(admin, f"{group}-quota", tps, produced)
                # idle window: the shared brokers' background
                shared = {"kafka": int(args.bootstrap.rsplit(":", 1)[1]), "valkey": 6379, "postgres": 5432}
                pids = {k: port_group_pids(v) for k, v in shared.items()}
                i0 = {k: ticks(v) for k, v in pids.items()}
                await asyncio.sleep(args.seconds)
                idle = {k: (ticks(pids[k]) - i0[k]) / CLK_TCK for k in shared}
                backends = await db_backends(args.dsn, db)
                shippers = Shippers(python, topic, calls, args.rate, args.producers, linger, args.bootstrap)
                own = {
                    "journal": shippers.pids(),
                    "ledger": tree(ledger.pid),
                    "quota": tree(quota.pid),
                    "pg backends": backends,
                }
                c0 = {k: ticks(v) for k, v in {**own, **pids}.items()}
                urls = {
                    "ledger": f"http://127.0.0.1:{ledger_port}/metrics",
                    "quota": f"http://127.0.0.1:{quota_port}/metrics",
                }
                b0 = {k: batches(u) for k, u in urls.items()}
                t0 = time.perf_counter()
                shippers.go()
                journal_cpu = await shippers.wait()
                await wait_caught_up(admin, f"{group}-quota", tps, produced + 2 * len(calls))
                await wait_caught_up(admin, f"{group}-ledger", tps, produced + 2 * len(calls))
                secs = time.perf_counter() - t0
                c1 = {k: ticks(v) for k, v in {**own, **pids}.items()}
                b1 = {k: batches(u) for k, u in urls.items()}
                c1["journal"] = round(journal_cpu * CLK_TCK)  # exited: their rusage
                row = {k: (c1[k] - c0[k]) / CLK_TCK / len(calls) * 1000 for k in c0}
                for k in urls:  # mean events per batch (its ``tollway_consumer_batch_records``)
                    n = b1[k][1] - b0[k][1]
                    row[f"{k} ev/batch"] = (b1[k][0] - b0[k][0]) / n if n else float("nan")
                for k in shared:
                    row[f"{k} idle"] = idle[k] * secs / args.seconds / len(calls) * 1000
                    row[f"{k} net"] = row[k] - row[f"{k} idle"]
                row["seconds"] = secs
                results[name].append(row)
                print(
                    f"round {rnd + 1} {name}: "
                    + ", ".join(f"{k} {v:.3f}" for k, v in row.items() if k != "seconds")
                    + f" ms/call over {secs:.1f} s; load {os.getloadavg()[0]:.2f}",
                    flush=True,
                )
                for p in procs:
                    stop(p)
                procs = []
        left = [k async for k in valkey.scan_iter(match=f"tw:{{{tenant_id}}}:res:*", count=1000)]
        print(f"reservation records left: {len(left)}")
        print(f"\nmedians over {args.rounds} rounds, ms of CPU per call at {args.rate:.0f} calls/s:")
        cols = list(next(iter(results.values()))[0])
        cols.remove("seconds")
        print(
            "| variant | " + " | ".join(cols) + " | metering: ledger+quota+pg backends+kafka net+valkey net |"
        )
        print("|---|" + "---|" * (len(cols) + 1))
        for name, rows in results.items():
            med = {k: statistics.median(r[k] for r in rows) for k in cols}
            total = sum(med[k] for k in ("ledger", "quota", "pg backends", "kafka net", "valkey net"))
            print(f"| {name} | " + " | ".join(f"{med[k]:.3f}" for k in cols) + f" | {total:.3f} |")
        print(f"load average: {os.getloadavg()}")
    finally:
        for p in procs:
            stop(p)
        if tenant_id is not None:
            for pattern in (f"tw:{{{tenant_id}}}:*", f"tw:alert:{{{tenant_id}}}:*"):
                batch = [k async for k in valkey.scan_iter(match=pattern, count=1000)]
                for i in range(0, len(batch), 1000):
                    await valkey.delete(*batch[i : i + 1000])
        await valkey.aclose()
        await admin.delete_topics([*topics, ldlq, qdlq, alerts])
        await admin.close()
        conn = await asyncpg.connect(args.dsn)
        await conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        await conn.close()


if __name__ == "__main__":
    asyncio.run(main())
