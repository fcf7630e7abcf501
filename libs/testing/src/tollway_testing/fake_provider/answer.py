"""What to answer, shared by every generating API: the words, their chunks, the timing, tool calls.

The rules (README): completion tokens = ``x-fake-completion-tokens``, else the
``n<N>``/``c<N>`` of a ``fake-stream`` model name, else a model name ending
in ``tokens-<N>``, else the configuration; echo replaces the words with the
last user text; then capped by the request's limit (finish ``length``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tollway_testing.fake_provider.core import Call, number_or
from tollway_testing.fake_provider.counting import (
    MODEL_TOKENS_RE,
    ModelShape,
    completion_words,
    group_words,
    parse_model_shape,
    tool_arguments,
    tool_call_tokens,
)


@dataclass(slots=True)
class TextAnswer:
    """A text completion: its words, stream groups and timing.

    Attributes:
        words: the completion, one word per token.
        tokens: completion tokens (= len(words)).
        truncated: the request's limit cut it (finish ``length``/``max_tokens``).
        groups: the stream content chunks' texts (concatenate to the text).
        ttft: seconds before the first byte.
        interval: seconds between stream content chunks.
        non_stream_delay: seconds a non-stream answer waits (ttft + interval x (chunks - 1)).
    """

    words: list[str]
    tokens: int
    truncated: bool
    groups: list[str]
    ttft: float
    interval: float
    non_stream_delay: float

    @property
    def text(self) -> str:
        """The whole completion text."""
        return " ".join(self.words)


def model_shape(call: Call, model: str) -> ModelShape:
    """The stream shape of the model name; a 400 (param ``model``) when it is malformed."""
    try:
        return parse_model_shape(model) or ModelShape()
    except ValueError as exc:
        call.reject(400, str(exc), "invalid_request_error", "model")


def text_answer(
    call: Call, model: str, limit: Any, echo_text: str | None, stream: bool, min_one_chunk: bool = True
) -> TextAnswer:
    """Decide the completion for one request (rules in the module docstring)."""
    cfg = call.config
    shape = model_shape(call, model)
    n = cfg.completion_tokens
    m = MODEL_TOKENS_RE.search(model)
    if m:
        n = int(m.group(1))
    if shape.completion_tokens is not None:
        n = shape.completion_tokens
    n = int(call.header_number("x-fake-completion-tokens", n))
    echo_words: list[str] | None = None
    if echo_text is not None and (cfg.echo or call.request.headers.get("x-fake-echo") == "1"):
        echo_words = echo_text.split()
        n = len(echo_words)
    truncated = False
    if isinstance(limit, int) and not isinstance(limit, bool) and limit < n:
        n, truncated = max(limit, 0), True
    ttft = call.header_number("x-fake-ttft-ms", number_or(shape.ttft_ms, cfg.ttft_ms)) / 1000
    interval = (
        call.header_number(
            "x-fake-chunk-interval-ms", number_or(shape.chunk_interval_ms, cfg.chunk_interval_ms)
        )
        / 1000
    )
    words = completion_words(n) if echo_words is None else echo_words[:n]
    if stream:
        n_chunks = int(call.header_number("x-fake-chunks", number_or(shape.chunks, len(words))))
        n_chunks = max(0, min(n_chunks, len(words))) if words else 0
        if words and n_chunks == 0 and min_one_chunk:
            n_chunks = 1
    else:
        asked = call.header_number("x-fake-chunks", number_or(shape.chunks, len(words) or 1))
        n_chunks = max(1, min(len(words), int(asked)))
    groups = group_words(words, n_chunks) if stream else []
    delay = ttft + interval * (max(n_chunks, 1) - 1)
    return TextAnswer(words, len(words), truncated, groups, ttft, interval, delay)


@dataclass(slots=True)
class ToolCall:
    """One deterministic tool call: the tool's name, its JSON arguments, its tokens."""

    name: str
    arguments: str
    tokens: int


def tool_calls(tools: Any, choice: Any, parallel: bool, after_tool_result: bool) -> list[ToolCall]:
    """The tool calls to answer with, or [] for a text answer.

    ``tools``: ``[(name, input schema)]``; ``choice``: ``"none"``, ``"auto"``,
    ``"any"``/``"required"``, or the name of a forced tool. With tools and a
    choice other than ``none``, and unless the conversation's last message is
    a tool result: one call per tool (only the first when not ``parallel``), or
    only the forced tool. Arguments follow each tool's schema (counting rules).
    """
    if not tools or choice == "none" or after_tool_result:
        return []
    chosen = list(tools)
    if choice not in (None, "auto", "any", "required"):
        chosen = [t for t in tools if t[0] == choice][:1]
    elif not parallel:
        chosen = chosen[:1]
    out = []
    for name, schema in chosen:
        args = tool_arguments(schema)
        out.append(ToolCall(name, args, tool_call_tokens(args)))
    return out
