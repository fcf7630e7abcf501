"""Non-stream answers, both ways (pure).

Anthropic ``Message`` -> OpenAI ``chat.completion`` (an Anthropic provider
answering an OpenAI client), and OpenAI ``chat.completion`` -> Anthropic
``Message`` (an OpenAI provider answering an Anthropic client). Text blocks
join into ``message.content``; each ``tool_use`` block is one entry of
``message.tool_calls``, in order, with its own id; stop reasons and usage map
as :mod:`tollway_edge.translate.usage` says. Thinking blocks are not shown to
an OpenAI client (chat completions have no field for them); their tokens stay
in ``completion_tokens``.
"""

from __future__ import annotations

import json
from typing import Any

from tollway_edge.translate.errors import bad_provider
from tollway_edge.translate.request_to_openai import compact_json
from tollway_edge.translate.usage import TokenUsage, finish_reason_of, stop_reason_of


def anthropic_to_openai_response(
    message: dict[str, Any], *, created: int, model: str | None = None
) -> tuple[dict[str, Any], TokenUsage]:
    """Translate Anthropic's ``Message`` into OpenAI's ``chat.completion``.

    Args:
        message: the provider's JSON body (``type: "message"``).
        created: the answer's Unix time, seconds (the caller's clock: this module does no I/O).
        model: the model name to report; default: the provider's ``model``.

    Returns:
        The ``chat.completion`` dict and the call's usage in OpenAI's meaning (for metering).

    Raises:
        TranslationError: (502) not a message.
    """
    content = message.get("content")
    if message.get("type") != "message" or not isinstance(content, list):
        raise bad_provider("not an Anthropic message")
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            texts.append(str(block.get("text") or ""))
        elif kind == "tool_use":
            arguments = compact_json(block.get("input") or {})
            calls.append(
                {
                    "id": block.get("id"),
                    "type": "function",
                    "function": {"name": block.get("name"), "arguments": arguments},
                }
            )
    usage = TokenUsage.from_anthropic(message.get("usage") or {})
    reply: dict[str, Any] = {
        "role": "assistant",
        "content": "".join(texts) if texts else None,
        "refusal": None,
    }
    if calls:
        reply["tool_calls"] = calls
    completion = {
        "id": message.get("id"),
        "object": "chat.completion",
        "created": created,
        "model": model or message.get("model"),
        "choices": [
            {
                "index": 0,
                "message": reply,
                "logprobs": None,
                "finish_reason": finish_reason_of(message.get("stop_reason")) or "stop",
            }
        ],
        "usage": usage.to_openai(),
    }
    return completion, usage


def openai_to_anthropic_response(
    completion: dict[str, Any], *, model: str | None = None
) -> tuple[dict[str, Any], TokenUsage]:
    """Translate OpenAI's ``chat.completion`` into Anthropic's ``Message``.

    Args:
        completion: the provider's JSON body (its first choice is translated; the request
            translator never asks for more than one).
        model: the model name to report; default: the provider's ``model``.

    Returns:
        The ``Message`` dict and the call's usage in OpenAI's meaning (for metering).

    Raises:
        TranslationError: (502) no choice, or tool call arguments that are not a JSON object
            (Anthropic's ``input`` must be one).
    """
    choices = completion.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise bad_provider("no choice in the chat completion")
    choice = choices[0]
    reply = choice.get("message") or {}
    blocks: list[dict[str, Any]] = []
    stop_reason = stop_reason_of(choice.get("finish_reason")) or "end_turn"
    text = reply.get("content")
    if isinstance(text, list):  # some OpenAI-compatible servers answer text parts
        text = "".join(str(p.get("text") or "") for p in text if isinstance(p, dict))
    if isinstance(text, str) and text:
        blocks.append({"type": "text", "text": text})
    refusal = reply.get("refusal")
    if isinstance(refusal, str) and refusal:
        blocks.append({"type": "text", "text": refusal})
        stop_reason = "refusal"
    for call in reply.get("tool_calls") or []:
        fn = call.get("function") or {}
        blocks.append(
            {
                "type": "tool_use",
                "id": call.get("id"),
                "name": fn.get("name"),
                "input": provider_arguments(fn.get("arguments")),
            }
        )
    usage = TokenUsage.from_openai(completion.get("usage") or {})
    message = {
        "id": completion.get("id"),
        "type": "message",
        "role": "assistant",
        "model": model or completion.get("model"),
        "content": blocks,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage.to_anthropic(),
    }
    return message, usage


def provider_arguments(arguments: Any) -> dict[str, Any]:
    """A provider's tool call ``arguments`` string as an object ("" and None are ``{}``).

    Raises:
        TranslationError: (502) not a JSON object (models can emit broken JSON; an
            Anthropic client cannot receive it as ``input``).
    """
    if arguments is None or arguments == "":
        return {}
    try:
        value = json.loads(arguments) if isinstance(arguments, str) else None
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise bad_provider("a tool call's arguments are not a JSON object")
    return value
