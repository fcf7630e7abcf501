"""Anthropic Messages request -> OpenAI chat completion request (pure).

Sources: Anthropic's ``MessageCreateParams`` (the ``anthropic`` SDK's types;
Messages API reference) and OpenAI's ``CreateChatCompletionRequest``
(specs/openai-openapi.yaml). What chat completions cannot honour is refused
with a :class:`TranslationError` naming the field; hints with no effect on the
answer are dropped (see ``DROPPED``).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from tollway_edge.translate.content import file_part_of_document, text_blocks, url_of_image_source
from tollway_edge.translate.errors import invalid, unsupported

# Hints with no effect on the answer's content at an OpenAI provider.
DROPPED = frozenset({"model", "cache_control", "diagnostics", "service_tier", "speed", "user_profile_id"})

HANDLED = frozenset(
    {
        "max_tokens",
        "messages",
        "system",
        "metadata",
        "stop_sequences",
        "stream",
        "temperature",
        "top_p",
        "tools",
        "tool_choice",
        "thinking",
    }
)

_WHY = {
    "top_k": "OpenAI's chat completions have no top_k",
    "output_config": "structured output and effort settings are not translated",
    "container": "Anthropic's code-execution containers are Anthropic's",
    "mcp_servers": "Anthropic's MCP connector is Anthropic's",
    "context_management": "Anthropic's context management is Anthropic's",
    "inference_geo": "an OpenAI provider cannot be held to an Anthropic inference region",
    "workspace_id": "Anthropic workspaces are Anthropic's",
}

# Block types of an assistant turn that carry nothing OpenAI can take back as input;
# thinking is the model's own scratch work, which OpenAI models never receive.
_SKIPPED_BLOCKS = frozenset({"thinking", "redacted_thinking"})


def anthropic_to_openai_request(
    body: dict[str, Any],
    *,
    model: str | None = None,
    max_tokens_field: Literal["max_completion_tokens", "max_tokens"] = "max_completion_tokens",
) -> dict[str, Any]:
    """Translate an Anthropic Messages request into an OpenAI chat completion request.

    Args:
        body: the client's JSON body (``MessageCreateParams``).
        model: the upstream model name (the route's); default: ``body["model"]``.
        max_tokens_field: where Anthropic's ``max_tokens`` (tokens) goes: OpenAI's current
            ``max_completion_tokens``, or the older ``max_tokens`` some OpenAI-compatible
            servers still expect.

    Returns:
        A ``CreateChatCompletionRequest`` dict; a stream asks for
        ``stream_options.include_usage`` (the stream translator needs the usage chunk).

    Raises:
        TranslationError: (400) a field chat completions cannot honour (named in ``param``)
            or a malformed one.
    """
    for key, value in body.items():
        if value is None or key in HANDLED or key in DROPPED:
            continue
        raise unsupported(key, _WHY.get(key, "this Anthropic field has no OpenAI chat equivalent"))
    upstream = model or body.get("model")
    if not isinstance(upstream, str):
        raise invalid("model", "must be a string")
    messages: list[dict[str, Any]] = []
    system = body.get("system")
    if system is not None:
        messages.append(_system(system, "system"))
    turns = body.get("messages")
    if not isinstance(turns, list) or not turns:
        raise invalid("messages", "must be a non-empty list")
    for i, turn in enumerate(turns):
        messages.extend(_turn(turn, f"messages[{i}]"))
    out: dict[str, Any] = {"model": upstream, "messages": messages}
    max_tokens = body.get("max_tokens")
    if type(max_tokens) is not int or max_tokens < 1:
        raise invalid("max_tokens", "must be a positive integer")
    out[max_tokens_field] = max_tokens
    thinking = body.get("thinking")
    if thinking is not None and (not isinstance(thinking, dict) or thinking.get("type") != "disabled"):
        raise unsupported("thinking", "extended thinking is not translated to OpenAI")
    if body.get("stop_sequences"):
        out["stop"] = list(body["stop_sequences"])
    for key in ("temperature", "top_p"):
        if body.get(key) is not None:
            out[key] = body[key]
    if body.get("stream"):
        out["stream"] = True
        out["stream_options"] = {"include_usage": True}
    metadata = body.get("metadata")
    if isinstance(metadata, dict) and isinstance(metadata.get("user_id"), str):
        out["user"] = metadata["user_id"]
    _tools(body, out)
    return out


def _system(content: Any, p: str) -> dict[str, Any]:
    if isinstance(content, str):
        return {"role": "system", "content": content}
    return {"role": "system", "content": text_blocks(content, p)}


def _turn(turn: Any, p: str) -> list[dict[str, Any]]:
    if not isinstance(turn, dict):
        raise invalid(p, "must be an object")
    role, content = turn.get("role"), turn.get("content")
    if role == "system":
        return [_system(content, f"{p}.content")]
    if role not in ("user", "assistant"):
        raise invalid(f"{p}.role", "must be user or assistant")
    if isinstance(content, str):
        return [{"role": role, "content": content}]
    if not isinstance(content, list):
        raise invalid(f"{p}.content", "must be a string or a list of content blocks")
    if role == "assistant":
        return [_assistant(content, f"{p}.content")]
    tool_messages: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for j, block in enumerate(content):
        q = f"{p}.content[{j}]"
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "tool_result":
            # OpenAI wants tool messages right after the assistant's tool_calls: they go first.
            tool_messages.append(_tool_message(block, q))
        elif kind == "text":
            parts.append({"type": "text", "text": block.get("text")})
        elif kind == "image":
            url = url_of_image_source(block.get("source"), f"{q}.source")
            parts.append({"type": "image_url", "image_url": {"url": url}})
        elif kind == "document":
            parts.append(file_part_of_document(block, q))
        else:
            raise unsupported(
                f"{q}.type",
                f"content block '{kind}' is not translated (text, image, document, tool_result are)",
            )
    return tool_messages + ([{"role": "user", "content": parts}] if parts else [])


def _assistant(content: list[Any], p: str) -> dict[str, Any]:
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for j, block in enumerate(content):
        q = f"{p}[{j}]"
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            texts.append(block.get("text") or "")
        elif kind == "tool_use":
            if not isinstance(block.get("input"), dict):
                raise invalid(f"{q}.input", "must be an object")
            arguments = compact_json(block["input"])
            calls.append(
                {
                    "id": block.get("id"),
                    "type": "function",
                    "function": {"name": block.get("name"), "arguments": arguments},
                }
            )
        elif kind not in _SKIPPED_BLOCKS:
            raise unsupported(f"{q}.type", f"content block '{kind}' is not translated (text, tool_use are)")
    message: dict[str, Any] = {"role": "assistant"}
    if len(texts) > 1:
        message["content"] = [{"type": "text", "text": t} for t in texts]
    else:
        message["content"] = texts[0] if texts else (None if calls else "")
    if calls:
        message["tool_calls"] = calls
    return message


def compact_json(value: Any) -> str:
    """Tool input as OpenAI's ``arguments`` string: compact JSON, UTF-8 kept (stdlib json,
    not orjson: integers beyond 64 bits stay exact)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _tool_message(block: dict[str, Any], q: str) -> dict[str, Any]:
    if not isinstance(block.get("tool_use_id"), str):
        raise invalid(f"{q}.tool_use_id", "must be a string")
    content = block.get("content", "")
    if content is None:
        content = ""
    if not isinstance(content, str):
        # OpenAI's tool messages carry text only: an image result is refused.
        content = text_blocks(content, f"{q}.content")
    if block.get("is_error") is True:
        # OpenAI has no error flag on tool results: the model reads it in the text.
        prefix = "Error: "
        content = (
            prefix + content if isinstance(content, str) else [{"type": "text", "text": prefix}, *content]
        )
    return {"role": "tool", "tool_call_id": block["tool_use_id"], "content": content}


