"""``python -m tollway_edge [--check-config]``: parse settings, configure logging, serve.

With ``TOLLWAY_EDGE_WORKERS`` > 1 (or 0 = one per core) this process becomes a
small supervisor of that many edge processes (``tollway_edge.workers``).
"""

from __future__ import annotations

import argparse
import os
import sys

from pydantic import ValidationError
from tollway_runtime.logging import configure_logging

from tollway_edge.settings import EdgeSettings
from tollway_edge.workers import serve, supervise


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
    if args.check_config:
        from tollway_contracts.catalogue import load_catalogue

        try:
            load_catalogue(settings.catalogue_path)
        except Exception as exc:  # noqa: BLE001 - report any catalogue problem
            print(f"invalid catalogue {settings.catalogue_path}: {exc}", file=sys.stderr)
            return 2
        print("config ok")
        return 0
    workers = settings.workers or os.cpu_count() or 1
    if workers == 1:
        serve(settings, reuse_port=False)
        return 0
    return supervise(settings, workers)


if __name__ == "__main__":
    sys.exit(main())
