"""Admission's CPU per call at the edge, in one process: ``EdgeAdmission.admit``
(a key with every limit kind, its budget counter seeded), the event's
``reservation`` twice (``started``, ``completed``), ``finish`` and ``release``,
against the stack's Valkey (db 13, the tenant's keys deleted at the end);
beside it the floor, two ``PING`` round trips on a ``PipelinedClient`` (the
two round trips admission makes per call). ``time.thread_time`` per call,
``--concurrency`` calls at once (uvloop).

``--canned`` also times the same admit + release with Valkey's replies canned
(the pipelined client replaced by one that answers at once, without I/O:
``admitted``, every counter at 0; the release's ``1``): admission's pure
Python per call, the part the two round trips do not cost.

    uv run --no-sync python services/edge/bench/admission_cpu.py [--calls 5000] [--concurrency 16] [--canned]

Before/after: ``PYTHONPATH=<old tree>/libs/admission/src:<old tree>/services/edge/src``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
import uuid
from collections.abc import Awaitable, Callable

import uvloop

from tollway_admission import PipelinedClient
from tollway_contracts.catalogue import Prices
from tollway_contracts.limits import Limit
from tollway_edge.admission import EdgeAdmission
from tollway_edge.auth.principals import Principal

URL = os.environ.get("TOLLWAY_VALKEY_URL", "redis://127.0.0.1:6379/0").rsplit("/", 1)[0] + "/13"
LIMITS = {
    "requests_per_minute": 10**9,
    "tokens_per_minute": 10**12,
    "max_concurrent": 10**6,
    "budget_micro_usd": 10**15,
    "budget_period": "month",
}


class CannedClient:
    """Stands for the pipelined client: each script's reply at once, no I/O (``--canned``)."""

    def __init__(self, admit_sha: bytes, checks: int) -> None:
        self._admit_sha = admit_sha
        self._admit = [b"admitted", [0] * checks, [0] * checks]

    async def execute_packed(self, packed: bytes) -> object:
        return self._admit if self._admit_sha in packed else 1

    async def evalsha(self, sha: str, keys: object, args: object) -> object:
        return self._admit if sha.encode() == self._admit_sha else 1

    async def execute(self, *args: object) -> object:
        return b"OK"


class BenchEntry:
    """The catalogue model fields admission reads."""

    prices = Prices(input=1, output=1)


async def _per_call(one: Callable[[], Awaitable[None]], calls: int, concurrency: int) -> tuple[float, float]:
    """(CPU µs, wall µs) per call of ``one`` over ``calls`` calls, ``concurrency`` at once."""
    for _ in range(200):
        await one()
    sem = asyncio.Semaphore(concurrency)

    async def limited() -> None:
        async with sem:
            await one()

    t0, w0 = time.thread_time(), time.perf_counter()
    await asyncio.gather(*(limited() for _ in range(calls)))
    return (time.thread_time() - t0) / calls * 1e6, (time.perf_counter() - w0) / calls * 1e6


async def main(calls: int, concurrency: int, canned: bool) -> None:
    adm = EdgeAdmission(valkey_url=URL)
    await adm.start()
    assert adm.adm is not None
    tenant = f"bench-adm-{uuid.uuid4().hex[:8]}"
    principal = Principal(
        key_id="k1",
        secret_hash="",
        tenant_id=tenant,
        team_id="t",
        user_id="u",
        allowed_models=None,
        revoked=False,
        expires_at=None,
        redaction_policy=None,
        limits=[Limit(scope="key", scope_id="k1", **LIMITS)],  # type: ignore[arg-type]
        version=1,
    )
    assert principal.limits is not None
    await adm.adm.seed_budget(tenant, principal.limits[0], 0)
    entry = BenchEntry()

    async def admit_release() -> None:
        ticket = await adm.admit(principal, "m", entry, 20, 100, str(uuid.uuid4()), False)  # type: ignore[arg-type]
        assert ticket is not None
        ticket.reservation_field()
        adm.finish(ticket, 30, 5)
        ticket.reservation_field()
        await adm.release(ticket)

    ping = PipelinedClient(URL)

    async def two_pings() -> None:
        await ping.execute("PING")
        await ping.execute("PING")

    try:
        cpu, wall = await _per_call(admit_release, calls, concurrency)
        print(
            f"admit + release: {cpu:.1f} us CPU per call ({wall:.1f} us wall), c={concurrency}, {calls} calls"
        )
        cpu, wall = await _per_call(two_pings, calls, concurrency)
        print(f"2 x PING (floor): {cpu:.1f} us CPU per call ({wall:.1f} us wall)")
        if canned:
            from tollway_admission.admission import ADMIT

            real = adm.adm._fast  # noqa: SLF001 - the bench swaps the client under test
            adm.adm._fast = CannedClient(ADMIT.sha.encode(), 4)  # type: ignore[assignment]  # noqa: SLF001
            try:
                cpu, wall = await _per_call(admit_release, calls, concurrency)
            finally:
                adm.adm._fast = real  # noqa: SLF001
            print(f"admit + release, replies canned: {cpu:.1f} us CPU per call ({wall:.1f} us wall)")
    finally:
        await ping.aclose()
        client = adm.client
        if client is not None:
            keys = [k async for k in client.scan_iter(match=f"tw:{{{tenant}}}:*", count=1000)]
            if keys:
                await client.delete(*keys)
        await adm.stop()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=5000)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--canned", action="store_true", help="also time admit + release with replies canned")
    args = ap.parse_args()
    uvloop.run(main(args.calls, args.concurrency, args.canned))
