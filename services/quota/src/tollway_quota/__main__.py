"""``python -m tollway_quota [--check-config]``: parse settings, configure
logging, serve the admin API on ``TOLLWAY_QUOTA_HOST:TOLLWAY_QUOTA_PORT``."""

from __future__ import annotations

import argparse
import sys

from aiohttp import web
from pydantic import ValidationError

from tollway_runtime.logging import configure_logging
from tollway_runtime.process import raise_nofile_limit


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code (2 on invalid settings)."""
    parser = argparse.ArgumentParser(prog="tollway_quota", description=__doc__)
    parser.add_argument("--check-config", action="store_true", help="validate settings and exit")
    args = parser.parse_args(argv)

    from tollway_quota.settings import QuotaSettings

    try:
        settings = QuotaSettings()
    except ValidationError as exc:
        print(f"invalid settings:\n{exc}", file=sys.stderr)
        return 2
    if args.check_config:
        print("config ok")
        return 0
    configure_logging(settings.log_level, settings.log_format, service="quota")
    raise_nofile_limit()

    from tollway_quota.app import create_app

    web.run_app(create_app(settings), host=settings.host, port=settings.port, print=None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
