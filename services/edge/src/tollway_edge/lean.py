"""Optional integrations the edge never uses, kept out of its processes.

Libraries load some integrations merely because the package is installed: a
development environment has all of them, the edge's image none. The entry
point (``__main__``: supervisor and every spawned worker) and the worker's
import of the application run inside :func:`lean_imports`, so those libraries
take their "not installed" path; per edge process this saves about 4.5 MiB of
RSS and ~100 modules (docs/edge-performance.md, "Idle RSS"):

- ``rich`` (and ``pygments``): structlog's pretty tracebacks for the console
  renderer; the edge logs JSON, and on a TTY falls back to plain tracebacks;
- ``twisted``, ``greenlet``, ``better_exceptions``: structlog's optional support;
- ``opentelemetry.sdk.metrics`` and ``opentelemetry.metrics``: redis-py's own
  OpenTelemetry metrics (the API package is installed wherever tracing is),
  never enabled here (tracing, when on, imports the trace SDK normally later).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from tollway_runtime.process import without_optional_modules

UNUSED_OPTIONAL_MODULES = (
    "rich",
    "pygments",
    "twisted",
    "greenlet",
    "better_exceptions",
    "opentelemetry.sdk.metrics",
    "opentelemetry.metrics",
)


@contextlib.contextmanager
def lean_imports() -> Iterator[None]:
    """Imports inside the block see :data:`UNUSED_OPTIONAL_MODULES` as not installed."""
    with without_optional_modules(UNUSED_OPTIONAL_MODULES):
        yield
