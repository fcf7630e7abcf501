"""The one mapping from errors to responses (CONVENTIONS habit 19): typed
:class:`~tollway_edge.errors.EdgeError` raised anywhere, aiohttp's own HTTP
exceptions (unknown URL, wrong method, body too large) and unexpected
exceptions all become OpenAI-format JSON errors here — or Anthropic-format
ones on Anthropic's endpoints (``/v1/messages...``, :func:`anthropic_path`)."""

from __future__ import annotations

from aiohttp import web

from tollway_edge.errors import EdgeError, internal_error

JSON = "application/json"

_HTTP_CODES = {
    404: ("Unknown request URL.", "unknown_url"),
    405: ("Method not allowed.", "method_not_allowed"),
    413: ("The request body is too large.", "request_too_large"),
}


def anthropic_path(path: str) -> bool:
    """True for Anthropic's Messages endpoints, whose errors are Anthropic-format."""
    return path.startswith("/v1/messages")


def error_response(err: EdgeError, *, anthropic: bool = False) -> web.Response:
    """The response for a typed error (Anthropic's format when ``anthropic``);
    429 and 503 carry ``Retry-After`` (1 s unless the error sets its own)."""
    body = err.anthropic_body() if anthropic else err.body()
    resp = web.Response(body=body, status=err.status, content_type=JSON)
    if err.headers:
        resp.headers.update(err.headers)
    if err.status in (429, 503) and "Retry-After" not in resp.headers:
        resp.headers["Retry-After"] = "1"
    return resp


def http_error_response(exc: web.HTTPException, *, anthropic: bool = False) -> web.Response:
    """aiohttp's HTTP exceptions in OpenAI's (or Anthropic's) format (``Allow`` and
    ``Retry-After`` kept)."""
    status = exc.status
    message, code = _HTTP_CODES.get(status, (exc.reason or "Error.", None))
    kind = "invalid_request_error" if status < 500 else "api_error"
    err = EdgeError(status, message, type=kind, code=code)
    resp = web.Response(
        body=err.anthropic_body() if anthropic else err.body(), status=status, content_type=JSON
    )
    for name in ("Allow", "Retry-After"):
        if name in exc.headers:
            resp.headers[name] = exc.headers[name]
    return resp


def internal_error_response(*, anthropic: bool = False) -> web.Response:
    """The 500 for an unexpected exception (logged by the caller; never a traceback)."""
    return error_response(internal_error(), anthropic=anthropic)
