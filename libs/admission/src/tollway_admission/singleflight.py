"""One in-flight computation per key, shared by every concurrent caller.

Cold counters are seeded on the cold path only, and a burst of calls meeting
the same cold counter must cost one seed (one HTTP call from the edge, one
ledger query in quota), not one per call: :class:`SingleFlight` makes the
first caller run the computation and every caller that arrives while it runs
await the same result (or the same exception).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class SingleFlight(Generic[K, V]):
    """Coalesces concurrent ``run(key, compute)`` calls with equal keys.

    The result is not cached: once the computation ends, the next call with
    that key runs it again. A waiter that is cancelled does not cancel the
    shared computation (``asyncio.shield``); the first caller's cancellation
    cancels it for every waiter (they see ``CancelledError``).
    """

    def __init__(self) -> None:
        self._inflight: dict[K, asyncio.Future[V]] = {}

    def __len__(self) -> int:
        """Computations in flight now."""
        return len(self._inflight)

    async def run(self, key: K, compute: Callable[[], Awaitable[V]]) -> V:
        """``await compute()`` once for all concurrent callers with ``key``.

        Raises:
            whatever ``compute`` raises, to the first caller and every waiter.
        """
        fut = self._inflight.get(key)
        if fut is not None:
            return await asyncio.shield(fut)
        fut = asyncio.get_running_loop().create_future()
        self._inflight[key] = fut
        try:
            value = await compute()
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError):
                fut.cancel()
            else:
                fut.set_exception(exc)
                fut.exception()  # retrieved: waiters re-raise it; no "never retrieved" warning
            raise
        else:
            fut.set_result(value)
            return value
        finally:
            self._inflight.pop(key, None)
