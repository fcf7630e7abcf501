"""4xx for the request itself: its body, its model, the key (401)."""

from __future__ import annotations

from tollway_edge.errors.base import EdgeError


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


def nesting_too_deep(max_depth: int) -> EdgeError:
    """400 ``nesting_too_deep``: the body's JSON nests deeper than ``max_depth`` levels."""
    return EdgeError(
        400,
        f"The request body nests JSON deeper than {max_depth} levels.",
        code="nesting_too_deep",
    )


def unauthorized(message: str, code: str = "invalid_api_key") -> EdgeError:
    """401 in OpenAI's format (no usage event follows a 401)."""
    return EdgeError(401, message, type="authentication_error", code=code)
