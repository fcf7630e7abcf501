"""The frozen held-out evaluation sets (issue 11) never drift: the committed files
match their ``SHA256SUMS`` and their generators still reproduce them; v2's and
v3's value pools share nothing with the pools the detector was tuned on (v3's
nothing with v2's or v1's either, both spent)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = pytest.mark.unit

EVAL = Path(__file__).resolve().parents[2] / "eval"
SETS = {"frozen": EVAL / "frozen.py", "frozen_v2": EVAL / "frozen_v2.py", "frozen_v3": EVAL / "frozen_v3.py"}
FILES = {"heldout-en.jsonl", "heldout-fr.jsonl", "heldout-es.jsonl", "pii_free.jsonl"}


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"eval_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sums(folder: str) -> dict[str, str]:
    lines = (EVAL / folder / "SHA256SUMS").read_text(encoding="utf-8").splitlines()
    return {name: digest for digest, name in (line.split("  ", 1) for line in lines if line)}


@pytest.mark.parametrize("folder", sorted(SETS))
def test_committed_files_match_their_checksums(folder: str) -> None:
    sums = _sums(folder)
    assert set(sums) == FILES
    for name, digest in sums.items():
        assert hashlib.sha256((EVAL / folder / name).read_bytes()).hexdigest() == digest, name


@pytest.mark.parametrize("folder", sorted(SETS))
def test_generator_reproduces_the_frozen_files_byte_for_byte(folder: str) -> None:
    module = _load(SETS[folder])
    for name, records in module.generate().items():
        assert module.render(records) == (EVAL / folder / name).read_bytes(), name


@pytest.mark.parametrize("folder", sorted(SETS))
def test_gold_offsets_point_at_their_values(folder: str) -> None:
    for name in _sums(folder):
        for line in (EVAL / folder / name).read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            for e in record["entities"]:
                assert record["text"][e["start"] : e["end"]] == e["value"]


def test_v2_pools_are_disjoint_from_every_tuning_pool() -> None:
    v2, v1, gen, tun = (_load(EVAL / f) for f in ("frozen_v2.py", "frozen.py", "generate.py", "tuning.py"))
    v2_names = {n for pools in v2.NAMES.values() for pool in pools.values() for n in pool}
    used_names = (
        {n for pool in v1.NAMES.values() for n in pool}
        | set(gen.FIRST) | set(gen.LAST)
        | set(tun.FIRST_FR) | set(tun.LAST_FR) | set(tun.FIRST_ES) | set(tun.LAST_ES)
    )  # fmt: skip
    assert not v2_names & used_names
    v2_domains = {d for pool in v2.DOMAINS.values() for d in pool}
    assert not v2_domains & (set(v1.DOMAINS) | set(gen.DOMAINS) | {"correo.es", "exemple.fr"})
    v2_templates = {t for pool in v2.TEMPLATES.values() for t in pool}
    used_templates = (
        {t for pool in v1.TEMPLATES.values() for t in pool}
        | set(tun.TEMPLATES_FR) | set(tun.TEMPLATES_ES) | set(gen.TEMPLATES) | set(gen.HELDOUT_TEMPLATES)
    )  # fmt: skip
    assert not v2_templates & used_templates
    assert not set(v2._US_AREAS) & set(gen.US_AREA)
    v2_text = "".join(r["text"] for rs in v2.generate().values() for r in rs)
    for case in tun.CASES:
        assert case[0] not in v2_text
        assert not set(case[0].replace(",", " ").replace(".", " ").split()) & v2_names, case[0]


def test_v3_pools_are_disjoint_from_every_earlier_pool() -> None:
    v3, v2, v1, gen, tun = (
        _load(EVAL / f) for f in ("frozen_v3.py", "frozen_v2.py", "frozen.py", "generate.py", "tuning.py")
    )
    v3_names = {n for pools in v3.NAMES.values() for pool in pools.values() for n in pool}
    used_names = (
        {n for pools in v2.NAMES.values() for pool in pools.values() for n in pool}
        | {n for pool in v1.NAMES.values() for n in pool}
        | set(gen.FIRST) | set(gen.LAST)
        | set(tun.FIRST_FR) | set(tun.LAST_FR) | set(tun.FIRST_ES) | set(tun.LAST_ES)
    )  # fmt: skip
    assert not v3_names & used_names
    v3_domains = {d for pool in v3.DOMAINS.values() for d in pool}
    used_domains = {d for pool in v2.DOMAINS.values() for d in pool} | set(v1.DOMAINS) | set(gen.DOMAINS)
    assert not v3_domains & (used_domains | {"correo.es", "exemple.fr"})
    v3_templates = {t for pool in v3.TEMPLATES.values() for t in pool} | {
        t for pool in v3.CHAT_FREE.values() for t in pool
    }
    used_templates = (
        {t for pool in v2.TEMPLATES.values() for t in pool}
        | {t for pool in v1.TEMPLATES.values() for t in pool}
        | set(tun.TEMPLATES_FR) | set(tun.TEMPLATES_ES) | set(gen.TEMPLATES) | set(gen.HELDOUT_TEMPLATES)
    )  # fmt: skip
    assert not v3_templates & used_templates
    assert not set(v3._US_AREAS) & (set(gen.US_AREA) | set(v2._US_AREAS))
    v3_ibans = {c for pool in v3._IBAN_COUNTRIES.values() for c in pool}
    assert not v3_ibans & (
        {c for pool in v2._IBAN_COUNTRIES.values() for c in pool} | set(gen.IBAN_COUNTRIES)
    )
    v3_text = "".join(r["text"] for rs in v3.generate().values() for r in rs)
    for case in tun.CASES:
        assert case[0] not in v3_text
        assert not set(case[0].replace(",", " ").replace(".", " ").split()) & v3_names, case[0]
