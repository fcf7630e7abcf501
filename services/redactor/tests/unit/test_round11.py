"""Issue 11, round 11: the miss classes of the spent v8 — no phone in a count
ratio (``(8881/55091 lines)``) or after a product-code key (``GTIN``, ``UPC``,
``lot``). Each rule alone (pure) and through the real detector."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tollway_redactor.engine import Detector
from tollway_redactor.names import lowercase_context_names
from tollway_redactor.number_rules import phone_candidate_ok, phone_context

from .conftest import found, load_eval_module

EVAL = Path(__file__).resolve().parents[2] / "eval"


def _ok(text: str, value: str) -> bool:
    start = text.index(value)
    return phone_candidate_ok(text, start, start + len(value))


# --- phones: precision ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Coverage: 93.7% (8881/55091 lines), branches 86%", "(8881/55091"),
        ("passed 3847/43079 checks overnight", "3847/43079"),
        ("Lot D2014812 expires 2027-11, GTIN 0565882103877, qty 365", "0565882103877"),
        ("UPC: 036000291452 on the box", "036000291452"),
        ("lot 4471902286 recalled", "4471902286"),
    ],
)
def test_count_ratios_and_product_codes_are_no_phone_candidates(text: str, value: str) -> None:
    assert not _ok(text, value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("call me on 089/1234567 tomorrow", "089/1234567"),
        ("ring 0171/2345678 after six", "0171/2345678"),
        ("text Torbjorn on 2515248021.", "2515248021"),
    ],
)
def test_slash_phones_with_a_trunk_zero_stay_candidates(text: str, value: str) -> None:
    assert _ok(text, value)


def test_round11_phone_precision_through_the_detector(detector: Detector) -> None:
    assert found(detector, "Coverage: 52.9% (9550/05671 lines), branches 77%") == []
    assert found(detector, "Lot D2014812 expires 2027-11, GTIN 0565882103877, qty 365") == []
    assert ("PHONE_NUMBER", "089/1234567") in found(detector, "call me on 089/1234567 tomorrow")


# --- PERSON: precision in lower-case chat ----------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "how long should I boil eggs for runny yolks at altitude?",
        "how do I bake cookies with crispy edges?",
    ],
)
def test_a_lower_case_noun_phrase_with_a_plural_is_no_name(text: str) -> None:
    assert lowercase_context_names(text) == []


def test_lower_case_names_after_a_cue_are_still_found() -> None:
    text = "can you remind horace whitcombe about the invoice"
    assert [text[s.start : s.end] for s in lowercase_context_names(text)] == ["horace whitcombe"]


def test_round11_chat_precision_through_the_detector(detector: Detector) -> None:
    assert (
        found(detector, "how long should I boil eggs for runny yolks at altitude? Use plain English.") == []
    )


# --- phones: recall of bare runs after a texting cue or a next-of-kin key ----------------


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("then text Oluwaseun on 4155550173 when it lands.", True),
        ("texting them at 4155550173 now", True),
        ("Next of kin: Jiho Wozniak, 6604035192", True),
        ("the text box at 4155550173 px is off screen", False),
        ("the text field holds 4155550173 bytes", False),
    ],
)
def test_texting_cues_and_next_of_kin_announce_a_phone(text: str, ok: bool) -> None:
    assert phone_context(text, text.index("4155550173" if "415" in text else "6604035192")) is ok


def test_round11_generator_reproduces_its_files() -> None:
    labelled, free = load_eval_module("round11").build()
    for name, records in (("round11.jsonl", labelled), ("pii_free_round11.jsonl", free)):
        lines = (EVAL / "tuning" / name).read_text(encoding="utf-8").splitlines()
        assert [json.loads(line) for line in lines] == records
    for r in labelled:
        assert r["entities"]
        for e in r["entities"]:
            assert r["text"][e["start"] : e["end"]] == e["value"]
    for r in free:
        assert not r["entities"]


# --- addresses: a house name or unit, then a street without a number ----------------


@pytest.mark.parametrize(
    "address",
    [
        "Rose Cottage, Spruce Ridge Road, Wymondham NR18 4RH",
        "Holly Cottage, Tinsmiths Yard\nHexham NE46 4YT",
        "Apt 16, Tamarisk Crescent\nDungarvan, Co. Waterford\nX35 W8N9",
        "Flat 3, Kingfisher Parade, Truro TR1 2AB",
    ],
)
def test_unnumbered_streets_after_a_house_name_or_unit_are_found_whole(
    detector: Detector, address: str
) -> None:
    assert ("STREET_ADDRESS", address) in found(detector, f"Please post it to {address} by Friday.")


@pytest.mark.parametrize(
    "text",
    ["Unit 4, Main Street was repainted last week.", "Rose Cottage, Station Road is the prettiest in town."],
)
def test_an_unnumbered_street_needs_its_town_and_postcode(detector: Detector, text: str) -> None:
    assert not [f for f in found(detector, text) if f[0] == "STREET_ADDRESS"]


# --- PERSON: desks and departments are no names ------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Your statement will follow by post.\n\nCustomer Services",
        "le confirmamos la cita del 7 de julio.\n\nAtentamente,\nRecepción",
        "Name,Email,Postcode\nn/a,n/a,n/a",
    ],
)
def test_a_desk_signing_a_letter_or_heading_a_column_is_no_name(detector: Detector, text: str) -> None:
    assert [f for f in found(detector, text) if f[0] == "PERSON"] == []


def test_a_name_next_to_a_desk_word_is_still_found(detector: Detector) -> None:
    assert ("PERSON", "Marguerite Okonkwo") in found(
        detector, "Regards,\nMarguerite Okonkwo\nCustomer Services"
    )
