"""Running the edge: one process, or several on one port (SO_REUSEPORT).

``supervise`` starts N edge processes bound to the same port with
SO_REUSEPORT (the kernel spreads new connections over them), forwards
SIGTERM/SIGINT to them (and SIGHUP: reload the catalogue, ``catalogue_live``), and returns when they have all stopped. If one dies on
its own, it stops the others and returns 1, so the process manager
(Kubernetes, ``infra/up.sh``) restarts the whole set. Each worker is a whole
edge: its own principals snapshot, usage journal (a directory of its own
under ``journal_dir``), Kafka producer and Valkey connection;
nothing a call needs is shared between them (DESIGN.md: edge processes are
interchangeable).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import time

from tollway_edge.config import EdgeConfig
from tollway_edge.lean import lean_imports

# A spawned worker imports this module first (to find ``_worker``), outside
# ``__main__``'s block: everything the worker loads comes through here, lean.
with lean_imports():
    from tollway_edge.drain import serve_until_stopped, stop_seconds
    from tollway_runtime.logging import configure_logging
    from tollway_runtime.metrics import mark_worker_dead, start_multiprocess, stop_multiprocess
    from tollway_runtime.process import install_uvloop, raise_nofile_limit


def serve(settings: EdgeConfig, *, reuse_port: bool) -> None:
    """Run one edge process until SIGTERM/SIGINT, then drain (``tollway_edge.drain``)."""
    with lean_imports():  # the application's libraries, without integrations it never uses
        from tollway_edge.app import create_app

    raise_nofile_limit()
    install_uvloop()
    # SIGHUP asks for a catalogue check (catalogue_live installs the handler at start);
    # until then, and after its stop, it must not end the process.
    signal.signal(signal.SIGHUP, signal.SIG_IGN)

    async def main() -> None:
        await serve_until_stopped(create_app(settings), settings, reuse_port=reuse_port)

    asyncio.run(main())


def _worker(settings: EdgeConfig, index: int) -> None:
    configure_logging(settings.log_level, settings.log_format, service="edge", levels=settings.log_levels)
    import structlog  # loaded, lean, by configure_logging

    structlog.contextvars.bind_contextvars(worker=index)
    serve(settings, reuse_port=True)


def supervise(settings: EdgeConfig, workers: int) -> int:
    """Start ``workers`` edge processes on one port; returns the exit code.

    Each worker gets ``settings`` pickled: plain values (``tollway_edge.config``),
    so it imports neither pydantic-settings nor the settings module.
    """
    import structlog

    log = structlog.get_logger("tollway_edge.supervisor")
    metrics_dir = start_multiprocess("edge")  # before the workers start: they inherit it
    ctx = multiprocessing.get_context("spawn")
    procs = [
        ctx.Process(target=_worker, args=(settings, i), name=f"tollway-edge-{i}") for i in range(workers)
    ]
    for proc in procs:
        proc.start()
    log.info("workers_started", workers=workers, pids=[p.pid for p in procs], port=settings.port)
    stopping = False

    def _forward(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True
        for proc in procs:
            if proc.is_alive() and proc.pid is not None:
                os.kill(proc.pid, signal.SIGTERM)

    def _reload(signum: int, _frame: object) -> None:
        for proc in procs:
            if proc.is_alive() and proc.pid is not None:
                os.kill(proc.pid, signal.SIGHUP)

    signal.signal(signal.SIGTERM, _forward)
    signal.signal(signal.SIGINT, _forward)
    signal.signal(signal.SIGHUP, _reload)
    code = 0
    while any(p.is_alive() for p in procs):
        for proc in procs:
            if not stopping and not proc.is_alive():
                mark_worker_dead(proc.pid)
                log.error("worker_died", pid=proc.pid, exit_code=proc.exitcode)
                code = 1
                _forward(signal.SIGTERM, None)
        time.sleep(0.2)
    if not stopping and any(p.exitcode for p in procs):
        code = 1
    # A worker's stop (drain.py): accept grace, drain deadline, cut, journal flush; 5 s of slack.
    deadline = time.monotonic() + stop_seconds(settings) + 5
    for proc in procs:
        proc.join(max(0.0, deadline - time.monotonic()))
        if proc.is_alive():
            proc.kill()
        mark_worker_dead(proc.pid)
    stop_multiprocess(metrics_dir)
    log.info("workers_stopped", exit_code=code)
    return code
