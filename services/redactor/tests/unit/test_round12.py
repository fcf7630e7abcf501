"""Issue 11, round 12: the miss classes of the spent v9 — 18- and 19-digit
cards in even groups of 5 or 6 digits (6-6-6, 5-5-5-4). Each rule alone
(pure) and through the real detector, and the round-12 tuning files."""

from __future__ import annotations

import pytest

from tollway_redactor.engine import Detector
from tollway_redactor.number_rules import find_cards

from .conftest import assert_tuning_files_reproduce, found, load_eval_module


def _cards(text: str) -> list[str]:
    return [text[m.start : m.end] for m in find_cards(text)]


# --- cards: even groups of 5 or 6 digits ------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "630419 772854 103366",  # Maestro 6304, 18 digits, 6-6-6
        "621488-306927-511043",  # UnionPay 62, 18 digits, dashes
        "501873.649205.718351",  # Maestro 50, dots
        "62719 30485 76120 9385",  # UnionPay, 19 digits, 5-5-5-4
    ],
)
def test_even_groups_of_five_or_six_digits_are_one_card(value: str) -> None:
    assert _cards(f"card {value} charged") == [value]


@pytest.mark.parametrize(
    "text",
    [
        "codes 630419 772856 103367 re-run",  # Luhn fails
        "lots 712345 650321 998877 recalled",  # 7x: no 18-digit issuer range
        "62173 4567 890123 units",  # uneven widths
        "630419 772856 1033661 x",  # the last group is wider than the others
        "pids 63245 92020 54866",  # 15 digits in 5-digit groups: a list, not a card
    ],
)
def test_even_groups_that_are_no_card_stay_unmatched(text: str) -> None:
    assert _cards(text) == []


def test_an_issuer_number_then_the_rest_in_one_group_still_matches() -> None:
    assert _cards("card 621488 306927511043 ok") == ["621488 306927511043"]


def test_round12_cards_through_the_detector(detector: Detector) -> None:
    text = "la tarjeta 621488 306927 511043 tiene dos cargos"
    hits = found(detector, text)
    assert ("CREDIT_CARD", "621488 306927 511043") in hits
    assert all(t != "PHONE_NUMBER" for t, _ in hits)  # no phone inside the card
    assert found(detector, "lot numbers 712345 650321 998877 recalled") == []


def test_round12_tuning_files_reproduce() -> None:
    labelled, free = load_eval_module("round12").build()
    assert_tuning_files_reproduce({"round12.jsonl": labelled, "pii_free_round12.jsonl": free})


# --- Spanish roads named by the towns they join ----------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "Carretera de Colmenar a Torrelodones n.º 17, esc. 2, 3.º dcha., 28250 Torrelodones (Madrid)",
        "Camino de Ayna al Molino, 12, 2.º A\n02125 Ayna (Albacete)",
        "Carretera de Olmedo a Portillo, km 12,4\n47450 Pozal de Gallinas (Valladolid)",
        "Carretera de Olmedo a Portillo, s/n, bajo, 47400 Medina del Campo (Valladolid)",
    ],
)
def test_a_road_from_one_town_to_another_is_one_address(detector: Detector, value: str) -> None:
    assert found(detector, f"Nueva dirección: {value} a mediodía.") == [("STREET_ADDRESS", value)]


@pytest.mark.parametrize(
    "text",
    [
        "Fui de Madrid a Toledo 12 veces este año.",
        "Quedamos en la calle Mayor a las 5 de la tarde.",
    ],
)
def test_towns_joined_by_a_without_a_road_word_are_no_address(detector: Detector, text: str) -> None:
    assert found(detector, text) == []


# --- "Surname, Given": one person --------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Employee record\nName: Okafor, Benedikt\nStart date: 3 March", "Okafor, Benedikt"),
        ("Parcel left at the door; recipient Govender, Oluchi signed.", "Govender, Oluchi"),
    ],
)
def test_surname_comma_given_is_one_person(detector: Detector, text: str, value: str) -> None:
    assert [v for t, v in found(detector, text) if t == "PERSON"] == [value]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Thanks Tamsin, Benedikt.", ["Tamsin", "Benedikt"]),
        ("Can you ask Signe, Ailsa and Yuna to join?", ["Signe", "Ailsa", "Yuna"]),
        ("Present: Sunil Liang, J. Ngo, Ropata", None),
    ],
)
def test_names_side_by_side_are_not_joined(detector: Detector, text: str, names: list[str] | None) -> None:
    persons = [v for t, v in found(detector, text) if t == "PERSON"]
    assert not any(", " in v for v in persons)
    if names is not None:
        assert persons == names
