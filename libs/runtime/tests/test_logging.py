"""A log level per logger from settings (``TOLLWAY_LOG_LEVELS``), in a real
child process (structlog's configuration is process-global)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from pydantic import ValidationError

from tollway_runtime.settings import ServiceSettings

pytestmark = pytest.mark.unit

_CHILD = """
import logging, structlog
from tollway_runtime.logging import configure_logging
from tollway_runtime.settings import ServiceSettings
s = ServiceSettings()
configure_logging(s.log_level, "json", service="t", levels=s.log_levels)
structlog.get_logger("tollway_ledger.consumer.batch").debug("child_debug_kept")
structlog.get_logger("tollway_ledger").debug("parent_debug_dropped")
structlog.get_logger("tollway_ledger").info("parent_info_kept")
structlog.get_logger("aiokafka").warning("noisy_warning_dropped")
structlog.get_logger("aiokafka").error("noisy_error_kept")
structlog.get_logger().debug("unnamed_debug_dropped")
logging.getLogger("aiokafka.conn").warning("stdlib_noisy_warning_dropped")
logging.getLogger("aiokafka.conn").error("stdlib_noisy_error_kept")
"""


def test_levels_per_logger_from_settings() -> None:
    env = {
        **os.environ,
        "TOLLWAY_LOG_LEVEL": "INFO",
        "TOLLWAY_LOG_LEVELS": json.dumps({"tollway_ledger.consumer": "DEBUG", "aiokafka": "ERROR"}),
    }
    out = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    kept = [w for w in out.stderr.split() if "_kept" in w or "_dropped" in w]
    assert not [w for w in kept if "_dropped" in w], out.stderr
    for event in ("child_debug_kept", "parent_info_kept", "noisy_error_kept", "stdlib_noisy_error_kept"):
        assert event in out.stderr, (event, out.stderr)


def test_log_levels_default_to_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOLLWAY_LOG_LEVELS", raising=False)
    assert ServiceSettings().log_levels == {}
    monkeypatch.setenv("TOLLWAY_LOG_LEVELS", '{"aiokafka": "ERROR"}')
    assert ServiceSettings().log_levels == {"aiokafka": "ERROR"}


def test_levels_per_logger_as_name_level_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOLLWAY_LOG_LEVELS", " tollway_edge.request=warning, aiokafka=error ,")
    assert ServiceSettings().log_levels == {"tollway_edge.request": "WARNING", "aiokafka": "ERROR"}
    monkeypatch.setenv("TOLLWAY_LOG_LEVELS", "")
    assert ServiceSettings().log_levels == {}


@pytest.mark.parametrize("value", ["aiokafka=loud", "aiokafka", "=error", '{"aiokafka": "shout"}', "[1]"])
def test_bad_log_levels_fail_validation(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    """A typo fails ``--check-config`` instead of silently logging at INFO."""
    monkeypatch.setenv("TOLLWAY_LOG_LEVELS", value)
    with pytest.raises(ValidationError):
        ServiceSettings()


def test_name_level_pairs_apply_in_a_child_process() -> None:
    env = {
        **os.environ,
        "TOLLWAY_LOG_LEVEL": "INFO",
        "TOLLWAY_LOG_LEVELS": "tollway_ledger.consumer=debug,aiokafka=error",
    }
    out = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "_dropped" not in out.stderr, out.stderr
    for event in ("child_debug_kept", "parent_info_kept", "noisy_error_kept", "stdlib_noisy_error_kept"):
        assert event in out.stderr, (event, out.stderr)


@pytest.mark.parametrize(
    "ns",
    [
        1_764_773_537_887_470_123,  # a microsecond fraction
        1_764_773_537_000_000_000,  # a whole second: no fraction, as datetime.isoformat
        1_764_773_537_000_000_999,  # under a microsecond: floored to 0
        1_764_773_537_000_001_000,  # one microsecond
        1_764_806_399_999_999_999,  # the last microsecond of a day
    ],
)
def test_iso_utc_stamper_writes_what_structlog_timestamper_writes(
    ns: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The logging timestamp against ``datetime.isoformat`` (what structlog's
    ``TimeStamper(fmt="iso", utc=True)`` writes) at the same instant, the second
    before it first (the cached prefix must move on)."""
    from datetime import UTC, datetime, timedelta

    import structlog

    from tollway_runtime import logging as tlog

    stamper = tlog.IsoUtcStamper()
    for at in (ns - 1_000_000_000, ns):
        monkeypatch.setattr(tlog.time, "time_ns", lambda at=at: at)
        want = (datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=at // 1000)).isoformat()
        assert stamper(None, "info", {})["timestamp"] == want.replace("+00:00", "Z")
    monkeypatch.undo()  # the live clock: the same shape as structlog's own stamper
    ours = stamper(None, "info", {})["timestamp"]
    theirs = structlog.processors.TimeStamper(fmt="iso", utc=True)(None, "info", {})["timestamp"]
    assert len(ours) in (20, 27) and len(theirs) in (20, 27) and ours[:16] <= theirs[:16]
