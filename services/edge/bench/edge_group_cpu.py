"""Edge CPU per call the full bench's way, for ablations: private edges, wrk, /proc of the group.

Starts one private edge per ``--config`` (``python -m tollway_edge`` from this checkout, or
from ``SRC=<dir>`` given in the config, on a free port, its own journal directory) against the
running stack (``.tollway/stack.env``: Postgres principals, Valkey, Kafka, the fake provider,
quota for cold budget counters), mints one key with the full bench's limits
(``bench.targets.BENCH_LIMITS``, every limit kind on the key's scope) through the admin API,
then, per round, drives each edge in turn (the order rotated every round) with the bench's
chat body: ``wrk -t1 -c<c> -d<duration>s`` and the bench's Lua script (``--client wrk``), or
an aiohttp client as ``relay_cpu.py``'s in its own process (``--client aiohttp``). CPU per call
= CPU seconds (utime+stime from ``/proc/<pid>/stat``) of the edge's process and every
descendant (supervisor, resource tracker, workers), over the load plus 0.5 s, ÷ calls answered.

    set -a; . .tollway/stack.env; set +a
    uv run --no-sync python services/edge/bench/edge_group_cpu.py --rounds 3 \
        --config w2:WORKERS=2 --config w1:WORKERS=1

A config is ``label:NAME=VALUE,NAME=VALUE``: ``NAME`` is a ``TOLLWAY_EDGE_`` setting without its
prefix (``WORKERS=2``), or a full environment variable (``PROMETHEUS_MULTIPROC_DIR=@tmp``: a new
temporary directory), or ``SRC=<dir>`` (the edge's source on ``PYTHONPATH``), or
``STDOUT=<path>`` (where the edge's log goes; default ``/dev/null``). Prints one line per run
and the medians per config. Numbers only: no assertion, no timing test.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
from bench import load, targets  # noqa: E402
from bench.__main__ import CHAT_BODY  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def group_pids(root: int) -> list[int]:
    """``root`` and every descendant of it (from ``/proc/*/stat``)."""
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            fields = Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(d))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def group_cpu(root: int) -> dict[int, tuple[float, float, int, int]]:
    """(user s, system s, read and write syscalls (``/proc/<pid>/io`` syscr + syscw), voluntary
    context switches (the process blocked: an event loop's wait found nothing ready)) of each
    process of ``root``'s group."""
    cpu = {}
    for pid in group_pids(root):
        try:
            f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            io = Path(f"/proc/{pid}/io").read_text()
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        vcs = next(int(ln.split()[1]) for ln in status.splitlines() if ln.startswith("voluntary_ctxt"))
        calls = sum(int(ln.split()[1]) for ln in io.splitlines() if ln.startswith(("syscr", "syscw")))
        cpu[pid] = (int(f[11]) / TICK, int(f[12]) / TICK, calls, vcs)
    return cpu


def start_edge(label: str, spec: str, port: int, tmp: Path) -> subprocess.Popen[bytes]:
    """Start one private edge for the config ``spec``; returns its process."""
    env = dict(os.environ)
    env.update(
        TOLLWAY_EDGE_PORT=str(port),
        TOLLWAY_EDGE_WORKERS="1",
        TOLLWAY_EDGE_JOURNAL_DIR=str(tmp / f"journal-{label}"),
        TOLLWAY_EDGE_QUOTA_URL="http://127.0.0.1:8082",
    )
    stdout = "/dev/null"
    for item in filter(None, spec.split(",")):
        name, _, value = item.partition("=")
        if name == "SRC":
            env["PYTHONPATH"] = value
        elif name == "STDOUT":
            stdout = value
        elif name.startswith(("PROMETHEUS_", "PYTHON", "TOLLWAY_")):
            if value == "@tmp":
                value = tempfile.mkdtemp(prefix=f"prom-{label}-", dir=tmp)
            env[name] = value
        else:
            env[f"TOLLWAY_EDGE_{name}"] = value
    if env["TOLLWAY_EDGE_WORKERS"] != "1":
        env.setdefault("TOLLWAY_EDGE_EXPECTED_PROCESSES", env["TOLLWAY_EDGE_WORKERS"])
    out = open(stdout, "ab")  # noqa: SIM115 - kept open for the process's life
    return subprocess.Popen(
        [sys.executable, "-m", "tollway_edge"],
        env=env,
        stdout=out,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def wait_ready(port: int, timeout: float = 60) -> None:
    """Poll the edge's /readyz until 200; RuntimeError after ``timeout`` s."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1) as r:
                if r.status == 200:
                    return
        except Exception:  # noqa: BLE001 - not up yet
            time.sleep(0.3)
    raise RuntimeError(f"edge on :{port} not ready")


AIOHTTP_CLIENT = r"""
import asyncio, sys, time, aiohttp
url, key, c, dur = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
body = sys.stdin.buffer.read()
async def main():
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    n = [0, 0]
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=c)) as s:
        end = time.monotonic() + dur
        async def worker():
            while time.monotonic() < end:
                async with s.post(url, data=body, headers=headers) as r:
                    await r.read()
                    n[r.status == 200] += 1
        await asyncio.gather(*(worker() for _ in range(c)))
    print(n[1], n[0])
asyncio.run(main())
"""


def run_load(client: str, port: int, key: str, c: int, duration: float) -> tuple[int, float]:
    """(calls answered 200, req/s) of one load run."""
    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    if client == "wrk":
        r = load.run_wrk(
            url,
            method="POST",
            body=CHAT_BODY,
            headers={"authorization": f"Bearer {key}", "content-type": "application/json"},
            concurrency=c,
            duration_s=duration,
        )
        if r.failure or r.errors:
            print(f"  wrk: {r.failure or r.error_kinds}", file=sys.stderr)
        return r.ok, r.rps
    t = time.monotonic()
    p = subprocess.run(
        [sys.executable, "-c", AIOHTTP_CLIENT, url, key, str(c), str(duration)],
        input=CHAT_BODY,
        capture_output=True,
        check=True,
    )
    ok, bad = (int(x) for x in p.stdout.split())
    if bad:
        print(f"  aiohttp: {bad} non-200", file=sys.stderr)
    return ok, ok / (time.monotonic() - t)


def main() -> int:
    """Run the ablation; prints per-run lines and medians."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", action="append", required=True, help="label:NAME=VALUE,... (repeatable)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--duration", type=float, default=5.0, help="seconds of load per run")
    ap.add_argument("--warmup", type=float, default=1.0, help="seconds of untimed load before each run")
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument(
        "--client",
        choices=("wrk", "aiohttp"),
        default="wrk",
        help="default client (a config may say CLIENT=)",
    )
    a = ap.parse_args()

    key, key_id, err = targets.provision_key(os.environ["TOLLWAY_ADMIN_TOKEN"], name="edge-group-cpu")
    if not key:
        print(f"could not mint a key: {err}", file=sys.stderr)
        return 1
    tmp = Path(tempfile.mkdtemp(prefix="edge-group-cpu-"))
    edges: dict[str, tuple[subprocess.Popen[bytes], int, str]] = {}
    conc: dict[str, int] = {}
    pin: set[str] = set()
    try:
        for cfg in a.config:
            label, _, spec = cfg.partition(":")
            client = a.client
            parts = []
            for item in filter(None, spec.split(",")):
                if item.startswith("CLIENT="):
                    client = item.split("=", 1)[1]
                elif item.startswith("C="):
                    conc[label] = int(item.split("=", 1)[1])
                elif item == "PIN":
                    pin.add(label)
                else:
                    parts.append(item)
            port = free_port()
            edges[label] = (start_edge(label, ",".join(parts), port, tmp), port, client)
        for _, port, _ in edges.values():
            wait_ready(port)
        for label in pin:  # worker i on CPU i (cycled over the CPUs this process may use)
            cpus = sorted(os.sched_getaffinity(0))
            workers = [
                p
                for p in group_pids(edges[label][0].pid)
                if b"spawn_main" in Path(f"/proc/{p}/cmdline").read_bytes()
            ]
            for i, p in enumerate(sorted(workers)):
                os.sched_setaffinity(p, {cpus[i % len(cpus)]})
        for _, port, _ in edges.values():  # the new key loaded by every edge
            for _ in range(100):
                if run_load("aiohttp", port, key, 1, 0.2)[0]:
                    break
                time.sleep(0.2)
        idle0 = {label: group_cpu(e[0].pid) for label, e in edges.items()}
        time.sleep(5)
        for label, e in edges.items():  # background work (timers, shippers) with no calls
            after = group_cpu(e[0].pid)
            busy = sum(v[0] + v[1] - sum(idle0[label].get(p, (0.0, 0.0, 0, 0))[:2]) for p, v in after.items())
            print(f"idle {label:>12}: {busy / 5 * 1000:.1f} ms of CPU per second", flush=True)
        results: dict[str, list[float]] = {label: [] for label in edges}
        labels = list(edges)
        for rnd in range(a.rounds):
            order = labels[rnd % len(labels) :] + labels[: rnd % len(labels)]
            for label in order:
                proc, port, client = edges[label]
                if a.warmup:
                    run_load(client, port, key, conc.get(label, a.concurrency), a.warmup)
                before = group_cpu(proc.pid)
                ok, rps = run_load(client, port, key, conc.get(label, a.concurrency), a.duration)
                time.sleep(0.5)
                after = group_cpu(proc.pid)
                zero = (0.0, 0.0, 0, 0)
                per_pid = {p: after[p][0] + after[p][1] - sum(before.get(p, zero)[:2]) for p in after}
                user = sum(after[p][0] - before.get(p, zero)[0] for p in after) / max(ok, 1) * 1000
                sysc = sum(after[p][2] - before.get(p, zero)[2] for p in after) / max(ok, 1)
                vcs = sum(after[p][3] - before.get(p, zero)[3] for p in after) / max(ok, 1)
                ms = sum(per_pid.values()) / max(ok, 1) * 1000
                results[label].append(ms)
                load1 = os.getloadavg()[0]
                top = sorted(per_pid.values(), reverse=True)
                print(
                    f"round {rnd + 1} {label:>12} ({client}): {ms:.3f} ms/call  {ok} calls  {rps:,.0f} req/s"
                    f"  user {user:.3f}  sys {ms - user:.3f}  rw-syscalls/call {sysc:.2f}  blocks/call {vcs:.2f}"
                    f"  load {load1:.2f}  per process ms/call {[round(x / max(ok, 1) * 1000, 3) for x in top]}",
                    flush=True,
                )
        print("medians (ms of edge-group CPU per call):")
        for label, vals in results.items():
            print(f"  {label:>12}: {statistics.median(vals):.3f}  ({', '.join(f'{v:.3f}' for v in vals)})")
    finally:
        for proc, _, _ in edges.values():
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for proc, _, _ in edges.values():
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        targets.revoke_key_id(os.environ["TOLLWAY_ADMIN_TOKEN"], key_id or "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
