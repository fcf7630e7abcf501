"""Round 6 (issue 11): phone, IP and street-address layouts, each found whole,
and the identifiers they must not eat. With the real detector (models loaded
once); values are made up, layouts are the ones people write."""

from __future__ import annotations

import pytest

from tollway_redactor.engine import Detector
from tollway_redactor.settings import DEFAULT_ENTITY_TYPES

pytestmark = pytest.mark.unit


def found(detector: Detector, text: str) -> list[tuple[str, str]]:
    spans = detector.analyze([text], list(DEFAULT_ENTITY_TYPES), 0.35)[0]
    return [(s.entity_type, text[s.start : s.end]) for s in spans if s.entity_type != "PERSON"]


@pytest.mark.parametrize(
    "phone",
    [
        "+33 6.12.34.56.78",  # dotted after the country code: was read as IP 6.12.34.56
        "+33 7.81.22.40.19",
        "06.12.34.56.78",
        "06 12 34 56 78",
        "06-12-34-56-78",
        "0612345678",
        "+33 6 12 34 56 78",
        "+33 612 345 678",
        "+33 (0)6 12 34 56 78",
        "+33 (0) 6 12 34 56 78",
        "+33(0)612345678",
        "0033 6 12 34 56 78",
        "0033 (0)6 12 34 56 78",
        "0033612345678",
        "+33 6.90.65.02.82",  # dotted, no numbering plan validates it: still a phone after +33
        "01 42 68 53 00",
        "09.70.12.34.56",
        "0692 12 34 56",  # Réunion
        "+262 692 12 34 56",
        "0690 12 34 56",  # Guadeloupe
        "+590 690 12 34 56",
        "0696 12 34 56",  # Martinique
        "0694 12 34 56",  # Guyane
        "+262 639 12 34 56",  # Mayotte
        "+687 75 12 34",  # Nouvelle-Calédonie
        "+689 87 12 34 56",  # Polynésie
    ],
)
def test_french_phone_layouts_are_found_whole(detector, phone):
    assert found(detector, f"Mon numéro a changé : {phone}. Merci !") == [("PHONE_NUMBER", phone)]


@pytest.mark.parametrize(
    "phone",
    [
        "+32 470 12 34 56",  # BE
        "+41 79 123 45 67",  # CH
        "+352 621 123 456",  # LU
        "+1 514 555-0134",  # Québec
        "+212 612-345678",  # MA
        "+81 90-1234-5678",  # JP
        "090-1234-5678",
        "(+52) 55 1234 5678",  # MX
        "+52 1 55 1234 5678",  # MX, old mobile prefix: the matcher kept only "1234 5678"
        "+56 9 6123 4567",  # CL
        "+57 310 123 4567",  # CO
        "+51 912 345 678",  # PE
        "+54 9 11 1234-5678",  # AR
        "612.345.678",  # ES
        "0034 612 345 678",
        "+44 (0)20 7946 0958",  # UK
        "07700 900123",
        "(02) 9621 0800",  # AU
        "+61 (0)412 345 678",
        "+49 (0)30 1234567",  # DE
        "0151 23456789",
        "+1 415.555.0134",  # US
        "1 (415) 555-0134",
        "(415)555-0134",
    ],
)
def test_phone_layouts_of_other_regions(detector, phone):
    assert found(detector, f"You can reach me on {phone} after six.") == [("PHONE_NUMBER", phone)]


@pytest.mark.parametrize(
    "text",
    [
        "Your order ORD-2024-000123 has shipped.",
        "Upgrade from 3.11.4 to 3.12.0 and pin 2.2.366.",
        "Version 1.12.34.56 released today",  # a dotted quad after a version word is no IP
        "build 2.0.17.4 deployed",
        "Released 2024-05-03 12:30:45, build 20240503.1230.",
        "GUID 123e4567-e89b-12d3-a456-426614174000 not found",
        "Azure bill 2022-11: 24258.35 USD, account 069674476666",
        "redis> HINCRBY rate:dcc5a20b542f window:1772275282 1",
        "see 1.2.3.4.5 in the changelog",
    ],
)
def test_identifiers_are_no_phone_and_no_ip(detector, text):
    assert found(detector, text) == []


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("The server is 10.0.12.34 now", "10.0.12.34"),
        ("ping 192.168.1.254.", "192.168.1.254"),
        ("client ip=203.0.113.7 blocked", "203.0.113.7"),
    ],
)
def test_ip_addresses_stay_ip_addresses(detector, text, kept):
    assert found(detector, text) == [("IP_ADDRESS", kept)]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("T:+44 20 7946 0958", "+44 20 7946 0958"),
        ("Tel:0612345678", "0612345678"),
    ],
)
def test_glued_phone_keys_still_announce_a_phone(detector, text, kept):
    assert found(detector, text) == [("PHONE_NUMBER", kept)]


