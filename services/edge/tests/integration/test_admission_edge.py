"""Admission at the edge, in process (create_app) over real Valkey, Postgres
and Kafka: refusal format, reservations on events, streams cut by a refused
extension, budget periods in a tenant's time zone, and the request path's I/O."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import aiohttp
import orjson
import pytest

from tollway_contracts.catalogue import Prices
from tollway_contracts.events import validate_produced
from tollway_contracts.pricing import cost_micro_usd
from tollway_edge.admission.bounds import prompt_token_bound
from tollway_edge.state import STATE
from tollway_edge.usage import estimate_prompt_tokens

from .conftest import Edge

pytestmark = pytest.mark.integration

PRICES = Prices(input=150000, cached_input=75000, output=600000)
MESSAGES = [{"role": "user", "content": "Say hello to the gateway."}]
BODY = {"model": "gpt-4o-mini", "messages": MESSAGES, "max_tokens": 10}
PROMPT_BOUND = prompt_token_bound(BODY)
CALL_COST = cost_micro_usd(PRICES, prompt_tokens=PROMPT_BOUND, completion_tokens=10)


async def _post(
    http: aiohttp.ClientSession, edge: Edge, key: str, body: Any = BODY, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, Any], Any]:
    h = {"Authorization": f"Bearer {key}", "Content-Type": "application/json", **(headers or {})}
    async with http.post(edge.base_url + "/chat/completions", data=orjson.dumps(body), headers=h) as resp:
        return resp.status, orjson.loads(await resp.read()), resp.headers


def test_prompt_bound_is_above_the_fake_providers_count() -> None:
    from tollway_testing.fake_provider import count_prompt_tokens

    assert PROMPT_BOUND >= count_prompt_tokens(MESSAGES)


@pytest.mark.parametrize("edge", [{"_ledger": True}], indirect=True)
async def test_budget_refusal_is_openai_429_with_headers_and_one_failed_event(
    edge: Edge, edge_http: aiohttp.ClientSession
) -> None:
    key = await edge.new_key(
        "a",
        limits=[
            {"scope": "key", "scope_id": "$key", "requests_per_minute": 1000, "tokens_per_minute": 1_000_000},
            {
                "scope": "tenant",
                "scope_id": "tenant-1",
                "budget_micro_usd": 2 * CALL_COST,
                "budget_period": "month",
            },
        ],
    )
    ok_ids = []
    for _ in range(2):
        status, _, headers = await _post(edge_http, edge, key)
        assert status == 200
        assert headers["x-ratelimit-limit-requests"] == "1000"
        assert headers["x-ratelimit-limit-tokens"] == "1000000"
        for h in ("remaining-requests", "reset-requests", "remaining-tokens", "reset-tokens"):
            assert headers[f"x-ratelimit-{h}"]
        ok_ids.append(headers["x-request-id"])
    status, payload, headers = await _post(edge_http, edge, key)
    assert status == 429
    assert payload["error"]["type"] == "insufficient_quota" and payload["error"]["code"] == "budget_exceeded"
    assert set(payload["error"]) >= {"message", "type", "param", "code"}
    assert int(headers["Retry-After"]) >= 1
    for h in (
        "limit-requests",
        "remaining-requests",
        "reset-requests",
        "limit-tokens",
        "remaining-tokens",
        "reset-tokens",
    ):
        assert headers[f"x-ratelimit-{h}"]
    refused_id = headers["x-request-id"]

    events = await edge.events({refused_id, *ok_ids}, 5)
    for e in events:
        validate_produced(e)
    refused = [e for e in events if e["request_id"] == refused_id]
    assert [(e["type"], e["status_code"]) for e in refused] == [("failed", 429)]
    done = [e for e in events if e["type"] == "completed"]
    assert len(done) == 2
    for e in done:
        assert e["reservation"]["tenant:tenant-1"] == {"tokens": 0, "cost_micro_usd": CALL_COST}
        assert e["reservation"][f"key:{edge.key_ids['a']}"]["tokens"] == PROMPT_BOUND + 10


@pytest.mark.parametrize(
    "edge", [{"_ledger": True, "stream_allowance_tokens": 5, "stream_extend_tokens": 5}], indirect=True
)
@pytest.mark.parametrize("client_usage", [True, False])
async def test_stream_cut_when_extension_refused_bills_what_was_sent(
    edge: Edge, edge_http: aiohttp.ClientSession, client_usage: bool
) -> None:
    body: dict[str, Any] = {"model": "gpt-4o-mini", "messages": MESSAGES, "stream": True}
    if client_usage:
        body["stream_options"] = {"include_usage": True}
    prompt = prompt_token_bound(body)
    # Allowance 5 + one extension of 5 + extensions of the exact deficit up to 12 completion tokens.
    key = await edge.new_key(
        "a", limits=[{"scope": "key", "scope_id": "$key", "tokens_per_minute": prompt + 12}]
    )
    h = {"Authorization": f"Bearer {key}"}  # the fake provider streams 20 words, one per chunk
    async with edge_http.post(edge.base_url + "/chat/completions", json=body, headers=h) as resp:
        assert resp.status == 200
        request_id = resp.headers["x-request-id"]
        assert resp.headers["x-ratelimit-limit-tokens"] == str(prompt + 12)
        raw = await resp.read()
    events = [e[len(b"data: ") :] for e in raw.split(b"\n\n") if e.startswith(b"data: ")]
    assert events[-1] == b"[DONE]"
    chunks = [orjson.loads(e) for e in events[:-1]]
    words = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]).split()
    assert len(words) == 12
    finish = [
        c["choices"][0]["finish_reason"] for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]
    ]
    assert finish == ["length"]
    if client_usage:
        usage = chunks[-1]["usage"]
        assert chunks[-1]["choices"] == [] and usage["completion_tokens"] == 12
    else:
        assert all(c["choices"] for c in chunks) and all(c.get("usage") is None for c in chunks)

    (done,) = [e for e in await edge.events({request_id}, 2) if e["type"] != "started"]
    validate_produced(done)
    assert done["type"] == "completed" and done["error_type"] == "stream_limit_reached"
    # Billed from the estimate (the provider's usage never arrives), not the admission bound.
    estimate = estimate_prompt_tokens(body)
    assert estimate < prompt
    assert done["usage_estimated"] is True
    assert done["completion_tokens"] == 12 and done["prompt_tokens"] == estimate
    assert done["cost_micro_usd"] == cost_micro_usd(PRICES, prompt_tokens=estimate, completion_tokens=12)
    assert done["reservation"][f"key:{edge.key_ids['a']}"]["tokens"] == prompt + 12


class _Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


# Next year's Nov 30, so the month's end is in the future by Valkey's own
# clock too: admit.lua sets counter expiry as an absolute time (period end +
# the 2-day grace), and a fixed past date made this test fail once the real
# date passed it (CI of 2026-12-02 23:57 UTC).
_YEAR = datetime.now(UTC).year + 1
_PARIS = _Clock(datetime(_YEAR, 11, 30, 22, 30, tzinfo=UTC))  # 23:30 on Nov 30 in Paris (UTC+1)


@pytest.mark.parametrize("edge", [{"_ledger": True, "_clock": _PARIS}], indirect=True)
async def test_budget_in_paris_resets_at_local_midnight_on_the_first(
    edge: Edge, edge_http: aiohttp.ClientSession
) -> None:
    _PARIS.now = datetime(_YEAR, 11, 30, 22, 30, tzinfo=UTC)
    key = await edge.new_key(
        "a",
        limits=[
            {
                "scope": "key",
                "scope_id": "$key",
                "budget_micro_usd": CALL_COST,
                "budget_period": "month",
                "time_zone": "Europe/Paris",
            }
        ],
    )
    assert (await _post(edge_http, edge, key))[0] == 200
    status, _, headers = await _post(edge_http, edge, key)
    assert status == 429
    assert int(headers["Retry-After"]) == 30 * 60  # until 00:00 Dec 1 in Paris = 23:00 UTC
    _PARIS.now = datetime(_YEAR, 11, 30, 22, 59, 59, tzinfo=UTC)
    assert (await _post(edge_http, edge, key))[0] == 429  # still November in Paris
    _PARIS.now = datetime(_YEAR, 11, 30, 23, 0, 1, tzinfo=UTC)  # 00:00:01 Dec 1 in Paris, still Nov 30 in UTC
    assert (await _post(edge_http, edge, key))[0] == 200
    assert (await _post(edge_http, edge, key))[0] == 429


class _CountingPool:
    """Forwards to an asyncpg pool, counting every query method called."""

    def __init__(self, pool: Any) -> None:
        self._pool = pool
        self.queries = 0

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._pool, name)
        if name in (
            "fetch",
            "fetchval",
            "fetchrow",
            "execute",
            "executemany",
            "acquire",
            "copy_records_to_table",
        ):

            def counted(*a: Any, **kw: Any) -> Any:
                self.queries += 1
                return attr(*a, **kw)

            return counted
        return attr


@pytest.mark.parametrize("edge", [{"_ledger": True, "version_poll_interval_seconds": 3600}], indirect=True)
@pytest.mark.parametrize("with_slot", [False, True])
async def test_request_path_io_one_valkey_round_trip_no_postgres(
    edge: Edge, edge_http: aiohttp.ClientSession, with_slot: bool
) -> None:
    limits = [
        {"scope": "key", "scope_id": "$key", "requests_per_minute": 1000, "tokens_per_minute": 10_000_000},
        {"scope": "user", "scope_id": "user-1", "budget_micro_usd": 10**9, "budget_period": "day"},
        {"scope": "team", "scope_id": "team-1", "budget_micro_usd": 10**9, "budget_period": "month"},
        {
            "scope": "tenant",
            "scope_id": "tenant-1",
            "requests_per_minute": 1000,
            **({"max_concurrent": 100} if with_slot else {}),
        },
    ]
    key = await edge.new_key("a", limits=limits)
    state = edge.app[STATE]
    assert (await _post(edge_http, edge, key))[0] == 200  # warm: key known, budget counters seeded

    sync = state.sync
    assert sync is not None and sync._pool is not None
    pool = _CountingPool(sync._pool)
    sync._pool = pool
    commands: list[Any] = []
    # Every Valkey command of admission goes through a PipelinedClient: the admission
    # client's own (a NodeClient's connection) and the scripts' one (when on).
    pipes = [state.admission.client._c, state.admission.fast]

    def counting(pipe: Any) -> None:
        packed_one, packed_many = pipe.execute_packed, pipe.execute_many

        async def one(packed: bytes) -> Any:
            commands.append(packed.split(b"\r\n")[2].decode())  # the command name
            return await packed_one(packed)

        async def many(packed: Any) -> Any:
            commands.extend(p.split(b"\r\n")[2].decode() for p in packed)
            return await packed_many(packed)

        pipe.execute_packed, pipe.execute_many = one, many

    for pipe in pipes:
        if pipe is not None:
            counting(pipe)
    upstream = state.upstreams["fake"]
    at_provider: list[tuple[int, int]] = []
    post = upstream.client.request

    def counting_post(*args: Any, **kw: Any) -> Any:
        at_provider.append((len(commands), pool.queries))
        return post(*args, **kw)

    upstream.client.request = counting_post
    try:
        status, _, _ = await _post(edge_http, edge, key)
    finally:
        for pipe in pipes:
            if pipe is not None:
                del pipe.execute_packed, pipe.execute_many
        upstream.client.request = post
        sync._pool = pool._pool
    assert status == 200
    assert at_provider == [(1, 0)]  # ONE Valkey round trip (EVALSHA admit), NO Postgres query
    assert commands[0] == "EVALSHA"
    # After the response: one release when a concurrency limit applies, nothing otherwise.
    assert commands == (["EVALSHA", "EVALSHA"] if with_slot else ["EVALSHA"])
    assert pool.queries == 0


@pytest.mark.parametrize("edge", [{"_ledger": True}], indirect=True)
async def test_concurrency_slot_released_when_response_ends(
    edge: Edge, edge_http: aiohttp.ClientSession
) -> None:
    key = await edge.new_key("a", limits=[{"scope": "key", "scope_id": "$key", "max_concurrent": 1}])
    for _ in range(3):
        assert (await _post(edge_http, edge, key))[0] == 200
    stream_body = {**BODY, "stream": True}
    for _ in range(2):
        async with edge_http.post(
            edge.base_url + "/chat/completions", json=stream_body, headers={"Authorization": f"Bearer {key}"}
        ) as resp:
            assert resp.status == 200
            await resp.read()
    assert (await _post(edge_http, edge, key))[0] == 200
