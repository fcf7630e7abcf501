"""Domain errors of the admin side, each mapped to one HTTP status by the API."""

from __future__ import annotations


class AdminError(Exception):
    """Base: ``message`` is safe to show to the admin; ``param`` names the field."""

    status = 400
    type = "invalid_request_error"
    code = "invalid_request"

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param


class BadRequest(AdminError):
    """400: the body is malformed or inconsistent (e.g. team of another tenant)."""

    code = "invalid_body"


class NotFound(AdminError):
    """404: an id in the path or body names nothing."""

    status = 404
    type = "not_found_error"
    code = "not_found"


class Conflict(AdminError):
    """409: a name that must be unique is taken."""

    status = 409
    code = "duplicate_name"
