"""Idle RSS of the edge's worker processes, and what each library adds to it (issue 9).

``uv run --no-sync python bench/idle_rss.py workers [--runs 3] [--reference /work/main]``
starts ``python -m tollway_edge`` with ``TOLLWAY_EDGE_WORKERS=2`` on a free port
(settings from the environment: load ``.tollway/stack.env`` first), waits for
``/readyz`` 200, waits 5 s, prints ``VmRSS``/``RssAnon``/``RssFile`` of each
worker (the resource tracker skipped) and of the supervisor (", pydantic" when
the process has pydantic's extension mapped), then stops it
(SIGTERM). With ``--reference``, the runs alternate with runs of that checkout's
sources (its ``services/edge/src`` and ``libs/*/src`` first on ``PYTHONPATH``).

``uv run --no-sync python bench/idle_rss.py marginal redis.asyncio pydantic ...``
prints, per module, the RSS it adds when imported last, on top of every other
library the edge imports (``LIBRARIES``), inside ``tollway_edge.lean`` and after
``settle_memory`` (``malloc_trim``), each in a fresh interpreter; then the
application's own modules on top of all of them.

Results: docs/edge-performance.md, "Issue 9: idle RSS per worker".
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

LIBRARIES = (
    "asyncio",
    "ssl",
    "email.message",
    "http.cookies",
    "json",
    "aiohttp",
    "aiohttp.web",
    "aiokafka",
    "asyncpg",
    "structlog",
    "prometheus_client",
    "yaml",
    "msgspec",
    "tenacity",
    "orjson",
    "hiredis",
    "uvloop",
    "httptools",
    "opentelemetry.trace",
)
"""The third-party (and heavier stdlib) modules a worker imports (redis-py only for a
cluster URL: ask for ``redis.asyncio`` by name to see what it would add)."""

_PROBE = """
import sys
from tollway_edge.lean import lean_imports
from tollway_runtime.process import settle_memory

def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024

libraries, last = sys.argv[1].split(","), sys.argv[2].split(",") if sys.argv[2] else []
with lean_imports():
    for name in libraries:
        if not any(name == x or name.startswith(x + ".") for x in last):
            __import__(name)
    settle_memory()
    before, n = rss(), len(sys.modules)
    for name in last:
        __import__(name)
    settle_memory()
print(f"{rss() - before:.1f} {len(sys.modules) - n} {before:.1f} {rss():.1f}")
"""


def _status(pid: int) -> dict[str, float]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "RssAnon", "RssFile"):
            out[key] = int(value.split()[0]) / 1024
    maps = Path(f"/proc/{pid}/maps").read_text()
    out["pydantic"] = float("pydantic_core" in maps)  # its extension mapped: pydantic was imported
    return out


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    kids = [int(p) for p in path.read_text().split()] if path.exists() else []
    return [k for k in kids if b"resource_tracker" not in Path(f"/proc/{k}/cmdline").read_bytes()]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def workers_once(reference: str | None) -> list[dict[str, float]]:
    """One edge with two workers: each worker's RSS (MiB), then the supervisor's."""
    port = _free_port()
    env = dict(os.environ, TOLLWAY_EDGE_PORT=str(port), TOLLWAY_EDGE_WORKERS="2")
    if reference:
        roots = [Path(reference, "services/edge/src"), *sorted(Path(reference, "libs").glob("*/src"))]
        env["PYTHONPATH"] = os.pathsep.join(str(p) for p in roots)
    with tempfile.TemporaryDirectory() as journal:
        env["TOLLWAY_EDGE_JOURNAL_DIR"] = journal
        proc = subprocess.Popen(
            [sys.executable, "-m", "tollway_edge"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as r:
                        if r.status == 200:
                            break
                except OSError:
                    pass
                time.sleep(0.5)
            else:
                raise RuntimeError("the edge did not become ready within 120 s")
            time.sleep(5)
            return [_status(p) for p in _children(proc.pid)] + [_status(proc.pid)]
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=120)


def marginal(modules: list[str]) -> None:
    """Print the RSS each of ``modules`` adds when imported last (fresh interpreter each)."""
    libs = ",".join(LIBRARIES)
    for name in modules:
        out = subprocess.run(
            [sys.executable, "-c", _PROBE, libs, name], capture_output=True, text=True, check=True
        ).stdout.split()
        print(f"{name:40s} +{out[0]} MiB  +{out[1]} modules  ({out[2]} -> {out[3]} MiB)")
    app = subprocess.run(
        [sys.executable, "-c", _PROBE, libs, "tollway_edge.workers,tollway_edge.app"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    print(
        f"{'(the application on top of all)':40s} +{app[0]} MiB  +{app[1]} modules  ({app[2]} -> {app[3]} MiB)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("workers")
    w.add_argument("--runs", type=int, default=3)
    w.add_argument("--reference", help="a checkout whose sources to measure, alternating")
    m = sub.add_parser("marginal")
    m.add_argument("modules", nargs="+")
    args = parser.parse_args()
    if args.cmd == "marginal":
        marginal(args.modules)
        return
    for run in range(args.runs):
        for label, ref in ([("reference", args.reference)] if args.reference else []) + [("this", None)]:
            procs = workers_once(ref)
            cells = [
                f"{p['VmRSS']:.1f} (anon {p['RssAnon']:.1f}, file {p['RssFile']:.1f}"
                + (", pydantic)" if p["pydantic"] else ")")
                for p in procs
            ]
            print(f"run {run + 1} {label:9s} workers: {'; '.join(cells[:-1])}  supervisor: {cells[-1]}")


if __name__ == "__main__":
    main()
