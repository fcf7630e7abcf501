"""The local limiter's split rules (issue 10): N from the heartbeat count,
budgets from the last known counters, write-back accounting (pure)."""

from __future__ import annotations

from datetime import UTC, datetime

from tollway_contracts.limits import Limit
from tollway_edge.admission.local_limits import LocalLimiter

NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)
LIMIT = Limit(
    scope="key", scope_id="k1", budget_micro_usd=10_000, budget_period="month", requests_per_minute=100
)


def _admit(local: LocalLimiter, cost: int, *, call: bool = True):  # noqa: ANN202
    return local.admit(
        tenant_id="t1",
        request_id="r",
        limits=[LIMIT],
        model="m",
        tokens=1,
        cost_micro_usd=cost,
        now=NOW,
        count_call=call,
    )


def test_budget_share_starts_from_the_last_known_counter_over_n_alive() -> None:
    local = LocalLimiter(expected_processes=8)
    result, _ = _admit(local, 1)
    budget_key = next(c.key for c in result.checks if c.kind == "budget")
    local.begin_split(2, {budget_key: 4_000})
    result, _ = _admit(local, 0)
    shares = {c.kind: c.value for c in result.checks}
    assert shares == {"requests": 50, "budget": 3_000}  # (10_000 - 4_000) // 2; rpm 100 // 2


def test_only_calls_admitted_locally_are_written_back_once() -> None:
    local = LocalLimiter(expected_processes=1)
    _, res = _admit(local, 1_000)
    assert res is not None
    local.settle(res, 1, 700)
    local.settle(res, 1, 700)  # a second finish counts nothing more
    _, ext = _admit(local, 500, call=False)  # an exact call's local extension
    assert ext is not None
    local.settle(ext, 1, 400)
    unwritten = local.unwritten()
    assert list(unwritten) == ["t1"] and [a for _, a in unwritten["t1"]] == [700]
    local.written("t1", unwritten["t1"])
    assert local.unwritten() == {}
