"""Issue 11, round 13: the miss classes of the spent v10 — card numbers of
every real issuer range at every length it issues (UnionPay 81 at 16-19
digits, national schemes), and PERSON. Each rule alone (pure) and through
the real detector, and the round-13 tuning files."""

from __future__ import annotations

import pytest

from tollway_redactor.engine import Detector
from tollway_redactor.names import rare_pair_names
from tollway_redactor.number_rules import find_cards

from .conftest import assert_tuning_files_reproduce, found, load_eval_module


def _cards(text: str) -> list[str]:
    return [text[m.start : m.end] for m in find_cards(text)]


# --- cards: UnionPay 81 at 17-19 digits, national schemes ---------------------------


@pytest.mark.parametrize(
    "value",
    [
        "81527309461852070",  # UnionPay 81, 17 digits, bare
        "8109 3627 4185 0396 27",  # 18 digits, 4-4-4-4-2
        "8107-6239-5148-2073-612",  # 19 digits, 4-4-4-4-3
        "1946 3820 7516 4928",  # GPN
        "2205 7192 8364 0518",  # BORICA
        "3190472816359042748",  # China T-Union, 19 digits
        "8600 4927 1835 6047",  # UzCard
        "9860-1273-9456-2012",  # Humo
        "9891.4072.5816.3906",  # DinaCard
    ],
)
def test_cards_of_every_issuer_range_at_its_lengths(value: str) -> None:
    assert _cards(f"card {value} charged") == [value]


@pytest.mark.parametrize(
    "text",
    [
        "Shipment 81527309461852071 left",  # 81, Luhn fails
        "Ticket 82640193752846151 merged",  # RuPay 82 issues 16 digits only
        "ref 319047281635904274 ok",  # T-Union issues 19 digits only (Luhn-valid at 18)
    ],
)
def test_numbers_outside_the_lengths_a_range_issues_stay_unmatched(text: str) -> None:
    assert _cards(text) == []


def test_round13_cards_through_the_detector(detector: Detector) -> None:
    text = "Cargo con la tarjeta 8107623951482073612 en la tienda."
    hits = found(detector, text)
    assert ("CREDIT_CARD", "8107623951482073612") in hits
    assert all(t != "PHONE_NUMBER" for t, _ in hits)


# --- PERSON: two rare capitalised words, no cue word ---------------------------------


def _pairs(text: str, lang: str | None = None) -> list[str]:
    return [text[s.start : s.end] for s in rare_pair_names(text, None, lang)]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Please add Ysolde Penhallow to the rota.", "Ysolde Penhallow"),
        ("Could Tindra Quarshie call back?", "Tindra Quarshie"),  # an everyday word before: no run
        ("Ticket reopened by Grizel Te Kanawa today", "Grizel Te Kanawa"),  # a particle between
        ("la llave de Xabier Olazabal", "Xabier Olazabal"),
        ("Rendez-vous avec Soazig Le Bihan demain", "Soazig Le Bihan"),
    ],
)
def test_a_rare_given_name_and_surname_are_a_person(text: str, name: str) -> None:
    assert _pairs(text) == [name]


@pytest.mark.parametrize(
    "text",
    [
        "Is a Suunto Vertical worth it?",  # English article
        "Three days in Chiang Rai",  # preposition of place
        "Northwind Tallow Ltd shipped",  # a longer capitalised run
        "Copperbeck Tamarack Bluff is closed",  # a pair inside a run
        "delivered to 14 Tamarind Wharf",  # after a number: a road
        "paseo Azud Riego",  # after a road word
        "Grafana Cloud dashboards",  # an everyday second word
    ],
)
def test_rare_pairs_that_are_no_person_stay_unmatched(text: str) -> None:
    assert _pairs(text) == []


def test_spanish_a_marks_a_person_but_english_a_is_an_article() -> None:
    assert _pairs("conocimos a Covenka Urrutibeaskoa en la feria", "es") == ["Covenka Urrutibeaskoa"]
    assert _pairs("compare a Covenka Urrutibeaskoa model", "en") == []


def test_round13_names_through_the_detector(detector: Detector) -> None:
    assert found(detector, "hemos hablado con Maialen Etxeberri sobre la entrega.") == [
        ("PERSON", "Maialen Etxeberri")
    ]
    assert found(detector, "Three days in Chiang Rai, what should we see first?") == []
    assert found(detector, "Is a Suunto Vertical worth it for trail running?") == []


# --- PERSON in lower case after a chat greeting ------------------------------------


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("hi tavita fonoti here, the refund never arrived", "tavita fonoti"),
        ("lol kaimana pomaikai finally sent the photos", "kaimana pomaikai"),
        ("coucou c'est maëlwenn quiniou, tu me rappelles ?", "maëlwenn quiniou"),
        ("hola soy rocío urquiola, no me llega el código", "rocío urquiola"),
    ],
)
def test_lower_case_names_after_a_chat_greeting(detector: Detector, text: str, name: str) -> None:
    assert found(detector, text) == [("PERSON", name)]


@pytest.mark.parametrize(
    "text",
    [
        "hi team quick question here about the build",
        "salut c'est bon pour demain, on se voit au marché",
        "hola soy nuevo aquí, ¿dónde está la cocina?",
        "lol that was a close one",
    ],
)
def test_chat_greetings_before_everyday_words_stay_unmatched(detector: Detector, text: str) -> None:
    assert found(detector, text) == []


def test_round13_tuning_files_reproduce() -> None:
    labelled, free = load_eval_module("round13").build()
    assert_tuning_files_reproduce({"round13.jsonl": labelled, "pii_free_round13.jsonl": free})
