"""``POST /v1/messages/count_tokens``: Anthropic's token counting, forwarded.

Counting consumes no tokens, so the call is authenticated (``x-api-key`` or
Bearer), checked against the catalogue and the key's allow-list, and
rate-limited on the key's **requests per minute** limits only — never
charged to token-per-minute limits, budgets or concurrency — and emits **no
usage event** (``Call.metered = False``): only the metric
``tollway_count_tokens_total{status,model}``.

It goes to the model's ``anthropic`` routes (in order, fallback as usual;
the client's ``anthropic-version``/``anthropic-beta`` passed through). A
model with no such route is a 400 ``unsupported``: the edge has no
tokenizer offline, and an OpenAI provider cannot count. Errors are
Anthropic-format.

Redaction: the key's policy applies as on ``/v1/messages`` (the same walk
and field table): under ``redact`` the provider counts the redacted body
(placeholders may count differently from the values), ``block`` refuses a
body holding personal data; nothing unscanned is sent.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace

from aiohttp import web

from tollway_contracts.catalogue import Deployment, RetryPolicy
from tollway_contracts.limits import Limit
from tollway_edge.auth import Principal, authenticate
from tollway_edge.call import Call
from tollway_edge.endpoints.messages import MessagesRequest
from tollway_edge.endpoints.openai_json import load_with_model
from tollway_edge.errors import (
    EdgeError,
    bad_request,
    model_not_allowed,
    model_not_found,
    model_not_in_allowed_regions,
    unsupported,
)
from tollway_edge.metrics import COUNT_TOKENS
from tollway_edge.pipeline import provider_error_body, read_body
from tollway_edge.redaction.fields import ANTHROPIC_MESSAGES_FIELDS
from tollway_edge.routing.forward import Target, forward
from tollway_edge.routing.plan import plan
from tollway_edge.routing.upstream import Upstream
from tollway_edge.state import CALL_KEY, STATE, EdgeState

PATH = "/messages/count_tokens"
_CLIENT_HEADERS = ("anthropic-version", "anthropic-beta")


def requests_only(principal: Principal) -> Principal:
    """The principal with only its requests-per-minute limits (tokens per minute,
    budgets and concurrency removed), so admission counts the call and reserves nothing."""
    limits: list[Limit] = [
        limit.replace(tokens_per_minute=None, max_concurrent=None, budget_micro_usd=None)
        for limit in principal.limits or ()
        if limit.requests_per_minute is not None
    ]
    return replace(principal, limits=limits)


async def forward_unmetered(
    call: Call,
    state: EdgeState,
    upstreams: Mapping[str, Upstream],
    retry_of: Callable[[Deployment], RetryPolicy],
    deployments: Sequence[Deployment],
    targets: Callable[[], Awaitable[Mapping[str, Target]]],
    anthropic: bool,
) -> web.Response:
    """Forward a call that bills nothing (``count_tokens``, a stored response's
    read or delete) and answer the provider's JSON reply as it is (200) or in
    the client's error format (``anthropic``: Anthropic's, else OpenAI's).

    The caller has admitted ``call.ticket`` (requests only, see
    :func:`requests_only`) or none; whatever happens it is settled unmetered
    (no usage event will settle it) and the call released here. ``targets``
    builds the provider targets after admission (it may redact: a refusal
    still settles the ticket). Open circuit breakers are skipped like on every
    other call. ``call.status`` / ``call.error_type`` are set from the reply.

    Raises:
        tollway_edge.errors.EdgeError: what ``targets`` or ``routing.forward``
            raise (no deployment answered: 502/504; redaction refusals).
    """
    try:
        answer = await forward(call, upstreams, deployments, await targets(), False, retry_of, state.breakers)
    finally:
        if call.ticket is not None and state.admission is not None:
            await state.admission.settle_unmetered(call.ticket)
        await call.release()
    resp, raw = answer.response, answer.body
    assert raw is not None  # not a stream: forward read the answer
    call.status = resp.status
    if resp.status == 200:
        return web.Response(body=raw, status=200, content_type="application/json")
    out, call.error_type = provider_error_body(resp.status, raw, anthropic, False)
    return web.Response(body=out, status=resp.status, content_type="application/json")


async def count_tokens(request: web.Request) -> web.StreamResponse:
    """``POST /v1/messages/count_tokens`` (module doc).

    Raises:
        tollway_edge.errors.EdgeError: 401, 400 (body; ``unsupported``; the
            redaction step's refusals), 403, 404, 413, 429 (requests per
            minute), 502 (no route answered), 503 (redactor unavailable).
    """
    state = request.app[STATE]
    call = request[CALL_KEY]
    catalogue, upstreams = state.catalogue, state.upstreams  # kept through a catalogue reload
    call.metered = False  # counting consumes nothing: no usage event, a metric only
    try:
        call.principal = await authenticate(state.snapshot, state.sync, state.pepper, request.headers)
        body = load_with_model(await read_body(request, state.max_body_bytes), call)
        messages = body.get("messages")
        if type(messages) is not list or not messages:
            raise bad_request("'messages' must be a non-empty array.", "messages", "invalid_request")
        model = body["model"]
        entry = catalogue.models.get(model)
        if entry is None:
            raise model_not_found(model)
        if not call.principal.may_use(model):
            raise model_not_allowed(model)
        deployments = plan(
            entry.deployments,
            allowed_regions=call.principal.allowed_regions,
            serves=lambda d: upstreams[d.provider].kind.serves(PATH),
        )
        if not deployments:
            if any(upstreams[d.provider].kind.serves(PATH) for d in entry.deployments):
                raise model_not_in_allowed_regions(model)  # residency: never counted elsewhere
            kinds = ", ".join(sorted({upstreams[d.provider].kind.name for d in entry.deployments}))
            raise unsupported(PATH, model, kinds)
        if state.admission is not None:
            call.ticket = await state.admission.admit(
                requests_only(call.principal), model, entry, 0, 0, call.request_id, False
            )

        async def targets() -> dict[str, Target]:
            redacted = body
            if state.redaction is not None:  # counted on what the provider may see (redacted)
                redacted = await state.redaction.apply(call, body, ANTHROPIC_MESSAGES_FIELDS)
            passed = {h: request.headers[h] for h in _CLIENT_HEADERS if h in request.headers}
            target = Target(PATH, MessagesRequest(redacted), passed)
            return {d.provider: target for d in deployments}

        return await forward_unmetered(call, state, upstreams, catalogue.retry_of, deployments, targets, True)
    except EdgeError as err:
        call.status, call.error_type = err.status, err.code
        raise
    finally:
        label = call.model if call.model in state.catalogue.models else "other" if call.model else "none"
        COUNT_TOKENS.labels(str(call.status or 500), label).inc()
