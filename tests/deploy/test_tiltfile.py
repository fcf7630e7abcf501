"""The Tiltfile, evaluated with starlark-go against stand-ins for Tilt's
built-ins that record what it declares (Tilt itself cannot be installed here).

Checked: it evaluates; every path it names exists; every image it builds has
its Dockerfile target and is an image the chart (rendered with the values the
Tiltfile passes to helm()) runs, and every image the chart runs is built;
every k8s_resource names a workload of that render and forwards to its port.
Not checked: Tilt's own semantics of these calls (argument validation, file
watching, live_update at run time).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import starlark_go
from deploy_support import ROOT, SERVICES, Rendered, helm_template

pytestmark = pytest.mark.unit

TILTFILE = ROOT / "Tiltfile"
# Extensions the Tiltfile may load, and the symbols each provides (stand-ins below).
KNOWN_EXTENSIONS = {"ext://restart_process": {"docker_build_with_restart"}}


class TiltRecorder:
    """Stand-ins for the Tilt built-ins the Tiltfile uses; each call is recorded."""

    def __init__(self) -> None:
        self.builds: list[dict[str, Any]] = []
        self.helm_calls: list[dict[str, Any]] = []
        self.k8s_yaml: list[Any] = []
        self.resources: list[dict[str, Any]] = []
        self.local_resources: list[dict[str, Any]] = []
        self.builtins: dict[str, Any] = {}

    def globals(self) -> dict[str, Any]:
        def docker_build(ref: str, context: str, **kw: Any) -> None:
            self.builds.append({"ref": ref, "context": context, **kw})

        def docker_build_with_restart(ref: str, context: str, entrypoint: Any, **kw: Any) -> None:
            self.builds.append(
                {"ref": ref, "context": context, "entrypoint": entrypoint, "restart": True, **kw}
            )

        def sync(local_path: str, remote_path: str) -> dict[str, str]:
            return {"step": "sync", "local": local_path, "remote": remote_path}

        def fall_back_on(files: Any) -> dict[str, Any]:
            return {"step": "fall_back_on", "files": [files] if isinstance(files, str) else list(files)}

        def run(cmd: str, trigger: Any = None) -> dict[str, Any]:
            return {"step": "run", "cmd": cmd, "trigger": trigger}

        def helm(chart: str, **kw: Any) -> dict[str, Any]:
            call = {"chart": chart, **kw}
            self.helm_calls.append(call)
            return {"helm": len(self.helm_calls) - 1}

        def k8s_yaml(blob: Any, **kw: Any) -> None:
            self.k8s_yaml.append(blob)

        def k8s_resource(workload: str = "", **kw: Any) -> None:
            self.resources.append({"workload": workload, **kw})

        def local_resource(name: str, cmd: str = "", **kw: Any) -> None:
            self.local_resources.append({"name": name, "cmd": cmd, **kw})

        return {
            "docker_build": docker_build,
            "docker_build_with_restart": docker_build_with_restart,
            "sync": sync,
            "fall_back_on": fall_back_on,
            "run": run,
            "helm": helm,
            "k8s_yaml": k8s_yaml,
            "k8s_resource": k8s_resource,
            "local_resource": local_resource,
            "TRIGGER_MODE_MANUAL": "manual",
            "TRIGGER_MODE_AUTO": "auto",
        }


def _strip_loads(source: str) -> tuple[str, list[tuple[str, list[str]]]]:
    """starlark-go has no `load`: replace each load line by a blank one (line
    numbers kept) after checking it loads a known extension's symbols."""
    loads = []
    lines = source.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r'\s*load\(\s*"([^"]+)"\s*,(.*)\)\s*$', line)
        if m:
            symbols = re.findall(r'"([^"]+)"', m.group(2))
            loads.append((m.group(1), symbols))
            lines[i] = ""
    return "\n".join(lines) + "\n", loads


@pytest.fixture(scope="module")
def tilt() -> TiltRecorder:
    source, loads = _strip_loads(TILTFILE.read_text())
    for module, symbols in loads:
        assert module in KNOWN_EXTENSIONS, f"Tiltfile loads {module}: add a stand-in for it"
        assert set(symbols) <= KNOWN_EXTENSIONS[module], symbols
    # Tilt's dialect: top-level for/if, reassignment, sets and recursion allowed.
    starlark_go.configure_starlark(allow_set=True, allow_global_reassign=True, allow_recursion=True)
    recorder = TiltRecorder()
    # starlark-go keeps borrowed references to the callables: the dict must
    # outlive the evaluation (a temporary one segfaults on the first call).
    recorder.builtins = recorder.globals()
    starlark = starlark_go.Starlark(globals=recorder.builtins)
    starlark.exec(source, filename="Tiltfile")
    return recorder


