"""Every refusal and failure the edge answers itself, as typed errors.

Modules raise these; ``middleware.responses`` turns them into OpenAI-format
responses in one place (CONVENTIONS habit 19). The body is the contract's
``tollway_contracts.errors`` shape; ``code`` is also the usage event's
``error_type``.
"""

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


# --- 4xx: the request --------------------------------------------------------


def bad_request(message: str, param: str | None, code: str = "invalid_request") -> EdgeError:
    """400 naming the field at fault."""
    return EdgeError(400, message, code=code, param=param)


def too_large(max_body_bytes: int) -> EdgeError:
    """413 for a body over ``TOLLWAY_EDGE_MAX_BODY_BYTES`` (bytes)."""
    return EdgeError(413, f"The request body exceeds {max_body_bytes} bytes.", code="request_too_large")


def model_not_found(model: str) -> EdgeError:
    """404 for a model the catalogue does not have (OpenAI's ``model_not_found``)."""
    return EdgeError(
        404,
        f"The model '{model}' does not exist or you do not have access to it.",
        code="model_not_found",
        param="model",
    )


def model_not_allowed(model: str) -> EdgeError:
    """403 for a catalogue model outside the key's allow-list."""
    return EdgeError(
        403,
        f"This API key is not allowed to use the model '{model}'.",
        type="permission_error",
        code="model_not_allowed",
        param="model",
    )


def model_not_in_allowed_regions(model: str) -> EdgeError:
    """403 ``model_not_in_allowed_regions``: no deployment of ``model`` is in
    the regions the key's residency policy allows (``routing.plan``); raised
    before admission: nothing reaches a provider, nothing is billed."""
    return EdgeError(
        403,
        f"No deployment of the model '{model}' is in the regions your data-residency policy allows.",
        type="permission_error",
        code="model_not_in_allowed_regions",
        param="model",
    )


def unsupported(path: str, model: str, kinds: str) -> EdgeError:
    """400 ``unsupported``: no route of ``model`` goes to a provider kind that
    serves ``path`` (e.g. embeddings to ``anthropic``; ``routing.kinds``).
    Raised before admission: nothing reaches a provider, nothing is billed."""
    return EdgeError(
        400,
        f"The model '{model}' is served by a provider ({kinds}) that does not support /v1{path}.",
        code="unsupported",
        param="model",
    )


def redaction_not_covered(path: str, mode: str) -> EdgeError:
    """400 ``redaction_unsupported``: the key's redaction policy (``redact`` or
    ``block``) cannot be applied to this endpoint's inputs yet (token arrays
    can never be scanned). Fail closed: nothing reaches a provider."""
    return EdgeError(
        400,
        f"This API key's redaction policy ({mode}) cannot be applied to the inputs of /v1{path}; "
        "the request was not sent to the provider.",
        code="redaction_unsupported",
    )


def unscannable_content(param: str) -> EdgeError:
    """400 ``unscannable_content``: under a ``redact`` or ``block`` policy,
    content redaction cannot read (a ``file`` part, token ids); nothing is
    sent to the provider.

    Args:
        param: JSON pointer of the content (``/messages/0/content/1/file``).
    """
    return EdgeError(
        400,
        "This API key's redaction policy cannot be applied to this content (files and token arrays "
        "cannot be scanned for personal data); the request was not sent to the provider.",
        code="unscannable_content",
        param=param,
    )


def unknown_field_refused(param: str) -> EdgeError:
    """400 ``unknown_field``: the key's redaction policy says ``unknown_fields:
    refuse`` and a string sits in a field the edge's field tables do not name.

    Args:
        param: JSON pointer of the first such string.
    """
    return EdgeError(
        400,
        "This API key's redaction policy refuses text in request fields the gateway does not know; "
        "the request was not sent to the provider.",
        code="unknown_field",
        param=param,
    )


def nesting_too_deep(max_depth: int) -> EdgeError:
    """400 ``nesting_too_deep``: the body's JSON nests deeper than ``max_depth`` levels."""
    return EdgeError(
        400,
        f"The request body nests JSON deeper than {max_depth} levels.",
        code="nesting_too_deep",
    )


def pii_detected(entity_types: str) -> EdgeError:
    """400 in ``block`` mode: names the entity types found, never a value."""
    return EdgeError(
        400,
        f"Request blocked by the redaction policy: it contains personal data ({entity_types}).",
        code="pii_detected",
    )


