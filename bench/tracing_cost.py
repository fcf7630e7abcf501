"""The edge's cost of tracing (issue 15): idle RSS and CPU per call with tracing
off (this checkout and, for comparison, a reference checkout's edge) and on
(exporting over OTLP/HTTP to a receiver in this process).

Runs against the local stack (``bash infra/up.sh``): its Postgres (principals,
read only), Valkey, Kafka (a topic of its own, deleted after) and fake
provider, with the demo key of ``.tollway/dev.env``. Each variant is a
``python -m tollway_edge`` process (1 worker) on a free port; variants are
interleaved over ``--rounds`` so drifting background load hits each alike.
CPU per call = utime+stime of the edge process (``/proc/<pid>/stat``) over the
calls, divided by the calls. Only ratios from one run mean anything.

    uv run --no-sync python -m bench.tracing_cost [--calls 2000] [--reference /work/main]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import aiohttp

from tollway_testing.otlp import OtlpReceiver

from .procs import CLK_TCK, PAGE

REPO = Path(__file__).resolve().parents[1]


def _env_file(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        if "=" in line and not line.lstrip().startswith("#"):
            k, _, v = line.partition("=")
            out[k.strip()] = v.strip()
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ticks_rss(pid: int) -> tuple[int, int]:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12]), int(fields[21]) * PAGE


async def _wait_ready(url: str, proc: subprocess.Popen[bytes]) -> None:
    async with aiohttp.ClientSession() as http:
        for _ in range(600):
            if proc.poll() is not None:
                raise RuntimeError(f"edge exited with {proc.returncode}")
            with contextlib.suppress(aiohttp.ClientError):
                async with http.get(url + "/readyz") as r:
                    if r.status == 200:
                        return
            await asyncio.sleep(0.1)
    raise TimeoutError("edge not ready")


async def _load(url: str, key: str, calls: int, concurrency: int) -> int:
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 5}
    headers = {"Authorization": f"Bearer {key}", "traceparent": f"00-{uuid.uuid4().hex}-{'1' * 16}-01"}
    ok = 0
    left = calls

    async def worker(http: aiohttp.ClientSession) -> None:
        nonlocal ok, left
        while left > 0:
            left -= 1
            async with http.post(url + "/v1/chat/completions", json=body, headers=headers) as r:
                await r.read()
                ok += r.status == 200

    async with aiohttp.ClientSession() as http:
        await asyncio.gather(*(worker(http) for _ in range(concurrency)))
    return ok


async def _variant(
    python: str, env: dict[str, str], key: str, calls: int, concurrency: int
) -> tuple[float, float, int]:
    """(CPU ms per call, idle RSS MiB, successful calls) of one edge process."""
    port = _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        full = {**os.environ, **env, "TOLLWAY_EDGE_PORT": str(port), "TOLLWAY_EDGE_JOURNAL_DIR": tmp}
        proc = subprocess.Popen(  # noqa: ASYNC220 - a harness; starting takes ms
            [python, "-m", "tollway_edge"], env=full, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            url = f"http://127.0.0.1:{port}"
            await _wait_ready(url, proc)
            await asyncio.sleep(2.0)
            _, rss = _ticks_rss(proc.pid)
            await _load(url, key, max(100, calls // 10), concurrency)  # warm-up
            t0, _ = _ticks_rss(proc.pid)
            ok = await _load(url, key, calls, concurrency)
            t1, _ = _ticks_rss(proc.pid)
        finally:
            proc.terminate()
            proc.wait(30)
    return (t1 - t0) / CLK_TCK * 1000.0 / max(ok, 1), rss / 2**20, ok


async def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--concurrency", type=int, default=16)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument(
        "--reference", type=Path, help="another checkout (with its .venv) measured with tracing off"
    )
    args = p.parse_args()

    state = REPO / ".tollway"
    stack = {**_env_file(state / "stack.env"), **_env_file(state / "dev.env")}
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    topic = f"tollway.bench.tracing.{uuid.uuid4().hex[:8]}"
    admin = AIOKafkaAdminClient(bootstrap_servers=stack["TOLLWAY_KAFKA_BOOTSTRAP_SERVERS"])
    await admin.start()
    await admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)])
    receiver = OtlpReceiver()
    await receiver.start()
    base = {
        **{k: v for k, v in stack.items() if k.startswith("TOLLWAY_")},
        "TOLLWAY_EDGE_USAGE_TOPIC": topic,
        "TOLLWAY_EDGE_QUOTA_URL": "",
        "TOLLWAY_EDGE_ADMISSION_ENABLED": "false",
        "TOLLWAY_LOG_LEVEL": "WARNING",
        "TOLLWAY_LOG_FORMAT": "json",
    }
    for k in list(os.environ):
        if k.startswith("OTEL_"):
            del os.environ[k]
    variants: dict[str, tuple[str, dict[str, str]]] = {
        "tracing off": (sys.executable, base),
        "tracing on (OTLP/HTTP)": (
            sys.executable,
            {**base, "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint},
        ),
    }
    if args.reference is not None:
        variants["reference checkout (no tracing code)"] = (str(args.reference / ".venv/bin/python"), base)
    results: dict[str, list[tuple[float, float, int]]] = {name: [] for name in variants}
    try:
        for _ in range(args.rounds):
            for name, (python, env) in variants.items():
                results[name].append(
                    await _variant(python, env, stack["OPENAI_API_KEY"], args.calls, args.concurrency)
                )
    finally:
        await receiver.stop()
        with contextlib.suppress(Exception):
            await admin.delete_topics([topic])
        await admin.close()
    print(f"{args.calls} calls x {args.rounds} rounds, concurrency {args.concurrency}, 1 edge worker")
    print("| variant | CPU ms per call (median; each round) | idle RSS MiB (median) | calls ok |")
    print("|---|---|---|---|")
    for name, rows in results.items():
        cpu = [r[0] for r in rows]
        print(
            f"| {name} | {statistics.median(cpu):.3f} ({', '.join(f'{c:.3f}' for c in cpu)}) "
            f"| {statistics.median(r[1] for r in rows):.1f} | {sum(r[2] for r in rows)} |"
        )
    print(f"spans received: {len(receiver.spans)}")


if __name__ == "__main__":
    asyncio.run(main())
