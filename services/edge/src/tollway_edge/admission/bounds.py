"""Token bounds for admission (pure): what a call may cost at most, and how
many completion tokens a relayed stream has carried so far.

No tokenizer runs at the edge (PLATFORM-NOTES: tiktoken needs a download and
is unusable offline; it would also cost CPU on every call). Instead:

**Prompt bound** = UTF-8 bytes of the JSON encoding of ``messages`` (and of
``tools``/``functions`` when present) + 3 tokens of reply priming.

Why it is an upper bound: the byte-level BPE tokenizers of OpenAI-compatible
models map every token to at least one byte of the text, so a text never has
more tokens than UTF-8 bytes. JSON-encoding a string never shortens it
(escapes only add bytes). OpenAI's chat format adds 3 tokens per message (4
with a ``name``) plus 3 for the reply priming; every message's JSON carries
at least ``{"role":"x","content":...}`` (>= 20 bytes of syntax) beyond its
text bytes, which covers the per-message overhead. Known gap: image parts
are counted by the bytes of their URL, which is below what some models charge
for an image.

**Output bound** = ``max_completion_tokens``, else ``max_tokens``, else the
catalogue model's ``max_output_tokens``; never above the model's cap.

**Stream count**: one completion token per relayed content delta (an SSE
event carrying a non-empty ``"content":"..."``, ``"arguments":"..."`` or
(legacy completions) ``"text":"..."`` string). OpenAI-compatible providers send one token per delta; this is an
estimate used to extend the reservation as a stream flows and to bill a
stream the edge cuts; a stream that ends normally is billed from the
provider's own usage chunk. Counted once per event by
``tollway_edge.streaming.sse.SSEEvent.completion_tokens``.
"""

from __future__ import annotations

from typing import Any

import orjson

REPLY_PRIMING_TOKENS = 3


def prompt_token_bound(body: dict[str, Any]) -> int:
    """Upper bound on the prompt tokens of a chat body (tokens; see module doc).

    Args:
        body: the validated chat completion body (``messages`` is a list).
    """
    n = len(orjson.dumps(body.get("messages") or []))
    for extra in ("tools", "functions"):
        value = body.get(extra)
        if value:
            n += len(orjson.dumps(value))
    return n + REPLY_PRIMING_TOKENS


def output_token_bound(body: dict[str, Any], model_cap: int) -> int:
    """Completion tokens the call may produce: the request's cap, else the model's (tokens)."""
    for name in ("max_completion_tokens", "max_tokens"):
        value = body.get(name)
        if type(value) is int and value >= 0:
            return min(value, model_cap)
    return model_cap
