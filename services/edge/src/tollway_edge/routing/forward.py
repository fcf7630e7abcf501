"""Forwarding with retries and fallback (DESIGN.md "The request path" 5; issue 13).

The call's plan (``routing.plan``) is tried in order. On one deployment, a
retryable failure is tried again after a jittered exponential backoff
(tenacity's ``wait_random_exponential``), up to the deployment's
``retry.max_attempts``: a refused/failed connection, or a status in
``retry.retryable_statuses`` (a 429's ``Retry-After`` is honoured up to
``retry.max_retry_after_seconds``; a longer one is not waited for). Then, or
at once on a timeout, a non-retryable 5xx, a missing credential or a stream
that ended or stayed silent before its first byte, the call falls back to the
next deployment. The last deployment's own 429/5xx answer is returned as is.
At most :data:`MAX_ATTEMPTS_PER_CALL` attempts are made per call.

A streamed 200 is only accepted once its first body byte arrived within the
deployment's first-byte timeout: until then nothing reached the client, so
the next deployment can still serve it. That first chunk is handed to the
relay with the open response.

``started`` is emitted once, just before the first attempt; each attempt
appends one ``AttemptDetail`` to the call and counts in ``attempts``; the
deployment that answered is the call's ``deployment``/``provider``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from opentelemetry.trace import Span, Tracer
from tenacity import AsyncRetrying, RetryCallState, wait_random_exponential

from tollway_contracts.catalogue import Deployment, RetryPolicy
from tollway_contracts.events import AttemptDetail
from tollway_edge import tracing
from tollway_edge.call import Call
from tollway_edge.errors import upstream_unreachable
from tollway_edge.routing.breaker import Breakers, breaker_key
from tollway_edge.routing.http1 import UpstreamConnectError, UpstreamResponse
from tollway_edge.routing.upstream import Upstream

MAX_ATTEMPTS_PER_CALL = 8
"""Provider attempts of one call, retries and fallbacks together: a call
never multiplies load on a failing fleet beyond this."""

_FALLBACK_STATUS = 429
"""A 429 or any 5xx falls back to the next deployment (after any retries)."""


class Outbound(Protocol):
    """What forwarding needs from an endpoint's parsed request."""

    def encoded(self, upstream_model: str) -> bytes:
        """The body to send, naming ``upstream_model`` (encoded at most once per model)."""


@dataclass(slots=True)
class Answer:
    """What a deployment answered.

    Attributes:
        response: the provider's response; open when ``body`` is None.
        body: the answer's bytes (non-streamed, or any non-200), else None.
        first: a streamed 200's first body chunk (non-empty), else None.
        breaker: the answering deployment's breaker key (``routing.breaker``),
            so a stream that fails later can still be counted against it.
    """

    response: UpstreamResponse
    body: bytes | None
    first: bytes | None
    breaker: str | None = None


@dataclass(slots=True)
class _Failure:
    error_type: str  # the AttemptDetail's error_type and the 502 code if nothing answers
    status: int | None = None
    retryable: bool = False
    wait_seconds: float | None = None  # a bounded Retry-After; None = the backoff


Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Target:
    """What to send to a provider of one kind.

    Attributes:
        path: the provider API path, e.g. ``/chat/completions`` or ``/messages``.
        outbound: the body (the client's, or its translation); sent only with ``POST``.
        headers: client headers passed through (e.g. ``anthropic-version`` to a
            native Anthropic provider); they replace the provider's defaults.
        method: the HTTP method (``GET``/``DELETE`` send no body: stored responses).
        query: query parameters passed through (added to the kind's own, e.g.
            Azure's ``api-version``).
    """

    path: str
    outbound: Outbound
    headers: Mapping[str, str] = field(default_factory=dict)
    method: str = "POST"
    query: Sequence[tuple[str, str]] = ()


