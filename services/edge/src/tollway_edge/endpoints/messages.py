"""``POST /v1/messages``: Anthropic's Messages API over the pipeline, stream and not.

Authenticated by ``x-api-key`` or ``Authorization: Bearer`` (``auth``); the
client's ``anthropic-version`` and ``anthropic-beta`` headers pass through to
an ``anthropic`` provider (replacing the provider's configured version).
Errors are Anthropic-format (``{"type": "error", "error": {type, message}}``,
``middleware.responses.anthropic_path``).

Routes: an ``anthropic`` provider natively (the body as sent, only ``model``
replaced; its events relayed unchanged, ``streaming.formats.AnthropicReader``);
an ``openai`` or ``azure`` provider through chat completions
(``endpoints.translated.MessagesToChat``).

Bounds (tokens): prompt = UTF-8 bytes of the JSON of ``messages``,
``system`` and ``tools`` + 3 (``admission.bounds``' rule); output =
``max_tokens`` (required by the API), capped by the model's. Usage, in
OpenAI's meaning (``usage.tokens_of``): ``prompt_tokens`` = ``input_tokens`` +
``cache_read_input_tokens`` + ``cache_creation_input_tokens``;
``cached_tokens`` = ``cache_read_input_tokens``; ``cache_write_tokens`` =
``cache_creation_input_tokens``; ``completion_tokens`` = ``output_tokens``.

Redaction: the body walk decides every string by
``redaction.fields.ANTHROPIC_MESSAGES_FIELDS`` (text, image, document,
tool_use, tool_result and thinking blocks; PDF and file documents are 400
``unscannable_content`` under ``redact``/``block``).
"""

from __future__ import annotations

from typing import Any

import orjson
from aiohttp import web

from tollway_edge.admission.bounds import REPLY_PRIMING_TOKENS
from tollway_edge.call import Call
from tollway_edge.endpoints.openai_json import load_with_model
from tollway_edge.endpoints.pins import Pins
from tollway_edge.endpoints.translated import MESSAGES_TO_CHAT
from tollway_edge.errors import bad_request
from tollway_edge.pipeline import handle
from tollway_edge.redaction.fields import ANTHROPIC_MESSAGES_FIELDS, FieldTable
from tollway_edge.streaming.formats import AnthropicReader
from tollway_edge.streaming.terminator import AnthropicTerminator
from tollway_edge.translate import TokenUsage
from tollway_edge.usage import Tokens, tokens_of

_BOUNDED = ("system", "messages", "tools")


class MessagesRequest:
    """A checked Messages body (a ``pipeline.ParsedRequest``).

    Attributes:
        wants_usage: always False (Anthropic's events carry usage anyway).
    """

    __slots__ = ("body", "model", "stream", "wants_usage", "_by_model")

    def __init__(self, body: dict[str, Any]) -> None:
        self.body = body
        self.model: str = body["model"]
        self.stream = body.get("stream") is True
        self.wants_usage = False
        self._by_model: dict[str, bytes] = {}

    def prompt_bound(self) -> int:
        """UTF-8 bytes of the JSON of ``system``, ``messages`` and ``tools`` + 3, tokens."""
        return sum(len(orjson.dumps(self.body[k])) for k in _BOUNDED if k in self.body) + REPLY_PRIMING_TOKENS

    def output_bound(self, model_cap: int) -> int:
        """``max_tokens``, never above the model's cap (tokens)."""
        return min(int(self.body["max_tokens"]), model_cap)

    def replace_body(self, body: dict[str, Any]) -> None:
        """Forward ``body`` instead."""
        self.body = body
        self._by_model.clear()

    def encoded(self, upstream_model: str) -> bytes:
        """The JSON body naming ``upstream_model`` (encoded once per model)."""
        out = self._by_model.get(upstream_model)
        if out is None:
            out = self._by_model[upstream_model] = orjson.dumps({**self.body, "model": upstream_model})
        return out


class MessagesEndpoint:
    """The Anthropic Messages adapter of :func:`tollway_edge.pipeline.handle`."""

    upstream_path = "/messages"
    redaction_fields: FieldTable | None = ANTHROPIC_MESSAGES_FIELDS
    pins: Pins | None = None
    translations = MESSAGES_TO_CHAT
    anthropic_format = True
    response_cache = False
    client_headers: tuple[str, ...] = ("anthropic-version", "anthropic-beta")

    def parse(self, raw: bytes, call: Call) -> MessagesRequest:
        """Check ``model``, ``stream``, ``messages`` (a non-empty list) and
        ``max_tokens`` (a positive integer).

        Raises:
            tollway_edge.errors.EdgeError: 400 naming the field.
        """
        body = load_with_model(raw, call)
        messages = body.get("messages")
        if type(messages) is not list or not messages:
            raise bad_request("'messages' must be a non-empty array.", "messages", "invalid_request")
        max_tokens = body.get("max_tokens")
        if type(max_tokens) is not int or max_tokens < 1:
            raise bad_request("'max_tokens' must be an integer >= 1.", "max_tokens", "invalid_request")
        return MessagesRequest(body)

    def usage_of(self, answer: Any) -> Tokens | None:
        """The ``usage`` of an Anthropic ``Message``, in OpenAI's meaning."""
        usage = answer.get("usage") if type(answer) is dict else None
        return tokens_of(TokenUsage.from_anthropic(usage)) if type(usage) is dict else None

    def native_reader(self, parsed: Any) -> AnthropicReader:
        """Anthropic's events from an ``anthropic`` provider, relayed as they are."""
        return AnthropicReader()

    def terminator(self, call: Call) -> AnthropicTerminator:
        """Anthropic's events end with ``message_delta`` + ``message_stop`` or an ``error`` event."""
        return AnthropicTerminator()


MESSAGES = MessagesEndpoint()


async def messages(request: web.Request) -> web.StreamResponse:
    """``POST /v1/messages``: the whole request path (``pipeline.handle``)."""
    return await handle(request, MESSAGES)
