"""SingleFlight: one seed per cold counter, whatever the burst."""

from __future__ import annotations

import asyncio

import pytest

from tollway_admission.singleflight import SingleFlight

pytestmark = pytest.mark.unit


async def test_concurrent_callers_share_one_computation_then_the_next_runs_again() -> None:
    flights: SingleFlight[str, int] = SingleFlight()
    runs = 0
    gate = asyncio.Event()

    async def compute() -> int:
        nonlocal runs
        runs += 1
        await gate.wait()
        return 42

    waiters = [asyncio.create_task(flights.run("t1:budget", compute)) for _ in range(20)]
    other = asyncio.create_task(flights.run("t2:budget", compute))
    await asyncio.sleep(0)
    assert len(flights) == 2
    gate.set()
    assert await asyncio.gather(*waiters, other) == [42] * 21
    assert runs == 2 and len(flights) == 0
    assert await flights.run("t1:budget", compute) == 42
    assert runs == 3


async def test_an_error_reaches_every_waiter_and_a_cancelled_waiter_does_not_cancel_the_rest() -> None:
    flights: SingleFlight[str, int] = SingleFlight()
    gate = asyncio.Event()

    async def failing() -> int:
        await gate.wait()
        raise RuntimeError("quota unreachable")

    first = asyncio.create_task(flights.run("k", failing))
    await asyncio.sleep(0)
    second = asyncio.create_task(flights.run("k", failing))
    leaving = asyncio.create_task(flights.run("k", failing))
    await asyncio.sleep(0)
    leaving.cancel()
    await asyncio.sleep(0)
    gate.set()
    for task in (first, second):
        with pytest.raises(RuntimeError, match="quota unreachable"):
            await task
    assert leaving.cancelled()
    assert len(flights) == 0
