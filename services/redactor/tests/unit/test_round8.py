"""Issue 11, round 8: the miss classes of the spent v5 — payment cards with
double spaces, a 6-digit issuer number before the rest and Diners ``3095``;
Spanish-language address layouts (Galician/Catalan links, ``Jr.``, ``Bvar.``,
``Calz.``, Colombia's grid, tails without a postcode first); and the
false-positive classes (hex-dump offsets and GS1 identifiers as phones, towns
named after a saint and imperatives as names). Each rule alone (pure) and
through the real detector."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tollway_redactor.addresses import PATTERNS
from tollway_redactor.detection import Span
from tollway_redactor.engine import Detector
from tollway_redactor.names import caps_surname_given_names, cue_names, is_place, sentence_opening_word
from tollway_redactor.number_rules import find_cards, phone_candidate_ok

from .conftest import assert_tuning_files_reproduce, found, load_eval_module

pytestmark = pytest.mark.unit

EVAL = Path(__file__).resolve().parents[2] / "eval"


def cards(text: str) -> list[str]:
    return [text[m.start : m.end] for m in find_cards(text)]


# --- cards ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "card",
    [
        "4622  0452  7054  1282",  # double spaces, 4-4-4-4
        "2204  6924  5507  3280  195",  # Mir 19, 4-4-4-4-3
        "3789  243127  71483",  # Amex 4-6-5, double spaces
        "1242  31303  228722",  # UATP 4-5-6
        "625443 4104513664345",  # UnionPay 19: BIN then the rest
        "470972-9024215333321",  # Visa 19: BIN, hyphen, the rest
        "3095  785425  8584",  # Diners Club International 3095
    ],
)
def test_round8_card_layouts(card: str) -> None:
    assert cards(f"card {card}, thanks") == [card]


@pytest.mark.parametrize(
    "text",
    [
        "4622  0452  7054  1283",  # Luhn fails
        "4622\n0452 7054 1282",  # never across a line break
        "4622   0452   7054   1282",  # three spaces: columns, not a card
        "625443 410451 3664345",  # a BIN then more than one group
        "123456 7890123456",  # BIN-shaped but no issuer range / Luhn
    ],
)
def test_round8_card_look_alikes(text: str) -> None:
    assert cards(text) == []


def test_round8_double_spaced_card_is_one_card_not_phone_pieces(detector: Detector) -> None:
    text = "ok it's 5148  9045  2807  5505\nWhat went wrong?"
    assert found(detector, text) == [("CREDIT_CARD", "5148  9045  2807  5505")]


# --- phones: hex dumps and GS1 ------------------------------------------------------


def test_round8_hexdump_offset_is_no_phone_candidate() -> None:
    text = "00000000: 0bb4 22c3 538b d076\n00000010: 9d2b bf28 70e3 527e"
    assert not phone_candidate_ok(text, 0, 8)
    start = text.index("00000010")
    assert not phone_candidate_ok(text, start, start + 8)
    # a number at a line start before a colon in running text is still offered if it has separators
    other = "020 7946 0958: call after 6"
    assert phone_candidate_ok(other, 0, 13)


def test_round8_fourteen_digit_group_is_no_phone_but_international_runs_are() -> None:
    gs1 = "(02) 11609174980710"
    assert not phone_candidate_ok(gs1, 0, len(gs1))
    intl = "+4915123456789"
    assert phone_candidate_ok(intl, 0, len(intl))


@pytest.mark.parametrize(
    "text",
    [
        "00000000: 0bb4 22c3 538b d076 3dba 1ea3 6eae 1bce  ................\n"
        "00000010: 9d2b bf28 70e3 527e 7976 9568 6230 c621  ................",
        "(00) 312345678901234567\n(02) 11609174980712\n(37) 12\nDecode these GS1-128 identifiers.",
        "Escribe un haiku sobre San Cristóbal de La Laguna en junio.",
        "¿Qué ver en Santa Cruz de Tenerife?",
        "¿Mejor la serie o la película? Elige y argumenta.",
    ],
)
def test_round8_false_positive_classes_find_nothing(detector: Detector, text: str) -> None:
    assert found(detector, text) == []


def test_round8_names_stay_names(detector: Detector) -> None:
    assert ("PERSON", "Sebastián Ugarte") in found(detector, "Llama a Sebastián Ugarte mañana.")
    text = "Hola. Rosa dice que viene."
    assert not sentence_opening_word(text, Span("PERSON", 6, 10, 0.5), "es")


def test_round8_saint_places_pure() -> None:
    text = "sobre San Sebastián y San Cristóbal de La Laguna"
    assert is_place(text, Span("PERSON", 6, 19, 0.5))
    start = text.index("San Cristóbal")
    assert is_place(text, Span("PERSON", start, len(text), 0.5))


def test_round8_imperative_before_conjunction_pure() -> None:
    text = "Compara los planes. Elige y justifica."
    start = text.index("Elige")
    assert sentence_opening_word(text, Span("PERSON", start, start + 5, 0.5), "es")
    names = "Hola. Rosa y Juan vienen."
    assert not sentence_opening_word(names, Span("PERSON", 6, 10, 0.5), "es")


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("SANDBERG Bich - passport renewal, call tomorrow.", "SANDBERG Bich"),
        ("Patient: DUMITRESCU Jouni, room 4", "DUMITRESCU Jouni"),
    ],
)
def test_round8_caps_surname_given(text: str, name: str) -> None:
    assert [text[s.start : s.end] for s in caps_surname_given_names(text)] == [name]


@pytest.mark.parametrize(
    "text",
    ["ERROR Connection refused", "HTTP Request failed", "WARN Payment declined", "README Install steps"],
)
def test_round8_caps_word_before_a_capitalised_word_is_no_name(text: str) -> None:
    assert caps_surname_given_names(text) == []


def test_round8_feminine_and_neutral_titles_are_cues() -> None:
    for text, name in (("Escribe a la Dra. Lamas hoy.", "Lamas"), ("Invite Mx. Okafor too.", "Okafor")):
        assert [text[s.start : s.end] for s in cue_names(text)] == [name]


# --- Spanish addresses ------------------------------------------------------------


def longest_address(text: str) -> str:
    found_ = [
        m.group()
        for _, regex in PATTERNS
        for m in re.finditer(regex, text, re.IGNORECASE | re.MULTILINE | re.DOTALL)
    ]
    return max(found_, key=len, default="")


@pytest.mark.parametrize(
    "address",
    [
        "Rúa da Raíña 27, 2.º D, 27001 Lugo",
        "Gran Via de les Glòries, n.º 31, esc. B, 2.º 1.ª, 08018 Barcelona",
        "Jr. Ucayali 512, dpto. 2104, Miraflores, Lima 15074",
        "Bvar. España 2143, apto. 1802\n11200 Montevideo",
        "Calz. Ignacio Zaragoza 3110, Col. Agrícola Oriental, 08500 Iztacalco, CDMX",
        "Calzada de los Misterios 84\nCol. Industrial\n07800 Gustavo A. Madero, CDMX",
        "Carrera 11 # 93-45, apto. 1203, Bogotá D.C.",
        "Calle 10 Sur # 43A-21, Medellín, Antioquia",
        "Av. Apoquindo 4501, of. 1204, Las Condes, Santiago",
        "Transversal 6 No. 27-10, Cartagena, Bolívar",
    ],
)
def test_round8_spanish_layouts_whole(address: str) -> None:
    assert longest_address(f"Dirección: {address}\nGracias.") == address


@pytest.mark.parametrize(
    "address",
    [
        "14 Protea Road, Claremont, Cape Town, 7708",
        "9 Rimu Street, Kelburn, Wellington 6012",
        "9 Rimu Street\nKelburn\nWellington 6012",
    ],
)
def test_round8_suburb_city_and_four_digit_postcode(address: str) -> None:
    assert longest_address(f"Ship to {address}\nThanks") == address


def test_round8_a_year_after_one_city_is_no_postcode() -> None:
    assert longest_address("We met at 12 Main Street, London 2012 was great.") == "12 Main Street"


def test_round8_one_capitalised_word_after_the_number_is_not_taken() -> None:
    assert longest_address("Hay obras en Calle Mayor 12, Juan dijo que sí.") == "Calle Mayor 12"
    assert longest_address("Lo dejé en Rúa do Franco 5, Xurxo lo recoge.") == "Rúa do Franco 5"


def test_round8_spanish_layout_through_the_detector(detector: Detector) -> None:
    text = "Vivo en Carrera 11 # 93-45, apto. 1203, Bogotá D.C. desde marzo."
    assert ("STREET_ADDRESS", "Carrera 11 # 93-45, apto. 1203, Bogotá D.C.") in found(detector, text)


# --- the tuning files -------------------------------------------------------------


def test_round8_generator_reproduces_its_tuning_files_with_sound_offsets() -> None:
    labelled, free = load_eval_module("round8").build()
    assert all(r["entities"] for r in labelled) and not any(r["entities"] for r in free)
    assert_tuning_files_reproduce({"round8.jsonl": labelled, "pii_free_round8.jsonl": free})
