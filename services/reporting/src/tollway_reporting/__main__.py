"""``python -m tollway_reporting [--check-config]``: run the reporting service.

Exit codes: 0 after a clean shutdown (SIGTERM/SIGINT), 2 on invalid settings.
"""

from __future__ import annotations

import argparse
import json
import sys
from urllib.parse import urlsplit, urlunsplit

from aiohttp import web
from pydantic import ValidationError
from tollway_runtime.logging import configure_logging
from tollway_runtime.process import install_uvloop

from tollway_reporting.app import create_app
from tollway_reporting.settings import ReportingSettings


def redacted_config(settings: ReportingSettings) -> str:
    """The settings as JSON with secrets and the DSN's password masked."""
    data = settings.model_dump(mode="json")
    parts = urlsplit(data["postgres_dsn"])
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
        data["postgres_dsn"] = urlunsplit(parts._replace(netloc=netloc))
    return json.dumps(data, indent=2)


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
        print(redacted_config(settings))
        return
    configure_logging(settings.log_level, settings.log_format, service="reporting")
    install_uvloop()
    web.run_app(create_app(settings), host=settings.host, port=settings.port, print=None)


if __name__ == "__main__":
    main()
