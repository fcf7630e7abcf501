"""The chart ships the dashboards (ConfigMaps for Grafana's sidecar) and the
alert rules (a PrometheusRule), each only when its value is on."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "deploy"))  # the deploy checks' helm helpers

from deploy_support import CHART, helm_template  # noqa: E402

pytestmark = pytest.mark.unit

FILES = CHART / "files"


def _objects(*sets: str) -> list[dict]:
    return [d for d in yaml.safe_load_all(helm_template([], *sets).stdout) if d]


def test_off_by_default() -> None:
    kinds = {(o["kind"], o["metadata"]["name"]) for o in _objects()}
    assert not any(k == "PrometheusRule" or "dashboard" in n for k, n in kinds)


def test_dashboards_and_rules_ship_when_enabled() -> None:
    objects = _objects(
        "observability.dashboards.enabled=true",
        "observability.alerts.enabled=true",
        "observability.alerts.labels.release=prom",
    )
    dashboards = {
        key: json.loads(value)
        for o in objects
        if o["kind"] == "ConfigMap" and o["metadata"]["labels"].get("grafana_dashboard") == "1"
        for key, value in o["data"].items()
    }
    on_disk = {p.name: json.loads(p.read_text()) for p in (FILES / "dashboards").glob("*.json")}
    assert dashboards == on_disk and len(on_disk) == 3
    (rule,) = [o for o in objects if o["kind"] == "PrometheusRule"]
    assert rule["metadata"]["labels"]["release"] == "prom"
    assert rule["spec"] == yaml.safe_load((FILES / "alerts" / "tollway-rules.yaml").read_text())
