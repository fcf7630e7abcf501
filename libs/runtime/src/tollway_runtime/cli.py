"""The start of every service's ``python -m tollway_<service> [--check-config]``.

One sequence for all services: parse the arguments; build the service's one
settings object (invalid settings exit 2 with pydantic's message, before
anything starts); with ``--check-config`` print the settings with secrets
masked (``ServiceSettings.redacted_json``) and exit 0 — CI and Helm use it;
otherwise configure logging, raise the open-file limit and install uvloop.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TypeVar

from pydantic import ValidationError

from tollway_runtime.logging import configure_logging
from tollway_runtime.process import install_uvloop, raise_nofile_limit
from tollway_runtime.settings import ServiceSettings

S = TypeVar("S", bound=ServiceSettings)


def settings_from_cli(
    settings_cls: type[S],
    *,
    service: str,
    argv: list[str] | None = None,
    extra_check: Callable[[S], str | None] | None = None,
) -> S:
    """Build the settings for a service's entry point, or exit.

    Args:
        settings_cls: the service's settings class.
        service: the name bound as ``service`` on every log line (``edge``, ...).
        argv: arguments (default ``sys.argv[1:]``).
        extra_check: run under ``--check-config`` after the settings validate;
            returns an error message (exit 2) or None (e.g. the edge loads its
            routing catalogue).

    Returns:
        The validated settings, with logging configured and uvloop installed.

    Raises:
        SystemExit: 2 on invalid settings or a failed extra check; 0 after
            ``--check-config``.
    """
    parser = argparse.ArgumentParser(prog=f"tollway-{service}")
    parser.add_argument("--check-config", action="store_true", help="validate settings and exit")
    args = parser.parse_args(argv)
    try:
        settings = settings_cls()
    except ValidationError as exc:
        print(f"invalid settings:\n{exc}", file=sys.stderr)
        raise SystemExit(2) from None
    if args.check_config:
        problem = extra_check(settings) if extra_check else None
        if problem:
            print(problem, file=sys.stderr)
            raise SystemExit(2)
        print(settings.redacted_json())
        raise SystemExit(0)
    configure_logging(settings.log_level, settings.log_format, service=service, levels=settings.log_levels)
    raise_nofile_limit()
    install_uvloop()
    return settings
