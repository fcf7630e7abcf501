"""parse_valkey_url (no redis-py) accepts and reads a URL exactly as redis-py does.

The reference is redis-py itself: its ``parse_url`` and the connection class it
picks, built with the URL's options (what ``from_url`` does). A URL redis-py
accepts must parse to the same host, port, path, db, credentials, client name
and TLS verification; a URL it refuses must be refused (a ValueError naming it).
"""

from __future__ import annotations

import ssl
from typing import Any

import pytest
from redis.asyncio.connection import Connection, SSLConnection, UnixDomainSocketConnection, parse_url

from tollway_admission import parse_valkey_url

pytestmark = pytest.mark.unit


def _redis_py(url: str) -> dict[str, Any] | None:
    """What redis-py makes of ``url``: the connection's fields, or None if it refuses it."""
    try:
        opts = dict(parse_url(url))
        cls = opts.pop("connection_class", Connection)
        for name in ("max_connections", "timeout"):
            opts.pop(name, None)
        conn = cls(**opts)
        ctx = conn.ssl_context.get() if isinstance(conn, SSLConnection) else None
    except Exception:  # noqa: BLE001 - any refusal (TypeError, ValueError, RedisError, OSError)
        return None
    unix = isinstance(conn, UnixDomainSocketConnection)
    return {
        "path": conn.path if unix else None,
        "host": "" if unix else conn.host,
        "port": 0 if unix else int(conn.port),
        "db": int(conn.db),
        "username": conn.username,
        "password": conn.password,
        "client_name": conn.client_name,
        "verify": None if ctx is None else (ctx.verify_mode, ctx.check_hostname),
    }


URLS = [
    "redis://h",
    "redis://h:6380",
    "redis://h:6380/3",
    "redis://h/3?db=5",
    "redis://:pw@h",
    "redis://alice:s%40cret@h:1/2",
    "redis://alice@h",
    "redis://h?client_name=edge&socket_timeout=2.5&health_check_interval=10",
    "redis://h?decode_responses=true&encoding=latin-1&retry_on_timeout=no",
    "redis://h?socket_keepalive=false&socket_connect_timeout=1",
    "redis://h?protocol=2",
    "redis://h?protocol=3",
    "redis://h?protocol=4",
    "redis://h?protocol=x",
    "redis://h?db=x",
    "redis://h/x",
    "redis://h?max_connections=10&timeout=3",
    "redis://h?max_connections=ten",
    "redis://h?cluster=true",
    "redis://h?path=/x.sock",
    "redis://h?ssl_cert_reqs=none",
    "redis://[::1]:6390/1",
    "rediss://h",
    "rediss://h:6390?ssl_cert_reqs=none",
    "rediss://h:6390?ssl_cert_reqs=optional",
    "rediss://h:6390?ssl_cert_reqs=required&ssl_check_hostname=false",
    "rediss://h?ssl_cert_reqs=sometimes",
    "rediss://h?ssl_include_verify_flags=VERIFY_X509_STRICT",
    "rediss://h?ssl_include_verify_flags=NOT_A_FLAG",
    "rediss://h?ssl_ca_certs=/nonexistent/ca.pem",
    "rediss://h?ssl_min_version=771",
    "rediss://h?ssl_ciphers=HIGH",
    "unix:///run/valkey.sock",
    "unix://:pw@/run/valkey.sock?db=3&client_name=edge",
    "unix:///run/valkey.sock?host=x",
    "unix:///run/valkey.sock?ssl_cert_reqs=none",
    "valkey://h",
    "http://h",
]


@pytest.mark.parametrize("url", URLS)
def test_same_verdict_and_fields_as_redis_py(url: str) -> None:
    expected = _redis_py(url)
    if expected is None:
        with pytest.raises(ValueError, match="Valkey URL"):
            parse_valkey_url(url)
        return
    t = parse_valkey_url(url)
    got = {
        "path": t.path,
        "host": t.host,
        "port": t.port,
        "db": t.db,
        "username": t.username,
        "password": t.password,
        "client_name": t.client_name,
        "verify": None
        if t.ssl_context is None
        else (t.ssl_context.verify_mode, t.ssl_context.check_hostname),
    }
    assert got == expected


def test_tls_context_matches_redis_py_defaults() -> None:
    ctx = parse_valkey_url("rediss://h").ssl_context
    assert ctx is not None and ctx.verify_mode == ssl.CERT_REQUIRED and ctx.check_hostname
    ctx = parse_valkey_url("rediss://h?ssl_min_version=771").ssl_context
    assert ctx is not None and ctx.minimum_version == ssl.TLSVersion.TLSv1_2


def test_object_options_are_refused_at_start() -> None:
    """Options redis-py takes as Python objects would be strings from a URL (redis-py
    fails on them at the first command); refused here when the URL is read."""
    with pytest.raises(ValueError, match="'retry' needs a Python object"):
        parse_valkey_url("redis://:topsecret@h?retry=3")
