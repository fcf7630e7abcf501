"""The streams in flight in this process, watched by one loop: a client that
left is noticed while the provider is quiet, and the drain deadline ends them.

aiohttp does not cancel a handler whose client went away (``handler_cancellation``
is off, so a call is never interrupted half-metered), and a relay only notices
a gone client when it next writes. :class:`LiveStreams` polls each live
stream's client transport every ``poll_interval_seconds`` (100 ms; one task per
process, not one per stream):
- a client gone: the call's concurrency slot is released at once (a key with
  ``max_concurrent`` N never sees a 429 with fewer than N clients), and the
  relay reads the provider's tail for its usage (``relay``); if the provider
  has said nothing ``tail_seconds`` after the client left, its connection is
  closed, which wakes the relay to bill an estimate;
- :meth:`LiveStreams.shut_down` (the drain deadline): every live stream is
  flagged and its provider connection closed; each relay then ends its
  client's stream with a ``server_shutting_down`` error event and bills it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable

import structlog
from aiohttp import web

from tollway_edge.call import Call
from tollway_edge.routing.http1 import UpstreamResponse

log = structlog.get_logger("tollway_edge.streams")


class LiveStream:
    """One relayed stream as the watcher sees it.

    Attributes:
        gone_at: ``time.monotonic()`` when its client was found gone, or None.
        shutdown: True once the drain deadline ended it.
    """

    __slots__ = ("request", "call", "upstream", "gone_at", "shutdown")

    def __init__(self, request: web.Request, call: Call, upstream: UpstreamResponse) -> None:
        self.request = request
        self.call = call
        self.upstream = upstream
        self.gone_at: float | None = None
        self.shutdown = False

    def client_gone(self) -> bool:
        """True when the client's connection is closed (or closing)."""
        transport = self.request.transport
        return transport is None or transport.is_closing()


class LiveStreams:
    """The registry and its watch loop (started by ``create_app``'s cleanup context).

    Args:
        poll_interval_seconds: how often client connections are checked, s.
        tail_seconds: how long a relay may read the provider's tail after
            its client left (for the provider's usage), s.
    """

    def __init__(self, poll_interval_seconds: float = 0.1, tail_seconds: float = 2.0) -> None:
        self.poll_interval_seconds = poll_interval_seconds
        self.tail_seconds = tail_seconds
        self._streams: set[LiveStream] = set()
        self._task: asyncio.Task[None] | None = None

    def __len__(self) -> int:
        return len(self._streams)

    def add(self, stream: LiveStream) -> None:
        """Watch ``stream`` until :meth:`discard`."""
        self._streams.add(stream)

    def discard(self, stream: LiveStream) -> None:
        """Stop watching ``stream`` (its relay ended)."""
        self._streams.discard(stream)

    def shut_down(self) -> int:
        """The drain deadline: flag every live stream and close its provider
        connection (its relay ends it with an error event). Returns how many."""
        streams = list(self._streams)
        for stream in streams:
            stream.shutdown = True
            stream.upstream.close()
        return len(streams)

    async def start(self) -> None:
        """Start the watch loop."""
        self._task = asyncio.create_task(self._run(), name="tollway-live-streams")

    async def stop(self) -> None:
        """Stop the watch loop."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.poll_interval_seconds)
            try:
                await self.check(time.monotonic())
            except Exception:  # the loop must outlive any one stream's trouble
                log.exception("live_streams_check_failed")

    async def check(self, now: float) -> None:
        """One pass: note gone clients and release their slots; close the
        provider connection of a stream whose tail time is over."""
        releases: list[Awaitable[None]] = []
        for stream in list(self._streams):
            if stream.gone_at is None:
                if stream.client_gone():
                    stream.gone_at = now
                    releases.append(stream.call.release())
            elif now - stream.gone_at > self.tail_seconds:
                stream.upstream.close()
        if releases:
            await asyncio.gather(*releases)
