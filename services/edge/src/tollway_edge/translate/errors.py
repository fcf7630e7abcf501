"""The one exception the translation package raises.

A request the other API cannot express is refused rather than silently
changed: the edge answers 400 naming the field (``param``), in the client's
own error format. A provider answer that cannot be translated (malformed JSON,
no choice, tool arguments that are not a JSON object) is a 502: the client did
nothing wrong.
"""

from __future__ import annotations

from typing import Any


class TranslationError(ValueError):
    """A body that cannot be translated between OpenAI's and Anthropic's APIs.

    Attributes:
        message: human-readable; names the field, never echoes prompt text.
        param: the field at fault as a path (``messages[2].tool_calls[0].function.arguments``),
            or None.
        status: the HTTP status the edge answers: 400 for the client's request, 502 for a
            provider's answer.
        code: stable machine reason (``unsupported_parameter``, ``invalid_request``,
            ``invalid_provider_response``), also usable as the usage event's ``error_type``.
    """

    def __init__(
        self,
        message: str,
        *,
        param: str | None = None,
        status: int = 400,
        code: str = "unsupported_parameter",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.status = status
        self.code = code

    @property
    def error_type(self) -> str:
        """OpenAI's / Anthropic's error type: ``invalid_request_error`` (400) or ``api_error``."""
        return "invalid_request_error" if self.status < 500 else "api_error"

    def openai_body(self) -> dict[str, Any]:
        """OpenAI's error body: ``{"error": {message, type, param, code}}``."""
        return {
            "error": {
                "message": self.message,
                "type": self.error_type,
                "param": self.param,
                "code": self.code,
            }
        }

    def anthropic_body(self) -> dict[str, Any]:
        """Anthropic's error body: ``{"type": "error", "error": {type, message}}``
        (docs.anthropic.com/en/api/errors)."""
        return {"type": "error", "error": {"type": self.error_type, "message": self.message}}


def unsupported(param: str, why: str) -> TranslationError:
    """A 400 for a field the target API cannot honour (``why`` says what is refused)."""
    return TranslationError(f"'{param}' is not supported here: {why}", param=param)


def invalid(param: str, why: str) -> TranslationError:
    """A 400 for a field whose value is malformed."""
    return TranslationError(f"invalid '{param}': {why}", param=param, code="invalid_request")


def bad_provider(why: str) -> TranslationError:
    """A 502 for a provider answer that cannot be translated."""
    return TranslationError(
        f"the provider's answer could not be translated: {why}",
        status=502,
        code="invalid_provider_response",
    )