def _exists(path: str) -> bool:
    return (ROOT / path).exists()


def _dockerfile_targets(path: Path) -> set[str]:
    return set(re.findall(r"^FROM \S+ AS (\S+)", path.read_text(), flags=re.M))


def test_every_path_it_names_exists(tilt: TiltRecorder) -> None:
    missing = []
    for b in tilt.builds:
        paths = [b["context"], b.get("dockerfile", "Dockerfile"), *b.get("only", [])]
        for step in b.get("live_update", []):
            paths += step["files"] if step["step"] == "fall_back_on" else []
            paths += [step["local"]] if step["step"] == "sync" else []
        missing += [f"{b['ref']}: {p}" for p in paths if not _exists(p)]
    for h in tilt.helm_calls:
        missing += [p for p in [h["chart"], *h.get("values", [])] if not _exists(p)]
    for r in tilt.local_resources:
        missing += [f"{r['name']}: {p}" for p in r.get("deps", []) if not _exists(p)]
    assert not missing, missing


def test_every_image_has_its_dockerfile_target(tilt: TiltRecorder) -> None:
    assert len(tilt.builds) == len(SERVICES)
    for b in tilt.builds:
        dockerfile = ROOT / b["context"] / b.get("dockerfile", "Dockerfile")
        assert b["target"] in _dockerfile_targets(dockerfile), b["ref"]
        assert b["build_args"]["SERVICE"] == b["target"]
        assert b["build_args"]["VENV_OWNER"] == "10001"  # live_update syncs as the image's user
        assert b["ref"].endswith("/tollway-" + b["target"])
        # The context a lock install needs: the service, the libraries, the lock.
        assert set(b["only"]) == {f"services/{b['target']}", "libs", "pyproject.toml", "uv.lock"}
        # Syncs land in the installed packages of the image's virtualenv.
        syncs = [s for s in b["live_update"] if s["step"] == "sync"]
        assert syncs and all(
            s["remote"].startswith("/app/.venv/lib/python3.11/site-packages/") for s in syncs
        )
        assert b["live_update"][0]["step"] == "fall_back_on"
        assert "uv.lock" in b["live_update"][0]["files"]
        assert b["entrypoint"] == ["/app/.venv/bin/python", "-m", "tollway_" + b["target"]]


@pytest.fixture(scope="module")
def tilt_render(tilt: TiltRecorder) -> Rendered:
    assert len(tilt.helm_calls) == 1 and tilt.k8s_yaml == [{"helm": 0}]
    call = tilt.helm_calls[0]
    assert Path(call["chart"]) == Path("k8s")
    return Rendered("tilt", helm_template([ROOT / v for v in call["values"]]).stdout)


def _images(render: Rendered) -> set[str]:
    images = set()
    for w in render.workloads() + render.of_kind("Job"):
        spec = w["spec"]["template"]["spec"]
        for c in spec["containers"] + spec.get("initContainers", []):
            images.add(c["image"].rsplit(":", 1)[0])
    return images


def test_images_built_are_the_images_the_chart_runs(tilt: TiltRecorder, tilt_render: Rendered) -> None:
    assert {b["ref"] for b in tilt.builds} == _images(tilt_render)


def test_resources_name_workloads_and_forward_to_their_ports(
    tilt: TiltRecorder, tilt_render: Rendered
) -> None:
    workloads = {w["metadata"]["name"]: w for w in tilt_render.workloads()}
    assert {r["workload"] for r in tilt.resources} == set(workloads)
    forwarded = set()
    for r in tilt.resources:
        port = workloads[r["workload"]]["spec"]["template"]["spec"]["containers"][0]["ports"][0][
            "containerPort"
        ]
        for pf in r.get("port_forwards", []):
            local, remote = (int(x) for x in pf.split(":"))
            assert remote == port, r["workload"]
            forwarded.add(r["workload"])
        assert r.get("labels"), r["workload"]
    # The edge and the reporting dashboard at least.
    assert {"tollway-edge", "tollway-reporting"} <= forwarded


def test_the_test_suite_is_a_local_resource(tilt: TiltRecorder) -> None:
    names = {r["name"]: r for r in tilt.local_resources}
    assert "infra/test.sh" in names["tests"]["cmd"]
    assert names["tests"]["trigger_mode"] == "manual"
    assert "tollway_testing.fake_provider" in names["fake-provider"]["serve_cmd"]
