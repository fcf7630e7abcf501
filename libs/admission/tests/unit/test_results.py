"""Admit's per-call objects (frozen ``msgspec.Struct`` s) and its packed command.

The result types keep their public shape: built positionally in the documented
order or by keyword, immutable, equal by value. The admit command that
``Admission`` packs from the plan cache's precomputed parts is byte for byte the
command the generic path sends (``pack`` of ``EVALSHA sha numkeys *KEYS *ARGV``),
tenant and request ids outside ASCII included; and the reply is read into the
same checks, reservation and seeds whichever path sent it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tollway_admission import Admission
from tollway_admission.admission import ADMIT, AdmitResult, LimitCheck, Reservation
from tollway_admission.pipelined import pack
from tollway_contracts.limits import Limit

pytestmark = pytest.mark.unit

NOW = datetime(2026, 3, 10, 12, 0, 20, 123456, tzinfo=UTC)
LIMITS = [
    Limit(
        scope="key",
        scope_id="k1",
        requests_per_minute=10,
        tokens_per_minute=1000,
        max_concurrent=3,
        budget_micro_usd=500,
        budget_period="day",
        time_zone="Europe/Paris",
    ),
    Limit(scope="team", scope_id="t-é", tokens_per_minute=50, shadow=True),
]


def test_results_are_immutable_values_with_their_documented_fields() -> None:
    lim = LIMITS[0]
    c = LimitCheck(lim, "tokens", "k", 1000, 10, 20, 970, 39.5, "fits")
    assert (c.limit, c.kind, c.key, c.value, c.used, c.requested, c.remaining) == (
        lim,
        "tokens",
        "k",
        1000,
        10,
        20,
        970,
    )
    assert (c.reset_seconds, c.outcome, c.shadow) == (39.5, "fits", False)
    assert c == LimitCheck(
        limit=lim,
        kind="tokens",
        key="k",
        value=1000,
        used=10,
        requested=20,
        remaining=970,
        reset_seconds=39.5,
        outcome="fits",
    )
    with pytest.raises(AttributeError):
        c.remaining = 0  # type: ignore[misc]
    res = Reservation("t", "r", ("a", "b"), 5, 6)
    with pytest.raises(AttributeError):
        res.tokens = 0  # type: ignore[misc]
    result = AdmitResult("admitted", "r", (c,), res)
    assert result.seeds_needed == () and result.now.tzinfo is not None and result.admitted
    with pytest.raises(AttributeError):
        result.status = "refused"  # type: ignore[misc]
    assert hash(res) == hash(Reservation("t", "r", ("a", "b"), 5, 6))


class _Capture:
    """Stands for a client: records what admit sends, answers a canned reply."""

    def __init__(self, reply: list[Any]) -> None:
        self.reply = reply
        self.sent: list[bytes] = []

    async def execute_packed(self, packed: bytes) -> Any:  # the pipelined client's
        self.sent.append(packed)
        return self.reply

    async def evalsha(self, sha: str, numkeys: int, *keys_and_args: Any) -> Any:  # redis-py's
        self.sent.append(pack(["EVALSHA", sha, numkeys, *keys_and_args]))
        return self.reply


@pytest.mark.parametrize(
    ("tenant", "status", "flags"),
    [
        ("t1", b"admitted", [0, 0, 0, 0, 2]),
        ("tenant-ü", b"refused", [0, 1, 0, 0, 0]),
        ("t1", b"seed", [0, 0, 0, 3, 0]),
    ],
)
async def test_the_packed_admit_is_the_generic_command_and_reads_the_same(
    tenant: str, status: bytes, flags: list[int]
) -> None:
    reply = [status, [1, 30, 2, 100, 40], flags]
    fast, generic = _Capture(reply), _Capture(reply)
    results = []
    for adm in (
        Admission(generic, clock=lambda: NOW),  # type: ignore[arg-type]
        Admission(generic, clock=lambda: NOW, pipelined=fast),  # type: ignore[arg-type]
    ):
        for request_id in ("r-1", "r-ü-2"):  # a second call: the plan comes from the cache
            results.append(
                await adm.admit(
                    tenant_id=tenant,
                    request_id=request_id,
                    limits=LIMITS,
                    model="m",
                    tokens=25,
                    cost_micro_usd=7,
                    ttl=timedelta(minutes=3),
                )
            )
    assert len(generic.sent) == 2 and fast.sent == generic.sent
    assert ADMIT.sha.encode() in fast.sent[0]
    assert results[:2] == results[2:]
    first = results[0]
    assert [c.kind for c in first.checks] == ["requests", "tokens", "concurrency", "budget", "tokens"]
    assert [c.requested for c in first.checks] == [1, 25, 1, 7, 25]
    admitted = status == b"admitted"
    assert [c.remaining for c in first.checks] == ([8, 945, 0, 393, 0] if admitted else [9, 970, 1, 400, 10])
    assert [c.reset_seconds for c in first.checks] == [
        39.876544,
        39.876544,
        1.0,
        (datetime(2026, 3, 10, 23, tzinfo=UTC) - NOW).total_seconds(),
        39.876544,
    ]
    if admitted:
        assert first.status == "admitted" and first.reservation is not None
        assert first.reservation.counter_keys == tuple(c.key for c in first.checks[1:])
        assert [c.outcome for c in first.checks][-1] == "would_refuse"
    else:
        assert first.reservation is None
        assert first.status == ("refused" if status == b"refused" else "seed_needed")
    assert [s.key for s in first.seeds_needed] == ([first.checks[3].key] if status == b"seed" else [])
