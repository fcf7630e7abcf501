"""Valkey URLs: every form redis-py accepts, or a clear ValueError at start."""

from __future__ import annotations

import ssl

import pytest

from tollway_admission import PipelinedClient, mask_url, node_url, parse_valkey_url

pytestmark = pytest.mark.unit


def test_tcp_with_user_password_and_db() -> None:
    t = parse_valkey_url("redis://alice:s3cret@10.0.0.5:6380/4")
    assert (t.host, t.port, t.path, t.db, t.username, t.password) == (
        "10.0.0.5",
        6380,
        None,
        4,
        "alice",
        "s3cret",
    )
    assert not t.cluster and t.ssl_context is None
    assert t.masked == "redis://alice:***@10.0.0.5:6380/4"


def test_defaults_and_password_only() -> None:
    t = parse_valkey_url("redis://:pw@h")
    assert (t.host, t.port, t.db, t.username, t.password) == ("h", 6379, 0, None, "pw")


def test_tls_uses_redis_py_options_and_verifies_by_default() -> None:
    t = parse_valkey_url("rediss://h:6390")
    assert t.ssl_context is not None and t.ssl_context.verify_mode == ssl.CERT_REQUIRED and t.check_hostname
    t = parse_valkey_url("rediss://h:6390?ssl_cert_reqs=none")
    assert t.ssl_context is not None and t.ssl_context.verify_mode == ssl.CERT_NONE and not t.check_hostname


def test_unix_socket_with_db() -> None:
    t = parse_valkey_url("unix://:pw@/run/valkey.sock?db=3&client_name=edge")
    assert (t.path, t.db, t.password, t.client_name, t.host) == ("/run/valkey.sock", 3, "pw", "edge", "")


def test_cluster_marker() -> None:
    t = parse_valkey_url("redis+cluster://:pw@127.0.0.1:7000")
    assert t.cluster and t.url == "redis://:pw@127.0.0.1:7000" and t.port == 7000
    assert parse_valkey_url("rediss+cluster://h:7000?ssl_cert_reqs=none").ssl_context is not None
    assert node_url("redis+cluster://h:7000") == "redis://h:7000"
    assert node_url("redis://h/2") == "redis://h/2"


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("valkey://u:topsecret@h:6379", "'valkey'"),
        ("http://h", "'http'"),
        ("h:6379", "(none)"),
        ("unix+cluster:///x.sock", "'unix+cluster'"),
        ("redis://:topsecret@h?cluster=true", "cluster"),
        ("rediss://:topsecret@h?ssl_cert_reqs=sometimes", "sometimes"),
        ("redis+cluster://:topsecret@h:7000/2", "only db 0"),
        ("redis://:topsecret@h?db=x", "redis://:***@h?db=x"),
    ],
)
def test_refused_with_a_clear_error_and_the_password_masked(url: str, says: str) -> None:
    with pytest.raises(ValueError, match="Valkey URL|cluster") as info:
        parse_valkey_url(url)
    assert says in str(info.value)
    assert "topsecret" not in str(info.value)


def test_pipelined_client_refuses_cluster_and_resp3_at_construction() -> None:
    with pytest.raises(ValueError, match=r"cluster URL.*valkey_client") as info:
        PipelinedClient("redis+cluster://:topsecret@h:7000")
    assert "topsecret" not in str(info.value)
    with pytest.raises(ValueError, match="RESP2"):
        PipelinedClient("redis://h?protocol=3")
    with pytest.raises(ValueError, match="'memcached'"):
        PipelinedClient("memcached://h")


def test_mask_url() -> None:
    assert mask_url("redis://h:1/0") == "redis://h:1/0"
    assert mask_url("redis://u:p@h:1/0") == "redis://u:***@h:1/0"
    assert mask_url("unix://:p@/tmp/s.sock") == "unix://:***@/tmp/s.sock"
