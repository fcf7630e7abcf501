"""One command for the whole comparison: `uv run --no-sync python -m bench` (or `bash bench/run.sh`).

Starts the peers (pinned, in their own cache dirs), finds Tollway's edge in the running stack,
runs every scenario against every target interleaved step by step (so drifting load from other
users of the machine hits all targets alike), and writes docs/benchmarks.md plus the raw numbers
in docs/benchmarks/results.json.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from . import report, targets
from .edge_profile import profile_edge
from .load import run_streams, run_wrk, wrk_version
from .procs import Meter, ProcGroup, metric_total, valkey_commands_processed

ROUND_TRIPS_METRIC = (
    "tollway_valkey_round_trips_total"  # tollway_admission.roundtrips, counted at the clients
)
RELAY_CPU_SCRIPT = targets.REPO / "services/edge/bench/relay_cpu.py"
RELAY_MODES = "stream-10,stream-200,anthropic-stream-10,anthropic-stream-200"

SWEEP = (1, 2, 4, 8, 16, 32, 64, 128, 256)
PROMPT = "Email jane.doe@example.com or call +1 415 555 0100 about invoice 4411; summarise the thread for me."
CHAT_BODY = orjson.dumps(
    {"model": targets.MODEL, "messages": [{"role": "user", "content": PROMPT}], "max_tokens": 64}
)
STREAM_SCENARIOS = targets.STREAM_SCENARIOS


def stream_body(chunks: int, interval: int, ttft: int) -> bytes:
    """The streaming request: the shape is in the model name (targets.stream_model), the same for every target."""
    return orjson.dumps(
        {
            "model": targets.stream_model(chunks, interval, ttft),
            "messages": [{"role": "user", "content": PROMPT}],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
    )


STREAM_BODY = stream_body(200, 25, 0)  # recorded in results.json as the example stream body


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def raise_nofile() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def machine_facts() -> dict:
    cpu_model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_kb = 0
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal"):
            mem_kb = int(line.split()[1])
    os_name = ""
    try:
        os_name = next(
            ln.split("=", 1)[1].strip('"')
            for ln in Path("/etc/os-release").read_text().splitlines()
            if ln.startswith("PRETTY_NAME=")
        )
    except (OSError, StopIteration):
        pass
    return {
        "cpus": os.cpu_count(),
        "cpu_model": cpu_model,
        "memory_gib": round(mem_kb / 1024 / 1024, 1),
        "os": os_name,
        "kernel": platform.release(),
        "python": platform.python_version(),
        "node": targets.node_version(),
        "wrk": wrk_version(),
        "loadavg_at_start": os.getloadavg(),
        "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[0],
    }


class Runner:
    def __init__(
        self,
        args: argparse.Namespace,
        provider: targets.Target,
        tgts: list[targets.Target],
        loadgen_note: str,
    ) -> None:
        self.args = args
        self.provider = provider
        self.targets = tgts
        self.results: dict = {"steps": []}
        self.loadgen_note = loadgen_note

    def groups_for(self, t: targets.Target) -> list[ProcGroup]:
        gs = list(t.groups)
        if t is not self.provider:
            gs += self.provider.groups
        return gs

    def provider_up(self) -> str | None:
        """The shared stack may restart its provider mid-run: wait up to 60 s for it; a note if it was down."""
        url = self.provider.base + "/healthz"
        if targets.wait_http(url, None, 0.5) is None:
            return None
        log(f"fake provider at {url} not answering; waiting up to 60 s")
        t0 = time.monotonic()
        err = targets.wait_http(url, None, 60)
        return f"provider was down before this step ({'still down' if err else f'back after {time.monotonic() - t0:.0f} s'})"

    def measure_wrk(
        self,
        scenario: str,
        t: targets.Target,
        path: str,
        *,
        method: str,
        body: bytes | None,
        concurrency: int,
        duration: float,
        extra_headers: dict[str, str] | None = None,
    ) -> dict:
        down = self.provider_up()
        headers = dict(t.headers)
        if body:
            headers["content-type"] = "application/json"
        headers.update(extra_headers or {})
        vk0 = valkey_commands_processed() if t.kind == "tollway" else None
        rt0 = self.round_trips(t)
        with Meter(self.groups_for(t), settle_s=self.args.settle) as m:
            r = run_wrk(
                t.base + path,
                method=method,
                body=body,
                headers=headers,
                concurrency=concurrency,
                duration_s=duration,
            )
        vk1 = valkey_commands_processed() if vk0 is not None else None
        rt1 = self.round_trips(t)
        step = {
            "scenario": scenario,
            "target": t.name,
            "path": path,
            "concurrency": concurrency,
            "valkey_commands": (vk1 - vk0) if vk0 is not None and vk1 is not None else None,
            "valkey_round_trips": {
                svc: (rt1[svc] - v0) if v0 is not None and rt1.get(svc) is not None else None
                for svc, v0 in rt0.items()
            }
            if rt0
            else None,
            "wrk": r.as_dict(),
            "cpu_s": m.window.cpu_s,
            "peak_rss_bytes": m.window.peak_rss_bytes,
            "processes": m.window.processes,
            "wall_s": m.window.wall_s,
            "machine_busy_cores": m.window.machine_busy_cores,
            "note": down,
        }
        self.results["steps"].append(step)
        err = f" errors={r.errors} {r.error_kinds}" if r.errors else ""
        gw = t.groups[0].name if t.groups else "-"
        cpu_ms = (m.window.cpu_s.get(gw, 0) * 1000 / r.ok) if r.ok else None
        log(
            f"{scenario:<24} {t.name:<18} c={concurrency:<4} {r.rps:9.1f} req/s p50={r.p50_ms} p99={r.p99_ms}"
            f" {gw} cpu/call={cpu_ms and round(cpu_ms, 3)} ms{err}{' FAIL ' + r.failure if r.failure else ''}"
        )
        return step

    def round_trips(self, t: targets.Target) -> dict[str, float | None]:
        """Tollway: `tollway_valkey_round_trips_total` of the edge and of quota now (None: not exported)."""
        if t.kind != "tollway":
            return {}
        return {
            "edge": metric_total(t.base + "/metrics", ROUND_TRIPS_METRIC),
            "quota": metric_total(
                f"http://127.0.0.1:{targets.STACK_PORTS['quota']}/metrics", ROUND_TRIPS_METRIC
            ),
        }

    def relay_cpu(self) -> None:
        """services/edge/bench/relay_cpu.py in this run (its own edge from this checkout, admission off):
        relay CPU per chunk, pass-through and translated (Anthropic events → chat chunks)."""
        a = self.args
        out = Path(tempfile.mkdtemp(prefix="bench-relay-")) / "relay.json"
        argv = [
            sys.executable,
            str(RELAY_CPU_SCRIPT),
            "--calls",
            str(a.relay_calls),
            "--concurrency",
            "8",
            "--modes",
            RELAY_MODES,
            "--repeat",
            str(a.relay_repeat),
            "--json",
            str(out),
        ]
        cmd = "uv run --no-sync python " + " ".join(argv[1:-2]).replace(str(targets.REPO) + "/", "")
        t0 = time.monotonic()
        p = subprocess.run(argv, capture_output=True, text=True, cwd=targets.REPO, timeout=1800)
        res: dict = {"command": cmd, "elapsed_s": round(time.monotonic() - t0, 1)}
        if p.returncode == 0 and out.exists():
            res.update(orjson.loads(out.read_bytes()))
            log(
                f"relay_cpu: {res.get('relay_us_per_chunk', 0):.1f} µs per chunk, translated "
                f"{res.get('translated_us_per_chunk', 0):.1f} µs"
            )
        else:
            res["failure"] = f"exit {p.returncode}: {(p.stderr or p.stdout)[-600:]}"
            log(f"relay_cpu failed: {res['failure']}")
        self.results["relay_cpu"] = res

    def measure_streams(
        self, scenario: str, t: targets.Target, n: int, chunks: int, interval: int, ttft: int
    ) -> dict:
        down = self.provider_up()
        headers = dict(t.headers)
        headers["content-type"] = "application/json"
        body = stream_body(chunks, interval, ttft)
        with Meter(self.groups_for(t), settle_s=self.args.settle) as m:
            r = run_streams(
                t.base + t.chat_path,
                body=body,
                headers=headers,
                streams=n,
                processes=self.args.stream_clients,
                timeout_s=max(60.0, chunks * interval / 1000 * 4),
                ramp_s=self.args.stream_ramp,
            )
        step = {
            "scenario": scenario,
            "target": t.name,
            "path": t.chat_path,
            "concurrency": n,
            "stream": r.as_dict(),
            "model": targets.stream_model(chunks, interval, ttft),
            "chunks": chunks,
            "interval_ms": interval,
            "ttft_ms": ttft,
            "cpu_s": m.window.cpu_s,
            "peak_rss_bytes": m.window.peak_rss_bytes,
            "processes": m.window.processes,
            "wall_s": m.window.wall_s,
            "machine_busy_cores": m.window.machine_busy_cores,
            "note": down,
        }
        self.results["steps"].append(step)
        log(
            f"{scenario:<24} {t.name:<18} completed {r.completed}/{n} ttfc p50={r.ttfc_p50_ms} p95={r.ttfc_p95_ms}"
            f" events p50={r.events_p50} failures={r.failures}{' FAIL ' + r.failure if r.failure else ''}"
        )
        return step

    def idle(self) -> None:
        seen: dict[str, ProcGroup] = {}
        for t in [self.provider, *self.targets]:
            if t.name.endswith("redaction"):
                continue  # the same processes as "tollway"
            for g in t.groups:
                seen.setdefault(f"{t.name}/{g.name}", g)
        named = [ProcGroup(k, g.resolve) for k, g in seen.items()]
        with Meter(named) as m:
            time.sleep(self.args.idle)
        self.results["idle"] = {
            "per_process": {k: g.per_process() for k, g in seen.items()},
            "wall_s": m.window.wall_s,
            "cpu_s": m.window.cpu_s,
            "rss_bytes": m.window.peak_rss_bytes,
            "processes": m.window.processes,
            "machine_busy_cores": m.window.machine_busy_cores,
        }

    def run(self) -> None:
        a = self.args
        streams_only = {"portkey-patched"}
        live_all = [t for t in self.targets if t.available]
        live = [t for t in live_all if t.name not in streams_only]
        everyone = [self.provider, *live]
        log("idle window")
        self.idle()
        log("warm-up")
        for t in everyone:
            run_wrk(
                t.base + t.chat_path,
                method="POST",
                body=CHAT_BODY,
                headers={**t.headers, "content-type": "application/json"},
                concurrency=8,
                duration_s=a.warmup,
            )

        if "ladder" in a.scenarios:
            c = a.ladder_concurrency
            self.measure_wrk(
                "ladder: provider direct",
                self.provider,
                self.provider.chat_path,
                method="POST",
                body=CHAT_BODY,
                concurrency=c,
                duration=a.duration,
            )
            for t in live:
                if t.health_path:
                    self.measure_wrk(
                        "ladder: /healthz",
                        t,
                        t.health_path,
                        method="GET",
                        body=None,
                        concurrency=c,
                        duration=a.duration,
                    )
            for t in live:
                if t.models_path:
                    self.measure_wrk(
                        "ladder: /v1/models",
                        t,
                        t.models_path,
                        method="GET",
                        body=None,
                        concurrency=c,
                        duration=a.duration,
                    )
            for t in live:
                name = "ladder: chat+redaction" if t.name.endswith("redaction") else "ladder: chat"
                self.measure_wrk(
                    name, t, t.chat_path, method="POST", body=CHAT_BODY, concurrency=c, duration=a.duration
                )

        if "sweep" in a.scenarios:
            for c in a.sweep:
                for t in everyone:
                    if t.name.endswith("redaction") and not a.sweep_redaction:
                        continue
                    self.measure_wrk(
                        "sweep",
                        t,
                        t.chat_path,
                        method="POST",
                        body=CHAT_BODY,
                        concurrency=c,
                        duration=a.duration,
                    )

        if "streams" in a.scenarios:
            for name, (n, chunks, interval, ttft) in STREAM_SCENARIOS.items():
                if a.stream_scale != 1.0:
                    n = max(1, int(n * a.stream_scale))
                for t in [self.provider, *live_all]:
                    if t.name.endswith("redaction") or t.name == "litellm-metered":
                        continue  # the same processes as tollway; metering is compared on chat calls
                    self.measure_streams(name, t, n, chunks, interval, ttft)

        if a.relay_cpu and any(t.kind == "tollway" for t in live):
            log("relay CPU per chunk (services/edge/bench/relay_cpu.py)")
            self.relay_cpu()

        if a.profile:
            edge = next((t for t in live if t.name == "tollway"), None)
            if edge is None:
                self.results["profile"] = {"skipped": "no Tollway edge running"}
            else:
                log("profiling the edge (py-spy) under chat load")
                self.results["profile"] = profile_edge(edge, CHAT_BODY, a.duration, a.out_dir / "benchmarks")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    p.add_argument("--duration", type=float, default=5.0, help="seconds per measured step (default 5)")
    p.add_argument("--warmup", type=float, default=2.0, help="seconds of warm-up per target (default 2)")
    p.add_argument("--idle", type=float, default=3.0, help="seconds of the idle window (default 3)")
    p.add_argument(
        "--settle",
        type=float,
        default=0.5,
        help="seconds kept in each CPU window after the load stops, for asynchronous consumers",
    )
    p.add_argument("--scenarios", default="ladder,sweep,streams", help="comma list of ladder,sweep,streams")
    p.add_argument("--sweep", default=",".join(map(str, SWEEP)), help="concurrency levels of the sweep")
    p.add_argument("--sweep-redaction", action="store_true", help="also sweep the redaction target")
    p.add_argument("--ladder-concurrency", type=int, default=16)
    p.add_argument("--stream-scale", type=float, default=1.0, help="scale the stream counts (smoke runs)")
    p.add_argument("--stream-clients", type=int, default=2, help="stream client processes (default 2)")
    p.add_argument(
        "--stream-ramp",
        type=float,
        default=1.0,
        help="seconds over which the streams are opened (default 1; a listen backlog of 128 drops "
        "SYNs when 1,000 connect at once)",
    )
    p.add_argument(
        "--targets",
        default="tollway,litellm,litellm-metered,portkey",
        help="comma list of tollway,litellm,litellm-metered,portkey",
    )
    p.add_argument(
        "--no-relay-cpu",
        dest="relay_cpu",
        action="store_false",
        help="skip services/edge/bench/relay_cpu.py (relay CPU per chunk, pass-through and translated)",
    )
    p.add_argument("--relay-calls", type=int, default=200, help="calls per relay_cpu mode (default 200)")
    p.add_argument(
        "--relay-repeat", type=int, default=2, help="relay_cpu runs per mode, best kept (default 2)"
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="prove the harness in a few minutes, numbers meaningless: 2 s steps, 1 s warm-up, "
        "sweep 1,16, ladder, streams at 5%% of their counts, 20 relay calls, no profile, no patched Portkey; "
        "writes into --out-dir (give a scratch directory, not docs/)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=0,
        help="LiteLLM workers (default: as many as the edge has listening processes, else 1)",
    )
    p.add_argument("--provider-port", type=int, default=9000, help="the stack's fake provider (default 9000)")
    p.add_argument(
        "--own-provider-port",
        type=int,
        default=9100,
        help="where the harness starts its own fake provider when the stack's is not running",
    )
    p.add_argument("--edge-port", type=int, default=8080)
    p.add_argument(
        "--litellm-port",
        type=int,
        default=4400,
        help="LiteLLM (default 4400); litellm-metered takes the next port",
    )
    p.add_argument("--portkey-port", type=int, default=8787)
    p.add_argument(
        "--no-portkey-patched",
        action="store_true",
        help="skip the locally patched Portkey copy in the streaming scenarios",
    )
    p.add_argument(
        "--no-profile",
        dest="profile",
        action="store_false",
        help="skip the py-spy profile of the edge under chat load (on by default when the edge runs)",
    )
    p.add_argument("--preliminary", action="store_true", help="mark the report preliminary (busy machine)")
    p.add_argument("--out-dir", type=Path, default=targets.REPO / "docs")
    p.add_argument("--note", action="append", default=[], help="a line added to the report's notes")
    a = p.parse_args(argv)
    if a.quick:
        a.duration, a.warmup, a.idle, a.settle = 2.0, 1.0, 1.0, 0.5
        a.sweep, a.stream_scale, a.relay_calls, a.relay_repeat = "1,16", 0.05, 20, 1
        a.profile, a.no_portkey_patched = False, True
    a.scenarios = {s.strip() for s in a.scenarios.split(",") if s.strip()}
    a.sweep = [int(x) for x in a.sweep.split(",") if x.strip()]
    a.targets = {s.strip() for s in a.targets.split(",") if s.strip()}
    return a


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    raise_nofile()
    started = dt.datetime.now(dt.UTC)
    t_start = time.monotonic()
    logdir = Path(tempfile.mkdtemp(prefix="tollway-bench-"))
    log(f"logs in {logdir}")
    facts = machine_facts()
    provider = targets.fake_provider(a.provider_port, a.own_provider_port, logdir)
    if not provider.available:
        log(f"cannot run without the fake provider: {provider.unavailable}")
        return 2
    tgts: list[targets.Target] = []
    started_procs: list = []
    valkey_lease: tuple[int | None, str, str | None] = (None, "", None)
    try:
        if "tollway" in a.targets:
            full, red = targets.tollway(a.edge_port, provider)
            tgts += [full, red]
            if red.available:
                red.redaction_applied = targets.probe_redaction(red, provider)
            if full.available and "streams" in a.scenarios:
                for t in (provider, full):
                    note = targets.probe_stream_model(t)
                    if note:
                        t.notes.append(note)
                        log(f"{t.name}: {note}")
            for t in (full, red):
                log(
                    f"{t.name}: {t.unavailable or 'available'}"
                    + (f" ({t.notes[-1]})" if t is red and t.notes else "")
                )
        workers = a.workers or (tgts[0].workers if tgts and tgts[0].available else 1)
        if "litellm" in a.targets:
            log(f"starting LiteLLM {targets.LITELLM_VERSION} with {workers} worker(s)")
            t = targets.litellm(a.litellm_port, provider, workers, logdir)
            started_procs.append(t.proc)
            tgts.append(t)
            log(f"litellm: {t.unavailable or 'available'}")
        if "litellm-metered" in a.targets:
            valkey_lease = targets.lease_valkey_db()
            db, _, err = valkey_lease
            log(
                f"starting LiteLLM {targets.LITELLM_VERSION} metered (Valkey db {db}) with {workers} worker(s)"
            )
            if db is None:
                t = targets.Target(name="litellm-metered", kind="peer", unavailable=f"no Valkey db: {err}")
            else:
                t = targets.litellm(a.litellm_port + 1, provider, workers, logdir, valkey_db=db)
            started_procs.append(t.proc)
            tgts.append(t)
            log(f"litellm-metered: {t.unavailable or 'available'}")
        if "portkey" in a.targets:
            log(f"starting Portkey {targets.PORTKEY_VERSION}")
            t = targets.portkey(a.portkey_port, provider, logdir)
            started_procs.append(t.proc)
            tgts.append(t)
            log(f"portkey: {t.unavailable or 'available'}")
        if "portkey" in a.targets and "streams" in a.scenarios and not a.no_portkey_patched:
            log("starting Portkey with the local stream patch")
            t = targets.portkey(a.portkey_port + 1, provider, logdir, patched=True)
            started_procs.append(t.proc)
            tgts.append(t)
            log(f"portkey-patched: {t.unavailable or 'available'}")
        runner = Runner(a, provider, tgts, "")
        runner.run()
        metered = next((t for t in tgts if t.name == "litellm-metered" and t.available), None)
        if metered is not None and valkey_lease[0] is not None:
            n = targets.valkey_db_keys(valkey_lease[0])
            metered.notes.append(
                f"its Valkey db held {n} keys (rate-limit and usage counters) at the end of the run"
            )
    finally:
        for t in tgts:
            targets.revoke_key(t)
        for p in started_procs:
            targets.stop(p)
        targets.stop(provider.proc)
        targets.release_valkey_db(valkey_lease[0], valkey_lease[1])
    finished = dt.datetime.now(dt.UTC)
    results = {
        "started_at": started.isoformat(timespec="seconds"),
        "finished_at": finished.isoformat(timespec="seconds"),
        "elapsed_s": round(time.monotonic() - t_start, 1),
        "preliminary": a.preliminary,
        "command": "uv run --no-sync python -m bench " + " ".join(argv if argv is not None else sys.argv[1:]),
        "git": targets._git_describe(),
        "machine": facts,
        "loadavg_at_end": os.getloadavg(),
        "settings": {
            "duration_s": a.duration,
            "warmup_s": a.warmup,
            "settle_s": a.settle,
            "ladder_concurrency": a.ladder_concurrency,
            "sweep": a.sweep,
            "stream_scale": a.stream_scale,
            "stream_clients": a.stream_clients,
            "stream_ramp_s": a.stream_ramp,
            "chat_body": CHAT_BODY.decode(),
            "stream_body": STREAM_BODY.decode(),
            "stream_models": list(targets.STREAM_MODELS),
            "quick": a.quick,
        },
        "notes": a.note,
        "targets": [
            {
                "name": t.name,
                "kind": t.kind,
                "base": t.base,
                "version": t.version,
                "workers": t.workers,
                "command": t.command,
                "unavailable": t.unavailable,
                "notes": t.notes,
                "redaction_applied": getattr(t, "redaction_applied", None),
                "groups": [g.name for g in t.groups],
            }
            for t in [provider, *tgts]
        ],
        **runner.results,
    }
    out = a.out_dir / "benchmarks"
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_bytes(orjson.dumps(results, option=orjson.OPT_INDENT_2))
    md = a.out_dir / "benchmarks.md"
    previous = md.read_text() if md.exists() else None
    if (
        previous is None and a.out_dir != targets.REPO / "docs"
    ):  # a scratch run keeps docs/'s hand-kept sections
        kept = targets.REPO / "docs/benchmarks.md"
        previous = kept.read_text() if kept.exists() else None
    md.write_text(report.render(results, previous))
    log(f"wrote {a.out_dir / 'benchmarks.md'} and {out / 'results.json'} in {results['elapsed_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
