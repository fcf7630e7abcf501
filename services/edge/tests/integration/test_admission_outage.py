"""Valkey stopped under load: a PRIVATE redis-server (never the shared one)
is stopped mid-load; the edge keeps serving under the local bound (``local``)
or answers 503 (``refuse``), and once Valkey is back it is exact again, with
lost budget counters reseeded from the ledger."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest
import pytest_asyncio

from tollway_contracts.catalogue import Prices
from tollway_contracts.pricing import cost_micro_usd
from tollway_edge.admission.bounds import prompt_token_bound

from .conftest import Edge
from .ledger_schema import record_spend
from .processes import free_port, start_valkey, stop, wait_valkey

pytestmark = pytest.mark.integration

PORT = free_port()
PRICES = Prices(input=150000, cached_input=75000, output=600000)
BODY = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hello"}], "max_tokens": 8}
CALL_COST = cost_micro_usd(PRICES, prompt_tokens=prompt_token_bound(BODY), completion_tokens=8)


class PrivateValkey:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.proc = start_valkey(PORT, tmp)

    def stop(self) -> None:
        stop(self.proc)

    async def restart(self) -> None:
        self.proc = start_valkey(PORT, self.tmp)
        await wait_valkey(PORT)


@pytest_asyncio.fixture
async def private_valkey(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[PrivateValkey]:
    v = PrivateValkey(tmp_path_factory.mktemp("valkey"))
    await wait_valkey(PORT)
    try:
        yield v
    finally:
        v.stop()


def _settings(mode: str) -> dict[str, Any]:
    return {
        "_ledger": True,
        "valkey_url": f"redis://127.0.0.1:{PORT}/0",
        "admission_failure_mode": mode,
        "expected_processes": 2,
        "admission_timeout_seconds": 0.5,
        "admission_probe_interval_seconds": 0.1,
    }


async def _mode(http: aiohttp.ClientSession, edge: Edge) -> str:
    async with http.get(edge.url + "/readyz") as resp:
        body = orjson.loads(await resp.read())
        return body["admission_mode"] if body["status"] == "ready" else "unready"


async def _wait_mode(http: aiohttp.ClientSession, edge: Edge, mode: str, within_s: float = 15) -> None:
    deadline = time.monotonic() + within_s
    while await _mode(http, edge) != mode:
        assert time.monotonic() < deadline, f"admission mode never became {mode}"
        await asyncio.sleep(0.05)


async def _call(http: aiohttp.ClientSession, edge: Edge, key: str) -> tuple[int, Any]:
    async with http.post(
        edge.base_url + "/chat/completions", json=BODY, headers={"Authorization": f"Bearer {key}"}
    ) as resp:
        payload = orjson.loads(await resp.read())
        return resp.status, payload


class Load:
    """Workers calling the edge in a loop; statuses recorded by phase."""

    def __init__(self, http: aiohttp.ClientSession, edge: Edge, key: str, workers: int = 8) -> None:
        self.phase = "before"
        self.seen: dict[str, list[tuple[int, Any]]] = {}
        self.t0 = time.monotonic()
        self.log: list[tuple[float, float, str, int]] = []  # (start s, duration s, phase, status) per call
        self._stop = False
        self._tasks = [asyncio.create_task(self._run(http, edge, key)) for _ in range(workers)]

    async def _run(self, http: aiohttp.ClientSession, edge: Edge, key: str) -> None:
        while not self._stop:
            phase = self.phase
            t0 = time.monotonic()
            result = await _call(http, edge, key)
            self.seen.setdefault(phase, []).append(result)
            self.log.append((round(t0 - self.t0, 3), round(time.monotonic() - t0, 3), phase, result[0]))

    async def stop(self) -> None:
        self._stop = True
        await asyncio.gather(*self._tasks)


@pytest.mark.parametrize("edge", [_settings("local")], indirect=True)
async def test_valkey_stopped_under_load_local_mode_then_exact_again(
    private_valkey: PrivateValkey, edge: Edge, edge_http: aiohttp.ClientSession
) -> None:
    busy = await edge.new_key(
        "busy",
        limits=[
            {"scope": "key", "scope_id": "$key", "requests_per_minute": 100_000, "budget_micro_usd": 10**9}
        ],
    )
    spent_before = 50 * CALL_COST
    k = 4
    probe = await edge.new_key(
        "probe",
        limits=[
            {"scope": "key", "scope_id": "$key", "budget_micro_usd": spent_before + CALL_COST + k * CALL_COST}
        ],
    )
    await record_spend(
        edge.dsn, tenant_id="tenant-1", key_id=edge.key_ids["probe"], cost_micro_usd=spent_before
    )
    await _wait_mode(edge_http, edge, "exact")
    assert (await _call(edge_http, edge, probe))[0] == 200  # warm counter: ledger spend + this call

    load = Load(edge_http, edge, busy)
    await asyncio.sleep(0.5)
    load.phase = "outage"
    private_valkey.stop()
    await _wait_mode(edge_http, edge, "local")
    async with edge_http.get(edge.url + "/metrics") as resp:
        metrics = (await resp.text()).splitlines()
    assert 'tollway_admission_mode{mode="local"} 1.0' in metrics
    assert 'tollway_admission_mode{mode="exact"} 0.0' in metrics
    await asyncio.sleep(1.0)
    # The ledger records the probe call made before the outage (as the ledger service would).
    await record_spend(edge.dsn, tenant_id="tenant-1", key_id=edge.key_ids["probe"], cost_micro_usd=CALL_COST)
    await private_valkey.restart()  # empty: every counter is gone
    await _wait_mode(edge_http, edge, "exact")
    load.phase = "after"
    await asyncio.sleep(0.5)
    await load.stop()

    for phase in ("before", "outage", "after"):
        statuses = {s for s, _ in load.seen.get(phase, [])}
        assert statuses == {200}, (phase, statuses)
    assert len(load.seen["outage"]) >= 8
    # Exact again, the cold counter reseeded from the ledger: exactly k more calls fit.
    results = [(await _call(edge_http, edge, probe))[0] for _ in range(k + 2)]
    assert results == [200] * k + [429, 429]


@pytest.mark.parametrize("edge", [_settings("refuse")], indirect=True)
async def test_valkey_stopped_refuse_mode_answers_503_then_exact_again(
    private_valkey: PrivateValkey, edge: Edge, edge_http: aiohttp.ClientSession
) -> None:
    key = await edge.new_key(
        "a",
        limits=[
            {"scope": "key", "scope_id": "$key", "requests_per_minute": 100_000, "budget_micro_usd": 10**9}
        ],
    )
    # (pytest may start the edge before the private server: admission then starts
    # degraded and probes back; the principals snapshot retries its start)
    await _wait_mode(edge_http, edge, "exact")
    load = Load(edge_http, edge, key)
    await asyncio.sleep(0.5)
    load.phase = "stopping"  # calls in flight when Valkey goes may be refused too
    await asyncio.sleep(0.5)  # every call started "before" has ended
    private_valkey.stop()
    await _wait_mode(edge_http, edge, "refuse")
    load.phase = "outage"
    # At least 1 s of outage and 3 calls begun and answered in it (under load, calls that
    # were in flight when Valkey went can take longer than 1 s to end: each Valkey step
    # waits up to admission_timeout_seconds before the call is refused).
    await asyncio.sleep(1.0)
    deadline = time.monotonic() + 15
    while len(load.seen.get("outage", [])) < 3:
        assert time.monotonic() < deadline, [e for e in load.log if e[2] != "before"][:40]
        await asyncio.sleep(0.05)
    load.phase = "restarting"
    await private_valkey.restart()
    await _wait_mode(edge_http, edge, "exact")
    load.phase = "after"
    await asyncio.sleep(0.5)
    await load.stop()
    assert {s for s, _ in load.seen["before"]} == {200}, [p for s, p in load.seen["before"] if s != 200][:2]
    outage = load.seen["outage"]
    assert outage and {s for s, _ in outage} == {503}
    assert all(p["error"]["code"] == "admission_unavailable" for _, p in outage)
    assert {s for s, _ in load.seen["after"]} == {200}
