"""LiveStreams, the watch over relayed streams (pure: stand-ins for the
request, call and provider response; no I/O)."""

from __future__ import annotations

from typing import Any

import pytest

from tollway_edge.streaming.live import LiveStream, LiveStreams

pytestmark = pytest.mark.unit


class _Transport:
    def __init__(self) -> None:
        self.closing = False

    def is_closing(self) -> bool:
        return self.closing


class _Request:
    def __init__(self) -> None:
        self.transport: _Transport | None = _Transport()


class _Call:
    def __init__(self) -> None:
        self.releases = 0

    async def release(self) -> None:
        self.releases += 1


class _Upstream:
    def __init__(self) -> None:
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


def _stream() -> tuple[LiveStream, Any, Any, Any]:
    request, call, upstream = _Request(), _Call(), _Upstream()
    return LiveStream(request, call, upstream), request, call, upstream  # type: ignore[arg-type]  # stand-ins


async def test_a_gone_client_frees_its_slot_once_then_its_provider_after_the_tail_time() -> None:
    live = LiveStreams(poll_interval_seconds=0.1, tail_seconds=2.0)
    stream, request, call, upstream = _stream()
    live.add(stream)
    await live.check(100.0)
    assert (stream.gone_at, call.releases, upstream.closed) == (None, 0, 0)  # client still there
    request.transport.closing = True
    await live.check(100.1)
    assert (stream.gone_at, call.releases, upstream.closed) == (100.1, 1, 0)  # slot freed at once
    await live.check(101.0)
    assert (call.releases, upstream.closed) == (1, 0)  # still reading the tail
    await live.check(102.2)
    assert (call.releases, upstream.closed) == (1, 1)  # tail time over: the relay is woken
    live.discard(stream)
    assert len(live) == 0


async def test_a_lost_transport_counts_as_gone() -> None:
    live = LiveStreams()
    stream, request, call, _ = _stream()
    live.add(stream)
    request.transport = None
    await live.check(5.0)
    assert stream.gone_at == 5.0 and call.releases == 1


def test_the_drain_deadline_flags_and_closes_every_live_stream() -> None:
    live = LiveStreams()
    streams = [_stream() for _ in range(3)]
    for s, *_ in streams:
        live.add(s)
    assert live.shut_down() == 3
    assert all(s.shutdown and upstream.closed == 1 for s, _, _, upstream in streams)
