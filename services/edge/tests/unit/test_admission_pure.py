"""Pure admission helpers: token bounds, the stream token count, the local limiter."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tollway_contracts.catalogue import Prices
from tollway_contracts.events import ScopeReservation
from tollway_contracts.limits import Limit, parse_limit
from tollway_edge.admission.bounds import output_token_bound, prompt_token_bound
from tollway_edge.admission.local_limits import LocalLimiter
from tollway_edge.admission.ticket import Ticket
from tollway_edge.streaming.sse import split_events

pytestmark = pytest.mark.unit

NOW = datetime(2026, 11, 30, 12, 0, 10, tzinfo=UTC)


def test_prompt_bound_counts_every_utf8_byte_and_message_overhead() -> None:
    one = {"messages": [{"role": "user", "content": "héllo 日本"}]}
    text_bytes = len("héllo 日本".encode())
    assert prompt_token_bound(one) >= text_bytes + 3 + 3  # text + per-message + priming
    two = {"messages": one["messages"] * 2}
    assert prompt_token_bound(two) - prompt_token_bound(one) >= text_bytes + 3
    tools = {**one, "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}]}
    assert prompt_token_bound(tools) > prompt_token_bound(one)


def test_output_bound_prefers_request_caps_within_model_cap() -> None:
    assert output_token_bound({}, 4096) == 4096
    assert output_token_bound({"max_tokens": 100}, 4096) == 100
    assert output_token_bound({"max_completion_tokens": 50, "max_tokens": 100}, 4096) == 50
    assert output_token_bound({"max_tokens": 10**6}, 4096) == 4096


def test_stream_count_is_one_per_non_empty_content_delta() -> None:
    role = b'data: {"choices":[{"delta":{"role":"assistant","content":""}}]}\n\n'
    word = b'data: {"choices":[{"delta":{"content":" hi"}}]}\n\n'
    tool = b'data: {"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"{\\"a\\""}}]}}]}\n\n'
    finish = b'data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
    assert completion_tokens_in(role) == 0
    assert completion_tokens_in(role + word * 3 + tool + finish) == 4


def completion_tokens_in(data: bytes) -> int:
    """The stream count of complete SSE text, event by event (``SSEEvent.completion_tokens``)."""
    return sum(e.completion_tokens for e in split_events(data))


def _lim(**kw: object) -> Limit:
    return parse_limit({"scope": "key", "scope_id": "k1", **kw})


def test_local_share_is_limit_divided_by_processes_all_or_nothing() -> None:
    local = LocalLimiter(expected_processes=2)
    limits = [_lim(requests_per_minute=10), _lim(budget_micro_usd=1000, scope="tenant", scope_id="t")]
    admitted = 0
    for i in range(20):
        res, handle = local.admit(
            tenant_id="t", request_id=str(i), limits=limits, model="m", tokens=1, cost_micro_usd=100, now=NOW
        )
        admitted += handle is not None
        if handle is None:
            assert res.refused_by is not None and "Retry-After" in res.headers()
    assert admitted == 5  # rpm share 5, budget share 500 = 5 calls
    # A new minute frees the rpm share but the budget share is spent.
    res, handle = local.admit(
        tenant_id="t",
        request_id="x",
        limits=limits,
        model="m",
        tokens=1,
        cost_micro_usd=100,
        now=NOW + timedelta(minutes=1),
    )
    assert handle is None and res.refused_by is not None and res.refused_by.kind == "budget"


def test_local_concurrency_released_and_settled() -> None:
    local = LocalLimiter(expected_processes=1)
    limits = [_lim(max_concurrent=1, budget_micro_usd=100)]
    _, h1 = local.admit(
        tenant_id="t", request_id="1", limits=limits, model="m", tokens=1, cost_micro_usd=60, now=NOW
    )
    assert h1 is not None
    _, h2 = local.admit(
        tenant_id="t", request_id="2", limits=limits, model="m", tokens=1, cost_micro_usd=10, now=NOW
    )
    assert h2 is None
    local.settle(h1, tokens=1, cost_micro_usd=20)  # releases the slot, refunds 40
    _, h3 = local.admit(
        tenant_id="t", request_id="3", limits=limits, model="m", tokens=1, cost_micro_usd=80, now=NOW
    )
    assert h3 is not None


class _Reserved:
    """An admission result's ``reservation_by_scope()`` (what ``Ticket`` reads of it)."""

    def __init__(self) -> None:
        self.reads = 0

    def reservation_by_scope(self) -> dict[str, ScopeReservation]:
        self.reads += 1
        return {
            "key:k1": ScopeReservation(tokens=100, cost_micro_usd=0),
            "tenant:t1": ScopeReservation(tokens=0, cost_micro_usd=700),
        }


def test_reservation_field_follows_the_extensions() -> None:
    """The usage event's ``reservation``: one value for the call's events while no
    extension happened; an extension's tokens and cost show in the next one."""
    result = _Reserved()
    ticket = Ticket("exact", result, "t1", "r1", [], "m", Prices(input=1, output=1), 10, 90)  # type: ignore[arg-type]
    first = ticket.reservation_field()
    assert first == {
        "key:k1": ScopeReservation(tokens=100, cost_micro_usd=0),
        "tenant:t1": ScopeReservation(tokens=0, cost_micro_usd=700),
    }
    assert ticket.reservation_field() == first
    ticket.ext_tokens += 50
    ticket.ext_cost += 30
    assert ticket.reservation_field() == {
        "key:k1": ScopeReservation(tokens=150, cost_micro_usd=0),
        "tenant:t1": ScopeReservation(tokens=0, cost_micro_usd=730),
    }
    assert first["key:k1"].tokens == 100  # an earlier event's value is not changed
    assert result.reads == 1
