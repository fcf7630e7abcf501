"""Fixtures for tollway_admission tests: real Valkey, unique tenants, a movable clock.

Valkey comes from ``TOLLWAY_VALKEY_URL`` (default ``redis://127.0.0.1:6379``),
on logical db ``TOLLWAY_ADMISSION_TEST_DB`` (default 13, never 0). Every test
uses its own tenant id, so every key it touches is its own (``tw:{<tenant>}:``);
nothing is flushed. Tests touch only keys of their tenants and delete them after.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
import pytest_asyncio
import redis.asyncio as aioredis


def _admission_url() -> str:
    base = os.environ.get("TOLLWAY_VALKEY_URL", "redis://127.0.0.1:6379").rstrip("/")
    base = base.rsplit("/", 1)[0] if base.count("/") > 2 else base
    db = int(os.environ.get("TOLLWAY_ADMISSION_TEST_DB", "13"))
    assert db != 0, "admission tests never use db 0"
    return f"{base}/{db}"


class MovableClock:
    """The injectable clock: returns ``self.now``; tests move it."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kw: float) -> None:
        self.now = self.now + timedelta(**kw)


@pytest_asyncio.fixture
async def adm_redis() -> AsyncIterator[aioredis.Redis]:
    """A client with its own connection pool."""
    client = aioredis.from_url(_admission_url(), socket_connect_timeout=5, max_connections=400)
    try:
        await client.ping()
    except Exception as exc:  # noqa: BLE001
        pytest.fail(
            f"Valkey unreachable at {_admission_url()} ({exc}); set TOLLWAY_VALKEY_URL", pytrace=False
        )
    yield client
    await client.aclose()


@pytest_asyncio.fixture
async def adm_redis2() -> AsyncIterator[aioredis.Redis]:
    """A second client with a separate connection pool (another 'edge process')."""
    client = aioredis.from_url(_admission_url(), socket_connect_timeout=5, max_connections=400)
    yield client
    await client.aclose()


@pytest_asyncio.fixture
async def adm_tenant(adm_redis: aioredis.Redis) -> AsyncIterator[str]:
    """A tenant id unique to this test; its keys are deleted afterwards."""
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    yield tenant
    keys = [k async for k in adm_redis.scan_iter(match=f"tw:{{{tenant}}}:*", count=1000)]
    if keys:
        await adm_redis.delete(*keys)


@pytest.fixture
def adm_clock() -> MovableClock:
    """Clock at a fixed instant mid-minute, mid-month (UTC)."""
    return MovableClock(datetime(2026, 3, 10, 12, 0, 20, tzinfo=UTC))
