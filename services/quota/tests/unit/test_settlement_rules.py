"""Unit tests of settlement planning, threshold crossing, the dead-letter limit
and the webhook queue bound (pure; no services)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import httpx
import orjson
import pytest

from tollway_contracts.events import ScopeReservation, UsageEvent
from tollway_contracts.limits import Limit
from tollway_quota.alerting import BudgetUsage, budget_crossings, build_alert
from tollway_quota.consumer import DlqLimit, DlqLimitExceeded
from tollway_quota.settlement import Poison, plan_settlement
from tollway_quota.webhooks import WebhookNotifier

pytestmark = pytest.mark.unit

T0 = datetime(2026, 11, 29, 12, tzinfo=UTC)


def _event(**over) -> bytes:  # noqa: ANN003
    base = dict(
        type="completed",
        request_id=uuid.uuid4(),
        tenant_id="tn_a",
        key_id="k" * 12,
        ts_start=T0,
        ts_end=T0 + timedelta(seconds=1),
        model="m",
        prompt_tokens=10,
        completion_tokens=5,
        cost_micro_usd=12,
        reservation={"key:kkk": ScopeReservation(tokens=100, cost_micro_usd=40)},
    )
    base.update(over)
    return UsageEvent(**base).to_json()


def test_terminal_events_with_a_reservation_settle_to_the_actuals() -> None:
    cmd = plan_settlement(_event())
    assert cmd is not None and (cmd.tokens, cmd.cost_micro_usd, cmd.tenant_id) == (15, 12, "tn_a")
    cmd = plan_settlement(_event(total_tokens=20, type="failed", cost_micro_usd=None))
    assert cmd is not None and (cmd.tokens, cmd.cost_micro_usd) == (20, 0)
    # an empty reservation still settles: it may hold a concurrency slot
    assert plan_settlement(_event(reservation={})) is not None


def test_started_and_unreserved_events_need_nothing() -> None:
    assert plan_settlement(_event(reservation=None)) is None
    started = _event(
        type="started", ts_end=None, prompt_tokens=None, completion_tokens=None, cost_micro_usd=None
    )
    assert plan_settlement(started) is None


@pytest.mark.parametrize(
    "value", [None, b"", b"nope", b"[]", b'{"schema_version": 2}', b'{"type": "completed"}']
)
def test_unusable_messages_are_poison(value) -> None:  # noqa: ANN001
    with pytest.raises(Poison):
        plan_settlement(value)


def _limit(**over) -> Limit:  # noqa: ANN003
    return Limit(
        **(
            {
                "scope": "team",
                "scope_id": "tm_x",
                "budget_micro_usd": 1000,
                "budget_period": "month",
                "thresholds_percent": [50, 80],
            }
            | over
        )
    )


def test_crossings_are_every_threshold_reached_plus_the_hard_limit() -> None:
    usage = lambda spent: BudgetUsage(spent, T0, T0 + timedelta(days=30))  # noqa: E731
    assert budget_crossings(_limit(), usage(0)) == []
    assert [c.threshold_percent for c in budget_crossings(_limit(), usage(499))] == []
    assert [c.threshold_percent for c in budget_crossings(_limit(), usage(500))] == [50]
    assert [(c.threshold_percent, c.kind) for c in budget_crossings(_limit(), usage(1000))] == [
        (50, "threshold"),
        (80, "threshold"),
        (100, "limit"),
    ]
    assert (
        budget_crossings(_limit(budget_micro_usd=None, budget_period=None, requests_per_minute=5), usage(9))
        == []
    )
    # a zero budget alerts on the first micro-USD
    assert [c.threshold_percent for c in budget_crossings(_limit(budget_micro_usd=0), usage(1))] == [
        50,
        80,
        100,
    ]


def test_alert_ids_repeat_within_a_period_only() -> None:
    c = budget_crossings(_limit(), BudgetUsage(900, T0, T0 + timedelta(days=30)))[1]
    a = build_alert("tn_a", c, source="settlement", request_id=None, now=T0)
    b = build_alert("tn_a", c, source="settlement", request_id=str(uuid.uuid4()), now=T0 + timedelta(hours=1))
    assert a.alert_id == b.alert_id and a.threshold_percent == 80 and a.period == "month"
    later = BudgetUsage(900, T0 + timedelta(days=30), T0 + timedelta(days=61))
    assert (
        build_alert(
            "tn_a", budget_crossings(_limit(), later)[1], source="settlement", request_id=None, now=T0
        ).alert_id
        != a.alert_id
    )


def test_dead_letter_limit_is_per_sliding_window() -> None:
    now = [0.0]
    lim = DlqLimit(2, window_seconds=60, clock=lambda: now[0])
    lim.check(1, 1)
    now[0] = 1.0
    lim.check(1, 1)
    now[0] = 2.0
    with pytest.raises(DlqLimitExceeded):
        lim.check(1, 1)
    now[0] = 61.5
    lim.check(1, 1)  # the first two left the window


async def test_webhook_submit_never_waits_and_drops_when_full() -> None:
    c = budget_crossings(_limit(), BudgetUsage(900, T0, T0 + timedelta(days=30)))[0]
    alert = build_alert("tn_a", c, source="settlement", request_id=None, now=T0)
    async with httpx.AsyncClient() as http:
        notifier = WebhookNotifier(http, queue_size=2)  # workers not started: nothing drains
        assert [notifier.submit("http://127.0.0.1:9/x", alert) for _ in range(3)] == [True, True, False]
        assert notifier.dropped == 1


def test_a_malformed_started_event_settles_nothing_and_is_not_poison() -> None:
    started = orjson.loads(
        _event(type="started", ts_end=None, prompt_tokens=None, completion_tokens=None, cost_micro_usd=None)
    )
    started["attempts"] = "many"
    assert plan_settlement(orjson.dumps(started)) is None
    started["schema_version"] = 2
    with pytest.raises(Poison):
        plan_settlement(orjson.dumps(started))
