"""5xx for the provider side and the edge's own faults (502 unreachable or an
unusable provider answer; 500 ``internal_error``)."""

from __future__ import annotations

from tollway_edge.errors.base import EdgeError


def upstream_unreachable(code: str) -> EdgeError:
    """502 when no route answered (``code``: ``upstream_timeout``, ``upstream_5xx``...)."""
    if not code.startswith("upstream_"):
        code = "upstream_unavailable"
    return EdgeError(502, "The provider could not be reached.", type="api_error", code=code)


def upstream_error(status: int) -> EdgeError:
    """The provider's error answered with a body that is not OpenAI-format (status passed through)."""
    return EdgeError(status, f"The provider answered HTTP {status}.", type="api_error", code="upstream_error")


def internal_error() -> EdgeError:
    """500 for an unexpected exception (never a traceback to a client)."""
    return EdgeError(
        500, "The server had an error while processing your request.", type="api_error", code="internal_error"
    )
