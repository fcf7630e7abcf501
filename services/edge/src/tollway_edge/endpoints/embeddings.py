"""``POST /v1/embeddings``: OpenAI's embeddings over the pipeline.

``input`` is a string, a list of strings, a token array or a list of token
arrays (non-empty); ``dimensions`` (int ≥ 1) and ``encoding_format``
(``float`` or ``base64``) pass through to the provider, and the answer comes
back byte for byte. Billed on the provider's ``usage.prompt_tokens`` (no
completion tokens). Prompt bound: :func:`openai_json.text_bound` of ``input``.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from tollway_edge.call import Call
from tollway_edge.endpoints.openai_json import JsonRequest, load_with_model, text_bound
from tollway_edge.endpoints.shapes import COMMON_SHAPES, check_shapes
from tollway_edge.endpoints.translated import NO_TRANSLATIONS
from tollway_edge.errors import bad_request
from tollway_edge.pipeline import handle
from tollway_edge.redaction.fields import EMBEDDINGS_FIELDS, FieldTable
from tollway_edge.streaming.terminator import OpenAITerminator
from tollway_edge.usage import Tokens, extract_usage


def _check_input(value: Any) -> None:
    if type(value) is str:
        return
    if type(value) is list and value:
        if all(type(v) is int for v in value) or all(type(v) is str for v in value):
            return
        if all(type(v) is list and v and all(type(t) is int for t in v) for v in value):
            return
    raise bad_request(
        "'input' must be a string, an array of strings, an array of tokens or an array of token arrays.",
        "input",
        "invalid_type",
    )


class EmbeddingsEndpoint:
    """The embeddings adapter of :func:`tollway_edge.pipeline.handle`."""

    upstream_path = "/embeddings"
    redaction_fields: FieldTable | None = EMBEDDINGS_FIELDS
    fallback = True
    translations = NO_TRANSLATIONS
    anthropic_format = False
    response_cache = False
    client_headers: tuple[str, ...] = ()

    def parse(self, raw: bytes, call: Call) -> JsonRequest:
        """Check ``model``, ``input``, ``dimensions``, ``encoding_format``.

        Raises:
            tollway_edge.errors.EdgeError: 400 naming the field.
        """
        body = load_with_model(raw, call)
        if "input" not in body:
            raise bad_request("Missing required parameter: 'input'.", "input", "missing_required_parameter")
        _check_input(body["input"])
        dims = body.get("dimensions")
        if dims is not None and (type(dims) is not int or dims < 1):
            raise bad_request("'dimensions' must be an integer >= 1.", "dimensions", "invalid_type")
        fmt = body.get("encoding_format")
        if fmt is not None and fmt not in ("float", "base64"):
            raise bad_request(
                "'encoding_format' must be 'float' or 'base64'.", "encoding_format", "invalid_value"
            )
        if body.get("stream"):
            raise bad_request("Embeddings are not streamed.", "stream", "invalid_value")
        check_shapes(body, COMMON_SHAPES)
        return JsonRequest(body, text_bound(body["input"]), 0)

    def usage_of(self, answer: Any) -> Tokens | None:
        """The ``usage`` of an embeddings answer (prompt tokens only)."""
        return extract_usage(answer.get("usage")) if type(answer) is dict else None

    def native_reader(self, parsed: Any) -> None:
        """OpenAI chunks: the relay's default reader (``readers.UsageReader``)."""
        return None

    def terminator(self, call: Call) -> OpenAITerminator:
        """Never streamed; the protocol's OpenAI terminator."""
        return OpenAITerminator(f"emb-{call.request_id}", call.model)


EMBEDDINGS = EmbeddingsEndpoint()


async def embeddings(request: web.Request) -> web.StreamResponse:
    """``POST /v1/embeddings``: the whole request path (``pipeline.handle``)."""
    return await handle(request, EMBEDDINGS)
