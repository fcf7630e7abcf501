"""Shared fixtures for the redactor's unit tests: one detector with the default
settings (spaCy models load once per session, not once per module) and the
``found`` helper the rule-class tests assert with."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

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


EVAL = Path(__file__).resolve().parents[2] / "eval"


def load_eval_module(name: str) -> ModuleType:
    """The generator script ``eval/<name>.py`` loaded as a module. The eval folder is
    not a package; its scripts import their siblings (``tuning_rounds``) as a script
    run from the folder would, so the folder goes on ``sys.path`` first."""
    if str(EVAL) not in sys.path:
        sys.path.insert(0, str(EVAL))
    spec = importlib.util.spec_from_file_location(name, EVAL / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def assert_tuning_files_reproduce(files: dict[str, list[dict[str, Any]]]) -> None:
    """Each ``eval/tuning/<name>`` holds exactly ``records`` (one JSON object per line,
    UTF-8, byte for byte) and every gold span's offsets point at its value."""
    for name, records in files.items():
        committed = (EVAL / "tuning" / name).read_text(encoding="utf-8")
        assert committed == "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), name
        for r in records:
            for e in r["entities"]:
                assert r["text"][e["start"] : e["end"]] == e["value"], (name, r["id"])
