"""Edge CPU per call and per relayed stream chunk, read from /proc/<pid>/stat,
and each call's latency at the client (request sent → last byte read)
(no wrk needed: the load comes from an aiohttp client in this process).

Starts (all on 127.0.0.1, free ports, all stopped at the end): a fresh
database with the stand-in principals tables and one key without limits, a
fresh Kafka topic, the fake provider, and ``python -m tollway_edge``
(admission on, but the key has no limits: no Valkey I/O; ``--limits`` gives
the key every limit kind on its scope, as the full bench's key
(``bench/targets.BENCH_LIMITS``): one admission script and one slot release
per call on Valkey db 14, the budget counter seeded at zero before the run as
quota would on the first call, the tenant's counters deleted at the end).
Then, per mode,
``--calls`` calls at ``--concurrency``: a non-streamed call, and streams of
10 and of 200 chunks, 2 ms apart so each chunk arrives on its own, as from a
real model (the fake provider's ``fake-stream-c<N>-i2`` models).
Relay CPU per chunk = (CPU per 200-chunk stream - CPU per 10-chunk stream) / 190.
The ``anthropic-stream-*`` modes send the same chat calls to the fake
provider spoken to as ``kind: anthropic``: Anthropic's events translated into
chat completion chunks (``translate.AnthropicToOpenAIStream``), for the
translated relay's CPU per chunk against the pass-through one.

    uv run python services/edge/bench/relay_cpu.py [--calls 400] [--concurrency 16] [--src DIR] [--json FILE]
        [--limits] [--log-level INFO] [--direct]

``--direct`` (plain mode) times the same calls sent straight to the fake
provider after each edge run (the provider's own latency under the same
load): the edge's added latency is the difference, e.g. at ``--concurrency 1``.

``--log-level`` (default WARNING: no per-call line) INFO writes the canonical
log line of every call, as the edge does in production (to /dev/null here).

Latency p50/p99 per mode is printed with the CPU (measured in the same calls).
Each non-streamed run starts with ``--warmup`` untimed calls (default 200: the
edge's first seconds after start were slower, most of one run's slow calls); this
client's garbage collector is frozen and off during the timed calls (its own
gen-2 pauses, 50–90 ms, were in the measured tail). ``--slow-ms N`` prints every
call of at least N ms with its start time and the edge's ``x-tollway-overhead-ms``,
to line the tail up with the GC logs of ``bench/gcprobe`` (docs/edge-performance.md).
``--src DIR`` runs the edge from another source tree (e.g. an older commit:
``git archive <commit> services/edge/src | tar -x -C /tmp/before`` then
``--src /tmp/before/services/edge/src``) for before/after numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import aiohttp

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "integration"))
sys.path.insert(0, str(HERE))
from bench_stack import (  # noqa: E402
    PEPPER,
    VALKEY,
    VALKEY_DB,
    close_stack,
    delete_tenant_keys,
    free_port,
    open_stack,
    wait_http,
)
from bench_stack import cpu_times as cpu_seconds  # noqa: E402
from principals_schema import create_principals_schema, upsert_key  # noqa: E402

# Every limit kind on the key's scope, far above what a run reaches (bench/targets.BENCH_LIMITS)
FULL_PATH_LIMITS = {
    "requests_per_minute": 10**9,
    "tokens_per_minute": 10**12,
    "max_concurrent": 10**6,
    "budget_micro_usd": 10**15,
    "budget_period": "month",
}

MODES = {
    "plain": ("plain", False, 0),
    "stream-10": ("s10", True, 10),
    "stream-200": ("s200", True, 200),
    "anthropic-stream-10": ("a10", True, 10),
    "anthropic-stream-200": ("a200", True, 200),
}


async def _call(session: aiohttp.ClientSession, url: str, body: bytes, headers: dict[str, str]) -> int:
    async with session.post(url, data=body, headers=headers) as resp:
        n = 0
        async for _ in resp.content.iter_any():
            n += 1
        assert resp.status == 200, resp.status
        LAST_OVERHEAD[0] = resp.headers.get("x-tollway-overhead-ms", "-")
        return n


WARMUP_CALLS = 200  # per run, before the timed calls (--warmup)
LAST_OVERHEAD = ["-"]  # the edge's x-tollway-overhead-ms of the last call answered
SLOW_MS = float("inf")
SLOW: list[tuple[float, float, str, str]] = []  # (wall start, ms, url, edge overhead ms) of calls >= SLOW_MS


def _rss_mib(pid: int) -> float:
    """VmRSS of ``pid``, MiB (/proc/<pid>/status)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


