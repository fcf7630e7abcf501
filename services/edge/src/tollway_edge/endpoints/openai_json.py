"""What the OpenAI JSON endpoints other than chat share (embeddings, legacy
completions, moderations): the parsed request — checked fields, bounds, and
the body encoded once per upstream model (pure; no I/O) — and the adapter
base :class:`OpenAIJsonEndpoint` (usage, stream reader, terminator).

Each endpoint module checks its own fields and builds a :class:`JsonRequest`
with its prompt and output bounds (tokens); everything else in the body
passes through to the provider untouched.
"""

from __future__ import annotations

from typing import Any

import orjson

from tollway_edge.call import Call
from tollway_edge.endpoints.chat_body import load_json_object
from tollway_edge.endpoints.pins import Pins
from tollway_edge.endpoints.translated import NO_TRANSLATIONS
from tollway_edge.errors import bad_request
from tollway_edge.redaction.fields import FieldTable
from tollway_edge.streaming.terminator import OpenAITerminator
from tollway_edge.usage import Tokens, extract_usage


class JsonRequest:
    """A checked OpenAI JSON body (a ``pipeline.ParsedRequest``).

    Args:
        body: the decoded body (``model`` already checked).
        prompt_tokens: upper bound on the prompt's tokens (admission), tokens.
        output_tokens: completion tokens the call may produce, before the
            model's cap, tokens.
        usage_option: a streamed body gets ``stream_options.include_usage``
            (chat-style APIs); False for the Responses API, whose streams
            always carry usage and which has no such option.
    """

    __slots__ = ("body", "model", "stream", "wants_usage", "_prompt", "_output", "_by_model")

    def __init__(
        self, body: dict[str, Any], prompt_tokens: int, output_tokens: int, *, usage_option: bool = True
    ) -> None:
        self.body = body
        self.model: str = body["model"]
        self.stream = body.get("stream") is True
        options = body.get("stream_options")
        self.wants_usage = type(options) is dict and options.get("include_usage") is True
        if (
            self.stream and usage_option
        ):  # the edge always asks for the usage chunk (relay drops it unless asked)
            body["stream_options"] = {**(options if type(options) is dict else {}), "include_usage": True}
        self._prompt = prompt_tokens
        self._output = output_tokens
        self._by_model: dict[str, bytes] = {}

    def prompt_bound(self) -> int:
        """Upper bound on the prompt's tokens (set by the endpoint)."""
        return self._prompt

    def output_bound(self, model_cap: int) -> int:
        """The endpoint's output bound, never above the model's cap (tokens)."""
        return min(self._output, model_cap)

    def replace_body(self, body: dict[str, Any]) -> None:
        """Forward ``body`` instead (redaction's copy)."""
        self.body = body
        self._by_model.clear()

    def encoded(self, upstream_model: str) -> bytes:
        """The JSON body naming ``upstream_model`` (encoded once per model)."""
        out = self._by_model.get(upstream_model)
        if out is None:
            out = self._by_model[upstream_model] = orjson.dumps({**self.body, "model": upstream_model})
        return out


def load_with_model(raw: bytes, call: Call, default_model: str | None = None) -> dict[str, Any]:
    """Decode the body, check ``model`` (a non-empty string; ``default_model``
    when absent and there is one) and ``stream``; note both on the call.

    Raises:
        tollway_edge.errors.EdgeError: 400 naming the field.
    """
    body = load_json_object(raw)
    model = body.get("model")
    if model is None and default_model is not None:
        model = body["model"] = default_model
    if type(model) is str and model:
        call.model = model
    elif model is None:
        raise bad_request("Missing required parameter: 'model'.", "model", "missing_required_parameter")
    else:
        raise bad_request("'model' must be a non-empty string.", "model", "invalid_type")
    stream = body.get("stream")
    if stream is not None and type(stream) is not bool:
        raise bad_request("'stream' must be a boolean.", "stream", "invalid_type")
    if stream:
        call.stream = True
    return body


def text_bound(value: Any) -> int:
    """Upper bound on the tokens of a text or token-array input (tokens): the
    UTF-8 bytes of each string (a byte-level BPE token covers ≥ 1 byte,
    ``admission.bounds``), one per token id, summed over lists."""
    if type(value) is str:
        return len(value.encode())
    if type(value) is int:
        return 1
    if type(value) is list:
        return sum(text_bound(v) for v in value)
    return 0


def required(body: dict[str, Any], name: str) -> Any:
    """``body[name]``.

    Raises:
        tollway_edge.errors.EdgeError: 400 ``missing_required_parameter`` naming it.
    """
    if name not in body:
        raise bad_request(f"Missing required parameter: '{name}'.", name, "missing_required_parameter")
    return body[name]


def refuse_stream(body: dict[str, Any], what: str) -> None:
    """For an API that never streams (``what``: "Embeddings").

    Raises:
        tollway_edge.errors.EdgeError: 400 ``invalid_value`` on ``stream``, when it is true.
    """
    if body.get("stream"):
        raise bad_request(f"{what} are not streamed.", "stream", "invalid_value")


class OpenAIJsonEndpoint:
    """The part of a ``pipeline.Endpoint`` every OpenAI JSON endpoint other than
    chat shares; a subclass sets ``upstream_path``, ``redaction_fields`` and
    ``id_prefix`` and checks its body in ``parse``.

    Attributes:
        id_prefix: the stream terminator's id prefix (``emb`` → ``emb-<request id>``).
        legacy_chunks: the terminator writes legacy ``text_completion`` chunks.
    """

    upstream_path: str
    redaction_fields: FieldTable | None
    id_prefix: str
    legacy_chunks = False
    pins: Pins | None = None
    translations = NO_TRANSLATIONS
    anthropic_format = False
    response_cache = False
    client_headers: tuple[str, ...] = ()

    def usage_of(self, answer: Any) -> Tokens | None:
        """The answer's ``usage`` (OpenAI's field names), or None when it has none."""
        return extract_usage(answer.get("usage")) if type(answer) is dict else None

    def native_reader(self, parsed: Any) -> None:
        """OpenAI chunks: the relay's default reader (``readers.UsageReader``)."""
        return None

    def terminator(self, call: Call) -> OpenAITerminator:
        """OpenAI's terminator (chunks, or legacy ``text_completion`` chunks; an
        error event; ``[DONE]``); also required of endpoints that never stream."""
        return OpenAITerminator(f"{self.id_prefix}-{call.request_id}", call.model, legacy=self.legacy_chunks)
