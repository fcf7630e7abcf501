"""The one place that ends a stream the edge must end itself (pure).

One class per wire format: :class:`OpenAITerminator` (chat completion and
legacy completion chunks), :class:`AnthropicTerminator` (Anthropic's
Messages events: ``message_delta`` with ``stop_reason: "max_tokens"`` then
``message_stop``; an ``event: error`` for failures, which the anthropic SDK
raises as an ``APIStatusError``) and :class:`ResponsesTerminator` (OpenAI's
Responses events: ``response.incomplete``; an ``error`` event).

- :meth:`OpenAITerminator.clean_end` — admission's cut (and, later, drain):
  a chunk with ``finish_reason: "length"``, the usage chunk when the client
  asked for usage (the tokens it received), ``data: [DONE]``.
- :meth:`OpenAITerminator.error_end` — provider failure mid-stream (and
  output redaction's block): one ``data: {"error": {...}}`` event and no
  ``[DONE]``. The openai Python SDK raises ``openai.APIError`` on an event
  whose data has an ``error`` key (``openai/_streaming.py``, legacy stream
  mode used by chat completions), so a cut answer is never mistaken for a
  complete one.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

import orjson

from tollway_contracts.errors import error_body
from tollway_edge.streaming.sse import SSEEvent


class Terminator(Protocol):
    """What the relay needs from a wire format's terminator."""

    def observe(self, event: SSEEvent) -> None:
        """Remember what the end events must echo (ids, sequence numbers) from a
        relayed event; the relay calls it with the first and the last event of
        every batch written to the client (no parse: parse on an ending only)."""

    def clean_end(self, prompt_tokens: int, completion_tokens: int, include_usage: bool) -> bytes:
        """Bytes that end the stream as complete, cut for length."""

    def error_end(self, message: str, code: str) -> bytes:
        """Bytes that end the stream with an error the client SDK raises."""


class OpenAITerminator:
    """Ends an OpenAI ``chat.completion.chunk`` stream.

    Args:
        fallback_id: the chunk id to use when no relayed chunk gave one
            (``chatcmpl-<request id>``).
        model: the model name to use likewise (the requested model).
        legacy: legacy completions' chunks (``object: "text_completion"``,
            choices carry ``text``) instead of chat completion chunks.
    """

    __slots__ = ("_first", "_fallback_id", "_model", "_legacy")

    def __init__(self, fallback_id: str, model: str | None, *, legacy: bool = False) -> None:
        self._first: SSEEvent | None = None
        self._fallback_id = fallback_id
        self._model = model
        self._legacy = legacy

    def observe(self, event: SSEEvent) -> None:
        """Keep the first relayed event (parsed only if the stream is cut)."""
        if self._first is None and not event.is_done:
            self._first = event

    @property
    def observed(self) -> bool:
        """True once an event was kept: :meth:`observe` of later events does nothing
        (so the relay's direct path may forward them unseen, ``streaming.direct``)."""
        return self._first is not None

    def _base(self) -> dict[str, Any]:
        ident: dict[str, Any] = {"id": self._fallback_id, "model": self._model, "created": int(time.time())}
        first = self._first.json() if self._first is not None else None
        if type(first) is dict:
            for k in ident:
                if k in first:
                    ident[k] = first[k]
        return {
            "id": ident["id"],
            "object": "text_completion" if self._legacy else "chat.completion.chunk",
            "created": ident["created"],
            "model": ident["model"],
        }

    def clean_end(self, prompt_tokens: int, completion_tokens: int, include_usage: bool) -> bytes:
        """``finish_reason: "length"`` chunk, the usage chunk if asked (tokens), ``[DONE]``."""
        base = self._base()
        choice: dict[str, Any] = {"index": 0, "logprobs": None, "finish_reason": "length"}
        choice["text" if self._legacy else "delta"] = "" if self._legacy else {}
        chunk = {**base, "choices": [choice]}
        out = b"data: " + orjson.dumps(chunk) + b"\n\n"
        if include_usage:
            usage = {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            }
            out += b"data: " + orjson.dumps({**base, "choices": [], "usage": usage}) + b"\n\n"
        return out + b"data: [DONE]\n\n"

    def error_end(self, message: str, code: str) -> bytes:
        """One OpenAI-format error event (``type: "api_error"``), no ``[DONE]``."""
        return b"data: " + orjson.dumps(error_body(message, type="api_error", code=code)) + b"\n\n"


