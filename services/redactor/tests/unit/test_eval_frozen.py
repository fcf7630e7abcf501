"""The frozen held-out evaluation sets (issue 11) never drift: the committed files
match their ``SHA256SUMS`` and their generators still reproduce them; v2's and
v3's value pools share nothing with the pools the detector was tuned on (v3's
nothing with v2's or v1's either, both spent); v4's pools and values share
nothing with any earlier generator or labelled file, and every v4 gold span is
sound (offsets, no overlap, phones valid for ``phonenumbers``, cards
Luhn-valid, IBAN check digits and lengths as the registry has them). v5, v6 and
v7 and v8 go through one parametrised set of checks (``HELD_OUT``): pools and
values disjoint from everything before them, gold spans sound, PII-free texts
free of personal data; v9, v10 and v11 too. ``evaluate.py`` refuses ``--misses`` on v11,
the current held-out set (v9, v8, v7, v6 and v5 are spent)."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import phonenumbers
import pytest

from .conftest import load_eval_module

pytestmark = pytest.mark.unit

EVAL = Path(__file__).resolve().parents[2] / "eval"
SETS = {
    "frozen": EVAL / "frozen.py",
    "frozen_v2": EVAL / "frozen_v2.py",
    "frozen_v3": EVAL / "frozen_v3.py",
    "frozen_v4": EVAL / "frozen_v4.py",
    "frozen_v5": EVAL / "frozen_v5.py",
    "frozen_v6": EVAL / "frozen_v6.py",
    "frozen_v7": EVAL / "frozen_v7.py",
    "frozen_v8": EVAL / "frozen_v8.py",
    "frozen_v9": EVAL / "frozen_v9.py",
    "frozen_v10": EVAL / "frozen_v10.py",
    "frozen_v11": EVAL / "frozen_v11.py",
}
FILES = {"heldout-en.jsonl", "heldout-fr.jsonl", "heldout-es.jsonl", "pii_free.jsonl"}


def _load(path: Path) -> ModuleType:
    return load_eval_module(path.stem)


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


# --- v4 ----------------------------------------------------------------------

# IBAN lengths of the SWIFT IBAN registry, for the countries v4 uses
IBAN_LENGTHS = {
    "AT": 20, "LV": 21, "CY": 28, "MT": 31, "LI": 21, "GI": 23, "AE": 23, "SA": 24, "IL": 23, "TR": 26,
    "UA": 29, "TN": 24, "MR": 27, "LB": 28, "MU": 30, "CR": 22, "DO": 28, "GT": 28, "SV": 28,
}  # fmt: skip


def _v4_records() -> dict[str, list[dict]]:
    return {
        name: [
            json.loads(line) for line in (EVAL / "frozen_v4" / name).read_text(encoding="utf-8").splitlines()
        ]
        for name in sorted(FILES)
    }


# Tuning files written after v4 was frozen, by hands that never read v4
# (round 6, branch `patterns`: layouts of the spent v3's misses). They are not
# "earlier" for the pool and layout checks, which describe how v4 was built
# against what existed when it was frozen; the check that no v4 value appears
# in any other file still reads them.
# Branch `precision` (round 6, names and false positives, eval/round6.py) too:
# its names come from its own pools, written without reading v4.
# Round 7 (eval/round7.py) was written after v4 was measured and spent, from
# the classes of its misses, with new pools; round 8 (eval/round8.py) after v5
# was measured and spent, from v5's miss classes, with new pools; v6
# (eval/frozen_v6.py) after v5, blind to round 8; v7 (eval/frozen_v7.py) after
# v6 was measured and spent, blind to everything tuned since.
WRITTEN_AFTER_V4 = frozenset(
    {
        "tuning/patterns.jsonl",
        "tuning/names_round6.jsonl",
        "tuning/pii_free_round6.jsonl",
        "tuning/round7.jsonl",
        "tuning/pii_free_round7.jsonl",
        *(f"frozen_v6/{name}" for name in FILES),
        "tuning/round8.jsonl",
        "tuning/pii_free_round8.jsonl",
        *(f"frozen_v7/{name}" for name in FILES),
        "tuning/round9.jsonl",
        "tuning/pii_free_round9.jsonl",
        *(f"frozen_v8/{name}" for name in FILES),
        "tuning/round10.jsonl",
        "tuning/pii_free_round10.jsonl",
        *(f"frozen_v9/{name}" for name in FILES),
        *(f"frozen_v10/{name}" for name in FILES),
        *(f"frozen_v11/{name}" for name in FILES),
        "tuning/round11.jsonl",
        "tuning/pii_free_round11.jsonl",
        # round 12 (eval/round12.py), tuned on the spent v9 while v10 was written
        "tuning/round12.jsonl",
        "tuning/pii_free_round12.jsonl",
        # round 13 (eval/round13.py), tuned on the spent v10 while v11 was written
        "tuning/round13.jsonl",
        "tuning/pii_free_round13.jsonl",
        # round 14 (eval/round14.py), tuned on the spent v11 (no held-out set)
        "tuning/round14.jsonl",
        "tuning/pii_free_round14.jsonl",
    }
)


def _earlier_gold(include_later: bool = False) -> dict[str, list[str]]:
    """Every labelled value of every earlier JSONL file under eval/ (tuning, samples, v1-v3), by type;
    with ``include_later``, also the files of :data:`WRITTEN_AFTER_V4`."""
    out: dict[str, list[str]] = {}
    for path in sorted(EVAL.glob("**/*.jsonl")):
        if path.parent.name == "frozen_v4":
            continue
        if not include_later and path.relative_to(EVAL).as_posix() in WRITTEN_AFTER_V4:
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                for e in json.loads(line)["entities"]:
                    out.setdefault(e["type"], []).append(e["value"])
    return out


def _tokens(name: str, particles: tuple[str, ...] = ()) -> set[str]:
    return {t.lower() for t in re.split(r"[\s\-,.]+", name) if t and t.lower() not in particles}


def _shape(phone: str) -> str:
    return re.sub(r"\d", "9", phone)


def _nanp_area(phone: str) -> str | None:
    """The area code of a valid North American number, else None."""
    try:
        n = phonenumbers.parse(phone, "US")
    except phonenumbers.NumberParseException:
        return None
    valid = n.country_code == 1 and phonenumbers.is_valid_number(n)
    return str(n.national_number)[:3] if valid else None


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch) * (2 if i % 2 else 1)
        total += n - 9 if n > 9 else n
    return total % 10 == 0


def _iban_ok(value: str) -> bool:
    code = value.replace(" ", "")
    if len(code) != IBAN_LENGTHS.get(code[:2], -1):
        return False
    return int("".join(str(int(c, 36)) for c in code[4:] + code[:4])) % 97 == 1


def test_v4_pools_are_disjoint_from_every_earlier_pool_and_value() -> None:
    v4, v3, v2, v1, gen, tun = (
        _load(EVAL / f)
        for f in ("frozen_v4.py", "frozen_v3.py", "frozen_v2.py", "frozen.py", "generate.py", "tuning.py")
    )
    earlier = _earlier_gold()
    # names: no token of a v4 name (particles aside) in any earlier pool or labelled PERSON
    v4_names = {
        t
        for pools in v4.NAMES.values()
        for pool in pools.values()
        for n in pool
        for t in _tokens(n, v4.PARTICLES)
    }
    used_names = {
        t
        for n in (
            [n for m in (v3, v2) for pools in m.NAMES.values() for pool in pools.values() for n in pool]
            + [n if isinstance(n, str) else " ".join(n) for pool in v1.NAMES.values() for n in pool]
            + list(gen.FIRST) + list(gen.LAST)
            + list(tun.FIRST_FR) + list(tun.LAST_FR) + list(tun.FIRST_ES) + list(tun.LAST_ES)
            + earlier["PERSON"]
        )
        for t in _tokens(n)
    }  # fmt: skip
    assert not v4_names & used_names
    # e-mail domains
    v4_domains = {d for pool in v4.DOMAINS.values() for d in pool}
    used_domains = (
        {d for m in (v3, v2) for pool in m.DOMAINS.values() for d in pool} | set(v1.DOMAINS) | set(gen.DOMAINS)
        | {v.rsplit("@", 1)[-1].lower() for v in earlier["EMAIL_ADDRESS"]}
    )  # fmt: skip
    assert not v4_domains & used_domains
    # templates (with PII and PII-free chat)
    v4_templates = {t for m in (v4.TEMPLATES, v4.CHAT_FREE) for pool in m.values() for t in pool}
    used_templates = (
        {t for m in (v3.TEMPLATES, v3.CHAT_FREE, v2.TEMPLATES, v1.TEMPLATES) for pool in m.values() for t in pool}
        | set(tun.TEMPLATES_FR) | set(tun.TEMPLATES_ES) | set(gen.TEMPLATES) | set(gen.HELDOUT_TEMPLATES)
    )  # fmt: skip
    assert not v4_templates & used_templates
    # phones: NANP area codes and digit layouts no earlier pool or labelled phone used
    v4_areas = set(v4._US_AREAS) | set(v4._CA_AREAS) | set(v4._QC_AREAS)
    used_areas = (
        set(gen.US_AREA)
        | set(v2._US_AREAS)
        | set(v3._US_AREAS)
        | {a for v in earlier["PHONE_NUMBER"] if (a := _nanp_area(v))}
    )
    assert not v4_areas & used_areas
    records = _v4_records()
    gold = [e for rs in records.values() for r in rs for e in r["entities"]]
    v4_shapes = {_shape(e["value"]) for e in gold if e["type"] == "PHONE_NUMBER"}
    assert not v4_shapes & {_shape(v) for v in earlier["PHONE_NUMBER"]}
    # IBAN countries, and no value of any type seen before (digits and letters only)
    v4_countries = {c for pool in v4._IBAN_COUNTRIES.values() for c in pool}
    used_countries = (
        {c for m in (v3, v2) for pool in m._IBAN_COUNTRIES.values() for c in pool} | set(gen.IBAN_COUNTRIES)
        | {v.replace(" ", "")[:2] for v in earlier["IBAN_CODE"]}
    )  # fmt: skip
    assert not v4_countries & used_countries
    norm = lambda v: re.sub(r"[^0-9a-z]", "", v.lower())  # noqa: E731
    used_values = {norm(v) for vs in _earlier_gold(include_later=True).values() for v in vs}
    for e in gold:
        if e["type"] != "PERSON":
            assert norm(e["value"]) not in used_values, e
    # street names
    used_streets = [v.lower() for v in earlier["STREET_ADDRESS"]]
    for street in (s for pool in v4.STREETS.values() for s in pool):
        core = re.sub(r"^(c/|avda\.|av\.|pza\.)\s*", "", street.lower())
        assert not any(core in v for v in used_streets), street
    # tuning cases
    v4_text = "".join(r["text"] for rs in records.values() for r in rs)
    for case in tun.CASES:
        assert case[0] not in v4_text
        assert not set(case[0].replace(",", " ").replace(".", " ").split()) & {
            n for pools in v4.NAMES.values() for pool in pools.values() for n in pool
        }, case[0]


def test_v4_gold_spans_are_sound() -> None:
    v4 = _load(EVAL / "frozen_v4.py")
    minimum = {"en": 50, "fr": 30, "es": 30}
    cards: list[str] = []
    for name, records in _v4_records().items():
        counts: dict[str, int] = {}
        for r in records:
            spans = sorted((e["start"], e["end"]) for e in r["entities"])
            assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False)), r["id"]
            for e in r["entities"]:
                counts[e["type"]] = counts.get(e["type"], 0) + 1
                value = e["value"]
                assert r["text"][e["start"] : e["end"]] == value and value == value.strip(), r["id"]
                if e["type"] == "PHONE_NUMBER":
                    assert any(
                        phonenumbers.is_valid_number(phonenumbers.parse(value, region))
                        for region in v4.PHONE_REGIONS[r["lang"]]
                    ), value
                elif e["type"] == "CREDIT_CARD":
                    digits = re.sub(r"[ -]", "", value)
                    assert digits.isdigit() and 12 <= len(digits) <= 19 and _luhn_ok(digits), value
                    cards.append(digits)
                elif e["type"] == "IBAN_CODE":
                    assert _iban_ok(value), value
                elif e["type"] == "EMAIL_ADDRESS":
                    assert re.fullmatch(r"[\w.+-]+@[a-z0-9-]+(\.[a-z0-9-]+)+", value), value
        if name == "pii_free.jsonl":
            assert not counts and len(records) >= 480
        else:
            lang = name[len("heldout-") : -len(".jsonl")]
            assert sorted(counts) == sorted(evaluate_types()), (name, counts)
            assert min(counts.values()) >= minimum[lang], (name, counts)
    assert any(2221 <= int(c[:4]) <= 2720 and len(c) == 16 for c in cards)  # Mastercard 2-series
    assert sum(len(c) == 19 for c in cards) >= 10


def evaluate_types() -> list[str]:
    """The entity types ``evaluate.py`` reports (without importing it: it loads the detector)."""
    source = (EVAL / "evaluate.py").read_text(encoding="utf-8")
    match = re.search(r"^TYPES = (\[.*\])$", source, re.M)
    assert match
    return list(json.loads(match.group(1)))


def test_v4_pii_free_texts_hold_no_personal_data() -> None:
    v4 = _load(EVAL / "frozen_v4.py")
    names = {
        t
        for pools in v4.NAMES.values()
        for pool in pools.values()
        for n in pool
        for t in _tokens(n, v4.PARTICLES)
    }
    patterns = {
        "ipv4": re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}\b"),
        "ipv6": re.compile(
            r"\b(?:[0-9a-f]{1,4}:){4,7}[0-9a-f]{1,4}\b|\b[0-9a-f]{1,4}::(?:[0-9a-f]{1,4})?\b", re.I
        ),
        "mac": re.compile(r"\b[0-9a-f]{2}(?:[:-][0-9a-f]{2}){5}\b", re.I),
        "email": re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}", re.I),
    }
    free = [r for rs in _v4_records().values() for r in rs if not r["entities"]]
    assert len(free) >= 140 + 110 + 110 + 480
    for r in free:
        for kind, pattern in patterns.items():
            assert not pattern.search(r["text"]), (kind, r["text"])
        words = {w.lower() for w in re.findall(r"[^\W\d_]+", r["text"])}
        assert not words & names, r["text"]


class _Analysed(Exception):
    """Raised by the stub detector instead of analysing anything."""


class _StubDetector:
    """Stands in for ``Detector``: the test checks which files are read, not what is found."""

    default_policy = "stub"
    model_version = "stub"

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def analyze_texts(self, texts: list[str], *args: object) -> None:
        raise _Analysed(len(texts))


def test_evaluate_reads_the_spent_sets_v4_to_v11_with_misses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    evaluate = _load(EVAL / "evaluate.py")
    monkeypatch.setattr(evaluate, "Detector", _StubDetector)
    # v11 was measured once and is spent: no held-out set is named
    assert evaluate.HELD_OUT_DIRS == ()
    # v11 to v4 are spent: read like tuning material, misses included
    for flag, folder in (
        ("--frozen-v11", "frozen_v11"),
        ("--frozen-v10", "frozen_v10"),
        ("--frozen-v9", "frozen_v9"),
        ("--frozen-v8", "frozen_v8"),
        ("--frozen-v7", "frozen_v7"),
        ("--frozen-v6", "frozen_v6"),
        ("--frozen-v5", "frozen_v5"),
        ("--frozen-v4", "frozen_v4"),
    ):
        monkeypatch.setattr("sys.argv", ["evaluate.py", flag, "--misses"])
        with pytest.raises(_Analysed) as analysed:
            evaluate.main()
        assert analysed.value.args == (sum(len(rs) for rs in _records(folder).values()),)


def test_evaluate_refuses_misses_on_a_held_out_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    evaluate = _load(EVAL / "evaluate.py")
    monkeypatch.setattr(evaluate, "Detector", _StubDetector)
    monkeypatch.setattr(evaluate, "HELD_OUT_DIRS", ("frozen_v5",))
    monkeypatch.setattr("sys.argv", ["evaluate.py", "--frozen-v5", "--misses"])
    with pytest.raises(SystemExit, match="refused"):
        evaluate.main()


# --- the held-out sets v5 to v10: one set of checks, parametrised -----------

# IBAN lengths of the SWIFT IBAN registry, for the countries each set uses
V5_IBAN_LENGTHS = {
    "GE": 22, "AZ": 28, "KZ": 20, "PK": 24, "QA": 29, "KW": 30, "JO": 30, "BH": 22, "XK": 20, "AL": 28,
    "EG": 29, "VG": 24, "DJ": 27, "BI": 27, "SC": 31, "MK": 19, "RS": 22, "ME": 22, "NI": 28, "BR": 29,
    "SM": 27, "VA": 22, "BA": 20, "TL": 23,
}  # fmt: skip
V6_IBAN_LENGTHS = {
    "GB": 22, "IE": 22, "NL": 18, "DE": 22, "FO": 18, "GL": 18, "FK": 18, "LC": 32, "IQ": 23,
    "FR": 27, "BE": 16, "LU": 20, "MC": 27, "CH": 21, "MD": 24, "LY": 25, "SD": 18,
    "ES": 24, "PT": 25, "AD": 24, "IT": 27, "PS": 29, "SO": 23, "ST": 25, "BY": 28,
}  # fmt: skip
V7_IBAN_LENGTHS = {
    "GB": 22, "IE": 22, "NL": 18, "DE": 22, "PL": 28, "SE": 24, "DK": 18, "NO": 15, "IS": 26, "FI": 18,
    "FR": 27, "BE": 16, "CH": 21, "LU": 20, "MC": 27, "RO": 24, "GR": 27, "HU": 28, "CZ": 24,
    "ES": 24, "PT": 25, "AD": 24, "IT": 27, "BG": 22, "HR": 21, "SI": 19, "EE": 20, "LT": 20,
    "HN": 28, "OM": 23, "YE": 30, "MN": 20, "RU": 33,
    # not in the SWIFT registry: the lengths their banks issue
    "SN": 28, "MA": 28, "CM": 27, "GQ": 27,
}  # fmt: skip
V8_IBAN_LENGTHS = {
    "GB": 22, "IE": 22, "NL": 18, "DE": 22, "MT": 31, "CY": 28, "GI": 23, "AE": 23, "SA": 24, "QA": 29,
    "KW": 30, "PK": 24, "BR": 29, "VG": 24, "SC": 31, "MU": 30,
    "FR": 27, "BE": 16, "CH": 21, "LU": 20, "MC": 27, "TN": 24, "MR": 27, "DJ": 27, "BI": 27, "LB": 28,
    "ES": 24, "PT": 25, "AD": 24, "IT": 27, "CR": 22, "DO": 28, "GT": 28, "SV": 28, "NI": 28, "HN": 28,
    # not in the SWIFT registry: the lengths their banks issue
    "IR": 26, "DZ": 26, "BJ": 28, "BF": 28, "CI": 28, "MG": 27, "ML": 28, "TG": 28, "AO": 25, "MZ": 25,
    "CV": 25,
}  # fmt: skip
V11_IBAN_LENGTHS = {
    "GB": 22, "IE": 22, "NO": 15, "DK": 18, "IS": 26, "SE": 24, "FI": 18, "SA": 24, "AE": 23, "IL": 23,
    "MU": 30, "SC": 31, "JO": 30, "CY": 28,
    "FR": 27, "BE": 16, "CH": 21, "TN": 24, "MR": 27, "LB": 28, "LI": 21, "AT": 20, "DE": 22, "SM": 27,
    "ES": 24, "PT": 25, "AD": 24, "IT": 27, "GR": 27, "HR": 21, "SI": 19, "PL": 28, "CZ": 24, "RO": 24,
    "TR": 26,
}  # fmt: skip
V10_IBAN_LENGTHS = {
    "GB": 22, "IE": 22, "MT": 31, "GI": 23, "KW": 30, "QA": 29, "BH": 22, "PK": 24, "VG": 24, "TL": 23,
    "EG": 29, "GE": 22, "XK": 20,
    "FR": 27, "BE": 16, "LU": 20, "MC": 27, "CH": 21, "MK": 19, "AL": 28, "ME": 22,
    "ES": 24, "PT": 25, "VA": 22, "SK": 24, "RS": 22, "BA": 20, "DO": 28, "BR": 29,
    # not in the SWIFT registry: the lengths their banks issue
    "DZ": 26, "MG": 27, "IR": 26, "AO": 25, "MZ": 25, "CV": 25,
}  # fmt: skip
V9_IBAN_LENGTHS = {
    "GB": 22, "IE": 22, "AT": 20, "SK": 24, "PL": 28, "FI": 18, "DK": 18, "LV": 21, "EE": 20, "SE": 24,
    "FR": 27, "BE": 16, "CH": 21, "LU": 20, "MC": 27, "CZ": 24,
    "ES": 24, "PT": 25, "IT": 27, "HU": 28, "HR": 21, "SI": 19,
    # not in the SWIFT registry: the lengths their banks issue
    "CF": 27, "CG": 27, "TD": 27, "NE": 28, "GW": 25, "KM": 27,
}  # fmt: skip

# Tuning files written while v5 was being written, by hands that never read v5
# (round 7, branch `tune7`, eval/round7.py: from the spent v4's misses, with its
# own pools). Like WRITTEN_AFTER_V4 for v4, they are not "earlier" for the pool,
# country and layout checks (round 7 plants IBANs of registry countries and
# names that v5's writer chose independently); the checks that no v5 value or
# PII-free text appears in any other file still read them.
# The v6 held-out files (eval/frozen_v6.py) were written after v5 was measured,
# blind to it: later for v4's and v5's checks too. Round 8 (branch `tune8`,
# eval/round8.py) was written after v5 was measured and spent, from v5's miss
# classes, with its own pools and values. The v7 held-out files
# (eval/frozen_v7.py) were written after v6 was measured and spent, blind to
# every set and round: later for v4's, v5's and v6's checks.
WRITTEN_AFTER_V5 = frozenset(
    {
        "tuning/round7.jsonl",
        "tuning/pii_free_round7.jsonl",
        "tuning/round8.jsonl",
        "tuning/pii_free_round8.jsonl",
        *(f"frozen_v6/{name}" for name in FILES),
        *(f"frozen_v7/{name}" for name in FILES),
        "tuning/round9.jsonl",
        "tuning/pii_free_round9.jsonl",
        *(f"frozen_v8/{name}" for name in FILES),
        "tuning/round10.jsonl",
        "tuning/pii_free_round10.jsonl",
        *(f"frozen_v9/{name}" for name in FILES),
        *(f"frozen_v10/{name}" for name in FILES),
        *(f"frozen_v11/{name}" for name in FILES),
        "tuning/round11.jsonl",
        "tuning/pii_free_round11.jsonl",
        # round 12 (eval/round12.py), tuned on the spent v9 while v10 was written
        "tuning/round12.jsonl",
        "tuning/pii_free_round12.jsonl",
        # round 13 (eval/round13.py), tuned on the spent v10 while v11 was written
        "tuning/round13.jsonl",
        "tuning/pii_free_round13.jsonl",
        # round 14 (eval/round14.py), tuned on the spent v11 (no held-out set)
        "tuning/round14.jsonl",
        "tuning/pii_free_round14.jsonl",
    }
)
WRITTEN_AFTER_V6 = frozenset(
    {
        *(f"frozen_v7/{name}" for name in FILES),
        "tuning/round9.jsonl",
        "tuning/pii_free_round9.jsonl",
        *(f"frozen_v8/{name}" for name in FILES),
        "tuning/round10.jsonl",
        "tuning/pii_free_round10.jsonl",
        *(f"frozen_v9/{name}" for name in FILES),
        *(f"frozen_v10/{name}" for name in FILES),
        *(f"frozen_v11/{name}" for name in FILES),
        "tuning/round11.jsonl",
        "tuning/pii_free_round11.jsonl",
        # round 12 (eval/round12.py), tuned on the spent v9 while v10 was written
        "tuning/round12.jsonl",
        "tuning/pii_free_round12.jsonl",
        # round 13 (eval/round13.py), tuned on the spent v10 while v11 was written
        "tuning/round13.jsonl",
        "tuning/pii_free_round13.jsonl",
        # round 14 (eval/round14.py), tuned on the spent v11 (no held-out set)
        "tuning/round14.jsonl",
        "tuning/pii_free_round14.jsonl",
    }
)
# Round 9 (branch `tune9`, eval/round9.py) was written after v6 was measured and
# spent, from v6's miss classes, at the same time as v7 and blind to it: later
# for v4's-v7's pool checks; the checks that no held-out value or PII-free text
# appears in any other file still read it.
# The v8 held-out files (eval/frozen_v8.py) were written after v7 was measured
# and spent, blind to every set and round (and to round 10, tuned at the same
# time on v7): later for v4's-v7's checks.
WRITTEN_AFTER_V7 = frozenset(
    {
        "tuning/round9.jsonl",
        "tuning/pii_free_round9.jsonl",
        *(f"frozen_v8/{name}" for name in FILES),
        "tuning/round10.jsonl",
        "tuning/pii_free_round10.jsonl",
        *(f"frozen_v9/{name}" for name in FILES),
        *(f"frozen_v10/{name}" for name in FILES),
        *(f"frozen_v11/{name}" for name in FILES),
        "tuning/round11.jsonl",
        "tuning/pii_free_round11.jsonl",
        # round 12 (eval/round12.py), tuned on the spent v9 while v10 was written
        "tuning/round12.jsonl",
        "tuning/pii_free_round12.jsonl",
        # round 13 (eval/round13.py), tuned on the spent v10 while v11 was written
        "tuning/round13.jsonl",
        "tuning/pii_free_round13.jsonl",
        # round 14 (eval/round14.py), tuned on the spent v11 (no held-out set)
        "tuning/round14.jsonl",
        "tuning/pii_free_round14.jsonl",
    }
)
# Round 10 (branch `tune10`, eval/round10.py) was written after v7 was measured
# and spent, from v7's miss classes, with its own pools, at the same time as v8
# and blind to it: later for v4's-v8's pool checks; the checks that no held-out
# value or PII-free text appears in any other file still read it.
# The v9 held-out files (eval/frozen_v9.py) were written after v8 was measured
# and spent, blind to every set and round (and to round 11, tuned at the same
# time on v8): later for v4's-v8's checks.
WRITTEN_AFTER_V8 = frozenset(
    {
        "tuning/round10.jsonl",
        "tuning/pii_free_round10.jsonl",
        *(f"frozen_v9/{name}" for name in FILES),
        *(f"frozen_v10/{name}" for name in FILES),
        *(f"frozen_v11/{name}" for name in FILES),
        "tuning/round11.jsonl",
        "tuning/pii_free_round11.jsonl",
        # round 12 (eval/round12.py), tuned on the spent v9 while v10 was written
        "tuning/round12.jsonl",
        "tuning/pii_free_round12.jsonl",
        # round 13 (eval/round13.py), tuned on the spent v10 while v11 was written
        "tuning/round13.jsonl",
        "tuning/pii_free_round13.jsonl",
        # round 14 (eval/round14.py), tuned on the spent v11 (no held-out set)
        "tuning/round14.jsonl",
        "tuning/pii_free_round14.jsonl",
    }
)
# After v9: round 11 (below) and v10.
# Round 11 (branch `tune11`, eval/round11.py) was written after v8 was measured
# and spent, from v8's miss classes, at the same time as v9 and blind to it:
# later for v4's-v9's pool checks; the checks that no held-out value or PII-free
# text appears in any other file still read it.
WRITTEN_AFTER_V9 = frozenset(
    {
        "tuning/round11.jsonl",
        "tuning/pii_free_round11.jsonl",
        *(f"frozen_v10/{name}" for name in FILES),
        *(f"frozen_v11/{name}" for name in FILES),
        # round 12 (eval/round12.py), tuned on the spent v9 while v10 was written
        "tuning/round12.jsonl",
        "tuning/pii_free_round12.jsonl",
        # round 13 (eval/round13.py), tuned on the spent v10 while v11 was written
        "tuning/round13.jsonl",
        "tuning/pii_free_round13.jsonl",
        # round 14 (eval/round14.py), tuned on the spent v11 (no held-out set)
        "tuning/round14.jsonl",
        "tuning/pii_free_round14.jsonl",
    }
)
# The v10 held-out files (eval/frozen_v10.py) were written after v9 was measured
# and spent, blind to every set and round (and to round 12, tuned at the same
# time on v9): later for v4's-v9's checks.
# Round 12 (branch `tune12`, eval/round12.py) was written after v9 was measured
# and spent, from v9's miss classes, at the same time as v10 and blind to it:
# later for v4's-v10's pool checks.
WRITTEN_AFTER_V10 = frozenset(
    {
        "tuning/round12.jsonl",
        "tuning/pii_free_round12.jsonl",
        # round 13 (eval/round13.py), tuned on the spent v10 while v11 was written
        "tuning/round13.jsonl",
        "tuning/pii_free_round13.jsonl",
        # round 14 (eval/round14.py), tuned on the spent v11 (no held-out set)
        "tuning/round14.jsonl",
        "tuning/pii_free_round14.jsonl",
        *(f"frozen_v11/{name}" for name in FILES),
    }
)
# The v11 held-out files (eval/frozen_v11.py) were written after v10 was measured
# and spent, blind to every set and round (and to round 13, tuned at the same
# time on v10): later for v4's-v10's checks. Nothing labelled was written after v11
# when it was frozen.
# Round 13 (branch `tune13`, eval/round13.py) was written after v10 was measured
# and spent, from v10's miss classes, at the same time as v11 and blind to it:
# later for v4's-v11's pool checks.
WRITTEN_AFTER_V11 = frozenset(
    {
        "tuning/round13.jsonl",
        "tuning/pii_free_round13.jsonl",
        # round 14 (eval/round14.py), tuned on the spent v11 (no held-out set)
        "tuning/round14.jsonl",
        "tuning/pii_free_round14.jsonl",
    }
)

_V5_STREET_PREFIX = r"^(c/|avda\.|av\.|pza\.|jr\.|bvar\.|calz\.)\s*"
_V6_STREET_PREFIX = (
    r"^(calle|avenida|plaza|paseo|ronda|travesía|rúa|rue|avenue|boulevard|allée|impasse|"
    r"quai|chemin|place|cours)\s+(de\s+la\s+|de\s+los\s+|de\s+las\s+|del\s+|de\s+|des\s+|du\s+|da\s+)?"
)
_V8_STREET_PREFIX = (
    r"^(calle|avenida|plaza|paseo|camino|carretera|ronda|carrera|pasaje|rue|avenue|boulevard|chemin|"
    r"allée|impasse|place|quai)\s+(de\s+la\s+|de\s+los\s+|de\s+las\s+|del\s+|de\s+|des\s+|du\s+)?"
)
_V9_STREET_PREFIX = (
    r"^(calle|avenida|plaza|paseo|camino|carretera|rue|avenue|boulevard|chemin|allée|impasse|place)\s+"
    r"(de\s+la\s+|de\s+los\s+|de\s+las\s+|del\s+|de\s+|des\s+|du\s+)?"
)
_V10_STREET_PREFIX = (
    r"^(calle|avenida|plaza|paseo|camino|carretera|rue|avenue|boulevard|chemin|allée|impasse|place)\s+"
    r"(de\s+la\s+|de\s+los\s+|de\s+las\s+|del\s+|de\s+|des\s+|du\s+)?"
)
_V11_STREET_PREFIX = (
    r"^(calle|avenida|plaza|paseo|camino|carretera|rue|avenue|boulevard|chemin|allée|impasse|place)\s+"
    r"(de\s+la\s+|de\s+los\s+|de\s+las\s+|del\s+|de\s+|des\s+|du\s+)?"
)
_V7_STREET_PREFIX = (
    r"^(calle|avenida|plaza|paseo|camino|carretera|pasaje|jirón|rue|avenue|boulevard|chemin|allée|"
    r"impasse|place)\s+(de\s+la\s+|de\s+los\s+|de\s+las\s+|del\s+|de\s+|des\s+|du\s+|mayor\s+de\s+)?"
)


@dataclass(frozen=True)
class HeldOut:
    """What one held-out set is checked against: the generators that existed when it was
    written (``earlier``), the labelled files written after it (``later``: out of the pool
    and layout checks, still in the value and text checks) and its own soundness bars."""

    folder: str
    earlier: tuple[str, ...]  # generator scripts under eval/ that came before
    later: frozenset[str]  # JSONL files (relative to eval/) written after the set
    street_pools: tuple[str, ...]  # scripts whose STREETS pools the set's streets avoid
    street_prefix: str  # what is stripped from a street before looking for its core
    fill_pools: tuple[str, ...]  # scripts whose PII-free chat fills the set's fills avoid
    iban_lengths: dict[str, int]
    min_regions: int
    card_lengths: frozenset[int]
    card_separators: str = "[ -]"
    new_phone_shapes: bool = False  # no digit layout of a planted phone seen before


_EARLY = (
    "frozen_v4.py",
    "frozen_v3.py",
    "frozen_v2.py",
    "frozen.py",
    "generate.py",
    "tuning.py",
    "round6.py",
)
HELD_OUT = {
    "frozen_v5": HeldOut(
        folder="frozen_v5",
        earlier=_EARLY,
        later=WRITTEN_AFTER_V5,
        street_pools=("frozen_v4.py",),
        street_prefix=_V5_STREET_PREFIX,
        fill_pools=("frozen_v4.py",),
        iban_lengths=V5_IBAN_LENGTHS,
        min_regions=25,
        card_lengths=frozenset({12, 13, 14, 15, 16, 19}),
        new_phone_shapes=True,
    ),
    "frozen_v6": HeldOut(
        folder="frozen_v6",
        earlier=("frozen_v5.py", *_EARLY, "round7.py"),
        later=WRITTEN_AFTER_V6,
        street_pools=("frozen_v5.py", "frozen_v4.py"),
        street_prefix=_V6_STREET_PREFIX,
        fill_pools=("frozen_v5.py", "frozen_v4.py"),
        iban_lengths=V6_IBAN_LENGTHS,
        min_regions=30,
        card_lengths=frozenset(range(12, 20)),
        card_separators="[ .-]",
    ),
    "frozen_v7": HeldOut(
        folder="frozen_v7",
        earlier=("frozen_v6.py", "frozen_v5.py", *_EARLY, "round7.py", "round8.py"),
        later=WRITTEN_AFTER_V7,
        street_pools=("frozen_v6.py", "frozen_v5.py", "frozen_v4.py"),
        street_prefix=_V7_STREET_PREFIX,
        fill_pools=("frozen_v6.py", "frozen_v5.py", "frozen_v4.py", "frozen_v3.py"),
        iban_lengths=V7_IBAN_LENGTHS,
        min_regions=30,
        card_lengths=frozenset(range(12, 20)),
    ),
    "frozen_v8": HeldOut(
        folder="frozen_v8",
        earlier=(
            "frozen_v7.py",
            "frozen_v6.py",
            "frozen_v5.py",
            *_EARLY,
            "round7.py",
            "round8.py",
            "round9.py",
        ),
        later=WRITTEN_AFTER_V8,
        street_pools=("frozen_v7.py", "frozen_v6.py", "frozen_v5.py", "frozen_v4.py"),
        street_prefix=_V8_STREET_PREFIX,
        fill_pools=("frozen_v7.py", "frozen_v6.py", "frozen_v5.py", "frozen_v4.py", "frozen_v3.py"),
        iban_lengths=V8_IBAN_LENGTHS,
        min_regions=30,
        card_lengths=frozenset(range(12, 20)),
        card_separators="[ .-]",
    ),
    "frozen_v9": HeldOut(
        folder="frozen_v9",
        earlier=(
            "frozen_v8.py",
            "frozen_v7.py",
            "frozen_v6.py",
            "frozen_v5.py",
            *_EARLY,
            "round7.py",
            "round8.py",
            "round9.py",
            "round10.py",
        ),
        later=WRITTEN_AFTER_V9,
        street_pools=("frozen_v8.py", "frozen_v7.py", "frozen_v6.py", "frozen_v5.py", "frozen_v4.py"),
        street_prefix=_V9_STREET_PREFIX,
        fill_pools=(
            "frozen_v8.py",
            "frozen_v7.py",
            "frozen_v6.py",
            "frozen_v5.py",
            "frozen_v4.py",
            "frozen_v3.py",
        ),
        iban_lengths=V9_IBAN_LENGTHS,
        min_regions=30,
        card_lengths=frozenset(range(12, 20)),
        card_separators="[ .-]",
    ),
    "frozen_v10": HeldOut(
        folder="frozen_v10",
        earlier=(
            "frozen_v9.py",
            "frozen_v8.py",
            "frozen_v7.py",
            "frozen_v6.py",
            "frozen_v5.py",
            *_EARLY,
            "round7.py",
            "round8.py",
            "round9.py",
            "round10.py",
            "round11.py",
        ),
        later=WRITTEN_AFTER_V10,
        street_pools=(
            "frozen_v9.py",
            "frozen_v8.py",
            "frozen_v7.py",
            "frozen_v6.py",
            "frozen_v5.py",
            "frozen_v4.py",
        ),
        street_prefix=_V10_STREET_PREFIX,
        fill_pools=(
            "frozen_v9.py",
            "frozen_v8.py",
            "frozen_v7.py",
            "frozen_v6.py",
            "frozen_v5.py",
            "frozen_v4.py",
            "frozen_v3.py",
        ),
        iban_lengths=V10_IBAN_LENGTHS,
        min_regions=30,
        card_lengths=frozenset(range(12, 20)),
        card_separators="[ .-]",
    ),
    "frozen_v11": HeldOut(
        folder="frozen_v11",
        earlier=(
            "frozen_v10.py",
            "frozen_v9.py",
            "frozen_v8.py",
            "frozen_v7.py",
            "frozen_v6.py",
            "frozen_v5.py",
            *_EARLY,
            "round7.py",
            "round8.py",
            "round9.py",
            "round10.py",
            "round11.py",
            "round12.py",
        ),
        later=WRITTEN_AFTER_V11,
        street_pools=(
            "frozen_v10.py",
            "frozen_v9.py",
            "frozen_v8.py",
            "frozen_v7.py",
            "frozen_v6.py",
            "frozen_v5.py",
            "frozen_v4.py",
        ),
        street_prefix=_V11_STREET_PREFIX,
        fill_pools=(
            "frozen_v10.py",
            "frozen_v9.py",
            "frozen_v8.py",
            "frozen_v7.py",
            "frozen_v6.py",
            "frozen_v5.py",
            "frozen_v4.py",
            "frozen_v3.py",
        ),
        iban_lengths=V11_IBAN_LENGTHS,
        min_regions=30,
        card_lengths=frozenset(range(12, 20)),
        card_separators="[ .-]",
    ),
}


def _records(folder: str) -> dict[str, list[dict]]:
    return {
        name: [json.loads(line) for line in (EVAL / folder / name).read_text(encoding="utf-8").splitlines()]
        for name in sorted(FILES)
    }


def _strings(value: object) -> list[str]:
    """Every string inside ``value`` (nested dicts' values, lists, tuples, sets)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple, set, frozenset)):
        return [s for v in value for s in _strings(v)]
    return []


def _pool(modules: list[ModuleType], *attrs: str) -> list[str]:
    return [s for m in modules for a in attrs for s in _strings(getattr(m, a, ()))]


def _labelled(folder: str, skip: frozenset[str] = frozenset()) -> tuple[dict[str, list[str]], set[str]]:
    """Every labelled value of every JSONL file under eval/ but ``folder``'s and ``skip``'s, by
    type, and the texts of their records without entities."""
    gold: dict[str, list[str]] = {}
    free: set[str] = set()
    for path in sorted(EVAL.glob("**/*.jsonl")):
        if path.parent.name == folder or path.relative_to(EVAL).as_posix() in skip:
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                for e in record.get("entities", []):
                    gold.setdefault(e["type"], []).append(e["value"])
                if not record.get("entities"):
                    free.add(record["text"])
    return gold, free


def _name_tokens(module: ModuleType) -> set[str]:
    return {t for n in _strings(module.NAMES) for t in _tokens(n, tuple(module.PARTICLES))}


def _valid_in(value: str, region: str) -> bool:
    """Whether ``value`` is a valid number when dialled from ``region``."""
    try:
        return phonenumbers.is_valid_number(phonenumbers.parse(value, region))
    except phonenumbers.NumberParseException:
        return False


@pytest.mark.parametrize("folder", sorted(HELD_OUT))
def test_held_out_pools_are_disjoint_from_every_earlier_pool_and_value(folder: str) -> None:
    spec = HELD_OUT[folder]
    module = _load(SETS[folder])
    earlier_modules = [_load(EVAL / f) for f in spec.earlier]
    earlier, _ = _labelled(folder, spec.later)
    everything, everything_free = _labelled(folder)
    records = _records(folder)
    gold = [e for rs in records.values() for r in rs for e in r["entities"]]
    # names: no token of a name (particles aside) in any earlier pool or labelled PERSON
    used_names = {
        t
        for n in _pool(
            earlier_modules, "NAMES", "FIRST", "LAST", "FIRST_FR", "LAST_FR", "FIRST_ES", "LAST_ES"
        )
        + earlier["PERSON"]
        for t in _tokens(n)
    }
    assert not _name_tokens(module) & used_names, sorted(_name_tokens(module) & used_names)
    # e-mail domains
    used_domains = {d.lower() for d in _pool(earlier_modules, "DOMAINS")} | {
        v.rsplit("@", 1)[-1].lower() for v in earlier["EMAIL_ADDRESS"]
    }
    own_domains = set(_strings(module.DOMAINS))
    assert not own_domains & used_domains, sorted(own_domains & used_domains)
    # templates (with PII and PII-free chat), and no PII-free text seen in any other file
    own_templates = set(_strings(module.TEMPLATES)) | set(_strings(module.CHAT_FREE))
    used_templates = set(
        _pool(earlier_modules, "TEMPLATES", "CHAT_FREE", "TEMPLATES_FR", "TEMPLATES_ES", "HELDOUT_TEMPLATES")
    )
    assert not own_templates & used_templates
    assert not {r["text"] for rs in records.values() for r in rs if not r["entities"]} & everything_free
    # phones: NANP area codes no earlier pool or labelled phone used
    area_attrs = ("_US_AREAS", "_CA_AREAS", "_QC_AREAS", "_CARIB_AREAS")
    own_areas = set(_pool([module], *area_attrs))
    used_areas = set(_pool(earlier_modules, *area_attrs, "US_AREA")) | {
        a for v in earlier["PHONE_NUMBER"] if (a := _nanp_area(v))
    }
    assert not own_areas & used_areas, sorted(own_areas & used_areas)
    if spec.new_phone_shapes:
        own_shapes = {_shape(e["value"]) for e in gold if e["type"] == "PHONE_NUMBER"}
        assert not own_shapes & {_shape(v) for v in earlier["PHONE_NUMBER"]}
    # IBAN: the countries marked new (all, without _IBAN_NEW) are new
    own_countries = set(getattr(module, "_IBAN_NEW", _strings(module._IBAN_COUNTRIES)))
    used_countries = set(_pool(earlier_modules, "_IBAN_COUNTRIES", "IBAN_COUNTRIES")) | {
        v.replace(" ", "")[:2].upper() for v in earlier["IBAN_CODE"]
    }
    assert not own_countries & used_countries, sorted(own_countries & used_countries)
    # no value of any type seen in any other file (digits and letters only)
    norm = lambda v: re.sub(r"[^0-9a-z]", "", v.lower())  # noqa: E731
    used_values = {norm(v) for vs in everything.values() for v in vs}
    for e in gold:
        if e["type"] != "PERSON":
            assert norm(e["value"]) not in used_values, e
    # street names
    used_streets = [v.lower() for v in earlier["STREET_ADDRESS"]]
    used_streets += [s.lower() for s in _pool([_load(EVAL / f) for f in spec.street_pools], "STREETS")]
    for street in _strings(module.STREETS):
        core = re.sub(spec.street_prefix, "", street.lower())
        assert not any(core in v for v in used_streets), street
    # tuning cases
    tun = _load(EVAL / "tuning.py")
    text = "".join(r["text"] for rs in records.values() for r in rs)
    full_names = set(_strings(module.NAMES))
    for case in tun.CASES:
        assert case[0] not in text
        assert not set(case[0].replace(",", " ").replace(".", " ").split()) & full_names, case[0]
    # PII-free chat fills
    r6 = _load(EVAL / "round6.py")
    used_fills = set(_pool([_load(EVAL / f) for f in spec.fill_pools], "_CHAT_FILL"))
    used_fills |= {
        f"{a} {p}".strip() for p in (*r6.CITIES, *r6.PRODUCTS) for a in ("", "a", "an", "un", "une", "una")
    }
    own_fills = set(_strings(module._CHAT_FILL))
    assert not own_fills & used_fills, sorted(own_fills & used_fills)


@pytest.mark.parametrize("folder", sorted(HELD_OUT))
def test_held_out_gold_spans_are_sound(folder: str) -> None:
    spec = HELD_OUT[folder]
    module = _load(SETS[folder])
    minimum = {"en": 50, "fr": 30, "es": 30}
    cards: list[str] = []
    countries: set[str] = set()
    regions: set[str] = set()
    for name, records in _records(folder).items():
        counts: dict[str, int] = {}
        for r in records:
            spans = sorted((e["start"], e["end"]) for e in r["entities"])
            assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False)), r["id"]
            for e in r["entities"]:
                counts[e["type"]] = counts.get(e["type"], 0) + 1
                value = e["value"]
                assert r["text"][e["start"] : e["end"]] == value and value == value.strip(), r["id"]
                if e["type"] == "PHONE_NUMBER":
                    valid = [region for region in module.PHONE_REGIONS[r["lang"]] if _valid_in(value, region)]
                    assert valid, value
                    regions.add(phonenumbers.region_code_for_number(phonenumbers.parse(value, valid[0])))
                elif e["type"] == "CREDIT_CARD":
                    digits = re.sub(spec.card_separators, "", value)
                    assert digits.isdigit() and 12 <= len(digits) <= 19 and _luhn_ok(digits), value
                    cards.append(digits)
                elif e["type"] == "IBAN_CODE":
                    code = re.sub(r"[ -]", "", value).upper()
                    assert len(code) == spec.iban_lengths[code[:2]], value
                    assert int("".join(str(int(c, 36)) for c in code[4:] + code[:4])) % 97 == 1, value
                    countries.add(code[:2])
                elif e["type"] == "EMAIL_ADDRESS":
                    assert re.fullmatch(r"[\w.+-]+@[a-z0-9-]+(\.[a-z0-9-]+)+", value, re.I), value
        if name == "pii_free.jsonl":
            assert not counts and len(records) >= 480
        else:
            lang = name[len("heldout-") : -len(".jsonl")]
            assert sorted(counts) == sorted(evaluate_types()), (name, counts)
            assert min(counts.values()) >= minimum[lang], (name, counts)
    assert countries == set(spec.iban_lengths)  # every country of the pools is planted
    assert len(regions) >= spec.min_regions, sorted(regions)
    assert any(2221 <= int(c[:4]) <= 2720 and len(c) == 16 for c in cards)  # Mastercard 2-series
    assert sum(len(c) == 19 for c in cards) >= 10
    assert {len(c) for c in cards} >= spec.card_lengths


@pytest.mark.parametrize("folder", sorted(HELD_OUT))
def test_held_out_pii_free_texts_hold_no_personal_data(folder: str) -> None:
    names = _name_tokens(_load(SETS[folder]))
    patterns = {
        "ipv4": re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}\b"),
        "ipv6": re.compile(
            r"\b(?:[0-9a-f]{1,4}:){4,7}[0-9a-f]{1,4}\b|\b[0-9a-f]{1,4}::(?:[0-9a-f]{1,4})?\b", re.I
        ),
        "mac": re.compile(r"\b[0-9a-f]{2}(?:[:-][0-9a-f]{2}){5}\b", re.I),
        "email": re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}", re.I),
    }
    free = [r for rs in _records(folder).values() for r in rs if not r["entities"]]
    assert len(free) >= 140 + 110 + 110 + 480
    for r in free:
        for kind, pattern in patterns.items():
            assert not pattern.search(r["text"]), (kind, r["text"])
        words = {w.lower() for w in re.findall(r"[^\W\d_]+", r["text"])}
        assert not words & names, r["text"]
        for run in re.findall(r"(?<![0-9A-Za-z])\d{12,19}(?![0-9A-Za-z])", r["text"]):
            assert not _luhn_ok(run), (run, r["text"])
