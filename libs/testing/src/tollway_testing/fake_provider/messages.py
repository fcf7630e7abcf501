"""Anthropic's Messages API: ``POST /v1/messages`` (JSON and SSE) and ``/v1/messages/count_tokens``.

Like the real API it requires a credential, ``x-api-key`` or
``Authorization: Bearer`` (the anthropic SDK 2.x sends the latter), else 401,
and ``anthropic-version`` (400), answers errors as ``{"type": "error", "error": {type, message}}``, and
streams message_start, content_block_start, ping, content_block_delta...,
content_block_stop, message_delta (stop_reason and the final usage),
message_stop. Tools answer with ``tool_use`` blocks streamed as
``input_json_delta``.

Counting: total input = ceil(UTF-8 bytes of the system text, every text block,
tool_use input (compact JSON), tool_result text, and each tool's name,
description and compact-JSON input_schema / 4) + 3 per message (+ 3 with a
system prompt). Cache: ``fake-cache-read-<N>``/``fake-cache-write-<N>`` in the
body, or headers ``x-fake-cache-read-tokens``/``x-fake-cache-write-tokens``,
take that many tokens (read first, capped by the total) as
``cache_read_input_tokens``/``cache_creation_input_tokens``;
``input_tokens`` is the rest (Anthropic's meaning: it excludes both).
"""

from __future__ import annotations

import math
import uuid
from typing import Any

import orjson
from aiohttp import web

from tollway_testing.fake_provider.answer import text_answer, tool_calls
from tollway_testing.fake_provider.core import Call, Usage
from tollway_testing.fake_provider.counting import argument_fragments, cache_markers, split_cache
from tollway_testing.fake_provider.wire import Chunk, StreamPlan, send_json, send_stream, sse


def _block_text(block: Any) -> str:
    if isinstance(block, str):
        return block
    if not isinstance(block, dict):
        return ""
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text") or "")
    if kind == "tool_use":
        return orjson.dumps(block.get("input") or {}).decode()
    if kind == "tool_result":
        return _content_text(block.get("content"))
    return ""


def _content_text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(_block_text(b) for b in content)
    return _block_text(content)


def _tools(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in body.get("tools") or [] if isinstance(t, dict) and t.get("type") in (None, "custom")]


def count_anthropic_input_tokens(body: dict[str, Any]) -> int:
    """Total input tokens of a Messages request (the rule in the module docstring)."""
    messages = body.get("messages") or []
    texts = [_content_text(body.get("system"))]
    texts += [_content_text(m.get("content")) for m in messages if isinstance(m, dict)]
    for tool in _tools(body):
        schema = orjson.dumps(tool.get("input_schema") or {}).decode()
        texts.append(str(tool.get("name") or "") + str(tool.get("description") or "") + schema)
    total_bytes = sum(len(t.encode()) for t in texts)
    return math.ceil(total_bytes / 4) + 3 * len(messages) + (3 if body.get("system") else 0)


def anthropic_usage(usage: Usage, output_tokens: int | None = None) -> dict[str, Any]:
    """Anthropic's usage object (``input_tokens`` excludes cache reads and writes)."""
    return {
        "input_tokens": usage.prompt_tokens - usage.cached_tokens - usage.cache_write_tokens,
        "cache_creation_input_tokens": usage.cache_write_tokens,
        "cache_read_input_tokens": usage.cached_tokens,
        "output_tokens": usage.completion_tokens if output_tokens is None else output_tokens,
        "service_tier": "standard",
    }


async def _begin(handlers: Any, request: web.Request, api: str) -> Call:
    call = await Call.begin(handlers, request, api, "anthropic")
    if not request.headers.get("x-api-key") and not request.headers.get("authorization"):
        call.reject(401, "x-api-key header is required")
    if not request.headers.get("anthropic-version"):
        call.reject(400, "anthropic-version: header is required")
    body = call.body
    await call.apply_fault(body.get("model") if isinstance(body, dict) else None)
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list) or not messages or not isinstance(body.get("model"), str):
        call.reject(400, "model: Field required; messages: at least one message is required")
    return call


def _usage(call: Call, total: int, completion: int) -> Usage:
    read, write = cache_markers(call.raw)
    read = int(call.header_number("x-fake-cache-read-tokens", read))
    write = int(call.header_number("x-fake-cache-write-tokens", write))
    read, write = split_cache(total, read, write)
    return Usage(total, completion, read, write)


