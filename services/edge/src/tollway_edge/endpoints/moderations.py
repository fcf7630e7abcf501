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
from tollway_edge.endpoints.openai_json import JsonRequest, load_with_model, text_bound
from tollway_edge.endpoints.shapes import MODERATIONS_SHAPES, check_shapes
from tollway_edge.endpoints.translated import NO_TRANSLATIONS
from tollway_edge.errors import bad_request
from tollway_edge.pipeline import handle
from tollway_edge.redaction.fields import MODERATIONS_FIELDS, FieldTable
from tollway_edge.streaming.terminator import OpenAITerminator
from tollway_edge.usage import Tokens, extract_usage

DEFAULT_MODEL = "omni-moderation-latest"


def _texts_bound(value: Any) -> int:
    if type(value) is str or (type(value) is list and value and all(type(v) is str for v in value)):
        return text_bound(value)
    if type(value) is list and value and all(type(v) is dict for v in value):
        return sum(text_bound(v.get("text")) for v in value if v.get("type") == "text")
    raise bad_request(
        "'input' must be a string, an array of strings or an array of input parts.", "input", "invalid_type"
    )


class ModerationsEndpoint:
    """The moderations adapter of :func:`tollway_edge.pipeline.handle`."""

    upstream_path = "/moderations"
    redaction_fields: FieldTable | None = MODERATIONS_FIELDS
    fallback = True
    translations = NO_TRANSLATIONS
    anthropic_format = False
    response_cache = False
    client_headers: tuple[str, ...] = ()

    def parse(self, raw: bytes, call: Call) -> JsonRequest:
        """Check ``model`` (defaulted) and ``input``.

        Raises:
            tollway_edge.errors.EdgeError: 400 naming the field.
        """
        body = load_with_model(raw, call, DEFAULT_MODEL)
        if "input" not in body:
            raise bad_request("Missing required parameter: 'input'.", "input", "missing_required_parameter")
        if body.get("stream"):
            raise bad_request("Moderations are not streamed.", "stream", "invalid_value")
        check_shapes(body, MODERATIONS_SHAPES)
        return JsonRequest(body, _texts_bound(body["input"]), 0)

    def usage_of(self, answer: Any) -> Tokens | None:
        """The answer's ``usage`` if the provider reports one (OpenAI does not)."""
        return extract_usage(answer.get("usage")) if type(answer) is dict else None

    def native_reader(self, parsed: Any) -> None:
        """OpenAI chunks: the relay's default reader (``readers.UsageReader``)."""
        return None

    def terminator(self, call: Call) -> OpenAITerminator:
        """Never streamed; the protocol's OpenAI terminator."""
        return OpenAITerminator(f"modr-{call.request_id}", call.model)


MODERATIONS = ModerationsEndpoint()


async def moderations(request: web.Request) -> web.StreamResponse:
    """``POST /v1/moderations``: the whole request path (``pipeline.handle``)."""
    return await handle(request, MODERATIONS)
