"""Every alert rule and every dashboard query parses (promtool), the
dashboards and the alert rules only query metrics that the code defines, and
each alert fires on the series it is meant for and not on a near miss
(``promtool test rules`` over alert-rules.test.yaml). A bad expression fails
the build.

promtool comes from Debian's ``prometheus`` package (infra/install.sh); the
test skips only when it is missing.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
FILES = ROOT / "k8s" / "files"
RULES = FILES / "alerts" / "tollway-rules.yaml"
RULE_TESTS = Path(__file__).resolve().parent / "alert-rules.test.yaml"
DASHBOARDS = sorted((FILES / "dashboards").glob("*.json"))
SOURCES = [ROOT / "services", ROOT / "libs"]


def _promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        pytest.skip("promtool missing: bash infra/install.sh installs Debian's prometheus package")
    return found


def _panels(dashboard: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for panel in dashboard["panels"]:
        out.append(panel)
        out.extend(panel.get("panels", []))
    return out


def _expressions() -> list[tuple[str, str]]:
    """(dashboard / panel / refId, expr) of every dashboard query."""
    exprs = []
    for path in DASHBOARDS:
        for panel in _panels(json.loads(path.read_text())):
            for target in panel.get("targets", []):
                exprs.append((f"{path.name} / {panel['title']} / {target['refId']}", target["expr"]))
    return exprs


def _defined_metrics() -> set[str]:
    """Metric families defined in the code (``Counter("name"`` ... or a collector's family)."""
    names = set()
    pattern = re.compile(r'(?:Counter|Histogram|Gauge|MetricFamily)\(\s*"(tollway_[a-z_]+)"', re.S)
    for root in SOURCES:
        for source in root.rglob("*.py"):
            if ".venv" in source.parts:
                continue
            for name in pattern.findall(source.read_text()):
                names.add(name.removesuffix("_total"))
    return names


def test_alert_rules_parse() -> None:
    result = subprocess.run([_promtool(), "check", "rules", str(RULES)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_alerts_fire_on_their_series_and_not_on_near_misses() -> None:
    """promtool's unit tests of the rules: breaker open, consumer lag (high,
    growing), local and refuse admission mode, journal growing and full,
    redactor failing closed, error rate, overhead p99 — labels and rendered
    annotations included."""
    tests = yaml.safe_load(RULE_TESTS.read_text())
    tested = {t["alertname"] for case in tests["tests"] for t in case["alert_rule_test"]}
    assert tested >= {
        "TollwayBreakerOpen",
        "TollwayConsumerLagHigh",
        "TollwayConsumerLagGrowing",
        "TollwayAdmissionLocalMode",
        "TollwayJournalGrowing",
        "TollwayJournalFull",
        "TollwayRedactorFailingClosed",
        "TollwayHighErrorRate",
        "TollwayOverheadP99High",
    }
    result = subprocess.run(
        [_promtool(), "test", "rules", str(RULE_TESTS)], capture_output=True, text=True, cwd=RULE_TESTS.parent
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_alert_rules_query_metrics_the_code_defines() -> None:
    """No rule watches a metric nothing exports (it would stay silent forever)."""
    defined = _defined_metrics()
    suffix = re.compile(r"_(bucket|sum|count|total)$")
    rules = yaml.safe_load(RULES.read_text())
    for group in rules["groups"]:
        for rule in group["rules"]:
            for name in re.findall(r"\btollway_[a-z_]+", rule["expr"]):
                base = suffix.sub("", name)
                assert base in defined or suffix.sub("", base) in defined, (rule.get("alert"), name)


def test_every_dashboard_query_parses(tmp_path: Path) -> None:
    exprs = _expressions()
    assert len(exprs) >= 20
    rules = {
        "groups": [
            {
                "name": "dashboard-queries",
                "rules": [
                    {"record": f"tollway:dashboard_query_{i}", "expr": e} for i, (_, e) in enumerate(exprs)
                ],
            }
        ]
    }
    path = tmp_path / "dashboard-queries.yaml"
    path.write_text(yaml.safe_dump(rules, sort_keys=False))
    result = subprocess.run([_promtool(), "check", "rules", str(path)], capture_output=True, text=True)
    where = {f"tollway:dashboard_query_{i}": w for i, (w, _) in enumerate(exprs)}
    assert result.returncode == 0, (result.stdout + result.stderr, where)


def test_dashboards_query_metrics_the_code_defines() -> None:
    defined = _defined_metrics()
    assert {"tollway_requests", "tollway_consumer_lag_messages", "tollway_ledger_events"} <= defined
    suffix = re.compile(r"_(bucket|sum|count|total)$")
    for where, expr in _expressions():
        for name in re.findall(r"\btollway_[a-z_]+", expr):
            base = suffix.sub("", name)
            assert base in defined or suffix.sub("", base) in defined, (where, name)


def test_dashboards_are_grafana_json() -> None:
    assert {p.stem for p in DASHBOARDS} >= {"tollway-gateway", "tollway-bus", "tollway-ledger"}
    uids = set()
    for path in DASHBOARDS:
        d = json.loads(path.read_text())
        assert d["uid"] not in uids and d["title"].startswith("Tollway")
        uids.add(d["uid"])
        ids = [p["id"] for p in _panels(d)]
        assert len(ids) == len(set(ids)), path.name


def test_every_alert_is_explained_in_the_operations_doc() -> None:
    doc = (ROOT / "docs" / "operations.md").read_text()
    rules = yaml.safe_load(RULES.read_text())
    alerts = [r["alert"] for g in rules["groups"] for r in g["rules"] if "alert" in r]
    assert alerts
    for alert in alerts:
        assert f"### {alert}" in doc, alert
