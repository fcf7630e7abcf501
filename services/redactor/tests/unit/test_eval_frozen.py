"""The frozen held-out evaluation set (issue 11) never drifts: the committed files
match ``eval/frozen/SHA256SUMS`` and ``eval/frozen.py`` still reproduces them."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

EVAL = Path(__file__).resolve().parents[2] / "eval"
FROZEN = EVAL / "frozen"


def _sums() -> dict[str, str]:
    lines = (FROZEN / "SHA256SUMS").read_text(encoding="utf-8").splitlines()
    return {name: digest for digest, name in (line.split("  ", 1) for line in lines if line)}


def test_committed_files_match_their_checksums():
    sums = _sums()
    assert set(sums) == {"heldout-en.jsonl", "heldout-fr.jsonl", "heldout-es.jsonl", "pii_free.jsonl"}
    for name, digest in sums.items():
        assert hashlib.sha256((FROZEN / name).read_bytes()).hexdigest() == digest, name


def test_generator_reproduces_the_frozen_files_byte_for_byte():
    spec = importlib.util.spec_from_file_location("frozen_eval", EVAL / "frozen.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, records in module.generate().items():
        assert module.render(records) == (FROZEN / name).read_bytes(), name


def test_gold_offsets_point_at_their_values():
    for name in _sums():
        for line in (FROZEN / name).read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            for e in record["entities"]:
                assert record["text"][e["start"] : e["end"]] == e["value"]
