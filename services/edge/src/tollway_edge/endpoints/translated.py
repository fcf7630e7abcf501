"""Translations between OpenAI's chat completions and Anthropic's Messages API
(``pipeline.Translation``s), over the pure ``translate`` package.

- :data:`CHAT_TO_MESSAGES` — an OpenAI chat client routed to an ``anthropic``
  provider: the body through ``openai_to_anthropic_request`` (``max_tokens``
  defaults to the catalogue model's ``max_output_tokens``), posted to
  ``/messages``; answers through ``anthropic_to_openai_response``; streams
  through ``AnthropicToOpenAIStream`` (the usage chunk only if the client
  asked ``include_usage``).
- :data:`MESSAGES_TO_CHAT` — an Anthropic client routed to an ``openai`` or
  ``azure`` provider: ``anthropic_to_openai_request`` (a stream asks for
  ``include_usage``), posted to ``/chat/completions``; answers through
  ``openai_to_anthropic_response``; streams through ``OpenAIToAnthropicStream``.

Tokens keep OpenAI's meaning (``usage.tokens_of``). A request the other API
cannot express is a 400 naming the field (before the provider hears of the
call); an answer that cannot be translated is a 502.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import orjson

from tollway_contracts.catalogue import Model, Provider
from tollway_edge.routing.forward import Target
from tollway_edge.routing.kinds.anthropic import DEFAULT_ANTHROPIC_VERSION
from tollway_edge.streaming.formats import TranslatingReader
from tollway_edge.translate import (
    AnthropicToOpenAIStream,
    OpenAIToAnthropicStream,
    anthropic_to_openai_request,
    anthropic_to_openai_response,
    openai_to_anthropic_request,
    openai_to_anthropic_response,
)
from tollway_edge.usage import Tokens, tokens_of


class TranslatedBody:
    """A translated request body, encoded once per upstream model (a ``forward.Outbound``)."""

    __slots__ = ("_body", "_by_model")

    def __init__(self, body: dict[str, Any]) -> None:
        self._body = body
        self._by_model: dict[str, bytes] = {}

    def encoded(self, upstream_model: str) -> bytes:
        """The JSON body naming ``upstream_model``."""
        out = self._by_model.get(upstream_model)
        if out is None:
            out = self._by_model[upstream_model] = orjson.dumps({**self._body, "model": upstream_model})
        return out


class ChatToMessages:
    """OpenAI chat completions served by an Anthropic provider (module doc)."""

    path = "/messages"

    def outbound(self, parsed: Any, entry: Model, headers: Mapping[str, str], provider: Provider) -> Target:
        """``openai_to_anthropic_request`` of the (redacted) body, for the
        ``anthropic-version`` the provider is called with (its ``api_version``).

        Raises:
            TranslationError: 400, a field Anthropic cannot honour.
        """
        body = openai_to_anthropic_request(
            parsed.body,
            model=parsed.model,
            default_max_tokens=entry.max_output_tokens,
            anthropic_version=provider.api_version or DEFAULT_ANTHROPIC_VERSION,
        )
        return Target(self.path, TranslatedBody(body))

    def answer(self, obj: dict[str, Any]) -> tuple[dict[str, Any], Tokens]:
        """Anthropic's ``Message`` as a ``chat.completion``, and its tokens.

        Raises:
            TranslationError: 502, not a message.
        """
        completion, usage = anthropic_to_openai_response(obj, created=int(time.time()))
        return completion, tokens_of(usage)

    def reader(self, parsed: Any) -> TranslatingReader:
        """Anthropic's events as chat completion chunks."""
        return TranslatingReader(
            AnthropicToOpenAIStream(include_usage=parsed.wants_usage, created=int(time.time()))
        )


class MessagesToChat:
    """Anthropic Messages served by an OpenAI or Azure provider (module doc)."""

    path = "/chat/completions"

    def outbound(self, parsed: Any, entry: Model, headers: Mapping[str, str], provider: Provider) -> Target:
        """``anthropic_to_openai_request`` of the body.

        Raises:
            TranslationError: 400, a field chat completions cannot honour.
        """
        return Target(self.path, TranslatedBody(anthropic_to_openai_request(parsed.body, model=parsed.model)))

    def answer(self, obj: dict[str, Any]) -> tuple[dict[str, Any], Tokens]:
        """A ``chat.completion`` as Anthropic's ``Message``, and its tokens.

        Raises:
            TranslationError: 502, no choice or tool arguments that are not an object.
        """
        message, usage = openai_to_anthropic_response(obj)
        return message, tokens_of(usage)

    def reader(self, parsed: Any) -> TranslatingReader:
        """Chat completion chunks as Anthropic's events."""
        return TranslatingReader(OpenAIToAnthropicStream())


CHAT_TO_MESSAGES: Mapping[str, Any] = MappingProxyType({"anthropic": ChatToMessages()})
"""The chat endpoint's translations, by provider kind."""

MESSAGES_TO_CHAT: Mapping[str, Any] = MappingProxyType(
    {"openai": MessagesToChat(), "azure": MessagesToChat()}
)
"""The Messages endpoint's translations, by provider kind."""

NO_TRANSLATIONS: Mapping[str, Any] = MappingProxyType({})
"""For endpoints served natively only."""
