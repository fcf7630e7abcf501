"""Token usage as providers report it (pure), in OpenAI's meaning, and the
edge's estimate for a call whose provider usage never arrived.

The usage event itself is built in one place, ``tollway_edge.call.Call``, as
the contract's one definition (``tollway_contracts.events.UsageEvent``, a
msgspec Struct) and encoded by its strict encoder.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

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


PRIMING_TOKENS = 3
"""OpenAI's chat format: 3 tokens per message and 3 priming the reply."""


def _text_bytes(content: Any) -> int:
    """UTF-8 bytes of a message ``content``: a string, or the ``text`` of its parts."""
    if type(content) is str:
        return len(content.encode())
    if type(content) is list:
        n = 0
        for part in content:
            if type(part) is dict and type(part.get("text")) is str:
                n += len(part["text"].encode())
        return n
    return 0


def _prompt_text_tokens(prompt: Any) -> int:
    """Legacy completions' ``prompt``: ceil(bytes / 4) per string, one per token id."""
    if type(prompt) is str:
        return math.ceil(len(prompt.encode()) / 4)
    if type(prompt) is int:
        return 1
    if type(prompt) is list:
        return sum(_prompt_text_tokens(p) for p in prompt)
    return 0


def estimate_prompt_tokens(body: dict[str, Any]) -> int:
    """The edge's estimate of a request's prompt tokens (tokens), for billing a
    call that ended before the provider's usage arrived (``usage_estimated``).

    The rule (documented in the edge README, "Early ends"):
    - chat (``messages``): ceil(UTF-8 bytes of the message texts / 4) + 3 per
      message + 3 (reply priming). Texts: string ``content``, the ``text`` of
      content parts, each tool call's function ``name`` and ``arguments``;
      the JSON of ``tools``/``functions`` counts as text.
    - legacy completions (``prompt``): ceil(bytes / 4) per string, one per
      token id; the same for ``suffix``.
    - otherwise (``input`` of embeddings/responses): ceil(bytes / 4) of its
      strings, one per token id.

    Stated bound: about 4 bytes per token is OpenAI's rule of thumb for English
    text, so the estimate is typically within ±25 % of the provider's count
    there (far looser for code, CJK or images, which count only their text).
    Against the fake provider (libs/testing, ``count_prompt_tokens``: the same
    rule without the 3 priming tokens) it is exactly 3 tokens above. Unlike
    admission's bound (``admission.bounds``, about 4× the real count) it is
    an estimate, not an upper bound.
    """
    messages = body.get("messages")
    if type(messages) is list:
        n = 0
        for m in messages:
            if type(m) is not dict:
                continue
            n += _text_bytes(m.get("content"))
            calls = m.get("tool_calls")
            if type(calls) is list:
                for c in calls:
                    fn = c.get("function") if type(c) is dict else None
                    if type(fn) is dict:
                        for k in ("name", "arguments"):
                            if type(fn.get(k)) is str:
                                n += len(fn[k].encode())
        for extra in ("tools", "functions"):
            if body.get(extra):
                n += len(orjson.dumps(body[extra]))
        return math.ceil(n / 4) + PRIMING_TOKENS * len(messages) + PRIMING_TOKENS
    if "prompt" in body:
        return _prompt_text_tokens(body["prompt"]) + _prompt_text_tokens(body.get("suffix"))
    return _prompt_text_tokens(body.get("input"))


def estimated_tokens(prompt_tokens: int, completion_tokens: int) -> Tokens:
    """Tokens of an early-ended call: the prompt estimate and the completion
    tokens counted from the stream (one per content delta, ``admission.bounds``)."""
    return Tokens(prompt_tokens, completion_tokens, 0, 0, prompt_tokens + completion_tokens)


def _answer_text_bytes(item: Any) -> int:
    """UTF-8 bytes of the generated text in one choice / output item / content block."""
    if type(item) is not dict:
        return 0
    n = 0
    for k in ("text", "refusal", "arguments"):  # legacy completions, refusals, Responses function calls
        if type(item.get(k)) is str:
            n += len(item[k].encode())
    if "input" in item and item.get("type") == "tool_use":  # Anthropic's tool call
        n += len(orjson.dumps(item["input"]))
    message = item.get("message")
    if type(message) is dict:  # chat
        n += _text_bytes(message.get("content"))
        if type(message.get("refusal")) is str:
            n += len(message["refusal"].encode())
        calls = message.get("tool_calls")
        if type(calls) is list:
            for c in calls:
                fn = c.get("function") if type(c) is dict else None
                if type(fn) is dict:
                    n += sum(len(fn[k].encode()) for k in ("name", "arguments") if type(fn.get(k)) is str)
    content = item.get("content")
    if type(content) is list:  # Responses' message output item
        n += sum(_answer_text_bytes(part) for part in content)
    return n


def estimate_answer_tokens(answer: dict[str, Any]) -> int | None:
    """The edge's estimate of a non-streamed answer's completion tokens (tokens), for a
    200 whose provider reported no usage (``usage_estimated``): ceil(UTF-8 bytes of the
    generated text / 4), the prompt estimator's rule (:func:`estimate_prompt_tokens`:
    about ±25 % for English text). Text: chat's ``choices[].message`` content, refusal
    and tool calls' name and arguments; legacy completions' ``choices[].text``;
    Responses' ``output`` items (text parts, function call arguments); Anthropic's
    ``content`` blocks (text, tool input JSON). None when the answer holds no
    generated text list (embeddings, moderations: nothing to estimate).
    """
    for key in ("choices", "output", "content"):
        items = answer.get(key)
        if type(items) is list:
            return math.ceil(sum(_answer_text_bytes(i) for i in items) / 4)
    return None


def estimated_answer(answer: dict[str, Any], prompt_estimate: Callable[[], int]) -> Tokens | None:
    """Tokens of a non-streamed 200 without the provider's usage: the prompt by
    ``prompt_estimate`` (:func:`estimate_prompt_tokens` of the body the provider got),
    the completion by :func:`estimate_answer_tokens`; None when nothing can be estimated."""
    completion = estimate_answer_tokens(answer)
    return None if completion is None else estimated_tokens(prompt_estimate(), completion)


def responses_usage(usage: Any) -> Tokens | None:
    """A Responses ``usage`` object in OpenAI chat's meaning, or None:
    prompt_tokens = ``input_tokens`` (cached_tokens =
    ``input_tokens_details.cached_tokens``), completion_tokens =
    ``output_tokens`` (reasoning_tokens =
    ``output_tokens_details.reasoning_tokens``). Cache writes: OpenAI's
    Responses usage has no such field (its prompt caching charges no write),
    so cache_write_tokens is 0 — unless a provider reports
    ``input_tokens_details.cache_write_tokens``, read as chat's
    ``prompt_tokens_details.cache_write_tokens`` is (:func:`extract_usage`)."""
    if type(usage) is not dict:
        return None
    return extract_usage(
        {
            "prompt_tokens": usage.get("input_tokens"),
            "completion_tokens": usage.get("output_tokens"),
            "total_tokens": usage.get("total_tokens"),
            "prompt_tokens_details": usage.get("input_tokens_details"),
            "completion_tokens_details": usage.get("output_tokens_details"),
        }
    )