async def count_tokens(handlers: Any, request: web.Request) -> web.StreamResponse:
    """``POST /v1/messages/count_tokens``: ``{"input_tokens": total}``; consumes nothing."""
    call = await _begin(handlers, request, "count_tokens")
    total = count_anthropic_input_tokens(call.body)
    call.finish(200, Usage(total, 0))
    return call.json({"input_tokens": total})


async def messages(handlers: Any, request: web.Request) -> web.StreamResponse:
    """Answer one Messages request."""
    call = await _begin(handlers, request, "messages")
    body: dict[str, Any] = call.body
    max_tokens = body.get("max_tokens")
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        call.reject(400, "max_tokens: Field required (a positive integer)")
    model: str = body["model"]
    call.stream = bool(body.get("stream"))
    msgs = body["messages"]
    last = msgs[-1] if isinstance(msgs[-1], dict) else {}
    content = last.get("content")
    after_result = isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    )
    echo = next(
        (
            _content_text(m.get("content"))
            for m in reversed(msgs)
            if isinstance(m, dict) and m.get("role") == "user"
        ),
        "",
    )
    ans = text_answer(call, model, max_tokens, echo, call.stream)
    raw_choice = body.get("tool_choice")
    choice: dict[str, Any] = raw_choice if isinstance(raw_choice, dict) else {}
    kind = choice.get("type", "auto")
    chosen = choice.get("name") if kind == "tool" else kind
    tools = [(str(t.get("name") or ""), t.get("input_schema")) for t in _tools(body)]
    calls = tool_calls(tools, chosen, not choice.get("disable_parallel_tool_use"), after_result)
    n = sum(c.tokens for c in calls) if calls else ans.tokens
    usage = _usage(call, count_anthropic_input_tokens(body), n)
    stop_reason = "tool_use" if calls else ("max_tokens" if ans.truncated else "end_turn")
    msg_id = "msg_" + uuid.uuid4().hex[:24]
    blocks: list[dict[str, Any]] = [
        {
            "type": "tool_use",
            "id": "toolu_" + uuid.uuid4().hex[:24],
            "name": c.name,
            "input": orjson.loads(c.arguments),
        }
        for c in calls
    ] or [{"type": "text", "text": ans.text}]
    usage_object = anthropic_usage(usage)
    message = {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage_object,
    }
    if not call.stream:
        return await send_json(call, message, usage, usage_object, stop_reason, ans.non_stream_delay)

    start = {**message, "content": [], "stop_reason": None, "usage": anthropic_usage(usage, 1)}
    head = [sse({"type": "message_start", "message": start}, "message_start")]
    chunks: list[Chunk] = []

    def block_event(kind: str, index: int, **data: Any) -> bytes:
        return sse({"type": kind, "index": index, **data}, kind)

    if calls:
        stop = b""
        for i, (block, c) in enumerate(zip(blocks, calls, strict=True)):
            opened = block_event("content_block_start", i, content_block={**block, "input": {}})
            chunks.append(Chunk(stop + opened, 1))  # the previous block's stop goes with the next start
            for frag in argument_fragments(c.arguments):
                delta = {"type": "input_json_delta", "partial_json": frag}
                chunks.append(Chunk(block_event("content_block_delta", i, delta=delta), 1))
            stop = block_event("content_block_stop", i)
        finish = [stop]
    else:
        head.append(block_event("content_block_start", 0, content_block={"type": "text", "text": ""}))
        head.append(sse({"type": "ping"}, "ping"))
        for text in ans.groups:
            delta = {"type": "text_delta", "text": text}
            chunks.append(Chunk(block_event("content_block_delta", 0, delta=delta), len(text.split())))
        finish = [block_event("content_block_stop", 0)]
    message_delta = {
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason, "stop_sequence": None},
        "usage": usage_object,
    }
    plan = StreamPlan(
        head=head,
        chunks=chunks,
        finish=finish,
        usage_event=sse(message_delta, "message_delta"),
        end=[sse({"type": "message_stop"}, "message_stop")],
        usage=usage,
        usage_object=usage_object,
        finish_reason=stop_reason,
    )
    return await send_stream(call, plan, ans.ttft, ans.interval)
