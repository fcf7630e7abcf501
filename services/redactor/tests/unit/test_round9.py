"""Issue 11, round 9: the miss classes of the spent v6 — IBANs of every registry
country by length and mod-97; phones under unaccented keys and in table/CSV
phone columns; Catalan ``l'`` streets, Mexican state abbreviations, French
``BP`` lines and Québec towns on the next line, English house names and
one-town 4-digit postcodes; ``pkg@1.2.3`` is no e-mail; names spelt out by the
text's e-mail addresses, ``Surname, Given`` in records, lower case after strong
cues, chat handles, initials, quoted vocatives and signatures; organisations and
table headers are no persons. Each rule alone (pure) and through the real
detector."""

from __future__ import annotations

import re
from pathlib import Path

import phonenumbers
import pytest

from tollway_redactor.addresses import PATTERNS
from tollway_redactor.detection import Span
from tollway_redactor.engine import Detector
from tollway_redactor.names import (
    chat_handle_names,
    email_names,
    given_initial_names,
    grow_initials,
    in_table_header,
    initial_surname_names,
    lowercase_cue_names,
    organisation_name,
    surname_comma_given_names,
    vocative_and_signature_names,
)
from tollway_redactor.number_rules import column_header, find_extra_ibans, iban_checksum_ok, phone_context

from .conftest import assert_tuning_files_reproduce, found, load_eval_module

pytestmark = pytest.mark.unit

EVAL = Path(__file__).resolve().parents[2] / "eval"


def values(text: str, spans: list[Span]) -> list[str]:
    return [text[s.start : s.end] for s in spans]


def addresses(text: str) -> list[str]:
    out: list[str] = []
    for _, regex in PATTERNS:
        out += [m.group() for m in re.finditer(regex, text)]
    return out


# --- IBANs ------------------------------------------------------------------------

PS_IBAN = "PS46OQOL2EB0LNX4O4AWMR9EQWKG7"  # 4 letters + 21 alphanumerics, mod-97 valid


def test_round9_registry_iban_with_letters_where_presidio_wants_digits() -> None:
    assert iban_checksum_ok(PS_IBAN)
    grouped = " ".join(PS_IBAN[i : i + 4] for i in range(0, len(PS_IBAN), 4))
    for form in (PS_IBAN, grouped, grouped.replace(" ", "-")):
        text = f"paga a {form} hoy"
        assert [text[m.start : m.end] for m in find_extra_ibans(text)] == [form]
    # one character off: the check digits fail, nothing is taken
    assert find_extra_ibans("paga a PS46OQOL2EB0LNX4O4AWMR9EQWKG8 hoy") == []
    # the registry length decides: 28 characters is no Palestinian IBAN
    assert find_extra_ibans(f"x {PS_IBAN[:-1]} y") == []


def test_round9_iban_with_few_digits_through_the_detector(detector: Detector) -> None:
    assert found(detector, f"Wire it to {PS_IBAN} before Friday.") == [("IBAN_CODE", PS_IBAN)]


# --- phones -----------------------------------------------------------------------


def test_round9_unaccented_phone_key(detector: Detector) -> None:
    text = '{"cliente": "ref-88", "movil": "+506 7012 4481"}'
    assert ("PHONE_NUMBER", "+506 7012 4481") in found(detector, text)


def test_round9_column_header_of_markdown_tables_and_csv() -> None:
    table = "| Cliente | Teléfono |\n|---|---|\n| ref-12 | 654093117 |"
    assert column_header(table, table.index("6540")) == " Teléfono "
    assert phone_context(table, table.index("6540"))
    csv = "codigo,telefono,ciudad\nA-7,971 33 82 17,Palma"
    assert column_header(csv, csv.index("971")) == "telefono"
    # not a table: a header with digits, a row of another width, no rule line
    assert column_header("id,2024,x\n1,654093117,y", 12) is None
    assert column_header("a,b\n1,654093117,y", 6) is None
    assert column_header("| a | b |\n| 1 | 654093117 |", 14) is None
    # a bare 9-digit run in an id column stays no phone
    ids = "| Pedido | Importe |\n|---|---|\n| 654093117 | 12 |"
    assert not phone_context(ids, ids.index("6540"))


