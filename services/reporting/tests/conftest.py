"""Fixtures of the reporting tests: a fresh Postgres database per test module
with quota's and ledger's migrations applied, two tenants with reporting
tokens minted through quota's admin API, usage written through the ledger's
own handler and store, and a live reporting server. Real Postgres and Valkey
on 127.0.0.1; no fakes.

Replace the database fixture with tollway_testing's ``fresh_database`` once
the infra branch lands it.
"""

from __future__ import annotations

import asyncio
import os
import random
import secrets
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import aiohttp
import asyncpg
import pytest
from aiohttp.test_utils import TestServer

from tollway_contracts.events import UsageEvent

BASE_DSN = os.environ.get("TOLLWAY_TEST_POSTGRES_DSN", "postgresql://tollway:tollway@127.0.0.1:5432/tollway")
VALKEY_URL = os.environ.get("TOLLWAY_TEST_VALKEY_URL", "redis://127.0.0.1:6379/12")
TEAMS = ("team-a", "team-b", None)
MODELS = ("gpt-4o-mini", "gpt-4o", "claude-sonnet")
# Calls spread over month, day and hour boundaries (UTC).
ANCHORS = (
    datetime(2026, 9, 30, 22, 0, tzinfo=UTC),
    datetime(2026, 10, 1, 0, 0, tzinfo=UTC),
    datetime(2026, 10, 1, 13, 0, tzinfo=UTC),
    datetime(2026, 10, 17, 8, 0, tzinfo=UTC),
    datetime(2026, 11, 2, 23, 0, tzinfo=UTC),
)


def _with_db(dsn: str, name: str) -> str:
    parts = urlsplit(dsn)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))


def migrate(dsn: str) -> None:
    """Apply quota's then ledger's migrations (yoyo), as the services do at start."""
    import tollway_ledger
    import tollway_quota
    from tollway_runtime.migrations import apply_migrations

    apply_migrations(dsn, Path(tollway_quota.__file__).parent / "migrations")
    apply_migrations(dsn, Path(tollway_ledger.__file__).parent / "migrations")


def make_events(tenant_id: str, n: int, seed: int) -> list[UsageEvent]:
    """``n`` finished calls of ``tenant_id`` (started + terminal events each),
    deterministic from ``seed``; about 1 in 7 failed, some without a team."""
    rnd = random.Random(seed)
    events: list[UsageEvent] = []
    for i in range(n):
        ts = rnd.choice(ANCHORS) + timedelta(minutes=rnd.randrange(0, 150), seconds=rnd.randrange(60))
        team = rnd.choice(TEAMS)
        common = dict(
            request_id=uuid.uuid4(),
            tenant_id=tenant_id,
            team_id=team,
            user_id=None,
            key_id=f"{tenant_id[-4:]}key{rnd.randrange(3)}",
            ts_start=ts,
            model=rnd.choice(MODELS),
            provider="openai",
        )
        events.append(UsageEvent(type="started", **common))
        latency = rnd.choice([20.0, 70.0, 180.0, 420.0, 900.0, 2000.0, 70000.0])
        if i % 7 == 3:
            events.append(
                UsageEvent(
                    type="failed",
                    ts_end=ts + timedelta(milliseconds=latency),
                    status_code=502,
                    error_type="upstream_error",
                    attempts=2,
                    latency_ms=latency,
                    **common,
                )
            )
        else:
            p, c = rnd.randrange(1, 2000), rnd.randrange(1, 800)
            events.append(
                UsageEvent(
                    type="completed",
                    ts_end=ts + timedelta(milliseconds=latency),
                    status_code=200,
                    attempts=1,
                    prompt_tokens=p,
                    completion_tokens=c,
                    cached_tokens=p // 10,
                    reasoning_tokens=c // 5,
                    total_tokens=p + c,
                    cost_micro_usd=p * 3 + c * 12,
                    latency_ms=latency,
                    **common,
                )
            )
    return events


