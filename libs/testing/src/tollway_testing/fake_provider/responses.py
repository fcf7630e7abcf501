"""OpenAI's Responses API: ``POST /v1/responses`` (JSON and SSE), ``GET``/``DELETE /v1/responses/{id}``,
``GET /v1/responses/{id}/input_items``.

input_tokens = ceil(UTF-8 bytes of ``instructions`` and every input item's
text (message text, function-call arguments and outputs) / 4) + 3 per item
(+ 3 for ``instructions``); with ``previous_response_id``, plus that
response's input and output tokens (the whole conversation is re-read).
A stored response (``store`` defaults to true) lives on the deployment that
created it: ``previous_response_id``, GET, DELETE and ``input_items`` on
another deployment answer 404 (``previous_response_id``: 400), as another
provider account would. ``input_items`` lists the stored response's input as
items with ids (a string input is one user message), newest first unless
``order=asc``; ``limit`` (default 20) and ``after`` page through them. A stream reports its usage in
``response.completed`` (``response.incomplete`` when ``max_output_tokens``
cut it).
"""

from __future__ import annotations

import collections
import math
import time
import uuid
from typing import Any, NoReturn

from aiohttp import web

from tollway_testing.fake_provider.answer import text_answer, tool_calls
from tollway_testing.fake_provider.core import Call, Usage
from tollway_testing.fake_provider.counting import (
    argument_fragments,
    cache_markers,
    content_text,
    split_cache,
)
from tollway_testing.fake_provider.wire import Chunk, StreamPlan, send_json, send_stream, sse


class ResponseStore:
    """Stored responses by id, each with the deployment holding it and its input
    items (bounded, oldest dropped)."""

    def __init__(self, max_items: int) -> None:
        self._items: collections.OrderedDict[str, tuple[str, dict[str, Any], list[dict[str, Any]]]] = (
            collections.OrderedDict()
        )
        self._max = max_items

    def put(
        self, deployment: str, response: dict[str, Any], items: list[dict[str, Any]] | None = None
    ) -> None:
        """Store one response on ``deployment`` with its input ``items``."""
        self._items[response["id"]] = (deployment, response, items or [])
        while len(self._items) > self._max:
            self._items.popitem(last=False)

    def get(self, deployment: str, response_id: str) -> dict[str, Any] | None:
        """The response if ``deployment`` holds it."""
        item = self._items.get(response_id)
        return item[1] if item and item[0] == deployment else None

    def input_items(self, deployment: str, response_id: str) -> list[dict[str, Any]] | None:
        """The response's input items (oldest first) if ``deployment`` holds it."""
        item = self._items.get(response_id)
        return item[2] if item and item[0] == deployment else None

    def delete(self, deployment: str, response_id: str) -> bool:
        """Forget it; False when ``deployment`` does not hold it."""
        if self.get(deployment, response_id) is None:
            return False
        del self._items[response_id]
        return True


def _item_text(item: Any) -> str:
    if isinstance(item, str):
        return item
    if not isinstance(item, dict):
        return ""
    if item.get("type") == "function_call_output":
        out = item.get("output")
        return out if isinstance(out, str) else content_text(out)
    if item.get("type") == "function_call":
        return str(item.get("arguments") or "")
    return content_text(item.get("content"))


def _stored_items(items: list[Any]) -> list[dict[str, Any]]:
    """The input as the Responses API lists it: each item with an id; a string is a user message."""
    out: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, str):
            item = {"type": "message", "role": "user", "content": item}
        if not isinstance(item, dict):
            continue
        item = {**item, "id": item.get("id") or "msg_" + uuid.uuid4().hex}
        if item.get("type", "message") == "message":
            content = item.get("content")
            if isinstance(content, str):
                item["content"] = [{"type": "input_text", "text": content}]
            item["type"] = "message"
            item.setdefault("status", "completed")
        out.append(item)
    return out


def _last_user_text(items: list[Any]) -> str:
    for item in reversed(items):
        if isinstance(item, str):
            return item
        if isinstance(item, dict) and item.get("role") == "user":
            return _item_text(item)
    return ""


def responses_usage(usage: Usage) -> dict[str, Any]:
    """The Responses API usage object."""
    return {
        "input_tokens": usage.prompt_tokens,
        "input_tokens_details": {"cached_tokens": usage.cached_tokens},
        "output_tokens": usage.completion_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": usage.prompt_tokens + usage.completion_tokens,
    }


