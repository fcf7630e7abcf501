"""Time to first chunk of a burst of concurrent streams: the provider alone and
one or more edges (from source trees), interleaved round by round.

Starts (all on 127.0.0.1, free ports, all stopped at the end): a fresh database
with the stand-in principals tables and one key carrying every limit kind on
its scope (as the full bench's key: one admission script and one release per
call on Valkey db 14, the tenant's counters deleted at the end), a fresh Kafka
topic, the fake provider, and one 2-worker edge (``TOLLWAY_EDGE_WORKERS=2``,
``SO_REUSEPORT``) per ``--edge LABEL=SRC`` (``SRC``: a source directory put
first on ``PYTHONPATH``, or ``.`` for this checkout). Then, for ``--rounds``
rounds, each target in turn (the order rotated every round) gets the same
burst as ``python -m bench --scenarios streams``: ``bench.load.run_streams``
(2 client processes opening ``--streams`` streams evenly over ``--ramp``
seconds) of the fake provider's ``fake-stream-c<chunks>-i<interval>-t<ttft>``
model. Printed per step: completed streams, time to first chunk p50/p95 (ms),
and the kernel's listen-queue overflows during the step (``nstat``
``TcpExtListenOverflows``, machine-wide); at the end the medians per target
and the edges' Δ vs the provider alone (medians of the per-round Δs).

    uv run --no-sync python services/edge/bench/stream_burst.py --rounds 3 \\
        --edge main=/tmp/burst_main/services/edge/src --edge wt=. [--streams 1000 --chunks 60 \\
        --interval 50 --ttft 400] [--provider-backlog 128] [--min-idle 500]

``--provider-backlog N`` starts the fake provider with listen backlog N (default:
the fake provider's own, 4096; the same provider serves the direct target and the
edges; 128 was its backlog before, aiohttp's default). ``--min-idle N`` sets the
provider's ``min_idle_connections`` (warm connections, per edge worker) in the edges'
catalogue and waits, before the first step, until the number of connections to the
provider stops changing (printed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(HERE.parent / "tests" / "integration"))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

from bench_stack import (  # noqa: E402
    VALKEY,
    VALKEY_DB,
    close_stack,
    cpu_times,
    delete_tenant_keys,
    free_port,
    open_stack,
    wait_http,
)
from principals_schema import create_principals_schema, upsert_key  # noqa: E402
from relay_cpu import FULL_PATH_LIMITS, PEPPER, seed_budget  # noqa: E402

from bench.load import run_streams  # noqa: E402


def listen_overflows() -> int:
    """The machine's ``TcpExtListenOverflows`` so far (``/proc/net/netstat``)."""
    lines = Path("/proc/net/netstat").read_text().splitlines()
    for head, vals in zip(lines[::2], lines[1::2], strict=False):
        if head.startswith("TcpExt:"):
            return int(dict(zip(head.split()[1:], vals.split()[1:], strict=False))["ListenOverflows"])
    return 0


def wait_listening(port: int, sockets: int, timeout: float = 60.0) -> None:
    """Wait until ``sockets`` listening sockets are bound to ``port`` (one per
    ``SO_REUSEPORT`` worker: ``/readyz`` answers as soon as the first worker is
    up, while the second may still be importing); RuntimeError on timeout."""
    deadline = time.monotonic() + timeout
    hexport = f":{port:04X}"
    while time.monotonic() < deadline:
        rows = Path("/proc/net/tcp").read_text().splitlines()[1:]
        if sum(1 for r in rows if r.split()[1].endswith(hexport) and r.split()[3] == "0A") >= sockets:
            return
        time.sleep(0.2)
    raise RuntimeError(f"fewer than {sockets} sockets listen on {port}")


def established_to(port: int) -> int:
    """Established TCP connections to 127.0.0.1:``port`` (client side; ``/proc/net/tcp``)."""
    rows = Path("/proc/net/tcp").read_text().splitlines()[1:]
    return sum(1 for r in rows if (f := r.split())[3] == "01" and int(f[2].rsplit(":", 1)[1], 16) == port)


