"""The routing plan (pure): the order in which one call tries a model's deployments.

Deployments are grouped by ``priority`` (lower first); within a level they
are ordered by a weighted random draw without replacement (Efraimidis and
Spirakis' "A-Res" keys, ``u ** (1 / weight)``: a deployment of weight 3 comes
first three times as often as one of weight 1), and weight-0 deployments come
last in their level. A data-residency policy (``allowed_regions``) removes
every deployment it does not admit before anything else, so retries and
fallbacks never leave the allowed set (``Deployment.regions``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Sequence
from itertools import groupby

from tollway_contracts.catalogue import Deployment


def admitted(deployment: Deployment, allowed_regions: Collection[str] | None) -> bool:
    """True when a residency policy allowing ``allowed_regions`` admits ``deployment``:
    no policy (None), or the deployment has region tags and all are allowed."""
    if allowed_regions is None:
        return True
    return bool(deployment.regions) and all(r in allowed_regions for r in deployment.regions)


def plan(
    deployments: Sequence[Deployment],
    *,
    allowed_regions: Collection[str] | None = None,
    serves: Callable[[Deployment], bool] | None = None,
    rand: Callable[[], float] = random.random,
) -> list[Deployment]:
    """The deployments one call tries, in order.

    Args:
        deployments: the model's deployments (catalogue order).
        allowed_regions: the caller's residency policy (None: no policy).
        serves: keeps only deployments whose provider serves the endpoint.
        rand: uniform [0, 1) source (tests pass a seeded one).

    Returns:
        The admitted deployments by priority, weighted-shuffled within each
        level; empty when none is admitted.
    """
    kept = [d for d in deployments if admitted(d, allowed_regions) and (serves is None or serves(d))]
    if len(kept) <= 1:
        return kept
    kept.sort(key=lambda d: d.priority)  # stable: catalogue order within a level before the draw
    out: list[Deployment] = []
    for _, level in groupby(kept, key=lambda d: d.priority):
        group = list(level)
        if len(group) == 1:
            out.extend(group)
            continue
        keyed = [(_key(d.weight, rand()), i, d) for i, d in enumerate(group)]
        keyed.sort(key=lambda t: (-t[0], t[1]))
        out.extend(d for _, _, d in keyed)
    return out


def _key(weight: int, u: float) -> float:
    """A-Res key: ``u ** (1/weight)``; weight 0 sorts after every positive weight."""
    if weight <= 0:
        return -1.0
    return float(u ** (1.0 / weight))
