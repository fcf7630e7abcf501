"""Edge CPU per call against the fake provider, read from /proc/<pid>/stat.

Starts (all on 127.0.0.1, all stopped at the end): a fresh database with the
stand-in principals tables and one key, a fresh Kafka topic, the fake
provider, and ``python -m tollway_edge``; then runs ``wrk`` (bounded in time)
and prints requests/s and CPU ms per call of the edge, the fake provider and
wrk. Needs the local stack and Debian's ``wrk``.

    uv run python services/edge/bench/cpu_per_call.py [--seconds 10] [--connections 50] [--stream]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

import asyncpg
import yaml
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "integration"))
from principals_schema import create_principals_schema, upsert_key  # noqa: E402

DSN = os.environ.get("TOLLWAY_POSTGRES_DSN", "postgresql://tollway:tollway@127.0.0.1:5432/tollway")
KAFKA = os.environ.get("TOLLWAY_KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092")
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def wait_http(url: str, timeout: float = 20) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return
        except Exception:  # noqa: BLE001
            time.sleep(0.2)
    raise RuntimeError(f"{url} not ready")


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--connections", type=int, default=50)
    ap.add_argument("--stream", action="store_true")
    ap.add_argument("--log-level", default="WARNING", help="INFO adds the canonical line per call")
    ap.add_argument("--profile", help="write py-spy collapsed stacks of the edge to this file")
    args = ap.parse_args()

    db = f"tw_bench_{uuid.uuid4().hex[:12]}"
    topic = f"tollway.bench.{uuid.uuid4().hex[:12]}"
    conn = await asyncpg.connect(DSN)
    await conn.execute(f'CREATE DATABASE "{db}"')
    await conn.close()
    dsn = DSN.rsplit("/", 1)[0] + "/" + db
    admin = AIOKafkaAdminClient(bootstrap_servers=KAFKA)
    await admin.start()
    await admin.create_topics([NewTopic(topic, 1, 1)])
    procs: list[subprocess.Popen] = []
    tmp = Path(tempfile.mkdtemp())
    try:
        await create_principals_schema(dsn)
        key, _, _ = await upsert_key(dsn, b"bench-pepper")
        cat = {
            "version": 1,
            "providers": {"fake": {"base_url": "http://127.0.0.1:19000/v1", "timeout_seconds": 30}},
            "models": {"m": {"prices": {"input": 1, "output": 1}, "routes": [{"provider": "fake", "upstream_model": "fake-model"}]}},
        }
        (tmp / "cat.yaml").write_text(yaml.safe_dump(cat))
        py = sys.executable
        fake = subprocess.Popen([py, "-m", "tollway_testing.fake_provider", "--port", "19000", "--no-access-log"])
        procs.append(fake)
        env = {
            **os.environ,
            "TOLLWAY_POSTGRES_DSN": dsn,
            "TOLLWAY_KAFKA_BOOTSTRAP_SERVERS": KAFKA,
            "TOLLWAY_VALKEY_URL": "redis://127.0.0.1:6379/0",
            "TOLLWAY_KEY_PEPPER": "bench-pepper",
            "TOLLWAY_CATALOGUE_PATH": str(tmp / "cat.yaml"),
            "TOLLWAY_EDGE_PORT": "18080",
            "TOLLWAY_EDGE_USAGE_TOPIC": topic,
            "TOLLWAY_LOG_LEVEL": args.log_level,
            "TOLLWAY_LOG_FORMAT": "json",
        }
        edge = subprocess.Popen([py, "-m", "tollway_edge"], env=env)
        procs.append(edge)
        wait_http("http://127.0.0.1:19000/healthz")
        wait_http("http://127.0.0.1:18080/readyz")
        body = '{"model":"m","messages":[{"role":"user","content":"hello there"}]%s}' % (
            ',"stream":true' if args.stream else ""
        )
        lua = tmp / "post.lua"
        lua.write_text(
            'wrk.method = "POST"\n'
            f"wrk.body = '{body}'\n"
            'wrk.headers["Content-Type"] = "application/json"\n'
            f'wrk.headers["Authorization"] = "Bearer {key}"\n'
        )
        # warm-up
        subprocess.run(["wrk", "-t1", "-c10", "-d2s", "-s", str(lua), "http://127.0.0.1:18080/v1/chat/completions"],
                       capture_output=True, check=True)
        spy = None
        if args.profile:
            spy = subprocess.Popen(["py-spy", "record", "-p", str(edge.pid), "-f", "raw", "-o", args.profile,
                                    "-d", str(args.seconds), "-r", "200", "--nonblocking"], stdout=subprocess.DEVNULL)
        e0, f0 = cpu_seconds(edge.pid), cpu_seconds(fake.pid)
        t0 = time.perf_counter()
        wrk = subprocess.run(
            ["wrk", "-t1", f"-c{args.connections}", f"-d{args.seconds}s", "-s", str(lua),
             "http://127.0.0.1:18080/v1/chat/completions"],
            capture_output=True, text=True, check=True,
        )
        wall = time.perf_counter() - t0
        e1, f1 = cpu_seconds(edge.pid), cpu_seconds(fake.pid)
        if spy is not None:
            spy.wait(30)
        out = wrk.stdout
        total = int(re.search(r"(\d+) requests in", out).group(1))
        non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        print(out)
        print(f"mode={'stream' if args.stream else 'non-stream'} requests={total} non2xx={non2xx.group(1) if non2xx else 0} "
              f"req/s={total / wall:.0f}")
        print(f"edge CPU/call: {(e1 - e0) / total * 1000:.3f} ms; fake provider CPU/call: {(f1 - f0) / total * 1000:.3f} ms")
    finally:
        for p in reversed(procs):
            p.send_signal(signal.SIGINT)
        for p in procs:
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
        await admin.delete_topics([topic])
        await admin.close()
        conn = await asyncpg.connect(DSN)
        await conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        await conn.close()


if __name__ == "__main__":
    asyncio.run(main())
