"""Issue 11, round 7: the miss classes of the spent v4 — names in records,
tables, lists, capitals, ``Surname, Given``, particles; dotted North American
numbers; registry IBANs Presidio lacks; address layouts; and the
false-positive classes (labels before numbers, titles, barcodes). Each rule
alone (pure) and through the real detector."""

from __future__ import annotations

import pytest

from tollway_redactor.detection import Span
from tollway_redactor.engine import Detector
from tollway_redactor.names import (
    capitals_names,
    complete_names,
    cue_names,
    everyday_words_only,
    field_names,
    initial_possessive_names,
    label_before_number,
    last_first_names,
    list_item_names,
    lowercase_chat_names,
    preposition_names,
    repeated_names,
    summarised_title,
    table_names,
)
from tollway_redactor.number_rules import ean13_valid, find_cards, find_extra_ibans, phone_candidate_ok

from .conftest import assert_tuning_files_reproduce, found, load_eval_module

pytestmark = pytest.mark.unit


def values(text: str, spans: list[Span]) -> list[str]:
    return [text[s.start : s.end] for s in spans]


def span(text: str, value: str, score: float = 0.85) -> Span:
    start = text.index(value)
    return Span("PERSON", start, start + len(value), score)


# --- names in records ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ('{"user": {"name": "Tamsin Oyelaran", "plan": "pro"}}', ["Tamsin Oyelaran"]),
        ('{"event": "refund", "holder": "Tendai Quennell", "amount": 3}', ["Tendai Quennell"]),
        ("owner:\n  full_name: Jae-hyun Mbatha\n  role: admin", ["Jae-hyun Mbatha"]),
        ("PATIENT: RUAIRÍ O'DONOGHUE\nReason: review", ["RUAIRÍ O'DONOGHUE"]),
        ("Assurée : ANNE-SOPHIE LE FLOCH\nTéléphone : 06", ["ANNE-SOPHIE LE FLOCH"]),
        ("Reportado por: Iratxe de la Vega\nCorreo: x", ["Iratxe de la Vega"]),
        ("From: Radhika Venkataraman <radhika@example.org>", ["Radhika Venkataraman"]),
        (
            "Attendees: Siobhán Harrowgate, Tendai Mbatha\nActions: none",
            ["Siobhán Harrowgate", "Tendai Mbatha"],
        ),
        ("Taxi, 40 EUR. Approver: Oluwaseun. Write the line.", ["Oluwaseun"]),
        ("Name: Ugarte, Maitane", ["Ugarte, Maitane"]),
    ],
)
def test_field_names_take_the_value_of_a_name_key(text: str, names: list[str]) -> None:
    assert values(text, field_names(text)) == names


@pytest.mark.parametrize(
    "text",
    [
        "name: Build and test\non: push",  # a CI job: command word
        "Name: Site lead",  # everyday words
        "from: 2024-01-01\nto: 2024-02-01",  # dates
        "Il vient de Lyon et va à Paris.",  # prose "de", "à"
        "Role: Tamsin Oyelaran",  # not a name key
        "steps:\n  - name: Lint\n    run: ruff check",  # one unlisted word after a generic key
        'client: Jedis\n"name": "Tokio"',
    ],
)
def test_field_names_leave_other_values(text: str) -> None:
    assert field_names(text) == []


def test_table_and_csv_name_columns() -> None:
    md = "| Name | Role |\n|---|---|\n| Oksana | Site lead |\n| Mei-Ling Fairweather | Safety |"
    assert values(md, table_names(md)) == ["Oksana", "Mei-Ling Fairweather"]
    csv = "name,email,phone\nRuairí Tshabalala,r@example.org,0123\nCorentin Abgrall,c@example.org,0456"
    assert values(csv, table_names(csv)) == ["Ruairí Tshabalala", "Corentin Abgrall"]
    other = "| Service | Owner team |\n|---|---|\n| Billing | Payments |"
    assert table_names(other) == []
    crates = "| Name | Version |\n|---|---|\n| Tokio | 1.2 |"
    assert table_names(crates) == []


def test_list_items_under_a_people_header() -> None:
    text = "Lista de ponentes:\n- Maitane Etxeberria (presidenta)\n- A. Larrañaga\n\nEscribe la invitación."
    assert values(text, list_item_names(text)) == ["Maitane Etxeberria", "A. Larrañaga"]
    assert list_item_names("Shopping list:\n- Milk\n- Bread") == []


def test_names_in_capitals_need_a_listed_word() -> None:
    text = "Hi team, HELEN MBATHA from accounts again"
    assert values(text, capitals_names(text)) == ["HELEN MBATHA"]
    assert capitals_names("ERROR CONNECTION REFUSED by upstream") == []
    assert capitals_names("SELECT NAME FROM USERS") == []


