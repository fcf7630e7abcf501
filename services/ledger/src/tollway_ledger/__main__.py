"""``python -m tollway_ledger [--check-config]``: run the ledger.

Exit codes: 0 after a clean shutdown (SIGTERM/SIGINT), 1 when the consumer
loop failed (e.g. the DLQ rate limit tripped), 2 on invalid settings.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys

import structlog
from aiohttp import web
from pydantic import ValidationError
from tollway_runtime.logging import configure_logging
from tollway_runtime.process import install_uvloop

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
    """Entry point: parse settings, optionally only check them, configure logging, run."""
    parser = argparse.ArgumentParser(prog="tollway-ledger")
    parser.add_argument("--check-config", action="store_true", help="validate settings and exit")
    args = parser.parse_args(argv)
    try:
        settings = LedgerSettings()
    except ValidationError as exc:
        print(exc, file=sys.stderr)
        sys.exit(2)
    if args.check_config:
        print(settings.redacted_json())
        return
    configure_logging(settings.log_level, settings.log_format, service="ledger")
    install_uvloop()
    sys.exit(asyncio.run(serve(settings)))


if __name__ == "__main__":
    main()
