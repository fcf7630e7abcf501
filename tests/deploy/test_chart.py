"""The Helm chart, rendered by a real helm with the default values and every
example: what users rely on holds in the rendered objects, not in the values.

- every object passes the Kubernetes API's JSON schema (1.34, strict); the
  two CRD kinds (Strimzi KafkaTopic, Prometheus Operator ServiceMonitor) get
  the checks below instead;
- each workload probes /healthz and /readyz on its own port, runs non-root
  with no privilege escalation, and gets a termination grace period that
  covers its stop sequence;
- the HPAs, PDBs, Services and NetworkPolicies point at what exists;
- every TOLLWAY_* variable the chart sets is a setting the service reads.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
from deploy_support import (
    CHART,
    KUBE_VERSION,
    ROOT,
    SERVICES,
    VALUES_FILES,
    Rendered,
    env_of,
    helm_binary,
    helm_template,
)
from pydantic_settings import BaseSettings

pytestmark = pytest.mark.unit

CRD_KINDS = {"KafkaTopic", "ServiceMonitor"}
KIND_OF = {"edge": "StatefulSet"}  # every other service is a Deployment


def test_every_object_passes_the_kubernetes_schema(rendered: Rendered) -> None:
    failures = []
    for obj in rendered.objects:
        if obj["kind"] in CRD_KINDS:
            continue
        try:
            kubernetes_validate.validate(obj, KUBE_VERSION, strict=True)
        except kubernetes_validate.ValidationError as exc:
            failures.append(f"{obj['kind']}/{obj['metadata']['name']}: {exc.message} at {list(exc.path)}")
    assert not failures, "\n".join(failures)
    unknown = {o["kind"] for o in rendered.objects} - CRD_KINDS
    for kind in unknown:  # a kind without a schema would pass silently above
        assert kind in {
            "ConfigMap",
            "Secret",
            "Service",
            "ServiceAccount",
            "Deployment",
            "StatefulSet",
            "HorizontalPodAutoscaler",
            "PodDisruptionBudget",
            "NetworkPolicy",
            "Job",
        }, kind


def test_each_service_has_its_workload_kind_and_service(rendered: Rendered) -> None:
    for service in SERVICES:
        workload = rendered.workload(service)
        assert workload["kind"] == KIND_OF.get(service, "Deployment")
        svc = rendered.get("Service", workload["metadata"]["name"])
        assert svc["spec"]["selector"] == workload["spec"]["selector"]["matchLabels"]


def _container(workload: dict[str, Any]) -> dict[str, Any]:
    containers = workload["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    return dict(containers[0])


def _dockerfile_ports() -> dict[str, int]:
    """EXPOSE of each service's target in the Dockerfile."""
    ports: dict[str, int] = {}
    target = None
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        m = re.match(r"FROM \S+ AS (\w+)", line)
        if m:
            target = m.group(1)
        m = re.match(r"EXPOSE (\d+)", line)
        if m and target:
            ports[target] = int(m.group(1))
    return ports


