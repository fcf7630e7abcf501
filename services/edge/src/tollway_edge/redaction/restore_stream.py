"""Reversible mode, streamed: :class:`SSERestorer` rewrites the splitter's
events as the relay forwards them — OpenAI chat and legacy completion chunks
through :class:`ChunkRestorer`, Anthropic's content-block deltas through
``restore_anthropic`` — over the core
:class:`~tollway_edge.redaction.restore.StreamRestorer`.

The mapping lives in the call's memory only; never log or persist it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tollway_edge.redaction.restore import StreamRestorer
from tollway_edge.redaction.restore_anthropic import AnthropicRestorer, anthropic_event
from tollway_edge.streaming.sse import SSEEvent


class ChunkRestorer:
    """Restores placeholders in parsed ``chat.completion.chunk`` objects of one
    stream, and in legacy ``text_completion`` chunks (``choices[].text``).

    Keeps one :class:`StreamRestorer` per choice and field (``content``,
    ``refusal``, each tool call's ``arguments``, a legacy choice's ``text``). Held-back text is released
    in the chunk that carries the choice's ``finish_reason``; call
    :meth:`flush` at ``[DONE]`` for anything still held (returns a final
    chunk or None).
    """

    def __init__(self, mapping: Mapping[str, str]) -> None:
        self._mapping = dict(mapping)
        self._streams: dict[tuple[Any, ...], StreamRestorer] = {}
        self._template: dict[str, Any] | None = None

    def _stream(self, key: tuple[Any, ...], json_escape: bool) -> StreamRestorer:
        if key not in self._streams:
            self._streams[key] = StreamRestorer(self._mapping, json_escape=json_escape)
        return self._streams[key]

    def restore_chunk(self, chunk: dict[str, Any]) -> dict[str, Any]:
        """The chunk with restored deltas (mutated in place and returned)."""
        if not self._mapping:
            return chunk
        if self._template is None:
            self._template = {k: chunk[k] for k in ("id", "object", "created", "model") if k in chunk}
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict):
                continue
            idx = choice.get("index", 0)
            if isinstance(choice.get("text"), str):  # legacy completions: text on the choice
                choice["text"] = self._stream((idx, "text"), False).feed(choice["text"])
            delta = choice.get("delta")
            if not isinstance(delta, dict):
                delta = {}
            for fieldname in ("content", "refusal"):
                if isinstance(delta.get(fieldname), str):
                    delta[fieldname] = self._stream((idx, fieldname), False).feed(delta[fieldname])
            for call in delta.get("tool_calls") or []:
                fn = call.get("function") if isinstance(call, dict) else None
                if isinstance(fn, dict) and isinstance(fn.get("arguments"), str):
                    key = (idx, "tool_call", call.get("index", 0))
                    fn["arguments"] = self._stream(key, True).feed(fn["arguments"])
            if choice.get("finish_reason") is not None:
                self._release(idx, delta, choice)
                if "text" not in choice or delta:
                    choice["delta"] = delta
        return chunk

    def _release(self, idx: int, delta: dict[str, Any], choice: dict[str, Any]) -> None:
        for key, stream in list(self._streams.items()):
            if key[0] != idx or not stream.held:
                continue
            rest = stream.flush()
            if key[1] == "text":
                choice["text"] = (choice.get("text") or "") + rest
            elif key[1] in ("content", "refusal"):
                delta[key[1]] = (delta.get(key[1]) or "") + rest
            else:
                calls = delta.setdefault("tool_calls", [])
                calls.append({"index": key[2], "function": {"arguments": rest}})

    def flush(self) -> dict[str, Any] | None:
        """A final chunk carrying any held-back text, or None."""
        choices = []
        for idx in sorted({k[0] for k, s in self._streams.items() if s.held}):
            delta: dict[str, Any] = {}
            choice: dict[str, Any] = {"index": idx}
            self._release(idx, delta, choice)
            if delta or "text" not in choice:
                choice["delta"] = delta
            choices.append({**choice, "finish_reason": None})
        if not choices:
            return None
        return {**(self._template or {"object": "chat.completion.chunk"}), "choices": choices}


class SSERestorer:
    """Restores placeholders in the splitter's events as the relay forwards them
    (OpenAI chunks, legacy completion chunks, Anthropic content-block deltas).

    Args:
        mapping: placeholder -> original value; empty = pass events through
            untouched (the answer text is still collected for priming).

    Attributes:
        answer: the content of choice 0 as the client received it.
    """

    __slots__ = ("_chunks", "_anthropic", "_answer")

    def __init__(self, mapping: dict[str, str]) -> None:
        self._chunks = ChunkRestorer(mapping) if mapping else None
        self._anthropic = AnthropicRestorer(mapping) if mapping else None
        self._answer: list[str] = []

    @property
    def answer(self) -> str:
        """The restored content of choice 0 so far."""
        return "".join(self._answer)

    def restore(self, events: list[SSEEvent]) -> list[SSEEvent]:
        """Events with restored deltas (same events, rewritten in place), plus
        one chunk carrying held-back text just before ``[DONE]``."""
        out: list[SSEEvent] = []
        for event in events:
            if event.is_done:
                if self._chunks is not None:
                    tail = self._chunks.flush()
                    if tail is not None:
                        self._collect(tail)
                        held = SSEEvent.from_json(tail)
                        held.count_as(0)  # its text was counted in the events that brought it
                        out.append(held)
                out.append(event)
                continue
            obj = event.json()
            if type(obj) is dict and obj.get("type") in ("content_block_delta", "content_block_stop"):
                self._restore_anthropic(event, obj, out)  # Anthropic's events (/v1/messages)
                continue
            if type(obj) is not dict or not obj.get("choices"):
                out.append(event)
                continue
            if self._chunks is not None:
                tokens = (
                    event.completion_tokens
                )  # what the provider produced, whatever restoration holds back
                event.replace(self._chunks.restore_chunk(obj))
                event.count_as(tokens)
            self._collect(obj)
            out.append(event)
        return out

    def _restore_anthropic(self, event: SSEEvent, obj: dict[str, Any], out: list[SSEEvent]) -> None:
        if self._anthropic is None:
            sent = [obj]
            out.append(event)
        else:
            sent = self._anthropic.restore(obj)
            tokens = event.completion_tokens
            for item in sent:  # the original event's bytes are stale once its delta is rewritten
                rewritten = anthropic_event(item)
                rewritten.count_as(tokens if item is obj else 0)  # released text was counted where it came
                out.append(rewritten)
        for item in sent:
            delta = item.get("delta")
            if item.get("index", 0) == 0 and isinstance(delta, dict) and isinstance(delta.get("text"), str):
                self._answer.append(delta["text"])

    def _collect(self, obj: dict[str, Any]) -> None:
        for choice in obj.get("choices") or []:
            if isinstance(choice, dict) and choice.get("index", 0) == 0:
                delta = choice.get("delta")
                if isinstance(delta, dict) and isinstance(delta.get("content"), str):
                    self._answer.append(delta["content"])
