"""Refusals the edge answers itself, as OpenAI-format errors (tollway_contracts.errors)."""

from __future__ import annotations

from tollway_contracts.errors import error_json


class EdgeError(Exception):
    """A call refused or failed at the edge.

    Attributes:
        status: HTTP status to answer (400, 401, 403, 404, 413, 502, 503...).
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
        type: str = "invalid_request_error",  # noqa: A002
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


def bad_request(message: str, param: str | None, code: str = "invalid_request") -> EdgeError:
    """A 400 naming the field at fault."""
    return EdgeError(400, message, code=code, param=param)