def test_surname_comma_given_name() -> None:
    text = "Lookup result: Khumalo, Babatunde - account active since 2019"
    assert values(text, last_first_names(text)) == ["Khumalo, Babatunde"]
    # a list of places or names is no "Surname, Given"
    assert last_first_names("We flew Lisbon, Porto and Faro") == []
    assert last_first_names("Invite Garcia, Maria, and Chen") == []


def test_names_after_para_pour_under_and_titles() -> None:
    text = "El paquete para Xoán de los Santos llega mañana; reserva a nombre de del Castillo."
    assert values(text, preposition_names(text)) == ["Xoán de los Santos", "del Castillo"]
    text = "Écris à M. Kerhervé ; table booked under Venkataraman"
    assert values(text, preposition_names(text)) == ["Kerhervé", "Venkataraman"]
    assert preposition_names("Una guía para Windows y pour Noël aussi") == []


def test_a_found_full_name_is_found_again_alone() -> None:
    text = "Attendees: Seo-yeon Quennell\nActions: Seo-yeon to chase the credits"
    found = [span(text, "Seo-yeon Quennell", 0.6)]
    assert values(text, repeated_names(text, found)) == ["Seo-yeon"]


def test_complete_names_takes_particles_prefixes_and_initials() -> None:
    text = "Ask Alistair van der Westhuizen and Fergus O'Donoghue, then T.-H. Lemoal."
    spans = [span(text, "Westhuizen"), span(text, "Fergus"), span(text, "Donoghue"), span(text, "H. Lemoal")]
    assert values(text, complete_names(text, spans)) == [
        "Alistair van der Westhuizen",
        "Fergus O'Donoghue",
        "T.-H. Lemoal",
    ]
    text = "Escribe a Brais Ugarte Larrañaga hoy"
    assert values(text, complete_names(text, [span(text, "Brais Ugarte")])) == ["Brais Ugarte Larrañaga"]


def test_titles_need_a_capital_and_the_same_line() -> None:
    text = "Planning Time: 0.815 ms\nExecution Time: 27 ms"
    assert cue_names(text) == []
    assert values("Dear Ms Quennell", cue_names("Dear Ms Quennell")) == ["Quennell"]


def test_labels_and_titles_are_no_persons() -> None:
    text = "Execution Time: 2722.027 ms"
    assert label_before_number(text, span(text, "Execution Time"))
    assert everyday_words_only(text, span(text, "Execution Time"), "en")
    text = "Rank these: Blade Runner, Spirited Away"
    assert everyday_words_only(text, span(text, "Spirited Away"), "en")
    text = "Résume Le Petit Prince sans rien dévoiler"
    assert everyday_words_only(text, span(text, "Le Petit Prince"), "fr")
    text = "Écris à Gwenaëlle Le Goff"
    assert not everyday_words_only(text, span(text, "Le Goff"), "fr")
    assert not everyday_words_only(
        "Ping Tamsin Oyelaran", span("Ping Tamsin Oyelaran", "Tamsin Oyelaran"), "en"
    )


def test_lowercase_names_after_chat_verbs_and_interjections() -> None:
    text = "pls add oksana van der westhuizen to the thread"
    assert values(text, lowercase_chat_names(text)) == ["oksana van der westhuizen"]
    text = "mdr yannick quintin vient de répondre à tout le monde"
    assert values(text, lowercase_chat_names(text)) == ["yannick quintin"]
    assert lowercase_chat_names("lol the build is green again") == []
    assert lowercase_chat_names("add milk to the list") == []


def test_initial_and_surname_before_a_possessive() -> None:
    text = "Reply to D. de Klerk's comment and to M. Venkataraman's too"
    assert values(text, initial_possessive_names(text)) == ["D. de Klerk", "M. Venkataraman"]
    assert initial_possessive_names("the U.S. Army's budget") == []


def test_the_object_of_a_summary_is_a_work() -> None:
    text = "Résume Arcane sans rien dévoiler"
    assert summarised_title(text, span(text, "Arcane"))
    text = "Summarise Tamsin's notes"
    assert not summarised_title(text, span(text, "Tamsin"))


# --- numbers ---------------------------------------------------------------------------


@pytest.mark.parametrize("run", ["1.505.922.5961", "+1.343.930.6147", "(1.541.629.0051)"])
def test_dotted_nanp_numbers_are_phone_candidates(run: str) -> None:
    text = f"call {run} today"
    start = text.index(run.strip("()"))
    assert phone_candidate_ok(text, start - (1 if run.startswith("(") else 0), start + len(run.strip("()")))


def test_dotted_versions_stay_no_phone_candidates() -> None:
    text = "upgrade to 10.0.19045.3803 now"
    assert not phone_candidate_ok(text, 11, 11 + len("10.0.19045.3803"))


