"""``python -m tollway_quota [--check-config]``: parse settings, configure
logging, serve the admin API on ``TOLLWAY_QUOTA_HOST:TOLLWAY_QUOTA_PORT``."""

from __future__ import annotations

from aiohttp import web

from tollway_quota.settings import QuotaSettings
from tollway_runtime.cli import settings_from_cli


def main(argv: list[str] | None = None) -> None:
    """Entry point (exit 2 on invalid settings; see ``tollway_runtime.cli``)."""
    settings = settings_from_cli(QuotaSettings, service="quota", argv=argv)
    from tollway_quota.app import create_app

    web.run_app(create_app(settings), host=settings.host, port=settings.port, print=None)


if __name__ == "__main__":
    main()
