"""``POST /v1/responses``: OpenAI's Responses API over the pipeline (not streamed yet).

``input`` is a string or a list of input items; ``instructions``,
``tools``, ``previous_response_id`` and everything else pass through.
Billed on the answer's ``usage`` (``input_tokens`` incl.
``input_tokens_details.cached_tokens``; ``output_tokens`` incl.
``output_tokens_details.reasoning_tokens``), read as OpenAI's
prompt/completion tokens.

**State pinning**: a stored response lives on the deployment that created
it. This endpoint never falls back (``fallback = False``): every call goes to
the model's first route whose kind serves ``/responses``, so a call naming
``previous_response_id`` reaches the deployment holding that response.
Known gaps: ``stream: true`` is a 400 ``unsupported`` (the relay reads
chat's ``[DONE]``, not ``response.completed``); the prompt bound covers the
new input only, not the stored conversation ``previous_response_id``
brings; ``GET``/``DELETE /v1/responses/{id}`` are not served.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from tollway_edge.call import Call
from tollway_edge.endpoints.openai_json import JsonRequest, load_with_model, text_bound
from tollway_edge.endpoints.shapes import RESPONSES_SHAPES, check_shapes
from tollway_edge.endpoints.translated import NO_TRANSLATIONS
from tollway_edge.errors import EdgeError, bad_request
from tollway_edge.pipeline import handle
from tollway_edge.redaction.fields import RESPONSES_FIELDS, FieldTable
from tollway_edge.streaming.terminator import OpenAITerminator
from tollway_edge.usage import Tokens, extract_usage

DEFAULT_MAX_OUTPUT_TOKENS = 1 << 30
"""No ``max_output_tokens``: the model's cap applies (``JsonRequest.output_bound``)."""


def _items_bound(value: Any) -> int:
    """UTF-8 bytes of every string in the input items (an upper bound on their tokens)."""
    if type(value) is str:
        return len(value.encode())
    if type(value) is dict:
        return sum(_items_bound(v) for v in value.values())
    if type(value) is list:
        return sum(_items_bound(v) for v in value)
    return 0


def responses_usage(usage: Any) -> Tokens | None:
    """A Responses ``usage`` object in OpenAI chat's meaning, or None."""
    if type(usage) is not dict:
        return None
    return extract_usage(
        {
            "prompt_tokens": usage.get("input_tokens"),
            "completion_tokens": usage.get("output_tokens"),
            "total_tokens": usage.get("total_tokens"),
            "prompt_tokens_details": usage.get("input_tokens_details"),
            "completion_tokens_details": usage.get("output_tokens_details"),
        }
    )


class ResponsesEndpoint:
    """The Responses adapter of :func:`tollway_edge.pipeline.handle` (module doc)."""

    upstream_path = "/responses"
    redaction_fields: FieldTable | None = RESPONSES_FIELDS
    fallback = False
    translations = NO_TRANSLATIONS
    anthropic_format = False
    response_cache = False
    client_headers: tuple[str, ...] = ()

    def parse(self, raw: bytes, call: Call) -> JsonRequest:
        """Check ``model``, ``input``, ``max_output_tokens``; refuse ``stream``.

        Raises:
            tollway_edge.errors.EdgeError: 400 naming the field.
        """
        body = load_with_model(raw, call)
        value = body.get("input")
        if value is None:
            raise bad_request("Missing required parameter: 'input'.", "input", "missing_required_parameter")
        if type(value) is not str and type(value) is not list:
            raise bad_request("'input' must be a string or an array of items.", "input", "invalid_type")
        if body.get("stream"):
            raise EdgeError(
                400,
                "Streamed responses are not served by this gateway yet.",
                code="unsupported",
                param="stream",
            )
        cap = body.get("max_output_tokens")
        if cap is not None and (type(cap) is not int or cap < 1):
            raise bad_request(
                "'max_output_tokens' must be an integer >= 1.", "max_output_tokens", "invalid_type"
            )
        prompt = _items_bound(value) + text_bound(body.get("instructions")) + _items_bound(body.get("tools"))
        check_shapes(body, RESPONSES_SHAPES)
        return JsonRequest(body, prompt, DEFAULT_MAX_OUTPUT_TOKENS if cap is None else cap)

    def usage_of(self, answer: Any) -> Tokens | None:
        """The answer's Responses ``usage`` (:func:`responses_usage`)."""
        return responses_usage(answer.get("usage")) if type(answer) is dict else None

    def terminator(self, call: Call) -> OpenAITerminator:
        """Never streamed yet; the protocol's OpenAI terminator."""
        return OpenAITerminator(f"resp-{call.request_id}", call.model)


RESPONSES = ResponsesEndpoint()


async def responses(request: web.Request) -> web.StreamResponse:
    """``POST /v1/responses``: the whole request path (``pipeline.handle``)."""
    return await handle(request, RESPONSES)
