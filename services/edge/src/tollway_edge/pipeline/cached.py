"""The exact response cache on the request path: the entry of an answer
(:func:`cache_entry`), storing a streamed miss (:func:`store_stream`) and
serving a hit (:func:`serve_hit`)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import orjson
from aiohttp import web

from tollway_contracts.catalogue import Deployment
from tollway_edge.cache import (
    CacheUse,
    Entry,
    ResponseCache,
    StreamCollector,
    replay_stream,
)
from tollway_edge.call import Call
from tollway_edge.redaction.answers import answers_on, scan_plain
from tollway_edge.state import EdgeState
from tollway_edge.streaming.relay import CLIENT_GONE, STREAM_HEADERS
from tollway_edge.usage import Tokens

JSON = "application/json"


def cache_entry(call: Call, obj: dict[str, Any], tokens: Tokens, deployments: Sequence[Deployment]) -> Entry:
    """The cache entry of a call's answer, naming the deployment that answered and its regions."""
    answered = next(
        (
            d
            for d in deployments
            if (d.name is not None and d.name == call.deployment)
            or (d.name is None and d.provider == call.provider and d.upstream_model == call.upstream_model)
        ),
        None,
    )
    return Entry(
        answer=obj,
        tokens=tokens,
        provider=call.provider,
        upstream_model=call.upstream_model,
        deployment=call.deployment,
        regions=frozenset() if answered is None else answered.regions,
    )


async def store_stream(
    cache: ResponseCache,
    call: Call,
    use: CacheUse,
    collector: StreamCollector,
    deployments: Sequence[Deployment],
) -> None:
    """Store a streamed miss's answer (assembled by ``collector``) when the stream
    completed whole with the provider's usage."""
    tokens = collector.tokens()
    if not collector.done or call.error_type is not None or call.status != 200 or tokens is None:
        return
    answer = collector.answer(tokens)
    if answer is not None:
        await cache.put(use.key, cache_entry(call, answer, tokens, deployments).encode(), use.ttl_seconds)


async def serve_hit(
    request: web.Request, state: EdgeState, call: Call, hit: Entry, wants_usage: bool
) -> web.StreamResponse:
    """Answer from the cache: the stored answer, restored with this call's own
    redaction mapping, as JSON or replayed as a stream; metered as a call with the
    original tokens, zero provider attempts and cost 0 (``response_cache_hit``)."""
    call.provider, call.upstream_model, call.deployment = hit.provider, hit.upstream_model, hit.deployment
    call.response_cache_hit = True
    call.started()
    try:
        obj = hit.answer
        raw = orjson.dumps(obj)
        if answers_on(call.redaction_policy) and state.redaction is not None:
            obj = orjson.loads(raw)  # the stored answer is the provider's: scanned for this call's policy
            raw = await scan_plain(state.redaction, call, obj, hit.tokens, 0)
        if call.redaction_policy is not None and state.redaction is not None:
            raw = state.redaction.restore_plain(call, obj, raw)
            obj = orjson.loads(raw)
        call.completed(200, hit.tokens, 0)
        if not call.stream:
            return web.Response(body=raw, status=200, content_type=JSON)
        resp = web.StreamResponse(status=200, headers=STREAM_HEADERS)
        with contextlib.suppress(*CLIENT_GONE):  # a client that left was still served (and billed) in full
            await resp.prepare(request)
            await resp.write(replay_stream(obj, wants_usage))
            await resp.write_eof()
        return resp
    finally:
        await call.release()