async def forward(
    call: Call,
    upstreams: Mapping[str, Upstream],
    deployments: Sequence[Deployment],
    targets: Mapping[str, Target],
    stream: bool,
    retry_of: Callable[[Deployment], RetryPolicy],
    breakers: Breakers | None = None,
    sleep: Sleep = asyncio.sleep,
) -> Answer:
    """Send the call along its plan until a deployment answers (see module doc).

    Args:
        deployments: the call's plan, in order (``routing.plan``).
        targets: by provider name: the path, body and headers for that
            provider (every deployment's provider has one).
        stream: a streamed 200 is returned open, with its first chunk.
        retry_of: the retry policy of a deployment (``Catalogue.retry_of``).
        breakers: the deployments' circuit breakers (``routing.breaker``): an
            open one is skipped without an attempt; every attempt's outcome
            is counted. None = no breakers.

    Returns:
        The :class:`Answer` of the deployment that answered.

    Raises:
        tollway_edge.errors.EdgeError: 502 when no deployment answered
            (``upstream_timeout``, ``upstream_unavailable``,
            ``upstream_<status>``, ``upstream_credential_missing``,
            ``upstream_circuit_open`` when every breaker was open ...).
    """
    last = len(deployments) - 1
    last_error = "upstream_unavailable"
    details: list[AttemptDetail] = []
    call.attempt_details = details
    for index, deployment in enumerate(deployments):
        upstream = upstreams[deployment.provider]
        policy = retry_of(deployment)
        key = breaker_key(deployment)
        if breakers is not None and upstream.usable:
            verdict = breakers.check(key)
            if verdict == "skip" or (verdict == "probe" and not await breakers.claim_probe(key)):
                if call.attempts == 0:
                    last_error = "upstream_circuit_open"
                continue
        for n in range(1, policy.max_attempts + 1):
            if call.attempts >= MAX_ATTEMPTS_PER_CALL:
                raise upstream_unreachable(last_error)
            if n > 1 and breakers is not None and breakers.check(key) != "allow":
                break  # the failures so far opened it: fall back now
            call.deployment = deployment.name
            call.provider = upstream.name
            call.upstream_model = deployment.upstream_model
            call.started()
            await call.journaled()  # `started` is on disk (page cache) before the provider hears of the call
            call.attempts += 1
            result = await _attempt(call, upstream, deployment, targets[upstream.name], stream)
            if breakers is not None and upstream.usable:
                breakers.record(key, _served(result))
            if isinstance(result, Answer):
                status = result.response.status
                fails = status == _FALLBACK_STATUS or status >= 500
                retry = fails and status in policy.retryable_statuses and n < policy.max_attempts
                wait = _retry_after(result.response) if retry and status == 429 else None
                if wait is not None and wait > policy.max_retry_after_seconds:
                    retry = False  # asked to wait longer than the policy allows: fall back now
                if not fails or (index == last and not retry):
                    details.append(
                        _detail(deployment, upstream, status, None if not fails else f"upstream_{status}")
                    )
                    result.breaker = key
                    return result
                details.append(_detail(deployment, upstream, status, f"upstream_{status}"))
                result.response.release()
                last_error = f"upstream_{status}"
                if not retry:
                    break
                await _backoff(call, sleep, policy, n, wait)
                continue
            details.append(_detail(deployment, upstream, result.status, result.error_type))
            last_error = result.error_type
            if not (result.retryable and policy.retry_connect_errors and n < policy.max_attempts):
                break
            await _backoff(call, sleep, policy, n, None)
    raise upstream_unreachable(last_error)


async def _attempt(
    call: Call, upstream: Upstream, deployment: Deployment, target: Target, stream: bool
) -> Answer | _Failure:
    """One request to one deployment, within its timeouts, in its CLIENT span
    when tracing is on."""
    if not upstream.usable:
        return _Failure("upstream_credential_missing")
    headers = dict(upstream.headers)
    headers.update(target.headers)
    headers["x-request-id"] = call.request_id
    if call.span is None or call.tracer is None:
        return await _send(call, upstream, deployment, target, stream, headers)
    span = _attempt_span(call.tracer, upstream, deployment.upstream_model, target, call.attempts)
    tracing.inject(span, headers)
    try:
        result = await _send(call, upstream, deployment, target, stream, headers)
    except asyncio.CancelledError:  # the client went away: the span still ends
        tracing.end_client_span(span, None, "cancelled")
        raise
    if isinstance(result, Answer):
        if result.body is None:  # a stream being relayed: the span ends with the relay (pipeline.handle)
            span.set_attribute("http.response.status_code", result.response.status)
            call.upstream_span = span
        else:
            tracing.end_client_span(span, result.response.status)
    else:
        tracing.end_client_span(span, result.status, result.error_type)
    return result


