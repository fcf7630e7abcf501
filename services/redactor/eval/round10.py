"""Round-10 development material (issue 11): the miss classes of the spent v7.

Writes two tuning files (seed 101013, deterministic):

- ``eval/tuning/round10.jsonl``: labelled messages, one or more per rule class
  of round 10 — ISO 13616 IBANs of countries outside the SWIFT registry
  (BCEAO's UEMOA, BEAC's CEMAC, Morocco, Algeria, Madagascar...: national
  length and mod-97), grouped and compact; phones written with dots after a
  ``+`` country code (``+44.20.7946.0321``) or one dot after a trunk-0 area
  code (``01632.960417``), and a signature's short key (``m: ...``); street
  addresses: US rural routes (``RR 2 Box 41``) and Canadian ``RR 3 Site 7
  Comp 12`` with their state/ZIP or province/postcode, towns in capitals
  (UK), lower-case links (``Stratford-upon-Avon``), an Irish county and
  Eircode after a town, a Dublin district, New Zealand's ``RD 4``, the
  ``Drove`` type and weak types with a unit; Spanish kilometre points
  (``Carretera de ..., km 12,4``), ``dto.`` and ``8-2`` floor-door parts,
  Chile's 7-digit postcodes and Peru's ``District 15074, Lima``; French
  ``Lieu-dit`` with its postcode; names: ``SURNAME Given`` alone on a label's
  line or after ``from``, names in a tool call's escaped JSON arguments,
  lower-case answers to a name question in a transcript, a capitalised name
  after ``it's`` / ``this is``, an onboarding ``buddy:`` / ``parrain :``.
- ``eval/tuning/pii_free_round10.jsonl``: PII-free texts of the
  false-positive classes: decimals with a leading zero, CSV id columns, ZIP+4
  look-alikes after a state, capitals-then-word headings on their own line,
  a name question answered with everyday words, everyday capitalised words
  after ``it's``.

Usage::

    uv run python services/redactor/eval/round10.py

Written after reading the spent v7's misses (``evaluate.py --frozen-v7
--misses``, round 10), with new pools: no name, street, postcode or value is
copied from v7. The round-10 rules were tuned on this file, so it measures
nothing held out.
"""

from __future__ import annotations

import random

from tuning_rounds import parse_marked, write_tuning_files

SEED = 101013

# [[...|TYPE]] marks an entity; the text is the template without the marks.
LABELLED: list[tuple[str, str]] = [
    # IBANs of non-registry countries ({XX1}... are generated: country, length)
    ("Virement de la caution sur [[{SN}|IBAN_CODE]] avant lundi.", "fr"),
    ("RIB du fournisseur : [[{CI}|IBAN_CODE]]", "fr"),
    ("Compte de paie : [[{MA}|IBAN_CODE]], merci.", "fr"),
    ("Domiciliación en la cuenta [[{GA}|IBAN_CODE]] desde marzo.", "es"),
    ("Please wire the deposit to [[{CM}|IBAN_CODE]] today.", "en"),
    ("Beneficiary account [[{DZ}|IBAN_CODE]] (Algiers branch).", "en"),
    # phones: dots after a country code, one dot after a trunk 0, short signature key
    ("Questions? Ring [[+44.20.7946.0321|PHONE_NUMBER]] after nine.", "en"),
    ("Merci de rappeler au [[+33.4.72.10.58.93|PHONE_NUMBER]] demain.", "fr"),
    ("text me on [[01632.960417|PHONE_NUMBER]] if the gate is locked", "en"),
    ("Cheers,\n[[Orla Featherstonehaugh|PERSON]]\nm: [[2025550148|PHONE_NUMBER]]\nw: example.test", "en"),
    # US rural routes and Canadian RR/Site/Comp
    ("Return address:\n[[RR 2 Box 41\nMarfa, TX 79843-0041|STREET_ADDRESS]]", "en"),
    ("Ship to [[RR 3 Site 7 Comp 12, Drumheller AB  T0J 0Y0|STREET_ADDRESS]] please.", "en"),
    # towns in capitals, lower-case links, Irish county + Eircode, Dublin district, NZ RD
    ("Deliver to [[Flat 4, 17 Cordwainer Drove, KESWICK, CA12 5DJ|STREET_ADDRESS]].", "en"),
    ("Send it to [[41 Bancroft Road, Stratford-upon-Avon, CV37 6QW|STREET_ADDRESS]] by Friday.", "en"),
    ("Address: [[9 Corrib View, Oughterard, Co. Galway, H91 K2T8|STREET_ADDRESS]]", "en"),
    ("Post to [[12 Ashgrove Terrace\nDundrum, Dublin 14\nD14 R9W2|STREET_ADDRESS]]", "en"),
    ("Parcel for [[622 Totara Ridge, RD 4, Waimate 7980|STREET_ADDRESS]].", "en"),
    ("Mail to [[3310 Quarry Spur Unit 2, Hot Springs, AR 71901|STREET_ADDRESS]].", "en"),
    # Spanish: km points, dto., floor-door, Chile, Peru
    ("Entrega en [[Carretera de Alcaraz, km 12,4, 02310 Robledo (Albacete)|STREET_ADDRESS]].", "es"),
    ("Dirección: [[Avenida Los Aromos 845, piso 2 dto. C, C1425 CABA|STREET_ADDRESS]]", "es"),
    ("Vivo en [[Calle del Tejar 22, escalera A, 3-1, 50004 Zaragoza|STREET_ADDRESS]].", "es"),
    ("Enviar a [[Pasaje Las Araucarias 1188\n7500000 Providencia, Santiago|STREET_ADDRESS]]", "es"),
    ("Dirección: [[Jirón Ucayali 512 int. 3, Miraflores 15074, Lima|STREET_ADDRESS]]", "es"),
    # French lieu-dit
    ("Livraison : [[Lieu-dit La Croix-Blanche, 24220 Saint-Cyprien|STREET_ADDRESS]]", "fr"),
    # SURNAME Given alone on its line or after "from"
    ("SHIP TO\n[[OYELARAN Temitope|PERSON]]\n[[5 Cordwainer Drove\nKESWICK\nCA12 5DJ|STREET_ADDRESS]]", "en"),
    ("We received a cheque from [[STRZELECKI Wawrzyniec|PERSON]] but no reference.", "en"),
    ("DESTINATARIO\n[[ITURRALDE Garazi|PERSON]]\n[[Calle del Tejar 9\n50004 Zaragoza|STREET_ADDRESS]]", "es"),
    # tool-call arguments: JSON inside a JSON string
    (
        '{"name": "book_table", "arguments": "{\\"guest\\": \\"[[Temitope Strzelecki|PERSON]]\\", '
        '\\"party\\": 4}"}',
        "en",
    ),
    # lower-case answer to a name question
    (
        "09:10 agent: what name is the booking under?\n09:11 customer: [[garazi oyelaran|PERSON]]\n"
        "09:12 agent: thanks",
        "en",
    ),
    (
        "10:02 agente: ¿a nombre de quién está el pedido?\n10:03 cliente: [[wawrzyniec iturralde|PERSON]]",
        "es",
    ),
    # a capitalised name after a self-introduction cue; an onboarding buddy / parrain
    ("hey, it's [[Temitope|PERSON]]. new number, save it", "en"),
    ("Onboarding:\n- desk: 3F\n- buddy: [[Wawrzyniec|PERSON]]", "en"),
    ("Arrivée lundi :\n- badge : à retirer\n- parrain : [[Garazi|PERSON]]", "fr"),
]

