"""``python -m tollway_redactor [--check-config]``: parse settings, configure logging, serve."""

from __future__ import annotations

import argparse
import json
import sys

from aiohttp import web
from pydantic import ValidationError
from tollway_runtime.logging import configure_logging
from tollway_runtime.process import raise_nofile_limit

from tollway_redactor.settings import RedactorSettings


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit code (2 on invalid settings)."""
    parser = argparse.ArgumentParser(prog="tollway_redactor")
    parser.add_argument("--check-config", action="store_true", help="validate settings and exit")
    args = parser.parse_args(argv)
    try:
        settings = RedactorSettings()
    except ValidationError as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.check_config:
        shown = settings.model_dump(mode="json", exclude={"valkey_url"})  # a URL may carry a password
        print(json.dumps(shown, indent=2))
        return 0
    configure_logging(settings.log_level, settings.log_format, service="redactor")
    raise_nofile_limit()
    from tollway_redactor.app import create_app

    web.run_app(create_app(settings), host=settings.host, port=settings.port, print=None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
