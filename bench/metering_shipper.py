"""One edge worker's usage journal under a steady call rate (a helper process of
``bench/metering_cost.py``; run with the interpreter of the checkout measured).

Reads a pickled list of calls (each a list of ``(key, value)`` events) from
``--calls``, starts a :class:`tollway_edge.journal.UsageJournal` (its own
directory under a temporary root, no metrics) on ``--topic`` with ``--linger-ms``
(the edge's ``TOLLWAY_EDGE_KAFKA_LINGER_MS``; unset: the checkout's default), appends the
calls' events at ``--rate`` calls/s in 10 ms ticks as the edge's call path
would (after printing ``ready`` and reading a line from stdin: the parent's
go), then stops the journal (which ships what is left) and exits 0 once
Kafka acknowledged everything.

    python bench/metering_shipper.py --calls FILE --topic T --rate 400 [--linger-ms 50]
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import pickle
import sys
import tempfile
import time
from pathlib import Path

import structlog

from tollway_edge.journal import JournalSettings, UsageJournal

structlog.configure(logger_factory=structlog.PrintLoggerFactory(sys.stderr))  # stdout is the parent's channel


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=Path, required=True)
    ap.add_argument("--topic", required=True)
    ap.add_argument("--rate", type=float, required=True, help="calls/s")
    ap.add_argument("--linger-ms", type=int, default=None)
    ap.add_argument("--bootstrap", default="127.0.0.1:9092")
    args = ap.parse_args()
    calls: list[list[tuple[bytes, bytes]]] = pickle.loads(args.calls.read_bytes())
    kwargs = {}
    if args.linger_ms is not None:
        kwargs["linger_ms"] = args.linger_ms
    else:  # the checkout's default: the edge's settings object's, else the journal's
        try:
            from tollway_edge.settings import EdgeSettings

            kwargs["linger_ms"] = EdgeSettings.model_fields["kafka_linger_ms"].default
        except (ImportError, KeyError):
            kwargs["linger_ms"] = inspect.signature(UsageJournal).parameters["linger_ms"].default
    with tempfile.TemporaryDirectory(prefix="metering-journal-") as root:
        journal = UsageJournal(
            JournalSettings(root_dir=Path(root)), args.bootstrap, args.topic, registry=None, **kwargs
        )
        await journal.start()
        print("ready", flush=True)  # the parent starts its CPU readings, then says go
        await asyncio.to_thread(sys.stdin.readline)
        t0 = time.perf_counter()
        sent = 0
        while sent < len(calls):
            await asyncio.sleep(0.01)
            due = min(len(calls), int((time.perf_counter() - t0) * args.rate))
            for i in range(sent, due):
                for key, value in calls[i]:
                    journal.append(key, value)
            sent = due
        shipped = await journal.stop(deadline_seconds=60.0)
    print(f"shipper: {len(calls)} calls, linger {kwargs['linger_ms']} ms, shipped={shipped}", file=sys.stderr)
    return 0 if shipped else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