def redaction_too_large() -> EdgeError:
    """413 when the redactor refuses the call's texts as too large (its
    ``MAX_TEXTS``/``MAX_TOTAL_CHARS``/``MAX_BODY_BYTES``): the same request can
    never succeed, so no ``Retry-After``; nothing was sent to the provider."""
    return EdgeError(
        413,
        "The request is too large for personal-data redaction (too many texts or characters); "
        "it was not sent to the provider. Send a shorter request.",
        code="redaction_request_too_large",
        headers={"x-should-retry": "false"},
    )


def unsupported_language_blocked() -> EdgeError:
    """400 when the key's redaction policy says ``unsupported_language: block``
    and some text is in a language or script no redaction model covers."""
    return EdgeError(
        400,
        "Request blocked by the redaction policy (unsupported_language: block): it contains text "
        "in a language or script that personal-data redaction does not cover.",
        code="unsupported_language",
    )


# --- 429: admission ------------------------------------------------------------


def budget_exceeded(scope: str, limit_micro_usd: int, period: str, headers: dict[str, str]) -> EdgeError:
    """429 ``insufficient_quota``/``budget_exceeded``: a budget (micro-USD per period) is spent."""
    return EdgeError(
        429,
        f"Budget exceeded for {scope}: {limit_micro_usd} micro-USD per {period}.",
        type="insufficient_quota",
        code="budget_exceeded",
        headers=headers,
    )


def rate_limited(
    kind: str, scope: str, limit: int, used: int, requested: int, headers: dict[str, str]
) -> EdgeError:
    """429 ``rate_limit_exceeded`` for a requests/tokens per minute or concurrency limit."""
    what = {
        "requests": "requests per minute",
        "tokens": "tokens per minute",
        "concurrency": "concurrent calls",
    }
    return EdgeError(
        429,
        f"Rate limit reached for {what[kind]} on {scope}: limit {limit}, used {used}, requested {requested}.",
        type=kind if kind != "concurrency" else "requests",
        code="rate_limit_exceeded",
        headers=headers,
    )


# --- 401: authentication -------------------------------------------------------


def unauthorized(message: str, code: str = "invalid_api_key") -> EdgeError:
    """401 in OpenAI's format (no usage event follows a 401)."""
    return EdgeError(401, message, type="authentication_error", code=code)


# --- 5xx: the edge or what it depends on ---------------------------------------


def auth_unavailable() -> EdgeError:
    """503 while principals are not loaded or an unknown id cannot be looked up."""
    return EdgeError(
        503, "Authentication is temporarily unavailable.", type="api_error", code="auth_unavailable"
    )


def overloaded() -> EdgeError:
    """503 when the process is at ``TOLLWAY_EDGE_MAX_IN_FLIGHT`` (load shedding)."""
    return EdgeError(503, "The gateway is at capacity; retry shortly.", type="api_error", code="overloaded")


def limits_invalid() -> EdgeError:
    """503 when the key's stored ``limits`` cannot be read (fail closed)."""
    return EdgeError(503, "The key's limits cannot be read.", type="api_error", code="limits_invalid")


def admission_unavailable() -> EdgeError:
    """503 while Valkey is unreachable in ``refuse`` mode."""
    return EdgeError(
        503,
        "Rate limiting is temporarily unavailable; retry shortly.",
        type="api_error",
        code="admission_unavailable",
    )


def redaction_unavailable() -> EdgeError:
    """503 when the redactor cannot answer: nothing is sent to the provider (fail closed)."""
    return EdgeError(
        503,
        "Personal-data redaction is temporarily unavailable; the request was not sent to the provider.",
        type="api_error",
        code="redaction_unavailable",
    )


def redaction_rejected(reason: str) -> EdgeError:
    """502 when the redactor refuses the edge's redaction request itself
    (its 400 ``invalid_redaction_request`` or ``unknown_entity_type``: an
    edge bug or a policy naming an entity type no recognizer emits). Every
    redactor answers the same, so there is no retry advice: no
    ``Retry-After`` and ``x-should-retry: false`` (the OpenAI SDKs' signal
    not to retry a 5xx). Fail closed: nothing was sent to the provider.

    Args:
        reason: the redactor's ``error.code`` (logged and named in the
            message; never prompt text).
    """
    return EdgeError(
        502,
        f"Personal-data redaction refused this key's redaction policy or request ({reason}); the "
        "request was not sent to the provider. Retrying will not help: contact the gateway administrator.",
        type="api_error",
        code="redaction_rejected",
        headers={"x-should-retry": "false"},
    )


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