def _not_found(call: Call, response_id: str, param: str | None = None) -> NoReturn:
    msg = f"{'Previous response' if param else 'Response'} with id '{response_id}' not found."
    call.reject(404 if param is None else 400, msg, "invalid_request_error", param)


async def create(handlers: Any, request: web.Request) -> web.StreamResponse:
    """Answer one ``POST /v1/responses``."""
    call = await Call.begin(handlers, request, "responses")
    body = call.body
    await call.apply_fault(body.get("model") if isinstance(body, dict) else None)
    raw_input = body.get("input") if isinstance(body, dict) else None
    items = [raw_input] if isinstance(raw_input, str) else raw_input
    if not isinstance(items, list) or not items or not isinstance(body.get("model"), str):
        call.reject(400, "'model' and 'input' are required", param="input")
    model: str = body["model"]
    call.stream = bool(body.get("stream"))
    instructions = body.get("instructions") if isinstance(body.get("instructions"), str) else None
    texts = [_item_text(i) for i in items] + ([instructions] if instructions else [])
    prompt = math.ceil(sum(len(t.encode()) for t in texts) / 4) + 3 * len(texts)
    previous_id = body.get("previous_response_id")
    if previous_id is not None:
        previous = handlers.responses.get(call.deployment, previous_id)
        if previous is None:
            _not_found(call, str(previous_id), "previous_response_id")
        prompt += previous["usage"]["input_tokens"] + previous["usage"]["output_tokens"]
    cached, _ = split_cache(prompt, *cache_markers(call.raw))
    ans = text_answer(call, model, body.get("max_output_tokens"), _last_user_text(items), call.stream)
    tools = [
        (t.get("name", ""), t.get("parameters"))
        for t in body.get("tools") or []
        if isinstance(t, dict) and t.get("type") == "function"
    ]
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        choice = choice.get("name")
    last = items[-1]
    after_result = isinstance(last, dict) and last.get("type") == "function_call_output"
    calls = tool_calls(tools, choice, body.get("parallel_tool_calls") is not False, after_result)
    n = sum(c.tokens for c in calls) if calls else ans.tokens
    usage = Usage(prompt, n, cached)
    incomplete = ans.truncated and not calls
    rid = "resp_" + uuid.uuid4().hex
    msg_id = "msg_" + uuid.uuid4().hex
    output: list[dict[str, Any]] = []
    if calls:
        for c in calls:
            output.append(
                {
                    "type": "function_call",
                    "id": "fc_" + uuid.uuid4().hex,
                    "call_id": "call_" + uuid.uuid4().hex[:24],
                    "name": c.name,
                    "arguments": c.arguments,
                    "status": "completed",
                }
            )
    else:
        part = {"type": "output_text", "text": ans.text, "annotations": [], "logprobs": []}
        output.append(
            {"type": "message", "id": msg_id, "status": "completed", "role": "assistant", "content": [part]}
        )

    def response(status: str, out: list[Any], usage_obj: Any) -> dict[str, Any]:
        return {
            "id": rid,
            "object": "response",
            "created_at": int(call.started),
            "status": status,
            "completed_at": int(time.time()) if status == "completed" else None,
            "error": None,
            "incomplete_details": {"reason": "max_output_tokens"} if status == "incomplete" else None,
            "instructions": instructions,
            "max_output_tokens": body.get("max_output_tokens"),
            "model": model,
            "output": out,
            "parallel_tool_calls": body.get("parallel_tool_calls") is not False,
            "previous_response_id": previous_id,
            "store": body.get("store") is not False,
            "temperature": 1.0,
            "text": {"format": {"type": "text"}},
            "tool_choice": body.get("tool_choice") or "auto",
            "tools": body.get("tools") or [],
            "top_p": 1.0,
            "truncation": "disabled",
            "usage": usage_obj,
            "metadata": body.get("metadata") or {},
        }

    final_status = "incomplete" if incomplete else "completed"
    usage_object = responses_usage(usage)
    final = response(final_status, output, usage_object)
    if final["store"]:
        handlers.responses.put(call.deployment, final, _stored_items(items))
    finish_reason = "max_output_tokens" if incomplete else ("tool_calls" if calls else "stop")
    if not call.stream:
        return await send_json(call, final, usage, usage_object, finish_reason, ans.non_stream_delay)

    seq = 0

    def event(kind: str, **data: Any) -> bytes:
        nonlocal seq
        payload = {"type": kind, **data, "sequence_number": seq}
        seq += 1
        return sse(payload, kind)

    head = [
        event("response.created", response=response("in_progress", [], None)),
        event("response.in_progress", response=response("in_progress", [], None)),
    ]
    chunks: list[Chunk] = []
    finish: list[bytes] = []
    if calls:
        for i, item in enumerate(output):
            started = {**item, "arguments": "", "status": "in_progress"}
            add = event("response.output_item.added", output_index=i, item=started)
            chunks.append(Chunk(b"".join(finish) + add, 1))  # the previous item's done events go with it
            finish = []
            for frag in argument_fragments(item["arguments"]):
                delta = event(
                    "response.function_call_arguments.delta", item_id=item["id"], output_index=i, delta=frag
                )
                chunks.append(Chunk(delta, 1))
            finish = [
                event(
                    "response.function_call_arguments.done",
                    item_id=item["id"],
                    output_index=i,
                    name=item["name"],
                    arguments=item["arguments"],
                ),
                event("response.output_item.done", output_index=i, item=item),
            ]
    else:
        empty = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
        head += [
            event(
                "response.output_item.added",
                output_index=0,
                item={**output[0], "status": "in_progress", "content": []},
            ),
            event("response.content_part.added", item_id=msg_id, output_index=0, content_index=0, part=empty),
        ]
        where = {"item_id": msg_id, "output_index": 0, "content_index": 0}
        for text in ans.groups:
            delta = event("response.output_text.delta", **where, delta=text, logprobs=[])
            chunks.append(Chunk(delta, len(text.split())))
        finish = [
            event("response.output_text.done", **where, text=ans.text, logprobs=[]),
            event("response.content_part.done", **where, part=output[0]["content"][0]),
            event("response.output_item.done", output_index=0, item=output[0]),
        ]
    done_kind = "response.incomplete" if incomplete else "response.completed"
    plan = StreamPlan(
        head=head,
        chunks=chunks,
        finish=finish,
        usage_event=event(done_kind, response=final),
        end=[],
        usage=usage,
        usage_object=usage_object,
        finish_reason=finish_reason,
    )
    return await send_stream(call, plan, ans.ttft, ans.interval)