class AnthropicTerminator:
    """Ends an Anthropic Messages event stream (``/v1/messages``, native or translated).

    - :meth:`clean_end`: ``message_delta``
      (``stop_reason: "max_tokens"``, usage: the tokens the client received)
      and ``message_stop``; the anthropic SDK's accumulated message is whole.
    - :meth:`error_end`: ``event: error`` (``api_error``); the SDK raises.
    """

    __slots__ = ()

    def observe(self, event: SSEEvent) -> None:
        """Nothing to echo: Anthropic's end events carry no ids."""

    def clean_end(self, prompt_tokens: int, completion_tokens: int, include_usage: bool) -> bytes:
        """``message_delta`` (``max_tokens``; usage in tokens, always: Anthropic's
        streams always carry it), ``message_stop`` (the anthropic SDK's accumulated
        message is whole without the open block's ``content_block_stop``)."""
        out = b""
        delta = {"stop_reason": "max_tokens", "stop_sequence": None}
        usage = {"input_tokens": prompt_tokens, "output_tokens": completion_tokens}
        out += _anthropic_event({"type": "message_delta", "delta": delta, "usage": usage})
        return out + _anthropic_event({"type": "message_stop"})

    def error_end(self, message: str, code: str) -> bytes:
        """One Anthropic ``error`` event (``api_error``)."""
        return _anthropic_event({"type": "error", "error": {"type": "api_error", "message": message}})


class ResponsesTerminator:
    """Ends an OpenAI Responses event stream (``/v1/responses``).

    - :meth:`clean_end`: ``response.incomplete`` (what OpenAI itself sends
      when ``max_output_tokens`` cuts an answer): the response of the relayed
      ``response.created`` with ``status: "incomplete"``,
      ``incomplete_details.reason: "max_output_tokens"`` and the usage the
      client received. Its ``output`` is empty (the relay does not assemble
      the items): the client has them from the relayed ``*.delta``/``*.done``
      events.
    - :meth:`error_end`: an ``error`` event carrying both the Responses
      error-event fields (``code``, ``message``, ``param``) and an ``error``
      object: the openai SDK (legacy stream mode, used by
      ``responses.create(stream=True)``) raises ``openai.APIError`` on data
      with an ``error`` key (``openai/_streaming.py``).

    Args:
        fallback_id: the response id when no ``response.created`` was relayed.
        model: the model name likewise (the requested model).
    """

    __slots__ = ("_first", "_last", "_fallback_id", "_model")

    def __init__(self, fallback_id: str, model: str | None) -> None:
        self._first: SSEEvent | None = None
        self._last: SSEEvent | None = None
        self._fallback_id = fallback_id
        self._model = model

    def observe(self, event: SSEEvent) -> None:
        """Keep the first relayed event (``response.created``) and the latest (its
        ``sequence_number``); parsed only on an ending."""
        if self._first is None:
            self._first = event
        self._last = event

    def _sequence(self) -> int:
        """The next ``sequence_number`` (the latest relayed one + 1; 0 before any)."""
        last = self._last.json() if self._last is not None else None
        seq = last.get("sequence_number") if type(last) is dict else None
        return seq + 1 if type(seq) is int else 0

    def clean_end(self, prompt_tokens: int, completion_tokens: int, include_usage: bool) -> bytes:
        """``response.incomplete`` with the tokens the client received (always:
        Responses streams always carry usage)."""
        first = self._first.json() if self._first is not None else None
        created = first.get("response") if type(first) is dict else None
        response: dict[str, Any] = dict(created) if type(created) is dict else {}
        response.setdefault("id", self._fallback_id)
        response.setdefault("object", "response")
        response.setdefault("created_at", int(time.time()))
        response.setdefault("model", self._model)
        response["status"] = "incomplete"
        response["incomplete_details"] = {"reason": "max_output_tokens"}
        response["output"] = []
        response["usage"] = {
            "input_tokens": prompt_tokens,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": completion_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": prompt_tokens + completion_tokens,
        }
        return _named_event(
            {"type": "response.incomplete", "response": response, "sequence_number": self._sequence()}
        )

    def error_end(self, message: str, code: str) -> bytes:
        """One ``error`` event the openai SDK raises (class doc)."""
        err = error_body(message, type="api_error", code=code)
        return _named_event(
            {
                "type": "error",
                "code": code,
                "message": message,
                "param": None,
                "sequence_number": self._sequence(),
                **err,
            }
        )


def _named_event(obj: dict[str, Any]) -> bytes:
    """``event: <type>`` + ``data: <json>`` (Responses' framing)."""
    return b"event: " + str(obj["type"]).encode() + b"\ndata: " + orjson.dumps(obj) + b"\n\n"


def _anthropic_event(obj: dict[str, Any]) -> bytes:
    return b"event: " + str(obj["type"]).encode() + b"\ndata: " + orjson.dumps(obj) + b"\n\n"
