"""The redaction step's refusals and failures (400 ``unscannable_content``,
``unknown_field``, ``pii_detected``, ``unsupported_language``, 413
``redaction_request_too_large``, 502 ``redaction_rejected``, 503
``redaction_unavailable``; the table in the edge README "Redaction")."""

from __future__ import annotations

from tollway_edge.errors.base import EdgeError


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
