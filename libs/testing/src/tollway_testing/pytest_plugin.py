"""pytest fixtures for REAL Postgres, Valkey and Kafka, and the fake provider.

Registered through the ``pytest11`` entry point of ``tollway-testing``; every
test in the workspace can use these fixtures without importing anything.

Where the services are read from (defaults: the local stack ``infra/up.sh`` starts):
    TOLLWAY_POSTGRES_DSN             postgresql://tollway:tollway@127.0.0.1:5432/tollway
    TOLLWAY_VALKEY_URL               redis://127.0.0.1:6379/0
    TOLLWAY_KAFKA_BOOTSTRAP_SERVERS  127.0.0.1:9092

A service that cannot be reached FAILS the test with a message telling to run
``bash infra/up.sh``; nothing is skipped silently.

Fixtures
    postgres_dsn          (session)  DSN of the server's main database
    fresh_database        (function) DSN of a new, empty database, dropped (FORCE) after the test
    valkey_url            (session)  the stack's Valkey URL (db 0 belongs to the running stack)
    valkey_test_url       (function) URL of a logical db (1-15) leased to this test alone, flushed before and after
    valkey                (function) ``redis.asyncio.Redis`` on that db
    kafka_bootstrap_servers (session)
    fresh_topic           (function) ``await fresh_topic(partitions=1, config=None) -> name``; deleted after
    fake_provider         (session server, per-test clean) a :class:`FakeProvider` on a free port
    fake_provider_factory (function) ``fake_provider_factory(FakeProviderConfig(...)) -> FakeProvider``
    otlp_receiver         (function) a started :class:`tollway_testing.otlp.OtlpReceiver`, with this
                          process's ``OTEL_EXPORTER_OTLP_ENDPOINT`` pointing at it for the test
                          (``OTEL_BSP_SCHEDULE_DELAY`` 100 ms); needs ``opentelemetry-proto``

Async fixtures run on the session event loop (the workspace's pytest config:
``asyncio_default_fixture_loop_scope = "session"``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import urllib.parse
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import pytest_asyncio

from tollway_testing.fake_provider import (
    FAULTS,
    RECORDER,
    FakeProviderConfig,
    Fault,
    FaultTable,
    RequestLog,
    create_app,
)

DEFAULT_POSTGRES_DSN = "postgresql://tollway:tollway@127.0.0.1:5432/tollway"
DEFAULT_VALKEY_URL = "redis://127.0.0.1:6379/0"
DEFAULT_KAFKA_BOOTSTRAP_SERVERS = "127.0.0.1:9092"

_HINT = "Start the local stack with `bash infra/up.sh` (or point {var} at a reachable server)."

# Valkey logical dbs tests may lease; db 0 belongs to the running stack.
_VALKEY_TEST_DBS = range(1, 16)
_VALKEY_LEASE_PREFIX = "tollway:test:db-lease:"
_VALKEY_LEASE_SECONDS = 900  # longer than the pytest timeout (300 s): a crashed run frees its db
_VALKEY_LEASE_WAIT_SECONDS = 60.0


def _env(name: str, default: str) -> str:
    return os.environ.get(name) or default


def _unreachable(what: str, target: str, var: str, exc: BaseException) -> None:
    pytest.fail(
        f"{what} is not reachable at {target}: {type(exc).__name__}: {exc}\n" + _HINT.format(var=var),
        pytrace=False,
    )


def _redact_dsn(dsn: str) -> str:
    p = urllib.parse.urlsplit(dsn)
    if p.password:
        netloc = p.netloc.replace(f":{p.password}@", ":***@")
        return urllib.parse.urlunsplit(p._replace(netloc=netloc))
    return dsn


def _with_database(dsn: str, database: str) -> str:
    p = urllib.parse.urlsplit(dsn)
    return urllib.parse.urlunsplit(p._replace(path="/" + database))


# --- Postgres -----------------------------------------------------------------------


@pytest_asyncio.fixture(scope="session")
async def postgres_dsn() -> str:
    """DSN of the server's main database (TOLLWAY_POSTGRES_DSN); checked once per session."""
    import asyncpg

    dsn = _env("TOLLWAY_POSTGRES_DSN", DEFAULT_POSTGRES_DSN)
    try:
        conn = await asyncpg.connect(dsn, timeout=5)
    except Exception as exc:  # noqa: BLE001 - any failure means "not reachable"
        _unreachable("Postgres", _redact_dsn(dsn), "TOLLWAY_POSTGRES_DSN", exc)
    await conn.close()
    return dsn


