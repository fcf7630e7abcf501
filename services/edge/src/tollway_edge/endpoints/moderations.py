"""``POST /v1/moderations``: OpenAI's moderations over the pipeline.

``input`` is a string, a list of strings, or a list of multi-modal parts;
``model`` defaults to :data:`DEFAULT_MODEL` (OpenAI's default), which must be
in the catalogue. OpenAI reports no usage for moderations and does not
charge for them: the terminal event carries the provider's usage when there
is one, else no tokens and no cost. Prompt bound: the UTF-8 bytes of the
texts (:func:`openai_json.text_bound`); no output.
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
from tollway_edge.endpoints.shapes import MODERATIONS_SHAPES, check_shapes
from tollway_edge.errors import bad_request
from tollway_edge.pipeline import handle
from tollway_edge.redaction.fields import MODERATIONS_FIELDS, FieldTable

DEFAULT_MODEL = "omni-moderation-latest"


def _texts_bound(value: Any) -> int:
    if type(value) is str or (type(value) is list and value and all(type(v) is str for v in value)):
        return text_bound(value)
    if type(value) is list and value and all(type(v) is dict for v in value):
        return sum(text_bound(v.get("text")) for v in value if v.get("type") == "text")
    raise bad_request(
        "'input' must be a string, an array of strings or an array of input parts.", "input", "invalid_type"
    )


class ModerationsEndpoint(OpenAIJsonEndpoint):
    """The moderations adapter of :func:`tollway_edge.pipeline.handle`."""

    upstream_path = "/moderations"
    redaction_fields: FieldTable | None = MODERATIONS_FIELDS
    id_prefix = "modr"

    def parse(self, raw: bytes, call: Call) -> JsonRequest:
        """Check ``model`` (defaulted) and ``input``.

        Raises:
            tollway_edge.errors.EdgeError: 400 naming the field.
        """
        body = load_with_model(raw, call, DEFAULT_MODEL)
        value = required(body, "input")
        refuse_stream(body, "Moderations")
        check_shapes(body, MODERATIONS_SHAPES)
        return JsonRequest(body, _texts_bound(value), 0)


MODERATIONS = ModerationsEndpoint()


async def moderations(request: web.Request) -> web.StreamResponse:
    """``POST /v1/moderations``: the whole request path (``pipeline.handle``)."""
    return await handle(request, MODERATIONS)
