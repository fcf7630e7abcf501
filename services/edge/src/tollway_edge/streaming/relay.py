"""The stream relay (DESIGN.md "The request path" 5): upstream bytes →
:class:`~tollway_edge.streaming.sse.SSESplitter` events → usage read (and the
usage-only chunk dropped unless the client asked) → the answer scanned
(``answers: redact|block``, ``streaming.holdback``) → placeholders restored
(reversible redaction) → completion tokens counted and the reservation
extended (or the stream cut) → written to the client.

Every complete event is forwarded as soon as its bytes arrive; the events of
one upstream read go out in one write (the head goes with the first; the
batch that ends the answer goes with the body's end when the provider's body
is already over, so its next read returns at once). The common case is
written from the provider connection's read callback (``streaming.direct``).
The stream ends in one of six ways:
- the provider's ``[DONE]``: ``completed`` with the provider's usage;
- admission refuses an extension: the terminator's clean end
  (``finish_reason: "length"``), ``completed`` with ``error_type:
  "stream_limit_reached"``, billed (estimated) for what the client received;
- the provider fails or ends without ``[DONE]``: the terminator's error
  event (the SDK raises), ``failed`` with ``upstream_stream_error``;
- the drain deadline (``LiveStreams.shut_down``): the error event with
  ``server_shutting_down``, ``failed``;
  in both, answer text the hold-back still holds is scanned and released
  before the error event (under ``answers: block`` a detection in it ends
  the stream with ``answer_blocked`` instead). Not on admission's cut: the
  held text may include text of the events the cut drops, whose tokens the
  reservation did not cover, and the buffers do not say which;
- the client goes away (a failed write, or the ``LiveStreams`` watch):
  its concurrency slot is released at once, then the provider's tail is read
  (at most ``TAIL_BYTES`` / ``TAIL_SECONDS``) for its usage; ``failed`` with
  ``client_disconnected`` (499);
- the answer scan refuses (``answer_blocked``, or the redactor failed): the
  provider's tail is read for its usage, ``failed``, then the error event.

Billing never leaves a stream at NULL/$0: the provider's usage when it
arrived, otherwise an estimate (``usage_estimated``): the prompt by
``usage.estimate_prompt_tokens`` of the body the provider got, the completion
counted from the deltas received (one token per content delta).

The terminal event is appended to the usage journal and written (one loop
pass, ``Call.journaled``) before the bytes that end the stream (``[DONE]``,
the clean end, the error event) are written: a client that saw the end of
its stream was billed durably.

The readers of the stream formats are in ``streaming.readers`` (and
``streaming.formats``); the tail and the terminal event in ``streaming.ending``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import aiohttp
from aiohttp import web

from tollway_contracts.catalogue import Prices
from tollway_edge.admission import EdgeAdmission, Ticket
from tollway_edge.call import CLIENT_CLOSED, Call
from tollway_edge.redaction import EdgeRedaction
from tollway_edge.routing.http1 import UpstreamResponse
from tollway_edge.streaming.direct import ClientWire, DirectRelay
from tollway_edge.streaming.ending import TAIL_SECONDS, Once, read_tail, settle
from tollway_edge.streaming.holdback import stream_scanner
from tollway_edge.streaming.live import LiveStream, LiveStreams
from tollway_edge.streaming.readers import StreamReader, UsageReader
from tollway_edge.streaming.sse import SSEEvent, SSESplitter
from tollway_edge.streaming.terminator import OpenAITerminator, Terminator

STREAM_HEADERS = _HEADERS = {
    "Content-Type": "text/event-stream",
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",
}
_PROVIDER_CUT = "The provider ended the stream before the answer was complete."
_SHUTTING_DOWN = "The server is shutting down; the answer was cut before it was complete."
CLIENT_GONE = _CLIENT_GONE = (ConnectionResetError, aiohttp.ClientConnectionResetError, RuntimeError)


class _HeadWithFirstWrite(web.StreamResponse):
    """A stream response whose head is sent with its first body bytes
    (aiohttp's ``web.Response`` does the same), not alone at ``prepare()``."""

    _send_headers_immediately = False


def _ends_body(outcome: str, refused: bool, call: Call) -> bool:
    """True when the client's body is ended properly (the zero-length chunk):
    every end but a client that left (whose connection is gone)."""
    return (
        outcome != "failed" or refused or call.error_type in ("upstream_stream_error", "server_shutting_down")
    )


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
    upstream: UpstreamResponse,
    *,
    first: bytes | None = None,
    terminator: Terminator,
    client_wants_usage: bool,
    prices: Prices,
    admission: EdgeAdmission | None,
    redaction: EdgeRedaction | None,
    prompt_estimate: Callable[[], int],
    live: LiveStreams | None = None,
    reader: StreamReader | None = None,
) -> web.StreamResponse:
    """Relay an upstream 200 event stream to the client and meter it (see module doc).

    Args:
        prompt_estimate: the request's prompt tokens by the edge's estimator
            (``usage.estimate_prompt_tokens`` of the body the provider got),
            called only when the stream ends without the provider's usage.
        live: the process's live streams (client-gone watch, drain deadline).
        first: the stream's first chunk, already read by ``routing.forward``
            (which waited for it before committing to the deployment).
        reader: the stream's format (``streaming.formats``: Anthropic's events,
            or a translation); default: OpenAI chunks (:class:`UsageReader`).

    Returns:
        The (already written) stream response.
    """
    splitter = SSESplitter()
    restorer = redaction.stream_restorer(call) if redaction is not None else None
    scanner = stream_scanner(redaction, call) if redaction is not None else None
    refused = False  # the answer scan ended the stream (answer_blocked, or the redactor failed)
    if reader is None:
        reader = UsageReader(forward_usage_chunk=client_wants_usage)
    ticket = call.ticket if admission is not None else None
    estimate = Once(prompt_estimate)
    # With the first chunk at hand, the head goes out with it (one write, not two).
    out = (_HeadWithFirstWrite if first else web.StreamResponse)(status=200, headers=_HEADERS)
    outcome = "failed"
    call.status = 200
    stream = LiveStream(request, call, upstream)
    if live is not None:
        live.add(stream)
    tail_seconds = live.tail_seconds if live is not None else TAIL_SECONDS
    try:
        try:
            await out.prepare(request)
        except (ConnectionResetError, aiohttp.ClientConnectionResetError):
            call.status, call.error_type = CLIENT_CLOSED, "client_disconnected"
            return out
        wire = ClientWire(request, out)
        direct = None  # the common path, in the provider's read callback (streaming.direct)
        if (
            type(reader) is UsageReader
            and scanner is None
            and restorer is None
            and isinstance(terminator, OpenAITerminator)
        ):
            direct = DirectRelay(wire, call, ticket, splitter, stream, terminator)
        content = upstream.content
        pending = first
        held = b""  # the batch that ended the answer, written with the body's end
        while True:
            chunk: bytes | None
            if pending is not None:
                chunk, pending = pending, None
            else:
                t = time.perf_counter()
                if direct is not None and direct.ready:
                    upstream.sink = direct  # only while this task waits: the bytes stay in order
                try:
                    chunk = await content.readany()
                except (OSError, TimeoutError):  # http1.UpstreamError, the idle/total timeout
                    chunk = None  # the provider failed or went idle mid-stream: a partial event is dropped
                finally:
                    upstream.sink = None
                t_read = time.perf_counter()
                call.upstream_wait += t_read - t
                if not chunk and stream.gone_at is not None and not stream.shutdown:
                    # The client left and the provider said nothing within the tail time
                    # (the watcher closed it): billed from the estimate.
                    call.status, call.error_type = CLIENT_CLOSED, "client_disconnected"
                    break
            if chunk:
                if call.ttft is None:
                    call.ttft = time.perf_counter()
                events = splitter.feed(chunk)
            else:
                events = splitter.finish() if chunk is not None else []
            tail = b""
            if not chunk:
                events = reader.filter(events) + reader.close()
                reader_done = True
            else:
                reader_done = False
            # the provider broke off (or the drain cut it): held answer text is scanned and released
            broke_off = scanner is not None and not chunk and not reader.done
            if events or broke_off:
                if not reader_done:
                    events = reader.filter(events)
                if scanner is not None:  # answer redaction: before restoration (holdback.py)
                    events = await scanner.scan(events, flush=broke_off)
                    if scanner.refusal is not None and not refused:
                        refused, call.error_type = True, scanner.refusal.code
                        await read_tail(content, splitter, reader, call, time.monotonic() + tail_seconds)
                        tail = terminator.error_end(scanner.refusal.message, scanner.refusal.code or "")
                if restorer is not None:
                    events = restorer.restore(events)
                n = 0
                for event in events:
                    n += event.completion_tokens
                if ticket is not None and admission is not None:
                    if n and call.sent_tokens + n > ticket.reserved_out:
                        events, n, cut = await _cover(admission, call, ticket, events, n)
                        if cut:
                            outcome = "cut"
                            call.error_type = "stream_limit_reached"
                call.sent_tokens += n
                if n:
                    call.progress()  # at most once per interval: what an adopter bills if we die
                if events:  # what the client got: the end events echo its ids (and sequence)
                    terminator.observe(events[0])
                    if len(events) > 1:
                        terminator.observe(events[-1])
                if outcome == "cut":
                    tail = terminator.clean_end(estimate(), call.sent_tokens, client_wants_usage)
            if not chunk and outcome != "cut" and not refused:
                if reader.done:
                    outcome = "completed"
                elif stream.shutdown:
                    call.error_type = "server_shutting_down"
                    tail = terminator.error_end(_SHUTTING_DOWN, "server_shutting_down")
                else:
                    call.error_type = "upstream_stream_error"
                    tail = terminator.error_end(_PROVIDER_CUT, "upstream_stream_error")
            if len(events) == 1:
                data = events[0].raw + tail if tail else events[0].raw
            else:
                data = b"".join([e.raw for e in events]) + tail if events else tail
            if (outcome == "cut" or reader.done or not chunk or refused) and not call.terminal_sent:
                ending = (
                    "cut" if outcome == "cut" else "completed" if reader.done and not refused else "failed"
                )
                settle(call, ending, reader, prices, restorer, redaction, estimate)
                await call.journaled()  # billed durably before the client sees its stream end
            end = outcome == "cut" or not chunk or refused
            if held:
                data, held = held + data, b""
            if data or end or not wire.started:
                try:
                    if end and _ends_body(outcome, refused, call):
                        await out.write_eof(data)  # the last bytes and the body's end: one write
                    elif reader.done and chunk and not end and content.at_eof():
                        held = data  # [DONE] and the provider's body is over: the next read returns at once
                    elif data or not wire.started:
                        await wire.write(data)  # b"" first: nothing whole yet, the head goes alone
                except _CLIENT_GONE:
                    outcome = "failed"
                    if not call.terminal_sent:  # once journaled, the call's outcome is fixed
                        call.status, call.error_type = CLIENT_CLOSED, "client_disconnected"
                        if stream.gone_at is None:
                            stream.gone_at = time.monotonic()
                        await call.release()  # the slot is free while the tail is read
                        await read_tail(content, splitter, reader, call, stream.gone_at + tail_seconds)
                        if reader.done:
                            outcome = "tail_done"
                    break
            if end:
                break
        if _ends_body(outcome, refused, call):
            try:
                await out.write_eof()  # nothing when the last write ended the body
            except _CLIENT_GONE:
                pass
        return out
    finally:
        if live is not None:
            live.discard(stream)
        upstream.release() if outcome == "completed" else upstream.close()
        if outcome == "tail_done":
            outcome = "failed"  # the client left; the provider's usage bills it exactly
        settle(call, outcome, reader, prices, restorer, redaction, estimate)
