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


@dataclass(slots=True)
class Tokens:
    """Token counts in OpenAI's meaning (prompt includes cached; completion
    includes reasoning)."""

    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    reasoning_tokens: int
    total_tokens: int

    def cost(self, prices: Prices) -> int:
        """Cost in micro-USD (tollway_contracts.pricing), rounded up per call."""
        return cost_micro_usd(
            prices,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            cached_tokens=min(self.cached_tokens, self.prompt_tokens),
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
    reasoning = _count(cdetails.get("reasoning_tokens")) if type(cdetails) is dict else 0
    total = usage.get("total_tokens")
    return Tokens(
        prompt,
        completion,
        cached,
        reasoning,
        total if type(total) is int and total >= 0 else prompt + completion,
    )
