"""Helpers of the edge's redaction tests: real redactor processes
(``python -m tollway_redactor``, one worker each), a Valkey db leased for a
whole module, a slow stub redactor, and setting a key's redaction policy."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import orjson
from aiohttp import web
from aiohttp.test_utils import TestServer

from tollway_testing.pytest_plugin import leased_valkey_db

__all__ = ["leased_valkey_db"]  # a module-long Valkey db lease, the plugin's


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def closed_port_url() -> str:
    """The URL of a port nothing listens on."""
    return f"http://127.0.0.1:{free_port()}"


@dataclass
class RedactorProcess:
    """One ``python -m tollway_redactor`` subprocess (1 worker) and its log file."""

    url: str
    proc: subprocess.Popen[bytes]
    log_path: Path

    def served(self) -> int:
        """How many ``/v1/redact`` calls it answered 200 (from its JSON log lines)."""
        n = 0
        for line in self.log_path.read_bytes().splitlines():
            try:
                rec = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if rec.get("event") == "redact" and rec.get("status", 200) == 200:
                n += 1
        return n

    def answered(self, status: int) -> int:
        """How many ``/v1/redact`` calls it answered with ``status`` (from its JSON log lines)."""
        n = 0
        for line in self.log_path.read_bytes().splitlines():
            try:
                rec = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if rec.get("event") == "redact" and rec.get("status", 200) == status:
                n += 1
        return n

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


async def start_redactor(
    valkey_url: str, cache_prefix: str, log_dir: Path, within_s: float = 180.0
) -> RedactorProcess:
    """Start a redactor on a free port and wait until ``/readyz`` is 200 (model loaded)."""
    port = free_port()
    log_path = log_dir / f"redactor-{port}.log"
    env = {
        **os.environ,
        "TOLLWAY_REDACTOR_PORT": str(port),
        "TOLLWAY_REDACTOR_HOST": "127.0.0.1",
        "TOLLWAY_REDACTOR_WORKERS": "1",
        "TOLLWAY_REDACTOR_CACHE_PREFIX": cache_prefix,
        "TOLLWAY_VALKEY_URL": valkey_url,
        "TOLLWAY_LOG_FORMAT": "json",
        "TOLLWAY_LOG_LEVEL": "INFO",
    }
    with log_path.open("wb") as out:
        proc = subprocess.Popen(  # noqa: ASYNC220 (a test helper; starting takes ms)
            [sys.executable, "-m", "tollway_redactor"], env=env, stdout=out, stderr=subprocess.STDOUT
        )
    rp = RedactorProcess(f"http://127.0.0.1:{port}", proc, log_path)
    deadline = time.monotonic() + within_s
    async with aiohttp.ClientSession() as http:
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"redactor exited: {log_path.read_text()[-2000:]}")
            try:
                async with http.get(f"{rp.url}/readyz", timeout=aiohttp.ClientTimeout(total=2)) as r:
                    if r.status == 200:
                        return rp
            except (aiohttp.ClientError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                rp.stop()
                raise RuntimeError("redactor not ready in time")
            await asyncio.sleep(0.25)


@contextlib.asynccontextmanager
async def slow_redactor(delay_seconds: float) -> AsyncIterator[str]:
    """A real HTTP server that answers ``/v1/redact`` only after ``delay_seconds``
    (then a 500: it must never be used)."""
    hits: list[float] = []

    async def handler(_: web.Request) -> web.Response:
        hits.append(time.monotonic())
        await asyncio.sleep(delay_seconds)
        return web.Response(status=500)

    app = web.Application()
    app.router.add_post("/v1/redact", handler)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        await server.close()


async def set_policy(dsn: str, key_id: str, policy: dict[str, Any] | None) -> None:
    """Set the key's effective ``redaction_policy`` as quota would (row + version)."""
    conn = await asyncpg.connect(dsn)
    try:
        async with conn.transaction():
            version = await conn.fetchval(
                "UPDATE catalog.principals_version SET version = version + 1 RETURNING version"
            )
            await conn.execute(
                "UPDATE catalog.edge_principals SET redaction_policy = $2::jsonb, version = $3 WHERE key_id = $1",
                key_id,
                None if policy is None else orjson.dumps(policy).decode(),
                version,
            )
    finally:
        await conn.close()