@pytest_asyncio.fixture
async def fresh_database(postgres_dsn: str) -> AsyncIterator[str]:
    """A new empty database owned by the DSN's role; yields its DSN; dropped WITH (FORCE) after."""
    import asyncpg

    name = f"tw_test_{uuid.uuid4().hex[:16]}"
    conn = await asyncpg.connect(postgres_dsn, timeout=10)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    try:
        yield _with_database(postgres_dsn, name)
    finally:
        conn = await asyncpg.connect(postgres_dsn, timeout=10)
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await conn.close()


# --- Valkey -------------------------------------------------------------------------


@pytest_asyncio.fixture(scope="session")
async def valkey_url() -> str:
    """The stack's Valkey URL (TOLLWAY_VALKEY_URL); checked once per session. Don't flush its db."""
    import redis.asyncio as aioredis

    url = _env("TOLLWAY_VALKEY_URL", DEFAULT_VALKEY_URL)
    client = aioredis.from_url(url, socket_connect_timeout=5)
    try:
        await client.ping()
    except Exception as exc:  # noqa: BLE001
        _unreachable("Valkey", url, "TOLLWAY_VALKEY_URL", exc)
    finally:
        await client.aclose()
    return url


def _url_with_db(url: str, db: int) -> str:
    p = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(p._replace(path=f"/{db}"))


@contextlib.asynccontextmanager
async def leased_valkey_db(valkey_url: str) -> AsyncIterator[str]:
    """Lease a logical Valkey db (1-15) for as long as the context lasts; yields its URL.

    The lease is a key in db 0 (``tollway:test:db-lease:<db>``, SET NX with an
    expiry), so parallel pytest runs from several worktrees never share a db,
    and a crashed run frees its db after 15 minutes. The db is flushed before
    and after. Fixtures of any scope (a test, a module) use this.
    """
    import redis.asyncio as aioredis

    control = aioredis.from_url(_url_with_db(valkey_url, 0))
    token = uuid.uuid4().hex
    leased: int | None = None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + _VALKEY_LEASE_WAIT_SECONDS
    try:
        while leased is None:
            for db in _VALKEY_TEST_DBS:
                if await control.set(f"{_VALKEY_LEASE_PREFIX}{db}", token, nx=True, ex=_VALKEY_LEASE_SECONDS):
                    leased = db
                    break
            if leased is None:
                if loop.time() > deadline:
                    pytest.fail(
                        f"no free Valkey test db (1-15) within {_VALKEY_LEASE_WAIT_SECONDS:.0f}s: "
                        f"too many parallel tests hold leases ({_VALKEY_LEASE_PREFIX}*)",
                        pytrace=False,
                    )
                await asyncio.sleep(0.2)
        url = _url_with_db(valkey_url, leased)
        client = aioredis.from_url(url)
        try:
            await client.flushdb()
            yield url
            await client.flushdb()
        finally:
            await client.aclose()
    finally:
        if leased is not None:
            # Release only our own lease (compare-and-delete).
            await control.eval(
                "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0",
                1,
                f"{_VALKEY_LEASE_PREFIX}{leased}",
                token,
            )
        await control.aclose()


@pytest_asyncio.fixture
async def valkey_test_url(valkey_url: str) -> AsyncIterator[str]:
    """URL of a logical db leased to this test alone (see :func:`leased_valkey_db`)."""
    async with leased_valkey_db(valkey_url) as url:
        yield url


@pytest_asyncio.fixture
async def valkey(valkey_test_url: str) -> AsyncIterator[Any]:
    """``redis.asyncio.Redis`` (bytes responses) on this test's own, empty logical db."""
    import redis.asyncio as aioredis

    client = aioredis.from_url(valkey_test_url)
    try:
        yield client
    finally:
        await client.aclose()


