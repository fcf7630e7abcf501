"""``AdmitResult.headers()``: OpenAI's rate-limit headers from the tightest enforced
rpm and tpm checks, ``Retry-After`` when refused — against the rule written out
plainly (the tightest by ``min`` over the enforced checks of a kind), on every
combination of a few checks."""

from __future__ import annotations

import itertools
import math

import pytest

from tollway_admission.admission import AdmitResult, LimitCheck, openai_duration
from tollway_contracts.limits import Limit

pytestmark = pytest.mark.unit


def _reference(result: AdmitResult) -> dict[str, str]:
    out: dict[str, str] = {}
    for kind in ("requests", "tokens"):
        enforced = [c for c in result.checks if c.kind == kind and not c.shadow]
        c = min(enforced, key=lambda c: (c.remaining, c.value), default=None)
        if c is not None:
            out[f"x-ratelimit-limit-{kind}"] = str(c.value)
            out[f"x-ratelimit-remaining-{kind}"] = str(c.remaining)
            out[f"x-ratelimit-reset-{kind}"] = openai_duration(c.reset_seconds)
    refusing = [c.reset_seconds for c in result.checks if c.outcome == "refuses"]
    if refusing:
        out["Retry-After"] = str(max(1, math.ceil(max(refusing))))
    return out


def _check(kind: str, shadow: bool, remaining: int, value: int, reset: float, outcome: str) -> LimitCheck:
    limit = Limit(scope="key", scope_id=f"k{value}", requests_per_minute=value, shadow=shadow)
    return LimitCheck(limit, kind, f"key:{kind}:{value}", value, 0, 1, remaining, reset, outcome)  # type: ignore[arg-type]


CHECKS = [
    _check(kind, shadow, remaining, value, reset, outcome)
    for kind, shadow, remaining, value, reset, outcome in [
        ("requests", False, 5, 10, 12.5, "fits"),
        ("requests", False, 5, 8, 40.0, "refuses"),  # same remaining, lower value: tighter
        ("requests", False, 5, 8, 7.0, "fits"),  # a tie with the one before: the first one wins
        ("requests", True, 0, 3, 0.2, "would_refuse"),  # shadow: never in the headers
        ("tokens", False, 900, 1000, 59.9, "fits"),
        ("tokens", False, 0, 500, 3600.0, "refuses"),
        ("concurrency", False, 0, 2, 1.0, "refuses"),
        ("budget", False, 10, 10**6, 86_400.0, "fits"),
    ]
]


@pytest.mark.parametrize("n", range(len(CHECKS) + 1))
def test_headers_follow_the_rule_on_every_subset_and_order(n: int) -> None:
    for subset in itertools.permutations(CHECKS, n) if n <= 3 else itertools.combinations(CHECKS, n):
        refused = any(c.outcome == "refuses" for c in subset)
        result = AdmitResult("refused" if refused else "admitted", "r1", tuple(subset))
        assert result.headers() == _reference(result), subset
