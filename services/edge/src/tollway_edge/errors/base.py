"""The typed error every refusal and failure of the edge is (:class:`EdgeError`),
its bodies (OpenAI's format; Anthropic's on ``/v1/messages``), and the error
of a translation between the two APIs (:func:`from_translation`)."""

from __future__ import annotations

from typing import Any

import orjson

from tollway_contracts.errors import error_body, error_json
from tollway_edge.translate.errors import TranslationError


class EdgeError(Exception):
    """A call refused or failed at the edge.

    Attributes:
        status: HTTP status to answer (400, 401, 403, 404, 413, 429, 502, 503...).
        message: human-readable, never containing the key or prompt text.
        type: OpenAI error type (``invalid_request_error``...).
        code: stable machine reason; also the usage event's ``error_type``.
        param: the request field at fault, if any.
        headers: extra response headers (429: ``Retry-After``, ``x-ratelimit-*``).
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str = "invalid_request_error",  # noqa: A002 - OpenAI's field name
        code: str | None = None,
        param: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type
        self.code = code
        self.param = param
        self.headers = headers

    def body(self) -> bytes:
        """The OpenAI-format JSON body."""
        return error_json(self.message, type=self.type, code=self.code, param=self.param)

    def body_dict(self) -> dict[str, Any]:
        """The OpenAI-format body as a dict (``{"error": {...}}``)."""
        return error_body(self.message, type=self.type, code=self.code, param=self.param)

    def anthropic_body(self) -> bytes:
        """Anthropic's error format, for Anthropic's endpoints (``/v1/messages...``):
        ``{"type": "error", "error": {"type", "message"}}`` with Anthropic's type for
        the status (docs.anthropic.com/en/api/errors)."""
        return orjson.dumps(
            {"type": "error", "error": {"type": anthropic_error_type(self.status), "message": self.message}}
        )


_ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    503: "overloaded_error",
    529: "overloaded_error",
}


def anthropic_error_type(status: int) -> str:
    """Anthropic's error ``type`` for an HTTP status (``api_error`` for other 5xx,
    ``invalid_request_error`` for other 4xx)."""
    return _ANTHROPIC_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")


def from_translation(err: TranslationError) -> EdgeError:
    """The edge's error for a body the other API cannot express (400 naming the
    field; 502 for a provider answer that cannot be translated)."""
    return EdgeError(err.status, err.message, type=err.error_type, code=err.code, param=err.param)
