"""End-to-end fixtures: the RUNNING local stack (``bash infra/up.sh``), black box.

Everything comes from the environment ``infra/test.sh`` exports
(``.tollway/stack.env`` and ``.tollway/dev.env``); a missing variable fails the
test with what to run, never skips it.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator

import asyncpg
import httpx
import pytest
import pytest_asyncio


def _need(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: run `bash infra/up.sh`, then `bash infra/test.sh`", pytrace=False)
    return value


@pytest.fixture(scope="session")
def stack_env() -> dict[str, str]:
    """The running stack's addresses and the demo credentials."""
    return {
        "base_url": _need("OPENAI_BASE_URL"),
        "api_key": _need("OPENAI_API_KEY"),
        "admin_token": _need("TOLLWAY_ADMIN_TOKEN"),
        "admin_url": os.environ.get("TOLLWAY_ADMIN_URL", "http://127.0.0.1:8082"),
        "postgres_dsn": _need("TOLLWAY_POSTGRES_DSN"),
        # TOLLWAY_FAKE_PROVIDER_URL is the OpenAI base URL (ends in /v1); the
        # provider's test endpoints (/_fake/...) sit at its root.
        "fake_provider_url": os.environ.get(
            "TOLLWAY_FAKE_PROVIDER_URL", "http://127.0.0.1:9000/v1"
        ).removesuffix("/v1"),
        "kafka": os.environ.get("TOLLWAY_KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092"),
    }


@pytest_asyncio.fixture
async def ledger_db(stack_env: dict[str, str]) -> AsyncIterator[asyncpg.Connection]:
    """A connection to the stack's database (the ledger schema lives there)."""
    conn = await asyncpg.connect(stack_env["postgres_dsn"])
    try:
        yield conn
    finally:
        await conn.close()


@pytest_asyncio.fixture
async def admin(stack_env: dict[str, str]) -> AsyncIterator[httpx.AsyncClient]:
    """An httpx client for the quota admin API, authenticated with the admin token."""
    async with httpx.AsyncClient(
        base_url=stack_env["admin_url"],
        headers={"Authorization": f"Bearer {stack_env['admin_token']}"},
        timeout=10,
    ) as client:
        yield client
