"""Redaction, pure part two: reversible mode puts the original values back
into the answer — plain (:func:`restore_response`) or streamed
(:class:`SSERestorer` over the splitter's events, :class:`ChunkRestorer`,
:class:`StreamRestorer`).

The mapping (placeholder → original value) lives in the call's memory only;
never log or persist it.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from tollway_contracts.redaction import RedactResponse
from tollway_edge.redaction.texts import TextRef, check_answer
from tollway_edge.streaming.sse import SSEEvent


def build_mapping(texts: Sequence[TextRef], answer: RedactResponse) -> dict[str, str]:
    """placeholder -> original value, from the detections and the original texts.

    The first occurrence of a placeholder wins (the redactor gives one
    placeholder to values that differ only in spacing or case). Keep this in
    memory for the call only; never log or persist it.

    Raises:
        RedactionUnavailable: the answer lacks one of the texts.
    """
    check_answer(texts, answer)
    originals = {t.id: t.text for t in texts}
    mapping: dict[str, str] = {}
    for result in answer.results:
        text = originals.get(result.id)
        if text is None:
            continue
        for d in result.detections:
            if d.placeholder not in mapping and 0 <= d.start < d.end <= len(text):
                mapping[d.placeholder] = text[d.start : d.end]
    return mapping


def _pattern(mapping: Mapping[str, str]) -> re.Pattern[str] | None:
    if not mapping:
        return None
    return re.compile("|".join(re.escape(k) for k in sorted(mapping, key=len, reverse=True)))


def _json_escape(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)[1:-1]


def restore_text(text: str, mapping: Mapping[str, str], json_escape: bool = False) -> str:
    """``text`` with every known placeholder replaced by its original value.

    Args:
        json_escape: escape values for the inside of a JSON string literal
            (tool-call arguments).
    """
    pattern = _pattern(mapping)
    if pattern is None or "<" not in text:
        return text
    if json_escape:
        return pattern.sub(lambda m: _json_escape(mapping[m.group()]), text)
    return pattern.sub(lambda m: mapping[m.group()], text)


def restore_response(body: Mapping[str, Any], mapping: Mapping[str, str]) -> dict[str, Any]:
    """A copy of a non-streamed answer with placeholders restored in every
    chat choice's ``message.content`` (string or text parts), ``refusal``,
    ``tool_calls[].function.arguments`` and ``function_call.arguments``; a
    legacy completion choice's ``text``; a Responses ``output`` item's
    content parts (``text``, ``refusal``) and ``arguments``; an Anthropic
    ``Message``'s ``text``/``thinking`` blocks and ``tool_use`` inputs."""
    return restore_response_in_place(copy.deepcopy(dict(body)), mapping)


def restore_response_in_place(body: dict[str, Any], mapping: Mapping[str, str]) -> dict[str, Any]:
    """As :func:`restore_response`, rewriting ``body`` itself (the edge's own
    parse of the answer: no copy) and returning it."""
    if not mapping:
        return body
    for choice in body.get("choices") or []:
        if not isinstance(choice, dict):
            continue
        msg = choice.get("message")
        if isinstance(msg, dict):
            _restore_message(msg, mapping)
        if isinstance(choice.get("text"), str):  # legacy completions
            choice["text"] = restore_text(choice["text"], mapping)
    if body.get("type") == "message" and isinstance(body.get("content"), list):  # Anthropic Messages
        for block in body["content"]:
            if isinstance(block, dict):
                _restore_anthropic_block(block, mapping)
    output = body.get("output")  # the Responses API
    if isinstance(output, list):
        for item in output:
            if isinstance(item, dict):
                _restore_output_item(item, mapping)
    return body


def _restore_values(value: Any, mapping: Mapping[str, str]) -> Any:
    """Every string under ``value`` restored (keys are names: left alone)."""
    if isinstance(value, str):
        return restore_text(value, mapping)
    if isinstance(value, dict):
        return {k: _restore_values(v, mapping) for k, v in value.items()}
    if isinstance(value, list):
        return [_restore_values(v, mapping) for v in value]
    return value


def _restore_anthropic_block(block: dict[str, Any], mapping: Mapping[str, str]) -> None:
    """One content block of an Anthropic ``Message``: ``text``, ``thinking``, a ``tool_use`` ``input``."""
    for key in ("text", "thinking"):
        if isinstance(block.get(key), str):
            block[key] = restore_text(block[key], mapping)
    if "input" in block:
        block["input"] = _restore_values(block["input"], mapping)


def _restore_output_item(item: dict[str, Any], mapping: Mapping[str, str]) -> None:
    """One item of a Responses ``output``: message parts' ``text``/``refusal``,
    a function call's ``arguments`` (JSON-escaped values)."""
    for part in item.get("content") or []:
        if isinstance(part, dict):
            for key in ("text", "refusal"):
                if isinstance(part.get(key), str):
                    part[key] = restore_text(part[key], mapping)
    if isinstance(item.get("arguments"), str):
        item["arguments"] = restore_text(item["arguments"], mapping, json_escape=True)


