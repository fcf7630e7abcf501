"""Redaction, pure part two: reversible mode puts the original values back
into the answer — plain (:func:`restore_response`) — and the core of the
streamed restorers (:class:`StreamRestorer`, one stream of text deltas), which
the wire formats' restorers build on (``restore_stream``: :class:`SSERestorer`
over the splitter's events, ``ChunkRestorer``; ``restore_anthropic``).

The mapping (placeholder → original value) lives in the call's memory only;
never log or persist it.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from tollway_contracts.redaction import RedactResponse
from tollway_edge.redaction.texts import TextRef, check_answer


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
