"""The routing plan: priority levels, weights within a level, residency, and the older routes form."""

from __future__ import annotations

import random
from collections import Counter

import msgspec
import pytest
from msgspec import ValidationError

from tollway_contracts.catalogue import Deployment, Model, catalogue_from_dict
from tollway_edge.routing.plan import admitted, plan

PRICES = {"input": 1, "output": 1}


def _d(name: str, priority: int = 0, weight: int = 1, regions: tuple[str, ...] = ()) -> Deployment:
    return Deployment(
        name=name,
        provider="p",
        upstream_model="m",
        priority=priority,
        weight=weight,
        regions=frozenset(regions),
    )


def test_priority_levels_come_in_order() -> None:
    ds = [_d("c", 2), _d("a", 0), _d("b", 1)]
    for seed in range(20):
        assert [d.name for d in plan(ds, rand=random.Random(seed).random)] == ["a", "b", "c"]


def test_weights_share_the_first_place_within_a_level() -> None:
    ds = [_d("heavy", weight=3), _d("light", weight=1), _d("backup", priority=1)]
    rng = random.Random(7)
    firsts = Counter(plan(ds, rand=rng.random)[0].name for _ in range(4000))
    assert set(firsts) == {"heavy", "light"}
    assert 0.72 < firsts["heavy"] / 4000 < 0.78  # 3 / (3 + 1)
    assert all(plan(ds, rand=rng.random)[-1].name == "backup" for _ in range(50))


def test_weight_zero_is_last_in_its_level() -> None:
    ds = [_d("standby", weight=0), _d("x"), _d("y")]
    rng = random.Random(1)
    for _ in range(200):
        assert plan(ds, rand=rng.random)[-1].name == "standby"


def test_residency_keeps_only_deployments_whose_tags_are_all_allowed() -> None:
    eu, us, both, untagged = (
        _d("eu", regions=("eu",)),
        _d("us", regions=("us",)),
        _d("both", regions=("eu", "us")),
        _d("none"),
    )
    assert [d.name for d in plan([eu, us, both, untagged], allowed_regions={"eu"})] == ["eu"]
    assert plan([us, untagged], allowed_regions={"eu"}) == []
    assert len(plan([eu, us, both, untagged])) == 4  # no policy: everything
    assert admitted(both, {"eu", "us"}) and not admitted(untagged, set())


def test_serves_filters_deployments() -> None:
    ds = [_d("a"), _d("b", 1)]
    assert [d.name for d in plan(ds, serves=lambda d: d.name == "b")] == ["b"]


def test_older_routes_load_as_ordered_unnamed_deployments() -> None:
    model = msgspec.convert(
        {
            "prices": PRICES,
            "routes": [{"provider": "p", "upstream_model": "a"}, {"provider": "q", "upstream_model": "b"}],
        },
        Model,
    )
    assert [(d.name, d.provider, d.upstream_model, d.priority) for d in model.deployments] == [
        (None, "p", "a", 0),
        (None, "q", "b", 1),
    ]
    assert [d.upstream_model for d in plan(model.deployments)] == ["a", "b"]


def test_catalogue_checks_deployments() -> None:
    base = {"providers": {"p": {"base_url": "http://x/v1"}}}
    with pytest.raises(ValidationError, match="unknown provider"):
        catalogue_from_dict(
            {
                **base,
                "models": {
                    "m": {"prices": PRICES, "deployments": [{"provider": "zz", "upstream_model": "m"}]}
                },
            }
        )
    with pytest.raises(ValidationError, match="repeat"):
        catalogue_from_dict(
            {
                **base,
                "models": {
                    "m": {
                        "prices": PRICES,
                        "deployments": [{"name": "a", "provider": "p", "upstream_model": "m"}] * 2,
                    }
                },
            }
        )
    with pytest.raises(ValidationError, match="at least one"):
        catalogue_from_dict({**base, "models": {"m": {"prices": PRICES}}})
    with pytest.raises(ValidationError, match="not both"):
        catalogue_from_dict(
            {
                **base,
                "models": {
                    "m": {
                        "prices": PRICES,
                        "routes": [{"provider": "p", "upstream_model": "m"}],
                        "deployments": [{"provider": "p", "upstream_model": "m"}],
                    }
                },
            }
        )
    cat = catalogue_from_dict(
        {
            **base,
            "retry": {"max_attempts": 3},
            "models": {
                "m": {
                    "prices": PRICES,
                    "deployments": [
                        {"name": "a", "provider": "p", "upstream_model": "m", "retry": {"max_attempts": 1}},
                        {
                            "name": "b",
                            "provider": "p",
                            "upstream_model": "m",
                            "timeouts": {"first_byte_seconds": 1.5},
                        },
                    ],
                }
            },
        }
    )
    a, b = cat.models["m"].deployments
    assert cat.retry_of(a).max_attempts == 1 and cat.retry_of(b).max_attempts == 3
    assert b.timeouts.first_byte_seconds == 1.5 and 503 in cat.retry.retryable_statuses