def _restore_message(msg: dict[str, Any], mapping: Mapping[str, str]) -> None:
    content = msg.get("content")
    if isinstance(content, str):
        msg["content"] = restore_text(content, mapping)
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                part["text"] = restore_text(part["text"], mapping)
    if isinstance(msg.get("refusal"), str):
        msg["refusal"] = restore_text(msg["refusal"], mapping)
    for call in msg.get("tool_calls") or []:
        fn = call.get("function") if isinstance(call, dict) else None
        if isinstance(fn, dict) and isinstance(fn.get("arguments"), str):
            fn["arguments"] = restore_text(fn["arguments"], mapping, json_escape=True)
    fcall = msg.get("function_call")
    if isinstance(fcall, dict) and isinstance(fcall.get("arguments"), str):
        fcall["arguments"] = restore_text(fcall["arguments"], mapping, json_escape=True)


class StreamRestorer:
    """Restores placeholders in one stream of text deltas (one field of one choice).

    A placeholder may be split across deltas. :meth:`feed` holds back only a
    tail that is a proper prefix of a known placeholder (so at most
    ``len(longest placeholder) - 1`` characters), and never text that cannot
    start a placeholder. Call :meth:`flush` at the end of the stream.

    Args:
        mapping: placeholder -> original value (from :func:`build_mapping`).
        json_escape: escape restored values for a JSON string (arguments).
    """

    def __init__(self, mapping: Mapping[str, str], json_escape: bool = False) -> None:
        self._mapping = dict(mapping)
        self._pattern = _pattern(self._mapping)
        self._prefixes = {k[:i] for k in self._mapping for i in range(1, len(k))}
        self._json_escape = json_escape
        self._held = ""

    @property
    def held(self) -> str:
        """Text held back, waiting for the rest of a possible placeholder."""
        return self._held

    def _value(self, placeholder: str) -> str:
        value = self._mapping[placeholder]
        return _json_escape(value) if self._json_escape else value

    def feed(self, delta: str) -> str:
        """The restored text that can be emitted now, given the next delta."""
        if self._pattern is None:
            return delta
        buf = self._held + delta
        self._held = ""
        out: list[str] = []
        i = 0
        while True:
            j = buf.find("<", i)
            if j == -1:
                out.append(buf[i:])
                break
            out.append(buf[i:j])
            m = self._pattern.match(buf, j)
            if m is not None:  # no placeholder is a prefix of another: they all end in ">"
                out.append(self._value(m.group()))
                i = m.end()
                continue
            if buf[j:] in self._prefixes:
                self._held = buf[j:]
                break
            out.append("<")
            i = j + 1
        return "".join(out)

    def flush(self) -> str:
        """Whatever is held back (an unfinished placeholder is emitted as is)."""
        held, self._held = self._held, ""
        return held


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


_ANTHROPIC_DELTA_FIELDS = {
    "text_delta": "text",
    "thinking_delta": "thinking",
    "input_json_delta": "partial_json",
}


def anthropic_event(obj: dict[str, Any]) -> SSEEvent:
    """An Anthropic SSE event (``event: <type>`` + ``data:``) carrying ``obj``."""
    event = SSEEvent(b"event: " + str(obj.get("type")).encode() + b"\ndata: " + orjson.dumps(obj) + b"\n\n")
    event._json = obj  # noqa: SLF001 - already parsed: no re-parse later
    return event


class AnthropicRestorer:
    """Restores placeholders in Anthropic ``content_block_delta`` events of one
    stream: ``text_delta``, ``thinking_delta`` and ``input_json_delta``
    (JSON-escaped) per content block. Held-back text is released in a
    ``content_block_delta`` inserted before the block's ``content_block_stop``.
    """

    def __init__(self, mapping: Mapping[str, str]) -> None:
        self._mapping = dict(mapping)
        self._streams: dict[tuple[int, str], tuple[StreamRestorer, str]] = {}

    def restore(self, obj: dict[str, Any]) -> list[dict[str, Any]]:
        """The events to send for ``obj`` (a delta rewritten in place; a
        ``content_block_stop`` preceded by the block's held-back text)."""
        kind = obj.get("type")
        index = obj.get("index", 0)
        if kind == "content_block_delta" and isinstance(obj.get("delta"), dict):
            delta = obj["delta"]
            field = _ANTHROPIC_DELTA_FIELDS.get(str(delta.get("type")))
            if field is not None and isinstance(delta.get(field), str):
                key = (index, field)
                if key not in self._streams:
                    self._streams[key] = (
                        StreamRestorer(self._mapping, json_escape=field == "partial_json"),
                        delta["type"],
                    )
                delta[field] = self._streams[key][0].feed(delta[field])
            return [obj]
        if kind == "content_block_stop":
            return [*self._release(index), obj]
        return [obj]

    def _release(self, index: Any) -> list[dict[str, Any]]:
        out = []
        for (idx, field), (stream, delta_type) in self._streams.items():
            if idx == index and stream.held:
                delta = {"type": delta_type, field: stream.flush()}
                out.append({"type": "content_block_delta", "index": idx, "delta": delta})
        return out


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
                        out.append(SSEEvent.from_json(tail))
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
                event.replace(self._chunks.restore_chunk(obj))
            self._collect(obj)
            out.append(event)
        return out

    def _restore_anthropic(self, event: SSEEvent, obj: dict[str, Any], out: list[SSEEvent]) -> None:
        if self._anthropic is None:
            sent = [obj]
            out.append(event)
        else:
            sent = self._anthropic.restore(obj)
            for item in sent:  # the original event's bytes are stale once its delta is rewritten
                out.append(anthropic_event(item))
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
