"""The two-process exactness tests of ``test_admission_processes.py`` on a
three-node Valkey Cluster: both edge processes get
``TOLLWAY_VALKEY_URL=redis+cluster://...`` (admission through redis-py's
``RedisCluster``, slot-routed by the tenant hash tag) and must still admit
exactly N of 300 concurrent calls against a budget, an rpm and a concurrency
limit. Same test bodies; only the Valkey they run on differs."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from tollway_admission import valkey_client
from tollway_testing.valkey_servers import PrivateServers

from . import test_admission_processes as _base

pytestmark = pytest.mark.integration

two_edges = _base.two_edges
for _name in dir(_base):
    if _name.startswith("test_"):
        globals()[_name] = getattr(_base, _name)


@pytest.fixture(scope="module")
def _cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    servers = PrivateServers(tmp_path_factory.mktemp("edge-cluster"))
    try:
        ports = servers.cluster(3)
        yield f"redis+cluster://127.0.0.1:{ports[0]}"
    finally:
        servers.stop()


@pytest.fixture
def valkey_test_url(_cluster: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The edges' Valkey is the cluster; the tests' own reads go through a cluster client too."""
    monkeypatch.setattr(_base, "aioredis", SimpleNamespace(from_url=lambda url: valkey_client(url)))
    return _cluster
