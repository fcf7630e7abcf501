"""Issue 11, round 10: the miss classes of the spent v7 — IBANs of non-registry
countries (national length and mod-97); phones written with dots after ``+`` or
after a trunk-0 area code, a signature's ``m:`` key, no phone in a CSV id
column or a ZIP+4 after its state; rural routes (US ``RR 2 Box 41``, Canada
``RR 3 Site 7 Comp 12``), towns in capitals or with lower-case links, an Irish
county and a Dublin district, New Zealand's ``RD``, Spanish kilometre points,
``dto.``, floor-door digits, Chilean and Peruvian postcodes, French
``Lieu-dit``; ``SURNAME Given`` alone on its line or after ``from``, names in
escaped JSON, lower-case answers to a name question. Each rule alone (pure)
and through the real detector."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tollway_redactor.addresses import PATTERNS
from tollway_redactor.engine import Detector
from tollway_redactor.names import (
    answered_name_names,
    capitalised_cue_names,
    caps_surname_given_names,
    field_names,
)
from tollway_redactor.number_rules import (
    NON_REGISTRY_IBAN_LENGTHS,
    REGISTRY_IBAN_LENGTHS,
    find_extra_ibans,
    phone_candidate_ok,
    phone_context,
)

from .conftest import assert_tuning_files_reproduce, found, load_eval_module

pytestmark = pytest.mark.unit

EVAL = Path(__file__).resolve().parents[2] / "eval"


def longest_address(text: str) -> str | None:
    best: str | None = None
    for _, regex in PATTERNS:
        for m in re.finditer(regex, text, re.IGNORECASE | re.MULTILINE | re.DOTALL):
            if best is None or len(m.group()) > len(best):
                best = m.group()
    return best


def _iban(country: str, bban: str) -> str:
    check = 98 - int("".join(str(int(c, 36)) for c in bban + country + "00")) % 97
    return f"{country}{check:02d}{bban}"


# --- IBANs -------------------------------------------------------------------------


def test_non_registry_countries_are_not_in_the_registry() -> None:
    assert not set(NON_REGISTRY_IBAN_LENGTHS) & set(REGISTRY_IBAN_LENGTHS)


@pytest.mark.parametrize(("country", "length"), sorted(NON_REGISTRY_IBAN_LENGTHS.items()))
def test_a_non_registry_iban_is_found_by_length_and_mod97(country: str, length: int) -> None:
    iban = _iban(country, "A" + "7" * (length - 5))
    grouped = " ".join(iban[i : i + 4] for i in range(0, len(iban), 4))
    for written in (iban, grouped):
        text = f"IBAN {written}, merci."
        assert [text[m.start : m.end] for m in find_extra_ibans(text)] == [written]
    # one character more or less, or a wrong check digit: nothing
    assert find_extra_ibans(f"IBAN {iban}7 ok") == []
    assert find_extra_ibans(f"IBAN {iban[:-1]} ok") == []
    wrong = iban[:2] + f"{(int(iban[2:4]) + 1) % 100:02d}" + iban[4:]
    assert find_extra_ibans(f"IBAN {wrong} ok") == []


def test_non_registry_ibans_through_the_detector(detector: Detector) -> None:
    sn = _iban("SN", "K01001520000485000030351")
    text = f"Loyer versé sur {sn} chaque mois."
    assert ("IBAN_CODE", sn) in found(detector, text)


# --- phones ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Ring +44.20.7946.0321 after nine.", "+44.20.7946.0321"),
        ("text me on 01632.960417 if the gate is locked", "01632.960417"),
        ("Rappelez au +33.4.72.10.58.93 demain.", "+33.4.72.10.58.93"),
    ],
)
def test_dotted_phone_layouts_are_candidates(text: str, value: str) -> None:
    start = text.index(value)
    assert phone_candidate_ok(text, start, start + len(value))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The ratio was 0.52 today", "0.52"),
        ("a version 10.0.19045.3803 build", "10.0.19045.3803"),
        ("Brattleboro, VT 05301-4641", "05301-4641"),
        ('customer_id,full_name,phone\n2027-40412,"Doe, Jan",+44 20 7946 0321', "2027-40412"),
    ],
)
def test_decimals_versions_zip4_and_id_columns_are_no_candidates(text: str, value: str) -> None:
    start = text.index(value)
    assert not phone_candidate_ok(text, start, start + len(value))


def test_a_signature_short_key_is_phone_context() -> None:
    text = "Cheers,\nOrla\nm: 2025550148"
    assert phone_context(text, text.index("2025"))
    assert not phone_context("room: 2025550148", 6)


def test_phones_through_the_detector(detector: Detector) -> None:
    assert ("PHONE_NUMBER", "+44.20.7946.0321") in found(
        detector, "Questions? Ring +44.20.7946.0321 after nine."
    )
    assert found(detector, "The ratio moved from 0.52 to 012.5 and pi is 3.14159265.") == []


# --- addresses ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "address",
    [
        "RR 2 Box 41\nMarfa, TX 79843-0041",
        "RR 3 Site 7 Comp 12, Drumheller AB  T0J 0Y0",
        "Flat 4, 17 Cordwainer Drove, KESWICK, CA12 5DJ",
        "41 Bancroft Road, Stratford-upon-Avon, CV37 6QW",
        "9 Corrib View, Oughterard, Co. Galway, H91 K2T8",
        "12 Ashgrove Terrace\nDundrum, Dublin 14\nD14 R9W2",
        "622 Totara Ridge, RD 4, Waimate 7980",
        "3310 Quarry Spur Unit 2, Hot Springs, AR 71901",
        "Carretera de Alcaraz, km 12,4, 02310 Robledo (Albacete)",
        "Avenida Los Aromos 845, piso 2 dto. C, C1425 CABA",
        "Calle del Tejar 22, escalera A, 3-1, 50004 Zaragoza",
        "Pasaje Las Araucarias 1188\n7500000 Providencia, Santiago",
        "Jirón Ucayali 512 int. 3, Miraflores 15074, Lima",
        "Lieu-dit La Croix-Blanche, 24220 Saint-Cyprien",
    ],
)
def test_round10_address_layouts_are_found_whole(address: str) -> None:
    assert longest_address(f"Address:\n{address}\nThanks") == address


@pytest.mark.parametrize(
    "text",
    [
        "RR 2 Box 41 is the second rack's box.",
        "El km 12 de la carretera está cortado por obras.",
        "Lieu-dit est un terme de cadastre, pas une adresse.",
        "Tickets for London 2012 sold out.",
    ],
)
def test_round10_address_look_alikes_are_not_addresses(text: str) -> None:
    assert longest_address(text) is None


# --- names -------------------------------------------------------------------------


def test_surname_given_alone_on_its_line_or_after_from() -> None:
    text = "SHIP TO\nOYELARAN Temitope\n5 Cordwainer Drove"
    assert [text[s.start : s.end] for s in caps_surname_given_names(text)] == ["OYELARAN Temitope"]
    text = "We received a cheque from STRZELECKI Wawrzyniec but no reference."
    assert [text[s.start : s.end] for s in caps_surname_given_names(text)] == ["STRZELECKI Wawrzyniec"]
    for text in ("RELEASE Notes\nERROR Handling\nWARNING Deprecated", "The build failed: ERROR Connection"):
        assert caps_surname_given_names(text) == []


def test_names_in_escaped_json_arguments(detector: Detector) -> None:
    text = '{"name": "book_table", "arguments": "{\\"guest\\": \\"Temitope Strzelecki\\", \\"party\\": 4}"}'
    assert [text[s.start : s.end] for s in field_names(text)] == ["Temitope Strzelecki"]
    assert ("PERSON", "Temitope Strzelecki") in found(detector, text)


def test_lower_case_answer_to_a_name_question() -> None:
    text = "09:10 agent: what name is the booking under?\n09:11 customer: garazi oyelaran\n09:12 agent: ok"
    assert [text[s.start : s.end] for s in answered_name_names(text)] == ["garazi oyelaran"]
    text = "09:10 agent: what name is the booking under?\n09:11 customer: the same as last time"
    assert answered_name_names(text) == []
    text = "09:10 agent: is the parcel there?\n09:11 customer: garazi oyelaran"
    assert answered_name_names(text) == []


def test_capitalised_name_after_a_self_introduction_cue() -> None:
    for text, name in (
        ("hey, it's Temitope. new number", "Temitope"),
        ("this is Thibaud-Armand, hi", "Thibaud-Armand"),
    ):
        assert [text[s.start : s.end] for s in capitalised_cue_names(text)] == [name]
    for text in ("it's Monday again", "it's Python, not Java.", "it's Google here"):
        assert capitalised_cue_names(text) == []


def test_an_onboarding_buddy_is_a_name_field() -> None:
    text = "Onboarding:\n- desk: 3F\n- buddy: Wawrzyniec"
    assert [text[s.start : s.end] for s in field_names(text)] == ["Wawrzyniec"]


# --- the tuning files --------------------------------------------------------------


def test_round10_generator_reproduces_its_files() -> None:
    labelled, free = load_eval_module("round10").build()
    assert all(r["entities"] for r in labelled) and not any(r["entities"] for r in free)
    assert_tuning_files_reproduce({"round10.jsonl": labelled, "pii_free_round10.jsonl": free})