def test_probes_hit_each_service_health_port(rendered: Rendered) -> None:
    exposed = _dockerfile_ports()
    for service in SERVICES:
        workload = rendered.workload(service)
        c = _container(workload)
        port = {p["name"]: p["containerPort"] for p in c["ports"]}["http"]
        assert port == exposed[service], f"{service}: chart port {port}, image EXPOSE {exposed[service]}"
        assert c["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
        assert c["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
        assert c["startupProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
        svc = rendered.get("Service", workload["metadata"]["name"])
        assert svc["spec"]["ports"][0]["targetPort"] == "http"
        env = env_of(c)
        port_var = "TOLLWAY_LEDGER_HEALTH_PORT" if service == "ledger" else f"TOLLWAY_{service.upper()}_PORT"
        assert env[port_var] == str(port)
        assert env[f"TOLLWAY_{service.upper()}_HOST"] == "0.0.0.0"


def _pod_specs(rendered: Rendered) -> list[tuple[str, dict[str, Any]]]:
    specs = [(w["metadata"]["name"], w["spec"]["template"]["spec"]) for w in rendered.workloads()]
    specs += [(j["metadata"]["name"], j["spec"]["template"]["spec"]) for j in rendered.of_kind("Job")]
    return specs


def test_nothing_runs_as_root_or_escalates(rendered: Rendered) -> None:
    assert rendered.of_kind("Job") or rendered.label == "dev"  # the migration Job is checked too
    for name, spec in _pod_specs(rendered):
        pod = spec["securityContext"]
        assert pod["runAsNonRoot"] is True, name
        assert pod["runAsUser"] != 0, name
        assert spec["automountServiceAccountToken"] is False, name
        for c in spec["containers"] + spec.get("initContainers", []):
            sc = c["securityContext"]
            assert sc["allowPrivilegeEscalation"] is False, name
            assert sc["privileged"] is False, name
            assert sc["capabilities"]["drop"] == ["ALL"], name
            assert "add" not in sc["capabilities"], name
            # Only the Tilt dev values make the root filesystem writable (live_update syncs into it).
            assert sc["readOnlyRootFilesystem"] is (rendered.label != "dev"), name
            assert any(m["mountPath"] == "/tmp" for m in c["volumeMounts"]), name


def _drain_parts(service: str, env: dict[str, Any]) -> float:
    """Seconds the process may take after SIGTERM, from the settings the chart gives it."""
    if service == "edge":  # tollway_edge.drain.stop_seconds: + the deadline's cut and aiohttp's cleanup
        from tollway_edge.drain import CLEANUP_SECONDS, CUT_SECONDS

        return (
            CUT_SECONDS
            + CLEANUP_SECONDS
            + sum(
                float(env[f"TOLLWAY_EDGE_{k}"])
                for k in ("ACCEPT_GRACE_SECONDS", "DRAIN_DEADLINE_SECONDS", "JOURNAL_FLUSH_SECONDS")
            )
        )
    if service == "quota":  # consumer deadline, then webhooks (5 s in code)
        return float(env["TOLLWAY_QUOTA_SHUTDOWN_TIMEOUT_SECONDS"]) + 5
    if service == "ledger":
        return float(env["TOLLWAY_LEDGER_SHUTDOWN_TIMEOUT_SECONDS"])
    return 0.0


def test_termination_grace_covers_the_stop_sequence(rendered: Rendered) -> None:
    for service in SERVICES:
        spec = rendered.workload(service)["spec"]["template"]["spec"]
        c = _container(rendered.workload(service))
        pre_stop = c.get("lifecycle", {}).get("preStop", {}).get("sleep", {}).get("seconds", 0)
        needed = pre_stop + _drain_parts(service, env_of(c))
        assert spec["terminationGracePeriodSeconds"] >= needed, (service, needed)
    if rendered.label != "dev":  # dev values stop at once
        edge = _container(rendered.workload("edge"))
        assert edge["lifecycle"]["preStop"]["sleep"]["seconds"] > 0


def test_a_grace_period_below_the_sum_fails_the_render() -> None:
    out = helm_template([], "services.edge.drain.terminationGracePeriodSeconds=10", check=False)
    assert out.returncode != 0
    assert "below preStop + accept grace + drain deadline + flush" in out.stderr


def test_edge_local_limit_share_counts_every_possible_process(rendered: Rendered) -> None:
    edge = rendered.workload("edge")
    env = env_of(_container(edge))
    hpas = [
        h
        for h in rendered.of_kind("HorizontalPodAutoscaler")
        if h["spec"]["scaleTargetRef"]["kind"] == "StatefulSet"
    ]
    most_pods = hpas[0]["spec"]["maxReplicas"] if hpas else edge["spec"]["replicas"]
    assert int(env["TOLLWAY_EDGE_EXPECTED_PROCESSES"]) == most_pods * int(env["TOLLWAY_EDGE_WORKERS"])


def test_edge_keeps_a_journal_volume_per_pod(rendered: Rendered) -> None:
    sts = rendered.workload("edge")
    (claim,) = sts["spec"]["volumeClaimTemplates"]
    assert claim["metadata"]["name"] == "journal"
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]
    mounts = {m["name"]: m["mountPath"] for m in _container(sts)["volumeMounts"]}
    assert env_of(_container(sts))["TOLLWAY_EDGE_JOURNAL_DIR"] == mounts["journal"]
    assert sts["spec"]["persistentVolumeClaimRetentionPolicy"] == {
        "whenScaled": "Retain",
        "whenDeleted": "Retain",
    }
    headless = rendered.get("Service", sts["spec"]["serviceName"])
    assert headless["spec"]["clusterIP"] == "None"
    assert sts["spec"]["template"]["spec"]["securityContext"]["fsGroup"] == 10001


def test_hpas_target_existing_workloads(rendered: Rendered) -> None:
    hpas = rendered.of_kind("HorizontalPodAutoscaler")
    for hpa in hpas:
        ref = hpa["spec"]["scaleTargetRef"]
        target = rendered.get(ref["kind"], ref["name"])
        assert "replicas" not in target["spec"], "a fixed replica count fights the HPA on every upgrade"
        assert hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]
        resources = _container(target)["resources"]
        assert "cpu" in resources["requests"], "CPU utilisation needs a CPU request"
    if rendered.label != "dev":
        names = {h["spec"]["scaleTargetRef"]["name"] for h in hpas}
        assert names == {
            rendered.workload("edge")["metadata"]["name"],
            rendered.workload("redactor")["metadata"]["name"],
        }


def test_each_workload_has_a_pdb_that_selects_it(rendered: Rendered) -> None:
    pdbs = rendered.of_kind("PodDisruptionBudget")
    for w in rendered.workloads():
        labels = w["spec"]["template"]["metadata"]["labels"]
        matching = [p for p in pdbs if p["spec"]["selector"]["matchLabels"].items() <= labels.items()]
        assert len(matching) == 1, w["metadata"]["name"]
        assert matching[0]["spec"]["maxUnavailable"] >= 1


# DESIGN.md "talks to" (plus DNS): the peers each component's egress allows.
TALKS_TO = {
    "edge": {"valkey", "redactor", "quota", "kafka", "providers", "postgres"},
    "redactor": {"valkey"},
    "quota": {"postgres", "valkey", "kafka", "webhooks"},
    "ledger": {"kafka", "postgres"},
    "reporting": {"postgres"},
}


def _peer_names(rule: dict[str, Any], values_peers: dict[str, Any]) -> set[str]:
    """The declared peers an egress rule could be (providers and webhooks may be alike)."""
    ports = sorted(p["port"] for p in rule["ports"])
    if ports == [53, 53]:
        return {"dns"}
    component = rule["to"][0].get("podSelector", {}).get("matchLabels", {}).get("app.kubernetes.io/component")
    if component in ("redactor", "quota"):  # calls inside the release
        return {str(component)}
    names = {
        str(n)
        for n, peer in values_peers.items()
        if rule["to"] == peer["to"] and ports == sorted(peer["ports"])
    }
    assert names, f"egress rule matches no declared peer: {rule}"
    return names


def test_network_policies_follow_the_talks_to_column(rendered: Rendered) -> None:
    import yaml

    values = yaml.safe_load((CHART / "values.yaml").read_text())
    for f in VALUES_FILES[rendered.label]:
        values = _merge(values, yaml.safe_load(f.read_text()))
    policies = rendered.of_kind("NetworkPolicy")
    if not values["networkPolicy"]["enabled"]:
        assert policies == []
        return
    tracing = values["tracing"]["enabled"]
    for service in SERVICES:
        (np,) = [
            p
            for p in policies
            if p["spec"]["podSelector"]["matchLabels"]["app.kubernetes.io/component"] == service
        ]
        assert np["spec"]["policyTypes"] == ["Ingress", "Egress"]
        expected = TALKS_TO[service] | {"dns"} | ({"otlp"} if tracing else set())
        rules = [_peer_names(r, values["networkPolicy"]["peers"]) for r in np["spec"]["egress"]]
        assert len(rules) == len(expected), service
        for candidates in rules:
            assert candidates & expected, f"{service} may reach {candidates}, not in its talks-to column"
        for peer in expected:
            assert any(peer in c for c in rules), f"{service} cannot reach {peer}"
        for rule in np["spec"]["ingress"]:
            assert [p["port"] for p in rule["ports"]] == [values["services"][service]["port"]]
    # The redactor takes calls from the edge only; the one other rule is the metrics
    # scrape (networkPolicy.metricsFrom) when it serves /metrics.
    (redactor,) = [p for p in policies if p["metadata"]["name"].endswith("-redactor")]
    rules = redactor["spec"]["ingress"]
    (calls,) = [r for r in rules if r["from"] != values["networkPolicy"]["metricsFrom"]]
    assert calls["from"][0]["podSelector"]["matchLabels"]["app.kubernetes.io/component"] == "edge"
    scrapes = [r for r in rules if r is not calls]
    assert len(scrapes) == (1 if values["services"]["redactor"]["metrics"] else 0)


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def test_migrations_run_as_a_hook_and_services_do_not_migrate(rendered: Rendered) -> None:
    jobs = rendered.of_kind("Job")
    quota_env = env_of(_container(rendered.workload("quota")))
    ledger_env = env_of(_container(rendered.workload("ledger")))
    if rendered.label == "dev":  # Tilt: no hooks, migrate on start
        assert jobs == []
        assert quota_env["TOLLWAY_QUOTA_MIGRATE_ON_START"] == "true"
        assert ledger_env["TOLLWAY_LEDGER_MIGRATE_ON_START"] == "true"
        return
    (job,) = jobs
    assert job["metadata"]["annotations"]["helm.sh/hook"] == "pre-install,pre-upgrade"
    spec = job["spec"]["template"]["spec"]
    commands = [c["command"] for c in spec["initContainers"] + spec["containers"]]
    assert commands == [
        ["/app/.venv/bin/python", "-m", "tollway_quota.migrate"],
        ["/app/.venv/bin/python", "-m", "tollway_ledger.migrate"],
    ]
    for c in spec["initContainers"] + spec["containers"]:
        # The hook runs before the release's own Secrets exist: only the DSN, from outside the release.
        names = set(env_of(c))
        assert "TOLLWAY_POSTGRES_DSN" in names and "TOLLWAY_KEY_PEPPER" not in names
        dsn = env_of(c)["TOLLWAY_POSTGRES_DSN"]
        if isinstance(dsn, dict):
            released = {x["metadata"]["name"] for x in rendered.of_kind("Secret")}
            assert dsn["secretKeyRef"]["name"] not in released, (
                "the release's Secrets do not exist at pre-install"
            )
    assert quota_env["TOLLWAY_QUOTA_MIGRATE_ON_START"] == "false"
    assert ledger_env["TOLLWAY_LEDGER_MIGRATE_ON_START"] == "false"


def test_generated_secrets_survive_upgrades_and_uninstall(rendered: Rendered) -> None:
    text = (CHART / "templates" / "secrets.yaml").read_text()
    assert 'lookup "v1" "Secret" .Release.Namespace $name' in text
    generated = [s for s in rendered.of_kind("Secret") if "admin-token" in s.get("data", {})]
    if rendered.label == "production":
        assert generated == []  # secrets.existingSecret
        return
    (secret,) = generated
    assert secret["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"
    assert set(secret["data"]) == {"admin-token", "key-pepper", "seed-token"}


def test_the_catalogue_configmap_is_a_valid_catalogue(rendered: Rendered, tmp_path: Path) -> None:
    from tollway_contracts.catalogue import load_catalogue

    (cm,) = [c for c in rendered.of_kind("ConfigMap") if c["metadata"]["name"].endswith("-catalogue")]
    path = tmp_path / "catalogue.yaml"
    path.write_text(cm["data"]["catalogue.yaml"])
    catalogue = load_catalogue(path)
    assert catalogue.models
    edge = rendered.workload("edge")
    annotations = edge["spec"]["template"]["metadata"]["annotations"]
    assert "checksum/catalogue" not in annotations  # reloaded in place (catalogueReload.inPlace: true)
    mount = next(m for m in _container(edge)["volumeMounts"] if m["name"] == "catalogue")
    assert "subPath" not in mount  # a directory mount: ConfigMap updates reach the file
    assert env_of(_container(edge))["TOLLWAY_CATALOGUE_PATH"] == mount["mountPath"] + "/catalogue.yaml"


def _settings_env_names(cls: type[BaseSettings]) -> set[str]:
    prefix = str(cls.model_config.get("env_prefix", ""))
    names = set()
    for field_name, field in cls.model_fields.items():
        alias = field.validation_alias
        choices = getattr(alias, "choices", None)
        if choices:
            names |= {c for c in choices if isinstance(c, str) and c.startswith("TOLLWAY_")}
        else:
            names.add((prefix + field_name).upper())
    return names


# Names the chart sets before a service reads them (none today).
RESERVED_FOR_LATER: set[str] = set()


def test_catalogue_changes_roll_the_edge_when_not_reloaded_in_place() -> None:
    rolled = Rendered("no in-place reload", helm_template([], "catalogueReload.inPlace=false").stdout)
    annotations = rolled.workload("edge")["spec"]["template"]["metadata"]["annotations"]
    assert "checksum/catalogue" in annotations


def test_every_setting_the_chart_sets_is_read_by_the_service(rendered: Rendered) -> None:
    from tollway_edge.settings import EdgeSettings
    from tollway_ledger.settings import LedgerSettings
    from tollway_quota.settings import QuotaSettings
    from tollway_redactor.settings import RedactorSettings
    from tollway_reporting.settings import ReportingSettings
    from tollway_runtime.migrations import MigrateSettings

    classes: dict[str, type[BaseSettings]] = {
        "edge": EdgeSettings,
        "redactor": RedactorSettings,
        "quota": QuotaSettings,
        "ledger": LedgerSettings,
        "reporting": ReportingSettings,
    }
    settings_cm = next(
        c for c in rendered.of_kind("ConfigMap") if c["metadata"]["name"].endswith("-settings")
    )
    shared = {k for k in settings_cm["data"] if k.startswith("TOLLWAY_")} - {"TOLLWAY_CONNECTIONS_DIGEST"}
    for service, cls in classes.items():
        known = _settings_env_names(cls)
        c = _container(rendered.workload(service))
        unread = {n for n in env_of(c) if n.startswith("TOLLWAY_")} - known - RESERVED_FOR_LATER
        assert not unread, f"{service} does not read {sorted(unread)}"
        # Shared settings come through envFrom; the services that need Kafka read it.
        assert shared - known <= {"TOLLWAY_KAFKA_BOOTSTRAP_SERVERS"}, service
    for job in rendered.of_kind("Job"):
        for c in (
            job["spec"]["template"]["spec"]["containers"] + job["spec"]["template"]["spec"]["initContainers"]
        ):
            assert set(env_of(c)) <= _settings_env_names(MigrateSettings)


def test_crd_objects_have_what_their_operators_require(rendered: Rendered) -> None:
    for topic in rendered.of_kind("KafkaTopic"):
        assert topic["apiVersion"] == "kafka.strimzi.io/v1beta2"
        assert topic["metadata"]["labels"]["strimzi.io/cluster"]
        assert re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", topic["metadata"]["name"])
        spec = topic["spec"]
        assert isinstance(spec["partitions"], int) and spec["partitions"] >= 1
        assert isinstance(spec["replicas"], int) and spec["replicas"] >= 1
        assert re.fullmatch(r"[a-zA-Z0-9._-]+", spec["topicName"])
        assert all(isinstance(v, str | int | bool) for v in spec.get("config", {}).values())
    if rendered.of_kind("KafkaTopic"):
        names = {t["spec"]["topicName"] for t in rendered.of_kind("KafkaTopic")}
        assert names == {"tollway.usage.v1", "tollway.alerts.v1", "tollway.usage.dlq.v1"}
    for sm in rendered.of_kind("ServiceMonitor"):
        assert sm["apiVersion"] == "monitoring.coreos.com/v1"
        services = [
            s
            for s in rendered.of_kind("Service")
            if sm["spec"]["selector"]["matchLabels"].items() <= s["metadata"]["labels"].items()
        ]
        assert services, sm["metadata"]["name"]
        for s in services:
            assert {e["port"] for e in sm["spec"]["endpoints"]} <= {p["name"] for p in s["spec"]["ports"]}
        assert [e["path"] for e in sm["spec"]["endpoints"]] == ["/metrics"]


def test_values_schema_rejects_unknown_keys() -> None:
    out = subprocess_lint("--set", "services.edge.replicaz=3")
    assert out.returncode != 0
    assert "additional properties 'replicaz' not allowed" in out.stdout + out.stderr


def subprocess_lint(*args: str) -> Any:
    import subprocess

    return subprocess.run(
        [helm_binary(), "lint", "--strict", str(CHART), *args], capture_output=True, text=True, timeout=120
    )
