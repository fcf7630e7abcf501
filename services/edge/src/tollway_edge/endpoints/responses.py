"""``POST /v1/responses``: OpenAI's Responses API over the pipeline, stream and not.

``input`` is a string or a list of input items; ``instructions``,
``tools``, ``previous_response_id`` and everything else pass through.
Billed on the answer's ``usage`` (``usage.responses_usage``: ``input_tokens``
incl. ``input_tokens_details.cached_tokens``; ``output_tokens`` incl.
``output_tokens_details.reasoning_tokens``), read as OpenAI's
prompt/completion tokens; a stream's usage comes from ``response.completed``
(``streaming.formats.ResponsesReader``; its events are relayed unchanged),
a cut stream ends with ``response.incomplete`` or an ``error`` event
(``streaming.terminator.ResponsesTerminator``).

**State pinning** (``endpoints.response_state``): a stored response lives on
the deployment that created it. Every 200 records ``id`` → that deployment
(Valkey, per tenant) before the client gets it; a call naming
``previous_response_id`` goes to that one deployment only (no fallback; its
failure is the answer), a call without one is routed and falls back like any
call. ``GET``/``DELETE /v1/responses/{id}`` and ``/input_items`` are
``endpoints.response_items``. Known gaps: the prompt bound covers the new
input only, not the stored conversation ``previous_response_id`` brings;
reversible redaction does not restore placeholders in stream events;
``conversation`` (OpenAI's Conversations API) is not pinned.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from tollway_edge.call import Call
from tollway_edge.endpoints.openai_json import JsonRequest, load_with_model, text_bound
from tollway_edge.endpoints.pins import Pins
from tollway_edge.endpoints.response_state import ResponsePins
from tollway_edge.endpoints.shapes import RESPONSES_SHAPES, check_shapes
from tollway_edge.endpoints.translated import NO_TRANSLATIONS
from tollway_edge.errors import bad_request
from tollway_edge.pipeline import handle
from tollway_edge.redaction.fields import RESPONSES_FIELDS, FieldTable
from tollway_edge.streaming.formats import ResponsesReader
from tollway_edge.streaming.terminator import ResponsesTerminator
from tollway_edge.usage import Tokens, responses_usage

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


class ResponsesEndpoint:
    """The Responses adapter of :func:`tollway_edge.pipeline.handle` (module doc)."""

    upstream_path = "/responses"
    redaction_fields: FieldTable | None = RESPONSES_FIELDS
    pins: Pins | None = ResponsePins()
    translations = NO_TRANSLATIONS
    anthropic_format = False
    response_cache = False
    client_headers: tuple[str, ...] = ()

    def parse(self, raw: bytes, call: Call) -> JsonRequest:
        """Check ``model``, ``input``, ``previous_response_id``, ``max_output_tokens``, ``stream``.

        Raises:
            tollway_edge.errors.EdgeError: 400 naming the field.
        """
        body = load_with_model(raw, call)
        value = body.get("input")
        if value is None:
            raise bad_request("Missing required parameter: 'input'.", "input", "missing_required_parameter")
        if type(value) is not str and type(value) is not list:
            raise bad_request("'input' must be a string or an array of items.", "input", "invalid_type")
        previous = body.get("previous_response_id")
        if previous is not None and (type(previous) is not str or not previous):
            raise bad_request(
                "'previous_response_id' must be a non-empty string.", "previous_response_id", "invalid_type"
            )
        cap = body.get("max_output_tokens")
        if cap is not None and (type(cap) is not int or cap < 1):
            raise bad_request(
                "'max_output_tokens' must be an integer >= 1.", "max_output_tokens", "invalid_type"
            )
        prompt = _items_bound(value) + text_bound(body.get("instructions")) + _items_bound(body.get("tools"))
        check_shapes(body, RESPONSES_SHAPES)
        return JsonRequest(
            body, prompt, DEFAULT_MAX_OUTPUT_TOKENS if cap is None else cap, usage_option=False
        )

    def usage_of(self, answer: Any) -> Tokens | None:
        """The answer's Responses ``usage`` (:func:`responses_usage`)."""
        return responses_usage(answer.get("usage")) if type(answer) is dict else None

    def native_reader(self, parsed: Any) -> ResponsesReader:
        """Responses events, relayed as they are (``streaming.formats.ResponsesReader``)."""
        return ResponsesReader()

    def terminator(self, call: Call) -> ResponsesTerminator:
        """``response.incomplete`` on a cut, an ``error`` event on a failure."""
        return ResponsesTerminator(f"resp_{call.request_id}", call.model)


RESPONSES = ResponsesEndpoint()


async def responses(request: web.Request) -> web.StreamResponse:
    """``POST /v1/responses``: the whole request path (``pipeline.handle``)."""
    return await handle(request, RESPONSES)
