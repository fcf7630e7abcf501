"""Metrics over several processes (prometheus-client's multiprocess mode) and
the single-process fallback. Worker processes are real Python processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from prometheus_client import Counter
from prometheus_client.parser import text_string_to_metric_families

from tollway_runtime.metrics import (
    MULTIPROC_ENV,
    collect,
    mark_worker_dead,
    multiprocess_dir,
    start_multiprocess,
    stop_multiprocess,
)

pytestmark = pytest.mark.unit

_WORKER = """
import sys
from prometheus_client import Counter, Gauge, Histogram
calls = Counter("t_calls", "calls", ["status"])
busy = Gauge("t_busy", "in flight", multiprocess_mode="livesum")
took = Histogram("t_seconds", "time", buckets=(0.1, 1.0))
n = int(sys.argv[1])
for _ in range(n):
    calls.labels("200").inc()
    took.observe(0.05)
busy.set(n)
"""


def _samples(text: bytes) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for family in text_string_to_metric_families(text.decode()):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def test_counters_sum_over_processes_and_live_gauges_drop_dead_workers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(MULTIPROC_ENV, raising=False)
    d = start_multiprocess("test")
    try:
        assert d.owned and multiprocess_dir() == d.path and list(d.path.iterdir()) == []
        pids = []
        for n in (3, 4):  # each "worker" records, exits, and its files stay
            proc = subprocess.Popen([sys.executable, "-c", _WORKER, str(n)])
            assert proc.wait(60) == 0
            pids.append(proc.pid)
        got = _samples(collect())
        assert got[("t_calls_total", (("status", "200"),))] == 7
        assert got[("t_seconds_count", ())] == 7
        assert got[("t_seconds_bucket", (("le", "0.1"),))] == 7
        assert got[("t_busy", ())] == 7  # livesum: 3 + 4
        mark_worker_dead(pids[0])
        got = _samples(collect())
        assert got[("t_busy", ())] == 4  # the dead worker's gauge no longer counts
        assert got[("t_calls_total", (("status", "200"),))] == 7  # its calls still do
    finally:
        stop_multiprocess(d)
    assert not d.path.exists() and multiprocess_dir() is None


def test_an_operators_directory_is_emptied_at_start_and_kept(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    target = tmp_path / "metrics"
    target.mkdir()
    (target / "counter_123.db").write_bytes(b"stale run")
    monkeypatch.setenv(MULTIPROC_ENV, str(target))
    d = start_multiprocess("test")
    assert not d.owned and d.path == target and list(target.iterdir()) == []
    subprocess.run([sys.executable, "-c", _WORKER, "2"], check=True)
    assert _samples(collect())[("t_calls_total", (("status", "200"),))] == 2
    stop_multiprocess(d)
    assert target.exists()


def test_single_process_serves_the_global_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MULTIPROC_ENV, raising=False)
    c = Counter("tollway_runtime_test_single_total", "a counter of this process")
    c.inc(5)
    got = _samples(collect())
    assert got[("tollway_runtime_test_single_total", ())] == 5
    assert any(name.startswith("process_") or name.startswith("python_") for name, _ in got)
    mark_worker_dead(12345)  # no-op without a directory
