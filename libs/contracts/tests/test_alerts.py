"""Unit tests of the alert contract: the example validates and round-trips."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from tollway_contracts.alerts import Alert, alert_id_for, parse_alert

pytestmark = pytest.mark.unit

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples" / "alerts").glob("*.json"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_alert_example_is_strictly_valid_and_round_trips(path: Path) -> None:
    alert = Alert.model_validate(json.loads(path.read_text()))
    assert parse_alert(alert.to_json()).model_dump() == alert.model_dump()
    assert alert.kafka_key() == alert.tenant_id.encode()


def test_consumers_tolerate_new_fields_producers_do_not() -> None:
    data = json.loads(EXAMPLES[0].read_text()) | {"later_field": 1}
    assert parse_alert(data).alert_id
    with pytest.raises(ValidationError):
        Alert.model_validate(data)
    with pytest.raises(ValueError):
        parse_alert(json.loads(EXAMPLES[0].read_text()) | {"schema_version": 2})


def test_alert_id_is_deterministic_per_threshold_and_period() -> None:
    a = alert_id_for("tn", "team", "tm", None, "budget", "2026-11-01T00:00:00.000000Z", 80)
    assert a == alert_id_for("tn", "team", "tm", None, "budget", "2026-11-01T00:00:00.000000Z", 80)
    assert a != alert_id_for("tn", "team", "tm", None, "budget", "2026-11-01T00:00:00.000000Z", 100)
    assert a != alert_id_for("tn", "team", "tm", None, "budget", "2026-12-01T00:00:00.000000Z", 80)
