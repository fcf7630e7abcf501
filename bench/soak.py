"""The soak (issue 10): N minutes of mixed traffic against the RUNNING local stack, sampled.

    uv run --no-sync python -m bench.soak --minutes 30          # the documented run
    uv run --no-sync python -m bench.soak --minutes 2 --no-reliability   # a try-out

It never starts or stops a service: it finds them by their ports (DESIGN.md; ``bench/procs.py``),
mints three keys for the demo user through the quota admin API (as ``tollway-admin`` does;
``bench/targets.provision_key``) and revokes them at the end:

- ``main``: limits far above what the run reaches (admission runs on every call);
- ``limited``: ``requests_per_minute`` low (default 6), so a share of its calls is refused (429);
- ``redact``: the redaction policy ``{"mode": "redact"}``; its prompts carry an e-mail address.

Traffic (closed loop, paced to ``--rate`` calls/s over ``--clients`` clients, a fixed cycle):
chat non-streaming and streaming (``stream_options.include_usage``), a slow stream the client
leaves after 5 chunks, embeddings, ``/v1/messages`` through the Anthropic SDK (non-streaming and
streaming), redacted chat and rate-limited chat.

Every ``--sample-every`` seconds: RSS and open fds (``/proc/<pid>/fd``) of every process of every
service (edge workers + supervisor, quota, ledger, redactor + its pool, reporting, Valkey, Kafka,
Postgres, the fake provider), the Kafka lag of the ledger's and quota's consumer groups (committed
offsets vs the high watermark of the usage topic) and the edge journal's size; the fake provider's
log is harvested at the same time (it keeps only its last 10,000 records).

At the end it waits until the ledger has every billable call (``--settle`` s at most), runs the
billing oracle (``tollway_testing.oracle.check``: the provider's log vs ``ledger.usage_records``,
only the run's request ids) and writes ``docs/soak/<timestamp>.md`` + ``.json``, prints the
section, and replaces the ``## Soak`` section at the end of ``docs/reliability.md``
(``--no-reliability``: not that). Pure parts (fits, report): ``bench/soak_report.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import time
import uuid
import warnings
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import anthropic
import asyncpg
from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient

from tollway_contracts.catalogue import Prices, load_catalogue
from tollway_contracts.topics import LEDGER_CONSUMER_GROUP, QUOTA_CONSUMER_GROUP, USAGE
from tollway_testing.oracle import check

from . import soak_report
from .procs import CLK_TCK, listeners, machine_busy_ticks, port_group_pids, read_stat
from .targets import BENCH_LIMITS, REPO, _find_dev_env, _read_env_file, provision_key, revoke_key_id

EDGE_PORT = 8080
PROVIDER_PORT = 9000
# Every service of the stack by the port it listens on (DESIGN.md, infra/lib.sh, infra/up.sh).
SERVICE_PORTS = {
    "edge": EDGE_PORT,
    "quota": 8082,
    "ledger": 8084,
    "redactor": 8081,
    "reporting": 8083,
    "valkey": 6379,
    "kafka": 9092,
    "postgres": 5432,
    "fake provider": PROVIDER_PORT,
}
GROUPS = (LEDGER_CONSUMER_GROUP, QUOTA_CONSUMER_GROUP)
# The edge journal's own gauges (tollway_edge.journal.metrics; summed over live workers).
JOURNAL_METRICS = (
    "tollway_journal_records",
    "tollway_journal_oldest_unacked_age_seconds",
    "tollway_journal_appended_total",
    "tollway_journal_acked_total",
)
# Clients that leave SLOW_STREAM: early (55 chunks, 2.75 s still to come: longer than the edge reads
# a gone client's provider tail, LiveStreams.tail_seconds = 2 s, so the row is estimated) and late
# (5 chunks to come: the provider's usage arrives within the tail, billed exactly).
LEAVE_AFTER_CHUNKS = {"stream_left": 5, "stream_left_late": 55}
SLOW_STREAM = "fake-stream-c60-i50-t400"  # infra/catalogue.yaml: 60 chunks 50 ms apart, 3.4 s
# One client's cycle of call kinds (20 calls): the mix of the run.
CYCLE = (
    ["chat"] * 6
    + ["chat_stream"] * 4
    + ["stream_left", "stream_left_late"]
    + ["embeddings"] * 2
    + ["messages", "messages", "messages_stream"]
    + ["redacted"] * 2
    + ["limited"]
)


@dataclass
class KindStats:
    """Outcomes of one kind of call: calls made, answered in full, errors by kind."""

    calls: int = 0
    ok: int = 0
    errors: Counter[str] = field(default_factory=Counter)


@dataclass
class Run:
    """What the traffic produced: per-kind outcomes and every request id the edge returned."""

    kinds: dict[str, KindStats] = field(default_factory=dict)
    request_ids: dict[str, str] = field(default_factory=dict)  # request id -> kind

    def stats(self, kind: str) -> KindStats:
        return self.kinds.setdefault(kind, KindStats())


# --- processes ------------------------------------------------------------------------------------


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _fds(pid: int) -> int | None:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def _role(service: str, pid: int, comm: str, listening: set[int]) -> str:
    """What a process is within its service (for the per-process table); '' for Postgres backends."""
    cmd = _cmdline(pid)
    if comm == "uv":
        return "uv run"
    if "resource_tracker" in cmd:
        return "resource tracker"
    if "spawn_main" in cmd:
        return "worker" if pid in listening else "pool worker"
    if service == "postgres":
        return "postmaster" if pid in listening else ""
    if service == "edge":
        return "worker" if pid in listening else "supervisor"
    return "main"


def sample_processes() -> dict[str, dict[str, Any]]:
    """Per service: summed RSS (bytes) and fds, process count, and each process's own figures."""
    out: dict[str, dict[str, Any]] = {}
    for name, port in SERVICE_PORTS.items():
        pids = port_group_pids(port)
        if not pids:
            continue
        listening = set(listeners(port))
        procs: dict[str, dict[str, Any]] = {}
        for pid in sorted(pids):
            st = read_stat(pid)
            fds = _fds(pid)
            if st is None or fds is None:
                continue
            procs[str(pid)] = {
                "comm": st.comm,
                "role": _role(name, pid, st.comm, listening),
                "rss": st.rss_bytes,
                "fds": fds,
            }
        out[name] = {
            "rss": sum(p["rss"] for p in procs.values()),
            "fds": sum(p["fds"] for p in procs.values()),
            "processes": len(procs),
            "pids": procs,
        }
    return out


