"""OpenAI chat completion request -> Anthropic Messages request (pure).

Sources: OpenAI's ``CreateChatCompletionRequest`` (specs/openai-openapi.yaml)
and Anthropic's ``MessageCreateParams`` (the ``anthropic`` SDK's types;
Messages API reference). Anything the Messages API cannot honour is refused
with a :class:`TranslationError` naming the field, never silently changed;
fields that change nothing in the answer are dropped (see ``DROPPED``).
"""

from __future__ import annotations

import json
from typing import Any

from tollway_edge.translate.content import (
    document_of_file_part,
    image_source_of_url,
    text_blocks,
    text_of_parts,
)
from tollway_edge.translate.errors import invalid, unsupported

# Anthropic requires max_tokens. When the client gives none, the caller's value (the
# catalogue model's max_output_tokens) is used, else this table of the models' documented
# output caps (Anthropic's "Models overview"), longest prefix first, else FALLBACK.
DEFAULT_MAX_TOKENS: tuple[tuple[str, int], ...] = (
    ("claude-3-5-haiku", 8192),
    ("claude-3-5-sonnet", 8192),
    ("claude-3-7-sonnet", 64000),
    ("claude-3-haiku", 4096),
    ("claude-3-opus", 4096),
    ("claude-opus-4-5", 64000),
    ("claude-opus-4-1", 32000),
    ("claude-opus-4-0", 32000),
    ("claude-opus-4-2", 32000),
    ("claude-opus-4", 32000),
    ("claude-sonnet-4", 64000),
    ("claude-haiku-4", 64000),
)
FALLBACK_MAX_TOKENS = 4096

# The Messages API version (the ``anthropic-version`` header the adapter sends) decides
# whether sampling settings may be sent: from 2026-10-21 on, ``temperature``, ``top_p`` and
# ``top_k`` are refused at every value ("Extra inputs are not permitted"; the ``anthropic``
# SDK 2.x no longer has them), so they are dropped; up to it they are forwarded.
ANTHROPIC_VERSION = "2023-06-01"
SAMPLING_REMOVED_IN = "2026-10-21"

# Fields with no effect on the answer's content, or consumed by the gateway itself.
DROPPED = frozenset(
    {
        "model",
        "metadata",  # OpenAI's metadata is for stored completions only
        "seed",  # best-effort determinism; Anthropic has none
        "service_tier",
        "prompt_cache_key",
        "prompt_cache_retention",
        "prompt_cache_options",
        "stream_options",  # include_usage: read by the stream translator
    }
)

# Fields accepted only at their neutral value (None is always neutral).
NEUTRAL: dict[str, Any] = {
    "n": 1,
    "logprobs": False,
    "top_logprobs": 0,
    "frequency_penalty": 0,
    "presence_penalty": 0,
    "logit_bias": {},
    "modalities": ["text"],
    "response_format": {"type": "text"},
    "store": False,
}

HANDLED = frozenset(
    {
        "messages",
        "max_tokens",
        "max_completion_tokens",
        "stop",
        "temperature",
        "top_p",
        "stream",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "user",
        "safety_identifier",
    }
)

_WHY = {
    "n": "Anthropic returns one choice per call",
    "logprobs": "Anthropic returns no log probabilities",
    "top_logprobs": "Anthropic returns no log probabilities",
    "frequency_penalty": "Anthropic has no frequency penalty",
    "presence_penalty": "Anthropic has no presence penalty",
    "logit_bias": "Anthropic has no logit bias",
    "modalities": "only text output is translated",
    "response_format": "only {'type': 'text'} is translated (JSON modes are not)",
    "store": "stored completions are OpenAI's",
}


def documented_max_tokens(model: str) -> int:
    """The documented output cap of an Anthropic model (tokens), else ``FALLBACK_MAX_TOKENS``."""
    for prefix, cap in DEFAULT_MAX_TOKENS:
        if model.startswith(prefix):
            return cap
    return FALLBACK_MAX_TOKENS


