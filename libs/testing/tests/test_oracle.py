"""The billing oracle itself (pure): every kind of wrong bill is caught, a right one passes."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tollway_contracts.catalogue import Prices
from tollway_testing.oracle import Bound, check

pytestmark = pytest.mark.unit

PRICES = Prices(input=150_000, output=600_000)  # micro-USD per million tokens


def prices_of(_record: Any) -> Prices:
    return PRICES


def rec(rid: str, prompt: int = 10, completion: int = 20, **kw: Any) -> dict[str, Any]:
    return {
        "request_id": rid,
        "billable": True,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "cached_tokens": 0,
        "cache_write_tokens": 0,
        "usage_reported": True,
        **kw,
    }


def cost(prompt: int, completion: int) -> int:
    return -(-(prompt * 150_000 + completion * 600_000) // 1_000_000)


def row(rid: str, prompt: int | None = 10, completion: int | None = 20, **kw: Any) -> dict[str, Any]:
    c = None if prompt is None or completion is None else cost(prompt, completion)
    return {
        "request_id": uuid.UUID(rid),
        "status": "completed",
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "cost_micro_usd": c,
        "usage_estimated": False,
        **kw,
    }


def ids(n: int) -> list[str]:
    return [str(uuid.uuid4()) for _ in range(n)]


def test_exact_bills_are_clean() -> None:
    a, b = ids(2)
    report = check([rec(a), rec(b, 7, 3)], [row(a), row(b, 7, 3)], prices_of)
    assert report.clean, report.problems()
    assert report.summary()["calls"] == 2 and report.exact_rows == 2


def test_a_call_without_a_terminal_row_is_lost() -> None:
    a, b, c = ids(3)
    report = check([rec(a), rec(b), rec(c)], [row(a), row(b, status="in_flight")], prices_of)
    assert report.lost == 2 and not report.clean
    assert {p.request_id for p in report.problems()} == {b, c}


def test_null_cost_is_caught() -> None:
    a = ids(1)[0]
    report = check([rec(a)], [row(a, cost_micro_usd=None)], prices_of)
    assert report.null_cost == 1 and not report.clean
    report = check([rec(a)], [row(a, None, None)], prices_of)
    assert report.null_cost == 1


def test_token_and_cost_differences_are_summed() -> None:
    a, b = ids(2)
    report = check(
        [rec(a, 10, 20), rec(b, 10, 20)], [row(a, 10, 21), row(b, 10, 20, cost_micro_usd=1)], prices_of
    )
    assert report.token_diff == 1
    assert report.micro_usd_diff == (cost(10, 21) - cost(10, 20)) + (cost(10, 20) - 1)
    assert report.mismatches == 2 and not report.clean


def test_duplicates_are_counted() -> None:
    a = ids(1)[0]
    report = check([rec(a)], [row(a), row(a)], prices_of)
    assert report.duplicates == 1 and not report.clean


def test_estimated_rows_are_judged_by_the_bound() -> None:
    a, b = ids(2)
    # prompt 100 -> bound ceil(25) + 3 = 28 tokens either way
    inside = row(a, 128, 20, usage_estimated=True)
    outside = row(b, 129, 20, usage_estimated=True)
    report = check(
        [rec(a, 100, 20, usage_reported=False), rec(b, 100, 20, usage_reported=False)],
        [inside, outside],
        prices_of,
    )
    assert report.estimated_rows == 2 and report.out_of_bound == 1
    assert [p.request_id for p in report.problems()] == [b]
    assert report.estimated_token_diff == 28 + 29
    assert report.token_diff == 0  # estimates are not "exact differences"
    assert Bound(relative=0.0, slack_tokens=0).allows(5, 5) and not Bound(0.0, 0).allows(6, 5)


def test_an_estimated_row_must_cost_its_own_tokens() -> None:
    a = ids(1)[0]
    bad = row(a, 13, 20, usage_estimated=True, cost_micro_usd=cost(13, 20) - 1)
    report = check([rec(a, 10, 20, usage_reported=False)], [bad], prices_of)
    assert report.mismatches == 1 and not report.clean


def test_fallback_attempts_are_billed_as_their_sum() -> None:
    a = ids(1)[0]
    first = rec(a, 10, 5, deployment="east")
    second = rec(a, 10, 20, deployment="west")
    refused = {"request_id": a, "billable": False, "prompt_tokens": None, "completion_tokens": None}
    report = check(
        [refused, first, second], [row(a, 20, 25, cost_micro_usd=cost(10, 5) + cost(10, 20))], prices_of
    )
    assert report.clean, report.problems()
    report = check([first, second], [row(a, 10, 20)], prices_of)  # billed only the last attempt
    assert report.mismatches == 1 and report.token_diff == 15


def test_a_bill_for_an_answer_the_provider_never_gave_is_phantom() -> None:
    a, b = ids(2)
    refused = {"request_id": b, "billable": False}
    report = check([rec(a), refused], [row(a), row(b, 5, 5)], prices_of)
    assert report.phantom == 1 and not report.clean
    # a refused call's `failed` row without tokens is fine
    report = check([rec(a), refused], [row(a), row(b, None, None, status="failed")], prices_of)
    assert report.clean


def test_a_dead_workers_call_billed_by_its_adopter_is_judged_by_the_relayed_bound() -> None:
    """``edge_worker_lost`` rows: completion never above the provider's, a stream at most
    ``relayed_tokens`` below it, a non-streamed call anything below (nothing was relayed)."""
    a, b, c, d = ids(4)
    left = {"usage_estimated": True, "status": "failed", "error_type": "edge_worker_lost"}
    bound = Bound(relayed_tokens=8)
    report = check(
        [rec(a, 10, 20), rec(b, 10, 20), rec(c, 10, 20), rec(d, 10, 20)],
        [
            row(a, 13, 12, stream=True, **left),  # 8 under: inside
            row(b, 13, 11, stream=True, **left),  # 9 under: outside
            row(c, 13, 0, stream=False, **left),  # non-streamed: nothing relayed, inside
            row(d, 13, 21, stream=True, **left),  # over the provider: outside
        ],
        prices_of,
        bound=bound,
    )
    assert report.adopted_rows == 4 and report.estimated_rows == 4
    assert {p.request_id for p in report.problems()} == {b, d}
    assert report.out_of_bound == 2
    assert check([rec(a, 10, 20)], [row(a, 13, 0, stream=True, **left)], prices_of).clean  # no relayed bound


def test_a_dead_workers_call_the_provider_never_billed_is_counted_apart_not_phantom() -> None:
    a, b = ids(2)
    left = {"usage_estimated": True, "status": "failed", "error_type": "edge_worker_lost"}
    unbilled = rec(a, billable=False, usage_reported=False)  # the provider saw it, answered no 200
    report = check([unbilled], [row(a, 13, 0, stream=False, **left), row(b, 13, 0, **left)], prices_of)
    assert report.adopted_unbilled == 1  # a: heard of by the provider
    assert report.phantom == 1  # b: the provider never heard of it at all
