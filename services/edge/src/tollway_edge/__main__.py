"""``python -m tollway_edge [--check-config]``: parse settings, configure logging, serve."""

from __future__ import annotations

import argparse
import sys

from aiohttp import web
from pydantic import ValidationError
from tollway_runtime.logging import configure_logging
from tollway_runtime.process import install_uvloop, raise_nofile_limit

from tollway_edge.settings import EdgeSettings


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code (non-zero on bad settings)."""
    parser = argparse.ArgumentParser(prog="tollway-edge", description="Tollway edge (data plane)")
    parser.add_argument("--check-config", action="store_true", help="validate settings and catalogue, then exit")
    args = parser.parse_args(argv)
    try:
        settings = EdgeSettings()
    except ValidationError as exc:
        print(f"invalid settings:\n{exc}", file=sys.stderr)
        return 2
    configure_logging(settings.log_level, settings.log_format, service="edge")
    from tollway_edge.app import create_app

    if args.check_config:
        from tollway_contracts.catalogue import load_catalogue

        try:
            load_catalogue(settings.catalogue_path)
        except Exception as exc:  # noqa: BLE001 - report any catalogue problem
            print(f"invalid catalogue {settings.catalogue_path}: {exc}", file=sys.stderr)
            return 2
        print("config ok")
        return 0
    raise_nofile_limit()
    install_uvloop()
    web.run_app(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        access_log=None,
        print=None,
        shutdown_timeout=settings.shutdown_drain_seconds,
        backlog=4096,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