def journal_dir() -> Path | None:
    """The edge's ``TOLLWAY_EDGE_JOURNAL_DIR`` (from a worker's environment), else ``<cwd>/.tollway/journal``."""
    for pid in listeners(EDGE_PORT):
        try:
            env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        for item in env:
            if item.startswith(b"TOLLWAY_EDGE_JOURNAL_DIR="):
                return Path(item.split(b"=", 1)[1].decode())
        with contextlib.suppress(OSError):
            return Path(os.readlink(f"/proc/{pid}/cwd")) / ".tollway/journal"
    return None


def journal_size(path: Path | None) -> tuple[int | None, int | None]:
    """(bytes, files) under the journal directory (all workers' segments); (None, None) if absent."""
    if path is None or not path.is_dir():
        return None, None
    total = count = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            with contextlib.suppress(OSError):
                total += os.stat(os.path.join(root, f)).st_size
                count += 1
    return total, count


# --- Kafka lag ------------------------------------------------------------------------------------


class Lag:
    """Committed-offset lag of the ledger's and quota's groups on the usage topic (messages)."""

    def __init__(self, bootstrap: str) -> None:
        self.admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
        self.consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)

    async def start(self) -> None:
        await self.admin.start()
        await self.consumer.start()

    async def stop(self) -> None:
        await self.consumer.stop()
        await self.admin.close()

    async def sample(self) -> dict[str, int | None]:
        """Per group: sum over the usage topic's partitions of high watermark - committed offset."""
        out: dict[str, int | None] = {}
        parts = self.consumer.partitions_for_topic(USAGE.name) or set()
        if not parts:
            await self.consumer.topics()
            parts = self.consumer.partitions_for_topic(USAGE.name) or set()
        tps = [TopicPartition(USAGE.name, p) for p in sorted(parts)]
        ends = await self.consumer.end_offsets(tps) if tps else {}
        for group in GROUPS:
            try:
                committed = await self.admin.list_consumer_group_offsets(group, partitions=tps)
            except Exception:  # a group mid-rebalance: a gap in the series, not a failed soak
                out[group] = None
                continue
            lag = 0
            for tp in tps:
                om = committed.get(tp)
                offset = om.offset if om is not None and om.offset >= 0 else 0
                lag += max(0, ends.get(tp, 0) - offset)
            out[group] = lag
        return out


