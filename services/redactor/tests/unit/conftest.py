"""Shared fixtures for the redactor's unit tests: one detector with the default
settings (spaCy models load once per session, not once per module) and the
``found`` helper the rule-class tests assert with."""

from __future__ import annotations

import pytest

from tollway_redactor.engine import Detector
from tollway_redactor.settings import DEFAULT_ENTITY_TYPES, RedactorSettings


@pytest.fixture(scope="session")
def detector() -> Detector:
    """The detector as the service builds it from default settings (threshold,
    languages, windows); shared by every test module that asks for it."""
    return Detector(RedactorSettings().engine_config())


def found(detector: Detector, text: str) -> list[tuple[str, str]]:
    """Every detection in ``text`` at the default threshold (0.35) over the
    default entity types, as ``(entity type, matched text)`` pairs in the
    detector's order."""
    spans = detector.analyze([text], list(DEFAULT_ENTITY_TYPES), 0.35)[0]
    return [(s.entity_type, text[s.start : s.end]) for s in spans]
