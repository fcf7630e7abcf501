"""Helpers to run the edge (and a fake provider, and a private Valkey) as real
processes: ``python -m tollway_edge`` on free ports."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def wait_http(url: str, within_s: float = 30.0, proc: subprocess.Popen | None = None) -> None:
    """Poll ``url`` until it answers 200 (or fail when ``proc`` exits or time runs out)."""
    deadline = time.monotonic() + within_s
    async with aiohttp.ClientSession() as http:
        while True:
            if proc is not None and proc.poll() is not None:
                raise RuntimeError(f"process exited with {proc.returncode} before {url} was ready")
            try:
                async with http.get(url) as resp:
                    if resp.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} not ready")
            await asyncio.sleep(0.1)


def start_edge(port: int, env: dict[str, str], log_path: Path) -> subprocess.Popen:
    """Start ``python -m tollway_edge`` on ``port`` with ``env`` added to ours."""
    full = {
        **os.environ,
        "TOLLWAY_LOG_LEVEL": "WARNING",
        "TOLLWAY_LOG_FORMAT": "json",
        "TOLLWAY_EDGE_JOURNAL_DIR": str(log_path.parent / "journal"),  # per test: never adopt another's
        "TOLLWAY_EDGE_QUOTA_URL": "",  # no seeding unless a test starts quota (never the stack's)
        **env,
        "TOLLWAY_EDGE_PORT": str(port),
    }
    log = open(log_path, "ab")  # noqa: SIM115 - closed with the process
    return subprocess.Popen(
        [sys.executable, "-m", "tollway_edge"], env=full, stdout=log, stderr=subprocess.STDOUT
    )


def start_fake_provider(port: int, log_path: Path, *extra: str) -> subprocess.Popen:
    """Start the fake provider as a process on ``port``."""
    log = open(log_path, "ab")  # noqa: SIM115
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tollway_testing.fake_provider",
            "--port",
            str(port),
            "--no-access-log",
            *extra,
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )


def start_valkey(port: int, workdir: Path) -> subprocess.Popen:
    """A PRIVATE redis-server on ``port`` (no persistence): tests stop and restart it at will."""
    return subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(workdir),
            "--protected-mode",
            "no",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


async def wait_valkey(port: int, within_s: float = 10.0) -> None:
    """Wait until the private server answers PING."""
    import redis.asyncio as aioredis

    deadline = time.monotonic() + within_s
    client = aioredis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=0.5)
    try:
        while True:
            try:
                if await client.ping():
                    return
            except Exception:
                if time.monotonic() > deadline:
                    raise
            await asyncio.sleep(0.05)
    finally:
        await client.aclose()


def stop(proc: subprocess.Popen, timeout: float = 15.0) -> None:
    """Terminate a process we started (SIGTERM, then SIGKILL)."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


def catalogue(fake_base_url: str, slow_base_url: str | None = None) -> dict[str, Any]:
    """``gpt-4o-mini`` on the fake provider (and ``slow-model`` on a slow one),
    priced like the in-process tests."""
    prices = {"input": 150000, "cached_input": 75000, "output": 600000}
    out: dict[str, Any] = {
        "version": 1,
        "providers": {"fake": {"kind": "openai", "base_url": fake_base_url, "timeout_seconds": 60}},
        "models": {
            "gpt-4o-mini": {
                "prices": prices,
                "routes": [{"provider": "fake", "upstream_model": "fake-model"}],
            }
        },
    }
    if slow_base_url:
        out["providers"]["slow"] = {"kind": "openai", "base_url": slow_base_url, "timeout_seconds": 60}
        out["models"]["slow-model"] = {
            "prices": prices,
            "routes": [{"provider": "slow", "upstream_model": "fake-model"}],
        }
    return out