async def run_mode(
    url: str, key: str, model: str, stream: bool, calls: int, concurrency: int, pid: int
) -> tuple[float, float, list[float]]:
    """``(user, system, latencies)``: CPU of the edge process per call, ms, over
    ``calls`` calls after a warm-up, and each call's latency at the client, ms."""
    body = b'{"model":"%s","messages":[{"role":"user","content":"hello there"}]%s}' % (
        model.encode(),
        b',"stream":true' if stream else b"",
    )
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:
        await asyncio.gather(*(_call(session, url, body, headers) for _ in range(concurrency * 2)))
        for _ in range(
            0 if stream else WARMUP_CALLS // max(concurrency, 1)
        ):  # past the first calls' lazy work
            await asyncio.gather(*(_call(session, url, body, headers) for _ in range(concurrency)))
        sem = asyncio.Semaphore(concurrency)
        latencies: list[float] = []

        async def one() -> None:
            async with sem:
                t = time.perf_counter()
                await _call(session, url, body, headers)
                ms = (time.perf_counter() - t) * 1000.0
                latencies.append(ms)
                if ms >= SLOW_MS:
                    SLOW.append((time.time() - ms / 1000.0, ms, url, LAST_OVERHEAD[0]))

        # this client's own collector out of the timed window (its pauses were in the tail)
        gc.collect()
        gc.freeze()
        gc.disable()
        try:
            u0, s0 = cpu_seconds(pid)
            w0 = time.time()
            await asyncio.gather(*(one() for _ in range(calls)))
            u1, s1 = cpu_seconds(pid)
        finally:
            gc.enable()
            gc.unfreeze()
        if SLOW_MS != float("inf"):
            print(f"run {url}: {w0:.6f} .. {time.time():.6f}")
        return (u1 - u0) / calls * 1000.0, (s1 - s0) / calls * 1000.0, latencies


