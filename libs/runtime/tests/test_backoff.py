"""with_backoff: exponential waits through tenacity, stop ends retries, other errors pass."""

from __future__ import annotations

import asyncio

import pytest

from tollway_runtime.kafka import Abandon, with_backoff

pytestmark = pytest.mark.unit


async def test_retries_until_success_with_doubling_capped_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []
    real_sleep = asyncio.sleep

    async def fake_sleep(seconds: float) -> None:
        waits.append(seconds)
        await real_sleep(0)

    monkeypatch.setattr(asyncio, "sleep", fake_sleep)
    calls = 0
    retried: list[str] = []

    async def step() -> str:
        nonlocal calls
        calls += 1
        if calls < 6:
            raise OSError(f"down {calls}")
        return "ok"

    result = await with_backoff(
        step,
        what="retry",
        initial_seconds=0.1,
        max_seconds=0.5,
        retry_on=(OSError,),
        on_retry=lambda e: retried.append(str(e)),
    )
    assert result == "ok" and calls == 6
    assert waits == pytest.approx([0.1, 0.2, 0.4, 0.5, 0.5])
    assert retried == [f"down {i}" for i in range(1, 6)]


async def test_errors_not_listed_propagate_at_once() -> None:
    calls = 0

    async def step() -> None:
        nonlocal calls
        calls += 1
        raise KeyError("bug")

    with pytest.raises(KeyError):
        await with_backoff(step, what="retry", initial_seconds=0.01, max_seconds=0.01, retry_on=(OSError,))
    assert calls == 1


async def test_a_stop_ends_the_wait_and_the_retries() -> None:
    stop = asyncio.Event()
    calls = 0

    async def step() -> None:
        nonlocal calls
        calls += 1
        asyncio.get_running_loop().call_later(0.05, stop.set)
        raise OSError("down")

    started = asyncio.get_running_loop().time()
    with pytest.raises(Abandon):
        await with_backoff(step, what="retry", initial_seconds=30, max_seconds=30, stop=stop)
    assert calls == 1 and asyncio.get_running_loop().time() - started < 5
    # Already stopping: the attempt runs (the batch in hand may finish), no retry.
    with pytest.raises(Abandon):
        await with_backoff(step, what="retry", initial_seconds=30, max_seconds=30, stop=stop)
    assert calls == 2

    async def fine() -> str:
        return "done"

    assert await with_backoff(fine, what="retry", initial_seconds=30, max_seconds=30, stop=stop) == "done"


async def test_a_lambda_returning_a_coroutine_is_awaited(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = 0

    async def step(x: int) -> int:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise OSError("once")
        return x * 2

    assert await with_backoff(lambda: step(21), what="retry", initial_seconds=0.01, max_seconds=0.01) == 42
