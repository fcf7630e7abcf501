"""``python -m tollway_redactor [--check-config]``: parse settings, configure logging, serve."""

from __future__ import annotations

from aiohttp import web

from tollway_redactor.settings import RedactorSettings
from tollway_runtime.cli import settings_from_cli


def main(argv: list[str] | None = None) -> None:
    """Entry point (exit 2 on invalid settings; see ``tollway_runtime.cli``)."""
    settings = settings_from_cli(RedactorSettings, service="redactor", argv=argv)
    from tollway_redactor.app import create_app

    web.run_app(create_app(settings), host=settings.host, port=settings.port, print=None)


if __name__ == "__main__":
    main()
