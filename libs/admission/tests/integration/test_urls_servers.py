"""Every URL form against a real private redis-server: TLS (self-signed
certificate), a unix socket, a password (``requirepass``) and an ACL user, a
db number. Each form runs an admission through the pipelined client and
through redis-py's client built by :func:`valkey_client`."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tollway_admission import (
    Admission,
    PipelinedClient,
    ValkeyConnectionError,
    ValkeyResponseError,
    valkey_client,
)
from tollway_contracts.limits import Limit
from tollway_testing.valkey_servers import PrivateServers, free_port, make_self_signed_cert

pytestmark = pytest.mark.integration


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[PrivateServers]:
    s = PrivateServers(tmp_path)
    yield s
    s.stop()


async def _admits_through_both_clients(url: str) -> None:
    """Two admits against rpm=1 on the URL: the first admitted, the second refused,
    through PipelinedClient and through valkey_client's client (a NodeClient)."""
    tenant = f"t-{uuid.uuid4().hex[:8]}"
    limits = [Limit(scope="key", scope_id="k1", requests_per_minute=1)]
    fast = PipelinedClient(url, timeout=5)
    client = valkey_client(url, max_connections=4, timeout=5)
    try:
        adm = Admission(client, pipelined=fast)
        await adm.load()
        assert (await adm.admit(tenant_id=tenant, request_id="a", limits=limits)).admitted
        slow = Admission(client)
        assert (await slow.admit(tenant_id=tenant, request_id="b", limits=limits)).status == "refused"
        res = await adm.settle(tenant_id=tenant, request_id="a", tokens=0, cost_micro_usd=0)
        assert res.status == "settled"
    finally:
        await fast.aclose()
        await client.aclose()


async def test_tls_with_a_self_signed_certificate(servers: PrivateServers, tmp_path: Path) -> None:
    cert, key = make_self_signed_cert(tmp_path)
    port = free_port()
    servers.start(
        "--port",
        "0",
        "--tls-port",
        str(port),
        "--tls-cert-file",
        str(cert),
        "--tls-key-file",
        str(key),
        "--tls-ca-cert-file",
        str(cert),
        "--tls-auth-clients",
        "no",
        "--requirepass",
        "tls-pw",
    )
    servers.wait("--tls", "--cacert", str(cert), "-p", str(port), "-a", "tls-pw", "--no-auth-warning")
    # Verified against the certificate (its own CA), host name checked.
    await _admits_through_both_clients(f"rediss://:tls-pw@127.0.0.1:{port}/2?ssl_ca_certs={cert}")
    # redis-py's ssl_cert_reqs=none is honoured too.
    await _admits_through_both_clients(f"rediss://:tls-pw@127.0.0.1:{port}?ssl_cert_reqs=none")
    # Verification is on by default: an unknown CA is refused, never silently accepted.
    fast = PipelinedClient(f"rediss://:tls-pw@127.0.0.1:{port}", timeout=5)
    try:
        with pytest.raises(ValkeyConnectionError, match="CERTIFICATE_VERIFY_FAILED"):
            await fast.execute("PING")
    finally:
        await fast.aclose()


async def test_unix_socket(servers: PrivateServers, tmp_path: Path) -> None:
    sock = tmp_path / "valkey.sock"
    servers.start("--port", "0", "--unixsocket", str(sock), "--unixsocketperm", "700")
    servers.wait("-s", str(sock))
    await _admits_through_both_clients(f"unix://{sock}?db=3")
    fast = PipelinedClient(f"unix://{sock}?db=3&client_name=tollway-test", timeout=5)
    try:
        assert await fast.execute("CLIENT", "GETNAME") == b"tollway-test"
        await fast.execute("SET", "probe", "1")
        assert await fast.execute("EXISTS", "probe") == 1
    finally:
        await fast.aclose()
    # The key went to db 3, not db 0.
    fast0 = PipelinedClient(f"unix://{sock}", timeout=5)
    try:
        assert await fast0.execute("EXISTS", "probe") == 0
    finally:
        await fast0.aclose()


async def test_password_and_acl_user(servers: PrivateServers) -> None:
    port = servers.start("--requirepass", "pw-default")
    servers.wait("-p", str(port), "-a", "pw-default", "--no-auth-warning")
    await _admits_through_both_clients(f"redis://:pw-default@127.0.0.1:{port}/5")
    admin = PipelinedClient(f"redis://:pw-default@127.0.0.1:{port}", timeout=5)
    try:
        await admin.execute("ACL", "SETUSER", "edge", "on", ">edge-pw", "~*", "+@all")
    finally:
        await admin.aclose()
    await _admits_through_both_clients(f"redis://edge:edge-pw@127.0.0.1:{port}/1")
    # A wrong password fails at connect with the server's error, not later.
    bad = PipelinedClient(f"redis://:wrong@127.0.0.1:{port}", timeout=5)
    with pytest.raises(ValkeyResponseError, match="WRONGPASS|invalid"):
        await bad.execute("PING")
    # No password: the command is refused by the server.
    anon = PipelinedClient(f"redis://127.0.0.1:{port}", timeout=5)
    try:
        with pytest.raises(ValkeyResponseError, match="NOAUTH"):
            await anon.execute("PING")
    finally:
        await anon.aclose()
