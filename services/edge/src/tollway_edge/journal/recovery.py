"""Billing the calls a dead worker left in flight (issue 10: "never NULL cost for
a call that reached the provider").

A call's ``started`` event is journaled before the provider hears of the
call, but its terminal event is written only when the call ends. When the
worker process is killed in between (SIGKILL, OOM), nobody lives to write
it. So the call leaves two kinds of *local* data (``format``: journaled,
never shipped to Kafka) beside its events, keyed by the request id:

- the **open checkpoint**, in the same record as ``started`` (format
  version 4: the record's local part; version 3 wrote it as the next record,
  still read): the prompt's estimate (``usage.estimate_prompt_tokens`` of
  the body the provider got: the documented estimator early ends use) and
  the catalogue prices of the call;
- **progress checkpoints** while a stream is relayed: the completion tokens
  counted so far (``Call.sent_tokens``), at most one per
  ``progress_interval_ms`` per call, batched into the loop pass's one write
  like every other append.

A new segment starts with a re-statement of every open call
(:class:`OpenCalls`), so deleting an acknowledged segment never loses the
checkpoint of a call still in flight.

When a journal is adopted (its process is dead: ``segments``), :func:`recover`
reads it whole and, for every call with an open checkpoint and no terminal
event in any adopted journal, builds the terminal event the dead worker never
wrote: ``failed`` with ``error_type = "edge_worker_lost"``, no status code
(nothing was answered: the client saw its connection drop),
``usage_estimated = true``, the prompt estimate, the completion of the last
progress checkpoint (0 for a non-streamed call or a stream that relayed
nothing yet), the cost of those tokens at the call's prices, and
``ts_end`` = the time of the call's last journaled record. The adopter
appends it to its own journal, so it ships like any event.

Stated bound (docs/reliability.md): the prompt is the estimator's (about
±25 %; 3 tokens above the fake provider's count); the completion is never
above what the provider produced and under-counts it by at most the tokens
the provider sent in one ``progress_interval_ms`` (plus, for a non-streamed
call, its whole completion: nothing of it was relayed before the answer).

The terminal event is deterministic: its ``event_id`` is
``uuid5(request_id, "tollway-adopted")`` and every field derives from the
journal alone, so two adopters, or one adopting twice after a crash, write
the same event and the consumers dedupe it by ``event_id``.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import msgspec
import structlog

from tollway_contracts.catalogue import Prices
from tollway_contracts.events import TERMINAL_TYPES, decode_usage_event, encode_usage_event
from tollway_edge.journal import format as fmt
from tollway_edge.journal.segments import JournalDir
from tollway_edge.journal.writer import JournalWriter
from tollway_edge.usage import estimated_tokens

log = structlog.get_logger("tollway_edge.journal")

ERROR_TYPE = "edge_worker_lost"
"""``error_type`` of a terminal event written by an adopter for a dead worker's call."""
EVENT_ID_NAME = "tollway-adopted"
"""The name hashed with the request id (uuid5) into the adopter's event id."""


class Checkpoint(msgspec.Struct, frozen=True, omit_defaults=True):
    """A call's local recovery record (JSON; short names: one is written per
    interval per stream).

    Attributes:
        c: completion tokens relayed so far (tokens).
        p: the prompt estimate (tokens); only on the open checkpoint.
        i, o, ci, cw: the call's prices, micro-USD per million tokens
            (input, output, cached input, cache write; ``Prices``); only on
            the open checkpoint.
    """

    c: int = 0
    p: int | None = None
    i: int = 0
    o: int = 0
    ci: int | None = None
    cw: int | None = None


_ENC = msgspec.json.Encoder()
_DEC = msgspec.json.Decoder(Checkpoint)


class _TypeOnly(msgspec.Struct):
    type: str = ""


_TYPE_DEC = msgspec.json.Decoder(_TypeOnly)
_EVENT_PREFIX = b'{"schema_version"'  # how every encoded usage event starts (field order of the Struct)


_PRICES_JSON: dict[int, tuple[Prices, bytes]] = {}