# --- traffic --------------------------------------------------------------------------------------


def _marker() -> str:
    return f"soak {uuid.uuid4().hex[:10]}"


async def _openai_call(http: aiohttp.ClientSession, edge: str, key: str, kind: str, run: Run) -> None:
    stats = run.stats(kind)
    stats.calls += 1
    stream = kind in ("chat_stream", *LEAVE_AFTER_CHUNKS)
    body: dict[str, Any]
    if kind == "embeddings":
        path, body = "/v1/embeddings", {"model": "text-embedding-3-small", "input": _marker()}
    else:
        content = _marker()
        if kind == "redacted":
            content += " please write to jane.doe@example.com or call +1 415 555 0100"
        body = {
            "model": SLOW_STREAM if kind in LEAVE_AFTER_CHUNKS else "gpt-4o-mini",
            "messages": [{"role": "user", "content": content}],
        }
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        path = "/v1/chat/completions"
    try:
        async with http.post(edge + path, json=body, headers={"Authorization": f"Bearer {key}"}) as resp:
            rid = resp.headers.get("x-request-id")
            if rid:
                run.request_ids[rid] = kind
            if resp.status != 200:
                await resp.read()
                stats.errors[f"http_{resp.status}"] += 1
                return
            if not stream:
                await resp.read()
                stats.ok += 1
                return
            chunks, done, errored = 0, False, False
            async for line in resp.content:
                if not line.startswith(b"data: "):
                    continue
                if line.strip() == b"data: [DONE]":
                    done = True
                    break
                chunks += 1
                errored = errored or b'"error"' in line[:40]
                if kind in LEAVE_AFTER_CHUNKS and chunks >= LEAVE_AFTER_CHUNKS[kind]:
                    resp.close()
                    stats.errors["client_left (on purpose)"] += 1
                    return
            if done and not errored:
                stats.ok += 1
            else:
                stats.errors["stream_error_event" if errored else "stream_cut"] += 1
    except (TimeoutError, aiohttp.ClientError) as exc:
        stats.errors[type(exc).__name__] += 1


async def _messages_call(client: anthropic.AsyncAnthropic, kind: str, run: Run) -> None:
    """``/v1/messages`` the way Anthropic's SDK sends it (x-api-key, anthropic-version)."""
    stats = run.stats(kind)
    stats.calls += 1
    args: dict[str, Any] = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 256,
        "messages": [{"role": "user", "content": _marker()}],
    }
    try:
        if kind == "messages":
            raw = await client.messages.with_raw_response.create(**args)
            rid = raw.headers.get("x-request-id")
            if rid:
                run.request_ids[rid] = kind
            await raw.parse()
            stats.ok += 1
            return
        async with client.messages.stream(**args) as s:
            rid = s.response.headers.get("x-request-id")
            if rid:
                run.request_ids[rid] = kind
            async for _event in s:
                pass
            await s.get_final_message()
        stats.ok += 1
    except anthropic.APIStatusError as exc:
        rid = exc.response.headers.get("x-request-id")
        if rid:
            run.request_ids[rid] = kind
        stats.errors[f"http_{exc.status_code}"] += 1
    except anthropic.APIError as exc:
        stats.errors[type(exc).__name__] += 1


async def traffic(
    edge: str, keys: dict[str, str], clients: int, rate: float, stop_at: float, run: Run
) -> None:
    """``clients`` closed-loop clients, each paced to ``rate / clients`` calls/s, until ``stop_at``."""
    interval = clients / rate

    async def client(i: int) -> None:
        timeout = aiohttp.ClientTimeout(total=60)
        async with (
            aiohttp.ClientSession(timeout=timeout) as http,
            anthropic.AsyncAnthropic(
                base_url=edge, api_key=keys["main"], max_retries=0, timeout=60.0
            ) as claude,
        ):
            n = i * 3  # clients start at different places of the cycle
            due = time.monotonic() + i * interval / clients
            while time.monotonic() < stop_at:
                await asyncio.sleep(max(0.0, due - time.monotonic()))
                due = max(due + interval, time.monotonic() - 5 * interval)  # no burst after a stall
                kind = CYCLE[n % len(CYCLE)]
                n += 1
                if kind.startswith("messages"):
                    await _messages_call(claude, kind, run)
                else:
                    key = (
                        keys["redact"]
                        if kind == "redacted"
                        else keys["limited"]
                        if kind == "limited"
                        else keys["main"]
                    )
                    await _openai_call(http, edge, key, kind, run)

    await asyncio.gather(*(client(i) for i in range(clients)))


