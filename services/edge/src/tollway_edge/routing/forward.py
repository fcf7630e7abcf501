"""Forwarding with fallback (DESIGN.md "The request path" 5).

The catalogue model's routes are tried in order. A route falls back to the
next on a missing credential, a connection error, a timeout before the
answer, or a 429/5xx answer (except on the last route, whose answer is
returned as is). ``started`` is emitted once, just before the first attempt;
every attempt counts in ``attempts``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from typing import Protocol

import aiohttp
from opentelemetry.trace import Span, Tracer

from tollway_contracts.catalogue import Route
from tollway_edge import tracing
from tollway_edge.call import Call
from tollway_edge.errors import upstream_unreachable
from tollway_edge.routing.upstream import Upstream


class Outbound(Protocol):
    """What forwarding needs from an endpoint's parsed request."""

    def encoded(self, upstream_model: str) -> bytes:
        """The body to send, naming ``upstream_model`` (encoded at most once per model)."""


async def forward(
    call: Call,
    upstreams: Mapping[str, Upstream],
    routes: Sequence[Route],
    outbound: Outbound,
    path: str,
    stream: bool,
) -> tuple[aiohttp.ClientResponse, bytes | None]:
    """Send the call to the first route that answers.

    Args:
        path: the provider path of the endpoint, e.g. ``/chat/completions``.
        stream: a 200 answer is returned unread (the relay reads it).

    Returns:
        ``(response, body)``: ``body`` is None for a streamed 200 (the
        response is still open); otherwise the answer's bytes.

    Raises:
        tollway_edge.errors.EdgeError: 502 when no route answered
            (``upstream_timeout``, ``upstream_unavailable``, ``upstream_<status>``...).
    """
    last = len(routes) - 1
    last_error = "upstream_unavailable"
    for index, route in enumerate(routes):
        upstream = upstreams[route.provider]
        call.provider = upstream.name
        call.upstream_model = route.upstream_model
        call.started()
        await call.journaled()  # `started` is on disk (page cache) before the provider hears of the call
        call.attempts += 1
        if not upstream.usable:
            last_error = "upstream_credential_missing"
            continue
        headers = dict(upstream.headers)
        headers["x-request-id"] = call.request_id
        span = None
        if call.span is not None and call.tracer is not None:
            span = _attempt_span(call.tracer, upstream, route.upstream_model, path, call.attempts)
            tracing.inject(span, headers)
        t = time.perf_counter()
        resp: aiohttp.ClientResponse | None = None
        raw: bytes | None = None
        try:
            async with asyncio.timeout(upstream.timeout_seconds):
                resp = await upstream.session.post(
                    upstream.url_for(path, route.upstream_model),
                    data=outbound.encoded(route.upstream_model),
                    headers=headers,
                )
                if not (stream and resp.status == 200):
                    raw = await resp.read()
        except TimeoutError:
            last_error = "upstream_timeout"
            if resp is not None:
                resp.close()
            if span is not None:
                tracing.end_client_span(span, None, last_error)
            continue
        except (aiohttp.ClientError, OSError):
            last_error = "upstream_unavailable"
            if resp is not None:
                resp.close()
            if span is not None:
                tracing.end_client_span(span, None, last_error)
            continue
        except asyncio.CancelledError:  # the client went away: the span still ends
            if span is not None:
                tracing.end_client_span(span, None, "cancelled")
            raise
        finally:
            call.upstream_wait += time.perf_counter() - t
        status = resp.status
        if span is not None:
            if raw is None:  # a stream being relayed: the span ends with the relay (pipeline.handle)
                span.set_attribute("http.response.status_code", status)
                call.upstream_span = span
            else:
                tracing.end_client_span(span, status)
        if (status == 429 or status >= 500) and index < last:
            last_error = f"upstream_{status}"
            resp.release()
            continue
        return resp, raw
    raise upstream_unreachable(last_error)


def _attempt_span(tracer: Tracer, upstream: Upstream, upstream_model: str, path: str, attempt: int) -> Span:
    """The CLIENT span of one provider attempt (GenAI conventions; no text)."""
    operation = tracing.OPERATIONS.get(path, path)
    return tracing.client_span(
        tracer,
        f"{operation} {upstream_model}",
        {
            "gen_ai.operation.name": operation,
            "gen_ai.provider.name": upstream.kind.name,
            "gen_ai.request.model": upstream_model,
            "server.address": upstream.url_for(path, upstream_model).host or "",
            "http.request.method": "POST",
            "tollway.provider": upstream.name,
            "tollway.attempt": attempt,
        },
    )