def _prices_json(prices: Prices) -> bytes:
    """``"i":…,"o":…[,"ci":…][,"cw":…]}`` of ``prices``, kept per catalogue object (a call's
    path: encoding it each time cost about 1 µs)."""
    hit = _PRICES_JSON.get(id(prices))
    if hit is not None and hit[0] is prices:
        return hit[1]
    tail = _ENC.encode(
        Checkpoint(i=prices.input, o=prices.output, ci=prices.cached_input, cw=prices.cache_write_input)
    )[1:]
    if len(_PRICES_JSON) >= 1024:  # catalogue reloads: forget the old objects
        _PRICES_JSON.clear()
    _PRICES_JSON[id(prices)] = (prices, tail)
    return tail


def open_checkpoint(prompt_tokens: int, prices: Prices, completion_tokens: int = 0) -> bytes:
    """The open checkpoint's value (the local part of the call's ``started`` record):
    a :class:`Checkpoint` as JSON."""
    return b'{"c":%d,"p":%d,' % (completion_tokens, prompt_tokens) + _prices_json(prices)


def progress_checkpoint(completion_tokens: int) -> bytes:
    """A progress checkpoint's value: the completion tokens relayed so far."""
    return b'{"c":%d}' % completion_tokens


class OpenCalls:
    """This process's calls between their ``started`` and terminal events (the registry a
    segment roll carries forward).

    A segment is deleted once Kafka acknowledged all it holds, which may be
    while a call whose ``started`` and open checkpoint it holds is still in
    flight. So the writer starts every new segment with :meth:`frames`: for
    each open call, a local copy of its ``started`` event and its open
    checkpoint with the completion so far. The live segments therefore always
    hold what an adopter needs for every open call. Memory: about 1 KB per
    call in flight.
    """

    __slots__ = ("_calls",)

    def __init__(self) -> None:
        self._calls: dict[bytes, tuple[bytes, int, Prices, int]] = {}

    def __len__(self) -> int:
        return len(self._calls)

    def opened(self, key: bytes, started: bytes, prompt_tokens: int, prices: Prices) -> bytes:
        """Register a call (``started``: its event as journaled); returns its open checkpoint's value."""
        self._calls[key] = (started, prompt_tokens, prices, 0)
        return open_checkpoint(prompt_tokens, prices)

    def progress(self, key: bytes, completion_tokens: int) -> bytes:
        """Note a call's completion so far; returns its progress checkpoint's value."""
        known = self._calls.get(key)
        if known is not None:
            self._calls[key] = (known[0], known[1], known[2], completion_tokens)
        return progress_checkpoint(completion_tokens)

    def closed(self, key: bytes) -> None:
        """The call's terminal event is journaled: forget it."""
        self._calls.pop(key, None)

    def frames(self, ts_us: int) -> list[bytes]:
        """Encoded local records re-stating every open call (for the start of a new
        segment): one per call, its ``started`` event with its checkpoint."""
        return [
            fmt.encode(
                key, started, ts_us, local=True, checkpoint=open_checkpoint(prompt, prices, completion)
            )
            for key, (started, prompt, prices, completion) in self._calls.items()
        ]


@dataclass(slots=True)
class _Open:
    started: bytes
    prompt: int
    prices: Prices
    completion: int
    last_ts_us: int


def terminal_event_id(request_id: uuid.UUID) -> uuid.UUID:
    """The deterministic ``event_id`` of the adopter's terminal event for ``request_id``."""
    return uuid.uuid5(request_id, EVENT_ID_NAME)


def _terminal(o: _Open) -> bytes:
    started = decode_usage_event(o.started)
    tokens = estimated_tokens(o.prompt, o.completion)
    ts_end = max(datetime.fromtimestamp(o.last_ts_us / 1e6, UTC), started.ts_start)
    event = msgspec.structs.replace(
        started,
        type="failed",
        event_id=terminal_event_id(started.request_id),
        ts_end=ts_end,
        status_code=None,
        error_type=ERROR_TYPE,
        attempts=max(started.attempts, 1),
        prompt_tokens=tokens.prompt_tokens,
        completion_tokens=tokens.completion_tokens,
        cached_tokens=0,
        cache_write_tokens=0,
        reasoning_tokens=0,
        total_tokens=tokens.total_tokens,
        cost_micro_usd=tokens.cost(o.prices),
        usage_estimated=True,
        latency_ms=round((ts_end - started.ts_start).total_seconds() * 1000.0, 3),
    )
    return encode_usage_event(event)


