"""Fixtures of the quota tests: a fresh Postgres database per test module and a
live quota server on a random port (real Postgres and Valkey; no fakes).

Replace with tollway_testing's ``fresh_database``/``valkey`` once the infra
branch lands them.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from aiohttp.test_utils import TestServer

ADMIN_DSN = os.environ.get("TOLLWAY_TEST_POSTGRES_DSN", "postgresql://tollway:tollway@127.0.0.1:5432/tollway")
VALKEY_URL = os.environ.get("TOLLWAY_TEST_VALKEY_URL", "redis://127.0.0.1:6379/11")


def _with_db(dsn: str, name: str) -> str:
    parts = urlsplit(dsn)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))


@pytest.fixture(scope="module")
def quota_fresh_dsn() -> Iterator[str]:
    """A DSN of a database created for this module and dropped after it."""
    name = f"test_quota_{secrets.token_hex(6)}"
    with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield _with_db(ADMIN_DSN, name)
    finally:
        with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@dataclass
class QuotaServer:
    """A running quota app: ``url`` (no trailing slash), its settings' secrets."""

    url: str
    dsn: str
    token: str
    pepper: str
    channel: str
    valkey_url: str


@pytest.fixture(scope="module")
async def quota_server(quota_fresh_dsn: str) -> AsyncIterator[QuotaServer]:
    """The quota app built by ``create_app`` and served on 127.0.0.1:<random>."""
    from tollway_quota.app import create_app
    from tollway_quota.settings import QuotaSettings

    token = secrets.token_urlsafe(24)
    pepper = secrets.token_urlsafe(24)
    channel = f"test:quota:invalidate:{secrets.token_hex(6)}"
    settings = QuotaSettings(
        postgres_dsn=quota_fresh_dsn,
        valkey_url=VALKEY_URL,
        admin_token=token,
        key_pepper=pepper,
        invalidation_channel=channel,
        consume_usage=False,
        reconcile_expired=False,
        log_format="json",
    )
    server = TestServer(create_app(settings), host="127.0.0.1", port=0)
    await server.start_server()
    try:
        yield QuotaServer(
            str(server.make_url("")).rstrip("/"), quota_fresh_dsn, token, pepper, channel, VALKEY_URL
        )
    finally:
        await server.close()


KAFKA = os.environ.get("TOLLWAY_TEST_KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092")


@dataclass
class QuotaTopics:
    """Unique Kafka names for one test: usage, DLQ and alerts topics, a group."""

    usage: str
    dlq: str
    alerts: str
    group: str
    bootstrap: str = KAFKA


@pytest.fixture
async def quota_topics() -> AsyncIterator[QuotaTopics]:
    """Creates three unique topics (2 partitions each) and deletes them after."""
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    suffix = secrets.token_hex(5)
    topics = QuotaTopics(
        f"test.quota.usage.{suffix}",
        f"test.quota.dlq.{suffix}",
        f"test.quota.alerts.{suffix}",
        f"test-quota-{suffix}",
    )
    names = [topics.usage, topics.dlq, topics.alerts]
    admin = AIOKafkaAdminClient(bootstrap_servers=KAFKA)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(n, num_partitions=2, replication_factor=1) for n in names])
        yield topics
    finally:
        try:
            await admin.delete_topics(names)
        finally:
            await admin.close()
