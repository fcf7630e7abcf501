"""Two 1-worker edges, each driven by its own ``wrk -t1 -c8`` at the same time, against one
2-worker edge at c=16: is a 2-worker edge's extra CPU per call the supervised mode (supervisor,
shared port, multiprocess metrics) or just two busy processes? (docs/edge-performance.md)

    set -a; . .tollway/stack.env; set +a
    uv run --no-sync python services/edge/bench/edge_pair_cpu.py [--rounds 4]

Same edges, key, body and CPU accounting as ``edge_group_cpu.py`` (CPU of each edge's process
group over the load plus 0.5 s ÷ calls answered); the order alternates every round. Numbers only.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import edge_group_cpu as h  # noqa: E402

ZERO = (0.0, 0.0, 0, 0)


def _cpu_between(
    before: dict[int, tuple[float, float, int, int]], after: dict[int, tuple[float, float, int, int]]
) -> float:
    """CPU seconds a group used between two :func:`edge_group_cpu.group_cpu` readings."""
    return sum(a[0] + a[1] - sum(before.get(p, ZERO)[:2]) for p, a in after.items())


def main() -> int:
    """Run the alternated rounds; prints one line per run and the medians."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--duration", type=float, default=5.0)
    a = ap.parse_args()
    token = os.environ["TOLLWAY_ADMIN_TOKEN"]
    key, key_id, err = h.targets.provision_key(token, name="edge-pair-cpu")
    if not key:
        print(f"could not mint a key: {err}", file=sys.stderr)
        return 1
    tmp = Path(tempfile.mkdtemp(prefix="edge-pair-cpu-"))
    pa, pb, p2 = h.free_port(), h.free_port(), h.free_port()
    ea, eb = h.start_edge("a", "WORKERS=1", pa, tmp), h.start_edge("b", "WORKERS=1", pb, tmp)
    e2 = h.start_edge("w2", "WORKERS=2", p2, tmp)
    try:
        for port in (pa, pb, p2):
            h.wait_ready(port)
            while not h.run_load("aiohttp", port, key, 1, 0.2)[0]:
                time.sleep(0.2)
        res: dict[str, list[float]] = {"pair": [], "w2": []}
        for rnd in range(a.rounds):
            for which in ("pair", "w2") if rnd % 2 == 0 else ("w2", "pair"):
                if which == "w2":
                    h.run_load("wrk", p2, key, 16, 1)
                    before = h.group_cpu(e2.pid)
                    ok, rps = h.run_load("wrk", p2, key, 16, a.duration)
                    time.sleep(0.5)
                    cpu = _cpu_between(before, h.group_cpu(e2.pid))
                else:
                    out: dict[int, tuple[int, float]] = {}

                    def drive(port: int, out: dict[int, tuple[int, float]] = out) -> None:
                        out[port] = h.run_load("wrk", port, key, 8, a.duration)

                    for port in (pa, pb):
                        h.run_load("wrk", port, key, 8, 1)
                    ba, bb = h.group_cpu(ea.pid), h.group_cpu(eb.pid)
                    threads = [threading.Thread(target=drive, args=(port,)) for port in (pa, pb)]
                    for t in threads:
                        t.start()
                    for t in threads:
                        t.join()
                    time.sleep(0.5)
                    cpu = _cpu_between(ba, h.group_cpu(ea.pid)) + _cpu_between(bb, h.group_cpu(eb.pid))
                    ok, rps = out[pa][0] + out[pb][0], out[pa][1] + out[pb][1]
                ms = cpu / max(ok, 1) * 1000
                res[which].append(ms)
                print(
                    f"round {rnd + 1} {which:>5}: {ms:.3f} ms/call {ok} calls {rps:,.0f} req/s"
                    f" load {os.getloadavg()[0]:.2f}",
                    flush=True,
                )
        for label, vals in res.items():
            print(f"{label}: median {statistics.median(vals):.3f} ms ({', '.join(f'{v:.3f}' for v in vals)})")
    finally:
        for e in (ea, eb, e2):
            os.killpg(e.pid, signal.SIGTERM)
        for e in (ea, eb, e2):
            e.wait(20)
        h.targets.revoke_key_id(token, key_id or "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
