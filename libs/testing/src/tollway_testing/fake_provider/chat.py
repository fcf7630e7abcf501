"""OpenAI ``POST /v1/chat/completions`` (and Azure's deployment route): JSON and SSE, tool calls.

prompt_tokens = ceil(UTF-8 bytes of all message texts / 4) + 3 per message
(:func:`count_prompt_tokens`); ``cached_tokens`` from a ``fake-cache-read-<N>``
marker. Tools: see :func:`answer.tool_calls`.
"""

from __future__ import annotations

import uuid
from typing import Any

import orjson
from aiohttp import web

from tollway_testing.fake_provider.answer import ToolCall, text_answer, tool_calls
from tollway_testing.fake_provider.core import Call, Usage
from tollway_testing.fake_provider.counting import (
    argument_fragments,
    cache_markers,
    count_prompt_tokens,
    last_user_text,
    split_cache,
)
from tollway_testing.fake_provider.wire import Chunk, StreamPlan, send_json, send_stream, sse


def openai_usage(usage: Usage) -> dict[str, Any]:
    """Chat's usage object."""
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.prompt_tokens + usage.completion_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cached_tokens, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def _chat_tools(body: dict[str, Any]) -> list[ToolCall]:
    tools = [
        (t["function"].get("name", ""), t["function"].get("parameters"))
        for t in body.get("tools") or []
        if isinstance(t, dict) and isinstance(t.get("function"), dict)
    ]
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        choice = (choice.get("function") or {}).get("name")
    messages = body["messages"]
    after_result = isinstance(messages[-1], dict) and messages[-1].get("role") == "tool"
    return tool_calls(tools, choice, body.get("parallel_tool_calls") is not False, after_result)


async def chat_completions(handlers: Any, request: web.Request) -> web.StreamResponse:
    """Answer one chat completion (handler for every chat route)."""
    call = await Call.begin(handlers, request, "chat.completions")
    body = call.body
    azure = "azure_deployment" in request.match_info
    if azure and isinstance(body, dict) and not isinstance(body.get("model"), str):
        body["model"] = request.match_info["azure_deployment"]
    await call.apply_fault(body.get("model") if isinstance(body, dict) else None)
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list) or not messages or not isinstance(body.get("model"), str):
        call.reject(400, "'model' and a non-empty 'messages' are required", param="messages")
    model: str = body["model"]
    call.stream = bool(body.get("stream"))
    prompt = count_prompt_tokens(messages)
    cached, _ = split_cache(prompt, *cache_markers(call.raw))
    limit = body.get("max_completion_tokens")
    if limit is None:
        limit = body.get("max_tokens")
    ans = text_answer(call, model, limit, last_user_text(messages), call.stream)
    calls = _chat_tools(body)
    if calls:
        n = sum(c.tokens for c in calls)
        finish_reason = "tool_calls"
    else:
        n = ans.tokens
        finish_reason = "length" if ans.truncated else "stop"
    usage = Usage(prompt, n, cached)
    completion_id = "chatcmpl-" + uuid.uuid4().hex
    created = int(call.started)
    call_ids = ["call_" + uuid.uuid4().hex[:24] for _ in calls]

    if not call.stream:
        message: dict[str, Any] = {
            "role": "assistant",
            "content": None if calls else ans.text,
            "refusal": None,
            "annotations": [],
        }
        if calls:
            message["tool_calls"] = [
                {"id": cid, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for cid, c in zip(call_ids, calls, strict=True)
            ]
        payload = {
            "id": completion_id,
            "object": "chat.completion",
            "created": created,
            "model": model,
            "system_fingerprint": "fp_tollway_fake",
            "service_tier": "default",
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}],
            "usage": openai_usage(usage),
        }
        return await send_json(call, payload, usage, payload["usage"], finish_reason, ans.non_stream_delay)

    stream_options = body.get("stream_options") or {}
    include_usage = bool(isinstance(stream_options, dict) and stream_options.get("include_usage"))
    # Every chunk shares this prefix and suffix; only the delta varies.
    prefix = (
        b'data: {"id":'
        + orjson.dumps(completion_id)
        + b',"object":"chat.completion.chunk","created":'
        + str(created).encode()
        + b',"model":'
        + orjson.dumps(model)
        + b',"system_fingerprint":"fp_tollway_fake","choices":[{"index":0,"delta":'
    )
    usage_null = b',"usage":null' if include_usage else b""

    def chunk(delta: bytes, finish: bytes = b"null") -> bytes:
        return prefix + delta + b',"logprobs":null,"finish_reason":' + finish + b"}]" + usage_null + b"}\n\n"

    chunks: list[Chunk] = []
    if calls:
        head = [chunk(b'{"role":"assistant","content":null,"refusal":null}')]
        for i, (cid, c) in enumerate(zip(call_ids, calls, strict=True)):
            start = {"index": i, "id": cid, "type": "function", "function": {"name": c.name, "arguments": ""}}
            chunks.append(Chunk(chunk(orjson.dumps({"tool_calls": [start]})), 1))
            for frag in argument_fragments(c.arguments):
                delta = {"tool_calls": [{"index": i, "function": {"arguments": frag}}]}
                chunks.append(Chunk(chunk(orjson.dumps(delta)), 1))
    else:
        head = [chunk(b'{"role":"assistant","content":"","refusal":null}')]
        for text in ans.groups:
            chunks.append(Chunk(chunk(b'{"content":' + orjson.dumps(text) + b"}"), len(text.split())))
    usage_object = openai_usage(usage)
    usage_event = None
    if include_usage:
        usage_event = sse(
            b'{"id":'
            + orjson.dumps(completion_id)
            + b',"object":"chat.completion.chunk","created":'
            + str(created).encode()
            + b',"model":'
            + orjson.dumps(model)
            + b',"system_fingerprint":"fp_tollway_fake","choices":[],"usage":'
            + orjson.dumps(usage_object)
            + b"}"
        )
    plan = StreamPlan(
        head=head,
        chunks=chunks,
        finish=[chunk(b"{}", b'"' + finish_reason.encode() + b'"')],
        usage_event=usage_event,
        end=[b"data: [DONE]\n\n"],
        usage=usage,
        usage_object=usage_object,
        finish_reason=finish_reason,
    )
    return await send_stream(call, plan, ans.ttft, ans.interval)
