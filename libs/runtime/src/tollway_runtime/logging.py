"""structlog configuration: JSON off a TTY, pretty on a TTY.

Bind per-request or per-message context with
``structlog.contextvars.bind_contextvars(request_id=..., tenant_id=...)`` at
the boundary; emit one canonical line per request or message. Never log API
keys, secrets or prompt text.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import orjson
import structlog


def _numeric(level: str, default: int = logging.INFO) -> int:
    value = logging.getLevelName(level.upper())
    return value if isinstance(value, int) else default


def level_for(name: str, levels: Mapping[str, int], default: int) -> int:
    """The level of logger ``name``: the entry of its closest dotted ancestor in
    ``levels`` (``tollway_ledger`` covers ``tollway_ledger.consumer``), else ``default``."""
    while name:
        if name in levels:
            return levels[name]
        name = name.rpartition(".")[0]
    return default


def _named(factory: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a structlog logger factory so each logger keeps the name given to
    ``structlog.get_logger(name)`` (read by the per-logger level filter)."""

    def make(*args: Any) -> Any:
        logger = factory(*args)
        name = args[0] if args and isinstance(args[0], str) else ""
        with contextlib.suppress(AttributeError):
            logger.name = name
        return logger

    return make


def _per_logger_filter(levels: Mapping[str, int], default: int) -> structlog.typing.Processor:
    cache: dict[str, int] = {}

    def processor(logger: Any, method_name: str, event_dict: structlog.typing.EventDict) -> Any:
        name = getattr(logger, "name", "") or ""
        level = cache.get(name)
        if level is None:
            level = cache[name] = level_for(name, levels, default)
        if _METHOD_LEVELS.get(method_name, logging.INFO) < level:
            raise structlog.DropEvent
        return event_dict

    return processor


class IsoUtcStamper:
    """``timestamp`` as structlog's ``TimeStamper(fmt="iso", utc=True)`` writes it
    (``2026-12-03T14:52:17.887470Z``; no fraction when the microsecond is 0, as
    ``datetime.isoformat``), for a quarter of its CPU: the date and time of day
    are formatted once per second, the microseconds on each line
    (the same floor of ``time.time_ns()`` as ``datetime.now``)."""

    __slots__ = ("_second", "_prefix")

    def __init__(self) -> None:
        self._second = -1
        self._prefix = ""

    def __call__(self, logger: Any, method_name: str, event_dict: structlog.typing.EventDict) -> Any:
        second, ns = divmod(time.time_ns(), 1_000_000_000)
        if second != self._second:
            self._prefix = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")
            self._second = second
        us = ns // 1000
        event_dict["timestamp"] = f"{self._prefix}.{us:06d}Z" if us else f"{self._prefix}Z"
        return event_dict


_METHOD_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "msg": logging.INFO,
    "warning": logging.WARNING,
    "warn": logging.WARNING,
    "error": logging.ERROR,
    "exception": logging.ERROR,
    "critical": logging.CRITICAL,
    "fatal": logging.CRITICAL,
}


def configure_logging(
    level: str = "INFO",
    fmt: str = "auto",
    service: str | None = None,
    levels: Mapping[str, str] | None = None,
) -> None:
    """Configure structlog and the stdlib root logger once per process.

    Args:
        level: a stdlib level name (``DEBUG``, ``INFO``, ...): every logger's
            level unless ``levels`` names it or a dotted ancestor.
        fmt: ``json``, ``console``, or ``auto`` (console when stderr is a TTY).
        service: bound as ``service`` on every line, when given.
        levels: level per logger name, e.g. ``{"tollway_ledger.consumer":
            "DEBUG", "aiokafka": "ERROR"}`` (settings ``log_levels``,
            ``TOLLWAY_LOG_LEVELS`` as JSON). Applies to structlog loggers
            (``structlog.get_logger(name)``) and to stdlib loggers of that name.
            An unknown level name means ``INFO``.
    """
    numeric = _numeric(level)
    per_logger = {name: _numeric(value) for name, value in (levels or {}).items()}
    lowest = min([numeric, *per_logger.values()])
    pretty = fmt == "console" or (fmt == "auto" and sys.stderr.isatty())
    processors: list[structlog.typing.Processor] = [
        *([_per_logger_filter(per_logger, numeric)] if per_logger else []),
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        IsoUtcStamper(),  # TimeStamper(fmt="iso", utc=True)'s output
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
        wrapper_class=structlog.make_filtering_bound_logger(lowest),
        logger_factory=_named(factory) if per_logger else factory,
        cache_logger_on_first_use=True,
    )
    logging.basicConfig(
        level=max(numeric, logging.WARNING), stream=sys.stderr, format="%(name)s %(levelname)s %(message)s"
    )
    for name, value in per_logger.items():
        logging.getLogger(name).setLevel(value)
    if service:
        structlog.contextvars.bind_contextvars(service=service)
