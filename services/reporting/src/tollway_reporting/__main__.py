"""``python -m tollway_reporting [--check-config]``: run the reporting service.

Exit codes: 0 after a clean shutdown (SIGTERM/SIGINT), 2 on invalid settings.
"""

from __future__ import annotations

import argparse
import sys

from aiohttp import web
from pydantic import ValidationError
from tollway_runtime.logging import configure_logging
from tollway_runtime.process import install_uvloop

from tollway_reporting.app import create_app
from tollway_reporting.settings import ReportingSettings


def main(argv: list[str] | None = None) -> None:
    """Entry point: parse settings, optionally only check them, configure logging, serve."""
    parser = argparse.ArgumentParser(prog="tollway-reporting")
    parser.add_argument("--check-config", action="store_true", help="validate settings and exit")
    args = parser.parse_args(argv)
    try:
        settings = ReportingSettings()
    except ValidationError as exc:
        print(exc, file=sys.stderr)
        sys.exit(2)
    if args.check_config:
        print(settings.redacted_json())
        return
    configure_logging(settings.log_level, settings.log_format, service="reporting")
    install_uvloop()
    web.run_app(create_app(settings), host=settings.host, port=settings.port, print=None)


if __name__ == "__main__":
    main()
