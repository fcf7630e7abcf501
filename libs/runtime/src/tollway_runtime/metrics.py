"""Prometheus metrics that stay true when N worker processes share one port.

A service run as N processes behind one port (the edge's SO_REUSEPORT
workers) has ``/metrics`` answered by whichever process the kernel picks;
per-process counters would then report one worker at random. This module
uses prometheus-client's multiprocess mode
(https://prometheus.github.io/client_python/multiprocess/), which a
Prometheus user will recognise:

- **The supervisor**, before it starts any worker, calls
  :func:`start_multiprocess` : a fresh, empty directory is put in
  ``PROMETHEUS_MULTIPROC_DIR`` (a new temporary directory, or the operator's
  directory emptied of earlier runs' files), which the workers inherit.
  prometheus-client then keeps every metric's values in memory-mapped files
  there, one set per process id. When a worker exits, the supervisor calls
  :func:`mark_worker_dead` (its live gauges stop counting); at the end,
  :func:`stop_multiprocess` removes a directory it created.
- **Every worker** defines its metrics as usual (module-level ``Counter``,
  ``Histogram``, ``Gauge``) and serves :func:`metrics_handler`: with the
  variable set it answers with a ``MultiProcessCollector`` over the
  directory — counters and histograms summed over every process, the dead
  ones included, so totals never go backwards when a worker restarts.
- **Gauges** need a ``multiprocess_mode`` saying how processes combine:
  ``livesum`` (sum over live processes: in-flight calls, processes in a
  mode), ``liveall`` (one series per live process, ``pid`` label),
  ``max``/``min``, ``mostrecent``. Without one a gauge defaults to ``all``
  (one series per pid, dead ones included). Document the mode in the help
  text. In multiprocess mode prometheus-client exports no ``process_*`` or
  ``python_gc_*`` metrics and ignores ``Info``/``Enum``.
- **A single-process service** (variable unset) is served from the normal
  global registry, with the process and platform collectors.

The environment variable is the library's own switch and must be set before
``prometheus_client`` is imported in a worker (it picks its value store at
import), which is why the supervisor, not the settings object, sets it:
workers are started with ``spawn`` and inherit it.

Errors: :func:`start_multiprocess` raises ``OSError`` when the directory
cannot be created or emptied.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.metrics_core import Metric

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
"""prometheus-client's variable: the directory of the processes' metric files."""

__all__ = [
    "HTTP_REQUESTS",
    "HTTP_REQUEST_DURATION",
    "MULTIPROC_ENV",
    "MultiprocessDir",
    "Since",
    "add_metrics_route",
    "collect",
    "http_metrics_middleware",
    "mark_worker_dead",
    "metrics_handler",
    "multiprocess_dir",
    "start_multiprocess",
    "stop_multiprocess",
]


class MultiprocessDir:
    """The directory of one run's metric files, as :func:`start_multiprocess` set it up.

    Attributes:
        path: the directory (also in ``PROMETHEUS_MULTIPROC_DIR``).
        owned: created for this run (removed by :func:`stop_multiprocess`),
            rather than given by the operator (only emptied).
    """

    __slots__ = ("owned", "path")

    def __init__(self, path: Path, owned: bool) -> None:
        self.path = path
        self.owned = owned


def multiprocess_dir() -> Path | None:
    """The multiprocess directory this process writes to, or None in
    single-process mode."""
    value = os.environ.get(MULTIPROC_ENV)
    return Path(value) if value else None


def start_multiprocess(service: str) -> MultiprocessDir:
    """Supervisor, before starting workers: a fresh directory in
    ``PROMETHEUS_MULTIPROC_DIR`` for this run.

    If the operator set the variable (e.g. an ``emptyDir`` volume), that
    directory is created if missing and emptied of ``*.db`` files from
    earlier runs (stale files would add old counts); otherwise a new
    temporary directory ``tollway-<service>-metrics-*`` is created.

    Raises:
        OSError: the directory cannot be created or emptied.
    """
    given = multiprocess_dir()
    if given is not None:
        given.mkdir(parents=True, exist_ok=True)
        for f in given.glob("*.db"):
            f.unlink()
        return MultiprocessDir(given, owned=False)
    path = Path(tempfile.mkdtemp(prefix=f"tollway-{service}-metrics-"))
    os.environ[MULTIPROC_ENV] = str(path)
    return MultiprocessDir(path, owned=True)


def mark_worker_dead(pid: int | None) -> None:
    """Supervisor, when a worker has exited: its ``live*`` gauges stop
    counting (its counters and histograms keep counting, as they should).
    No-op in single-process mode or for an unknown pid."""
    path = multiprocess_dir()
    if path is not None and pid is not None:
        multiprocess.mark_process_dead(pid, str(path))  # type: ignore[no-untyped-call]  # prometheus-client leaves it unannotated


def stop_multiprocess(d: MultiprocessDir) -> None:
    """Supervisor, after every worker has exited: remove a directory this run
    created (an operator's directory is left as is) and unset the variable."""
    if d.owned:
        shutil.rmtree(d.path, ignore_errors=True)
        if os.environ.get(MULTIPROC_ENV) == str(d.path):
            del os.environ[MULTIPROC_ENV]


def collect(registry: CollectorRegistry | None = None) -> bytes:
    """The text exposition of this service's metrics: every process's
    (multiprocess mode), or else ``registry`` (default: the global one).

    In multiprocess mode ``registry`` is not read: every metric of every
    process is in the directory's files, whichever registry it was created in.
    """
    path = multiprocess_dir()
    if path is None:
        return generate_latest(registry if registry is not None else REGISTRY)
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, str(path))  # type: ignore[no-untyped-call]  # unannotated __init__
    return generate_latest(registry)


