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
