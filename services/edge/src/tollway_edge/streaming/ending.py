"""How a relayed stream ends and is billed: the tail read after the client
left (:func:`read_tail`, at most :data:`TAIL_BYTES` / :data:`TAIL_SECONDS`),
the terminal event once (:func:`settle`) with its tokens
(:func:`stream_tokens`: the provider's usage, else the estimate), and the
prompt estimate computed at most once (:class:`Once`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from tollway_contracts.catalogue import Prices
from tollway_edge.call import CLIENT_CLOSED, Call
from tollway_edge.redaction import EdgeRedaction, SSERestorer
from tollway_edge.routing.http1 import UpstreamResponse
from tollway_edge.streaming.readers import StreamReader
from tollway_edge.streaming.sse import SSESplitter
from tollway_edge.usage import Tokens, estimated_tokens

TAIL_BYTES = 64 * 1024
"""After the client left, at most this much of the provider's stream is read for its usage, bytes."""
TAIL_SECONDS = 2.0
"""... for at most this long, s (``LiveStreams.tail_seconds`` when the relay is watched)."""


async def read_tail(
    content: UpstreamResponse, splitter: SSESplitter, reader: StreamReader, call: Call, deadline: float
) -> None:
    """After the client left: keep reading the provider's stream (at most
    ``TAIL_BYTES``, until ``deadline`` on ``time.monotonic()``) for its usage
    chunk, so the call is billed exactly rather than estimated. Completion
    tokens of the tail's deltas are counted (the provider produced them)."""
    read = 0
    while reader.tokens() is None and not reader.done and read < TAIL_BYTES:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return
        try:
            async with asyncio.timeout(remaining):
                chunk = await content.readany()
        except (OSError, TimeoutError):  # http1.UpstreamError, the deadline
            return
        finally:
            call.upstream_wait += time.monotonic() - (deadline - remaining)
        read += len(chunk)
        events = reader.filter(splitter.feed(chunk) if chunk else splitter.finish())
        for event in events:
            call.sent_tokens += event.completion_tokens
        if not chunk:
            return


class Once:
    """A prompt estimate computed at most once, on first use."""

    __slots__ = ("_fn", "_value")

    def __init__(self, fn: Callable[[], int]) -> None:
        self._fn = fn
        self._value = -1

    def __call__(self) -> int:
        if self._value < 0:
            self._value = self._fn()
        return self._value


def settle(
    call: Call,
    outcome: str,
    reader: StreamReader,
    prices: Prices,
    restorer: SSERestorer | None,
    redaction: EdgeRedaction | None,
    estimate: Callable[[], int],
) -> None:
    """The stream's terminal event, once: ``completed`` (provider's ``[DONE]``
    or the clean cut) or ``failed`` (provider cut, drain deadline; else the
    client left). Never without tokens and cost: see :func:`stream_tokens`."""
    if call.terminal_sent:
        return
    tokens = stream_tokens(call, outcome, reader, estimate)
    cost = tokens.cost(prices)
    if outcome in ("completed", "cut"):
        if restorer is not None and redaction is not None:
            redaction.prime(call, [restorer.answer])
        call.completed(200, tokens, cost)
    else:
        if call.error_type is None:
            call.status, call.error_type = CLIENT_CLOSED, "client_disconnected"
        call.fail(call.status, call.error_type, tokens, cost)


def stream_tokens(call: Call, outcome: str, reader: StreamReader, estimate: Callable[[], int]) -> Tokens:
    """The stream's tokens: the provider's usage when it arrived (also read
    from the tail after the client left); otherwise — a provider cut, a gone
    client, the drain deadline, admission's cut (whose client got exactly
    ``sent_tokens``) — the estimate: the prompt by ``usage.estimate_prompt_tokens``,
    the completion counted from the relayed deltas, ``usage_estimated``."""
    if outcome != "cut":
        usage = reader.tokens()
        if usage is not None:
            return usage
    call.usage_estimated = True
    return estimated_tokens(estimate(), call.sent_tokens)
