"""The edge's stop: an ordered, timed plan (CONVENTIONS habit 9; issue 10 "Drain").

On SIGTERM (or SIGINT) — to the process, to the supervisor (which forwards
it) or to the whole process group, as ``infra/down.sh`` and Kubernetes send
it; a repeated signal changes nothing:

1. ``/readyz`` turns 503 (``failing: ["draining"]``) at once; calls are still
   served.
2. For ``accept_grace_seconds`` the listener keeps accepting, so a load
   balancer that has not yet seen the 503 loses nothing.
3. The listener closes; idle keep-alive connections close; in-flight calls
   and streams run to completion, up to ``drain_deadline_seconds``.
4. At the deadline, every stream still running ends with an OpenAI-format
   error event (``server_shutting_down``) and is billed (estimated,
   ``usage_estimated``); they get up to ``CUT_SECONDS`` to write and journal
   that. A non-streamed call still waiting on its provider then is cancelled
   and billed for its estimated prompt (``pipeline``).
5. aiohttp's cleanup: the usage journal ships to Kafka for up to
   ``journal_flush_seconds``; what is not acknowledged stays on disk and the
   next life (or another worker) replays it.

So the process exits within accept grace + drain deadline + ``CUT_SECONDS``
+ journal flush (+ about 1 s of cleanup); ``infra/down.sh`` and the
supervisor wait that long, and the Helm chart's
``terminationGracePeriodSeconds`` covers preStop + that sum (docs/deploy.md).
"""

from __future__ import annotations

import asyncio
import signal
import time
from typing import TYPE_CHECKING

import structlog

from tollway_edge.config import EdgeConfig
from tollway_runtime.process import settle_memory

if TYPE_CHECKING:  # aiohttp and the application (state) are imported where used: the
    from aiohttp import web  # supervisor imports this module for stop_seconds and serves nothing

log = structlog.get_logger("tollway_edge.drain")

CUT_SECONDS = 2.0
"""After the drain deadline: time the cut streams get to write their error
event and journal their terminal event, s."""
GC_GEN0_THRESHOLD = 10_000
"""The garbage collector's first threshold once the edge listens (CPython: 700).
During a burst of 1,000 streams, 700 meant ~200 young and ~19 middle collections
and a full one (~450 ms of collector CPU with the startup objects frozen); 10,000
meant 11 young and one middle collection (~180 ms), no full one
(docs/edge-performance.md, "GC")."""
CLEANUP_SECONDS = 1.0
"""aiohttp's shutdown timeout after the drain: handlers still running then
(non-streamed calls waiting on a provider) are cancelled, s."""


def stop_seconds(settings: EdgeConfig) -> float:
    """The longest an edge process takes to stop after SIGTERM, s: accept
    grace + drain deadline + cut + cleanup + journal flush."""
    return (
        settings.accept_grace_seconds
        + settings.drain_deadline_seconds
        + CUT_SECONDS
        + CLEANUP_SECONDS
        + settings.journal_flush_seconds
    )


async def _until_idle(app: web.Application, deadline: float) -> bool:
    """Wait until no call is in flight or ``deadline`` (monotonic) passes; True when idle."""
    from tollway_edge.state import STATE

    state = app[STATE]
    while state.in_flight > 0:
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def drain(app: web.Application, runner: web.AppRunner, settings: EdgeConfig) -> None:
    """Steps 1–4 of the module doc; the caller's ``runner.cleanup()`` does step 5."""
    from tollway_edge.state import STATE

    state = app[STATE]
    state.draining = True
    log.info(
        "drain_started",
        in_flight=state.in_flight,
        streams=len(state.streams),
        accept_grace_seconds=settings.accept_grace_seconds,
        drain_deadline_seconds=settings.drain_deadline_seconds,
    )
    await asyncio.sleep(settings.accept_grace_seconds)
    for site in list(runner.sites):
        await site.stop()
    if runner.server is not None:
        runner.server.pre_shutdown()  # idle keep-alive connections close; busy ones after their answer
    deadline = time.monotonic() + settings.drain_deadline_seconds
    if await _until_idle(app, deadline):
        log.info("drain_finished", cut_streams=0)
        return
    cut = state.streams.shut_down()
    idle = await _until_idle(app, time.monotonic() + CUT_SECONDS)
    log.warning("drain_deadline_passed", cut_streams=cut, still_in_flight=0 if idle else state.in_flight)


async def serve_until_stopped(app: web.Application, settings: EdgeConfig, *, reuse_port: bool) -> None:
    """Serve ``app`` on ``settings.host:port`` until SIGTERM/SIGINT, then drain and clean up.

    Once listening, ``tollway_runtime.process.settle_memory`` runs: what startup
    built is frozen out of the garbage collector's walks, the heap it freed
    goes back to the OS, and young collections wait for ``GC_GEN0_THRESHOLD``
    net allocations (docs/edge-performance.md, "Idle RSS" and "GC")."""
    from aiohttp import web

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):  # before startup: a signal then drains right after it
        loop.add_signal_handler(signum, stop.set)
    runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=CLEANUP_SECONDS)
    await runner.setup()
    try:
        site = web.TCPSite(runner, settings.host, settings.port, backlog=4096, reuse_port=reuse_port)
        await site.start()
        # started: freeze the startup objects out of the GC's walks, trim the heap, fewer young collections
        settle_memory(gen0_threshold=GC_GEN0_THRESHOLD)
        await stop.wait()
        await drain(app, runner, settings)
    finally:
        await runner.cleanup()
