"""The fault suite's rig: PRIVATE services on free ports, load, and the oracle's inputs.

Every fault test gets its own fake provider process, a two-worker edge
(``python -m tollway_edge``, ``TOLLWAY_EDGE_WORKERS=2``) and a ledger process
(``python -m tollway_ledger``) writing into a fresh database, on a fresh
topic; the Kafka broker is the shared one unless the test asks for a private
broker (:class:`PrivateKafka`, for faults that stop or kill it). Nothing the
other developers' stack runs is stopped or touched.

Logs go under pytest's base temp directory (``*.log``), where
``tests/zz_logs`` looks for secrets; every secret and prompt marker a fault
test creates is listed in :data:`SECRETS_FILE` for that test.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import math
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import aiohttp
import asyncpg
import orjson
import yaml

from tollway_contracts.catalogue import Prices
from tollway_testing.fake_provider.counting import completion_words
from tollway_testing.oracle import Bound, OracleReport, check

ROOT = Path(__file__).resolve().parents[2]
EDGE_IT = ROOT / "services/edge/tests/integration"
PEPPER = "faults-pepper"
PRICES = Prices(input=150_000, cached_input=75_000, output=600_000)  # micro-USD per 1M tokens
EMBEDDING_PRICES = Prices(input=20_000, output=0)
SECRETS_FILE = "tollway-test-secrets.txt"  # under pytest's basetemp: one secret per line


def _load(name: str) -> ModuleType:
    """Load one of the edge integration tests' helper modules by path (they are
    not a package); the principals stand-in stays in ONE place (its docstring)."""
    spec = importlib.util.spec_from_file_location(f"_faults_{name}", EDGE_IT / f"{name}.py")
    assert spec is not None and spec.loader is not None
    if spec.name in sys.modules:
        return sys.modules[spec.name]
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


processes = _load("processes")
principals = _load("principals_schema")
free_port = processes.free_port
wait_http = processes.wait_http


TENANT = "tn_faults"
"""The tenant of the rig's key."""
PROGRESS_INTERVAL_MS = 200
"""The edges' ``journal_progress_interval_ms`` here (default 1 s): a stream's relayed
completion is journaled at most this often, so a killed worker's stream is billed
at most one interval's tokens short (``journal.recovery``)."""
STREAM_CHUNK_MS = 30
"""The load's streams: one token per chunk, this far apart (``slow-stream``)."""


def answer_text_tokens(n: int) -> int:
    """The edge's text rule (ceil(bytes / 4), ``usage.estimate_answer_tokens``) for the
    fake provider's non-streamed answer of ``n`` tokens (its words, one per token)."""
    return math.ceil(len(" ".join(completion_words(n)).encode()) / 4)


BOUND = Bound(
    relayed_tokens=math.ceil(PROGRESS_INTERVAL_MS / STREAM_CHUNK_MS) + 5,
    answer_text_tokens=answer_text_tokens,
)
"""The oracle's bound: the estimator's for prompts; for a killed worker's stream, the
tokens of one progress interval plus 5 (chunks the provider had written or the worker
had read but not yet relayed when it died); for a non-streamed answer without usage,
the text rule applied to the provider's text."""


def prices_of(record: dict[str, Any]) -> Prices:
    """The catalogue prices of a provider record (by the upstream model it was asked for)."""
    body = record.get("body")
    model = body.get("model") if isinstance(body, dict) else None
    return EMBEDDING_PRICES if model == "fake-embedding" else PRICES


def remember_secret(basetemp: Path, value: str) -> None:
    """List ``value`` for the log scan (``tests/zz_logs``)."""
    with (basetemp / SECRETS_FILE).open("a") as f:
        f.write(value + "\n")


