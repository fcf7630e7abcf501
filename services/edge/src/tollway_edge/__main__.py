"""``python -m tollway_edge [--check-config]``: parse settings, configure logging, serve.

``--check-config`` also loads the routing catalogue. With
``TOLLWAY_EDGE_WORKERS`` > 1 (or 0 = one per core) this process becomes a
small supervisor of that many edge processes (``tollway_edge.workers``).
"""

from __future__ import annotations

import os
import sys

from tollway_edge.lean import lean_imports

with lean_imports():  # first: the libraries load without integrations the edge never uses
    from tollway_edge.settings import EdgeSettings
    from tollway_edge.workers import serve, supervise
    from tollway_runtime.cli import settings_from_cli


def _catalogue_problem(settings: EdgeSettings) -> str | None:
    from tollway_contracts.catalogue import load_catalogue

    try:
        load_catalogue(settings.catalogue_path)
    except Exception as exc:  # noqa: BLE001 - report any catalogue problem
        return f"invalid catalogue {settings.catalogue_path}: {exc}"
    return None


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code (2 on bad settings or catalogue)."""
    settings = settings_from_cli(EdgeSettings, service="edge", argv=argv, extra_check=_catalogue_problem)
    workers = settings.workers or os.cpu_count() or 1
    if workers == 1:
        serve(settings.config(), reuse_port=False)
        return 0
    return supervise(settings.config(), workers)


if __name__ == "__main__":
    sys.exit(main())