def _records(jdir: JournalDir, max_payload: int) -> Iterable[fmt.Record]:
    for seg in jdir.segments:
        data = seg.path.read_bytes()[: seg.size]
        yield from fmt.decode(data, fmt.HEADER_BYTES, max_payload)


def recover(dirs: Sequence[JournalDir], max_payload: int) -> list[tuple[bytes, bytes]]:
    """The terminal events the dead workers of ``dirs`` never wrote (blocking: run in a thread).

    Args:
        dirs: adopted (validated, locked) journal directories; all are read
            together, so a terminal event in one closes a call opened in another.
        max_payload: the journal's ``max_record_bytes``.

    Returns:
        ``(key, value)`` pairs to append to the adopter's own journal (key =
        request id, value = the usage event JSON), in the order the calls started.
        A record that cannot be decoded is logged and skipped (its call stays
        unbilled rather than billed wrongly).
    """
    opens: dict[bytes, _Open] = {}
    closed: set[bytes] = set()

    def opened(key: bytes, started: bytes, cp: Checkpoint, prompt: int, ts_us: int) -> None:
        prices = Prices(input=cp.i, output=cp.o, cached_input=cp.ci, cache_write_input=cp.cw)
        was = opens.get(key)
        done = max(cp.c, was.completion) if was is not None else cp.c
        opens[key] = _Open(started, prompt, prices, done, ts_us)

    for jdir in dirs:
        prev: fmt.Record | None = None
        for rec in _records(jdir, max_payload):
            try:
                if rec.checkpoint:  # `started` and its open checkpoint in one record (version 4)
                    cp = _DEC.decode(rec.checkpoint)
                    if cp.p is not None:
                        opened(rec.key, rec.value, cp, cp.p, rec.ts_us)
                elif rec.local and rec.value.startswith(_EVENT_PREFIX):
                    pass  # a carried copy of a `started` event (version 3 ``frames``): read as `prev`
                elif rec.local:
                    cp = _DEC.decode(rec.value)
                    if cp.p is not None:  # version 3: the record right after its `started`
                        if prev is not None and prev.key == rec.key:
                            opened(rec.key, prev.value, cp, cp.p, rec.ts_us)
                    else:
                        known = opens.get(rec.key)
                        if known is not None:
                            known.completion = max(known.completion, cp.c)
                            known.last_ts_us = rec.ts_us
                elif _TYPE_DEC.decode(rec.value).type in TERMINAL_TYPES:
                    closed.add(rec.key)
            except (msgspec.DecodeError, ValueError) as exc:
                log.error("journal_recovery_record_unreadable", dir=jdir.path.name, error=repr(exc))
            prev = rec
    out: list[tuple[bytes, bytes]] = []
    for key, o in opens.items():
        if key in closed:
            continue
        try:
            out.append((key, _terminal(o)))
        except (msgspec.DecodeError, ValueError) as exc:
            log.error("journal_recovery_event_unreadable", error=repr(exc))
    return out


async def bill_left_calls(
    found: Sequence[JournalDir], writer: JournalWriter | None, max_payload: int
) -> bool:
    """Append to ``writer`` (the adopter's own journal) the terminal events :func:`recover`
    finds in the just adopted ``found``, and wait until they are written (in the page
    cache) — before the orphans can be replayed and removed.

    Returns:
        False when there are calls to bill but no writer (the journal is
        stopping): the caller leaves the orphans to the next live process.
    """
    if not found:
        return True
    ends = await asyncio.to_thread(recover, found, max_payload)
    if not ends:
        return True
    if writer is None:
        return False
    kept = sum(writer.append(key, value) for key, value in ends)
    await writer.written()
    log.info("journal_left_calls_billed", calls=len(ends), journaled=kept)
    return kept == len(ends)
