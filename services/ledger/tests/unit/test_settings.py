"""The ledger's settings: how its Kafka consumer fetches is the operator's to tune."""

from __future__ import annotations

import pytest

from tollway_ledger.settings import LedgerSettings

pytestmark = pytest.mark.unit


def test_fetch_settings_are_read_under_the_ledgers_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    """``TOLLWAY_LEDGER_FETCH_*`` reaches the ledger's consumer (quota's names do not)."""
    monkeypatch.setenv("TOLLWAY_LEDGER_FETCH_MIN_BYTES", "1")
    monkeypatch.setenv("TOLLWAY_LEDGER_FETCH_MAX_WAIT_MS", "40")
    monkeypatch.setenv("TOLLWAY_QUOTA_FETCH_MIN_BYTES", "999")
    assert LedgerSettings().fetch_kwargs() == {"fetch_min_bytes": 1, "fetch_max_wait_ms": 40}
    monkeypatch.delenv("TOLLWAY_LEDGER_FETCH_MIN_BYTES")
    monkeypatch.delenv("TOLLWAY_LEDGER_FETCH_MAX_WAIT_MS")
    assert LedgerSettings().fetch_kwargs() == {"fetch_min_bytes": 256 * 1024, "fetch_max_wait_ms": 250}
