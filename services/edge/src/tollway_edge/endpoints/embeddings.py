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
from tollway_edge.endpoints.openai_json import (
    JsonRequest,
    OpenAIJsonEndpoint,
    load_with_model,
    refuse_stream,
    required,
    text_bound,
)
from tollway_edge.endpoints.shapes import COMMON_SHAPES, check_shapes
from tollway_edge.errors import bad_request
from tollway_edge.pipeline import handle
from tollway_edge.redaction.fields import EMBEDDINGS_FIELDS, FieldTable


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


class EmbeddingsEndpoint(OpenAIJsonEndpoint):
    """The embeddings adapter of :func:`tollway_edge.pipeline.handle`."""

    upstream_path = "/embeddings"
    redaction_fields: FieldTable | None = EMBEDDINGS_FIELDS
    id_prefix = "emb"

    def parse(self, raw: bytes, call: Call) -> JsonRequest:
        """Check ``model``, ``input``, ``dimensions``, ``encoding_format``.

        Raises:
            tollway_edge.errors.EdgeError: 400 naming the field.
        """
        body = load_with_model(raw, call)
        value = required(body, "input")
        _check_input(value)
        dims = body.get("dimensions")
        if dims is not None and (type(dims) is not int or dims < 1):
            raise bad_request("'dimensions' must be an integer >= 1.", "dimensions", "invalid_type")
        fmt = body.get("encoding_format")
        if fmt is not None and fmt not in ("float", "base64"):
            raise bad_request(
                "'encoding_format' must be 'float' or 'base64'.", "encoding_format", "invalid_value"
            )
        refuse_stream(body, "Embeddings")
        check_shapes(body, COMMON_SHAPES)
        return JsonRequest(body, text_bound(value), 0)


EMBEDDINGS = EmbeddingsEndpoint()


async def embeddings(request: web.Request) -> web.StreamResponse:
    """``POST /v1/embeddings``: the whole request path (``pipeline.handle``)."""
    return await handle(request, EMBEDDINGS)
