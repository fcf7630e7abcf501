"""Cost of a call in integer micro-USD (DESIGN.md "Money").

``cost_micro_usd = ceil(Σ tokens_of_kind × price_of_kind / 1,000,000)``, with
prices in micro-USD per million tokens, rounded up once per call, computed in
integers only (no float ever touches money).
"""

from __future__ import annotations

from tollway_contracts.catalogue import Prices

ONE_MILLION = 1_000_000


def cost_micro_usd(
    prices: Prices,
    *,
    prompt_tokens: int,
    completion_tokens: int,
    cached_tokens: int = 0,
    cache_write_tokens: int = 0,
) -> int:
    """Price one call.

    Args:
        prices: the model's prices, micro-USD per million tokens.
        prompt_tokens: prompt tokens in OpenAI's meaning (includes cached and
            cache-write tokens).
        completion_tokens: completion tokens (includes reasoning tokens).
        cached_tokens: the share of ``prompt_tokens`` read from the prompt cache.
        cache_write_tokens: the share of ``prompt_tokens`` written to the prompt
            cache (priced at ``cache_write_input``, default ``input``).

    Returns:
        The cost in whole micro-USD, rounded up.

    Raises:
        ValueError: a count is negative or ``cached_tokens + cache_write_tokens > prompt_tokens``.
    """
    if prompt_tokens < 0 or completion_tokens < 0 or cached_tokens < 0 or cache_write_tokens < 0:
        raise ValueError("token counts are non-negative")
    if cached_tokens + cache_write_tokens > prompt_tokens:
        raise ValueError(
            "cached_tokens and cache_write_tokens are part of prompt_tokens and cannot exceed it"
        )
    numerator = (
        (prompt_tokens - cached_tokens - cache_write_tokens) * prices.input
        + cached_tokens * prices.cached_input_or_input
        + cache_write_tokens * prices.cache_write_input_or_input
        + completion_tokens * prices.output
    )
    return -(-numerator // ONE_MILLION)
