"""The stream relay (DESIGN.md "The request path" 5): upstream bytes →
:class:`~tollway_edge.streaming.sse.SSESplitter` events → usage read (and the
usage-only chunk dropped unless the client asked) → placeholders restored
(reversible redaction) → completion tokens counted and the reservation
extended (or the stream cut) → written to the client.

Every complete event is forwarded as soon as its bytes arrive; the events of
one upstream read go out in one write. The stream ends in one of four ways:
- the provider's ``[DONE]``: ``completed`` with the provider's usage;
- admission refuses an extension: the terminator's clean end
  (``finish_reason: "length"``), ``completed`` with ``error_type:
  "stream_limit_reached"``, billed for what the client received;
- the provider fails or ends without ``[DONE]``: the terminator's error
  event (the SDK raises), ``failed`` with ``upstream_stream_error``;
- the client goes away: ``failed`` with ``client_disconnected`` (499).

The terminal event is appended to the usage journal and written (one loop
pass, ``Call.journaled``) before the bytes that end the stream (``[DONE]``,
the clean end, the error event) are written: a client that saw the end of
its stream was billed durably.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

import aiohttp
from aiohttp import web

from tollway_contracts.catalogue import Prices
from tollway_edge.admission import EdgeAdmission, Ticket
from tollway_edge.call import CLIENT_CLOSED, Call
from tollway_edge.redaction import EdgeRedaction, SSERestorer
from tollway_edge.streaming.sse import SSEEvent, SSESplitter
from tollway_edge.streaming.terminator import Terminator
from tollway_edge.usage import Tokens, extract_usage

_HEADERS = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
_PROVIDER_CUT = "The provider ended the stream before the answer was complete."
_CLIENT_GONE = (ConnectionResetError, aiohttp.ClientConnectionResetError, RuntimeError)


class StreamReader(Protocol):
    """The relay's view of one stream format (provider format -> client format).

    Attributes:
        done: True once the provider's stream ended as a whole answer.
    """

    done: bool

    def filter(self, events: list[SSEEvent]) -> list[SSEEvent]:
        """The client's events for these provider events (maybe rewritten, maybe none)."""

    def close(self) -> list[SSEEvent]:
        """The provider's bytes ended: any events that end the answer (maybe none)."""

    def tokens(self) -> Tokens | None:
        """The provider's usage so far (OpenAI's meaning), or None."""


class UsageReader:
    """OpenAI chunks, relayed as they are: reads the provider's ``usage`` from the
    events and drops the usage-only chunk (``choices: []``) unless the client asked
    for usage.

    Attributes:
        usage: the last ``usage`` object seen (a dict), or None.
        done: True once ``[DONE]`` passed.
    """

    __slots__ = ("_forward_usage", "usage", "done")

    def __init__(self, forward_usage_chunk: bool) -> None:
        self._forward_usage = forward_usage_chunk
        self.usage: dict[str, Any] | None = None
        self.done = False

    def filter(self, events: list[SSEEvent]) -> list[SSEEvent]:
        """The events to forward (``events`` itself when none is dropped).
        A content event is never parsed here: only events whose bytes may
        hold a non-null ``usage``."""
        if len(events) == 1:
            raw = events[0].raw
            if b'"usage"' not in raw and b"[DONE]" not in raw:
                return events  # the common case: one content event
        kept: list[SSEEvent] | None = None
        for i, event in enumerate(events):
            drop = False
            if b"[DONE]" in event.raw and event.is_done:
                self.done = True
            elif event.may_carry_usage():
                obj = event.json()
                usage = obj.get("usage") if type(obj) is dict else None
                if type(usage) is dict:
                    self.usage = usage
                    drop = not self._forward_usage and not obj.get("choices")
            if drop:
                if kept is None:
                    kept = events[:i]
            elif kept is not None:
                kept.append(event)
        return events if kept is None else kept

    def close(self) -> list[SSEEvent]:
        """Nothing: an OpenAI stream ends with the provider's own ``[DONE]``."""
        return []

    def tokens(self) -> Tokens | None:
        """The last ``usage`` seen, read (``usage.extract_usage``)."""
        return extract_usage(self.usage)


async def _cover(
    admission: EdgeAdmission, call: Call, ticket: Ticket, events: list[SSEEvent], n: int
) -> tuple[list[SSEEvent], int, bool]:
    """Extend the stream's reservation to cover ``n`` more completion tokens.

    Asks for the whole deficit (at least ``stream_extend_tokens``) at once;
    when that is refused, goes event by event, asking for exactly what each
    event needs, so the client gets every token the limits allow.

    Returns:
        ``(events to forward, their tokens, cut)``: all of ``events`` when
        covered; otherwise the leading events that fit and ``cut=True``.
    """
    need = call.sent_tokens + n - ticket.reserved_out
    if await admission.extend(ticket, max(need, admission.stream_step)):
        return events, n, False
    used = 0
    for i, event in enumerate(events):
        k = event.completion_tokens
        short = call.sent_tokens + used + k - ticket.reserved_out
        if short > 0 and not await admission.extend(ticket, short):
            return events[:i], used, True
        used += k
    return events, used, False


