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
from dataclasses import dataclass, field
from typing import Protocol

import aiohttp

from tollway_contracts.catalogue import Route
from tollway_edge.call import Call
from tollway_edge.errors import upstream_unreachable
from tollway_edge.routing.upstream import Upstream


class Outbound(Protocol):
    """What forwarding needs from an endpoint's parsed request."""

    def encoded(self, upstream_model: str) -> bytes:
        """The body to send, naming ``upstream_model`` (encoded at most once per model)."""


@dataclass(frozen=True, slots=True)
class Target:
    """What to send to a provider of one kind.

    Attributes:
        path: the provider API path, e.g. ``/chat/completions`` or ``/messages``.
        outbound: the body (the client's, or its translation).
        headers: client headers passed through (e.g. ``anthropic-version`` to a
            native Anthropic provider); they replace the provider's defaults.
    """

    path: str
    outbound: Outbound
    headers: Mapping[str, str] = field(default_factory=dict)


async def forward(
    call: Call,
    upstreams: Mapping[str, Upstream],
    routes: Sequence[Route],
    targets: Mapping[str, Target],
    stream: bool,
) -> tuple[aiohttp.ClientResponse, bytes | None]:
    """Send the call to the first route that answers.

    Args:
        targets: by provider name: the path, body and headers for that
            provider (every route's provider has one).
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
        target = targets[upstream.name]
        headers = dict(upstream.headers)
        headers.update(target.headers)
        headers["x-request-id"] = call.request_id
        t = time.perf_counter()
        resp: aiohttp.ClientResponse | None = None
        raw: bytes | None = None
        try:
            async with asyncio.timeout(upstream.timeout_seconds):
                resp = await upstream.session.post(
                    upstream.url_for(target.path, route.upstream_model),
                    data=target.outbound.encoded(route.upstream_model),
                    headers=headers,
                )
                if not (stream and resp.status == 200):
                    raw = await resp.read()
        except TimeoutError:
            last_error = "upstream_timeout"
            if resp is not None:
                resp.close()
            continue
        except (aiohttp.ClientError, OSError):
            last_error = "upstream_unavailable"
            if resp is not None:
                resp.close()
            continue
        finally:
            call.upstream_wait += time.perf_counter() - t
        status = resp.status
        if (status == 429 or status >= 500) and index < last:
            last_error = f"upstream_{status}"
            resp.release()
            continue
        return resp, raw
    raise upstream_unreachable(last_error)