# --- the provider's log and the ledger ------------------------------------------------------------


class ProviderLog:
    """The fake provider's records of this run's request ids, harvested before its ring drops them.

    The ring (``--max-records``, 10,000 in the stack) is shared with everyone's traffic on the
    provider, so a fixed window can miss records: each harvest fetches the newest ``limit`` records
    and checks that the newest record of the previous harvest is among them (records are appended
    when an answer ends, so identity, not ``received_at``, shows the overlap); if it is not, the
    window grows (x4, up to the ring). ``gaps`` counts harvests that found no overlap even with
    the whole ring (records lost to the harness: their calls show up as ``phantom``).
    """

    RING = 10_000

    def __init__(self, base: str) -> None:
        self.base = base
        self.records: dict[tuple[Any, ...], dict[str, Any]] = {}
        self.fetched_max = 0
        self.limit = 1000
        self.gaps = 0
        self.seen_total = 0  # records of everyone's traffic seen (overlaps counted once)
        self._last: tuple[Any, ...] | None = None

    @staticmethod
    def _key(r: dict[str, Any]) -> tuple[Any, ...]:
        return (
            r.get("request_id"),
            r.get("received_at"),
            r.get("path"),
            r.get("deployment"),
            r.get("status"),
        )

    async def _fetch(self, http: aiohttp.ClientSession, limit: int) -> list[dict[str, Any]]:
        async with http.get(f"{self.base}/_fake/requests", params={"limit": str(limit)}) as resp:
            resp.raise_for_status()
            body: list[dict[str, Any]] = await resp.json()
        self.fetched_max = max(self.fetched_max, len(body))
        return body

    async def harvest(self, http: aiohttp.ClientSession, ours: dict[str, str]) -> None:
        limit = self.limit
        while True:
            body = await self._fetch(http, limit)
            keys = [self._key(r) for r in body]
            if self._last is None or len(body) < limit:
                new = (
                    len(body)
                    if self._last is None or self._last not in keys
                    else len(body) - 1 - keys.index(self._last)
                )
                break
            if self._last in keys:
                new = len(body) - 1 - keys.index(self._last)
                break
            if limit >= self.RING:
                self.gaps += 1
                new = len(body)
                break
            limit = min(self.RING, limit * 4)
        self.seen_total += new
        self.limit = min(self.RING, max(1000, 4 * new))
        if body:
            self._last = keys[-1]
        for r, k in zip(body, keys, strict=True):
            if r.get("request_id") in ours:
                self.records[k] = r


def prices_by_upstream(catalogue_path: Path) -> dict[str, Prices]:
    """Upstream model name -> catalogue prices (what the provider record's body asked for)."""
    out: dict[str, Prices] = {}
    for model in load_catalogue(catalogue_path).models.values():
        for d in model.deployments:
            out.setdefault(d.upstream_model, model.prices)
    return out


async def ledger_rows(dsn: str, request_ids: list[str]) -> list[dict[str, Any]]:
    """``ledger.usage_records`` rows of these request ids."""
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch(
            "SELECT request_id, key_id, status, status_code, model, prompt_tokens, completion_tokens,"
            " cost_micro_usd, usage_estimated, redaction IS NOT NULL AS redacted"
            " FROM ledger.usage_records WHERE request_id::text = ANY($1::text[])",
            request_ids,
        )
        return [dict(r) for r in rows]
    finally:
        await conn.close()


# --- the run --------------------------------------------------------------------------------------


def _env() -> dict[str, str]:
    dev_env = _find_dev_env(EDGE_PORT)
    env = _read_env_file(dev_env) if dev_env else {}
    stack_env = dev_env.parent / "stack.env" if dev_env else None
    if stack_env and stack_env.is_file():
        env = {**_read_env_file(stack_env), **env}
    return env


def _series(samples: list[dict[str, Any]], get: Any, warmup_s: float) -> dict[str, float] | None:
    pts = [(s["t"], float(v)) for s in samples if (v := get(s)) is not None]
    g = soak_report.growth(pts, warmup_s)
    return asdict(g) if g else None


