"""Stream formats beside OpenAI's chunks (``readers.StreamReader``s; pure).

- :class:`AnthropicReader` — Anthropic's Messages events relayed as they are
  (``/v1/messages`` to an ``anthropic`` provider): byte-faithful; usage read
  from ``message_start``/``message_delta`` (cumulative: later counts replace
  earlier ones); done at ``message_stop``.
- :class:`ResponsesReader` — OpenAI's Responses events (``response.created``,
  ``response.output_text.delta``, ..., ``response.completed``) relayed as they
  are (``/v1/responses`` to an ``openai``/``azure`` provider): usage read from
  the ``response`` of ``response.completed`` / ``response.incomplete`` /
  ``response.failed`` (``usage.responses_usage``: prompt_tokens
  = ``input_tokens``, cached_tokens = ``input_tokens_details.cached_tokens``,
  completion_tokens = ``output_tokens``, reasoning_tokens =
  ``output_tokens_details.reasoning_tokens``); done at ``response.completed``
  or ``response.incomplete`` (the provider's own length cut), not at
  ``response.failed`` or ``error`` (the relay then ends the stream with the
  terminator's error event, which the SDK raises). One completion token per
  non-empty ``*.delta`` event (text, refusal, function-call arguments,
  reasoning); the ``*.done`` and ``response.*`` events repeat the text and
  count none.
- :class:`TranslatingReader` — a provider stream in the other API's format,
  translated event by event (``translate.AnthropicToOpenAIStream`` for an
  OpenAI client of an Anthropic provider, ``translate.OpenAIToAnthropicStream``
  for the reverse). Every translated event is a new :class:`SSEEvent`, so
  restoration, token counting and the cut run on the client's format.

Both report tokens in OpenAI's meaning (``usage.tokens_of``).
"""

from __future__ import annotations

from typing import Any, Protocol

import structlog

from tollway_edge.streaming.sse import SSEEvent
from tollway_edge.translate import TokenUsage, TranslationError
from tollway_edge.usage import Tokens, responses_usage, tokens_of

log = structlog.get_logger("tollway_edge.stream")


class AnthropicReader:
    """Anthropic's events, relayed unchanged (module doc).

    Attributes:
        done: True once ``message_stop`` passed.
    """

    __slots__ = ("done", "_usage")

    def __init__(self) -> None:
        self.done = False
        self._usage: dict[str, Any] = {}

    def filter(self, events: list[SSEEvent]) -> list[SSEEvent]:
        """``events`` themselves; only ``message_start``, ``message_delta`` and
        ``message_stop`` events are parsed."""
        for event in events:
            raw = event.raw
            if b'"message_' not in raw:
                continue  # content deltas, pings: never parsed
            obj = event.json()
            if type(obj) is not dict:
                continue
            kind = obj.get("type")
            if kind == "message_start":
                message = obj.get("message")
                self._merge(message.get("usage") if type(message) is dict else None)
            elif kind == "message_delta":
                self._merge(obj.get("usage"))
            elif kind == "message_stop":
                self.done = True
        return events

    def _merge(self, usage: Any) -> None:
        if type(usage) is dict:
            for key, value in usage.items():
                if value is not None:
                    self._usage[key] = value

    def close(self) -> list[SSEEvent]:
        """Nothing: an Anthropic stream ends with the provider's own ``message_stop``."""
        return []

    def tokens(self) -> Tokens | None:
        """The accumulated usage in OpenAI's meaning, or None before ``message_start``."""
        return tokens_of(TokenUsage.from_anthropic(self._usage)) if self._usage else None


_RESPONSE_ENDS = (b'"response.completed"', b'"response.incomplete"', b'"response.failed"')


class ResponsesReader:
    """OpenAI's Responses events, relayed unchanged (module doc).

    Attributes:
        done: True once ``response.completed`` or ``response.incomplete`` passed.
    """

    __slots__ = ("done", "_usage")

    def __init__(self) -> None:
        self.done = False
        self._usage: Tokens | None = None

    def filter(self, events: list[SSEEvent]) -> list[SSEEvent]:
        """``events`` themselves, each counted (module doc); only the final
        ``response.*`` events are parsed."""
        for event in events:
            raw = event.raw
            if b'.delta"' in raw and b'"delta":""' not in raw:
                event.count_as(1)
                continue
            event.count_as(0)
            if not any(end in raw for end in _RESPONSE_ENDS):
                continue
            obj = event.json()
            if type(obj) is not dict:
                continue
            kind = obj.get("type")
            response = obj.get("response")
            if (
                kind in ("response.completed", "response.incomplete", "response.failed")
                and type(response) is dict
            ):
                usage = responses_usage(response.get("usage"))
                if usage is not None:
                    self._usage = usage
                if kind != "response.failed":
                    self.done = True
        return events

    def close(self) -> list[SSEEvent]:
        """Nothing: a Responses stream ends with the provider's own final event."""
        return []

    def tokens(self) -> Tokens | None:
        """The final event's usage in OpenAI's meaning, or None before it."""
        return self._usage


class Translator(Protocol):
    """``translate``'s incremental stream translators."""

    usage: TokenUsage | None
    error: dict[str, Any] | None
    done: bool

    def feed(self, event: Any) -> list[bytes]:
        """The client's framed events for one provider event."""

    def finish(self) -> list[bytes]:
        """The client's closing events once the provider's bytes ended."""


class TranslatingReader:
    """A provider stream translated into the client's format (module doc).

    Attributes:
        done: the translator ended the answer whole (not on a provider error and
            not after an untranslatable event).
    """

    __slots__ = ("_translator", "_broken")

    def __init__(self, translator: Translator) -> None:
        self._translator = translator
        self._broken = False

    @property
    def done(self) -> bool:
        t = self._translator
        return t.done and t.error is None and not self._broken

    def filter(self, events: list[SSEEvent]) -> list[SSEEvent]:
        """The translated events (an untranslatable provider event ends the
        translation: nothing more is sent and the stream ends as failed)."""
        out: list[SSEEvent] = []
        if self._broken:
            return out
        try:
            for event in events:
                out.extend(SSEEvent(raw) for raw in self._translator.feed(event))
        except TranslationError as err:
            log.warning("stream_translation_failed", reason=err.message)
            self._broken = True
        return out

    def close(self) -> list[SSEEvent]:
        """The translator's closing events (the answer was whole but its end marker never came)."""
        if self._broken:
            return []
        return [SSEEvent(raw) for raw in self._translator.finish()]

    def tokens(self) -> Tokens | None:
        """The translated usage in OpenAI's meaning, or None before the provider reported it."""
        usage = self._translator.usage
        return None if usage is None else tokens_of(usage)
