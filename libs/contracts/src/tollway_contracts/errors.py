"""OpenAI-format error bodies.

Every 4xx/5xx the gateway returns has the body OpenAI's API returns
(``specs/openai-openapi.yaml``, ``ErrorResponse``)::

    {"error": {"message": "...", "type": "invalid_request_error",
               "param": null, "code": "..."}}

``type`` uses OpenAI's values where one fits (``invalid_request_error``,
``authentication_error``, ``permission_error``, ``not_found_error``,
``rate_limit_error``, ``api_error``); ``code`` is a stable machine-readable
reason that Tollway also puts in usage events as ``error_type``.
"""

from __future__ import annotations

from typing import Any

import orjson


def error_body(
    message: str,
    *,
    type: str,  # noqa: A002 - OpenAI's field name
    code: str | None = None,
    param: str | None = None,
) -> dict[str, Any]:
    """The error object as a dict: ``{"error": {message, type, param, code}}``."""
    return {"error": {"message": message, "type": type, "param": param, "code": code}}


def error_json(
    message: str,
    *,
    type: str,  # noqa: A002
    code: str | None = None,
    param: str | None = None,
) -> bytes:
    """The error object serialised to JSON bytes."""
    return orjson.dumps(error_body(message, type=type, code=code, param=param))
