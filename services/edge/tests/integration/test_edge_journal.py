"""The edge with its durable usage journal (issue 10), in process over real
Kafka: a Kafka outage never fails a call and loses no event; a full journal
refuses new calls (``refuse`` policy) until Kafka takes the backlog.

Kafka unreachable = a bootstrap address on a free port nothing listens on;
Kafka back = a TCP forwarder to the real broker starts listening there.
"""

from __future__ import annotations

import asyncio
import time

import aiohttp
import pytest

from .conftest import Edge
from .kafka_forwarder import Forwarder, free_port
from .test_pipeline import MESSAGES, OK, _client, _post

pytestmark = pytest.mark.integration


KAFKA_LATER = free_port()  # the edge's bootstrap address: nothing listens until the test starts a forwarder


@pytest.mark.parametrize("edge", [{"kafka_bootstrap_servers": f"127.0.0.1:{KAFKA_LATER}"}], indirect=True)
async def test_kafka_outage_never_fails_a_call(
    edge: Edge, edge_http: aiohttp.ClientSession, kafka_bootstrap_servers: str
) -> None:
    """Kafka unreachable: calls succeed at full speed, /readyz stays 200 (the
    journal has room), nothing is dropped; once Kafka is reachable every
    event of those calls arrives."""
    from prometheus_client import REGISTRY

    from tollway_edge.state import STATE

    def dropped() -> float:
        return sum(
            s.value
            for m in REGISTRY.collect()
            if m.name == "tollway_usage_events_dropped"
            for s in m.samples
            if s.name == "tollway_usage_events_dropped_total"
        )

    before = dropped()
    key = await edge.new_key("a")
    ids: set[str] = set()
    t0 = time.perf_counter()
    for _ in range(3):
        status, _, request_id = await _post(edge_http, edge, OK, key)
        assert status == 200
        ids.add(request_id)
    stream = await _client(edge, key).chat.completions.with_raw_response.create(
        model="gpt-4o-mini", messages=MESSAGES, stream=True
    )
    ids.add(stream.headers["x-request-id"])
    assert [c async for c in stream.parse()]
    assert time.perf_counter() - t0 < 5
    async with edge_http.get(edge.url + "/readyz") as resp:
        assert resp.status == 200  # Kafka does not matter while the journal has room
        assert (await resp.json())["kafka_connected"] is False
    assert dropped() == before
    assert edge.app[STATE].journal.stats().records == 8  # on disk, waiting for Kafka

    kafka = Forwarder(KAFKA_LATER, kafka_bootstrap_servers)
    await kafka.start()  # Kafka is reachable again
    try:
        events = await edge.events(ids, 8, within_s=60)
    finally:
        await kafka.stop()
    assert sorted((e["request_id"], e["type"]) for e in events) == sorted(
        (i, t) for i in ids for t in ("started", "completed")
    )
    assert dropped() == before


KAFKA_LATER_FULL = free_port()


@pytest.mark.parametrize(
    "edge",
    [
        {
            "kafka_bootstrap_servers": f"127.0.0.1:{KAFKA_LATER_FULL}",
            "journal_segment_bytes": 4096,
            "journal_max_bytes": 16 * 1024,
            "journal_reserve_bytes": 8192,
            "journal_max_record_bytes": 4096,
        }
    ],
    indirect=True,
)
async def test_a_full_journal_refuses_new_calls_until_kafka_takes_the_backlog(
    edge: Edge, edge_http: aiohttp.ClientSession, kafka_bootstrap_servers: str
) -> None:
    """``refuse`` policy: at the journal's bound a new call is a 503 in OpenAI's
    format (``journal_full``, ``Retry-After: 1``, no event) — in Anthropic's on
    ``/v1/messages``, like every error there — and /readyz is 503; every
    admitted call's events are kept and arrive once Kafka is back."""
    key = await edge.new_key("a")
    ids: set[str] = set()
    for _ in range(40):
        async with edge_http.post(
            edge.base_url + "/chat/completions",
            json=OK,
            headers={"Authorization": f"Bearer {key}"},
        ) as resp:
            payload = await resp.json()
            if resp.status == 503:
                assert payload["error"]["code"] == "journal_full"
                assert payload["error"]["type"] == "api_error"
                assert resp.headers["Retry-After"] == "1"
                refused_id = resp.headers["x-request-id"]
                break
            assert resp.status == 200
            ids.add(resp.headers["x-request-id"])
    else:
        pytest.fail("the journal never filled")
    assert ids
    async with edge_http.post(  # Anthropic's endpoint: Anthropic's error shape, same status and header
        edge.base_url + "/messages",
        json={"model": "gpt-4o-mini", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]},
        headers={"x-api-key": key, "anthropic-version": "2023-06-01"},
    ) as resp:
        assert resp.status == 503
        assert resp.headers["Retry-After"] == "1"
        payload = await resp.json()
        assert payload["type"] == "error"
        assert payload["error"]["type"] == "overloaded_error"
        assert payload["error"]["message"] == "The gateway cannot record usage right now; retry shortly."
        refused_messages_id = resp.headers["x-request-id"]
    async with edge_http.get(edge.url + "/readyz") as resp:
        assert resp.status == 503

    kafka = Forwarder(KAFKA_LATER_FULL, kafka_bootstrap_servers)
    await kafka.start()
    try:
        deadline = time.monotonic() + 60
        while True:  # the backlog ships, its segments go, the journal has room again
            async with edge_http.get(edge.url + "/readyz") as resp:
                if resp.status == 200:
                    break
            assert time.monotonic() < deadline, "the journal never had room again"
            await asyncio.sleep(0.2)
        status, _, last = await _post(edge_http, edge, OK, key)
        assert status == 200
        ids.add(last)
        events = await edge.events(ids | {refused_id, refused_messages_id}, 2 * len(ids), within_s=60)
    finally:
        await kafka.stop()
    assert sorted((e["request_id"], e["type"]) for e in events) == sorted(
        (i, t) for i in ids for t in ("started", "completed")
    )  # nothing of the refused call, nothing lost of the others