def openai_to_anthropic_request(
    body: dict[str, Any],
    *,
    model: str | None = None,
    default_max_tokens: int | None = None,
    anthropic_version: str = ANTHROPIC_VERSION,
) -> dict[str, Any]:
    """Translate an OpenAI chat completion request into an Anthropic Messages request.

    Args:
        body: the client's JSON body (``CreateChatCompletionRequest``).
        model: the upstream model name (the route's); default: ``body["model"]``.
        default_max_tokens: ``max_tokens`` (tokens) when the client set neither
            ``max_completion_tokens`` nor ``max_tokens``; default: :func:`documented_max_tokens`.
        anthropic_version: the ``anthropic-version`` the request will be sent with (ISO date);
            from ``SAMPLING_REMOVED_IN`` on, ``temperature`` and ``top_p`` are dropped.

    Returns:
        A ``MessageCreateParams`` dict: ``model``, ``max_tokens``, ``messages`` and, when
        given, ``system``, ``tools``, ``tool_choice``, ``stop_sequences``, ``temperature``,
        ``top_p``, ``stream``, ``metadata``.

    Raises:
        TranslationError: (400) a field Anthropic cannot honour (named in ``param``), or a
            malformed one (tool call arguments that are not a JSON object...).
    """
    for key, value in body.items():
        if value is None or key in HANDLED or key in DROPPED:
            continue
        if key in NEUTRAL:
            if value != NEUTRAL[key]:
                raise unsupported(key, _WHY[key])
            continue
        raise unsupported(key, "this OpenAI field has no Anthropic Messages equivalent")
    upstream = model or body.get("model")
    if not isinstance(upstream, str):
        raise invalid("model", "must be a string")
    out: dict[str, Any] = {"model": upstream, "max_tokens": _max_tokens(body, upstream, default_max_tokens)}
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise invalid("messages", "must be a non-empty list")
    system, turns = _messages(messages)
    if system:
        out["system"] = system[0]["text"] if len(system) == 1 else system
    out["messages"] = turns
    stop = body.get("stop")
    if stop is not None:
        out["stop_sequences"] = [stop] if isinstance(stop, str) else list(stop)
    if anthropic_version < SAMPLING_REMOVED_IN:
        temperature = body.get("temperature")
        if temperature is not None and (
            not isinstance(temperature, int | float) or not 0 <= temperature <= 1
        ):
            raise unsupported("temperature", "Anthropic accepts a temperature from 0 to 1")
        for key in ("temperature", "top_p"):
            if body.get(key) is not None:
                out[key] = body[key]
    if body.get("stream") is not None:
        out["stream"] = bool(body["stream"])
    user = body.get("user") or body.get("safety_identifier")
    if isinstance(user, str) and user:
        out["metadata"] = {"user_id": user}
    _tools(body, out)
    return out


def _max_tokens(body: dict[str, Any], model: str, default: int | None) -> int:
    for key in ("max_completion_tokens", "max_tokens"):
        value = body.get(key)
        if value is not None:
            if type(value) is not int or value < 1:
                raise invalid(key, "must be a positive integer")
            return value
    return default if default is not None else documented_max_tokens(model)


