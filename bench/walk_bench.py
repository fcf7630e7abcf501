"""Edge-side cost of redaction's whole-body walk (issue 11): CPU per prompt
token of parse + shape checks + ``walk_body`` + ``apply_texts`` on chat
bodies of ~280, ~1,100 and ~4,500 tokens (characters / 4), with a tool
schema, ``user`` and ``metadata``; the redactor's own cost is
``bench/redactor_bench.py``.

Usage::

    uv run python -m bench.walk_bench
"""

from __future__ import annotations

import time
from typing import Any

import orjson

from tollway_edge.endpoints.chat_body import parse_chat_body
from tollway_edge.redaction.apply import apply_texts
from tollway_edge.redaction.fields import CHAT_FIELDS
from tollway_edge.redaction.walk import walk_body

PROSE = "Hi, I'm Maria Garcia; call me at +1 415 555 0134 about the invoice for next week. "


def chat_body(tokens: int) -> dict[str, Any]:
    """A chat body of about ``tokens`` prompt tokens (characters / 4)."""
    messages: list[dict[str, Any]] = []
    while sum(len(m["content"]) for m in messages) < tokens * 4:
        role = "user" if len(messages) % 2 == 0 else "assistant"
        messages.append({"role": role, "content": PROSE * 10})
    tool = {
        "type": "function",
        "function": {
            "name": "lookup",
            "description": "Looks things up.",
            "parameters": {"type": "object", "properties": {"q": {"type": "string", "description": "query"}}},
        },
    }
    return {
        "model": "gpt-4o-mini",
        "messages": messages,
        "user": "u-1",
        "metadata": {"a": "b"},
        "tools": [tool],
    }


def measure(tokens: int, calls: int = 200) -> float:
    """Best of 3 rounds: CPU ms per call of parse + walk + apply."""
    raw = orjson.dumps(chat_body(tokens))
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        for _ in range(calls):
            body = parse_chat_body(raw)
            walk = walk_body(body, CHAT_FIELDS)
            answer = {t.id: t.text.replace("Maria Garcia", "<PERSON_1>") for t in walk.texts}
            apply_texts(body, answer, walk.texts)
        best = min(best, (time.process_time() - started) / calls * 1000)
    return best


def main() -> None:
    """Print one Markdown table row per prompt size."""
    print("| prompt tokens (chars/4) | ms/call | ms/token |")
    print("|---|---|---|")
    for tokens in (280, 1100, 4500):
        ms = measure(tokens)
        print(f"| {tokens} | {ms:.3f} | {ms / tokens:.5f} |")


if __name__ == "__main__":
    main()