def test_round9_bare_run_in_a_phone_column_through_the_detector(detector: Detector) -> None:
    table = "| Cliente | Teléfono |\n|---|---|\n| ref-12 | 654093117 |"
    assert ("PHONE_NUMBER", "654093117") in found(detector, table)
    assert phonenumbers.is_valid_number(phonenumbers.parse("654093117", "ES"))


# --- addresses --------------------------------------------------------------------


@pytest.mark.parametrize(
    "address",
    [
        "Carrer de l'Hospital Vell, 41, 2º 1ª, 08001 Barcelona",
        "Avenida Los Fresnos 118, Col. Ladrón de Guevara, 44600 Guadalajara, Jal.",
        "14 avenue des Tisserands\nBP 3127\n59043 Lille CEDEX",
        "8 bis quai des Mariniers, CS 40217, 44002 Nantes Cedex 1",
        "3125, rue des Érables\nLaval (Québec)  H7N 2K4",
        "Cours Saint-Michel 77 bte 12\n1040 Etterbeek",
        "12, rue des Tanneurs\nL-2914 Luxembourg",
        "Orchard Cottage, 14 Beacon Hill Road, Kendal LA9 4QP",
        "Wren House\n9 Saddler Street\nDurham\nDH1 3NP",
        "31 Marine Parade, Napier 4110",
        "72 Meade Street\nGeorge\n6529",
        "1187 Quarry Hill Ct, Apt103C\nTacoma, WA 98402",  # a unit glued to its number stays
    ],
)
def test_round9_address_layouts_whole(address: str) -> None:
    assert address in addresses(f"Adresse / address: {address}\n\nMerci.")


def test_round9_address_tails_that_stay_out() -> None:
    # a year after one town is no postcode; "Ste" inside a town is no suite
    assert "12 Main Street" in addresses("at 12 Main Street, London 2012 was busy")
    assert not any("2012" in a for a in addresses("at 12 Main Street, London 2012 was busy"))
    assert "225 Kittiwake Close, Stellenbosch 7600" in addresses("to 225 Kittiwake Close, Stellenbosch 7600")
    # the street name does not run onto the town's line
    assert "47 rue de la Tonnellerie\nBP 404\n31106 Toulouse Cedex 1" in addresses(
        "47 rue de la Tonnellerie\nBP 404\n31106 Toulouse Cedex 1"
    )


# --- e-mail -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ['npm ERR! peer react@"^17.0.0" from some-widget@3.5.27', "pnpm add lodash-es@4.17.21 --save-exact"],
)
def test_round9_package_at_version_is_no_email(detector: Detector, text: str) -> None:
    assert found(detector, text) == []


# --- names ------------------------------------------------------------------------


def test_round9_email_names_pure() -> None:
    text = "Reviewed-by: Anneliese Brzezinski <abrzezinski@tollway.test>"
    assert values(text, email_names(text)) == ["Anneliese Brzezinski"]
    text = "emergency contact: teodoro quispealaya - teodoro.quispealaya@pampa.test"
    assert values(text, email_names(text)) == ["teodoro quispealaya", "teodoro quispealaya"]
    text = "Ship to:\nWAIRIMU KIPRONO\nreceipt to wairimu.kiprono@fernbank.test"
    assert set(values(text, email_names(text))) == {"WAIRIMU KIPRONO"}
    # role addresses and everyday words never count
    assert email_names("Contact support at support@shop.test for billing help") == []
    assert email_names("The release notes went to release-notes@corp.test") == []
    assert email_names("no address here") == []


def test_round9_surname_comma_given_pure() -> None:
    text = '"Brzezinski, Wairimu";"wairimu_b@fernbank.test"'
    seed = email_names(text)
    assert values(text, surname_comma_given_names(text, seed)) == ["Brzezinski, Wairimu"]
    # a list of three is no Surname, Given
    text = "Invite Brzezinski, Wairimu, Kiprono and me"
    assert surname_comma_given_names(text, [Span("PERSON", 7, 17, 0.5)]) == []


