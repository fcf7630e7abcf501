"""Token usage as providers report it (pure), in OpenAI's meaning.

The usage event itself is built in one place, ``tollway_edge.call.Call``, as
the contract's one definition (``tollway_contracts.events.UsageEvent``, a
msgspec Struct) and encoded by its strict encoder.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tollway_contracts.catalogue import Prices
from tollway_contracts.pricing import cost_micro_usd
from tollway_edge.translate.usage import TokenUsage


@dataclass(slots=True)
class Tokens:
    """Token counts in OpenAI's meaning (prompt includes cached and cache
    writes; completion includes reasoning).

    ``cache_write_tokens``: prompt tokens written to the provider's prompt
    cache (Anthropic's ``cache_creation_input_tokens``; OpenAI's
    ``prompt_tokens_details.cache_write_tokens``), part of ``prompt_tokens``
    and priced at the catalogue's ``cache_write_input`` (default ``input``).
    """

    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    reasoning_tokens: int
    total_tokens: int
    cache_write_tokens: int = 0

    def cost(self, prices: Prices) -> int:
        """Cost in micro-USD (tollway_contracts.pricing), rounded up per call."""
        cached = min(self.cached_tokens, self.prompt_tokens)
        return cost_micro_usd(
            prices,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            cached_tokens=cached,
            cache_write_tokens=min(self.cache_write_tokens, self.prompt_tokens - cached),
        )


def _count(value: Any) -> int:
    return value if type(value) is int and value >= 0 else 0


def extract_usage(usage: Any) -> Tokens | None:
    """Read an OpenAI ``usage`` object.

    ``cached_tokens`` comes from ``prompt_tokens_details.cached_tokens`` and
    ``reasoning_tokens`` from ``completion_tokens_details.reasoning_tokens``;
    missing or malformed counts read as 0.

    Returns:
        The tokens, or None when ``usage`` is not an object.
    """
    if type(usage) is not dict:
        return None
    prompt = _count(usage.get("prompt_tokens"))
    completion = _count(usage.get("completion_tokens"))
    pdetails = usage.get("prompt_tokens_details")
    cdetails = usage.get("completion_tokens_details")
    cached = _count(pdetails.get("cached_tokens")) if type(pdetails) is dict else 0
    written = _count(pdetails.get("cache_write_tokens")) if type(pdetails) is dict else 0
    reasoning = _count(cdetails.get("reasoning_tokens")) if type(cdetails) is dict else 0
    total = usage.get("total_tokens")
    return Tokens(
        prompt,
        completion,
        cached,
        reasoning,
        total if type(total) is int and total >= 0 else prompt + completion,
        written,
    )


def tokens_of(usage: TokenUsage) -> Tokens:
    """The edge's :class:`Tokens` of a translated call's usage (``translate.TokenUsage``,
    already in OpenAI's meaning: Anthropic's ``input_tokens`` + ``cache_read_input_tokens``
    + ``cache_creation_input_tokens`` = ``prompt_tokens``; ``cache_read_input_tokens`` =
    ``cached_tokens``; ``cache_creation_input_tokens`` = ``cache_write_tokens``;
    ``output_tokens`` = ``completion_tokens``)."""
    return Tokens(
        usage.prompt_tokens,
        usage.completion_tokens,
        usage.cached_tokens,
        usage.reasoning_tokens or 0,
        usage.prompt_tokens + usage.completion_tokens,
        usage.cache_write_tokens,
    )