def _tools(body: dict[str, Any], out: dict[str, Any]) -> None:
    tools = body.get("tools")
    if not tools:
        return
    out["tools"] = [_tool(t, f"tools[{i}]") for i, t in enumerate(tools)]
    choice = body.get("tool_choice")
    if choice is None:
        return
    kind = choice.get("type") if isinstance(choice, dict) else None
    if kind == "auto":
        out["tool_choice"] = "auto"
    elif kind == "any":
        out["tool_choice"] = "required"
    elif kind == "none":
        out["tool_choice"] = "none"
    elif kind == "tool" and isinstance(choice.get("name"), str):
        out["tool_choice"] = {"type": "function", "function": {"name": choice["name"]}}
    else:
        raise invalid("tool_choice", "must be auto, any, none or a named tool")
    if choice.get("disable_parallel_tool_use") is True and kind != "none":
        out["parallel_tool_calls"] = False


def _tool(tool: Any, p: str) -> dict[str, Any]:
    if not isinstance(tool, dict) or tool.get("type") not in (None, "custom"):
        kind = tool.get("type") if isinstance(tool, dict) else None
        raise unsupported(f"{p}.type", f"Anthropic's server tool '{kind}' has no OpenAI equivalent")
    if not isinstance(tool.get("name"), str):
        raise invalid(f"{p}.name", "must be a string")
    fn: dict[str, Any] = {"name": tool["name"], "parameters": tool.get("input_schema") or {"type": "object"}}
    if isinstance(tool.get("description"), str):
        fn["description"] = tool["description"]
    if tool.get("strict") is True:
        fn["strict"] = True
    return {"type": "function", "function": fn}