async def _send(
    call: Call,
    upstream: Upstream,
    deployment: Deployment,
    target: Target,
    stream: bool,
    headers: dict[str, str],
) -> Answer | _Failure:
    """POST the call to one deployment; a streamed 200 is read up to its first chunk."""
    timeouts = upstream.timeouts_for(deployment, stream)
    t = time.perf_counter()
    resp: UpstreamResponse | None = None
    try:
        async with asyncio.timeout(timeouts.deadline_seconds):
            url = upstream.url_for(target.path, deployment.upstream_model)
            url = url.extend_query(target.query) if target.query else url
            # GET/DELETE of a stored response: no body
            body = target.outbound.encoded(deployment.upstream_model) if target.method == "POST" else None
            resp = await upstream.client.request(target.method, url, headers, body, timeouts.client)
            if stream and resp.status == 200:
                first = await resp.content.readany()
                if not first:
                    resp.close()
                    return _Failure("upstream_stream_error", 200)  # ended before its first byte
                call.ttft = time.perf_counter()
                return Answer(resp, None, first)
            return Answer(resp, await resp.read(), None)
    except TimeoutError:
        if resp is not None:
            resp.close()
        return _Failure("upstream_timeout", None if resp is None else resp.status)
    except UpstreamConnectError:
        return _Failure("upstream_unavailable", retryable=True)  # refused, unreachable, DNS, TLS
    except OSError:  # http1.UpstreamError: the connection failed or the answer was malformed
        if resp is not None:
            resp.close()
        return _Failure("upstream_unavailable", None if resp is None else resp.status)
    finally:
        call.upstream_wait += time.perf_counter() - t


def _served(result: Answer | _Failure) -> bool | None:
    """The attempt's outcome for its breaker: False for a failure (connect,
    timeout, 5xx, a stream ended before its first byte), None for a 429
    (busy, not broken), else True."""
    if isinstance(result, _Failure):
        return False
    status = result.response.status
    if status >= 500:
        return False
    return None if status == _FALLBACK_STATUS else True


def _detail(
    deployment: Deployment, upstream: Upstream, status: int | None, error_type: str | None
) -> AttemptDetail:
    return AttemptDetail(
        deployment=deployment.name,
        provider=upstream.name,
        upstream_model=deployment.upstream_model,
        status_code=status,
        error_type=error_type,
    )


def _retry_after(response: UpstreamResponse) -> float | None:
    """A 429's ``Retry-After`` in seconds, or None when absent or an HTTP date
    (then the backoff applies)."""
    raw = response.headers.get("Retry-After")
    if raw is None:
        return None
    try:
        return max(float(raw), 0.0)
    except ValueError:
        return None


_RETRYING = AsyncRetrying()


async def _backoff(call: Call, sleep: Sleep, policy: RetryPolicy, attempt: int, wait: float | None) -> None:
    """Sleep before retrying the same deployment: ``wait`` (a bounded
    ``Retry-After``) or tenacity's full-jitter exponential backoff for the
    ``attempt``-th attempt. Counted as provider wait, not edge overhead."""
    if wait is None:
        state = RetryCallState(_RETRYING, None, (), {})
        state.attempt_number = attempt
        wait = wait_random_exponential(
            multiplier=policy.backoff_initial_seconds, max=policy.backoff_max_seconds
        )(state)
    t = time.perf_counter()
    await sleep(wait)
    call.upstream_wait += time.perf_counter() - t


def _attempt_span(
    tracer: Tracer, upstream: Upstream, upstream_model: str, target: Target, attempt: int
) -> Span:
    """The CLIENT span of one provider attempt (GenAI conventions; no text)."""
    path = target.path
    operation = tracing.OPERATIONS.get(path, path)
    return tracing.client_span(
        tracer,
        f"{operation} {upstream_model}",
        {
            "gen_ai.operation.name": operation,
            "gen_ai.provider.name": upstream.kind.name,
            "gen_ai.request.model": upstream_model,
            "server.address": upstream.url_for(path, upstream_model).host or "",
            "http.request.method": target.method,
            "tollway.provider": upstream.name,
            "tollway.attempt": attempt,
        },
    )