PII_FREE: list[tuple[str, str]] = [
    ("The ratio moved from 0.52 to 012.5 and pi is 3.14159265.", "en"),
    ("order_id,status,total\n2027-40412,shipped,19.90\n2027-40413,open,7.50", "en"),
    ("Sales tax tables for VT 05301-4641 and NM 87901-6793 were updated this quarter.", "en"),
    ("RELEASE Notes\nERROR Handling\nWARNING Deprecated\nTODO Later", "en"),
    ("09:10 agent: what name is the booking under?\n09:11 customer: the same as last time", "en"),
    ("Lieu-dit est un terme de cadastre, pas une adresse.", "fr"),
    ("El km 12 de la carretera está cortado por obras.", "es"),
    ("it's Monday again and it's Python, not Java.", "en"),
]


def _iban(rng: random.Random, country: str, length: int) -> str:
    """A checksum-valid IBAN of ``country`` and ``length``: a BBAN of digits and capitals."""
    alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    bban = rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") + "".join(
        rng.choice(alnum if i < 4 else "0123456789") for i in range(length - 5)
    )
    moved = bban + country + "00"
    check = 98 - int("".join(str(int(c, 36)) for c in moved)) % 97
    return f"{country}{check:02d}{bban}"


def _grouped(iban: str) -> str:
    return " ".join(iban[i : i + 4] for i in range(0, len(iban), 4))


def build() -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """The labelled records and the PII-free records, in file order."""
    rng = random.Random(SEED)
    fills = {
        "SN": _grouped(_iban(rng, "SN", 28)),
        "CI": _iban(rng, "CI", 28),
        "MA": _grouped(_iban(rng, "MA", 28)),
        "GA": _iban(rng, "GA", 27),
        "CM": _grouped(_iban(rng, "CM", 27)),
        "DZ": _iban(rng, "DZ", 26),
    }
    labelled: list[dict[str, object]] = []
    for k, (marked, lang) in enumerate(LABELLED):
        for key, value in fills.items():
            marked = marked.replace("{" + key + "}", value)
        text, entities = parse_marked(marked)
        labelled.append({"id": f"r10-{k}", "lang": lang, "text": text, "entities": entities})
    free = [
        {"id": f"r10-free-{k}", "lang": lang, "text": text, "entities": []}
        for k, (text, lang) in enumerate(PII_FREE)
    ]
    return labelled, free


def main() -> None:
    """Write ``tuning/round10.jsonl`` and ``tuning/pii_free_round10.jsonl``."""
    labelled, free = build()
    write_tuning_files({"round10.jsonl": labelled, "pii_free_round10.jsonl": free})


if __name__ == "__main__":
    main()
