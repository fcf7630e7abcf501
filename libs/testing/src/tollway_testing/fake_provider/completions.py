"""OpenAI's legacy ``POST /v1/completions`` (and Azure's route): JSON and SSE.

prompt_tokens = Σ ceil(UTF-8 bytes of each prompt / 4) (token-array prompts:
one per id); one choice per prompt, each with the same completion (chat's
rules), so completion_tokens = completion x prompts. ``echo: true`` and
``n``/``best_of`` are not supported (400).
"""

from __future__ import annotations

import uuid
from typing import Any

import orjson
from aiohttp import web

from tollway_testing.fake_provider.answer import text_answer
from tollway_testing.fake_provider.core import Call, Usage
from tollway_testing.fake_provider.counting import cache_markers, count_embedding_tokens, split_cache
from tollway_testing.fake_provider.wire import Chunk, StreamPlan, send_json, send_stream, sse


def _prompts(raw: Any) -> list[Any] | None:
    if isinstance(raw, str) or (isinstance(raw, list) and raw and all(isinstance(x, int) for x in raw)):
        return [raw]
    if isinstance(raw, list) and raw and all(isinstance(x, str | list) for x in raw):
        return raw
    return None


def completion_usage(usage: Usage) -> dict[str, Any]:
    """The legacy completions usage object."""
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.prompt_tokens + usage.completion_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cached_tokens, "audio_tokens": 0},
    }


async def completions(handlers: Any, request: web.Request) -> web.StreamResponse:
    """Answer one legacy completion."""
    call = await Call.begin(handlers, request, "completions")
    body = call.body
    azure = request.match_info.get("azure_deployment")
    if azure and isinstance(body, dict) and not isinstance(body.get("model"), str):
        body["model"] = azure
    await call.apply_fault(body.get("model") if isinstance(body, dict) else None)
    prompts = _prompts(body.get("prompt")) if isinstance(body, dict) else None
    if prompts is None or not isinstance(body.get("model"), str):
        call.reject(400, "'model' and 'prompt' are required", param="prompt")
    for key in ("echo", "n", "best_of"):
        if body.get(key) not in (None, False, 1):
            call.reject(400, f"fake provider: '{key}' is not supported", param=key)
    model: str = body["model"]
    call.stream = bool(body.get("stream"))
    prompt_tokens = count_embedding_tokens(prompts)
    cached, _ = split_cache(prompt_tokens, *cache_markers(call.raw))
    last = prompts[-1] if isinstance(prompts[-1], str) else None
    ans = text_answer(call, model, body.get("max_tokens"), last, call.stream)
    finish_reason = "length" if ans.truncated else "stop"
    usage = Usage(prompt_tokens, ans.tokens * len(prompts), cached)
    usage_object = completion_usage(usage)
    cid = "cmpl-" + uuid.uuid4().hex
    created = int(call.started)
    if not call.stream:
        payload = {
            "id": cid,
            "object": "text_completion",
            "created": created,
            "model": model,
            "system_fingerprint": "fp_tollway_fake",
            "choices": [
                {"text": ans.text, "index": i, "logprobs": None, "finish_reason": finish_reason}
                for i in range(len(prompts))
            ],
            "usage": usage_object,
        }
        return await send_json(call, payload, usage, usage_object, finish_reason, ans.non_stream_delay)

    options = body.get("stream_options") or {}
    include_usage = bool(isinstance(options, dict) and options.get("include_usage"))
    prefix = (
        b'{"id":'
        + orjson.dumps(cid)
        + b',"object":"text_completion","created":'
        + str(created).encode()
        + b',"model":'
        + orjson.dumps(model)
        + b',"system_fingerprint":"fp_tollway_fake","choices":'
    )
    usage_null = b',"usage":null' if include_usage else b""

    def event(index: int, text: str, finish: str | None) -> bytes:
        choice = {"text": text, "index": index, "logprobs": None, "finish_reason": finish}
        return sse(prefix + orjson.dumps([choice]) + usage_null + b"}")

    chunks = [
        Chunk(event(i, text, None), len(text.split())) for i in range(len(prompts)) for text in ans.groups
    ]
    plan = StreamPlan(
        head=[],
        chunks=chunks,
        finish=[event(i, "", finish_reason) for i in range(len(prompts))],
        usage_event=sse(prefix + b'[],"usage":' + orjson.dumps(usage_object) + b"}")
        if include_usage
        else None,
        end=[b"data: [DONE]\n\n"],
        usage=usage,
        usage_object=usage_object,
        finish_reason=finish_reason,
    )
    return await send_stream(call, plan, ans.ttft, ans.interval)
