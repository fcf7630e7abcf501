"""structlog configuration: JSON off a TTY, pretty on a TTY.

Bind per-request or per-message context with
``structlog.contextvars.bind_contextvars(request_id=..., tenant_id=...)`` at
the boundary; emit one canonical line per request or message. Never log API
keys, secrets or prompt text.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

import orjson
import structlog


def configure_logging(level: str = "INFO", fmt: str = "auto", service: str | None = None) -> None:
    """Configure structlog and the stdlib root logger once per process.

    Args:
        level: a stdlib level name (``DEBUG``, ``INFO``, ...).
        fmt: ``json``, ``console``, or ``auto`` (console when stderr is a TTY).
        service: bound as ``service`` on every line, when given.
    """
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        numeric = logging.INFO
    pretty = fmt == "console" or (fmt == "auto" and sys.stderr.isatty())
    processors: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.StackInfoRenderer(),
        structlog.processors.format_exc_info,
    ]
    renderer: structlog.typing.Processor
    factory: Callable[..., Any]
    if pretty:
        renderer = structlog.dev.ConsoleRenderer()
        factory = structlog.PrintLoggerFactory(sys.stderr)
    else:
        renderer = structlog.processors.JSONRenderer(serializer=orjson.dumps)
        factory = structlog.BytesLoggerFactory(sys.stderr.buffer)
    structlog.configure(
        processors=processors + [renderer],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=factory,
        cache_logger_on_first_use=True,
    )
    logging.basicConfig(
        level=max(numeric, logging.WARNING), stream=sys.stderr, format="%(name)s %(levelname)s %(message)s"
    )
    if service:
        structlog.contextvars.bind_contextvars(service=service)
