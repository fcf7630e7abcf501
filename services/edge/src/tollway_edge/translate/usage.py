"""Usage and stop reasons, mapped once between the two APIs.

Tokens keep OpenAI's meaning (DESIGN.md, usage event): ``prompt_tokens``
includes cached tokens. Anthropic counts the three kinds of input apart
("Total input tokens in a request is the summation of ``input_tokens``,
``cache_creation_input_tokens``, and ``cache_read_input_tokens``" —
Anthropic's ``Usage`` type), so:

=========================  ===================================================
OpenAI (and usage event)   Anthropic
=========================  ===================================================
prompt_tokens              input_tokens + cache_read_input_tokens + cache_creation_input_tokens
cached_tokens              cache_read_input_tokens
cache_write_tokens         cache_creation_input_tokens
completion_tokens          output_tokens (thinking tokens included, as OpenAI's reasoning_tokens are)
=========================  ===================================================

Backwards, for an OpenAI provider answering an Anthropic client:
``input_tokens = prompt_tokens - cached_tokens - cache_write_tokens`` (never
below 0), ``cache_read_input_tokens = cached_tokens``,
``cache_creation_input_tokens = cache_write_tokens`` (OpenAI's
``prompt_tokens_details.cache_write_tokens``, 0 when absent).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Anthropic stop_reason -> OpenAI finish_reason (Anthropic: "Handling stop reasons";
# OpenAI: ChatCompletion choice.finish_reason). pause_turn (a server tool's long turn)
# has no OpenAI counterpart: the turn ended, so "stop". refusal -> content_filter
# (OpenAI's "content was omitted due to a flag from our content filters").
FINISH_REASON_OF: dict[str, str] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}

# OpenAI finish_reason -> Anthropic stop_reason. OpenAI does not say whether "stop"
# came from a stop sequence, so it is end_turn (and stop_sequence stays null).
STOP_REASON_OF: dict[str, str] = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "refusal",
}


def finish_reason_of(stop_reason: str | None) -> str | None:
    """OpenAI's ``finish_reason`` for Anthropic's ``stop_reason`` (unknown ones: ``stop``)."""
    if stop_reason is None:
        return None
    return FINISH_REASON_OF.get(stop_reason, "stop")


def stop_reason_of(finish_reason: str | None) -> str | None:
    """Anthropic's ``stop_reason`` for OpenAI's ``finish_reason`` (unknown ones: ``end_turn``)."""
    if finish_reason is None:
        return None
    return STOP_REASON_OF.get(finish_reason, "end_turn")


def _int(obj: dict[str, Any] | None, key: str) -> int:
    if not obj:
        return 0
    v = obj.get(key)
    return v if type(v) is int and v > 0 else 0


@dataclass(frozen=True, slots=True)
class TokenUsage:
    """One call's tokens in OpenAI's meaning (all counts are tokens, ``>= 0``).

    Attributes:
        prompt_tokens: every input token, cached or not (includes the two below).
        completion_tokens: every output token (reasoning/thinking included).
        cached_tokens: input tokens read from the provider's prompt cache.
        cache_write_tokens: input tokens written to the provider's prompt cache.
        reasoning_tokens: the part of ``completion_tokens`` spent reasoning, when reported.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int | None = None

    @classmethod
    def from_anthropic(cls, usage: dict[str, Any]) -> TokenUsage:
        """From Anthropic's ``usage`` (a ``Message``'s, or a stream's accumulated one)."""
        read = _int(usage, "cache_read_input_tokens")
        write = _int(usage, "cache_creation_input_tokens")
        return cls(
            prompt_tokens=_int(usage, "input_tokens") + read + write,
            completion_tokens=_int(usage, "output_tokens"),
            cached_tokens=read,
            cache_write_tokens=write,
        )

    @classmethod
    def from_openai(cls, usage: dict[str, Any]) -> TokenUsage:
        """From OpenAI's ``usage`` (``CompletionUsage``)."""
        details = usage.get("prompt_tokens_details")
        out_details = usage.get("completion_tokens_details")
        reasoning = out_details.get("reasoning_tokens") if isinstance(out_details, dict) else None
        return cls(
            prompt_tokens=_int(usage, "prompt_tokens"),
            completion_tokens=_int(usage, "completion_tokens"),
            cached_tokens=_int(details if isinstance(details, dict) else None, "cached_tokens"),
            cache_write_tokens=_int(details if isinstance(details, dict) else None, "cache_write_tokens"),
            reasoning_tokens=reasoning if type(reasoning) is int else None,
        )

    def to_openai(self) -> dict[str, Any]:
        """OpenAI's ``usage`` object (``CompletionUsage``; ``cache_write_tokens`` in
        ``prompt_tokens_details`` as OpenAI's own schema has it)."""
        out: dict[str, Any] = {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
            "prompt_tokens_details": {
                "cached_tokens": self.cached_tokens,
                "cache_write_tokens": self.cache_write_tokens,
            },
        }
        if self.reasoning_tokens is not None:
            out["completion_tokens_details"] = {"reasoning_tokens": self.reasoning_tokens}
        return out

    def to_anthropic(self) -> dict[str, Any]:
        """Anthropic's ``usage`` object (``Usage``), the three input kinds apart."""
        uncached = self.prompt_tokens - self.cached_tokens - self.cache_write_tokens
        return {
            "input_tokens": max(uncached, 0),
            "cache_creation_input_tokens": self.cache_write_tokens,
            "cache_read_input_tokens": self.cached_tokens,
            "output_tokens": self.completion_tokens,
        }
