"""Edge CPU per call against the fake provider, read from /proc/<pid>/stat.

Starts (all on 127.0.0.1, all stopped at the end): a fresh database with the
stand-in principals tables and one key, a fresh Kafka topic, the fake
provider, and ``python -m tollway_edge``; then runs ``wrk`` (bounded in time)
and prints requests/s and CPU ms per call of the edge, the fake provider and
wrk. Needs the local stack and Debian's ``wrk``.

    uv run python services/edge/bench/cpu_per_call.py [--seconds 10] [--connections 50] [--stream]
        [--admission off|on|both]

``--admission on`` gives the key limits on all four scopes (rpm, tpm,
concurrency, monthly budget: never reached) so every call runs the admission
script (and the release script, for the concurrency slot) on Valkey db
``TOLLWAY_BENCH_VALKEY_DB`` (default 14; the bench tenant's keys are deleted
at the end); ``off`` runs the edge with ``TOLLWAY_EDGE_ADMISSION_ENABLED=false``;
``both`` (default) runs off then on against the same stack and prints the
difference: admission's added latency (wrk mean/p50/p99) and edge CPU per call.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "integration"))
sys.path.insert(0, str(HERE))
from bench_stack import (  # noqa: E402
    PEPPER,
    VALKEY,
    VALKEY_DB,
    close_stack,
    cpu_times,
    delete_tenant_keys,
    open_stack,
    stop_process,
    wait_http,
)
from ledger_schema import create_ledger_schema  # noqa: E402
from principals_schema import create_principals_schema, upsert_key  # noqa: E402


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` so far."""
    return sum(cpu_times(pid))


def _ms(text: str) -> float:
    m = re.match(r"([\d.]+)(us|ms|s)", text)
    assert m, text
    return float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)]


def run_wrk(args: argparse.Namespace, lua: Path, edge_pid: int, fake_pid: int) -> dict[str, float]:
    """Warm up, then one timed wrk run; latency (ms) and CPU per call (ms)."""
    url = "http://127.0.0.1:18080/v1/chat/completions"
    subprocess.run(["wrk", "-t1", "-c10", "-d2s", "-s", str(lua), url], capture_output=True, check=True)
    spy = None
    if args.profile:
        spy = subprocess.Popen(
            [
                "py-spy",
                "record",
                "-p",
                str(edge_pid),
                "-f",
                "raw",
                "-o",
                args.profile,
                "-d",
                str(args.seconds),
                "-r",
                "200",
                "--nonblocking",
            ],
            stdout=subprocess.DEVNULL,
        )
    e0, f0 = cpu_seconds(edge_pid), cpu_seconds(fake_pid)
    t0 = time.perf_counter()
    wrk = subprocess.run(
        ["wrk", "-t1", f"-c{args.connections}", f"-d{args.seconds}s", "--latency", "-s", str(lua), url],
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - t0
    e1, f1 = cpu_seconds(edge_pid), cpu_seconds(fake_pid)
    if spy is not None:
        spy.wait(30)
    out = wrk.stdout
    print(out)
    total = int(re.search(r"(\d+) requests in", out).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {
        "total": total,
        "non2xx": int(non2xx.group(1)) if non2xx else 0,
        "rps": total / wall,
        "mean": _ms(re.search(r"Latency\s+([\d.]+(?:us|ms|s))\s", out).group(1)),
        "p50": _ms(re.search(r"^\s*50(?:\.000)?%\s+(\S+)", out, re.M).group(1)),
        "p99": _ms(re.search(r"^\s*99(?:\.000)?%\s+(\S+)", out, re.M).group(1)),
        "edge_cpu": (e1 - e0) / total * 1000,
        "fake_cpu": (f1 - f0) / total * 1000,
    }


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--connections", type=int, default=50)
    ap.add_argument("--stream", action="store_true")
    ap.add_argument("--log-level", default="WARNING", help="INFO adds the canonical line per call")
    ap.add_argument("--profile", help="write py-spy collapsed stacks of the edge to this file")
    ap.add_argument("--admission", choices=["off", "on", "both"], default="both")
    args = ap.parse_args()
    tenant = f"bench-{uuid.uuid4().hex[:8]}"

    stack = await open_stack()
    dsn, tmp = stack.dsn, stack.tmp
    try:
        await create_principals_schema(dsn)
        await create_ledger_schema(dsn)
        big = {
            "requests_per_minute": 10**8,
            "tokens_per_minute": 10**12,
            "max_concurrent": 100_000,
            "budget_micro_usd": 10**15,
        }
        limits = [
            {"scope": "key", "scope_id": "$key", **big},
            {"scope": "user", "scope_id": "user-1", **big},
            {"scope": "team", "scope_id": "team-1", **big},
            {"scope": "tenant", "scope_id": tenant, **big},
        ]
        key, _, _ = await upsert_key(dsn, PEPPER.encode(), tenant_id=tenant, limits=limits)
        cat = {
            "version": 1,
            "providers": {"fake": {"base_url": "http://127.0.0.1:19000/v1", "timeout_seconds": 30}},
            "models": {
                "m": {
                    "prices": {"input": 1, "output": 1},
                    "routes": [{"provider": "fake", "upstream_model": "fake-model"}],
                }
            },
        }
        stack.write_catalogue(cat)
        fake = stack.start_fake(19000)
        body = '{"model":"m","messages":[{"role":"user","content":"hello there"}]%s}' % (
            ',"stream":true' if args.stream else ""
        )
        lua = tmp / "post.lua"
        lua.write_text(
            'wrk.method = "POST"\n'
            f"wrk.body = '{body}'\n"
            'wrk.headers["Content-Type"] = "application/json"\n'
            f'wrk.headers["Authorization"] = "Bearer {key}"\n'
        )
        modes = ["off", "on"] if args.admission == "both" else [args.admission]
        results = {}
        for mode in modes:
            env = {
                **stack.edge_env(18080, f"{VALKEY}/{VALKEY_DB}", args.log_level),
                "TOLLWAY_EDGE_ADMISSION_ENABLED": "true" if mode == "on" else "false",
            }
            edge = subprocess.Popen([sys.executable, "-m", "tollway_edge"], env=env)  # noqa: ASYNC220 - setup, not measured
            try:
                wait_http("http://127.0.0.1:18080/readyz")
                results[mode] = run_wrk(args, lua, edge.pid, fake.pid)
            finally:
                stop_process(edge)
        for mode, r in results.items():
            print(
                f"admission={mode} mode={'stream' if args.stream else 'non-stream'} requests={r['total']} "
                f"non2xx={r['non2xx']} req/s={r['rps']:.0f} latency mean={r['mean']:.3f} ms "
                f"p50={r['p50']:.3f} ms p99={r['p99']:.3f} ms edge CPU/call={r['edge_cpu']:.3f} ms "
                f"fake CPU/call={r['fake_cpu']:.3f} ms"
            )
        if len(results) == 2:
            on, off = results["on"], results["off"]
            print(
                f"admission adds: latency mean {on['mean'] - off['mean']:+.3f} ms, p50 {on['p50'] - off['p50']:+.3f} ms, "
                f"p99 {on['p99'] - off['p99']:+.3f} ms; edge CPU/call {on['edge_cpu'] - off['edge_cpu']:+.3f} ms"
            )
    finally:
        await delete_tenant_keys(tenant)
        await close_stack(stack)


if __name__ == "__main__":
    asyncio.run(main())
