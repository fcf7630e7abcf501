"""``POST /v1/completions``: OpenAI's legacy completions over the pipeline, stream and not.

``prompt`` is a string, a list of strings, a token array or a list of token
arrays. Prompt bound: :func:`openai_json.text_bound` of ``prompt`` (+ the
``suffix``). Output bound: ``max_tokens`` (OpenAI's default for this API is
16) × ``max(n, best_of)`` × the number of prompts. Streams are OpenAI chunks
(``text_completion`` objects ending in ``[DONE]``), relayed like chat's; the
edge asks for the usage chunk and bills from it.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from tollway_edge.call import Call
from tollway_edge.endpoints.openai_json import (
    JsonRequest,
    OpenAIJsonEndpoint,
    load_with_model,
    required,
    text_bound,
)
from tollway_edge.endpoints.shapes import COMMON_SHAPES, check_shapes
from tollway_edge.errors import bad_request
from tollway_edge.pipeline import handle
from tollway_edge.redaction.fields import COMPLETIONS_FIELDS, FieldTable

DEFAULT_MAX_TOKENS = 16
"""OpenAI's default ``max_tokens`` of legacy completions."""


def _prompt_count(prompt: Any) -> int:
    """How many prompts ``prompt`` holds (each gets its own choice(s))."""
    if type(prompt) is str:
        return 1
    if type(prompt) is list and prompt:
        if all(type(p) is int for p in prompt):
            return 1
        if all(type(p) is str for p in prompt) or all(
            type(p) is list and all(type(t) is int for t in p) for p in prompt
        ):
            return len(prompt)
    raise bad_request(
        "'prompt' must be a string, an array of strings, an array of tokens or an array of token arrays.",
        "prompt",
        "invalid_type",
    )


def _positive(body: dict[str, Any], name: str, default: int) -> int:
    value = body.get(name)
    if value is None:
        return default
    if type(value) is not int or value < 1:
        raise bad_request(f"'{name}' must be an integer >= 1.", name, "invalid_type")
    return value


class CompletionsEndpoint(OpenAIJsonEndpoint):
    """The legacy completions adapter of :func:`tollway_edge.pipeline.handle`."""

    upstream_path = "/completions"
    redaction_fields: FieldTable | None = COMPLETIONS_FIELDS
    id_prefix = "cmpl"
    legacy_chunks = True

    def parse(self, raw: bytes, call: Call) -> JsonRequest:
        """Check ``model``, ``prompt``, ``stream``, ``max_tokens``, ``n``, ``best_of``.

        Raises:
            tollway_edge.errors.EdgeError: 400 naming the field.
        """
        body = load_with_model(raw, call)
        prompt = required(body, "prompt")
        prompts = _prompt_count(prompt)
        max_tokens = _positive(body, "max_tokens", DEFAULT_MAX_TOKENS)
        choices = max(_positive(body, "n", 1), _positive(body, "best_of", 1))
        options = body.get("stream_options")
        if options is not None and type(options) is not dict:
            raise bad_request("'stream_options' must be an object.", "stream_options", "invalid_type")
        prompt_bound = text_bound(prompt) + text_bound(body.get("suffix"))
        check_shapes(body, COMMON_SHAPES)
        return JsonRequest(body, prompt_bound, max_tokens * choices * prompts)


COMPLETIONS = CompletionsEndpoint()


async def completions(request: web.Request) -> web.StreamResponse:
    """``POST /v1/completions``: the whole request path (``pipeline.handle``)."""
    return await handle(request, COMPLETIONS)