async def seed_budget(tenant: str, key_id: str) -> None:
    """Create the key's budget counter at zero spend, as quota does on a cold counter's first
    call (the edge of this bench has no quota to ask: every admission would fall back to local)."""
    from tollway_admission import Admission, valkey_client
    from tollway_contracts.limits import Limit

    client = valkey_client(f"{VALKEY}/{VALKEY_DB}")
    try:
        await Admission(client).seed_budget(
            tenant, Limit(scope="key", scope_id=key_id, **FULL_PATH_LIMITS), 0
        )
    finally:
        await client.aclose()


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=400)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--src", help="run the edge from this source directory (PYTHONPATH)")
    ap.add_argument("--profile", help="run the edge under cProfile, writing this file at exit")
    ap.add_argument("--modes", default=",".join(MODES), help="comma-separated subset of " + ", ".join(MODES))
    ap.add_argument(
        "--repeat", type=int, default=1, help="measure each mode this many times (the minimum is kept)"
    )
    ap.add_argument(
        "--limits",
        action="store_true",
        help="the key carries every limit kind (rpm, tpm, max_concurrent, monthly budget; never reached)",
    )
    ap.add_argument(
        "--direct",
        action="store_true",
        help="plain mode: also time the same calls sent to the fake provider directly (interleaved)",
    )
    ap.add_argument(
        "--log-level", default="WARNING", help="the edge's TOLLWAY_LOG_LEVEL (INFO: one line per call)"
    )
    ap.add_argument(
        "--json",
        help="also write the figures to this file (read by `python -m bench`, which runs this script)",
    )
    ap.add_argument(
        "--slow-ms",
        type=float,
        help="print every call that took at least this long (wall start, ms, target): to line the tail up "
        "with the processes' GC logs (PYTHONPATH=services/edge/bench/gcprobe)",
    )
    ap.add_argument(
        "--warmup", type=int, default=200, help="untimed calls before each timed run (default 200)"
    )
    args = ap.parse_args()
    global SLOW_MS, WARMUP_CALLS
    WARMUP_CALLS = args.warmup
    if args.slow_ms is not None:
        SLOW_MS = args.slow_ms
    stack = await open_stack()
    dsn = stack.dsn
    tenant = f"bench-{uuid.uuid4().hex[:8]}"
    fake_port, edge_port = free_port(), free_port()
    try:
        await create_principals_schema(dsn)
        limits = [{"scope": "key", "scope_id": "$key", **FULL_PATH_LIMITS}] if args.limits else None
        key, key_id, _ = await upsert_key(dsn, PEPPER.encode(), tenant_id=tenant, limits=limits)
        if args.limits:
            await seed_budget(tenant, key_id)
        cat = {
            "version": 1,
            "providers": {
                "fake": {"base_url": f"http://127.0.0.1:{fake_port}/v1", "timeout_seconds": 30},
                "fake-anthropic": {
                    "kind": "anthropic",
                    "base_url": f"http://127.0.0.1:{fake_port}/v1",
                    "api_key_env": "TOLLWAY_BENCH_PROVIDER_KEY",
                    "timeout_seconds": 30,
                },
            },
            "models": {
                name: {
                    "prices": {"input": 1, "output": 1},
                    "routes": [{"provider": provider, "upstream_model": up}],
                }
                for name, provider, up in (
                    ("plain", "fake", "fake-model"),
                    ("s10", "fake", "fake-stream-c10-i2"),
                    ("s200", "fake", "fake-stream-c200-i2"),
                    ("a10", "fake-anthropic", "fake-stream-c10-i2"),
                    ("a200", "fake-anthropic", "fake-stream-c200-i2"),
                )
            },
        }
        stack.write_catalogue(cat)
        fake = stack.start_fake(fake_port)
        env = {
            **stack.edge_env(edge_port, f"{VALKEY}/{VALKEY_DB}", log_level=args.log_level),
            "TOLLWAY_BENCH_PROVIDER_KEY": "sk-bench",
        }
        if args.src:
            env["PYTHONPATH"] = args.src + os.pathsep + env.get("PYTHONPATH", "")
        profile = ["-m", "cProfile", "-o", args.profile] if args.profile else []
        edge = subprocess.Popen(  # noqa: ASYNC220 - setup
            [sys.executable, *profile, "-m", "tollway_edge"],
            env=env,
            stderr=subprocess.DEVNULL if args.log_level.upper() in ("INFO", "DEBUG") else None,
        )
        stack.procs.append(edge)
        wait_http(f"http://127.0.0.1:{edge_port}/readyz")
        url = f"http://127.0.0.1:{edge_port}/v1/chat/completions"
        results: dict[str, float] = {}
        modes: dict[str, dict[str, object]] = {}
        figures: dict[str, object] = {"calls": args.calls, "concurrency": args.concurrency, "modes": modes}
        direct_url = f"http://127.0.0.1:{fake_port}/v1/chat/completions"
        for name in args.modes.split(","):
            model, stream, _ = MODES[name]
            runs, direct = [], []
            for _ in range(args.repeat):
                runs.append(await run_mode(url, key, model, stream, args.calls, args.concurrency, edge.pid))
                if args.direct and name == "plain":  # interleaved: the provider alone, same load
                    direct += (
                        await run_mode(
                            direct_url, "x", "fake-model", False, args.calls, args.concurrency, fake.pid
                        )
                    )[2]
            best = min(runs, key=lambda r: r[0] + r[1])
            results[name] = best[0] + best[1]
            lat = [ms for r in runs for ms in r[2]]
            modes[name] = {
                "cpu_ms_per_call": results[name],
                "runs_cpu_ms": [r[0] + r[1] for r in runs],
                "p50_ms": percentile(lat, 50),
                "p99_ms": percentile(lat, 99),
            }
            rss = _rss_mib(edge.pid)
            modes[name]["edge_rss_mib"] = rss
            print(
                f"{name}: edge RSS after the runs {rss:.1f} MiB; edge CPU per call {results[name]:.3f} ms (user {best[0]:.3f} + system {best[1]:.3f}; "
                f"runs: {', '.join(f'{r[0] + r[1]:.3f}' for r in runs)}); latency p50 "
                f"{percentile(lat, 50):.3f} ms, p99 {percentile(lat, 99):.3f} ms over {len(lat)} calls"
            )
            if direct:
                modes[name]["direct_p50_ms"] = percentile(direct, 50)
                modes[name]["direct_p99_ms"] = percentile(direct, 99)
                print(
                    f"{name}: the provider direct, same calls interleaved: p50 {percentile(direct, 50):.3f} ms, "
                    f"p99 {percentile(direct, 99):.3f} ms; added by the edge: p50 "
                    f"{percentile(lat, 50) - percentile(direct, 50):.3f} ms, "
                    f"p99 {percentile(lat, 99) - percentile(direct, 99):.3f} ms"
                )
        for start, ms, target, overhead in SLOW:
            where = f"edge overhead {overhead} ms" if target == url else "direct"
            print(f"slow call: start {start:.6f} {ms:.3f} ms {where}")
        if "stream-200" in results and "stream-10" in results:
            per_chunk = (results["stream-200"] - results["stream-10"]) / 190 * 1000.0
            figures["relay_us_per_chunk"] = per_chunk
            print(f"relay CPU per streamed chunk: {per_chunk:.1f} µs")
        if "anthropic-stream-200" in results and "anthropic-stream-10" in results:
            translated = (results["anthropic-stream-200"] - results["anthropic-stream-10"]) / 190 * 1000.0
            figures["translated_us_per_chunk"] = translated
            print(
                f"translated relay CPU per streamed chunk (Anthropic events -> chat chunks): {translated:.1f} µs"
            )
        if args.json:
            Path(args.json).write_text(json.dumps(figures, indent=2))  # noqa: ASYNC240 - after the measurement
    finally:
        await close_stack(stack)
        if args.limits:
            await delete_tenant_keys(tenant)


if __name__ == "__main__":
    asyncio.run(main())
