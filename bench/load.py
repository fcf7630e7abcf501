"""Load generators: wrk (non-stream, Lua for the POST body and headers) and the asyncio stream client.

Both run as child processes reaped with os.wait4(), so their own CPU (rusage) is reported
beside the gateways': the load generator must not be the bottleneck, and the report shows
whether it was.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .procs import rusage_cpu_s

_LUA = r"""
wrk.method = "%(method)s"
%(body)s
%(headers)s
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCHJSON {"requests":%%.0f,"duration_us":%%.0f,"bytes":%%.0f,"connect":%%.0f,"read":%%.0f,"write":%%.0f,' ..
    '"status":%%.0f,"timeout":%%.0f,"p50_us":%%.0f,"p90_us":%%.0f,"p95_us":%%.0f,"p99_us":%%.0f,' ..
    '"mean_us":%%.1f,"max_us":%%.0f}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(95), latency:percentile(99),
    latency.mean, latency.max))
end
"""


def _lua_long_string(s: str) -> str:
    level = 1
    while ("]" + "=" * level + "]") in s:
        level += 1
    eq = "=" * level
    return f"[{eq}[{s}]{eq}]"


def wrk_script(method: str, body: bytes | None, headers: dict[str, str]) -> str:
    """A wrk Lua script sending `method` with `body` and `headers`, printing a BENCHJSON line at the end."""
    body_line = f"wrk.body = {_lua_long_string(body.decode())}" if body else ""
    header_lines = "\n".join(
        f"wrk.headers[ {_lua_long_string(k)} ] = {_lua_long_string(v)}" for k, v in headers.items()
    )
    return _LUA % {"method": method, "body": body_line, "headers": header_lines}


@dataclass
class WrkResult:
    """One wrk run. Latencies in ms; errors = connect+read+write+timeout+status(>=400)."""

    concurrency: int
    duration_s: float
    requests: int = 0
    ok: int = 0
    errors: int = 0
    error_kinds: dict[str, int] = field(default_factory=dict)
    rps: float = 0.0
    p50_ms: float | None = None
    p90_ms: float | None = None
    p95_ms: float | None = None
    p99_ms: float | None = None
    mean_ms: float | None = None
    max_ms: float | None = None
    loadgen_cpu_s: float = 0.0
    failure: str | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def wrk_version() -> str:
    exe = shutil.which("wrk")
    if not exe:
        return "not installed"
    p = subprocess.run([exe, "-v"], capture_output=True, text=True)
    return (p.stdout + p.stderr).strip().splitlines()[0] if (p.stdout or p.stderr) else "unknown"


def run_wrk(
    url: str,
    *,
    method: str = "GET",
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    concurrency: int,
    duration_s: float,
    timeout_s: float = 10.0,
    threads: int = 1,
) -> WrkResult:
    """Run wrk for `duration_s` at `concurrency` connections; return its summary and its own CPU."""
    res = WrkResult(concurrency=concurrency, duration_s=duration_s)
    exe = shutil.which("wrk")
    if not exe:
        res.failure = "wrk not installed (apt-get install wrk)"
        return res
    with tempfile.TemporaryDirectory(prefix="bench-wrk-") as tmp:
        script = Path(tmp) / "req.lua"
        script.write_text(wrk_script(method, body, headers or {}))
        out_path = Path(tmp) / "out.txt"
        argv = [
            exe,
            f"-t{min(threads, concurrency)}",
            f"-c{concurrency}",
            f"-d{duration_s:g}s",
            "--timeout",
            f"{timeout_s:g}s",
            "-s",
            str(script),
            url,
        ]
        with open(out_path, "wb") as out:
            proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
            _, status, ru = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
        text = out_path.read_text(errors="replace")
    res.loadgen_cpu_s = rusage_cpu_s(ru)
    line = next((ln for ln in text.splitlines() if ln.startswith("BENCHJSON ")), None)
    if line is None:
        res.failure = f"wrk exited {proc.returncode}: {text.strip()[-400:]}"
        return res
    d = json.loads(line[len("BENCHJSON ") :])
    res.requests = int(d["requests"])
    kinds = {k: int(d[k]) for k in ("connect", "read", "write", "timeout", "status") if int(d[k])}
    res.error_kinds = kinds
    # wrk counts a >=400 answer both as a request and as a status error; socket errors are not requests.
    res.errors = sum(kinds.values())
    res.ok = max(0, res.requests - kinds.get("status", 0) - kinds.get("timeout", 0))
    secs = d["duration_us"] / 1e6 if d["duration_us"] else duration_s
    res.rps = res.ok / secs
    if res.requests:
        for k in ("p50", "p90", "p95", "p99"):
            setattr(res, f"{k}_ms", d[f"{k}_us"] / 1000)
        res.mean_ms = d["mean_us"] / 1000
        res.max_ms = d["max_us"] / 1000
    return res


@dataclass
class StreamResult:
    """One streaming scenario against one target (all client processes merged). Times in ms."""

    streams: int
    completed: int = 0
    failed: int = 0
    late_starts: int = 0
    failures: dict[str, int] = field(default_factory=dict)
    ttfc_p50_ms: float | None = None
    ttfc_p95_ms: float | None = None
    ttfc_p99_ms: float | None = None
    duration_p50_ms: float | None = None
    events_p50: float | None = None
    wall_s: float = 0.0
    loadgen_cpu_s: float = 0.0
    failure: str | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def percentile(values: list[float], p: float) -> float | None:
    """Nearest-rank percentile (p in 0..100); None for no values."""
    if not values:
        return None
    s = sorted(values)
    k = max(0, min(len(s) - 1, math.ceil(p / 100 * len(s)) - 1))
    return s[k]


START_MARGIN_S = 0.2
"""Seconds between the last stream client process's "ready" and the first stream."""