def test_round9_lowercase_cues_and_chat_handles_pure() -> None:
    text = "hi its wairimu again, the link didnt work"
    assert values(text, lowercase_cue_names(text)) == ["wairimu"]
    text = "please log it: my name is anneliese brzezinski and the order never came"
    assert values(text, lowercase_cue_names(text)) == ["anneliese brzezinski"]
    assert lowercase_cue_names("it's raining again, so this is fine") == []
    text = "[09:12] teodoro: is the parcel still in the depot?\n[17:03] maëlle : j'ai changé"
    assert values(text, chat_handle_names(text)) == ["teodoro", "maëlle"]
    # a log line has seconds; a software word is no handle
    assert chat_handle_names("[12:01:33] kubelet: pod sandbox changed") == []
    assert chat_handle_names("[12:01] nginx: reloaded") == []


def test_round9_initials_pure() -> None:
    text = "Attendees: Wairimu K., Teodoro Q. and the finance team."
    assert values(text, given_initial_names(text)) == ["Wairimu K.", "Teodoro Q."]
    text = "Paquete entregado en portería, firma de R. Etxeberria."
    assert values(text, initial_surname_names(text)) == ["R. Etxeberria"]
    assert initial_surname_names("See section A. Introduction and Plan B. Review") == []
    text = "Signed by Anneliese J. Brzezinski on the second page."
    grown = grow_initials(text, [Span("PERSON", 10, 19, 0.5)])
    assert values(text, grown) == ["Anneliese J. Brzezinski"]


def test_round9_vocatives_and_signatures_pure() -> None:
    text = "Traduce: «Itziar, mañana no hay reparto»"
    assert values(text, vocative_and_signature_names(text)) == ["Itziar"]
    text = "Please update my card ending 4421 before the renewal. Wairimu Kiprono"
    assert values(text, vocative_and_signature_names(text)) == ["Wairimu Kiprono"]
    # an everyday word is neither
    assert vocative_and_signature_names("«Hola, ¿qué tal?» Thanks. Regards") == []


def test_round9_organisations_and_table_headers_are_no_persons() -> None:
    text = "Company: Larchfield Logistics | Segment: B2B"
    assert organisation_name(text, Span("PERSON", 9, 29, 0.85))
    text = "Ama Freight moved to Helix Kitchens"
    # a listed first name first: a person, whatever the surname means
    assert not organisation_name(text, Span("PERSON", 0, 11, 0.85))
    assert organisation_name(text, Span("PERSON", 21, 35, 0.85))
    assert not organisation_name(text, Span("PERSON", 21, 26, 0.85))  # one word
    table = "| Nom | Courriel |\n|---|---|\n| Ana Lima | a@b.test |"
    assert in_table_header(table, Span("PERSON", 8, 16, 0.85))
    assert not in_table_header(table, Span("PERSON", 31, 39, 0.85))


def test_round9_names_through_the_detector(detector: Detector) -> None:
    text = "Lead: OLUWASEUN MAKINDE | Tel +44 7700 900418 | makinde-oluwaseun@cargo.test"
    assert ("PERSON", "OLUWASEUN MAKINDE") in found(detector, text)
    text = "Refund approved for Kiprono, Anneliese; send it back to the card."
    assert ("PERSON", "Kiprono, Anneliese") in found(detector, text)


@pytest.mark.parametrize(
    "text",
    [
        "Company: Larchfield Logistics | Segment: B2B | Region: north",
        "| Requester | Assignee | Status |\n|---|---|---|\n| ops | infra | open |",
        "| Nom | Courriel | Statut |\n|---|---|---|\n| n/a | n/a | actif |",
        "[12:01:33] kubelet: pod sandbox changed, it will be killed and re-created",
        "it's raining again, so this is fine for the garden",
    ],
)
def test_round9_false_positive_classes_find_nothing(detector: Detector, text: str) -> None:
    assert found(detector, text) == []


# --- the tuning files ---------------------------------------------------------------


def test_round9_generator_reproduces_its_files() -> None:
    labelled, free = load_eval_module("round9").build()
    assert all(r["entities"] for r in labelled) and not any(r["entities"] for r in free)
    assert_tuning_files_reproduce({"round9.jsonl": labelled, "pii_free_round9.jsonl": free})
