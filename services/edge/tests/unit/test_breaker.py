"""The circuit breaker's states on one process (no Valkey): closed → open → half-open → closed/open."""

from __future__ import annotations

import orjson

from tollway_contracts.catalogue import BreakerPolicy
from tollway_edge.routing.breaker import Breakers


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


POLICY = BreakerPolicy(failure_rate=0.5, min_calls=4, window_seconds=10, open_seconds=5)


async def test_opens_at_the_failure_rate_after_min_calls() -> None:
    clock = Clock()
    b = Breakers(POLICY, clock=clock)
    for ok in (False, False, False):
        b.record("p:m", ok)
    assert b.check("p:m") == "allow"  # 3 calls < min_calls
    b.record("p:m", True)
    assert b.state("p:m") == "closed"  # the rate is checked when a failure is counted, never on a success
    b.record("p:m", False)
    assert b.state("p:m") == "open" and b.check("p:m") == "skip"  # 4 of 5 failed


async def test_429_and_successes_keep_it_closed_and_the_window_restarts() -> None:
    clock = Clock()
    b = Breakers(POLICY, clock=clock)
    for _ in range(10):
        b.record("p:m", None)  # busy, not broken
    b.record("p:m", False)
    clock.now += 11  # the window passed: counts restart
    for _ in range(3):
        b.record("p:m", True)
    b.record("p:m", False)
    assert b.state("p:m") == "closed"  # 1 of 4 failed


async def test_half_open_lets_one_probe_and_closes_on_its_success() -> None:
    clock = Clock()
    b = Breakers(POLICY, clock=clock)
    for _ in range(4):
        b.record("p:m", False)
    assert b.check("p:m") == "skip"
    clock.now += 5.1
    assert b.check("p:m") == "probe"
    assert await b.claim_probe("p:m")
    assert b.check("p:m") == "skip"  # one probe at a time
    assert not await b.claim_probe("p:m")
    b.record("p:m", True)
    assert b.state("p:m") == "closed" and b.check("p:m") == "allow"


async def test_a_failed_probe_opens_it_again_and_a_vanished_probe_is_replaced() -> None:
    clock = Clock()
    b = Breakers(POLICY, clock=clock)
    for _ in range(4):
        b.record("p:m", False)
    clock.now += 5.1
    assert b.check("p:m") == "probe" and await b.claim_probe("p:m")
    b.record("p:m", False)
    assert b.state("p:m") == "open" and b.check("p:m") == "skip"
    clock.now += 5.1
    assert b.check("p:m") == "probe" and await b.claim_probe("p:m")
    clock.now += 5.1  # the probe never reported (its call was cancelled)
    assert b.check("p:m") == "probe"


async def test_a_published_change_is_applied_and_bad_messages_ignored() -> None:
    import time

    clock = Clock()
    b = Breakers(POLICY, clock=clock)
    b.apply(orjson.dumps({"key": "p:m", "state": "open", "until": time.time() + 3}))
    assert b.check("p:m") == "skip"
    clock.now += 3.1
    assert b.check("p:m") == "probe"
    b.apply(orjson.dumps({"key": "p:m", "state": "closed", "until": 0}))
    assert b.check("p:m") == "allow"
    b.apply(b"not json")
    b.apply(orjson.dumps({"key": "p:m", "state": "weird", "until": 0}))
    assert b.check("p:m") == "allow"


async def test_disabled_never_opens() -> None:
    b = Breakers(BreakerPolicy(enabled=False, min_calls=1))
    for _ in range(10):
        b.record("p:m", False)
    assert b.check("p:m") == "allow"


async def test_listener_backs_off_while_valkey_is_unreachable(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Nothing listens on port 1: each resubscribe fails at connect, and the waits
    between tries double from 1 s up to the cap instead of retrying every second."""
    import asyncio

    from tollway_edge.routing import breaker as breaker_module

    waits: list[float] = []
    real_sleep = asyncio.sleep

    async def fake_sleep(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) == 7:
            raise asyncio.CancelledError

    class QuietLog:  # the console renderer formats each traceback slowly
        def warning(self, *args: object, **kw: object) -> None:
            pass

    monkeypatch.setattr(breaker_module, "log", QuietLog())
    b = Breakers(POLICY, valkey_url="redis://127.0.0.1:1")
    await b.start()
    assert b._listener is not None
    monkeypatch.setattr(breaker_module.asyncio, "sleep", fake_sleep)
    try:
        await asyncio.wait_for(asyncio.shield(b._listener), 30)
    except asyncio.CancelledError:
        pass
    finally:
        monkeypatch.setattr(breaker_module.asyncio, "sleep", real_sleep)
        await b.stop()
    assert waits == [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]