@pytest.mark.parametrize(
    "address",
    [
        "139 Marlowe Walk",
        "24 Kingfisher Walk, Glasgow G12 8QQ",
        "12 Acacia Grove\nLeeds LS6 2AB",  # multi-line
        "12 Acacia Grove\nLeeds\nLS6 2AB",
        "221B Baker Street\nLondon NW1 6XE",
        "4821 Birchwood Lane, Apt 12C, Boise, ID 83702",
        "4821 Birchwood Lane #12, Boise, ID 83702",
        "4821 Birchwood Lane, Suite 300, Salt Lake City, UT 84101",
        "Apt 4B, 220 W 42nd Street, New York, NY 10036",  # unit first, ordinal street
        "Flat 2, 14 Harbour Road, Bristol BS1 5TT",
        "350 5th Ave, New York, NY 10118",
        "233 S Wacker Dr, Chicago, IL 60606",
        "1600 Pennsylvania Avenue NW, Washington, DC 20500",
        "PO Box 1234, Austin, TX 78701",
        "P.O. Box 77",
        "POB 512, Reno NV 89501",
        "77 Sunset Blvd., Los Angeles, CA 90028",
        "5 Meadow Rise, Oxford OX1 2JD",
        "3 The Green, Ely CB7 4AA",
        "88 Queen's Gate, London SW7 5JS",
        "16 Riverside Quay",
        "401 Ocean Pkwy, Brooklyn, NY 11218",
        "12 Harbour Parade, Sydney NSW 2000",
        "250 Front Street West, Toronto, ON M5V 3L9",
        "PO Box 3534 Fresno, CA 93721",  # no comma before the city: with state and ZIP
        "322 E 51st St Fresno, CA 93721",
    ],
)
def test_english_street_addresses_are_found_whole(detector, address):
    text = f"Please ship it to {address}.\nThanks"
    assert found(detector, text) == [("STREET_ADDRESS", address)]


@pytest.mark.parametrize(
    "address",
    [
        "12 rue de la Paix, 75002 Paris",
        "12, rue de la Paix, 75002 Paris",
        "12 Rue de Rivoli 75001 Paris",  # street type capitalised
        "12 bis avenue Jean-Jaurès, 69007 Lyon",
        "3 allée des Tilleuls\n33000 Bordeaux",
        "5 place des Terreaux, Bât. B, appt 12, 69001 Lyon",
        "14 quai de la Tournelle 75005 PARIS",
        "10 Avenue des Champs-Élysées, 75008 Paris",
        "4 promenade des Anglais, 06000 Nice",
        "21 esplanade Charles de Gaulle",
        "1 rue Principale, 97400 Saint-Denis",
        "BP 123, 75008 Paris Cedex 08",
        "157 chemin du Lavoir, escalier 2\n59800 Lille",
    ],
)
def test_french_street_addresses_are_found_whole(detector, address):
    text = f"Adresse de livraison : {address}.\nMerci"
    assert found(detector, text) == [("STREET_ADDRESS", address)]


@pytest.mark.parametrize(
    "address",
    [
        "Calle Mayor, 12, 3º dcha., 28013 Madrid",
        "Calle Mayor 12, 2º B",
        "C/ Mayor 12, 2º B, 28013 Madrid",
        "C/Mayor, 12",
        "Avda. de la Constitución 45, piso 3, puerta 2, 41001 Sevilla",
        "Avda. de América 45, 1º izq.",
        "Camino de Ronda, 217, 15001 A Coruña",
        "Calle Sierpes, 46, bajo, 41004 Sevilla",
        "Calle Sierpes, 46, bajo B",
        "Calle de Alcalá, 45, 3.º A, 28014 Madrid",
        "Calle Alcalá 45, 4ª planta",
        "Plaza Mayor, 1, ático",
        "Calle Mayor s/n, 28013 Madrid",
        "Calle Mayor, 12, esc. B, 3º 2ª",
        "Rambla de Catalunya 12, pral. 1ª, 08007 Barcelona",
        "Carrer de Balmes 150, 08008 Barcelona",
        "Avda. Libertad, 5, portal 2, 3º C",
        "Calle Mayor, nº 12, 28013 Madrid",
        "Calle Toledo 3, 28005 San Sebastián de los Reyes",
        "calle Mayor 12, 2º B",  # the type in lower case, as in running text
        "Paseo de la Alameda 228, bajo\n50001 Zaragoza",  # the postcode on the next line
    ],
)
def test_spanish_street_addresses_keep_floor_and_door(detector, address):
    text = f"Envíalo a {address}.\nGracias"
    assert found(detector, text) == [("STREET_ADDRESS", address)]


@pytest.mark.parametrize(
    "text",
    [
        "See page 12 Drive settings.",  # a street type needs a name word before it
        "We shipped 3 Critical Patches and 2 High Issues.",
        "There are 12 Park Rangers.",
        "Sent via Email 2 times.",
    ],
)
def test_no_address_without_a_street_name(detector, text):
    assert found(detector, text) == []


@pytest.mark.parametrize(
    "iban",
    [
        "fr76 3000 6000 0112 3456 7890 189",
        "gb29 nwbk 6016 1331 9268 19",
        "es9121000418450200051332",
        "FR76-3000-6000-0112-3456-7890-189",
    ],
)
def test_ibans_in_any_case_and_separator(detector, iban):
    assert found(detector, f"Mon IBAN : {iban} pour le virement.") == [("IBAN_CODE", iban)]
