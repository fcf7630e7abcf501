"""Sending an answer: one non-stream and one stream sender for every API, faults applied here.

An API module builds the whole answer up front (a payload, or a
:class:`StreamPlan` of pre-encoded events) and hands it to :func:`send_json`
or :func:`send_stream`, which apply the call's timing and fault and write the
call's record before the last bytes go out (so a test that has read the whole
answer always finds it).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web

from tollway_testing.fake_provider.core import Call, Usage, drop_connection, pause
from tollway_testing.fake_provider.faults import Fault

_NO_FAULT = Fault()


@dataclass(slots=True)
class Chunk:
    """One content event of a stream (bytes on the wire) and the completion tokens it carries."""

    data: bytes
    tokens: int


@dataclass(slots=True)
class StreamPlan:
    """A whole stream, pre-encoded.

    Attributes:
        head: events before the content (role chunk; message_start, ...).
        chunks: the content events, in order (faults count these).
        finish: events after the content and before the usage (finish chunk, block stops).
        usage_event: the event that reports the final usage, None when the
            request did not ask for one.
        end: events after the usage (``[DONE]``, message_stop).
        usage: what the provider counted for the whole answer.
        usage_object: the usage object as written in ``usage_event``.
        finish_reason: the answer's finish/stop reason.
        headers: extra response headers.
    """

    head: list[bytes]
    chunks: list[Chunk]
    finish: list[bytes]
    usage_event: bytes | None
    end: list[bytes]
    usage: Usage
    usage_object: Any
    finish_reason: str
    headers: dict[str, str] = field(default_factory=dict)


def sse(data: Any, event: str | None = None) -> bytes:
    """One server-sent event: ``[event: <name>\\n]data: <json>\\n\\n``."""
    payload = data if isinstance(data, bytes) else orjson.dumps(data)
    if event is None:
        return b"data: " + payload + b"\n\n"
    return b"event: " + event.encode() + b"\ndata: " + payload + b"\n\n"


async def send_json(
    call: Call,
    payload: Any,
    usage: Usage,
    usage_object: Any,
    finish_reason: str | None,
    delay: float,
    *,
    billable: bool = True,
) -> web.StreamResponse:
    """A 200 JSON answer after ``delay`` seconds, with the call's fault applied.

    Faults: ``stall_before_headers_ms`` adds to the delay; ``stall_after_headers_ms``
    sends the headers first, then waits; ``cut_after_headers``, ``cut_after_chunks`` and
    ``cut_before_usage`` drop the connection after the headers (no body, so no usage reached the client).
    """
    f = call.fault or _NO_FAULT
    request = call.request
    wait = delay + f.stall_before_headers_ms / 1000
    if wait > 0 and not await pause(request, wait):
        call.finish(499, None, "client_disconnected")  # no 200: nothing to bill
        return web.Response(status=499)
    if f.omit_usage and isinstance(payload, dict):
        payload, usage_object = {k: v for k, v in payload.items() if k != "usage"}, None
    body = orjson.dumps(payload)
    cut = f.cut_after_chunks is not None or f.cut_before_usage or f.cut_after_headers
    if not f.stall_after_headers_ms and not cut:
        call.finish(200, usage, finish_reason, billable=billable, usage_object=usage_object)
        return web.Response(body=body, status=200, content_type="application/json", headers=call.headers())
    resp = web.StreamResponse(status=200, headers=call.headers({"content-type": "application/json"}))
    resp.content_length = len(body)
    await resp.prepare(request)
    if f.stall_after_headers_ms and not await pause(request, f.stall_after_headers_ms / 1000):
        call.finish(499, usage, "client_disconnected", billable=billable)
        return resp
    if cut:
        call.finish(200, usage, "disconnect", billable=billable)
        drop_connection(request)
    call.finish(200, usage, finish_reason, billable=billable, usage_object=usage_object)
    try:
        await resp.write(body)
        await resp.write_eof()
    except ConnectionResetError:
        pass
    return resp


async def send_stream(call: Call, plan: StreamPlan, ttft: float, interval: float) -> web.StreamResponse:
    """Stream ``plan`` as SSE: ``ttft`` before the headers, ``interval`` between content chunks,
    the call's fault applied (stalls, slow chunks, a cut after N chunks or before the usage).

    Writes are batched when there is no delay between chunks (one write for the
    whole stream), so the fake provider stays cheap for benchmarks.
    """
    f = call.fault or _NO_FAULT
    request = call.request
    if f.chunk_interval_ms is not None:
        interval = f.chunk_interval_ms / 1000
    prompt_only = Usage(plan.usage.prompt_tokens, 0, plan.usage.cached_tokens, plan.usage.cache_write_tokens)
    wait = ttft + f.stall_before_headers_ms / 1000
    if wait > 0 and not await pause(request, wait):
        call.finish(499, None, "client_disconnected", chunks_sent=0)  # no 200: nothing to bill
        return web.Response(status=499)
    resp = web.StreamResponse(
        status=200,
        headers=call.headers(
            {"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", **plan.headers}
        ),
    )
    await resp.prepare(request)
    pending: list[bytes] = list(plan.head)
    queued = 0  # content chunks written or in `pending`
    queued_tokens = 0  # tokens of the chunks in `pending`
    sent_chunks = 0  # content chunks on the wire
    sent_tokens = 0

    def so_far() -> Usage:
        return Usage(
            prompt_only.prompt_tokens, sent_tokens, prompt_only.cached_tokens, prompt_only.cache_write_tokens
        )

    async def flush() -> None:
        nonlocal sent_chunks, sent_tokens, queued_tokens
        if pending:
            await resp.write(b"".join(pending))
            pending.clear()
        sent_chunks = queued
        sent_tokens += queued_tokens
        queued_tokens = 0

    try:
        if f.stall_after_headers_ms and not await pause(request, f.stall_after_headers_ms / 1000):
            call.finish(499, so_far(), "client_disconnected", billable=True, chunks_sent=0)
            return resp
        if f.cut_after_headers:
            call.finish(200, so_far(), "disconnect", billable=True, chunks_sent=0)
            drop_connection(request)
        for idx, chunk in enumerate(plan.chunks):
            if f.cut_after_chunks is not None and idx >= f.cut_after_chunks:
                await flush()
                call.finish(200, so_far(), "disconnect", billable=True, chunks_sent=sent_chunks)
                drop_connection(request)
            if f.stall_after_chunks is not None and idx == f.stall_after_chunks:
                await flush()
                if not await pause(request, f.stall_ms / 1000):
                    call.finish(499, so_far(), "client_disconnected", billable=True, chunks_sent=sent_chunks)
                    return resp
            pending.append(chunk.data)
            queued += 1
            queued_tokens += chunk.tokens
            if interval > 0:
                await flush()
                await asyncio.sleep(interval)
        pending.extend(plan.finish)
        if f.cut_before_usage:
            await flush()
            call.finish(200, so_far(), "disconnect", billable=True, chunks_sent=sent_chunks)
            drop_connection(request)
        sends_usage = plan.usage_event is not None and not f.omit_usage
        if sends_usage and plan.usage_event is not None:
            pending.append(plan.usage_event)
        pending.extend(plan.end)
        call.finish(
            200,
            plan.usage,
            plan.finish_reason,
            billable=True,
            usage_object=plan.usage_object if sends_usage else None,
            chunks_sent=len(plan.chunks),
        )
        await resp.write(b"".join(pending))
        await resp.write_eof()
    except ConnectionResetError:
        # The client went away mid-stream (a cancelled call, a load generator
        # stopping): an outcome to record, not an error to log with a traceback.
        call.finish(499, so_far(), "client_disconnected", billable=True, chunks_sent=sent_chunks)
    return resp
