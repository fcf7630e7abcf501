"""Anthropic's stream events -> OpenAI ``chat.completion.chunk`` SSE (incremental).

Anthropic's sequence (Messages API, "Streaming messages"): ``message_start``
(with input usage), per content block ``content_block_start`` /
``content_block_delta`` (``text_delta``, ``input_json_delta``...) /
``content_block_stop``, then ``message_delta`` (``stop_reason``, cumulative
usage), ``message_stop``; ``ping`` anywhere; ``error`` mid-stream. Unknown
event types are ignored, as Anthropic's versioning policy asks.

OpenAI's (``ChatCompletionStreamResponseDelta``, "Streaming"): a role chunk,
content chunks, ``tool_calls`` deltas (each call has its own ``index``; its
first delta carries ``id``, ``type`` and ``function.name``, later ones
``function.arguments`` fragments), a chunk with ``finish_reason``, a usage
chunk (``choices: []``) when the client asked ``stream_options.include_usage``,
then ``data: [DONE]``.
"""

from __future__ import annotations

from typing import Any

from tollway_edge.translate.request_to_openai import compact_json
from tollway_edge.translate.sse import OPENAI_DONE, SSEEvent, json_of, openai_frame
from tollway_edge.translate.usage import TokenUsage, finish_reason_of


class AnthropicToOpenAIStream:
    """Feeds Anthropic stream events, returns the OpenAI client's events.

    One instance per call. ``feed`` returns at once what each event becomes: a list of
    framed events (``data: {chunk}\\n\\n``, one complete event per item; maybe none); no
    complete event is held back.

    Attributes:
        usage: tokens in OpenAI's meaning from ``message_start`` and ``message_delta``
            (cumulative, Anthropic's counts mapped by :class:`TokenUsage`), or None before
            ``message_start``.
        finish_reason: OpenAI's finish reason once ``message_delta`` said why, else None.
        error: the provider's ``error`` event's ``error`` object, if one came.
        done: True once ``message_stop`` (or ``error``) ended the stream.
    """

    def __init__(self, *, include_usage: bool, created: int, model: str | None = None) -> None:
        """Args:
        include_usage: the client asked ``stream_options.include_usage``: send the usage chunk.
        created: the chunks' Unix time, seconds (the caller's clock).
        model: the model name to report; default: the provider's ``message.model``.
        """
        self._include_usage = include_usage
        self._created = created
        self._model = model
        self._id = ""
        self._raw_usage: dict[str, Any] = {}
        self._tool_index: dict[int, int] = {}  # Anthropic block index -> OpenAI tool call index
        self.usage: TokenUsage | None = None
        self.finish_reason: str | None = None
        self.error: dict[str, Any] | None = None
        self.done = False

    def feed(self, event: SSEEvent) -> list[bytes]:
        """Translate one complete Anthropic event (an event without data is skipped).

        Raises:
            TranslationError: (502) the event's data is not a JSON object.
        """
        if self.done or event.data is None:
            return []
        obj = json_of(event)
        kind = obj.get("type")
        if kind == "content_block_delta":
            return self._delta(obj)
        if kind == "content_block_start":
            return self._block_start(obj)
        if kind == "message_start":
            return self._message_start(obj)
        if kind == "message_delta":
            return self._message_delta(obj)
        if kind == "message_stop":
            return self._end()
        if kind == "error":
            self.done = True
            raw = obj.get("error")
            error: dict[str, Any] = raw if isinstance(raw, dict) else {}
            self.error = error
            body = {
                "error": {
                    "message": str(error.get("message") or "provider error"),
                    "type": str(error.get("type") or "api_error"),
                    "param": None,
                    "code": None,
                }
            }
            return [openai_frame(body)]
        return []  # ping, content_block_stop, event types added later

    def finish(self) -> list[bytes]:
        """The provider's bytes ended. After a ``message_delta`` with a stop reason the
        answer is whole: end it (usage chunk, ``[DONE]``) if ``message_stop`` never came.
        Otherwise (cut mid-answer) return nothing: the edge ends the call as failed."""
        if self.done or self.finish_reason is None:
            return []
        return self._end()

    def _end(self) -> list[bytes]:
        self.done = True
        if self._include_usage and self.usage:
            return [self._chunk([], usage=self.usage.to_openai()), OPENAI_DONE]
        return [OPENAI_DONE]

    def _chunk(self, choices: list[dict[str, Any]], **extra: Any) -> bytes:
        obj: dict[str, Any] = {
            "id": self._id,
            "object": "chat.completion.chunk",
            "created": self._created,
            "model": self._model,
            "choices": choices,
        }
        obj.update(extra)
        return openai_frame(obj)

    def _delta_chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
        return self._chunk([{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}])

    def _message_start(self, obj: dict[str, Any]) -> list[bytes]:
        message = obj.get("message") or {}
        self._id = str(message.get("id") or "")
        if self._model is None:
            self._model = message.get("model")
        self._merge_usage(message.get("usage"))
        return [self._delta_chunk({"role": "assistant", "content": ""})]

    def _block_start(self, obj: dict[str, Any]) -> list[bytes]:
        block = obj.get("content_block") or {}
        kind = block.get("type")
        if kind == "text" and block.get("text"):
            return [self._delta_chunk({"content": block["text"]})]
        if kind != "tool_use":
            return []  # text starts empty; thinking and server-tool blocks are not shown
        index = len(self._tool_index)
        self._tool_index[int(obj.get("index") or 0)] = index
        # Anthropic starts a streamed tool_use with input {}; the input comes as deltas.
        initial = block.get("input")
        arguments = compact_json(initial) if initial else ""
        call = {
            "index": index,
            "id": block.get("id"),
            "type": "function",
            "function": {"name": block.get("name"), "arguments": arguments},
        }
        return [self._delta_chunk({"tool_calls": [call]})]

    def _delta(self, obj: dict[str, Any]) -> list[bytes]:
        delta = obj.get("delta") or {}
        kind = delta.get("type")
        if kind == "text_delta":
            text = delta.get("text")
            return [self._delta_chunk({"content": text})] if text else []
        if kind == "input_json_delta":
            fragment = delta.get("partial_json")
            index = self._tool_index.get(int(obj.get("index") or 0))
            if not fragment or index is None:
                return []
            return [
                self._delta_chunk({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]})
            ]
        return []  # thinking, signature and citations deltas are not shown

    def _message_delta(self, obj: dict[str, Any]) -> list[bytes]:
        self._merge_usage(obj.get("usage"))
        reason = (obj.get("delta") or {}).get("stop_reason")
        if reason is None:
            return []
        self.finish_reason = finish_reason_of(reason)
        return [self._delta_chunk({}, self.finish_reason)]

    def _merge_usage(self, usage: Any) -> None:
        """Anthropic's stream counts are cumulative: a later value replaces an earlier one."""
        if not isinstance(usage, dict):
            return
        for key, value in usage.items():
            if value is not None:
                self._raw_usage[key] = value
        self.usage = TokenUsage.from_anthropic(self._raw_usage)
