"""Every refusal and failure the edge answers itself, as typed errors.

Modules raise these; ``middleware.responses`` turns them into OpenAI-format
responses in one place (CONVENTIONS habit 19). The body is the contract's
``tollway_contracts.errors`` shape; ``code`` is also the usage event's
``error_type``.

Factories by family: ``base`` (:class:`EdgeError`, Anthropic's format,
translations), ``request`` (the request's 4xx and the 401), ``redaction``,
``limits`` (admission's 429 and the 503s of load, the full journal and admission),
``upstream`` (the provider's side, the edge's own 500).
"""

from tollway_edge.errors.base import EdgeError, anthropic_error_type, from_translation
from tollway_edge.errors.limits import (
    admission_unavailable,
    auth_unavailable,
    budget_exceeded,
    journal_full,
    limits_invalid,
    overloaded,
    rate_limited,
)
from tollway_edge.errors.redaction import (
    pii_detected,
    redaction_not_covered,
    redaction_rejected,
    redaction_too_large,
    redaction_unavailable,
    unknown_field_refused,
    unscannable_content,
    unsupported_language_blocked,
)
from tollway_edge.errors.request import (
    bad_request,
    model_not_allowed,
    model_not_found,
    model_not_in_allowed_regions,
    nesting_too_deep,
    too_large,
    unauthorized,
    unsupported,
)
from tollway_edge.errors.upstream import internal_error, upstream_error, upstream_unreachable

__all__ = [
    "EdgeError",
    "admission_unavailable",
    "anthropic_error_type",
    "auth_unavailable",
    "bad_request",
    "budget_exceeded",
    "from_translation",
    "internal_error",
    "journal_full",
    "limits_invalid",
    "model_not_allowed",
    "model_not_found",
    "model_not_in_allowed_regions",
    "nesting_too_deep",
    "overloaded",
    "pii_detected",
    "rate_limited",
    "redaction_not_covered",
    "redaction_rejected",
    "redaction_too_large",
    "redaction_unavailable",
    "too_large",
    "unauthorized",
    "unknown_field_refused",
    "unscannable_content",
    "unsupported",
    "unsupported_language_blocked",
    "upstream_error",
    "upstream_unreachable",
]
