"""Graceful drain (issue 10): a private ``python -m tollway_edge`` with streams
in flight gets SIGTERM the way ``infra/down.sh`` sends it (to the whole
process group: the supervisor and its workers) — ``/readyz`` turns 503 at
once, new calls are still served during the accept grace, every stream
finishes with ``[DONE]`` and is billed exactly; streams longer than the drain
deadline end with a ``server_shutting_down`` error event and are billed from
the estimate. The real ledger reads the edge's topic afterwards."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import orjson
import pytest
import yaml

from tollway_contracts.catalogue import Prices
from tollway_contracts.pricing import cost_micro_usd
from tollway_testing.fake_provider import count_prompt_tokens

from .conftest import PEPPER
from .ledger_rows import ledger_for, rows
from .ledger_schema import create_ledger_schema
from .principals_schema import create_principals_schema, upsert_key
from .processes import free_port, start_edge, start_fake_provider, stop, wait_http
from .workers import worker_pids

pytestmark = pytest.mark.integration

PRICES = {"input": 150000, "cached_input": 75000, "output": 600000}
MESSAGES = [{"role": "user", "content": "Keep talking while the edge stops."}]
PROMPT = count_prompt_tokens(MESSAGES)
FAKE_URL: list[str] = []  # the running fake provider's base URL (set by _start)


def _catalogue(fake_url: str) -> dict[str, Any]:
    """``steady``: 40 chunks 150 ms apart (6 s, past the accept grace); ``long``: 100 chunks
    100 ms apart (10 s); ``stalled``: answers its headers, then nothing (a fault the test sets)."""
    return {
        "version": 1,
        "providers": {"fake": {"kind": "openai", "base_url": fake_url, "timeout_seconds": 60}},
        "models": {
            "steady": {
                "prices": PRICES,
                "routes": [{"provider": "fake", "upstream_model": "fake-stream-c40-i150"}],
            },
            "stalled": {"prices": PRICES, "routes": [{"provider": "fake", "upstream_model": "fake-model"}]},
            "long": {
                "prices": PRICES,
                "routes": [{"provider": "fake", "upstream_model": "fake-stream-c100-i100"}],
            },
        },
    }


async def _start(
    tmp_path: Path, fresh_database: str, valkey_test_url: str, topic: str, kafka: str, **env: str
) -> tuple[Any, Any, str, str]:
    """A fake provider and an edge process; returns them, the edge's URL and a key."""
    await create_principals_schema(fresh_database)
    await create_ledger_schema(fresh_database)
    full_key, _, _ = await upsert_key(fresh_database, PEPPER.encode(), tenant_id="tn_drain")
    fake_port, port = free_port(), free_port()
    fake = start_fake_provider(fake_port, tmp_path / "fake.log")
    path = tmp_path / "catalogue.yaml"
    path.write_text(yaml.safe_dump(_catalogue(f"http://127.0.0.1:{fake_port}/v1")))
    edge = start_edge(
        port,
        {
            "TOLLWAY_POSTGRES_DSN": fresh_database,
            "TOLLWAY_VALKEY_URL": valkey_test_url,
            "TOLLWAY_KAFKA_BOOTSTRAP_SERVERS": kafka,
            "TOLLWAY_KEY_PEPPER": PEPPER,
            "TOLLWAY_CATALOGUE_PATH": str(path),
            "TOLLWAY_EDGE_USAGE_TOPIC": topic,
            "TOLLWAY_LOG_LEVEL": "INFO",
            **env,
        },
        tmp_path / "edge.log",
    )
    await wait_http(f"http://127.0.0.1:{fake_port}/healthz", proc=fake)
    FAKE_URL[:] = [f"http://127.0.0.1:{fake_port}"]
    url = f"http://127.0.0.1:{port}"
    await wait_http(url + "/readyz", within_s=60, proc=edge)
    return fake, edge, url, full_key


class _Stream:
    """One streamed call as its client saw it."""

    def __init__(self) -> None:
        self.request_id = ""
        self.first = asyncio.Event()
        self.data: list[bytes] = []


async def _stream(http: aiohttp.ClientSession, url: str, key: str, model: str, seen: _Stream) -> _Stream:
    body = {"model": model, "messages": MESSAGES, "stream": True}
    async with http.post(
        url + "/v1/chat/completions", json=body, headers={"Authorization": f"Bearer {key}"}
    ) as r:
        assert r.status == 200, await r.text()
        seen.request_id = r.headers["x-request-id"]
        buf = b""
        async for chunk in r.content.iter_any():
            buf += chunk
            while b"\n\n" in buf:
                event, buf = buf.split(b"\n\n", 1)
                if event.startswith(b"data: "):
                    seen.data.append(event[6:])
                    seen.first.set()
    return seen


def _sigterm_group(edge: Any) -> None:
    """SIGTERM to the supervisor and each worker: what a process-group signal delivers."""
    for pid in [edge.pid, *worker_pids(edge.pid)]:
        os.kill(pid, signal.SIGTERM)