async def retrieve(handlers: Any, request: web.Request) -> web.StreamResponse:
    """``GET /v1/responses/{id}`` on the deployment holding it (404 elsewhere)."""
    call = await Call.begin(handlers, request, "responses.retrieve", read=False)
    await call.apply_fault(None)
    found = handlers.responses.get(call.deployment, request.match_info["response_id"])
    if found is None:
        _not_found(call, request.match_info["response_id"])
    call.finish(200)
    return call.json(found)


async def delete(handlers: Any, request: web.Request) -> web.StreamResponse:
    """``DELETE /v1/responses/{id}`` on the deployment holding it (404 elsewhere)."""
    call = await Call.begin(handlers, request, "responses.delete", read=False)
    await call.apply_fault(None)
    response_id = request.match_info["response_id"]
    if not handlers.responses.delete(call.deployment, response_id):
        _not_found(call, response_id)
    call.finish(200)
    return call.json({"id": response_id, "object": "response.deleted", "deleted": True})


async def input_items(handlers: Any, request: web.Request) -> web.StreamResponse:
    """``GET /v1/responses/{id}/input_items`` on the deployment holding it (404 elsewhere)."""
    call = await Call.begin(handlers, request, "responses.input_items", read=False)
    await call.apply_fault(None)
    response_id = request.match_info["response_id"]
    items = handlers.responses.input_items(call.deployment, response_id)
    if items is None:
        _not_found(call, response_id)
    q = request.query
    ordered = list(items) if q.get("order") == "asc" else list(reversed(items))
    if "after" in q:
        ids = [i["id"] for i in ordered]
        ordered = ordered[ids.index(q["after"]) + 1 :] if q["after"] in ids else []
    limit = int(q.get("limit", "20"))
    page = ordered[:limit]
    call.finish(200)
    return call.json(
        {
            "object": "list",
            "data": page,
            "first_id": page[0]["id"] if page else None,
            "last_id": page[-1]["id"] if page else None,
            "has_more": len(ordered) > limit,
        }
    )
