"""The things measured: the fake provider (floor), Tollway's edge from the running stack, and the peers.

Peers are pinned and installed into their own directories under ~/.cache/tollway/bench
(never into the workspace lock): LiteLLM's proxy into a uv venv, Portkey's gateway with npm.
A peer that fails to install or start is kept as a target with `unavailable` set to its
error, so the report shows it instead of silently dropping it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from .procs import ProcGroup, listeners

LITELLM_VERSION = "1.108.7"
PORTKEY_VERSION = "1.15.2"
CACHE = Path(os.environ.get("TOLLWAY_BENCH_CACHE", Path.home() / ".cache/tollway/bench"))
REPO = Path(__file__).resolve().parent.parent

MODEL = "gpt-4o-mini"  # in infra/catalogue.yaml; the peers map the same name to the fake provider
MASTER_KEY = "sk-bench-master"  # LiteLLM's bearer token (its proxy refuses to start without one)

# The streaming scenarios: name -> (concurrent streams, chunks, interval ms, ttft ms).
STREAM_SCENARIOS = {
    "200 streams x 200 chunks @25 ms": (200, 200, 25, 0),
    "1000 streams x 60 chunks @50 ms, ttft 400 ms": (1000, 60, 50, 400),
}


def stream_model(chunks: int, interval_ms: int, ttft_ms: int) -> str:
    """The model name that makes the fake provider stream this shape, e.g. ``fake-stream-c200-i25-t0``.

    Gateway-neutral: every gateway passes the model name on (none needs to forward client headers).
    Grammar: tollway_testing.fake_provider (``parse_model_shape``). Each name must be in
    infra/catalogue.yaml for Tollway (upstream_model = the same name); the peers get it in their config.
    """
    return f"fake-stream-c{chunks}-i{interval_ms}-t{ttft_ms}"


STREAM_MODELS = tuple(stream_model(c, i, t) for _, c, i, t in STREAM_SCENARIOS.values())

# Tollway's stack, by the ports in DESIGN.md; each group's CPU is reported beside the edge's.
STACK_PORTS = {
    "quota": 8082,
    "ledger": 8084,
    "redactor": 8081,
    "valkey": 6379,
    "kafka": 9092,
    "postgres": 5432,
}


@dataclass
class Target:
    """One gateway (or the provider itself) as the load generator sees it."""

    name: str
    kind: str  # "floor" | "tollway" | "peer"
    base: str = ""  # http://127.0.0.1:PORT
    headers: dict[str, str] = field(default_factory=dict)  # every request (auth, provider routing)
    health_path: str | None = None
    models_path: str | None = None
    chat_path: str = "/v1/chat/completions"
    version: str = ""
    workers: int = 1
    groups: list[ProcGroup] = field(default_factory=list)  # groups[0] is the gateway itself
    unavailable: str | None = None
    notes: list[str] = field(default_factory=list)
    command: str = ""
    proc: subprocess.Popen | None = None
    revoke_key_id: str | None = None  # a key minted for this run
    redaction_applied: bool | None = None  # tollway+redaction: what the probe saw at the provider
    admin_token: str | None = None

    @property
    def available(self) -> bool:
        return self.unavailable is None


def _get(url: str, headers: dict[str, str] | None = None, timeout: float = 2.0) -> tuple[int, bytes]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def port_free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def wait_http(
    url: str, proc: subprocess.Popen | None, timeout_s: float, headers: dict[str, str] | None = None
) -> str | None:
    """None once `url` answers < 500; else the reason it never did."""
    deadline = time.monotonic() + timeout_s
    last = "no answer"
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return f"exited with code {proc.returncode} during start-up"
        try:
            status, _ = _get(url, headers, timeout=1.0)
            if status < 500:
                return None
            last = f"HTTP {status}"
        except OSError as e:
            last = str(e)
        time.sleep(0.25)
    return f"not answering {url} after {timeout_s:.0f}s ({last})"


def stop(proc: subprocess.Popen | None) -> None:
    """Stop a process group we started (SIGTERM, then SIGKILL after 10 s)."""
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(5)
    except ProcessLookupError:
        pass


def _log_tail(path: Path, n: int = 1200) -> str:
    try:
        return path.read_text(errors="replace")[-n:].strip()
    except FileNotFoundError:
        return ""


# --- fake provider ---------------------------------------------------------------------------------


def fake_provider(port: int, own_port: int, logdir: Path) -> Target:
    """The stack's fake provider if one listens on `port`, else one we start on `own_port` (no access log).

    Our own never takes the stack's port, so a stack coming up meanwhile does not collide with it.
    """
    stack = not port_free(port)
    if not stack:
        port = own_port
    t = Target(
        name="direct",
        kind="floor",
        base=f"http://127.0.0.1:{port}",
        health_path="/healthz",
        models_path="/v1/models",
        headers={"authorization": "Bearer sk-fake"},
    )
    t.version = "tollway_testing.fake_provider"
    if stack:
        pids = listeners(port)
        cmd = ""
        if pids:
            try:
                cmd = Path(f"/proc/{pids[0]}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
            except OSError:
                pass
        t.command = cmd or f"(already listening on :{port})"
        if "tollway_testing.fake_provider" not in cmd:
            t.version = f"unknown server on :{port} (not tollway_testing.fake_provider)"
            t.notes.append("WARNING: the provider on this port is not tollway_testing.fake_provider")
        t.notes.append(
            f"the running stack's fake provider on :{port} (pid {pids[0] if pids else '?'}), shared by every target"
        )
        if "--no-access-log" not in cmd:
            t.notes.append(
                "it writes one access-log line per request; that CPU is in the provider's column, the same for every target"
            )
        t.groups = [ProcGroup.from_port("provider", port)]
        return t
    if not port_free(port):
        t.unavailable = f"no fake provider on :{t.base.rsplit(':', 1)[1]} and port {port} is taken"
        return t
    argv = [
        sys.executable,
        "-m",
        "tollway_testing.fake_provider",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-access-log",
    ]
    log = logdir / "fake_provider.log"
    t.command = " ".join(argv[1:])
    env = dict(os.environ)
    extra = os.environ.get("BENCH_FAKE_PROVIDER_SRC")  # a libs/testing/src to use before infra is merged
    if extra:
        env["PYTHONPATH"] = extra + os.pathsep + env.get("PYTHONPATH", "")
        t.notes.append(f"fake provider imported from {extra} (BENCH_FAKE_PROVIDER_SRC)")
    t.proc = subprocess.Popen(
        argv, stdout=open(log, "wb"), stderr=subprocess.STDOUT, start_new_session=True, env=env, cwd=REPO
    )
    err = wait_http(t.base + "/healthz", t.proc, 20)
    if err:
        t.unavailable = f"fake provider {err}: {_log_tail(log, 400)}"
        stop(t.proc)
        return t
    t.notes.append(
        f"started by the harness on :{port} with --no-access-log (no stack provider was running;"
        " Tollway's edge routes to :9000, so Tollway could not be measured against this one)"
    )
    t.groups = [ProcGroup.from_pid("provider", t.proc.pid)]
    return t


# --- Tollway -----------------------------------------------------------------------------------------


def _read_env_file(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        k, v = line.split("=", 1)
        out[k.strip().removeprefix("export ").strip()] = v.strip().strip("'\"")
    return out


def _find_dev_env(edge_port: int) -> Path | None:
    candidates: list[Path] = []
    if os.environ.get("TOLLWAY_DEV_ENV"):
        candidates.append(Path(os.environ["TOLLWAY_DEV_ENV"]))
    for pid in listeners(edge_port):
        # The stack writes .tollway/dev.env under the root it runs from: find it from the edge's cwd.
        try:
            cwd = Path(os.readlink(f"/proc/{pid}/cwd"))
        except OSError:
            continue
        candidates += [cwd / ".tollway/dev.env", *(p / ".tollway/dev.env" for p in cwd.parents)]
    candidates.append(REPO / ".tollway/dev.env")
    return next((c for c in candidates if c.is_file()), None)


def tollway(edge_port: int, provider: Target) -> tuple[Target, Target]:
    """Tollway's edge with the full path (auth, admission, metering), and the same with redaction.

    The API key comes from the stack's `.tollway/dev.env` (OPENAI_API_KEY). The redaction
    target needs a key whose policy redacts: TOLLWAY_BENCH_REDACTION_API_KEY, or
    TOLLWAY_REDACTION_API_KEY / OPENAI_API_KEY_REDACTION in dev.env.
    """
    full = Target(
        name="tollway",
        kind="tollway",
        base=f"http://127.0.0.1:{edge_port}",
        health_path="/healthz",
        models_path="/v1/models",
    )
    red = Target(name="tollway+redaction", kind="tollway", base=full.base, health_path=None, models_path=None)
    pids = listeners(edge_port)
    if not pids:
        reason = f"not available: no Tollway edge listening on 127.0.0.1:{edge_port} (start the stack: bash infra/up.sh)"
        full.unavailable = red.unavailable = reason
        return full, red
    err = wait_http(full.base + "/healthz", None, 3)
    if err:
        full.unavailable = red.unavailable = f"not available: edge {err}"
        return full, red
    dev_env = _find_dev_env(edge_port)
    env = _read_env_file(dev_env) if dev_env else {}
    key = os.environ.get("TOLLWAY_BENCH_API_KEY") or env.get("OPENAI_API_KEY")
    if not key:
        full.unavailable = red.unavailable = (
            "not available: no API key (no OPENAI_API_KEY in .tollway/dev.env; set TOLLWAY_BENCH_API_KEY)"
        )
        return full, red
    full.headers = {"authorization": f"Bearer {key}"}
    base_url = env.get("OPENAI_BASE_URL", "")
    key_source = str(dev_env or "TOLLWAY_BENCH_API_KEY")
    if not os.environ.get("TOLLWAY_BENCH_API_KEY") and env.get("TOLLWAY_ADMIN_TOKEN"):
        minted, minted_id, err = provision_key(env["TOLLWAY_ADMIN_TOKEN"])
        if minted:
            full.headers = {"authorization": f"Bearer {minted}"}
            full.revoke_key_id = minted_id
            full.admin_token = env["TOLLWAY_ADMIN_TOKEN"]
            key_source = (
                f"key {minted_id} minted for this run with limits {BENCH_LIMITS} on its scope "
                "(admission on every call), revoked at the end"
            )
        else:
            full.notes.append(
                f"could not mint a key with limits ({err}); the dev.env key has none, "
                "so admission does no I/O in this run"
            )
    full.notes.append(
        f"edge on :{edge_port}, {key_source}" + (f", OPENAI_BASE_URL={base_url}" if base_url else "")
    )
    full.workers = len(pids)
    try:
        full.command = Path(f"/proc/{pids[0]}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except OSError:
        pass
    try:
        edge_root = Path(os.readlink(f"/proc/{pids[0]}/cwd"))
    except OSError:
        edge_root = REPO
    full.version = f"{edge_root} at {_git_describe(edge_root)}"
    groups = [ProcGroup.from_port("edge", edge_port)]
    for name, port in STACK_PORTS.items():
        if listeners(port):
            groups.append(ProcGroup.from_port(name, port))
        else:
            full.notes.append(f"{name}: nothing listening on :{port}")
    full.groups = groups
    red_key = (
        os.environ.get("TOLLWAY_BENCH_REDACTION_API_KEY")
        or env.get("TOLLWAY_REDACTION_API_KEY")
        or env.get("OPENAI_API_KEY_REDACTION")
    )
    red.groups, red.version, red.workers, red.command = groups, full.version, full.workers, full.command
    if red_key:
        red.headers = {"authorization": f"Bearer {red_key}"}
        red.notes.append("redaction key from the environment / dev.env")
    elif env.get("TOLLWAY_ADMIN_TOKEN"):
        key, key_id, err = provision_redaction_key(env["TOLLWAY_ADMIN_TOKEN"])
        if key:
            red.headers = {"authorization": f"Bearer {key}"}
            red.revoke_key_id = key_id
            red.admin_token = env["TOLLWAY_ADMIN_TOKEN"]
            red.notes.append(
                f"key {key_id} minted for this run for the demo user with policy "
                '{"mode": "redact"} through the admin API, revoked at the end'
            )
        else:
            red.unavailable = f"not available: could not mint a redaction key through the admin API: {err}"
    else:
        red.unavailable = (
            "not available: no API key with a redaction policy and no TOLLWAY_ADMIN_TOKEN to mint "
            "one (set TOLLWAY_BENCH_REDACTION_API_KEY)"
        )
    return full, red


ADMIN_URL = os.environ.get("TOLLWAY_ADMIN_URL", "http://127.0.0.1:8082")


def _admin(method: str, path: str, token: str, body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(
        ADMIN_URL + path,
        data=data,
        method=method,
        headers={"authorization": f"Bearer {token}", "content-type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read() or b"{}")


# Limits the bench keys carry, so that admission really runs on every call (a key without
# limits does no admission I/O): every kind on the key's scope, set far above what a run
# can reach. One admission script call (4 checks) and one slot release per call.
BENCH_LIMITS = {
    "requests_per_minute": 10**9,
    "tokens_per_minute": 10**12,
    "max_concurrent": 10**6,
    "budget_micro_usd": 10**15,
    "budget_period": "month",
}


def provision_redaction_key(token: str, wait_s: float = 2.0) -> tuple[str | None, str | None, str | None]:
    """Mint a key with :data:`BENCH_LIMITS` and the policy ``redact``; (key, key_id, error)."""
    return provision_key(token, policy={"mode": "redact"}, wait_s=wait_s)


def provision_key(
    token: str,
    policy: dict | None = None,
    wait_s: float = 2.0,
    limits: dict | None = None,
    name: str | None = None,
) -> tuple[str | None, str | None, str | None]:
    """Mint a key for the demo tenant/team/user with ``limits`` (default :data:`BENCH_LIMITS`; the
    admin API's ``PUT /admin/v1/limits`` fields) and ``policy`` when given; (key, key_id, error).
    ``name``: the key name's prefix (a UTC timestamp follows).

    Uses the quota admin API (`/admin/v1`, bearer TOLLWAY_ADMIN_TOKEN) as `tollway-admin` does; waits
    `wait_s` for the edges to load the new key (a principals change is in force within 1 s).
    """
    try:
        tenant = next(t for t in _admin("GET", "/admin/v1/tenants", token)["data"] if t["name"] == "demo")
        team = next(
            t
            for t in _admin("GET", f"/admin/v1/teams?tenant_id={tenant['id']}", token)["data"]
            if t["name"] == "demo"
        )
        user = next(
            u
            for u in _admin("GET", f"/admin/v1/users?tenant_id={tenant['id']}", token)["data"]
            if u["name"] == "demo"
        )
        created = _admin(
            "POST",
            "/admin/v1/keys",
            token,
            {
                "tenant_id": tenant["id"],
                "team_id": team["id"],
                "user_id": user["id"],
                "name": (name or ("bench-redaction-" if policy else "bench-"))
                + time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()),
            },
        )
        _admin(
            "PUT",
            "/admin/v1/limits",
            token,
            {"scope": "key", "scope_id": created["key_id"], **(limits or BENCH_LIMITS)},
        )
        if policy:
            _admin("PUT", f"/admin/v1/keys/{created['key_id']}/redaction-policy", token, policy)
    except StopIteration:
        return None, None, "no demo tenant/team/user (run tollway-admin bootstrap-demo)"
    except (OSError, KeyError, ValueError) as e:
        detail = e.read().decode(errors="replace")[:200] if isinstance(e, urllib.error.HTTPError) else ""
        return None, None, f"{type(e).__name__}: {e} {detail}".strip()
    time.sleep(wait_s)
    return created["key"], created["key_id"], None


def revoke_key(t: Target) -> None:
    """Revoke the key a target minted for this run (best effort)."""
    if t.revoke_key_id and t.admin_token:
        revoke_key_id(t.admin_token, t.revoke_key_id)


def revoke_key_id(token: str, key_id: str) -> bool:
    """Revoke a key through the admin API (best effort); True if the API said yes."""
    try:
        _admin("POST", f"/admin/v1/keys/{key_id}/revoke", token)
    except (OSError, ValueError):
        return False
    return True


def _git_describe(root: Path = REPO) -> str:
    """`git describe --always --dirty` of the checkout at `root` (the edge's, or this one)."""
    try:
        return (
            subprocess.run(
                ["git", "-C", str(root), "describe", "--always", "--dirty"],
                capture_output=True,
                text=True,
                timeout=5,
            ).stdout.strip()
            or "unknown"
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


# --- LiteLLM -------------------------------------------------------------------------------------------


def install_litellm() -> tuple[Path | None, str | None]:
    """litellm[proxy]==LITELLM_VERSION in CACHE/litellm/venv; (litellm executable, error)."""
    venv = CACHE / "litellm" / "venv"
    exe = venv / "bin" / "litellm"
    marker = venv / f".bench-litellm-{LITELLM_VERSION}"
    if exe.exists() and marker.exists():
        return exe, None
    uv = shutil.which("uv")
    if not uv:
        return None, "uv not found (needed to create LiteLLM's own venv)"
    venv.parent.mkdir(parents=True, exist_ok=True)
    log = venv.parent / "install.log"
    with open(log, "wb") as f:
        steps = [] if (venv / "bin/python").exists() else [[uv, "venv", "--python", "3.11", str(venv)]]
        steps += [
            [
                uv,
                "pip",
                "install",
                "--compile-bytecode",  # else its first start compiles thousands of modules inside the timeout
                "--python",
                str(venv / "bin/python"),
                f"litellm[proxy]=={LITELLM_VERSION}",
            ]
        ]
        for argv in steps:
            if subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT).returncode != 0:
                return None, f"install failed ({' '.join(argv[1:3])}...): {_log_tail(log, 600)}"
    marker.touch()
    return exe, None


def litellm_config(provider_base: str, redis: tuple[str, int, int] | None = None) -> str:
    """LiteLLM's config: each bench model name passed through unchanged (`openai/<name>`) to the fake provider.

    `redis` = (host, port, db) turns its metering on as its production guide recommends
    (docs.litellm.ai/docs/proxy/prod: Redis given as host and port, not a URL): every deployment gets
    rpm/tpm limits (set far above what a run reaches, so they count and never refuse) that the router
    tracks in Redis (`usage-based-routing-v2`, pre-call checks on), and `general_settings.coordination_redis`
    holds its usage and spend counters across workers. Its Postgres spend log needs Prisma engines (see
    bench/README.md), so none is configured.
    """
    limits = "      rpm: 1000000000\n      tpm: 1000000000000\n" if redis else ""
    entries = "".join(
        f"  - model_name: {name}\n"
        "    litellm_params:\n"
        f"      model: openai/{name}\n"
        f"      api_base: {provider_base}/v1\n"
        "      api_key: sk-fake\n" + limits
        for name in (MODEL, *STREAM_MODELS)
    )
    cfg = "model_list:\n" + entries + "litellm_settings:\n  telemetry: false\n"
    if redis:
        host, port, db = redis
        cfg += (
            "router_settings:\n"
            "  routing_strategy: usage-based-routing-v2\n"
            "  enable_pre_call_checks: true\n"
            f"  redis_host: {host}\n"
            f"  redis_port: {port}\n"
            f"  cache_kwargs:\n    db: {db}\n"
            "general_settings:\n"
            "  coordination_redis:\n"
            f"    host: {host}\n"
            f"    port: {port}\n"
            f"    db: {db}\n"
        )
    return cfg


# The stack's Valkey, on a db of its own for LiteLLM's counters: leased the way the tests lease theirs
# (tollway_testing.pytest_plugin: a key `tollway:test:db-lease:<db>` in db 0, SET NX with an expiry),
# so a test running meanwhile never gets the same db.
VALKEY_HOST, VALKEY_PORT = "127.0.0.1", 6379
_LEASE_PREFIX = "tollway:test:db-lease:"


def lease_valkey_db(ttl_s: int = 4 * 3600) -> tuple[int | None, str, str | None]:
    """(db, lease token, error): a free logical db 15..1 of the stack's Valkey, flushed, leased for `ttl_s`."""
    import redis

    token = f"bench-{uuid.uuid4().hex}"
    try:
        r = redis.Redis(host=VALKEY_HOST, port=VALKEY_PORT, db=0, socket_timeout=2)
        for db in range(15, 0, -1):
            if r.set(f"{_LEASE_PREFIX}{db}", token, nx=True, ex=ttl_s):
                redis.Redis(host=VALKEY_HOST, port=VALKEY_PORT, db=db, socket_timeout=2).flushdb()
                return db, token, None
        return None, token, "no free Valkey db (1-15): tests hold every lease"
    except redis.RedisError as e:
        return None, token, f"Valkey at {VALKEY_HOST}:{VALKEY_PORT}: {e}"


def release_valkey_db(db: int | None, token: str) -> None:
    """Flush the leased db and give the lease back (only if it is still ours)."""
    import redis

    if db is None:
        return
    try:
        redis.Redis(host=VALKEY_HOST, port=VALKEY_PORT, db=db, socket_timeout=2).flushdb()
        redis.Redis(host=VALKEY_HOST, port=VALKEY_PORT, db=0, socket_timeout=2).eval(
            "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0",
            1,
            f"{_LEASE_PREFIX}{db}",
            token,
        )
    except redis.RedisError:
        pass


def valkey_db_keys(db: int) -> int | None:
    """How many keys the db holds (DBSIZE): proof that a metered peer wrote its counters there."""
    import redis

    try:
        return int(redis.Redis(host=VALKEY_HOST, port=VALKEY_PORT, db=db, socket_timeout=2).dbsize())
    except redis.RedisError:
        return None


PRISMA_NOTE = (
    "its Postgres spend log needs Prisma's query engine: `pip install prisma` works, `prisma generate` fails "
    "fetching the engine (binaries.prisma.sh: getaddrinfo ENOTFOUND, tried 2026-12-02), so no database"
)


def litellm(port: int, provider: Target, workers: int, logdir: Path, valkey_db: int | None = None) -> Target:
    """LiteLLM's proxy: no database, local cost map; `MODEL` and the `STREAM_MODELS` → the fake provider, same name.

    `valkey_db` given: the target "litellm-metered", its metering on in that db of the stack's Valkey
    (:func:`litellm_config`); its groups are the proxy and Valkey (its whole stack).
    """
    metered = valkey_db is not None
    t = Target(
        name="litellm-metered" if metered else "litellm",
        kind="peer",
        base=f"http://127.0.0.1:{port}",
        health_path="/health/liveliness",
        models_path="/v1/models",
        headers={"authorization": f"Bearer {MASTER_KEY}"},
        version=f"litellm[proxy]=={LITELLM_VERSION}",
        workers=workers,
    )
    exe, err = install_litellm()
    if err:
        t.unavailable = f"LiteLLM {err}"
        return t
    if not port_free(port):
        t.unavailable = f"port {port} is taken"
        return t
    cfg = logdir / f"{t.name}.yaml"
    cfg.write_text(
        litellm_config(
            provider.base, (VALKEY_HOST, VALKEY_PORT, valkey_db) if valkey_db is not None else None
        )
    )
    env = dict(os.environ)
    env.update(
        {
            "LITELLM_MASTER_KEY": MASTER_KEY,
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True",
            "LITELLM_LOCAL_AUTOROUTER_PRESETS": "True",
            "LITELLM_LOCAL_BLOG_POSTS": "True",
            "LITELLM_LOCAL_POLICY_TEMPLATES": "True",
            "LITELLM_LOG": "ERROR",
            "LITELLM_TELEMETRY": "False",
        }
    )
    env.pop("DATABASE_URL", None)
    for k in [k for k in env if k.startswith("REDIS_")]:
        env.pop(k)  # only the config decides where (and whether) it uses Redis
    argv = [
        str(exe),
        "--config",
        str(cfg),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--num_workers",
        str(workers),
    ]
    t.command = f"litellm --config {cfg.name} --host 127.0.0.1 --port {port} --num_workers {workers}"
    log = logdir / f"{t.name}.log"
    t.proc = subprocess.Popen(
        argv, stdout=open(log, "wb"), stderr=subprocess.STDOUT, env=env, start_new_session=True, cwd=logdir
    )
    err = wait_http(t.base + "/health/liveliness", t.proc, 300)  # its imports take minutes on a busy machine
    if err:
        t.unavailable = f"LiteLLM proxy {err}: {_log_tail(log)}"
        stop(t.proc)
        return t
    t.groups = [ProcGroup.from_pid("gateway", t.proc.pid)]
    t.notes.append(
        "no database; LITELLM_LOCAL_* switches on; each bench model name passed through as openai/<name>"
    )
    if metered:
        t.groups.append(ProcGroup.from_port("valkey", VALKEY_PORT))
        t.notes.append(
            f"metering on as its production guide recommends: Redis = the stack's Valkey, db {valkey_db} (leased); "
            "per-deployment rpm/tpm limits tracked in Redis (usage-based-routing-v2, pre-call checks), "
            "coordination_redis for its usage and spend counters; whole stack = the proxy + Valkey"
        )
        t.notes.append(PRISMA_NOTE)
    return t


# --- Portkey -----------------------------------------------------------------------------------------------


# Portkey 1.15.2 on Node 20 appends its x-portkey-* headers to the upstream fetch Response, whose
# headers are immutable for a streamed body: every stream answers 500 "TypeError: immutable".
# The patched copy (its own directory) re-wraps the Response before touching its headers.
PORTKEY_PATCH = (
    (
        "updateHeaders(e,t,a){return e.headers.append(",
        'updateHeaders(e,t,a){try{e.headers.set("x-bench-probe","1"),e.headers.delete("x-bench-probe")}'
        "catch(_){e=new Response(e.body,e)}return e.headers.append(",
    ),
    (
        "this.updateHeaders(i,n.cacheStatus,o),{response:i",
        "i=this.updateHeaders(i,n.cacheStatus,o),{response:i",
    ),
)


def install_portkey(patched: bool = False) -> tuple[Path | None, str | None]:
    """@portkey-ai/gateway@PORTKEY_VERSION under CACHE/portkey (or portkey-patched); (start-server.js, error)."""
    root = CACHE / ("portkey-patched" if patched else "portkey")
    js = root / "node_modules/@portkey-ai/gateway/build/start-server.js"
    pkg = root / "node_modules/@portkey-ai/gateway/package.json"
    marker = root / ".bench-patched"
    if js.exists() and pkg.exists() and f'"version": "{PORTKEY_VERSION}"' in pkg.read_text():
        if not patched or marker.exists():
            return js, None
        return _patch_portkey(js, marker)
    npm = shutil.which("npm")
    if not npm:
        return None, "npm not found"
    root.mkdir(parents=True, exist_ok=True)
    if not (root / "package.json").exists():
        (root / "package.json").write_text('{"name": "tollway-bench-portkey", "private": true}\n')
    log = root / "install.log"
    with open(log, "wb") as f:
        p = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", f"@portkey-ai/gateway@{PORTKEY_VERSION}"],
            cwd=root,
            stdout=f,
            stderr=subprocess.STDOUT,
        )
    if p.returncode != 0 or not js.exists():
        return None, f"npm install failed: {_log_tail(log, 600)}"
    if patched:
        return _patch_portkey(js, marker)
    return js, None


def _patch_portkey(js: Path, marker: Path) -> tuple[Path | None, str | None]:
    src = js.read_text()
    for old, new in PORTKEY_PATCH:
        if src.count(old) != 1:
            return (
                None,
                f"the stream patch does not apply to this build (pattern found {src.count(old)} times)",
            )
        src = src.replace(old, new)
    js.write_text(src)
    marker.touch()
    return js, None


def node_version() -> str:
    node = shutil.which("node")
    if not node:
        return "not installed"
    return subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()


def portkey(port: int, provider: Target, logdir: Path, patched: bool = False) -> Target:
    """Portkey's gateway: provider openai, custom host = the fake provider; it passes the model name through.

    `patched`: the copy with the stream fix (PORTKEY_PATCH), measured in the streaming scenarios only.
    """
    name = "portkey-patched" if patched else "portkey"
    t = Target(
        name=name,
        kind="peer",
        base=f"http://127.0.0.1:{port}",
        health_path="/",
        models_path=None,
        version=f"@portkey-ai/gateway@{PORTKEY_VERSION}{' + local stream patch' if patched else ''}"
        f" on node {node_version()}",
        headers={
            "authorization": "Bearer sk-fake",
            "x-portkey-provider": "openai",
            "x-portkey-custom-host": f"{provider.base}/v1",
        },
    )
    js, err = install_portkey(patched)
    if err:
        t.unavailable = f"Portkey {err}"
        return t
    if not port_free(port):
        t.unavailable = f"port {port} is taken"
        return t
    env = dict(os.environ, NODE_ENV="production")
    argv = [shutil.which("node") or "node", str(js), f"--port={port}", "--headless"]
    t.command = f"NODE_ENV=production node .../build/start-server.js --port={port} --headless"
    log = logdir / f"{name}.log"
    t.proc = subprocess.Popen(
        argv, stdout=open(log, "wb"), stderr=subprocess.STDOUT, env=env, start_new_session=True, cwd=js.parent
    )
    err = wait_http(t.base + "/", t.proc, 30)
    if err:
        t.unavailable = f"Portkey gateway {err}: {_log_tail(log)}"
        stop(t.proc)
        return t
    t.groups = [ProcGroup.from_pid("gateway", t.proc.pid)]
    t.notes.append("single Node process (no worker option); /v1/models is not served for a custom host")
    if patched:
        t.notes.append(
            "locally patched copy (bench/targets.py PORTKEY_PATCH: re-wrap the upstream Response so its "
            "headers are mutable), measured in the streaming scenarios only"
        )
    return t


def probe_redaction(red: Target, provider: Target) -> bool | None:
    """Send one call through the redaction key and read what the provider received (its /_fake/requests).

    True: the e-mail address in the prompt did not reach the provider; False: it did (no redaction
    happened on the path); None: could not tell. The result is added to `red.notes`.
    """
    marker = f"probe-{uuid.uuid4().hex}"
    email = "jane.doe@example.com"
    body = json.dumps(
        {
            "model": MODEL,
            "max_tokens": 8,
            "messages": [{"role": "user", "content": f"{marker} write to {email} today"}],
        }
    ).encode()
    req = urllib.request.Request(
        red.base + red.chat_path,
        data=body,
        method="POST",
        headers={**red.headers, "content-type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            r.read()
    except urllib.error.HTTPError as e:
        red.notes.append(f"redaction probe answered HTTP {e.code}: {e.read()[:200]!r}")
        return None
    except OSError as e:
        red.notes.append(f"redaction probe failed: {e}")
        return None
    try:
        _, raw = _get(provider.base + "/_fake/requests?limit=500", timeout=5)
        seen = [r for r in json.loads(raw) if marker in json.dumps(r.get("body"))]
    except (OSError, ValueError) as e:
        red.notes.append(f"redaction probe: cannot read the provider's record ({e})")
        return None
    if not seen:
        red.notes.append("redaction probe: the provider has no record of the probe call")
        return None
    applied = email not in json.dumps(seen[-1].get("body"))
    red.notes.append(
        "redaction probe: the provider received the prompt with the e-mail address "
        + (
            "replaced (redaction on the path)"
            if applied
            else "UNREDACTED: redaction is not on this edge's path yet, so this row measures the path "
            "without redaction work"
        )
    )
    return applied


def probe_stream_model(t: Target) -> str | None:
    """One small non-stream call with a shape model name (`fake-stream-c3-i0-t0`) through `t`.

    Returns None when the shape arrived (3 completion tokens came back), else a note saying why the
    streaming rows of `t` will not be comparable: an old fake provider that ignores the model name,
    or a Tollway edge whose catalogue predates the bench stream models (both: restart the stack).
    """
    probe = stream_model(3, 0, 0)
    model = STREAM_MODELS[0] if t.kind == "tollway" else probe
    body = json.dumps(
        {
            "model": model,
            "messages": [{"role": "user", "content": "probe"}],
            "max_tokens": 3 if t.kind == "tollway" else None,
        }
    ).encode()
    req = urllib.request.Request(
        t.base + t.chat_path,
        data=body,
        method="POST",
        headers={**t.headers, "content-type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            usage = json.loads(r.read()).get("usage") or {}
    except urllib.error.HTTPError as e:
        if e.code == 404 and t.kind == "tollway":
            return (
                f"stream-model probe: the edge does not know {model} (HTTP 404): its catalogue predates the "
                "bench stream models; restart the stack with the current infra/catalogue.yaml"
            )
        return f"stream-model probe answered HTTP {e.code}: {e.read()[:200]!r}"
    except OSError as e:
        return f"stream-model probe failed: {e}"
    if t.kind == "tollway":
        return None  # max_tokens caps it; the events column tells whether the provider applied the shape
    if usage.get("completion_tokens") != 3:
        return (
            f"stream-model probe: {model} came back with {usage.get('completion_tokens')} completion tokens, "
            "not 3: the fake provider ignores the shape in the model name (older tollway_testing); restart it"
        )
    return None