def catalogue(fake_url: str) -> dict[str, Any]:
    """Models on the private fake provider: short answers, 0.6 s streams (20
    chunks, 30 ms apart, so that a fault always meets streams in flight), an
    embedding and a moderation model (for the bad-input run)."""
    prices = {"input": PRICES.input, "cached_input": PRICES.cached_input, "output": PRICES.output}
    return {
        "version": 1,
        "providers": {"fake": {"kind": "openai", "base_url": f"{fake_url}/v1", "timeout_seconds": 30}},
        "models": {
            "gpt-4o-mini": {
                "prices": prices,
                "routes": [{"provider": "fake", "upstream_model": "fake-model"}],
            },
            "text-embedding-3-small": {
                "prices": {"input": EMBEDDING_PRICES.input, "output": 0},
                "routes": [{"provider": "fake", "upstream_model": "fake-embedding"}],
            },
            "omni-moderation-latest": {
                "prices": {"input": 0, "output": 0},
                "routes": [{"provider": "fake", "upstream_model": "omni-moderation-latest"}],
            },
            "slow-stream": {
                "prices": prices,
                "routes": [{"provider": "fake", "upstream_model": "fake-stream-c20-i30"}],
            },
        },
    }


class PrivateKafka:
    """A single-node KRaft broker of our own (the jars ``infra/install.sh`` cached),
    on free ports, that a test may SIGSTOP, SIGKILL and restart."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.port = free_port()
        self.controller_port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        version = (ROOT / "infra/kafka/VERSION").read_text().strip()
        self.libs = Path.home() / f".cache/tollway/kafka-{version}/libs"
        self.props = workdir / "server.properties"
        self.log_path = workdir / "kafka.log"

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _java(self, *args: str) -> list[str]:
        return [
            "java",
            "-Xms128m",
            "-Xmx384m",
            "-XX:+UseSerialGC",
            "-Djava.awt.headless=true",
            f"-Dlog4j2.configurationFile={self.workdir / 'log4j2.properties'}",
            "-cp",
            f"{self.libs}/*",
            *args,
        ]

    def format(self) -> None:
        """Write the properties and format the storage (once)."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        (self.workdir / "log4j2.properties").write_text(
            "status = warn\nappender.out.type = Console\nappender.out.name = STDOUT\n"
            "appender.out.layout.type = PatternLayout\nappender.out.layout.pattern = [%d] %p %m (%c)%n\n"
            "rootLogger.level = WARN\nrootLogger.appenderRef.out.ref = STDOUT\n"
        )
        self.props.write_text(
            "\n".join(
                [
                    "process.roles=broker,controller",
                    "node.id=1",
                    f"controller.quorum.bootstrap.servers=127.0.0.1:{self.controller_port}",
                    f"listeners=PLAINTEXT://127.0.0.1:{self.port},CONTROLLER://127.0.0.1:{self.controller_port}",
                    f"advertised.listeners=PLAINTEXT://127.0.0.1:{self.port}",
                    "controller.listener.names=CONTROLLER",
                    "inter.broker.listener.name=PLAINTEXT",
                    "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
                    f"log.dirs={self.workdir / 'data'}",
                    "auto.create.topics.enable=false",
                    "num.partitions=1",
                    "default.replication.factor=1",
                    "min.insync.replicas=1",
                    "offsets.topic.replication.factor=1",
                    "offsets.topic.num.partitions=3",
                    "transaction.state.log.replication.factor=1",
                    "transaction.state.log.min.isr=1",
                    "share.coordinator.state.topic.replication.factor=1",
                    "share.coordinator.state.topic.min.isr=1",
                    "group.initial.rebalance.delay.ms=0",
                    "num.network.threads=2",
                    "num.io.threads=2",
                    "",
                ]
            )
        )
        cluster = subprocess.run(
            self._java("kafka.tools.StorageTool", "random-uuid"), capture_output=True, text=True, check=True
        ).stdout.split()[-1]
        subprocess.run(
            self._java(
                "kafka.tools.StorageTool", "format", "-t", cluster, "-c", str(self.props), "--standalone"
            ),
            capture_output=True,
            check=True,
        )

    def launch(self) -> None:
        """Start the broker process (see :meth:`start`)."""
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(self._java("kafka.Kafka", str(self.props)), stdout=log, stderr=log)
        log.close()

    async def start(self, within_s: float = 90.0) -> None:
        """Start the broker and wait until it serves metadata."""
        self.launch()
        deadline = time.monotonic() + within_s
        from aiokafka.admin import AIOKafkaAdminClient

        while True:
            assert self.proc.poll() is None, self.log_path.read_text()[-3000:]
            admin = AIOKafkaAdminClient(bootstrap_servers=self.bootstrap, request_timeout_ms=3000)
            try:
                await admin.start()
                await admin.list_topics()
                return
            except Exception:
                assert time.monotonic() < deadline, "private Kafka did not start"
                await asyncio.sleep(0.5)
            finally:
                with contextlib.suppress(Exception):
                    await admin.close()

    async def create_topic(self, name: str, partitions: int = 3) -> None:
        """Create a topic (and wait for it)."""
        from aiokafka.admin import AIOKafkaAdminClient, NewTopic

        admin = AIOKafkaAdminClient(bootstrap_servers=self.bootstrap)
        await admin.start()
        try:
            await admin.create_topics([NewTopic(name, partitions, 1)])
        finally:
            await admin.close()

    def signal(self, sig: int) -> None:
        """Send ``sig`` to the broker process."""
        assert self.proc is not None
        os.kill(self.proc.pid, sig)

    def kill(self) -> None:
        """SIGKILL the broker and reap it."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait(10)


@dataclass
class Outcome:
    """What the clients saw: calls made, and those that did not end well (by kind)."""

    calls: int = 0
    ok: int = 0
    streams: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    codes: dict[str, int] = field(default_factory=dict)  # OpenAI error codes of the non-200 answers
    request_ids: list[str] = field(default_factory=list)

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1

    @property
    def failed(self) -> int:
        return sum(self.errors.values())


@dataclass
class Rig:
    """Private fake provider, two-worker edge and ledger around one test."""

    tmp: Path
    basetemp: Path
    db: str
    valkey_url: str
    kafka: str
    topic: str
    dlq_topic: str
    fake_port: int = 0
    edge_port: int = 0
    ledger_port: int = 0
    key: str = ""
    key_id: str = ""
    edge_env: dict[str, str] = field(default_factory=dict)
    fake: subprocess.Popen[bytes] | None = None
    edge: subprocess.Popen[bytes] | None = None
    ledger: subprocess.Popen[bytes] | None = None
    marker: str = field(default_factory=lambda: f"prompt-marker-{uuid.uuid4().hex}")

    @property
    def fake_url(self) -> str:
        return f"http://127.0.0.1:{self.fake_port}"

    @property
    def edge_url(self) -> str:
        return f"http://127.0.0.1:{self.edge_port}"

    async def start(
        self,
        edge_env: dict[str, str] | None = None,
        policy: dict[str, Any] | None = None,
        limits: list[dict[str, Any]] | None = None,
        before_edge: Callable[[Rig], Awaitable[None]] | None = None,
    ) -> None:
        """Schema, a key (with redaction ``policy`` and ``limits``: ``Limit`` JSON objects,
        scope_id ``"$key"`` = the key), the fake provider, the ledger, ``before_edge(rig)``
        (e.g. seed a counter), and the edge; all ready."""
        await principals.create_principals_schema(self.db)
        self.key, key_id, _ = await principals.upsert_key(
            self.db, PEPPER.encode(), tenant_id=TENANT, limits=limits
        )
        self.key_id = key_id
        if policy is not None:
            await _load("redaction_support").set_policy(self.db, key_id, policy)
        remember_secret(self.basetemp, self.key)
        remember_secret(self.basetemp, self.marker)
        self.fake_port, self.edge_port, self.ledger_port = free_port(), free_port(), free_port()
        self.fake = processes.start_fake_provider(
            self.fake_port, self.tmp / "fake.log", "--max-records", "100000"
        )
        # the fake provider logs one line per request; keep it (no --no-access-log would be nicer, but
        # start_fake_provider always passes it): its records are the oracle's input anyway.
        (self.tmp / "catalogue.yaml").write_text(yaml.safe_dump(catalogue(self.fake_url)))
        self.edge_env = {
            "TOLLWAY_POSTGRES_DSN": self.db,
            "TOLLWAY_VALKEY_URL": self.valkey_url,
            "TOLLWAY_KAFKA_BOOTSTRAP_SERVERS": self.kafka,
            "TOLLWAY_KEY_PEPPER": PEPPER,
            "TOLLWAY_CATALOGUE_PATH": str(self.tmp / "catalogue.yaml"),
            "TOLLWAY_EDGE_USAGE_TOPIC": self.topic,
            "TOLLWAY_EDGE_WORKERS": "2",
            "TOLLWAY_EDGE_EXPECTED_PROCESSES": "2",
            "TOLLWAY_LOG_LEVEL": "INFO",
            "TOLLWAY_EDGE_JOURNAL_ADOPT_INTERVAL_SECONDS": "1",
            "TOLLWAY_EDGE_JOURNAL_PROGRESS_INTERVAL_MS": str(PROGRESS_INTERVAL_MS),
            "TOLLWAY_EDGE_ACCEPT_GRACE_SECONDS": "0.5",
            "TOLLWAY_EDGE_DRAIN_DEADLINE_SECONDS": "10",
            "TOLLWAY_EDGE_REDACTOR_URLS": "",
            **(edge_env or {}),
        }
        self.start_ledger()
        await wait_http(f"{self.fake_url}/healthz", proc=self.fake)
        if before_edge is not None:
            await before_edge(self)
        await self.start_edge()
        await wait_http(f"http://127.0.0.1:{self.ledger_port}/healthz", within_s=60, proc=self.ledger)

    async def start_edge(self) -> None:
        """(Re)start the edge on its port and journal directory; wait until ready."""
        self.edge = processes.start_edge(self.edge_port, self.edge_env, self.tmp / "edge.log")
        await wait_http(f"{self.edge_url}/readyz", within_s=90, proc=self.edge)
        # both workers load their snapshot: a few successful calls
        async with aiohttp.ClientSession() as http:
            deadline = time.monotonic() + 30
            good = 0
            while good < 6:
                assert time.monotonic() < deadline, "edge workers not serving"
                async with http.get(
                    f"{self.edge_url}/v1/models", headers={"Authorization": f"Bearer {self.key}"}
                ) as resp:
                    good = good + 1 if resp.status == 200 else 0
                await asyncio.sleep(0.05)

    def start_ledger(self) -> None:
        """(Re)start the ledger process (same group: it resumes from its committed offsets)."""
        env = {
            **os.environ,
            "TOLLWAY_POSTGRES_DSN": self.db,
            "TOLLWAY_KAFKA_BOOTSTRAP_SERVERS": self.kafka,
            "TOLLWAY_LEDGER_TOPIC": self.topic,
            "TOLLWAY_LEDGER_DLQ_TOPIC": self.dlq_topic,
            "TOLLWAY_LEDGER_CONSUMER_GROUP": f"faults-ledger-{self.topic}",
            "TOLLWAY_LEDGER_AUTO_OFFSET_RESET": "earliest",
            "TOLLWAY_LEDGER_HEALTH_PORT": str(self.ledger_port),
            "TOLLWAY_LEDGER_BATCH_TIMEOUT_MS": "100",
            "TOLLWAY_LEDGER_SHUTDOWN_TIMEOUT_SECONDS": "5",
            "TOLLWAY_LOG_LEVEL": "INFO",
            "TOLLWAY_LOG_FORMAT": "json",
        }
        log = (self.tmp / "ledger.log").open("ab")
        self.ledger = subprocess.Popen(
            [sys.executable, "-m", "tollway_ledger"], env=env, stdout=log, stderr=log
        )
        log.close()

    def worker_pids(self) -> list[int]:
        """The edge supervisor's worker processes."""
        assert self.edge is not None
        path = Path(f"/proc/{self.edge.pid}/task/{self.edge.pid}/children")
        kids = [int(p) for p in path.read_text().split()] if path.exists() else []
        return [k for k in kids if b"resource_tracker" not in Path(f"/proc/{k}/cmdline").read_bytes()]

    def established_connections(self, pid: int) -> int:
        """How many ESTABLISHED client connections on the edge's port process
        ``pid`` holds (its socket inodes matched against ``/proc/net/tcp``;
        state ``01``). SO_REUSEPORT spreads connections by a hash of the
        4-tuple, so with a handful of keep-alive clients one worker may hold
        few or none of them."""
        inodes: set[str] = set()
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    target = os.readlink(fd)
                    if target.startswith("socket:["):
                        inodes.add(target[8:-1])
        port = f"{self.edge_port:04X}"
        count = 0
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            with contextlib.suppress(OSError):
                for line in Path(table).read_text().splitlines()[1:]:
                    cols = line.split()
                    if cols[1].rsplit(":", 1)[1] == port and cols[3] == "01" and cols[9] in inodes:
                        count += 1
        return count

    async def busiest_worker(self, at_least: int, within_s: float = 15.0) -> int:
        """The edge worker holding the most client connections, once one holds
        ``at_least`` (polled every 50 ms); the victim of a kill test, so the kill
        surely meets calls in flight."""
        deadline = time.monotonic() + within_s
        while True:
            counts = {pid: self.established_connections(pid) for pid in self.worker_pids()}
            pid, n = max(counts.items(), key=lambda kv: kv[1])
            if n >= at_least:
                return pid
            assert time.monotonic() < deadline, f"no worker holds {at_least} connections: {counts}"
            await asyncio.sleep(0.05)

    async def set_fault(self, faults: dict[str, Any]) -> None:
        """Merge faults into the fake provider's run-time table (``/_fake/faults``)."""
        async with aiohttp.ClientSession() as http:
            async with http.post(f"{self.fake_url}/_fake/faults", json=faults) as resp:
                assert resp.status == 200, await resp.text()

    async def clear_faults(self) -> None:
        async with aiohttp.ClientSession() as http:
            async with http.delete(f"{self.fake_url}/_fake/faults") as resp:
                assert resp.status == 204

    async def provider_records(self) -> list[dict[str, Any]]:
        """Every request the fake provider answered (its log, oldest first)."""
        async with aiohttp.ClientSession() as http:
            async with http.get(f"{self.fake_url}/_fake/requests") as resp:
                assert resp.status == 200
                body = await resp.json()
        assert isinstance(body, list)
        return body

    async def ledger_rows(self) -> list[dict[str, Any]]:
        """Every ``ledger.usage_records`` row of this test's database."""
        conn = await asyncpg.connect(self.db)
        try:
            return [dict(r) for r in await conn.fetch("SELECT * FROM ledger.usage_records")]
        finally:
            await conn.close()

    async def settle_and_check(self, within_s: float = 60.0) -> tuple[OracleReport, float]:
        """Wait until every billable provider answer has a terminal ledger row (or
        ``within_s`` passes), then run the oracle; returns it and the seconds waited."""
        start = time.monotonic()
        while True:
            records = await self.provider_records()
            try:
                rows = await self.ledger_rows()
            except asyncpg.UndefinedTableError:
                rows = []
            report = check(records, rows, prices_of, bound=BOUND)
            if report.lost == 0 and report.null_cost == 0 or time.monotonic() - start > within_s:
                return report, time.monotonic() - start
            await asyncio.sleep(0.5)

    def stop_all(self) -> None:
        for proc in (self.edge, self.ledger, self.fake):
            if proc is not None:
                processes.stop(proc, timeout=20)


