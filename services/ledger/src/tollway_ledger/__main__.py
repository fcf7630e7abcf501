"""``python -m tollway_ledger [--check-config]``: run the ledger.

Exit codes: 0 after a clean shutdown (SIGTERM/SIGINT), 1 when the consumer
loop failed (e.g. the DLQ rate limit tripped), 2 on invalid settings.
"""

from __future__ import annotations

import asyncio
import signal
import sys

import structlog
from aiohttp import web

from tollway_runtime.cli import settings_from_cli

from .app import CONSUMER, create_app
from .settings import LedgerSettings


async def serve(settings: LedgerSettings) -> int:
    """Run until a signal or until the consumer loop ends; returns the exit code."""
    log = structlog.get_logger("tollway_ledger")
    app = create_app(settings)
    runner = web.AppRunner(app, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, settings.host, settings.health_port)
    await site.start()
    log.info("started", health_port=settings.health_port, topic=settings.topic, group=settings.consumer_group)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    consumer_task = app[CONSUMER].task
    assert consumer_task is not None
    stop_task = asyncio.create_task(stop.wait())
    await asyncio.wait({stop_task, consumer_task}, return_when=asyncio.FIRST_COMPLETED)
    code = 0
    if consumer_task.done() and not consumer_task.cancelled() and consumer_task.exception():
        log.error("consumer_failed", error=repr(consumer_task.exception()))
        code = 1
    stop_task.cancel()
    await runner.cleanup()
    log.info("stopped", exit_code=code)
    return code


def main(argv: list[str] | None = None) -> None:
    """Entry point (exit 2 on invalid settings; see ``tollway_runtime.cli``)."""
    settings = settings_from_cli(LedgerSettings, service="ledger", argv=argv)
    sys.exit(asyncio.run(serve(settings)))


if __name__ == "__main__":
    main()