async def metrics_handler(_: web.Request) -> web.Response:
    """``GET /metrics``: :func:`collect` in Prometheus's text format (0.0.4).

    In multiprocess mode this reads every process's files, a few ms for the
    edge's metrics; scrape it every few seconds, not per call.
    """
    return web.Response(body=collect(), headers={"Content-Type": CONTENT_TYPE_LATEST})


# --- shared HTTP server metrics (aiohttp) ------------------------------------------

HTTP_DURATION_BUCKETS = (
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1,
    2.5,
    5,
    10,
    30,
    60,
    120,
    300,
)
"""Buckets of :data:`HTTP_REQUEST_DURATION`, seconds (1 ms to 5 min: streams run long)."""

HTTP_REQUESTS = Counter(
    "tollway_http_requests_total",
    "HTTP requests answered, by service, route (the matched resource's template, "
    "'unmatched' for a 404 without a route), method and status code.",
    ["service", "route", "method", "status"],
)
HTTP_REQUEST_DURATION = Histogram(
    "tollway_http_request_duration_seconds",
    "Wall time of an HTTP request in the handler, seconds (streams: until the handler returns), "
    "by service, route, method and status code.",
    ["service", "route", "method", "status"],
    buckets=HTTP_DURATION_BUCKETS,
)

_NOT_TIMED = frozenset({"/metrics", "/healthz", "/readyz"})


def _route_of(request: web.Request) -> str:
    resource = request.match_info.route.resource
    if resource is None:
        return "unmatched"
    return resource.canonical


def http_metrics_middleware(service: str) -> Middleware:
    """An aiohttp middleware counting and timing every request of ``service``.

    Records :data:`HTTP_REQUESTS` (``tollway_http_requests_total``) and
    :data:`HTTP_REQUEST_DURATION` (``tollway_http_request_duration_seconds``)
    with labels ``service``, ``route`` (the resource's canonical template,
    e.g. ``/admin/v1/tenants/{tenant_id}``: bounded cardinality, never the
    raw path), ``method`` and ``status``. A handler raising an
    ``HTTPException`` counts with its status; any other exception counts as
    500 and is re-raised. ``/metrics``, ``/healthz`` and ``/readyz`` are not
    recorded (probes and scrapes would drown the calls).

    Adopt with one line: ``web.Application(middlewares=[http_metrics_middleware("edge"), ...])``
    (first in the list, so it times the other middlewares too).
    """

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        route = _route_of(request)
        if route in _NOT_TIMED:
            return await handler(request)
        started = time.perf_counter()
        status = 500
        try:
            response = await handler(request)
            status = response.status
            return response
        except web.HTTPException as exc:
            status = exc.status
            raise
        finally:
            labels = (service, route, request.method, str(status))
            HTTP_REQUESTS.labels(*labels).inc()
            HTTP_REQUEST_DURATION.labels(*labels).observe(time.perf_counter() - started)

    return middleware


def add_metrics_route(app: web.Application) -> None:
    """Serve :func:`metrics_handler` on ``GET /metrics`` of ``app``."""
    app.router.add_get("/metrics", metrics_handler)


# --- counting since a point in time (apps built many times in one process) ---------


class Since:
    """The global registry's counters and histograms counted since this object
    was created: what one app instance did, when tests build many apps in one
    process (metrics are process-global, as prometheus-client registers them).

    Gauges are reported as they are (a level, not a count). Offers the two
    reading methods of a ``CollectorRegistry`` that tests use:
    :meth:`get_sample_value` and :meth:`collect`.

    Args:
        prefix: only metric families whose name starts with it are snapshotted
            and collected (e.g. ``"tollway_ledger_"``).
    """

    def __init__(self, prefix: str = "tollway_") -> None:
        self.prefix = prefix
        self._base: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
        for family in self._families():
            if family.type != "gauge":
                for s in family.samples:
                    self._base[(s.name, tuple(sorted(s.labels.items())))] = s.value

    def _families(self) -> list[Metric]:
        return [m for m in REGISTRY.collect() if m.name.startswith(self.prefix)]

    def get_sample_value(self, name: str, labels: dict[str, str] | None = None) -> float | None:
        """The sample's value minus its value at creation (None if it does not exist)."""
        value = REGISTRY.get_sample_value(name, labels)
        if value is None:
            return None
        return value - self._base.get((name, tuple(sorted((labels or {}).items()))), 0.0)

    def collect(self) -> Iterator[Metric]:
        """Every family under ``prefix``, counters and histograms minus their values at creation."""
        for family in self._families():
            if family.type != "gauge":
                family.samples = [
                    s._replace(value=s.value - self._base.get((s.name, tuple(sorted(s.labels.items()))), 0.0))
                    for s in family.samples
                ]
            yield family
