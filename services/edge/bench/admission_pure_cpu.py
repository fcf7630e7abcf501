"""Admission's own Python per call, without I/O and without an event loop.

Each case drives the coroutines by hand (``coro.send(None)``) against a client that
answers at once (admit: ``admitted``, every counter at 0; release: ``1``), so the
figure holds only admission's Python: no socket, no loop pass, no task. A key with
every limit kind (4 checks). ``time.thread_time``, best of ``--repeat`` × ``--calls``.

- ``edge``: ``EdgeAdmission.admit`` + the usage event's ``reservation`` twice +
  ``finish`` + ``release`` (what the edge runs per call);
- ``admit``: ``Admission.admit`` alone;
- ``release``: ``Admission.release`` alone.

    uv run --no-sync python services/edge/bench/admission_pure_cpu.py [--calls 20000] [--repeat 7]

Before/after: ``PYTHONPATH=<old tree>/libs/admission/src:<old tree>/services/edge/src``.
"""

from __future__ import annotations

import argparse
import time
import uuid
from collections.abc import Callable, Coroutine
from typing import Any

from admission_cpu import LIMITS, BenchEntry, CannedClient  # the sibling bench: same key, client and entry

from tollway_admission import Admission
from tollway_admission.admission import ADMIT
from tollway_contracts.limits import Limit
from tollway_edge.admission import EdgeAdmission
from tollway_edge.auth.principals import Principal

TENANT = "bench-t"


def _run(coro: Coroutine[Any, Any, Any]) -> Any:
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    raise RuntimeError("the coroutine waited: a client answered late")


def main(calls: int, repeat: int) -> None:
    edge = EdgeAdmission(valkey_url="redis://127.0.0.1:6379/13")
    adm = Admission(object(), pipelined=CannedClient(ADMIT.sha.encode(), 4))  # type: ignore[arg-type]
    edge.adm = adm
    limits = [Limit(scope="key", scope_id="k1", **LIMITS)]  # type: ignore[arg-type]
    principal = Principal(
        key_id="k1",
        secret_hash="",
        tenant_id=TENANT,
        team_id="t",
        user_id="u",
        allowed_models=None,
        revoked=False,
        expires_at=None,
        redaction_policy=None,
        limits=limits,
        version=1,
    )
    entry = BenchEntry()
    rids = [str(uuid.uuid4()) for _ in range(1000)]

    def edge_case(n: int) -> None:
        for i in range(n):
            t = _run(edge.admit(principal, "m", entry, 20, 100, rids[i % 1000], False))  # type: ignore[arg-type]
            t.reservation_field()
            edge.finish(t, 30, 5)
            t.reservation_field()
            _run(edge.release(t))

    def admit_case(n: int) -> None:
        for i in range(n):
            _run(
                adm.admit(
                    tenant_id=TENANT,
                    request_id=rids[i % 1000],
                    limits=limits,
                    model="m",
                    tokens=120,
                    cost_micro_usd=120,
                )
            )

    first = _run(
        adm.admit(
            tenant_id=TENANT, request_id=rids[0], limits=limits, model="m", tokens=120, cost_micro_usd=120
        )
    )

    def release_case(n: int) -> None:
        for i in range(n):
            _run(adm.release(tenant_id=TENANT, request_id=rids[i % 1000], reservation=first.reservation))

    cases: dict[str, Callable[[int], None]] = {
        "edge": edge_case,
        "admit": admit_case,
        "release": release_case,
    }
    out = []
    for name, case in cases.items():
        best = min(_timed(case, calls) for _ in range(repeat))
        out.append(f"{name} {best / calls * 1e6:.2f} us")
    print("per call: " + ", ".join(out))


def _timed(case: Callable[[int], None], calls: int) -> float:
    t0 = time.thread_time()
    case(calls)
    return time.thread_time() - t0


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    main(args.calls, args.repeat)
