"""``POST /v1/chat/completions``: OpenAI's chat completions over the pipeline.

The body is parsed once (:func:`~tollway_edge.endpoints.chat_body.load_json_object`)
and encoded once: ``messages`` (and ``tools``/``functions``) are serialised
a single time, serving both the prompt bound (``admission.bounds``) and the
forwarded body, which is spliced per upstream model without re-encoding.
"""

from __future__ import annotations

from typing import Any

import orjson
from aiohttp import web

from tollway_edge.admission.bounds import REPLY_PRIMING_TOKENS, output_token_bound
from tollway_edge.call import Call
from tollway_edge.endpoints.chat_body import check_chat_body, load_json_object, wants_usage
from tollway_edge.endpoints.pins import Pins
from tollway_edge.endpoints.translated import CHAT_TO_MESSAGES
from tollway_edge.pipeline import handle
from tollway_edge.redaction.fields import CHAT_FIELDS, FieldTable
from tollway_edge.streaming.terminator import OpenAITerminator
from tollway_edge.usage import Tokens, extract_usage

_BOUNDED = ("tools", "functions")


class ChatRequest:
    """A checked chat completion body (see module doc).

    Attributes:
        body: the decoded body; for a stream, ``stream_options.include_usage``
            is set (the edge always asks for the usage chunk).
    """

    __slots__ = ("body", "model", "stream", "wants_usage", "_parts", "_by_model")

    def __init__(self, body: dict[str, Any]) -> None:
        self.body = body
        self.model: str = body["model"]
        self.stream = body.get("stream") is True
        self.wants_usage = wants_usage(body)
        if self.stream:
            options = dict(body.get("stream_options") or {})
            options["include_usage"] = True
            body["stream_options"] = options
        self._parts: tuple[bytes, bytes, int] | None = None
        self._by_model: dict[str, bytes] = {}

    def _encode(self) -> tuple[bytes, bytes, int]:
        """``(messages JSON, the other fields' JSON without braces, bounded bytes)``."""
        if self._parts is None:
            body = self.body
            messages = orjson.dumps(body.get("messages") or [])
            bounded = len(messages)
            rest: dict[str, Any] = {}
            extra: list[bytes] = []
            for k, v in body.items():
                if k in ("model", "messages"):
                    continue
                if k in _BOUNDED and v:
                    encoded = orjson.dumps(v)
                    bounded += len(encoded)
                    extra.append(b'"' + k.encode() + b'":' + encoded)
                else:
                    rest[k] = v
            tail = orjson.dumps(rest)[1:-1] if rest else b""
            others = b",".join([*extra, tail] if tail else extra)
            self._parts = (messages, others, bounded)
        return self._parts

    def prompt_bound(self) -> int:
        """``admission.bounds.prompt_token_bound`` of the body, from its one encoding."""
        return self._encode()[2] + REPLY_PRIMING_TOKENS

    def output_bound(self, model_cap: int) -> int:
        """``admission.bounds.output_token_bound`` of the body."""
        return output_token_bound(self.body, model_cap)

    def replace_body(self, body: dict[str, Any]) -> None:
        """Forward ``body`` (redaction's copy) instead; encoded again once."""
        self.body = body
        self._parts = None
        self._by_model.clear()

    def encoded(self, upstream_model: str) -> bytes:
        """The JSON body naming ``upstream_model`` (spliced once per model)."""
        out = self._by_model.get(upstream_model)
        if out is None:
            messages, others, _ = self._encode()
            out = b'{"model":' + orjson.dumps(upstream_model) + b',"messages":' + messages
            out += (b"," + others + b"}") if others else b"}"
            self._by_model[upstream_model] = out
        return out


class ChatEndpoint:
    """The chat completions adapter of :func:`tollway_edge.pipeline.handle`."""

    upstream_path = "/chat/completions"
    redaction_fields: FieldTable | None = CHAT_FIELDS
    pins: Pins | None = None
    translations = CHAT_TO_MESSAGES
    anthropic_format = False
    response_cache = True
    client_headers: tuple[str, ...] = ()

    def parse(self, raw: bytes, call: Call) -> ChatRequest:
        """Parse once, note the model and ``stream`` on the call, then check.

        Raises:
            tollway_edge.errors.EdgeError: 400 naming the field (``chat_body``).
        """
        body = load_json_object(raw)
        model = body.get("model")
        if type(model) is str:
            call.model = model
        if body.get("stream") is True:
            call.stream = True
        return ChatRequest(check_chat_body(body))

    def usage_of(self, answer: Any) -> Tokens | None:
        """The ``usage`` of a chat completion."""
        return extract_usage(answer.get("usage")) if type(answer) is dict else None

    def native_reader(self, parsed: Any) -> None:
        """OpenAI chunks: the relay's default reader (``readers.UsageReader``)."""
        return None

    def terminator(self, call: Call) -> OpenAITerminator:
        """Chat completion chunks end the OpenAI way."""
        return OpenAITerminator(f"chatcmpl-{call.request_id}", call.model)


CHAT = ChatEndpoint()


async def chat_completions(request: web.Request) -> web.StreamResponse:
    """``POST /v1/chat/completions``: the whole request path (``pipeline.handle``)."""
    return await handle(request, CHAT)