def _messages(messages: list[Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """System text blocks (every system/developer message, hoisted in order) and the turns."""
    system: list[dict[str, Any]] = []
    turns: list[dict[str, Any]] = []
    tool_turn: dict[str, Any] | None = None  # the user turn collecting consecutive tool results
    for i, m in enumerate(messages):
        p = f"messages[{i}]"
        if not isinstance(m, dict):
            raise invalid(p, "must be an object")
        role = m.get("role")
        if role in ("system", "developer"):
            system.extend(text_blocks(m.get("content"), f"{p}.content"))
            continue
        if role == "tool":
            block = _tool_result(m, p)
            if tool_turn is not None and turns and turns[-1] is tool_turn:
                tool_turn["content"].append(block)
            else:
                tool_turn = {"role": "user", "content": [block]}
                turns.append(tool_turn)
            continue
        if role == "user":
            turns.append({"role": "user", "content": _user_content(m.get("content"), f"{p}.content")})
        elif role == "assistant":
            turns.append({"role": "assistant", "content": _assistant_content(m, p)})
        elif role == "function":
            raise unsupported(f"{p}.role", "legacy function messages are not translated; use tools")
        else:
            raise invalid(f"{p}.role", "unknown role")
    return system, turns


def _user_content(content: Any, p: str) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    if not isinstance(content, list) or not content:
        raise invalid(p, "must be a string or a non-empty list of content parts")
    blocks: list[dict[str, Any]] = []
    for j, part in enumerate(content):
        q = f"{p}[{j}]"
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("text"), str):
            blocks.append({"type": "text", "text": part["text"]})
        elif kind == "image_url" and isinstance(part.get("image_url"), dict | str):
            image = part["image_url"]  # an object per OpenAI's schema; some clients send the URL
            url, where = (
                (image.get("url"), f"{q}.image_url.url")
                if isinstance(image, dict)
                else (image, f"{q}.image_url")
            )
            blocks.append({"type": "image", "source": image_source_of_url(url, where)})
        elif kind == "file":
            blocks.append(document_of_file_part(part, q))
        else:
            raise unsupported(
                f"{q}.type", f"content part '{kind}' is not translated (text, image_url, file are)"
            )
    return blocks


def _assistant_content(m: dict[str, Any], p: str) -> str | list[dict[str, Any]]:
    for key in ("function_call", "audio"):
        if m.get(key) is not None:
            raise unsupported(f"{p}.{key}", "not translated to Anthropic")
    text = text_of_parts(m.get("content"), f"{p}.content", allowed=("text", "refusal"))
    calls = m.get("tool_calls") or []
    if not calls:
        return text
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    for j, call in enumerate(calls):
        q = f"{p}.tool_calls[{j}]"
        fn = call.get("function") if isinstance(call, dict) else None
        if call.get("type", "function") != "function" or not isinstance(fn, dict):
            raise unsupported(f"{q}.type", "only function tool calls are translated")
        blocks.append(
            {
                "type": "tool_use",
                "id": call.get("id"),
                "name": fn.get("name"),
                "input": parse_arguments(fn.get("arguments"), f"{q}.function.arguments"),
            }
        )
    return blocks


def parse_arguments(arguments: Any, param: str) -> dict[str, Any]:
    """A tool call's ``arguments`` JSON string as Anthropic's ``input`` object ("" is ``{}``).

    Raises:
        TranslationError: (400) not a string holding a JSON object.
    """
    if arguments is None or arguments == "":
        return {}
    if not isinstance(arguments, str):
        raise invalid(param, "must be a JSON string")
    try:
        value = json.loads(arguments)  # not orjson: integers beyond 64 bits stay exact
    except ValueError:
        raise invalid(param, "is not valid JSON (Anthropic needs the tool input as an object)") from None
    if not isinstance(value, dict):
        raise invalid(param, "must encode a JSON object (Anthropic's tool input is an object)")
    return value


def _tool_result(m: dict[str, Any], p: str) -> dict[str, Any]:
    if not isinstance(m.get("tool_call_id"), str):
        raise invalid(f"{p}.tool_call_id", "must be a string")
    content = m.get("content")
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": m["tool_call_id"]}
    block["content"] = content if isinstance(content, str) else text_blocks(content, f"{p}.content")
    return block


def _tools(body: dict[str, Any], out: dict[str, Any]) -> None:
    tools = body.get("tools")
    if tools:
        out["tools"] = [_tool(t, f"tools[{i}]") for i, t in enumerate(tools)]
    choice = body.get("tool_choice")
    parallel = body.get("parallel_tool_calls")
    if choice is None:
        mapped: dict[str, Any] | None = {"type": "auto"} if tools and parallel is False else None
    elif choice == "auto":
        mapped = {"type": "auto"}
    elif choice == "none":
        mapped = {"type": "none"}
    elif choice == "required":
        mapped = {"type": "any"}
    elif isinstance(choice, dict) and choice.get("type") == "function":
        name = (choice.get("function") or {}).get("name")
        if not isinstance(name, str):
            raise invalid("tool_choice.function.name", "must be a string")
        mapped = {"type": "tool", "name": name}
    else:
        raise unsupported("tool_choice", "only auto, none, required and a named function are translated")
    if mapped is None or not tools:
        return
    if parallel is False and mapped["type"] != "none":
        mapped["disable_parallel_tool_use"] = True
    out["tool_choice"] = mapped


def _tool(tool: Any, p: str) -> dict[str, Any]:
    fn = tool.get("function") if isinstance(tool, dict) else None
    if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(fn, dict):
        raise unsupported(f"{p}.type", "only function tools are translated")
    if not isinstance(fn.get("name"), str):
        raise invalid(f"{p}.function.name", "must be a string")
    out: dict[str, Any] = {
        "name": fn["name"],
        "input_schema": fn.get("parameters") or {"type": "object", "properties": {}},
    }
    if isinstance(fn.get("description"), str):
        out["description"] = fn["description"]
    if fn.get("strict") is True:
        out["strict"] = True
    return out