async def test_sigterm_lets_200_streams_finish_and_bills_each_exactly(
    fresh_database: str, valkey_test_url: str, fresh_topic: Any, kafka_bootstrap_servers: str, tmp_path: Path
) -> None:
    topic = await fresh_topic(partitions=2)
    fake, edge, url, key = await _start(
        tmp_path, fresh_database, valkey_test_url, topic, kafka_bootstrap_servers, TOLLWAY_EDGE_WORKERS="2"
    )
    try:
        connector = aiohttp.TCPConnector(limit=0, force_close=True)
        async with aiohttp.ClientSession(
            connector=connector, timeout=aiohttp.ClientTimeout(total=60)
        ) as http:
            streams = [_Stream() for _ in range(200)]
            tasks = [asyncio.create_task(_stream(http, url, key, "steady", s)) for s in streams]
            await asyncio.wait_for(asyncio.gather(*(s.first.wait() for s in streams)), 30)
            assert not any(t.done() for t in tasks)  # all 200 in flight
            stopped_at = time.monotonic()
            _sigterm_group(edge)
            await asyncio.sleep(0.3)
            async with http.get(url + "/readyz") as ready:
                assert ready.status == 503
                assert "draining" in (await ready.json())["failing"]
            # Still accepting during the grace: a new call is served and billed.
            body = {"model": "steady", "messages": MESSAGES}
            async with http.post(
                url + "/v1/chat/completions", json=body, headers={"Authorization": f"Bearer {key}"}
            ) as late:
                assert late.status == 200
                late_id = late.headers["x-request-id"]
            done = await asyncio.gather(*tasks)
        finished = time.monotonic() - stopped_at
        assert all(s.data[-1] == b"[DONE]" for s in done), [
            s.data[-1] for s in done if s.data[-1] != b"[DONE]"
        ]
        assert edge.wait(45) == 0
        assert finished < 25  # inside the drain deadline (25 s default)
        async with ledger_for(fresh_database, kafka_bootstrap_servers, topic, fresh_topic):
            found = await rows(fresh_database, [s.request_id for s in done] + [late_id], within_s=60)
        for s in done:
            row = found[s.request_id]
            assert (row["status"], row["status_code"], row["error_type"]) == ("completed", 200, None)
            assert row["usage_estimated"] is False
            assert (row["prompt_tokens"], row["completion_tokens"]) == (PROMPT, 40)
            assert row["cost_micro_usd"] == cost_micro_usd(
                Prices(**PRICES), prompt_tokens=PROMPT, completion_tokens=40
            )
        assert found[late_id]["status"] == "completed"
    finally:
        stop(edge, timeout=60)
        stop(fake)


async def test_streams_past_the_drain_deadline_end_with_an_error_event_and_are_billed(
    fresh_database: str, valkey_test_url: str, fresh_topic: Any, kafka_bootstrap_servers: str, tmp_path: Path
) -> None:
    topic = await fresh_topic(partitions=1)
    fake, edge, url, key = await _start(
        tmp_path,
        fresh_database,
        valkey_test_url,
        topic,
        kafka_bootstrap_servers,
        TOLLWAY_EDGE_ACCEPT_GRACE_SECONDS="0.5",
        TOLLWAY_EDGE_DRAIN_DEADLINE_SECONDS="1.5",
    )
    try:
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(
            connector=connector, timeout=aiohttp.ClientTimeout(total=60)
        ) as http:
            fault = {"model:fake-model": {"stall_after_headers_ms": 30000}}
            async with http.post(FAKE_URL[0] + "/_fake/faults", json=fault) as r:
                assert r.status == 200, await r.text()
            streams = [_Stream() for _ in range(20)]
            tasks = [asyncio.create_task(_stream(http, url, key, "long", s)) for s in streams]
            stalled = asyncio.create_task(
                http.post(
                    url + "/v1/chat/completions",
                    json={"model": "stalled", "messages": MESSAGES},
                    headers={"Authorization": f"Bearer {key}"},
                )
            )
            await asyncio.wait_for(asyncio.gather(*(s.first.wait() for s in streams)), 30)
            stopped_at = time.monotonic()
            edge.send_signal(signal.SIGTERM)
            done = await asyncio.gather(*tasks)
            assert time.monotonic() - stopped_at < 0.5 + 1.5 + 2.0 + 1.0
            with pytest.raises(aiohttp.ClientError):  # cancelled at the stop: no answer
                await stalled
        assert edge.wait(30) == 0
        async with ledger_for(fresh_database, kafka_bootstrap_servers, topic, fresh_topic):
            found = await rows(fresh_database, [s.request_id for s in done])
            deadline = time.monotonic() + 20
            while True:
                conn = await asyncpg.connect(fresh_database)
                try:
                    cancelled = await conn.fetch(
                        "SELECT * FROM ledger.usage_records WHERE model = 'stalled' AND status = 'failed'"
                    )
                finally:
                    await conn.close()
                if cancelled or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.2)
        # The provider heard of it: billed for the estimated prompt, never NULL.
        (row,) = cancelled
        assert (row["status_code"], row["error_type"]) == (503, "server_shutting_down")
        assert row["usage_estimated"] is True
        assert (row["prompt_tokens"], row["completion_tokens"]) == (PROMPT + 3, 0)
        assert row["cost_micro_usd"] == cost_micro_usd(
            Prices(**PRICES), prompt_tokens=PROMPT + 3, completion_tokens=0
        )
        for s in done:
            assert b"[DONE]" not in s.data
            error = orjson.loads(s.data[-1])["error"]
            assert (error["type"], error["code"]) == ("api_error", "server_shutting_down")
            received = sum(
                1
                for d in s.data[:-1]
                if (orjson.loads(d)["choices"] or [{}])[0].get("delta", {}).get("content")
            )
            row = found[s.request_id]
            assert (row["status"], row["error_type"]) == ("failed", "server_shutting_down")
            assert row["usage_estimated"] is True
            assert row["prompt_tokens"] == PROMPT + 3  # usage.estimate_prompt_tokens
            assert row["completion_tokens"] == received  # cut at the deadline: what was relayed
            assert 0 < received < 100
            assert row["cost_micro_usd"] == cost_micro_usd(
                Prices(**PRICES), prompt_tokens=PROMPT + 3, completion_tokens=received
            )
    finally:
        stop(edge, timeout=60)
        stop(fake)