# --- Kafka --------------------------------------------------------------------------


@pytest_asyncio.fixture(scope="session")
async def kafka_bootstrap_servers() -> str:
    """Bootstrap servers (TOLLWAY_KAFKA_BOOTSTRAP_SERVERS); checked once per session."""
    from aiokafka.admin import AIOKafkaAdminClient

    servers = _env("TOLLWAY_KAFKA_BOOTSTRAP_SERVERS", DEFAULT_KAFKA_BOOTSTRAP_SERVERS)
    admin = AIOKafkaAdminClient(bootstrap_servers=servers, request_timeout_ms=10_000)
    try:
        await asyncio.wait_for(admin.start(), timeout=15)
        await asyncio.wait_for(admin.list_topics(), timeout=15)
    except Exception as exc:  # noqa: BLE001
        _unreachable("Kafka", servers, "TOLLWAY_KAFKA_BOOTSTRAP_SERVERS", exc)
    finally:
        await admin.close()
    return servers


FreshTopic = Callable[..., Awaitable[str]]


@pytest_asyncio.fixture
async def fresh_topic(kafka_bootstrap_servers: str) -> AsyncIterator[FreshTopic]:
    """Factory: ``name = await fresh_topic(partitions=1, config=None, prefix="tollway.test")``.

    Creates a uniquely named topic (replication factor 1) and waits until its
    partitions have leaders; every topic created is deleted after the test.
    """
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap_servers, request_timeout_ms=15_000)
    await admin.start()
    created: list[str] = []

    async def create(
        partitions: int = 1, config: dict[str, str] | None = None, prefix: str = "tollway.test"
    ) -> str:
        name = f"{prefix}.{uuid.uuid4().hex[:12]}"
        await admin.create_topics(
            [NewTopic(name=name, num_partitions=partitions, replication_factor=1, topic_configs=config or {})]
        )
        created.append(name)
        await _wait_topic_ready(admin, name, partitions)
        return name

    try:
        yield create
    finally:
        if created:
            try:
                await admin.delete_topics(created)
            finally:
                await admin.close()
        else:
            await admin.close()