def test_registry_ibans_presidio_lacks() -> None:
    text = "Cuenta: SV62 CENR 0000 0000 0000 0070 0025 por favor; NI45BAPR00000013000003558124."
    assert values(text, [Span("IBAN_CODE", m.start, m.end, 1.0) for m in find_extra_ibans(text)]) == [
        "SV62 CENR 0000 0000 0000 0070 0025",
        "NI45BAPR00000013000003558124",
    ]
    assert find_extra_ibans("SV62 CENR 0000 0000 0000 0070 0026") == []  # check digits fail


def test_barcodes_after_their_keyword_are_no_cards() -> None:
    assert ean13_valid("4007514599118") and ean13_valid("4006381333931")
    assert find_cards("EAN 4007514599118 x 45") == []
    assert len(find_cards("card 4007514599118 please")) == 1  # the same digits as a card


# --- through the detector ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Tel: 1.415.209.3377 | front desk", ("PHONE_NUMBER", "1.415.209.3377")),
        ("IBAN: SV62 CENR 0000 0000 0000 0070 0025", ("IBAN_CODE", "SV62 CENR 0000 0000 0000 0070 0025")),
        (
            "Send it to 12 Kestrel Point, Leeds LS6 2AB please",
            ("STREET_ADDRESS", "12 Kestrel Point, Leeds LS6 2AB"),
        ),
        (
            "Label:\nFlat 3\n41 Alder Creek\nYork YO1 7HH\n",
            ("STREET_ADDRESS", "Flat 3\n41 Alder Creek\nYork YO1 7HH"),
        ),
        (
            "New: Unit 7/22 Jacaranda Street, Fremantle WA 6160",
            ("STREET_ADDRESS", "Unit 7/22 Jacaranda Street, Fremantle WA 6160"),
        ),
        (
            "To 9 Hazel Bend, Carrigaline, Co. Cork P43 YX11 today",
            ("STREET_ADDRESS", "9 Hazel Bend, Carrigaline, Co. Cork P43 YX11"),
        ),
        (
            "Adresse : Avenue de Tervueren 88/2, 1040 Etterbeek",
            ("STREET_ADDRESS", "Avenue de Tervueren 88/2, 1040 Etterbeek"),
        ),
        (
            "Adresse :\nBât. B, esc. 1\n7 impasse des Ormes\n69003 Lyon",
            ("STREET_ADDRESS", "Bât. B, esc. 1\n7 impasse des Ormes\n69003 Lyon"),
        ),
        (
            "Adresse : 4120, rue Sainte-Catherine, app. 9, Montréal (Québec) H3Z 1A1",
            ("STREET_ADDRESS", "4120, rue Sainte-Catherine, app. 9, Montréal (Québec) H3Z 1A1"),
        ),
        (
            "Dirección: Calle del Olmo, 14, bajo izda., 46001 Valencia",
            ("STREET_ADDRESS", "Calle del Olmo, 14, bajo izda., 46001 Valencia"),
        ),
        (
            "A: Av. Reforma 222, int. 4, Col. Juárez, 06600 Ciudad de México",
            ("STREET_ADDRESS", "Av. Reforma 222, int. 4, Col. Juárez, 06600 Ciudad de México"),
        ),
        (
            "Casa: Av. Santa Fe 1840, piso 3, depto. B, C1123 CABA",
            ("STREET_ADDRESS", "Av. Santa Fe 1840, piso 3, depto. B, C1123 CABA"),
        ),
        (
            "Correo a Apartado de Correos 410, 15080 A Coruña, gracias",
            ("STREET_ADDRESS", "Apartado de Correos 410, 15080 A Coruña"),
        ),
    ],
)
def test_round7_layouts_through_the_detector(
    detector: Detector, text: str, expected: tuple[str, str]
) -> None:
    assert expected in found(detector, text)


@pytest.mark.parametrize(
    "text",
    [
        "Seq Scan on invoices  (cost=0.00..12.00 rows=40)\nPlanning Time: 0.12 ms\nExecution Time: 31.2 ms",
        "OPS-1234 linked to Zendesk #5512 and PagerDuty incident P77X",
        "[Thu Jan 05 18:54:18.737290 2023] [proxy_fcgi:error] [pid 58801] AH01071: Got error",
        "GTIN 4006381333931 x 12",
        "Résume Le Petit Prince en trois phrases.",
        "Date : lun. 3 nov. 2025 à 09:12\nObjet : réunion d'équipe",
        "Necesito una guía para Windows y otra para Linux.",
    ],
)
def test_round7_false_positive_classes_find_nothing(detector: Detector, text: str) -> None:
    assert found(detector, text) == []


# --- the tuning files -------------------------------------------------------------


def test_round7_generator_reproduces_its_tuning_files_with_sound_offsets() -> None:
    assert_tuning_files_reproduce(load_eval_module("round7").generate())
