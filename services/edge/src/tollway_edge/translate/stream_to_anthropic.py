"""OpenAI ``chat.completion.chunk`` SSE -> Anthropic's stream events (incremental).

OpenAI's chunks (``ChatCompletionStreamResponseDelta``) carry ``content``
fragments and ``tool_calls`` deltas keyed by their ``index``; a chunk with
``finish_reason``; with ``stream_options.include_usage`` (which the request
translator always sets) a usage chunk (``choices: []``); then ``data: [DONE]``.

Anthropic's clients expect (Messages API, "Streaming messages"):
``message_start`` (a message with empty content and input usage), then for
each content block ``content_block_start`` / ``content_block_delta`` /
``content_block_stop`` with block indices 0, 1, 2... (a text block, one
``tool_use`` block per tool call, with ``input_json_delta`` fragments), then
``message_delta`` (``stop_reason``; cumulative usage: ``output_tokens`` and the
exact input counts, which an OpenAI provider only reports at the end) and
``message_stop``.
"""

from __future__ import annotations

from typing import Any

from tollway_edge.translate.sse import DONE, SSEEvent, anthropic_frame, json_of
from tollway_edge.translate.usage import TokenUsage, stop_reason_of


class OpenAIToAnthropicStream:
    """Feeds OpenAI stream events, returns the Anthropic client's events.

    One instance per call; ``feed`` returns at once what each event becomes: a list of
    framed events (``event: <type>\\ndata: {json}\\n\\n``, one complete event per item;
    maybe none). Only choice 0 is read (the request translator never asks for more).
    A tool call's fragments that arrive after another block began (providers send each
    call whole, in order, but nothing forbids interleaving) keep their call's block index,
    which Anthropic's SDKs accumulate by.

    Attributes:
        usage: tokens in OpenAI's meaning from the usage chunk, or None before it.
        stop_reason: Anthropic's stop reason once a ``finish_reason`` came, else None.
        error: the provider's in-stream ``error`` object, if one came.
        done: True once ``message_stop`` (or ``error``) was sent.
    """

    def __init__(self, *, model: str | None = None, input_tokens: int = 0) -> None:
        """Args:
        model: the model name to report; default: the provider's chunk ``model``.
        input_tokens: ``message_start``'s input tokens when the caller knows them (an
            OpenAI provider reports its count only at the end; ``message_delta`` carries it).
        """
        self._model = model
        self._input_tokens = input_tokens
        self._started = False
        self._next_index = 0
        self._open: int | None = None  # the Anthropic index of the open block
        self._text_open = False
        self._refused = False  # OpenAI's refusal text came: the stop reason is "refusal"
        self._tools: dict[int, int] = {}  # OpenAI tool call index -> Anthropic block index
        self.usage: TokenUsage | None = None
        self.stop_reason: str | None = None
        self.error: dict[str, Any] | None = None
        self.done = False

    def feed(self, event: SSEEvent) -> list[bytes]:
        """Translate one complete OpenAI event (a chunk, an error, or ``[DONE]``; an event
        without data is skipped).

        Raises:
            TranslationError: (502) the event's data is neither ``[DONE]`` nor a JSON object.
        """
        if self.done or event.data is None:
            return []
        if event.data.strip() == DONE:
            return self._end()
        obj = json_of(event)
        if isinstance(obj.get("error"), dict) and not obj.get("choices"):
            self.done = True
            self.error = obj["error"]
            message = str(obj["error"].get("message") or "provider error")
            return [anthropic_frame({"type": "error", "error": {"type": "api_error", "message": message}})]
        out = [] if self._started else [self._message_start(obj)]
        if isinstance(obj.get("usage"), dict):
            self.usage = TokenUsage.from_openai(obj["usage"])
        for choice in obj.get("choices") or ():
            if isinstance(choice, dict) and choice.get("index", 0) == 0:
                out.extend(self._choice(choice))
        return out

    def finish(self) -> list[bytes]:
        """The provider's bytes ended. After a ``finish_reason`` the answer is whole: end it
        (``message_delta``, ``message_stop``) if ``[DONE]`` never came. Otherwise (cut
        mid-answer) return nothing: the edge ends the call as failed."""
        if self.done or self.stop_reason is None:
            return []
        return self._end()

    def _message_start(self, obj: dict[str, Any]) -> bytes:
        self._started = True
        if self._model is None:
            self._model = obj.get("model")
        message: dict[str, Any] = {
            "id": obj.get("id") or "",
            "type": "message",
            "role": "assistant",
            "model": self._model or "",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": self._input_tokens, "output_tokens": 0},
        }
        return anthropic_frame({"type": "message_start", "message": message})

    def _choice(self, choice: dict[str, Any]) -> list[bytes]:
        out: list[bytes] = []
        delta = choice.get("delta") or {}
        for key in ("content", "refusal"):
            text = delta.get(key)
            if isinstance(text, str) and text:
                if not self._text_open:
                    out.extend(self._start({"type": "text", "text": ""}))
                    self._text_open = True
                out.append(self._block_delta(self._open, {"type": "text_delta", "text": text}))
                self._refused = self._refused or key == "refusal"
        for call in delta.get("tool_calls") or ():
            out.extend(self._tool_delta(call))
        reason = choice.get("finish_reason")
        if reason is not None:
            self.stop_reason = "refusal" if self._refused else stop_reason_of(reason)
            out.extend(self._close())
        return out

    def _tool_delta(self, call: dict[str, Any]) -> list[bytes]:
        out: list[bytes] = []
        k = call.get("index", 0)
        fn = call.get("function") or {}
        if k not in self._tools:
            block: dict[str, Any] = {
                "type": "tool_use",
                "id": call.get("id") or f"call_{k}",
                "name": fn.get("name") or "",
                "input": {},
            }
            out.extend(self._start(block))
            self._tools[k] = self._next_index - 1
        fragment = fn.get("arguments")
        if isinstance(fragment, str) and fragment:
            delta = {"type": "input_json_delta", "partial_json": fragment}
            out.append(self._block_delta(self._tools[k], delta))
        return out

    def _start(self, block: dict[str, Any]) -> list[bytes]:
        out = self._close()
        self._open = self._next_index
        self._next_index += 1
        out.append(
            anthropic_frame({"type": "content_block_start", "index": self._open, "content_block": block})
        )
        return out

    def _close(self) -> list[bytes]:
        if self._open is None:
            return []
        index, self._open, self._text_open = self._open, None, False
        return [anthropic_frame({"type": "content_block_stop", "index": index})]

    @staticmethod
    def _block_delta(index: int | None, delta: dict[str, Any]) -> bytes:
        return anthropic_frame({"type": "content_block_delta", "index": index, "delta": delta})

    def _end(self) -> list[bytes]:
        out = [] if self._started else [self._message_start({})]
        out.extend(self._close())
        self.done = True
        usage = self.usage.to_anthropic() if self.usage else {"output_tokens": 0}
        delta = {"stop_reason": self.stop_reason or "end_turn", "stop_sequence": None}
        out.append(anthropic_frame({"type": "message_delta", "delta": delta, "usage": usage}))
        out.append(anthropic_frame({"type": "message_stop"}))
        return out
