"""Helpers of the deployment checks (imported by the tests; conftest.py puts
this folder on sys.path, since pytest's importlib mode does not): the chart
rendered by a real `helm`, and the service images in their podman storage.

`infra/deploy-check.sh` runs these tests with TOLLWAY_REQUIRE_HELM=1 (a
missing helm fails instead of skipping) and TOLLWAY_IMAGE_SMOKE=1 (the image
smoke tests run; without it they skip, so `bash infra/test.sh` never starts
stale images left from an earlier build).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "k8s"
CACHE = Path(os.environ.get("TOLLWAY_CACHE") or Path.home() / ".cache" / "tollway")
KUBE_VERSION = "1.34.0"
SERVICES = ("edge", "redactor", "quota", "ledger", "reporting")

# Values files the chart must render with: the defaults and every example.
VALUES_FILES: dict[str, list[Path]] = {"default": []} | {
    p.stem: [p] for p in sorted((CHART / "examples").glob("*.yaml"))
}


def helm_binary() -> str:
    """The helm CLI: $TOLLWAY_HELM, the one infra/deploy-check.sh builds, or helm on PATH."""
    candidates = [os.environ.get("TOLLWAY_HELM"), str(CACHE / "go" / "bin" / "helm"), shutil.which("helm")]
    for c in candidates:
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return c
    message = "no helm binary (bash infra/deploy-check.sh chart builds it into ~/.cache/tollway/go/bin)"
    if os.environ.get("TOLLWAY_REQUIRE_HELM") == "1":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def helm_template(values: list[Path], *sets: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """`helm template tollway k8s` with the values files and `--set` arguments."""
    cmd = [helm_binary(), "template", "tollway", str(CHART), "--namespace", "tollway"]
    cmd += ["--kube-version", KUBE_VERSION]
    for v in values:
        cmd += ["-f", str(v)]
    for s in sets:
        cmd += ["--set", s]
    return subprocess.run(cmd, capture_output=True, text=True, check=check, timeout=120)


class Rendered:
    """The objects of one render, with lookups by kind and name."""

    def __init__(self, label: str, text: str) -> None:
        self.label = label
        self.text = text
        self.objects: list[dict[str, Any]] = [d for d in yaml.safe_load_all(text) if d]

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [o for o in self.objects if o["kind"] == kind]

    def get(self, kind: str, name: str) -> dict[str, Any]:
        for o in self.of_kind(kind):
            if o["metadata"]["name"] == name:
                return o
        raise KeyError(f"{self.label}: no {kind} {name}")

    def workloads(self) -> list[dict[str, Any]]:
        return self.of_kind("Deployment") + self.of_kind("StatefulSet")

    def workload(self, service: str) -> dict[str, Any]:
        for w in self.workloads():
            if w["metadata"]["labels"].get("app.kubernetes.io/component") == service:
                return w
        raise KeyError(f"{self.label}: no workload for {service}")


_renders: dict[str, Rendered] = {}


def render(label: str) -> Rendered:
    """The chart rendered with one values file (cached per session)."""
    if label not in _renders:
        _renders[label] = Rendered(label, helm_template(VALUES_FILES[label]).stdout)
    return _renders[label]


def env_of(container: dict[str, Any]) -> dict[str, Any]:
    """A container's env as name -> value (or the valueFrom dict)."""
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container.get("env", [])}


# --- images -------------------------------------------------------------------------


def podman_env() -> dict[str, str]:
    """Environment for podman: the storage infra/deploy-check.sh keeps outside the repository."""
    conf = os.environ.get("CONTAINERS_STORAGE_CONF") or str(CACHE / "podman" / "storage.conf")
    return {**os.environ, "CONTAINERS_STORAGE_CONF": conf}


def podman(*args: str) -> str:
    out = subprocess.run(["podman", *args], capture_output=True, text=True, env=podman_env(), timeout=120)
    if out.returncode != 0:
        raise RuntimeError(f"podman {' '.join(args)} failed: {out.stderr.strip()}")
    return out.stdout


def image_ref(service: str) -> str:
    tag = os.environ.get("TOLLWAY_IMAGE_TAG", "ci")
    return f"localhost/tollway-{service}:{tag}"


def image_config(service: str) -> dict[str, Any]:
    data = json.loads(podman("image", "inspect", image_ref(service)))
    return dict(data[0]["Config"])
