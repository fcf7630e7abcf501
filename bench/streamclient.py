"""Child process: open N concurrent SSE streams, report completion and time to first chunk.

argv: N [START_AT_EPOCH]; stdin: one line {"url", "body", "headers", "timeout_s", "ramp_s"}, then,
without START_AT_EPOCH, the process writes "ready" on stderr once started and reads START_AT from
the next stdin line (so a slow start on a loaded machine does not bunch the streams); stream i of N opens
at START_AT + ramp_s * i / N, so N connections do not hit a listen backlog in the same millisecond); stdout: one JSON object
{completed, failed, late, failures{reason: count}, ttfc_ms[], duration_ms[], events[], sent_at[]}
(``late``: streams opened more than 20 ms after their turn; ``sent_at``: each completed stream's send time, epoch seconds, in the order of ``ttfc_ms``).

A stream is *completed* when it answered 200 and its body ended with ``data: [DONE]``.
Time to first chunk = from sending the request to the first body bytes (the first SSE
event), in ms. Uses uvloop when installed.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

import aiohttp


async def _one(session: aiohttp.ClientSession, spec: dict, out: dict, start_at: float) -> None:
    delay = start_at - time.time()
    if delay > 0:
        await asyncio.sleep(delay)
    elif delay < -0.02:
        out["late"] += 1  # opened more than 20 ms after its turn (the process started late)
    t0 = time.perf_counter()
    sent_at = time.time()
    first: float | None = None
    n_events = 0
    tail = b""
    try:
        async with session.post(spec["url"], data=spec["body"].encode(), headers=spec["headers"]) as resp:
            if resp.status != 200:
                await resp.read()
                out["failures"][f"http {resp.status}"] = out["failures"].get(f"http {resp.status}", 0) + 1
                out["failed"] += 1
                return
            async for data in resp.content.iter_any():
                if first is None:
                    first = time.perf_counter()
                n_events += data.count(b"\n\n")
                tail = (tail + data)[-64:]
    except Exception as exc:  # noqa: BLE001 - every failure is counted by kind
        kind = type(exc).__name__
        out["failures"][kind] = out["failures"].get(kind, 0) + 1
        out["failed"] += 1
        return
    if b"data: [DONE]" in tail:
        out["completed"] += 1
        out["ttfc_ms"].append((first - t0) * 1000 if first else None)
        out["duration_ms"].append((time.perf_counter() - t0) * 1000)
        out["events"].append(n_events)
        out["sent_at"].append(sent_at)
    else:
        out["failures"]["no [DONE]"] = out["failures"].get("no [DONE]", 0) + 1
        out["failed"] += 1


async def main(n: int, start_at: float, spec: dict) -> dict:
    out: dict = {
        "completed": 0,
        "failed": 0,
        "late": 0,
        "failures": {},
        "ttfc_ms": [],
        "duration_ms": [],
        "events": [],
        "sent_at": [],
    }
    connector = aiohttp.TCPConnector(limit=0, force_close=False)
    timeout = aiohttp.ClientTimeout(total=spec.get("timeout_s", 60))
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        ramp = float(spec.get("ramp_s", 0.0))
        await asyncio.gather(*(_one(session, spec, out, start_at + ramp * i / n) for i in range(n)))
    out["ttfc_ms"] = [v for v in out["ttfc_ms"] if v is not None]
    return out


if __name__ == "__main__":
    spec = json.loads(sys.stdin.readline())
    try:
        import uvloop

        runner = uvloop.run
    except ImportError:
        runner = asyncio.run
    if len(sys.argv) > 2:
        start_at = float(sys.argv[2])
    else:  # started: say so, and wait for the start time every client process shares
        sys.stderr.write("ready\n")
        sys.stderr.flush()
        start_at = float(sys.stdin.readline())
    result = runner(main(int(sys.argv[1]), start_at, spec))
    sys.stdout.write(json.dumps(result))
