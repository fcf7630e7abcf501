"""A garbage-collector probe for bench runs (not part of any service).

With ``PYTHONPATH=services/edge/bench/gcprobe`` and ``TOLLWAY_GC_PROBE_DIR=<dir>``
set, every Python process started (the bench client, the fake provider, the edge)
appends one line per collection to ``<dir>/gc-<pid>.log``, after a first line
``# <argv>`` naming the process (``# -m`` is the edge: ``python -m tollway_edge``)::

    <unix time at the end, s> <generation> <wall ms> <thread CPU ms> <objects collected>

``TOLLWAY_GC_PROBE_SAVEALL=1`` also writes, after each collection, what it found
unreachable (reference cycles), counted by type: ``# garbage gen<N>: [(type, count), ...]``
(``gc.DEBUG_SAVEALL``; the objects are then dropped). Used for the c=1 tail in
docs/edge-performance.md:

    PYTHONPATH=services/edge/bench/gcprobe TOLLWAY_GC_PROBE_DIR=/tmp/gc \\
        uv run --no-sync python services/edge/bench/relay_cpu.py --modes plain --limits --concurrency 1 ...
"""

from __future__ import annotations

import gc
import os
import sys
import time
from typing import Any, TextIO

_DIR = os.environ.get("TOLLWAY_GC_PROBE_DIR")
_started: list[tuple[float, float]] = []
_files: dict[int, TextIO] = {}


def _file() -> TextIO:
    pid = os.getpid()
    f = _files.get(pid)
    if f is None:
        assert _DIR is not None
        f = _files[pid] = open(os.path.join(_DIR, f"gc-{pid}.log"), "a", buffering=1)  # noqa: SIM115
        f.write("# " + " ".join(sys.argv) + "\n")
    return f


def _timer(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _started[:] = [(time.perf_counter(), time.thread_time())]
        return
    t0, c0 = _started[0] if _started else (time.perf_counter(), time.thread_time())
    wall_ms = (time.perf_counter() - t0) * 1e3
    cpu_ms = (time.thread_time() - c0) * 1e3
    _file().write(
        f"{time.time():.6f} {info['generation']} {wall_ms:.4f} {cpu_ms:.4f} {info.get('collected', 0)}\n"
    )


def _garbage(phase: str, info: dict[str, Any]) -> None:
    if phase != "stop" or not gc.garbage:
        return
    import collections

    kinds = collections.Counter(type(o).__qualname__ for o in gc.garbage)
    gc.garbage.clear()
    _file().write(f"# garbage gen{info['generation']}: {kinds.most_common(25)}\n")


if _DIR:
    gc.callbacks.append(_timer)
    if os.environ.get("TOLLWAY_GC_PROBE_SAVEALL"):
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.callbacks.append(_garbage)