async def soak(args: argparse.Namespace) -> dict[str, Any]:
    env = _env()
    token = env.get("TOLLWAY_ADMIN_TOKEN")
    if not listeners(EDGE_PORT) or not token:
        sys.exit(
            "no edge on :8080 or no TOLLWAY_ADMIN_TOKEN in .tollway/dev.env: start the stack (bash infra/up.sh)"
        )
    dsn = env.get("TOLLWAY_POSTGRES_DSN", "postgresql://tollway:tollway@127.0.0.1:5432/tollway")
    bootstrap = env.get("TOLLWAY_KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092")
    catalogue = Path(env.get("TOLLWAY_CATALOGUE_PATH", REPO / "infra/catalogue.yaml"))
    prices = prices_by_upstream(catalogue)
    fallback = prices["gpt-4o-mini"]

    def prices_of(record: Any) -> Prices:
        body = record.get("body")
        model = body.get("model") if isinstance(body, dict) else None
        return prices.get(str(model), fallback)

    keys: dict[str, str] = {}
    key_ids: list[str] = []
    limited = {**BENCH_LIMITS, "requests_per_minute": args.limited_rpm}
    for name, policy, limits in (
        ("main", None, None),
        ("limited", None, limited),
        ("redact", {"mode": "redact"}, None),
    ):
        key, key_id, err = provision_key(
            token, policy=policy, limits=limits, wait_s=0.0, name=f"soak-{name}-"
        )
        if not key or not key_id:
            for kid in key_ids:
                revoke_key_id(token, kid)
            sys.exit(f"could not mint the {name} key: {err}")
        keys[name] = key
        key_ids.append(key_id)
    await asyncio.sleep(2.0)  # a principals change is in force at the edges within 1 s

    started_at = datetime.now(UTC)
    t0 = time.monotonic()
    stop_at = t0 + args.minutes * 60
    warmup_s = args.warmup if args.warmup is not None else min(120.0, args.minutes * 60 * 0.2)
    run = Run()
    samples: list[dict[str, Any]] = []
    jdir = journal_dir()
    lag = Lag(bootstrap)
    await lag.start()
    provider = ProviderLog(f"http://127.0.0.1:{PROVIDER_PORT}")
    http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60))
    busy0 = last_busy = machine_busy_ticks()
    wall0 = last_wall = time.monotonic()

    async def take_sample() -> None:
        nonlocal last_busy, last_wall
        busy, now = machine_busy_ticks(), time.monotonic()
        cores = (busy[0] - last_busy[0]) / CLK_TCK / (now - last_wall) if now > last_wall else None
        last_busy, last_wall = busy, now
        calls = sum(k.calls for k in run.kinds.values())
        procs = await asyncio.to_thread(sample_processes)
        try:
            lags: dict[str, int | None] = await lag.sample()
        except Exception as exc:  # Kafka busy: a gap in the series, noted
            lags = dict.fromkeys(GROUPS)
            print(f"lag sample failed: {type(exc).__name__}", file=sys.stderr)
        s = {
            "t": round(time.monotonic() - t0, 1),
            "calls": calls,
            "services": procs,
            "lag": lags,
            "machine_busy_cores": cores,
        }
        s["journal_bytes"], s["journal_files"] = journal_size(jdir)
        try:
            async with http.get(f"http://127.0.0.1:{EDGE_PORT}/metrics") as resp:
                s["journal_metrics"] = soak_report.parse_metrics(await resp.text(), JOURNAL_METRICS)
        except (TimeoutError, aiohttp.ClientError):
            s["journal_metrics"] = {}
        samples.append(s)
        edge = procs.get("edge", {})
        print(
            f"[{s['t']:6.0f}s] calls {calls}  edge RSS {edge.get('rss', 0) / 2**20:.0f} MiB fds {edge.get('fds', 0)}"
            f"  lag {lags}  journal {s['journal_bytes']}",
            flush=True,
        )

    async def harvester() -> None:
        while time.monotonic() < stop_at:
            await provider.harvest(http, run.request_ids)
            await asyncio.sleep(args.harvest_every)

    async def sampler() -> None:
        while time.monotonic() < stop_at:
            await take_sample()
            await asyncio.sleep(max(0.0, args.sample_every - (time.monotonic() - t0) % args.sample_every))

    try:
        sampling = asyncio.create_task(sampler())
        harvesting = asyncio.create_task(harvester())
        await traffic(f"http://127.0.0.1:{EDGE_PORT}", keys, args.clients, args.rate, stop_at, run)
        await sampling
        await harvesting
        await take_sample()  # the end, right after the last call

        # Settle: every billable call of the run has a terminal ledger row (or --settle passes).
        ids = list(run.request_ids)
        settle_t0 = time.monotonic()
        while True:
            await provider.harvest(http, run.request_ids)
            rows = await ledger_rows(dsn, ids)
            report = check(provider.records.values(), rows, prices_of)
            if (report.lost == 0 and report.null_cost == 0) or time.monotonic() - settle_t0 > args.settle:
                break
            await asyncio.sleep(2.0)
        settled_s = time.monotonic() - settle_t0
    finally:
        await http.close()
        await lag.stop()
        for kid in key_ids:
            revoke_key_id(token, kid)

    busy_end = machine_busy_ticks()
    busy_cores = (busy_end[0] - busy0[0]) / CLK_TCK / (time.monotonic() - wall0)
    own = os.times()
    have_row = {str(r["request_id"]) for r in rows}
    no_row = Counter(kind for rid, kind in run.request_ids.items() if rid not in have_row)
    oracle = {
        **report.summary(),
        "no_ledger_row": sum(no_row.values()),
        "no_ledger_row_by_kind": dict(no_row),
        "settled_s": settled_s,
        "problems": [asdict(p) for p in report.problems()[:50]],
        "redacted_rows": sum(1 for r in rows if r["redacted"]),
        "estimated_by_kind": dict(
            Counter(run.request_ids.get(d.request_id, "?") for d in report.details if d.estimated)
        ),
    }
    th = soak_report.Thresholds()
    notes = [
        "keys minted for the run through the admin API and revoked at its end: main (limits far above "
        f"the run), limited ({args.limited_rpm} requests/min: its 429s are the refusals above), redact "
        "(policy redact; its prompts carry an e-mail address and a phone number)",
        f"{oracle['redacted_rows']} ledger rows of the run carry a redaction summary",
        "stream_left / stream_left_late: the client closes a 60-chunk stream (50 ms apart) after 5 / 55 "
        "chunks on purpose; the edge reads a gone client's provider tail for at most 2 s "
        "(LiveStreams.tail_seconds), so an early leaver's row is billed by the estimator "
        "(usage_estimated, judged against its stated bound) and a late one's by the provider's usage; "
        f"estimated rows by kind: {oracle['estimated_by_kind'] or 'none'}",
        "Postgres, Valkey and Kafka are shared with the other engineers' tests on this machine (fresh "
        "databases, Valkey dbs and topics per test): their backends, client connections and heaps come "
        "and go with those tests, so these rows measure the machine, not Tollway alone",
        "the fake provider keeps its last 10,000 requests in memory: its RSS rises until that ring is full",
        f"the whole machine (2 cores, every user) was busy {busy_cores:.2f} cores on average during the run "
        f"(samples: {min(cs) if (cs := [x['machine_busy_cores'] for x in samples if x['machine_busy_cores']]) else 0:.2f}"
        f"–{max(cs) if cs else 0:.2f}); the soak's own client spent {own.user + own.system:.0f} CPU s",
        f"the fake provider's log (a ring of 10,000 records shared with everyone's traffic on it) was "
        f"harvested every {args.harvest_every:g} s with a window that grows until it overlaps the last "
        f"harvest: {provider.seen_total} records seen (the run's and others'), largest fetch "
        f"{provider.fetched_max}, harvests without overlap: {provider.gaps}"
        + (
            " (calls in those gaps count as phantom: the harness lost their provider records)"
            if provider.gaps
            else ""
        ),
    ]
    notes.append(
        "Kafka is a JVM started with -Xms256m -Xmx512m: its RSS rises while the heap is committed up to "
        "-Xmx, so a Kafka flag below that cap is heap commit, not by itself a leak"
    )
    notes.append(
        "the edge journal grows while each worker's current segment fills (TOLLWAY_EDGE_JOURNAL_SEGMENT_BYTES, "
        "16 MiB by default); a segment is deleted once rolled and acknowledged by Kafka, so the journal's "
        "bound is about two segments per worker, not its slope"
    )
    end_metrics = samples[-1].get("journal_metrics", {}) if samples else {}
    if end_metrics:
        notes.append(
            "the edges' journals at the end (their /metrics, since the edges started): "
            f"{end_metrics.get('tollway_journal_appended_total', 0):.0f} events appended, "
            f"{end_metrics.get('tollway_journal_acked_total', 0):.0f} acknowledged by Kafka"
        )
    if report.problems():
        notes.append(
            "calls the oracle did not find right (first ones): "
            + ", ".join(f"{p.request_id} {p.verdict}" for p in report.problems()[:5])
        )
    traffic_out = {
        kind: {"calls": k.calls, "ok": k.ok, "errors": dict(k.errors)} for kind, k in run.kinds.items()
    }
    return {
        "started_at": started_at.strftime("%Y-%m-%d %H:%M"),
        "minutes": args.minutes,
        "command": "uv run --no-sync python -m bench.soak " + " ".join(sys.argv[1:]),
        "clients": args.clients,
        "rate": args.rate,
        "warmup_s": warmup_s,
        "sample_every_s": args.sample_every,
        "thresholds": asdict(th),
        "traffic": traffic_out,
        "oracle": oracle,
        "provider_log": {
            "seen": provider.seen_total,
            "largest_fetch": provider.fetched_max,
            "gaps": provider.gaps,
        },
        "services": soak_report.service_growth(samples, warmup_s, th),
        "processes": soak_report.process_growth(samples, warmup_s, th),
        "lag": {g: _series(samples, lambda s, g=g: s["lag"].get(g), warmup_s) for g in GROUPS},
        "journal": _series(samples, lambda s: s["journal_bytes"], warmup_s),
        "journal_files": _series(samples, lambda s: s["journal_files"], warmup_s),
        "journal_unacked": _series(
            samples, lambda s: s.get("journal_metrics", {}).get("tollway_journal_records"), warmup_s
        ),
        "journal_oldest_s": _series(
            samples,
            lambda s: s.get("journal_metrics", {}).get("tollway_journal_oldest_unacked_age_seconds"),
            warmup_s,
        ),
        "journal_dir": str(jdir) if jdir else None,
        "notes": notes,
        "samples": samples,
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.split("\n")[0])
    p.add_argument("--minutes", type=float, default=30.0, help="traffic duration (default 30)")
    p.add_argument("--clients", type=int, default=6, help="concurrent clients (default 6)")
    p.add_argument("--rate", type=float, default=4.0, help="calls per second in all (default 4)")
    p.add_argument("--sample-every", type=float, default=30.0, help="seconds between samples (default 30)")
    p.add_argument(
        "--warmup",
        type=float,
        default=None,
        help="seconds before the start figures (default min(120, 20%% of the run))",
    )
    p.add_argument("--limited-rpm", type=int, default=6, help="requests/min of the limited key (default 6)")
    p.add_argument(
        "--harvest-every", type=float, default=10.0, help="seconds between reads of the provider's log"
    )
    p.add_argument("--settle", type=float, default=180.0, help="seconds to wait for the ledger at the end")
    p.add_argument(
        "--no-reliability",
        action="store_true",
        help="do not write the ## Soak section of docs/reliability.md",
    )
    p.add_argument(
        "--render",
        metavar="JSON",
        help="only re-render docs/soak/<stamp>.md (and the section) from a run's JSON",
    )
    args = p.parse_args(argv)
    # The catalogue's Anthropic model is one the SDK warns about on every call; the warning says nothing here.
    warnings.filterwarnings("ignore", message=r"The model .* is deprecated")
    out = REPO / "docs/soak"
    if args.render:
        result = json.loads(Path(args.render).read_text())
        stamp = Path(args.render).stem
    else:
        result = asyncio.run(soak(args))
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        out.mkdir(parents=True, exist_ok=True)
        (out / f"{stamp}.json").write_text(json.dumps(result, indent=1, default=str) + "\n")
    section = soak_report.render(result)
    (out / f"{stamp}.md").write_text(section.replace("## Soak", "# Soak", 1).replace("\n### ", "\n## "))
    print(section)
    print(f"written: docs/soak/{stamp}.md and .json")
    if not args.no_reliability:
        doc = REPO / "docs/reliability.md"
        body = section.rstrip("\n") + f"\n\nRaw samples: `docs/soak/{stamp}.json`.\n"
        doc.write_text(soak_report.replace_section(doc.read_text(), body))
        print("docs/reliability.md: ## Soak section written")


if __name__ == "__main__":
    main()
