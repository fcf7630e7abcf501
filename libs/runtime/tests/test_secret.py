"""The edge's secret wrapper: its printed forms never show the value."""

from __future__ import annotations

import logging
import pickle

import pytest
import structlog

from tollway_runtime.secret import MASK, Secret

pytestmark = pytest.mark.unit

VALUE = "pepper-0123456789"


def test_every_printed_form_hides_the_value() -> None:
    s = Secret(VALUE)
    shown_forms = (str(s), repr(s), f"{s}", f"{s!r}", f"{s:>40}", format(s, "<30"), str([s]), str({"k": s}))
    for shown in shown_forms:
        assert VALUE not in shown and MASK in shown
    assert s.get_secret_value() == VALUE
    assert str(Secret("")) == "" and Secret("").get_secret_value() == ""


def test_logs_and_structlog_lines_hide_it(caplog: pytest.LogCaptureFixture) -> None:
    s = Secret(VALUE)
    with caplog.at_level(logging.INFO):
        logging.getLogger("t").info("pepper %s", s)
    assert VALUE not in caplog.text
    line = structlog.processors.JSONRenderer()(None, "info", {"event": "x", "pepper": str(s)})
    assert VALUE not in line
    rendered = structlog.dev.ConsoleRenderer(colors=False)(None, "info", {"event": "x", "pepper": s})
    assert VALUE not in rendered


def test_immutable_comparable_and_picklable() -> None:
    s = Secret(VALUE)
    with pytest.raises(AttributeError):
        s._value = "other"  # type: ignore[misc]
    assert s == Secret(VALUE) and s != Secret("other") and s != VALUE
    assert hash(s) == hash(Secret(VALUE))
    again = pickle.loads(pickle.dumps(s))
    assert again == s and again.get_secret_value() == VALUE
    with pytest.raises(TypeError):
        Secret(b"bytes")  # type: ignore[arg-type]