async def ledger_write(dsn: str, events: list[UsageEvent]) -> None:
    """Write events through the ledger's own pure handler and store (its COPY path)."""
    from tollway_ledger.handler import Message, handle
    from tollway_ledger.store import LedgerStore

    messages = [Message("tollway.usage.v1", 0, i, e.kafka_key(), e.to_json()) for i, e in enumerate(events)]
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=2)
    try:
        result = await LedgerStore(pool).apply(handle(messages, consumer_group="reporting-tests"))
        assert result.terminal_applied == sum(1 for e in events if e.type != "started")
    finally:
        await pool.close()


@dataclass
class ReportingEnv:
    """Everything a reporting test needs (urls without trailing slash)."""

    dsn: str
    reporting_url: str
    quota_url: str
    admin_token: str
    tenants: list[str]
    tokens: dict[str, str]  # tenant id -> reporting token
    token_ids: dict[str, str] = field(default_factory=dict)
    app: object = None

    def auth(self, token: str) -> dict[str, str]:
        """An Authorization header."""
        return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
async def reporting_env() -> AsyncIterator[ReportingEnv]:
    """A fresh database (quota + ledger migrations), the quota admin API, two
    tenants with one reporting token each, ~300 calls per tenant written by the
    ledger, and the reporting app on 127.0.0.1:<random>."""
    from tollway_quota.app import create_app as create_quota
    from tollway_quota.settings import QuotaSettings
    from tollway_reporting.app import create_app
    from tollway_reporting.settings import ReportingSettings

    name = f"test_reporting_{secrets.token_hex(6)}"
    admin = await asyncpg.connect(BASE_DSN)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    dsn = _with_db(BASE_DSN, name)
    admin_token, pepper = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    quota = reporting = None
    try:
        await asyncio.to_thread(migrate, dsn)
        quota = TestServer(
            create_quota(
                QuotaSettings(
                    postgres_dsn=dsn,
                    valkey_url=VALKEY_URL,
                    admin_token=admin_token,
                    key_pepper=pepper,
                    invalidation_channel=f"test:reporting:{secrets.token_hex(4)}",
                    consume_usage=False,
                    log_format="json",
                )
            ),
            host="127.0.0.1",
            port=0,
        )
        await quota.start_server()
        quota_url = str(quota.make_url("")).rstrip("/")
        tenants, tokens, token_ids = [], {}, {}
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {admin_token}"}) as http:
            for tname in ("acme", "globex"):
                async with http.post(f"{quota_url}/admin/v1/tenants", json={"name": tname}) as r:
                    assert r.status == 201, await r.text()
                    tenants.append((await r.json())["id"])
            for tid in tenants:
                async with http.post(
                    f"{quota_url}/admin/v1/reporting-tokens", json={"tenant_id": tid, "name": "dash"}
                ) as r:
                    assert r.status == 201, await r.text()
                    body = await r.json()
                    tokens[tid], token_ids[tid] = body["token"], body["id"]
        events = make_events(tenants[0], 300, seed=1) + make_events(tenants[1], 300, seed=2)
        # The second tenant reuses the first's team names on purpose: isolation
        # must come from tenant_id, not from distinct names.
        await ledger_write(dsn, events)
        settings = ReportingSettings(
            postgres_dsn=dsn,
            admin_token=admin_token,
            key_pepper=pepper,
            token_cache_seconds=0.0,
            log_format="json",
        )
        app = create_app(settings)
        reporting = TestServer(app, host="127.0.0.1", port=0)
        await reporting.start_server()
        yield ReportingEnv(
            dsn,
            str(reporting.make_url("")).rstrip("/"),
            quota_url,
            admin_token,
            tenants,
            tokens,
            token_ids,
            app,
        )
    finally:
        if reporting is not None:
            await reporting.close()
        if quota is not None:
            await quota.close()
        admin = await asyncpg.connect(BASE_DSN)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()