async def relay_stream(
    request: web.Request,
    call: Call,
    upstream: aiohttp.ClientResponse,
    *,
    terminator: Terminator,
    client_wants_usage: bool,
    prices: Prices,
    admission: EdgeAdmission | None,
    redaction: EdgeRedaction | None,
    reader: StreamReader | None = None,
) -> web.StreamResponse:
    """Relay an upstream 200 event stream to the client and meter it (see module doc).

    Args:
        reader: the stream's format (``streaming.formats``: Anthropic's events,
            or a translation); default: OpenAI chunks (:class:`UsageReader`).

    Returns:
        The (already written) stream response.
    """
    splitter = SSESplitter()
    restorer = redaction.stream_restorer(call) if redaction is not None else None
    if reader is None:
        reader = UsageReader(forward_usage_chunk=client_wants_usage)
    ticket = call.ticket if admission is not None else None
    out = web.StreamResponse(status=200, headers=_HEADERS)
    outcome = "failed"
    call.status = 200
    try:
        try:
            await out.prepare(request)
        except (ConnectionResetError, aiohttp.ClientConnectionResetError):
            call.status, call.error_type = CLIENT_CLOSED, "client_disconnected"
            return out
        content = upstream.content
        observed = False
        while True:
            t = time.perf_counter()
            try:
                chunk: bytes | None = await content.readany()
            except (aiohttp.ClientError, OSError, TimeoutError):
                chunk = None  # the provider failed mid-stream: a partial event is dropped
            t_read = time.perf_counter()
            call.upstream_wait += t_read - t
            if chunk:
                if call.ttft is None:
                    call.ttft = t_read
                events = splitter.feed(chunk)
            else:
                events = splitter.finish() if chunk is not None else []
            tail = b""
            if not chunk:
                events = reader.filter(events) + reader.close()
                reader_done = True
            else:
                reader_done = False
            if events:
                if not reader_done:
                    events = reader.filter(events)
                if restorer is not None:
                    events = restorer.restore(events)
                if not observed and events:
                    terminator.observe(events[0])
                    observed = True
                if ticket is not None and admission is not None:
                    n = 0
                    for event in events:
                        n += event.completion_tokens
                    if n and call.sent_tokens + n > ticket.reserved_out:
                        events, n, cut = await _cover(admission, call, ticket, events, n)
                        if cut:
                            outcome = "cut"
                            call.error_type = "stream_limit_reached"
                    call.sent_tokens += n
                    if outcome == "cut":
                        tail = terminator.clean_end(
                            ticket.prompt_tokens, call.sent_tokens, client_wants_usage
                        )
            if not chunk and outcome != "cut":
                if reader.done:
                    outcome = "completed"
                else:
                    call.error_type = "upstream_stream_error"
                    tail = terminator.error_end(_PROVIDER_CUT, "upstream_stream_error")
            if len(events) == 1:
                data = events[0].raw + tail if tail else events[0].raw
            else:
                data = b"".join([e.raw for e in events]) + tail if events else tail
            if (outcome == "cut" or reader.done or not chunk) and not call.terminal_sent:
                ending = "cut" if outcome == "cut" else "completed" if reader.done else "failed"
                _settle(call, ending, reader, ticket, prices, restorer, redaction)
                await call.journaled()  # billed durably before the client sees its stream end
            if data:
                try:
                    await out.write(data)
                except _CLIENT_GONE:
                    if not call.terminal_sent:  # once journaled, the call's outcome is fixed
                        call.status, call.error_type = CLIENT_CLOSED, "client_disconnected"
                    outcome = "failed"
                    break
            if outcome == "cut" or not chunk:
                break
        if outcome != "failed" or call.error_type == "upstream_stream_error":
            try:
                await out.write_eof()
            except _CLIENT_GONE:
                pass
        return out
    finally:
        upstream.release() if outcome == "completed" else upstream.close()
        _settle(call, outcome, reader, ticket, prices, restorer, redaction)


def _settle(
    call: Call,
    outcome: str,
    reader: StreamReader,
    ticket: Ticket | None,
    prices: Prices,
    restorer: SSERestorer | None,
    redaction: EdgeRedaction | None,
) -> None:
    """The stream's terminal event, once: ``completed`` (provider's ``[DONE]``
    or the clean cut) or ``failed`` (provider cut; else the client left)."""
    if call.terminal_sent:
        return
    tokens = _tokens(call, outcome, reader, ticket)
    cost = None if tokens is None else tokens.cost(prices)
    if outcome in ("completed", "cut"):
        if restorer is not None and redaction is not None:
            redaction.prime(call, [restorer.answer])
        call.completed(200, tokens, cost)
    else:
        if call.error_type is None:
            call.status, call.error_type = CLIENT_CLOSED, "client_disconnected"
        call.fail(call.status, call.error_type, tokens, cost)


def _tokens(call: Call, outcome: str, reader: StreamReader, ticket: Ticket | None) -> Tokens | None:
    """The stream's tokens: the provider's usage, or for a cut stream what the
    client received (the provider's usage never arrives; prompt at its bound)."""
    if outcome == "cut" and ticket is not None:
        return Tokens(ticket.prompt_tokens, call.sent_tokens, 0, 0, ticket.prompt_tokens + call.sent_tokens)
    return reader.tokens()