async def _wait_topic_ready(admin: Any, name: str, partitions: int, wait_seconds: float = 15.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_seconds
    while True:
        try:
            desc = await admin.describe_topics([name])
            parts = desc[0].get("partitions", []) if desc else []
            if (
                desc
                and desc[0].get("error_code", 0) == 0
                and len(parts) == partitions
                and all(p.get("leader", -1) >= 0 for p in parts)
            ):
                return
        except Exception:  # noqa: BLE001 - metadata not yet propagated
            pass
        if loop.time() > deadline:
            pytest.fail(
                f"topic {name} has no leader for all {partitions} partitions after {wait_seconds}s",
                pytrace=False,
            )
        await asyncio.sleep(0.1)


# --- fake provider ------------------------------------------------------------------


@dataclass
class FakeProvider:
    """A fake provider serving on its own thread and event loop (sync and async clients both work).

    Attributes:
        url: ``http://127.0.0.1:<port>`` (no path).
        base_url: ``url + "/v1"`` — what an OpenAI client's ``base_url`` takes.
        config: the :class:`FakeProviderConfig` it runs with.
        recorder: every request received (see :meth:`requests`).
        faults: the run-time fault table (see :meth:`set_faults`).
    """

    url: str
    config: FakeProviderConfig
    recorder: RequestLog
    faults: FaultTable
    _stop: Callable[[], None] = field(repr=False)

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def deployment_url(self, deployment: str) -> str:
        """``url + "/d/<deployment>/v1"``: an OpenAI base URL served as that deployment."""
        return f"{self.url}/d/{deployment}/v1"

    def requests(self, request_id: str | None = None, **match: Any) -> list[dict[str, Any]]:
        """Records of received requests, oldest first (optionally only one request id, and/or
        records whose fields equal ``match``: ``deployment="east"``, ``billable=True``)."""
        return self.recorder.all(request_id, **match)

    def set_faults(self, faults: dict[str, Fault | dict[str, Any] | None]) -> None:
        """Merge faults into the table: key (deployment, ``model:<name>`` or ``*``) → a
        :class:`Fault`, its JSON form, or None to remove it (as ``POST /_fake/faults``)."""
        self.faults.set(
            {k: v if v is None or isinstance(v, Fault) else Fault.from_json(v) for k, v in faults.items()}
        )

    def clear_faults(self) -> None:
        """Remove every fault (as ``DELETE /_fake/faults``)."""
        self.faults.clear()

    def clear(self) -> None:
        """Forget the received requests and every fault."""
        self.recorder.clear()
        self.faults.clear()

    def stop(self) -> None:
        self._stop()


def start_fake_provider(config: FakeProviderConfig | None = None) -> FakeProvider:
    """Start the fake provider on 127.0.0.1 (port 0 = a free port) in a daemon thread."""
    from aiohttp import web

    config = config or FakeProviderConfig(port=0, access_log=False)
    app = create_app(config)
    ready = threading.Event()
    state: dict[str, Any] = {}

    def run() -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        runner = web.AppRunner(app, access_log=None)
        try:
            loop.run_until_complete(runner.setup())
            site = web.TCPSite(runner, "127.0.0.1", config.port)
            loop.run_until_complete(site.start())
            state["port"] = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        except BaseException as exc:  # noqa: BLE001
            state["error"] = exc
            ready.set()
            return
        state["loop"] = loop
        ready.set()
        loop.run_forever()
        loop.run_until_complete(runner.cleanup())
        loop.close()

    thread = threading.Thread(target=run, name="tollway-fake-provider", daemon=True)
    thread.start()
    ready.wait(10)
    if "error" in state:
        raise RuntimeError(f"fake provider did not start: {state['error']!r}")
    if "port" not in state:
        raise RuntimeError("fake provider did not start within 10 s")

    def stop() -> None:
        loop = state["loop"]
        if loop.is_running():
            loop.call_soon_threadsafe(loop.stop)
        thread.join(10)

    return FakeProvider(
        url=f"http://127.0.0.1:{state['port']}",
        config=config,
        recorder=app[RECORDER],
        faults=app[FAULTS],
        _stop=stop,
    )


@pytest.fixture(scope="session")
def _fake_provider_session() -> Iterator[FakeProvider]:
    provider = start_fake_provider()
    try:
        yield provider
    finally:
        provider.stop()


@pytest.fixture
def fake_provider(_fake_provider_session: FakeProvider) -> FakeProvider:
    """The session's fake provider (default config), its request record and faults cleared for this test.

    ``fake_provider.base_url`` for OpenAI clients; ``fake_provider.requests()``
    for what it received. Per-request behaviour via ``x-fake-*`` headers;
    per-deployment faults via ``fake_provider.set_faults(...)`` and
    ``fake_provider.deployment_url(name)`` (libs/testing/README.md).
    """
    _fake_provider_session.clear()
    return _fake_provider_session


@pytest.fixture
def fake_provider_factory() -> Iterator[Callable[[FakeProviderConfig], FakeProvider]]:
    """``fake_provider_factory(FakeProviderConfig(ttft_ms=50, ...))``: a dedicated instance, stopped after."""
    started: list[FakeProvider] = []

    def make(config: FakeProviderConfig | None = None) -> FakeProvider:
        cfg = config or FakeProviderConfig()
        cfg.port = 0 if cfg.port == 9000 else cfg.port
        provider = start_fake_provider(cfg)
        started.append(provider)
        return provider

    yield make
    for provider in started:
        provider.stop()


@pytest_asyncio.fixture
async def otlp_receiver(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Any]:
    """An OTLP/HTTP trace receiver on a free port; apps built during the test export to it."""
    from tollway_testing.otlp import OtlpReceiver  # opentelemetry-proto: a dev dependency

    receiver = OtlpReceiver()
    await receiver.start()
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", raising=False)
    monkeypatch.delenv("OTEL_SDK_DISABLED", raising=False)
    monkeypatch.delenv("OTEL_TRACES_EXPORTER", raising=False)
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "100")
    try:
        yield receiver
    finally:
        await receiver.stop()