def run_streams(
    url: str,
    *,
    body: bytes,
    headers: dict[str, str],
    streams: int,
    processes: int = 2,
    timeout_s: float = 60.0,
    ramp_s: float = 1.0,
    timeline: list[tuple[float, float]] | None = None,
) -> StreamResult:
    """Open `streams` concurrent SSE streams split over `processes` client processes, over `ramp_s` seconds.

    All streams are open together once the ramp is done (every scenario's streams last longer than it).
    ``timeline``, when given, receives ``(sent_at epoch s, ttfc ms)`` of every completed stream.
    """
    res = StreamResult(streams=streams)
    per = [streams // processes + (1 if i < streams % processes else 0) for i in range(processes)]
    spec = json.dumps(
        {"url": url, "body": body.decode(), "headers": headers, "timeout_s": timeout_s, "ramp_s": ramp_s}
    )
    procs = []
    tmp = tempfile.TemporaryDirectory(prefix="bench-streams-")
    t0 = time.monotonic()
    for i, n in enumerate(per):
        if n == 0:
            continue
        out = open(Path(tmp.name) / f"out{i}.json", "wb")
        p = subprocess.Popen(
            [sys.executable, "-m", "bench.streamclient", str(n)],
            stdin=subprocess.PIPE,
            stdout=out,
            stderr=subprocess.PIPE,
            cwd=Path(__file__).resolve().parent.parent,
        )
        p.stdin.write(spec.encode() + b"\n")
        p.stdin.flush()
        procs.append((p, out, Path(tmp.name) / f"out{i}.json"))
    # Every client process says "ready" once started (Python, aiohttp, uvloop: 0.3-2 s on a loaded
    # machine); then all open their streams together from START_MARGIN_S on. A fixed start time
    # set before they ran made a late process open every overdue stream at once (1,000 in ~0.25 s).
    for p, _, _ in procs:
        p.stderr.readline()
    start_at = time.time() + START_MARGIN_S
    for p, _, _ in procs:
        with contextlib.suppress(BrokenPipeError):
            p.stdin.write(f"{start_at:.6f}\n".encode())
            p.stdin.close()
    ttfc: list[float] = []
    durations: list[float] = []
    events: list[float] = []
    errors: list[str] = []
    for p, out, path in procs:
        _, status, ru = os.wait4(p.pid, 0)
        out.close()
        res.loadgen_cpu_s += rusage_cpu_s(ru)
        err = p.stderr.read().decode(errors="replace") if p.stderr else ""
        try:
            d = json.loads(path.read_text())
        except (json.JSONDecodeError, FileNotFoundError):
            errors.append(f"stream client exited {os.waitstatus_to_exitcode(status)}: {err.strip()[-300:]}")
            continue
        res.completed += d["completed"]
        res.failed += d["failed"]
        res.late_starts += d.get("late", 0)
        for k, v in d["failures"].items():
            res.failures[k] = res.failures.get(k, 0) + v
        ttfc.extend(d["ttfc_ms"])
        if timeline is not None:
            timeline.extend(zip(d.get("sent_at", []), d["ttfc_ms"], strict=False))
        durations.extend(d["duration_ms"])
        events.extend(d["events"])
    tmp.cleanup()
    res.wall_s = time.monotonic() - t0
    if errors:
        res.failure = "; ".join(errors)
    res.ttfc_p50_ms, res.ttfc_p95_ms, res.ttfc_p99_ms = (percentile(ttfc, p) for p in (50, 95, 99))
    res.duration_p50_ms = percentile(durations, 50)
    res.events_p50 = percentile(events, 50)
    return res