async def settle(count: Callable[[], int], quiet_s: float = 1.0, within_s: float = 60.0) -> int:
    """Poll ``count()`` until it has not changed for ``quiet_s`` (or ``within_s`` passed); its last value."""
    loop = asyncio.get_running_loop()
    end = loop.time() + within_s
    last, since = count(), loop.time()
    while loop.time() < end and loop.time() - since < quiet_s:
        await asyncio.sleep(0.1)
        now = count()
        if now != last:
            last, since = now, loop.time()
    return last


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (the edge supervisor's workers)."""
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        out += [int(c) for c in (task / "children").read_text().split()]
    return out


def start_provider(port: int, backlog: int | None) -> subprocess.Popen[bytes]:
    """The fake provider on ``port`` (listen backlog ``backlog``; None: its default)."""
    extra = [] if backlog is None else ["--backlog", str(backlog)]
    cmd = [sys.executable, "-m", "tollway_testing.fake_provider", "--port", str(port), "--no-access-log"]
    proc = subprocess.Popen([*cmd, *extra])
    wait_http(f"http://127.0.0.1:{port}/healthz")
    return proc


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--edge", action="append", default=[], help="LABEL=SRC (SRC '.' = this checkout)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--streams", type=int, default=1000)
    ap.add_argument("--chunks", type=int, default=60)
    ap.add_argument("--interval", type=int, default=50)
    ap.add_argument("--ttft", type=int, default=400)
    ap.add_argument("--ramp", type=float, default=1.0)
    ap.add_argument("--clients", type=int, default=2)
    ap.add_argument("--provider-backlog", type=int, default=None)
    ap.add_argument(
        "--min-idle",
        type=int,
        default=0,
        help="the provider's min_idle_connections in the edges' catalogue (per worker; an edge tree"
        " without warm connections ignores it); the run waits for the warm-up before the first step",
    )
    ap.add_argument("--no-direct", action="store_true")
    ap.add_argument("--log-dir", help="run the edges at INFO, their log lines into LOG_DIR/<label>.log")
    ap.add_argument("--json", help="write every step to this file")
    ap.add_argument(
        "--profile",
        help="py-spy record each edge worker during its steps: DIR/<label>-<round>-<pid>.txt (collapsed stacks)",
    )
    args = ap.parse_args()
    stack = await open_stack()
    tenant = f"bench-{uuid.uuid4().hex[:8]}"
    fake_port = free_port()
    upstream_model = f"fake-stream-c{args.chunks}-i{args.interval}-t{args.ttft}"
    try:
        await create_principals_schema(stack.dsn)
        limits = [{"scope": "key", "scope_id": "$key", **FULL_PATH_LIMITS}]
        key, key_id, _ = await upsert_key(stack.dsn, PEPPER.encode(), tenant_id=tenant, limits=limits)
        await seed_budget(tenant, key_id)
        stack.write_catalogue(
            {
                "version": 1,
                "providers": {
                    "fake": {
                        "base_url": f"http://127.0.0.1:{fake_port}/v1",
                        "timeout_seconds": 60,
                        **({"min_idle_connections": args.min_idle} if args.min_idle else {}),
                    }
                },
                "models": {
                    "burst": {
                        "prices": {"input": 1, "output": 1},
                        "routes": [{"provider": "fake", "upstream_model": upstream_model}],
                    }
                },
            }
        )
        provider = start_provider(fake_port, args.provider_backlog)
        stack.procs.append(provider)
        targets: dict[str, tuple[str, str]] = {}
        workers: dict[str, list[int]] = {}
        if not args.no_direct:
            targets["direct"] = (f"http://127.0.0.1:{fake_port}/v1/chat/completions", upstream_model)
        for spec in args.edge:
            label, src = spec.split("=", 1)
            port = free_port()
            level = "INFO" if args.log_dir else "WARNING"
            env = {
                **stack.edge_env(port, f"{VALKEY}/{VALKEY_DB}", log_level=level),
                "TOLLWAY_EDGE_WORKERS": "2",
                "TOLLWAY_EDGE_EXPECTED_PROCESSES": "2",
            }
            env["TOLLWAY_EDGE_JOURNAL_DIR"] = str(stack.tmp / f"journal-{label}")
            if src != ".":
                src_dir = os.path.abspath(src)  # noqa: ASYNC240 - setup
                env["PYTHONPATH"] = src_dir + os.pathsep + env.get("PYTHONPATH", "")
            err = open(Path(args.log_dir) / f"{label}.log", "wb") if args.log_dir else None  # noqa: SIM115, ASYNC230
            edge = subprocess.Popen([sys.executable, "-m", "tollway_edge"], env=env, stderr=err)  # noqa: ASYNC220
            stack.procs.append(edge)
            wait_http(f"http://127.0.0.1:{port}/readyz")
            wait_listening(port, 2)
            await asyncio.sleep(2.0)  # the workers' start-up work (principals, journal, Kafka) settles
            targets[label] = (f"http://127.0.0.1:{port}/v1/chat/completions", "burst")
            workers[label] = children(edge.pid)
        if args.min_idle:  # warm connections open in the background: wait until their count settles
            held = await settle(lambda: established_to(fake_port))
            print(f"connections to the provider before the first step: {held}", flush=True)
        names = list(targets)
        steps: list[dict[str, object]] = []
        for rnd in range(args.rounds):
            order = names[rnd % len(names) :] + names[: rnd % len(names)]
            for name in order:
                url, model = targets[name]
                body = json.dumps(
                    {
                        "model": model,
                        "messages": [{"role": "user", "content": "hello there"}],
                        "stream": True,
                        "stream_options": {"include_usage": True},
                    }
                ).encode()
                headers = {"Authorization": f"Bearer {key}", "content-type": "application/json"}
                spies = [
                    subprocess.Popen(  # noqa: ASYNC220 - around the step
                        [
                            "py-spy",
                            "record",
                            "--pid",
                            str(pid),
                            "--rate",
                            "250",
                            "--format",
                            "raw",
                            "--nonblocking",
                            "--duration",
                            str(int(args.ramp + 1.5 + args.chunks * args.interval / 1000 + args.ttft / 1000)),
                            "--output",
                            f"{args.profile}/{name}-{rnd}-{pid}.txt",
                        ],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
                    for pid in (workers.get(name, []) if args.profile else [])
                ]
                over0 = listen_overflows()
                edge_pids = workers.get(name, [])
                cpu0 = [sum(cpu_times(p)) for p in [provider.pid, *edge_pids]]
                load0 = os.getloadavg()[0]
                timeline: list[tuple[float, float]] = []
                r = await asyncio.to_thread(
                    run_streams,
                    url,
                    body=body,
                    headers=headers,
                    streams=args.streams,
                    processes=args.clients,
                    timeout_s=max(60.0, args.chunks * args.interval / 1000 * 4),
                    ramp_s=args.ramp,
                    timeline=timeline,
                )
                for spy in spies:
                    spy.wait()
                cpu = [sum(cpu_times(p)) - c for p, c in zip([provider.pid, *edge_pids], cpu0, strict=True)]
                step = {
                    "round": rnd,
                    "target": name,
                    "completed": r.completed,
                    "failures": r.failures,
                    "p50": r.ttfc_p50_ms,
                    "p95": r.ttfc_p95_ms,
                    "p99": r.ttfc_p99_ms,
                    "overflows": listen_overflows() - over0,
                    "late_starts": r.late_starts,
                    "provider_cpu_ms_per_stream": cpu[0] / args.streams * 1000,
                    "edge_cpu_ms_per_stream": sum(cpu[1:]) / args.streams * 1000,
                    "load": load0,
                    "timeline": timeline,
                }
                steps.append(step)
                print(
                    f"round {rnd} {name:<8} completed {r.completed}/{args.streams} ttfc p50 {r.ttfc_p50_ms:.1f}"
                    f" p95 {r.ttfc_p95_ms:.1f} p99 {r.ttfc_p99_ms:.1f} ms; listen overflows {step['overflows']};"
                    f" late starts {r.late_starts}; CPU per stream: provider"
                    f" {step['provider_cpu_ms_per_stream']:.2f} ms, edge {step['edge_cpu_ms_per_stream']:.2f} ms;"
                    f" load {load0:.2f} {r.failures or ''}",
                    flush=True,
                )
                await asyncio.sleep(1.0)
        print("medians over rounds (ttfc p50 / p95 ms; Δ vs direct = median of the per-round Δs):")
        for name in names:
            mine = [s for s in steps if s["target"] == name]
            p50 = statistics.median(float(s["p50"]) for s in mine)  # type: ignore[arg-type]
            p95 = statistics.median(float(s["p95"]) for s in mine)  # type: ignore[arg-type]
            edge_cpu = statistics.median(float(s["edge_cpu_ms_per_stream"]) for s in mine)  # type: ignore[arg-type]
            line = f"  {name:<8} p50 {p50:.1f} p95 {p95:.1f}"
            if name != "direct":
                line += f"; edge CPU per stream {edge_cpu:.2f} ms"
            if name != "direct" and "direct" in targets:
                d50, d95 = [], []
                for s in mine:
                    d = next(x for x in steps if x["target"] == "direct" and x["round"] == s["round"])
                    d50.append(float(s["p50"]) - float(d["p50"]))  # type: ignore[arg-type]
                    d95.append(float(s["p95"]) - float(d["p95"]))  # type: ignore[arg-type]
                line += (
                    f"; Δp50 {statistics.median(d50):.1f} Δp95 {statistics.median(d95):.1f}"
                    f" (rounds: {', '.join(f'{v:.0f}' for v in d95)})"
                )
            print(line, flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps(steps, indent=2))  # noqa: ASYNC240 - after the run
    finally:
        await close_stack(stack)
        await delete_tenant_keys(tenant)


if __name__ == "__main__":
    asyncio.run(main())
