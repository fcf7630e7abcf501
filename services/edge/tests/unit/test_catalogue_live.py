"""The live catalogue's watcher (``tollway_edge.catalogue_live``) on files laid
out as Kubernetes mounts a ConfigMap (the file a symlink through ``..data``,
swapped atomically), SIGHUP, and what a reload keeps: unchanged providers'
upstreams, the previous catalogue on a bad file."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

import yaml
from prometheus_client import REGISTRY

from tollway_contracts.catalogue import parse_catalogue, version_of
from tollway_edge.auth import Snapshot
from tollway_edge.catalogue_live import CatalogueWatcher
from tollway_edge.routing.upstream import close_upstreams, open_upstreams
from tollway_edge.state import EdgeState


def _catalogue(price: int, b_url: str = "http://127.0.0.1:9/b/v1") -> bytes:
    doc: dict[str, Any] = {
        "version": 1,
        "providers": {"a": {"base_url": "http://127.0.0.1:9/a/v1"}, "b": {"base_url": b_url}},
        "models": {
            "m": {
                "prices": {"input": price, "output": price},
                "routes": [{"provider": "a", "upstream_model": "x"}],
            }
        },
    }
    return yaml.safe_dump(doc).encode()


class ConfigMap:
    """A ConfigMap volume: ``catalogue.yaml -> ..data/catalogue.yaml``, ``..data -> ..<n>``."""

    def __init__(self, root: Path) -> None:
        self.root, self.n = root, 0

    def publish(self, data: bytes) -> None:
        self.n += 1
        target = self.root / f"..{self.n}"
        target.mkdir()
        (target / "catalogue.yaml").write_bytes(data)
        link = self.root / "..data_tmp"
        link.symlink_to(target.name)
        os.replace(link, self.root / "..data")  # the atomic swap kubelet does
        if not (self.root / "catalogue.yaml").is_symlink():
            (self.root / "catalogue.yaml").symlink_to("..data/catalogue.yaml")

    @property
    def path(self) -> str:
        return str(self.root / "catalogue.yaml")


def _reloads(outcome: str) -> float:
    return REGISTRY.get_sample_value("tollway_catalogue_reload_total", {"outcome": outcome}) or 0.0


async def test_configmap_swap_sighup_and_a_bad_file(tmp_path: Path) -> None:
    cm = ConfigMap(tmp_path)
    data = _catalogue(100)
    cm.publish(data)
    state = EdgeState(
        catalogue=parse_catalogue(data),
        snapshot=Snapshot(10),
        sync=None,
        pepper=b"",
        journal=None,  # type: ignore[arg-type]  # not used by the watcher
        catalogue_version=version_of(data),
    )
    state.upstreams = await open_upstreams(state.catalogue)
    watcher = CatalogueWatcher(state, cm.path, interval_seconds=60, retire_seconds=0)
    await watcher.start()
    try:
        assert await watcher.check() is False  # nothing changed
        old_a, old_b = state.upstreams["a"], state.upstreams["b"]

        cm.publish(_catalogue(200, b_url="http://127.0.0.1:9/b2/v1"))
        reloaded = _reloads("reloaded")
        assert await watcher.check() is True
        assert state.catalogue.models["m"].prices.input == 200
        assert state.catalogue_version == version_of(_catalogue(200, b_url="http://127.0.0.1:9/b2/v1"))
        assert state.upstreams["a"] is old_a  # unchanged provider: its pool kept
        assert state.upstreams["b"] is not old_b and str(state.upstreams["b"].base_url).endswith("/b2/v1")
        assert _reloads("reloaded") == reloaded + 1
        await asyncio.sleep(0.05)
        assert old_b.client.closed  # retired (after retire_seconds = 0)

        version = state.catalogue_version
        invalid = _reloads("invalid")
        cm.publish(b"providers: {a: {base_url: not-a-url}}\nmodels: {}\n")
        assert await watcher.check() is False
        assert state.catalogue_version == version and state.catalogue.models["m"].prices.input == 200
        assert _reloads("invalid") == invalid + 1
        assert await watcher.check() is False  # the same bad file is not read again
        assert _reloads("invalid") == invalid + 1

        # SIGHUP checks at once (the poll interval here is a minute)
        cm.publish(_catalogue(300, b_url="http://127.0.0.1:9/b2/v1"))
        os.kill(os.getpid(), signal.SIGHUP)
        for _ in range(100):
            if state.catalogue.models["m"].prices.input == 300:
                break
            await asyncio.sleep(0.02)
        assert state.catalogue.models["m"].prices.input == 300
    finally:
        await watcher.stop()
        await close_upstreams(state.upstreams)
