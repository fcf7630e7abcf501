"""Warm provider connections: a pool's minimum of connections, kept open ahead
of demand (the catalogue's ``min_idle_connections``, issue 9).

A burst of 1,000 streams on a fresh edge otherwise opens ~1,000 provider
connections at once, and their handshakes (and TLS) are paid in the burst
(docs/edge-performance.md). One :class:`Warmer` task per pool opens
connections until ``min_idle`` are open — idle, or serving a call — and opens
more whenever connections close: they expire (:data:`KEEPALIVE_SECONDS` idle),
the provider closes them, a call's connection is not reusable after it. A call
that takes an idle connection does not trigger a connect: the connection
comes back idle when the call ends, and a burst that took every idle one
would otherwise pay a second round of connects in the middle of the burst
(measured: worse p95, more edge CPU per stream).

- paced: at most :data:`WARM_PARALLEL` connects at a time, through the pool's
  own ``connecting`` bound shared with requests (never a connect storm);
- never blocking a request: it runs beside them; a request that finds no idle
  connection opens its own as before;
- backing off when the provider refuses, fails the connect, or closes new
  connections at once (< :data:`EARLY_CLOSE_SECONDS`): tenacity's jittered
  exponential wait from :data:`BACKOFF_INITIAL_SECONDS` up to
  :data:`BACKOFF_MAX_SECONDS`, one ``provider_warm_failed`` log line per wait
  (provider, host, port, the error's type and text: no credential is ever in it).

The ``tollway_provider_idle_connections`` gauge follows each pass.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING

import structlog
from tenacity import AsyncRetrying, RetryCallState, wait_random_exponential

from tollway_edge.metrics import PROVIDER_IDLE_CONNECTIONS

if TYPE_CHECKING:
    from tollway_edge.routing.http1 import Connection
    from tollway_edge.routing.http1_pool import Pool

log = structlog.get_logger("tollway_edge.upstream")

KEEPALIVE_SECONDS = 75.0
"""An idle pooled connection older than this is closed instead of reused, s."""
WARM_PARALLEL = 8
"""Warm connects in flight at once per pool (of the pool's ``connecting`` bound)."""
EARLY_CLOSE_SECONDS = 1.0
"""A warm connection the provider closes sooner than this after it went idle
counts as a failure (a provider that accepts and hangs up): backoff, not a loop."""
BACKOFF_INITIAL_SECONDS = 0.1
BACKOFF_MAX_SECONDS = 30.0
_RETRYING = AsyncRetrying()
_WAIT = wait_random_exponential(multiplier=BACKOFF_INITIAL_SECONDS, max=BACKOFF_MAX_SECONDS)


def backoff_seconds(failures: int) -> float:
    """The wait after ``failures`` (>= 1) failed warm passes in a row, s (jittered, capped)."""
    state = RetryCallState(_RETRYING, None, (), {})
    state.attempt_number = failures
    return float(_WAIT(state))


class Warmer:
    """Keeps ``min_idle`` connections open in ``pool``, idle when no call holds them (see module doc).

    Args:
        pool: the pool it fills (``pool.warmer`` is this).
        min_idle: the connections to keep open, idle or serving calls (>= 1).
        connect_timeout: each connect's timeout (TLS included), s; None = none.
    """

    def __init__(self, pool: Pool, min_idle: int, connect_timeout: float | None) -> None:
        self.pool, self.min_idle, self.connect_timeout = pool, min_idle, connect_timeout
        self.failures = 0  # failed passes in a row (0 once full and quiet for 2 × EARLY_CLOSE_SECONDS)
        self._failed_at = -1e9  # monotonic time of the last failed pass
        self._early = 0  # warm connections closed at once since the last pass
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._gauge = PROVIDER_IDLE_CONNECTIONS.labels(pool.provider)
        self._reported = 0

    def start(self) -> None:
        """Start the warming task (returns at once)."""
        self._task = asyncio.create_task(self._run(), name=f"warm-{self.pool.provider}")

    def poke(self) -> None:
        """Connections were closed or expired: check the deficit soon."""
        self._wake.set()

    def lost(self, conn: Connection) -> None:
        """An idle connection was closed by the provider (``Pool.idle_lost``)."""
        if time.monotonic() - conn.idle_since < EARLY_CLOSE_SECONDS:
            self._early += 1
        self._wake.set()

    def stop(self) -> None:
        """Cancel the task (:meth:`stopped` waits for it)."""
        if self._task is not None:
            self._task.cancel()

    async def stopped(self) -> None:
        """Cancel the task, wait for its end, and withdraw its idle connections from the gauge."""
        self.stop()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._report(0)

    def deficit(self) -> int:
        """Connections to open now: ``min_idle`` minus those open (idle or serving a call)."""
        return self.min_idle - self.pool.idle_open - self.pool.busy

    def _report(self, idle: int) -> None:
        if idle != self._reported:
            self._gauge.inc(idle - self._reported)  # deltas: pools sharing the label add up
            self._reported = idle

    async def _run(self) -> None:
        pool = self.pool
        while not pool.closed:
            self._wake.clear()
            expires_in = pool.sweep()
            self._report(pool.idle_open)
            early, self._early = self._early, 0
            if early:  # the provider hung up on idle connections at once
                await self._back_off([], early)
                continue
            need = self.deficit()
            if need <= 0:
                if time.monotonic() - self._failed_at > 2 * EARLY_CLOSE_SECONDS:
                    self.failures = 0  # full, and no hang-up since: the provider is fine
                with contextlib.suppress(TimeoutError):
                    timeout = None if expires_in is None else expires_in + 0.05
                    await asyncio.wait_for(self._wake.wait(), timeout)
                continue
            results = await asyncio.gather(
                *(self._open_one() for _ in range(min(need, WARM_PARALLEL))), return_exceptions=True
            )
            errors = [r for r in results if isinstance(r, BaseException)]
            for err in errors:
                if not isinstance(err, Exception):
                    raise err  # not a connect failure (cancellation is raised by gather itself)
            if errors:
                await self._back_off(errors, 0)

    async def _back_off(self, errors: list[BaseException], early: int) -> None:
        self.failures += 1
        self._failed_at = time.monotonic()
        wait = backoff_seconds(self.failures)
        first = errors[0] if errors else None
        pool = self.pool
        log.warning(
            "provider_warm_failed",
            provider=pool.provider,
            host=pool.host,
            port=pool.port,
            failed=len(errors),
            closed_at_once=early,
            error=type(first).__name__ if first is not None else "closed_at_once",
            detail=str(first)[:300] if first is not None else "",
            failures_in_a_row=self.failures,
            retry_in_seconds=round(wait, 3),
            idle=pool.idle_open,
        )
        await asyncio.sleep(wait)

    async def _open_one(self) -> None:
        conn = await self.pool.open(self.connect_timeout, purpose="warm")
        self.pool.add_idle(conn)