@contextlib.asynccontextmanager
async def rig(
    tmp: Path,
    basetemp: Path,
    db: str,
    valkey_url: str,
    kafka: str,
    topic: str,
    dlq: str,
    policy: dict[str, Any] | None = None,
    limits: list[dict[str, Any]] | None = None,
    before_edge: Callable[[Rig], Awaitable[None]] | None = None,
    **edge_env: str,
) -> AsyncIterator[Rig]:
    """A started :class:`Rig`; everything stopped after (logs stay in ``tmp``)."""
    r = Rig(tmp=tmp, basetemp=basetemp, db=db, valkey_url=valkey_url, kafka=kafka, topic=topic, dlq_topic=dlq)
    (tmp / "journal").mkdir(exist_ok=True)
    try:
        await r.start(edge_env, policy, limits, before_edge)
        yield r
    finally:
        r.stop_all()


async def one_call(
    http: aiohttp.ClientSession, r: Rig, stream: bool, out: Outcome, leave_after: int | None
) -> None:
    """One chat completion through the edge; counts its outcome in ``out``.
    ``leave_after``: a streaming client that closes after that many chunks."""
    body: dict[str, Any] = {
        "model": "slow-stream" if stream else "gpt-4o-mini",
        "messages": [{"role": "user", "content": f"say something {r.marker} {uuid.uuid4().hex[:8]}"}],
    }
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    out.calls += 1
    out.streams += stream
    try:
        async with http.post(
            f"{r.edge_url}/v1/chat/completions",
            data=orjson.dumps(body),
            headers={"Authorization": f"Bearer {r.key}", "Content-Type": "application/json"},
        ) as resp:
            rid = resp.headers.get("x-request-id")
            if rid:
                out.request_ids.append(rid)
            if resp.status != 200:
                raw = await resp.read()
                out.error(f"http_{resp.status}")
                with contextlib.suppress(ValueError, AttributeError, TypeError):
                    code = str(orjson.loads(raw)["error"]["code"])
                    out.codes[code] = out.codes.get(code, 0) + 1
                return
            if not stream:
                await resp.json()
                out.ok += 1
                return
            chunks, done, errored = 0, False, False
            async for line in resp.content:
                if not line.startswith(b"data: "):
                    continue
                if line.strip() == b"data: [DONE]":
                    done = True
                    break
                chunks += 1
                if b'"error"' in line[:40]:
                    errored = True
                if leave_after is not None and chunks >= leave_after:
                    resp.close()
                    out.error("client_left")
                    return
            if done and not errored:
                out.ok += 1
            else:
                out.error("stream_error_event" if errored else "stream_cut")
    except (TimeoutError, aiohttp.ClientError) as exc:
        out.error(type(exc).__name__)


async def load(
    r: Rig,
    seconds: float,
    concurrency: int = 8,
    stream_every: int = 2,
    leave_every: int | None = None,
) -> Outcome:
    """Closed-loop mixed load for ``seconds``: ``concurrency`` clients, every
    ``stream_every``-th call a 0.6 s stream (``leave_every``: every so many streams
    the client leaves after 3 chunks)."""
    out = Outcome()
    stop_at = time.monotonic() + seconds
    timeout = aiohttp.ClientTimeout(total=60)

    async def client(i: int) -> None:
        n = i
        async with aiohttp.ClientSession(timeout=timeout) as http:
            while time.monotonic() < stop_at:
                n += 1
                stream = n % stream_every == 0
                leave = 3 if stream and leave_every and (n // stream_every) % leave_every == 0 else None
                failed = out.failed
                await one_call(http, r, stream, out, leave)
                if out.failed > failed and leave is None:
                    await asyncio.sleep(0.1)  # e.g. the edge restarting: no busy loop

    await asyncio.gather(*(client(i) for i in range(concurrency)))
    return out


def row_for_docs(name: str, held: str, out: Outcome, report: OracleReport, command: str) -> dict[str, Any]:
    """One ``docs/reliability.md`` row's figures (also printed by the tests)."""
    return {
        "fault": name,
        "load": held,
        "calls": out.calls,
        "provider_billable": report.calls,
        "ledger_rows": report.ledger_rows,
        "token_diff": report.token_diff,
        "micro_usd_diff": report.micro_usd_diff,
        "duplicates": report.duplicates,
        "lost": report.lost,
        "null_cost": report.null_cost,
        "estimated": report.estimated_rows,
        "adopted": report.adopted_rows,
        "adopted_unbilled": report.adopted_unbilled,
        "out_of_bound": report.out_of_bound,
        "client_errors": out.errors,
        "command": command,
    }


def write_result(basetemp: Path, row: dict[str, Any]) -> None:
    """Append a fault's row to ``<basetemp>/fault-results.jsonl`` and print it."""
    with (basetemp / "fault-results.jsonl").open("ab") as f:
        f.write(orjson.dumps(row) + b"\n")
    print("FAULT-RESULT", orjson.dumps(row).decode())


def java_available() -> bool:
    return shutil.which("java") is not None
