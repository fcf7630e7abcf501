"""The FROZEN held-out evaluation set **v4** (issue 11, fourth held-out round).

Written blind, by a hand that neither read the detector's rules nor ran the
detector on these texts, and committed before anyone measured them. v1
(``frozen.py``), v2 (``frozen_v2.py``) and v3 (``frozen_v3.py``) are *spent*:
their results were known while later rounds were tuned, so they count as
tuning material now. v4 is the set the final claim of issue 11 is measured on,
once, by the lead.

Self-contained on purpose: imports nothing from ``generate.py``,
``tuning.py`` or the earlier frozen generators, so growing the tuning set can
never change these files. Its templates and value pools (names, e-mail
domains, phone layouts and area codes, IBAN countries, card values, streets,
PII-free chat fills and technical kinds) are new;
``tests/unit/test_eval_frozen.py`` checks the pools are disjoint from every
earlier generator's and every earlier labelled value, that every gold span is
sound (offsets, no overlap, phones valid for ``phonenumbers``, cards
Luhn-valid, IBAN check digits valid), that ``eval/frozen_v4/SHA256SUMS`` pins
the committed files, and that this script reproduces them byte for byte.

Rules for whoever tunes the detector: ``evaluate.py --frozen-v4`` reports on
these files; ``evaluate.py`` refuses ``--misses`` on them, so no individual
miss or false positive is read and fixed. Nobody reads the results before the
lead's single measurement.

Files (JSONL, ``{"id", "lang", "text", "entities": [{"type", "start", "end",
"value"}]}``, code point offsets) in ``eval/frozen_v4/``:

- ``heldout-en.jsonl`` (400 messages with PII + 140 PII-free chat messages),
  ``heldout-fr.jsonl`` and ``heldout-es.jsonl`` (240 + 110 each): gateway
  traffic with planted PII -- support tickets, CRM notes, e-mails pasted into
  a prompt, meeting notes, JSON/YAML customer records, CSV rows, chat
  transcripts with speaker labels, form dumps, markdown tables, code comments
  with an author, forwarded message headers -- with names of many origins in
  every position (start of text, after titles, in lists, possessive,
  hyphenated, with particles, initials, ``Last, First``, lower case, ALL
  CAPS), e-mails, phones, cards, IBANs and street addresses (units, PO-style
  lines, multi-line, French ``bis``/``ter``, Spanish ``C/``, ``Avda.``,
  ``piso``, ``puerta``); and PII-free chat on everyday topics (places,
  products, brands, months, dishes, sport teams, fictional titles without
  people).
- ``pii_free.jsonl`` (480): technical text of kinds no earlier set used
  (Terraform plans, Dockerfiles, access logs without client addresses,
  Prometheus exposition, GraphQL, protobuf, regexes, timers, semver ranges,
  crash dumps, CSV of metrics, diff hunks, Makefiles, SQL plans, currency
  amounts, ISBNs, ticket ids, hashes, ...): any detection is a false
  positive. No IP or MAC addresses, no e-mail addresses, no names of people.

Gold conventions: a title (``Dr``, ``Mme``, ``Sr.``) is not part of a
PERSON span; a possessive ``'s`` is not either; ``Last, First`` and initials
(``N. Okonjo``) are one span; a multi-line address is one STREET_ADDRESS span
including its line breaks; a PO-box line with its town is a STREET_ADDRESS.

Usage: ``python services/redactor/eval/frozen_v4.py [--out DIR]`` (seed 604417).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import string
import unicodedata
import uuid
from collections.abc import Callable
from pathlib import Path

SEED = 604417

# --- names -------------------------------------------------------------------

NAMES = {
    "en": {
        "first": (
            "Saoirse Ciarán Eilidh Fergus Rhiannon Gareth Briony Hollis Orla Tobin Wren Alistair "
            "Chiamaka Obinna Adaeze Babatunde Folake Kwabena Akosua Njeri Sipho Lindiwe Zainab Musa "
            "Aarav Priyanka Vikram Lakshmi Anjali Rohan Farhan Ayesha Nimal Tharindu Harpreet "
            "Shu-Fen Ha-eun Seo-yeon Kenji Haruka Quang Maricel Rodel "
            "Layla Dalia Samir Reza Shirin Emre Elif Yael Avi "
            "Katarzyna Bartosz Zuzana Milena Dragan Oksana Astrid Henrik Eero Aino Joost Sanne "
            "Aroha Tane Sione Sally-Anne"
        ).split(),
        "last": (
            "Okonjo Adebisi Owusu Otieno Ndlovu Dlamini Khumalo Nair Menon Chatterjee Deshpande "
            "Sandhu Perera Jayasuriya Siddiqui Qureshi Chowdhury Matsumoto Jeong Dang Huynh Bautista "
            "Dimaculangan Mackenzie O'Sullivan McAllister Kilbride Pennington Whitlock Wiśniewska "
            "Horváth Novák Petrović Shevchenko Halvorsen Virtanen Farahani Demir Cohen-Levy Tuilagi "
            "D'Souza Pryce-Jones Abara-Hughes"
        ).split()
        + ["van der Merwe", "van den Heuvel", "de Vries", "Al-Masri", "Te Rangi"],
    },
    "fr": {
        "first": (
            "Aurore Soizic Gwenaël Maxence Perrine Tiphaine Quitterie Évelyne Blandine Hugues "
            "Anne-Laure Charles-Édouard Anne-Cécile Paul-Henri Fatoumata Mamadou Aminata Ousmane "
            "Yasmina Mehdi Sofiane Nawel Thi-Hoa Armelle Rozenn Ghislain Bérangère Youssouf Maïwenn Bilal"
        ).split(),
        "last": (
            "Kerbrat Quéméner Morvan Guillou Roussel Lévêque Vasselin Duchêne Caradec Tréguier "
            "N'Diaye Traoré Camara Keïta Bensaïd Haddouche Mansouri Truong Delaunay-Ribot "
            "Rigaudeau Lestrade"
        ).split()
        + ["Le Goff", "Le Bihan", "de Kervéguen", "du Plessier", "d'Aubigny"],
    },
    "es": {
        "first": (
            "Aitor Iker Nahikari Inma Jordi Pau Xiana Brais Uxía Guadalupe Wilmer Yesenia Florencia "
            "Benjamín Itxaso Ainara Eneko Marcela Leonardo Graciela Efraín Itzel Baltasar "
            "Nahia Josefina"
        ).split(),
        "last": (
            "Urrutia Goikoetxea Puig Vilaró Castells Otero Varela Figueroa Rivas Quispe Mamani Huamán "
            "Cárdenas Benítez Zapata Bustos Sepúlveda Araya Valdivia Pizarro Lezcano Anchorena"
        ).split()
        + ["de la Fuente", "del Río", "de los Llanos", "Montes de Oca"],
    },
}
# Surname particles (van der Merwe, Le Goff, Al-Masri): not name tokens on their own when the
# test compares name pools.
PARTICLES = ("van", "der", "den", "de", "del", "la", "los", "du", "le", "al", "te")


def person(rng: random.Random, lang: str, full: bool = False) -> tuple[str, str]:
    """``(first, last)``: ``last`` is empty for a first name alone (8 %, never when ``full``).

    Spanish names get two surnames 35 % of the time.
    """
    pool = NAMES[lang]
    first, last = rng.choice(pool["first"]), rng.choice(pool["last"])
    if not full and rng.random() < 0.08:
        return first, ""
    if lang == "es" and rng.random() < 0.35:
        return first, f"{last} {rng.choice([n for n in pool['last'] if n != last])}"
    return first, last


def _name(p: tuple[str, str]) -> str:
    return f"{p[0]} {p[1]}" if p[1] else p[0]


def _initials(p: tuple[str, str]) -> str:
    """``N. Okonjo``; a hyphenated first name gives ``A.-L. Kerbrat``."""
    first = "-".join(f"{part[0]}." for part in p[0].split("-"))
    return f"{first} {p[1]}"


DOMAINS = {
    "en": [
        "proton.me",
        "hey.com",
        "tutanota.com",
        "sky.com",
        "virginmedia.com",
        "bigpond.com",
        "xtra.co.nz",
        "rogers.com",
        "comcast.net",
        "ed.ac.uk",
        "kingsfield-logistics.co.uk",
        "harbourline-dental.com.au",
    ],
    "fr": [
        "club-internet.fr",
        "aliceadsl.fr",
        "skynet.be",
        "bluewin.ch",
        "videotron.ca",
        "univ-grenoble-alpes.fr",
        "chu-nantes.fr",
        "notaires-presquile.fr",
    ],
    "es": [
        "telefonica.net",
        "ya.com",
        "ugr.es",
        "unam.mx",
        "prodigy.net.mx",
        "fibertel.com.ar",
        "une.net.co",
        "jazztel.es",
        "xtec.cat",
    ],
}


def _ascii(s: str) -> str:
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode()


def email(rng: random.Random, p: tuple[str, str], lang: str) -> str:
    """An address built from person ``p`` on one of ``lang``'s v4 domains."""
    first = re.sub(r"[^a-z]", "", _ascii(p[0]).lower())
    if not p[1]:
        return f"{first}{rng.choice(['', str(rng.randint(1961, 2004))])}@{rng.choice(DOMAINS[lang])}"
    # the first surname (of two, in Spanish), particles glued on: van der Merwe -> vandermerwe
    surname = max((s for s in NAMES[lang]["last"] if p[1] == s or p[1].startswith(s + " ")), key=len)
    last = re.sub(r"[^a-z]", "", _ascii(surname).lower())
    cap = lambda s: s[:1].upper() + s[1:]  # noqa: E731
    local = rng.choice(
        [
            f"{first}.{last}",
            f"{first}.{last}",
            f"{first[0]}{last}",
            f"{last}.{first}",
            f"{first}_{last}",
            f"{first}.{last}+{rng.choice(['invoices', 'shop', 'news', 'crm'])}",
            f"{first}{rng.randint(1961, 2004)}",
            f"{cap(first)}.{cap(last)}",
        ]
    )
    return f"{local}@{rng.choice(DOMAINS[lang])}"


# --- phones ------------------------------------------------------------------


def _digits(rng: random.Random, k: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(k))


_US_AREAS = ["980", "458", "573", "208", "505", "316", "907", "808", "402", "609", "936", "541"]
_CA_AREAS = ["236", "587", "902", "343"]
_QC_AREAS = ["438", "450", "819", "418"]
# first digit of the subscriber number per British geographic area code (ranges in use)
_GB_LEADS = {"113": "2345", "117": "2349", "131": "2345678", "161": "23456789"}


def _exchange(rng: random.Random) -> str:
    while True:
        x = rng.randint(202, 989)
        if x % 100 != 11 and x != 555 and x // 10 != 95:
            return str(x)


# Every layout with the regions its numbers are valid in (checked by the test with
# ``phonenumbers.is_valid_number``). Keys name the layout; the test also checks each
# layout's digit shape (digits masked as 9) is one no earlier set used.
def _phone_layouts(rng: random.Random) -> dict[str, list[tuple[str, Callable[[], str]]]]:
    d = lambda k: _digits(rng, k)  # noqa: E731
    x = lambda: _exchange(rng)  # noqa: E731
    pick = rng.choice
    return {
        "en": [
            ("US", lambda: f"{pick(_US_AREAS)}/{x()}-{d(4)}"),
            ("US", lambda: f"+1 ({pick(_US_AREAS)}) {x()} {d(4)}"),
            ("US", lambda: f"1.{pick(_US_AREAS)}.{x()}.{d(4)}"),
            ("US", lambda: f"({pick(_US_AREAS)}) {x()}.{d(4)}"),
            ("CA", lambda: f"+1.{pick(_CA_AREAS)}.{x()}.{d(4)}"),
            ("GB", lambda: f"+44 (0)7{pick('458')}{d(2)} {d(3)} {d(3)}"),
            (
                "GB",
                lambda: (lambda a: f"+44 (0){a} {pick(_GB_LEADS[a])}{d(2)} {d(4)}")(pick(sorted(_GB_LEADS))),
            ),
            ("GB", lambda: f"07{pick('458')}{d(2)}-{d(3)}-{d(3)}"),
            ("IE", lambda: f"+353 (0)8{pick('3567')} {d(3)} {d(4)}"),
            ("AU", lambda: f"04{pick('0123')}{d(1)}-{d(3)}-{d(3)}"),
            ("AU", lambda: f"(03) 9{d(3)}-{d(4)}"),
            ("IN", lambda: f"+91-{pick('6789')}{d(4)}-{d(5)}"),
            ("IN", lambda: f"+91 9{d(3)} {d(3)} {d(3)}"),
            ("NG", lambda: f"+234 {pick(['803', '806', '813', '816', '805', '802'])} {d(3)} {d(4)}"),
            ("KE", lambda: f"+254 7{pick('012')}{d(1)} {d(6)}"),
            ("SG", lambda: f"+65-{pick(['8' + pick('123456789'), '9' + pick('012345678')])}{d(2)}-{d(4)}"),
            ("ZA", lambda: f"+27 (0)8{pick('234')} {d(3)} {d(4)}"),
            ("PH", lambda: f"+63-9{pick(['17', '18', '20', '27'])}-{d(3)}-{d(4)}"),
        ],
        "fr": [
            ("FR", lambda: f"+33(0)6 {pick('0124578')}{d(1)} {d(2)} {d(2)} {d(2)}"),
            ("FR", lambda: f"+33 (0)2-{pick('01234579')}{d(1)}-{d(2)}-{d(2)}-{d(2)}"),
            ("BE", lambda: f"04{rng.randint(70, 99)}/{d(2)}.{d(2)}.{d(2)}"),
            ("CH", lambda: f"+41 (0)7{pick('6789')} {d(3)} {d(2)} {d(2)}"),
            ("CH", lambda: f"07{pick('6789')} {d(3)} {d(2)} {d(2)}"),
            ("SN", lambda: f"+221 7{pick('0678')} {d(3)} {d(2)} {d(2)}"),
            ("CI", lambda: f"+225 07 {d(2)} {d(2)} {d(2)} {d(2)}"),
            ("TN", lambda: f"+216 {pick('259')}{d(1)} {d(3)} {d(3)}"),
            ("RE", lambda: f"+262 692 {d(2)} {d(2)} {d(2)}"),
            ("RE", lambda: f"0692 {d(2)} {d(2)} {d(2)}"),
            ("CA", lambda: f"{pick(_QC_AREAS)} {x()}-{d(4)}"),
            ("DZ", lambda: f"+213 {pick(['55', '60', '66', '69', '77', '79'])}{d(1)} {d(2)} {d(2)} {d(2)}"),
        ],
        "es": [
            ("ES", lambda: f"6{d(2)}.{d(2)}.{d(2)}.{d(2)}"),
            ("ES", lambda: f"0034 6{d(2)} {d(3)} {d(3)}"),
            ("ES", lambda: f"+34-7{pick('1234')}{d(1)}-{d(3)}-{d(3)}"),
            ("ES", lambda: f"(93) {rng.randint(200, 499)} {d(2)} {d(2)}"),
            ("ES", lambda: f"954-{d(2)}-{d(2)}-{d(2)}"),
            ("MX", lambda: f"55 {d(4)} {d(4)}"),
            ("MX", lambda: f"+52 (81) {d(4)}-{d(4)}"),
            ("AR", lambda: f"+54 9 351 {rng.randint(200, 799)}-{d(4)}"),
            ("CO", lambda: f"(+57) 3{pick(['00', '10', '12', '15', '20'])}-{d(3)}-{d(4)}"),
            ("VE", lambda: f"+58 4{pick(['12', '14', '16', '24', '26'])}-{d(3)}-{d(4)}"),
            ("VE", lambda: f"04{pick(['12', '14', '24'])}-{d(3)}.{d(2)}.{d(2)}"),
            ("EC", lambda: f"+593-9{pick('89')}-{d(3)}-{d(4)}"),
            ("UY", lambda: f"+598 9{pick('1234589')} {d(3)} {d(3)}"),
            ("CR", lambda: f"+506 8{pick('3456789')}{d(2)}-{d(4)}"),
            ("GT", lambda: f"+502 5{d(3)} {d(4)}"),
            ("BO", lambda: f"+591 7{d(7)}"),
            ("PY", lambda: f"0981 {d(3)} {d(3)}"),
        ],
    }


PHONE_REGIONS = {
    "en": ("US", "CA", "GB", "IE", "AU", "IN", "NG", "KE", "SG", "ZA", "PH"),
    "fr": ("FR", "BE", "CH", "SN", "CI", "TN", "RE", "CA", "DZ"),
    "es": ("ES", "MX", "AR", "CO", "VE", "EC", "UY", "CR", "GT", "BO", "PY"),
}


def phone(rng: random.Random, lang: str) -> str:
    """A phone number in one of ``lang``'s v4 layouts (real numbering-plan prefixes)."""
    _, make = rng.choice(_phone_layouts(rng)[lang])
    return make()


# --- cards -------------------------------------------------------------------


def _luhn(body: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(body)):
        n = int(ch) * (2 if i % 2 == 0 else 1)
        total += n - 9 if n > 9 else n
    return body + str((10 - total % 10) % 10)


# (network, prefix generator, lengths): issuer ranges (ISO/IEC 7812 IINs) as the
# networks publish them
_CARD_RANGES: list[tuple[str, Callable[[random.Random], str], list[int]]] = [
    ("visa", lambda r: "4", [16, 16, 16, 13, 19]),
    ("mastercard", lambda r: str(r.randint(51, 55)), [16]),
    ("mastercard-2", lambda r: str(r.randint(2221, 2720)), [16]),
    ("amex", lambda r: r.choice(["34", "37"]), [15]),
    ("discover", lambda r: r.choice(["6011", str(r.randint(644, 649)), "65"]), [16, 19]),
    ("jcb", lambda r: str(r.randint(3528, 3589)), [16, 19]),
    ("unionpay", lambda r: "62", [16, 17, 18, 19]),
    ("maestro", lambda r: r.choice(["50", "56", "57", "58", "6759", "676770"]), [12, 13, 16, 18, 19]),
    ("diners", lambda r: r.choice(["36", "38", str(r.randint(300, 305))]), [14]),
    ("mir", lambda r: str(r.randint(2200, 2204)), [16]),
    ("rupay", lambda r: r.choice(["60", "652", "508"]), [16]),
    ("verve", lambda r: str(r.randint(506099, 506198)), [16, 19]),
    ("troy", lambda r: "9792", [16]),
]


def card(rng: random.Random) -> str:
    """A Luhn-valid card number of a real issuer range, grouped as printed or typed."""
    _, prefix_of, lengths = rng.choice(_CARD_RANGES)
    prefix = prefix_of(rng)
    length = rng.choice(lengths)
    number = _luhn(prefix + _digits(rng, length - len(prefix) - 1))
    sep = rng.choice([" ", " ", " ", "-", ""])
    if length == 15:
        groups = [number[:4], number[4:10], number[10:]]
    elif length == 14:
        groups = [number[:4], number[4:10], number[10:]]
    else:
        groups = [number[i : i + 4] for i in range(0, length, 4)]
    return sep.join(groups)


# --- IBANs -------------------------------------------------------------------

# BBAN layouts of the SWIFT IBAN registry: n digits, a upper-case letters.
# ``fixed`` countries print one check value for every account (their national key makes
# it so): the last two BBAN digits are chosen to give it.
_IBAN_BBAN: dict[str, tuple[Callable[[Callable[[int], str], Callable[[int], str]], str], str | None]] = {
    "AT": (lambda d, a: d(16), None),
    "LV": (lambda d, a: a(4) + d(13), None),
    "CY": (lambda d, a: d(8) + d(16), None),
    "MT": (lambda d, a: a(4) + d(5) + d(18), None),
    "LI": (lambda d, a: d(5) + d(12), None),
    "GI": (lambda d, a: a(4) + d(15), None),
    "AE": (lambda d, a: d(19), None),
    "SA": (lambda d, a: d(20), None),
    "IL": (lambda d, a: d(19), None),
    "TR": (lambda d, a: d(5) + "0" + d(16), None),
    "UA": (lambda d, a: d(6) + d(19), None),
    "TN": (lambda d, a: d(18), "59"),
    "MR": (lambda d, a: d(21), "13"),
    "LB": (lambda d, a: d(24), None),
    "MU": (lambda d, a: a(4) + d(19) + "MUR", None),
    "CR": (lambda d, a: "0" + d(17), None),
    "DO": (lambda d, a: a(4) + d(20), None),
    "GT": (lambda d, a: a(4) + d(20), None),
    "SV": (lambda d, a: a(4) + d(20), None),
}
_IBAN_COUNTRIES = {
    "en": ["AT", "LV", "CY", "MT", "LI", "GI", "AE", "SA", "IL", "TR", "UA"],
    "fr": ["TN", "MR", "LB", "MU"],
    "es": ["CR", "DO", "GT", "SV"],
}


def _iban_check(country: str, bban: str) -> str:
    numeric = "".join(str(int(c, 36)) for c in bban + country + "00")
    return f"{98 - int(numeric) % 97:02d}"


def iban(rng: random.Random, countries: list[str]) -> str:
    """A check-digit-valid IBAN of one of ``countries``, grouped by 4 (60 %) or compact."""
    country = rng.choice(countries)
    d = lambda k: _digits(rng, k)  # noqa: E731
    a = lambda k: "".join(rng.choice(string.ascii_uppercase) for _ in range(k))  # noqa: E731
    layout, fixed = _IBAN_BBAN[country]
    bban = layout(d, a)
    if fixed is not None:
        bban = next(b for b in (bban + f"{k:02d}" for k in range(100)) if _iban_check(country, b) == fixed)
    code = f"{country}{_iban_check(country, bban)}{bban}"
    return " ".join(code[i : i + 4] for i in range(0, len(code), 4)) if rng.random() < 0.6 else code


# --- addresses ---------------------------------------------------------------

STREETS = {
    "en": [
        "Quarry Hill",
        "Sycamore Bend",
        "Old Tannery",
        "Tamarack",
        "Saddleback",
        "Bluebonnet",
        "Heron Point",
        "Cobbler's Yard",
        "Thistle Grove",
        "Wattle Creek",
        "Banksia",
        "Orchard Rise",
        "Harbord",
        "Kestrel Ridge",
    ],
    "fr": [
        "impasse des Glycines",
        "allée des Cerisiers",
        "chemin de la Source",
        "quai des Tanneurs",
        "cours des Ursulines",
        "passage du Grand-Cerf",
        "sentier des Vignes",
        "rue des Tisserands",
        "avenue des Érables",
        "chaussée de Louvain",
        "chemin des Crêts",
    ],
    "es": [
        "C/ Albarracín",
        "C/ de los Almendros",
        "Avda. de la Hispanidad",
        "Avda. del Puerto",
        "Pza. de los Naranjos",
        "Ronda del Tejar",
        "Travesía de las Eras",
        "Av. Insurgentes Sur",
        "Av. Corrientes",
        "Pasaje Los Aromos",
        "Carrera 15",
    ],
}


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def address(rng: random.Random, lang: str, multiline: bool = False) -> str:
    """A street address in one of ``lang``'s v4 layouts; ``multiline`` breaks it into lines."""
    sep = "\n" if multiline else ", "
    pick = rng.choice
    n = rng.randint
    if lang == "en":
        kind = rng.random()
        if kind < 0.35:  # US, with or without a unit
            street = f"{n(12, 9870)} {pick(STREETS['en'][:6])} {pick(['Rd', 'Road', 'Dr.', 'Ct', 'Blvd', 'Trail', 'Circle'])}"
            if rng.random() < 0.5:
                street += f", {pick(['Apt', 'Suite', 'Unit', 'Ste.', '#'])}{'' if rng.random() < 0.1 else ' '}{n(2, 1400)}{pick(['', '', 'B', 'C'])}"
            city = pick(
                [
                    "Missoula, MT 59801",
                    "Tulsa, OK 74103",
                    "Tacoma, WA 98402",
                    "Chattanooga, TN 37402",
                    "Fort Collins, CO 80521",
                ]
            )
            return f"{street}{sep}{city}".replace("# ", "#")
        if kind < 0.45:  # PO-style
            return f"{pick(['PO Box', 'P.O. Box'])} {n(100, 9999)}{sep}{pick(['Bozeman, MT 59771', 'Flagstaff, AZ 86002', 'Fort Collins, CO 80522'])}"
        if kind < 0.65:  # UK, often with a flat
            street = f"{n(1, 140)} {pick(STREETS['en'][6:10])}"
            if rng.random() < 0.5:
                street = f"Flat {n(1, 24)}{sep}{street}"
            return f"{street}{sep}{pick(['Norwich NR2 3AX', 'Exeter EX4 6PT', 'Dundee DD1 4HN', 'Swansea SA1 5DZ'])}"
        if kind < 0.78:  # Australia: unit/number
            return f"Unit {n(1, 30)}/{n(2, 120)} {pick(STREETS['en'][9:11])} {pick(['Street', 'Parade', 'Crescent'])}{sep}{pick(['Fremantle WA 6160', 'Toowong QLD 4066', 'Glenelg SA 5045'])}"
        if kind < 0.9:  # Canada: unit-number
            return f"{n(101, 2404)}-{n(10, 990)} {pick(STREETS['en'][12:14])} {pick(['Street', 'Avenue'])}{sep}{pick(['Halifax, NS B3H 2Y9', 'Kelowna, BC V1Y 6H2', 'Regina, SK S4P 3Y2'])}"
        return (
            f"{n(2, 80)} {STREETS['en'][11]}, Ballincollig{sep}Co. Cork P31 {pick(['KX27', 'W8D5', 'HT43'])}"
        )
    if lang == "fr":
        kind = rng.random()
        if kind < 0.5:  # France, bis/ter, building and flat complements
            line = f"{n(1, 140)}{pick(['', '', ' bis', ' ter', 'bis'])} {pick(STREETS['fr'][:8])}"
            if rng.random() < 0.35:
                line = f"{pick(['Bât. C', 'Résidence les Mimosas', 'Appt 14', 'Bât. A, esc. 2'])}{sep}{line}"
            return f"{line}{sep}{pick(['38000 Grenoble', '44000 Nantes', '84000 Avignon', '29200 Brest', '87000 Limoges'])}"
        if kind < 0.6:  # boîte postale
            return f"BP {n(10, 9999)}{sep}{pick(['49040 Angers Cedex 01', '97110 Pointe-à-Pitre'])}"
        if kind < 0.75:  # Belgium: number after the street
            return f"{_cap(STREETS['fr'][9])} {n(1, 480)}{pick(['', '', '/B3'])}{sep}{pick(['1030 Schaerbeek', '4000 Liège', '5000 Namur'])}"
        if kind < 0.87:  # Switzerland
            return f"{_cap(STREETS['fr'][10])} {n(1, 60)}{sep}{pick(['1218 Le Grand-Saconnex', '1003 Lausanne', '2000 Neuchâtel'])}"
        # Québec
        return f"{n(100, 9800)}, {STREETS['fr'][8]}, app. {n(1, 40)}{sep}{pick(['Sherbrooke (Québec) J1H 4R2', 'Gatineau (Québec) J8X 3X2'])}"
    kind = rng.random()
    if kind < 0.55:  # Spain: C/, Avda., Pza., piso, puerta
        street = pick(STREETS["es"][:7])
        line = f"{street}, {n(1, 180)}"
        line += pick(
            [
                f", {n(1, 9)}º {pick('ABCD')}",
                f", piso {n(1, 9)}, puerta {n(1, 6)}",
                f", {n(1, 8)}º {n(1, 4)}ª",
                ", bajo izda.",
                "",
            ]
        )
        city = pick(["50012 Zaragoza", "28037 Madrid", "11004 Cádiz", "33003 Oviedo", "03002 Alicante"])
        return f"{line}{sep}{city}"
    if kind < 0.65:  # apartado de correos
        return f"Apartado de Correos {n(10, 9999)}{sep}{pick(['29080 Málaga', '47080 Valladolid'])}"
    if kind < 0.8:  # México
        return f"{STREETS['es'][7]} {n(100, 3999)}, int. {n(1, 40)}{sep}Col. {pick(['Del Valle', 'Crédito Constructor', 'Narvarte'])}, {pick(['03100', '03940', '03020'])} Ciudad de México"
    if kind < 0.9:  # Argentina
        return f"{STREETS['es'][8]} {n(100, 5999)}, piso {n(1, 20)}, depto. {pick('ABCDE')}{sep}C{n(1000, 1499)} CABA"
    if kind < 0.95:  # Chile
        return f"{STREETS['es'][9]} {n(10, 999)}, depto. {n(101, 1802)}{sep}Ñuñoa, Región Metropolitana"
    return f"{STREETS['es'][10]} # {n(10, 99)}-{n(10, 99)}, apto. {n(101, 904)}{sep}Bogotá"


# --- templates with PII ------------------------------------------------------

TEMPLATES = {
    "en": [
        "Ticket #48213 - customer can't log in\nReported by: {P}\nEmail: {E}\nPhone: {PH}\n\nCustomer says the reset link "
        "expires before it arrives. Draft a reply that explains the 15-minute window.",
        "CRM note (call, 12 min): {F} from the Exeter branch wants the annual plan billed to a new card, {CC}. "
        "Write the follow-up email confirming the change.",
        "Can you make this email sound less defensive?\n\n\"Hi {F},\nI did send the revised quote on Monday. If it didn't "
        'arrive I can resend it to {E}.\nBest,\n{P2}"',
        "Meeting notes - vendor review\nAttendees: {P}, {P2}, {P3}\nActions: {F} to chase the SLA credits; {F2} to send "
        "the remittance to IBAN {IB}.\nTurn these into a short status update.",
        'Validate this record and tell me which fields are missing:\n{"customer": {"name": "{P}", "email": "{E}", '
        '"phone": "{PH}", "billing_address": "{A}"}, "plan": "pro", "seats": 12}',
        'Convert this YAML to a SQL insert:\n\ncontact:\n  full_name: {P}\n  mobile: "{PH}"\n  iban: {IB}\n  address: "{A}"',
        "Here are two rows from the export, clean up the formatting:\nname,email,phone,card\n{P},{E},{PH},{CC}\n"
        "{P2},{E2},{PH2},",
        "Summarise this chat for the handover:\n[09:12] Agent: Thanks for holding, can I confirm your full name?\n"
        "[09:12] Customer: {P}\n[09:13] Agent: And the delivery address?\n[09:13] Customer: {A}\n[09:14] Agent: "
        "Great, the courier will call {PH} before arrival.",
        "Form submission #7731\nName: {P}\nAddress: {AM}\nPhone: {PH}\nMessage: I was charged twice for the same "
        "order, please refund one of them.\n\nClassify the urgency of this submission.",
        "Fix the alignment of this table:\n| Name | Role | Phone |\n|---|---|---|\n| {P} | Site lead | {PH} |\n"
        "| {P2} | Safety officer | {PH2} |",
        "Refactor this function, keep the header comment:\n\n# Author: {P} <{E}>\n# Last reviewed 2026-02-11\n"
        "def apply_discount(order, pct):\n    return order.total * (1 - pct / 100)",
        "---------- Forwarded message ---------\nFrom: {P} <{E}>\nDate: Thu, 5 Nov 2026 at 16:42\nSubject: Re: deposit "
        "for the venue\nTo: {P2} <{E2}>\n\nPlease pay the deposit to {IB} before Friday.\n\nWhat is this person asking "
        "me to do, and does anything look suspicious?",
        "{P} called again about the broken dishwasher. Draft an apology and offer a technician visit next week.",
        "Write a formal letter to Mr {L} explaining that the lease renewal includes a 3% increase.",
        "{F}'s flight lands at 6:40, can you write a text asking if she wants to be picked up?",
        "pls add {p} to the onboarding thread, her number is {PH}",
        "PATIENT: {PU}\nREFERRING PHYSICIAN: Dr {P2}\nReason: follow-up after knee surgery\n\nRewrite this referral "
        "in plain language for the patient.",
        "Reply to {I}'s comment on the pull request and say the migration is backwards compatible.",
        "Lookup result: {LF} - account active since 2019, card on file {CC}. Is it OK to read the card number back "
        "to the caller?",
        "Shortlist for the panel:\n- {P} (chair)\n- {P2}\n- {I}\nWrite each of them a two-line invite.",
        "The parcel for {P} keeps bouncing back. Address on the label:\n{AM}\nWhat might be wrong with it?",
        "Our supplier changed banks. New details: beneficiary {P}, IBAN {IB}. Write the change-of-details entry for "
        "the finance log.",
        "charge failed for card {CC} - gateway says 'do not honour'. what does that mean?",
        '{"event": "payment_failed", "card_number": "{CC}", "holder": "{P}", "amount": 129.00, "currency": "USD"}\n'
        "Explain this webhook payload to a non-technical colleague.",
        "@channel heads up: {F} is out sick today, urgent stuff goes to {P2} ({PH}).",
        "Tenant: {P}\nUnit: {A}\nRent: 1,450/month\nWrite a reminder that the rent is 5 days late, firm but polite.",
        "I'm writing a reference for {P}, who worked as our bookkeeper for four years. Make it warm but specific.",
        "Please send the signed forms to:\n{AM}\nand let me know when they're posted. Can you turn this into a polite "
        "reminder?",
        "Regards,\nDr. {P}\nConsultant Cardiologist\nTel: {PH} | {E}",
        "Hey {F}! Long time :) I moved to {A} last month, come visit. my new number is {PH}",
        "Is this a valid IBAN? {IB} - a client sent it on WhatsApp and I'm nervous about fraud.",
        "Expense claim: taxi to client site, paid with corporate card {CC}, 46.20 EUR. Approver: {P}. Write the "
        "justification line.",
        'const testUser = { name: "{P}", email: "{E}", phone: "{PH}" }; // TODO: remove before release\n'
        "Why is the linter flagging this file?",
        "Co-authored-by: {P} <{E}>\n\nWrite a better commit message for this change: fixed rounding in invoice totals",
        "Calendar invite: 'Quarterly review' with {P} and {P2}, Room 4.12, dial-in {PH}. Draft an agenda.",
        "{P}\n{AM}\n\nDear {F},\nThank you for your order. Turn this into a formal letter template.",
        "Claim form:\nPolicyholder: {PU}\nContact number: {PH}\nBank account for payout: {IB}\nSummarise the claim "
        "in one sentence: water damage to the kitchen ceiling.",
        "{P} handles refunds and {P2} handles disputes. Write a routing rule for the support inbox.",
        "lol {p} just replied all to the whole company",
        "Translate to Spanish: 'Dear {P}, the card {CC} on your account will expire soon.'",
        "{P2} forwarded me {F}'s CV, can you pull her phone ({PH}) and email ({E}) into a contact card?",
        "New starter: {P}\nStart date: 4 January\nPersonal email: {E}\nEmergency contact: {P2}, {PH2}\nBank: {IB}\n"
        "Create the onboarding checklist.",
        "My mortgage broker {P} asked me to send the statement for my card {CC}. Is that normal?",
        "Booking ref QX7H2L for {P} and {P2}. Hotel address: {A}. Make a one-page itinerary.",
        "{F} here - my old card was cloned, the new one is {CC}. please update my subscription",
        "Reservation under {L}, 8 people, Saturday 7:30pm. Their number: {PH}. Write the confirmation SMS.",
        "Can you check whether {IB} and {CC} are the ones {P} gave us last year? I only need yes or no.",
        "Hi team, {PU} from accounts again: the refund for order 55120 went to {IB}, not to the card.",
    ],
    "fr": [
        "Ticket n° 20931 - impossible de se connecter\nSignalé par : {P}\nCourriel : {E}\nTél. : {PH}\n\nRédige une "
        "réponse qui explique la procédure de réinitialisation.",
        "Note CRM (appel, 8 min) : {F} souhaite que l'abonnement annuel soit prélevé sur une nouvelle carte, {CC}. "
        "Rédige le mail de confirmation.",
        "Peux-tu rendre ce mail moins sec ?\n\n« Bonjour {F},\nJe vous ai bien envoyé le devis lundi. Je peux le "
        "renvoyer à {E} si besoin.\nCordialement,\n{P2} »",
        "Compte rendu - réunion fournisseurs\nPrésents : {P}, {P2}, {P3}\nActions : {F} relance les pénalités ; {F2} "
        "fait le virement sur l'IBAN {IB}.\nFais-en un point d'étape court.",
        'Vérifie cet enregistrement :\n{"client": {"nom": "{P}", "email": "{E}", "tel": "{PH}", "adresse": "{A}"}, '
        '"offre": "pro"}',
        "Formulaire de contact\nNom : {P}\nAdresse : {AM}\nTéléphone : {PH}\nMessage : j'ai été débité deux fois "
        "pour la même commande.\n\nQuel est le niveau d'urgence ?",
        "Corrige ce tableau :\n| Nom | Fonction | Téléphone |\n|---|---|---|\n| {P} | Responsable de site | {PH} |\n"
        "| {P2} | Sécurité | {PH2} |",
        "---------- Message transféré ---------\nDe : {P} <{E}>\nDate : jeu. 5 nov. 2026 à 16:42\nObjet : acompte "
        "pour la salle\nÀ : {P2} <{E2}>\n\nMerci de verser l'acompte sur {IB} avant vendredi.\n\nQue me demande "
        "cette personne ? Quelque chose de louche ?",
        "{P} a encore appelé pour le lave-linge en panne. Rédige des excuses et propose un passage de technicien.",
        "Écris une lettre formelle à M. {L} pour l'informer de la révision du loyer.",
        "Le vol de {F} arrive à 6 h 40, écris-lui un SMS pour savoir s'il faut venir la chercher.",
        "ajoute {p} au fil d'accueil stp, son numéro c'est le {PH}",
        "PATIENT : {PU}\nMÉDECIN ADRESSANT : Dr {P2}\nMotif : contrôle après opération du genou\n\nReformule ce "
        "courrier pour le patient.",
        "Le colis pour {P} nous revient sans cesse. Adresse sur l'étiquette :\n{AM}\nQu'est-ce qui cloche ?",
        "Notre fournisseur a changé de banque. Bénéficiaire : {P}, IBAN : {IB}. Rédige la ligne du registre.",
        "paiement refusé pour la carte {CC}, la banque dit « transaction non autorisée », ça veut dire quoi ?",
        "Locataire : {P}\nLogement : {A}\nLoyer : 890 €/mois\nÉcris un rappel pour un loyer en retard de 5 jours, "
        "ferme mais poli.",
        "Bien cordialement,\nDr {P}\nCardiologue\nTél. : {PH} | {E}",
        "Salut {F} ! On a emménagé au {A}, passe nous voir. Mon nouveau numéro : {PH}",
        "Cet IBAN est-il valide ? {IB} - un client me l'a envoyé par WhatsApp.",
        "Note de frais : taxi, payé avec la carte société {CC}, 46,20 €. Valideur : {P}. Rédige la justification.",
        "# Auteur : {P} <{E}>\ndef calcule_remise(commande, taux):\n    return commande.total * (1 - taux / 100)\n\n"
        "Refactorise cette fonction en gardant l'en-tête.",
        "Nouvel arrivant : {P}\nMail perso : {E}\nContact d'urgence : {P2}, {PH2}\nRIB : {IB}\nPrépare la checklist "
        "d'intégration.",
        "Réservation au nom de {L}, 8 personnes, samedi 19 h 30. Téléphone : {PH}. Écris le SMS de confirmation.",
        "{F} ici - ma carte a été piratée, la nouvelle c'est {CC}. merci de mettre à jour mon abonnement",
        "Transcription :\n[09:12] Conseiller : Pouvez-vous me confirmer vos nom et prénom ?\n[09:12] Client : {P}\n"
        "[09:13] Conseiller : Et l'adresse de livraison ?\n[09:13] Client : {A}\nRésume l'échange.",
        "Liste des intervenants :\n- {P} (présidente)\n- {P2}\n- {I}\nÉcris une invitation de deux lignes à chacun.",
        "Résultat de la recherche : {LF} - client depuis 2019, carte enregistrée {CC}. Puis-je lire le numéro au "
        "téléphone ?",
        "Écris une lettre de recommandation pour {P}, notre comptable pendant quatre ans.",
        "Déclaration de sinistre :\nAssuré : {PU}\nTéléphone : {PH}\nCompte pour l'indemnisation : {IB}\nRésume en "
        "une phrase : dégât des eaux au plafond de la cuisine.",
        "mdr {p} vient de répondre à toute la boîte",
        "Réservation QX7H2L pour {P} et {P2}. Adresse de l'hôtel : {A}. Fais un itinéraire d'une page.",
        "Merci d'envoyer les formulaires signés à :\n{AM}\nTransforme ça en relance polie.",
        "Est-ce que {IB} et {CC} sont bien ceux que {P} nous a donnés l'an dernier ? Oui ou non suffit.",
    ],
    "es": [
        "Ticket n.º 20931 - no puede iniciar sesión\nReportado por: {P}\nCorreo: {E}\nTel.: {PH}\n\nRedacta una "
        "respuesta que explique cómo restablecer la contraseña.",
        "Nota CRM (llamada, 8 min): {F} quiere que la suscripción anual se cobre en una tarjeta nueva, {CC}. "
        "Escribe el correo de confirmación.",
        "¿Puedes hacer este correo menos seco?\n\n«Hola {F}:\nTe mandé el presupuesto el lunes. Si no te llegó, lo "
        "reenvío a {E}.\nUn saludo,\n{P2}»",
        "Acta - reunión con proveedores\nAsistentes: {P}, {P2}, {P3}\nTareas: {F} reclama las penalizaciones; {F2} "
        "hace la transferencia al IBAN {IB}.\nResúmelo en un estado breve.",
        'Valida este registro:\n{"cliente": {"nombre": "{P}", "correo": "{E}", "telefono": "{PH}", "direccion": '
        '"{A}"}, "plan": "pro"}',
        "Formulario de contacto\nNombre: {P}\nDirección: {AM}\nTeléfono: {PH}\nMensaje: me cobraron dos veces el "
        "mismo pedido.\n\n¿Qué urgencia tiene?",
        "Arregla esta tabla:\n| Nombre | Cargo | Teléfono |\n|---|---|---|\n| {P} | Jefa de obra | {PH} |\n"
        "| {P2} | Prevención | {PH2} |",
        "---------- Mensaje reenviado ---------\nDe: {P} <{E}>\nFecha: jue, 5 nov 2026, 16:42\nAsunto: señal del "
        "local\nPara: {P2} <{E2}>\n\nPor favor, ingresa la señal en {IB} antes del viernes.\n\n¿Qué me pide esta "
        "persona? ¿Hay algo sospechoso?",
        "{P} ha vuelto a llamar por la lavadora estropeada. Redacta una disculpa y ofrece la visita de un técnico.",
        "Escribe una carta formal al Sr. {L} para comunicarle la actualización del alquiler.",
        "El vuelo de {F} llega a las 6:40, escríbele un mensaje para saber si hay que ir a buscarla.",
        "añade a {p} al hilo de bienvenida porfa, su número es el {PH}",
        "PACIENTE: {PU}\nMÉDICO REMITENTE: Dr. {P2}\nMotivo: revisión tras operación de rodilla\n\nReescribe este "
        "informe en lenguaje sencillo.",
        "El paquete para {P} nos vuelve una y otra vez. Dirección de la etiqueta:\n{AM}\n¿Qué puede estar mal?",
        "Nuestro proveedor cambió de banco. Beneficiaria: Dña. {P}, IBAN: {IB}. Redacta la entrada del registro.",
        "me rechazaron el pago con la tarjeta {CC}, dice «operación denegada», ¿qué significa?",
        "Inquilino: {P}\nVivienda: {A}\nAlquiler: 780 €/mes\nEscribe un recordatorio por 5 días de retraso, firme "
        "pero educado.",
        "Atentamente,\nLic. {P}\nDirección de Finanzas\nTel.: {PH} | {E}",
        "¡Hola {F}! Nos hemos mudado a {A}, pásate a vernos. Mi número nuevo: {PH}",
        "¿Es válido este IBAN? {IB} - me lo mandó un cliente por WhatsApp.",
        "Gasto: taxi, pagado con la tarjeta de empresa {CC}, 46,20 €. Aprueba: {P}. Redacta la justificación.",
        "# Autor: {P} <{E}>\ndef calcula_descuento(pedido, tasa):\n    return pedido.total * (1 - tasa / 100)\n\n"
        "Refactoriza esta función manteniendo la cabecera.",
        "Nueva incorporación: {P}\nCorreo personal: {E}\nContacto de emergencia: {P2}, {PH2}\nCuenta: {IB}\nPrepara "
        "la lista de bienvenida.",
        "Reserva a nombre de {L}, 8 personas, sábado 21:30. Teléfono: {PH}. Escribe el SMS de confirmación.",
        "{F} por aquí - me clonaron la tarjeta, la nueva es {CC}. actualizad mi suscripción porfa",
        "Transcripción:\n[09:12] Agente: ¿Me confirma su nombre completo?\n[09:12] Cliente: {P}\n[09:13] Agente: ¿Y "
        "la dirección de entrega?\n[09:13] Cliente: {A}\nResume la conversación.",
        "Lista de ponentes:\n- {P} (presidenta)\n- {P2}\n- {I}\nEscribe una invitación de dos líneas para cada uno.",
        "Resultado de la búsqueda: {LF} - cliente desde 2019, tarjeta guardada {CC}. ¿Puedo leer el número por "
        "teléfono?",
        "Escribe una carta de recomendación para {P}, nuestra contable durante cuatro años.",
        "Parte de siniestro:\nAsegurado: {PU}\nTeléfono: {PH}\nCuenta para la indemnización: {IB}\nResume en una "
        "frase: filtración de agua en el techo de la cocina.",
        "jajaja {p} acaba de responder a toda la empresa",
        "Reserva QX7H2L para {P} y {P2}. Dirección del hotel: {A}. Haz un itinerario de una página.",
        "Enviad los formularios firmados a:\n{AM}\nConviértelo en un recordatorio amable.",
        "¿Son {IB} y {CC} los que nos dio {P} el año pasado? Basta con sí o no.",
    ],
}
_SLOTS = re.compile(r"\{(P2|P3|PH2|PH|PU|P|p|F2|F|LF|L|I|E2|E|CC|IB|AM|A)\}")


def fill(template: str, rng: random.Random, lang: str) -> tuple[str, list[dict]]:
    """``template`` with its slots filled and the gold entities (code point offsets)."""
    p1 = person(rng, lang)
    p2 = person(rng, lang)
    while p2[0] == p1[0]:
        p2 = person(rng, lang)
    p3 = person(rng, lang)
    while p3[0] in (p1[0], p2[0]):
        p3 = person(rng, lang)
    other = person(rng, lang, full=True)
    listed = person(rng, lang, full=True)
    surname = rng.choice(NAMES[lang]["last"])
    values = {
        "P": ("PERSON", _name(p1)),
        "P2": ("PERSON", _name(p2)),
        "P3": ("PERSON", _name(p3)),
        "p": ("PERSON", _name(p1).lower()),
        "PU": ("PERSON", _name(p1).upper()),
        "F": ("PERSON", p1[0]),
        "F2": ("PERSON", p2[0]),
        "L": ("PERSON", surname),
        "I": ("PERSON", _initials(listed)),
        "LF": ("PERSON", f"{other[1]}, {other[0]}"),
        "E": ("EMAIL_ADDRESS", email(rng, p1, lang)),
        "E2": ("EMAIL_ADDRESS", email(rng, p2, lang)),
        "PH": ("PHONE_NUMBER", phone(rng, lang)),
        "PH2": ("PHONE_NUMBER", phone(rng, lang)),
        "CC": ("CREDIT_CARD", card(rng)),
        "IB": ("IBAN_CODE", iban(rng, _IBAN_COUNTRIES[lang])),
        "A": ("STREET_ADDRESS", address(rng, lang)),
        "AM": ("STREET_ADDRESS", address(rng, lang, multiline=True)),
    }
    out: list[str] = []
    entities: list[dict] = []
    pos = length = 0
    for m in _SLOTS.finditer(template):
        literal = template[pos : m.start()]
        out.append(literal)
        length += len(literal)
        etype, value = values[m.group(1)]
        entities.append({"type": etype, "start": length, "end": length + len(value), "value": value})
        out.append(value)
        length += len(value)
        pos = m.end()
    out.append(template[pos:])
    return "".join(out), entities


# --- PII-free chat -----------------------------------------------------------

_CHAT_FILL = {
    "en": {
        "PLACE": ["Ljubljana", "Hoi An", "the Lofoten Islands", "Cape Town", "Hokkaido", "the Algarve", "Tbilisi", "Valletta", "Sardinia", "Patagonia"],
        "THING": ["a cast-iron pan", "an air fryer", "a fiddle-leaf fig", "merino base layers", "a robot vacuum", "a heat pump", "an e-bike battery"],
        "TOPIC": ["index funds", "plate tectonics", "how vaccines work", "the offside rule", "quantum entanglement", "sleep cycles", "carbon offsets"],
        "MONTH": ["February", "March", "May", "July", "August", "October", "December"],
        "PRODUCT": ["a Kindle Paperwhite", "AirPods Pro", "a Thermomix", "a Fairphone 5", "an IKEA POÄNG chair", "a Nintendo Switch"],
        "TEAM": ["Arsenal", "the All Blacks", "Boca Juniors", "the Chicago Bulls", "the Green Bay Packers", "Ajax"],
        "DISH": ["shakshuka", "pad thai", "butter chicken", "bibimbap", "jollof rice", "pierogi", "a Sunday roast"],
        "TITLE": ["Spirited Away", "Dune", "Breaking Bad", "The Lord of the Rings", "Stranger Things", "Arcane", "Blade Runner"],
    },
    "fr": {
        "PLACE": ["Étretat", "Ajaccio", "Québec", "Sète", "Chamonix", "Essaouira", "Pornic", "Lausanne", "Carcassonne"],
        "THING": ["une poêle en fonte", "une friteuse à air", "un aspirateur robot", "une pompe à chaleur", "un monstera"],
        "TOPIC": ["les ETF", "la tectonique des plaques", "la règle du hors-jeu", "les cycles du sommeil", "l'intrication quantique"],
        "MONTH": ["février", "mars", "mai", "juillet", "août", "octobre", "décembre"],
        "PRODUCT": ["une liseuse Kobo", "un Thermomix", "une Nintendo Switch", "un vélo Décathlon", "un Fairphone"],
        "TEAM": ["le PSG", "l'OM", "le Stade toulousain", "l'OL", "le RC Lens"],
        "DISH": ["une blanquette de veau", "un gratin dauphinois", "une tartiflette", "un couscous", "une galette complète"],
        "TITLE": ["Le Petit Prince", "Les Misérables", "Dune", "Arcane", "Le Chant du loup"],
    },
    "es": {
        "PLACE": ["Cuenca", "Asturias", "Valparaíso", "Cartago", "Menorca", "Granada", "Ushuaia", "Bilbao", "Tulum"],
        "THING": ["una sartén de hierro", "una freidora de aire", "un robot aspirador", "una bomba de calor", "un potus"],
        "TOPIC": ["los fondos indexados", "la tectónica de placas", "el fuera de juego", "las fases del sueño", "el entrelazamiento cuántico"],
        "MONTH": ["febrero", "marzo", "mayo", "julio", "agosto", "octubre", "diciembre"],
        "PRODUCT": ["un Kindle", "una Thermomix", "una Nintendo Switch", "un patinete eléctrico", "un Fairphone"],
        "TEAM": ["el Betis", "el Athletic", "Boca Juniors", "el Atlético", "River Plate"],
        "DISH": ["un salmorejo", "un plato de lentejas", "un ceviche", "una arepa", "una fabada"],
        "TITLE": ["La casa de papel", "Cien años de soledad", "Dune", "Arcane", "El laberinto del fauno"],
    },
}  # fmt: skip

CHAT_FREE = {
    "en": [
        "Is {PLACE} worth it in {MONTH} or is it too rainy?",
        "what's a good vegetarian swap for the meat in {DISH}?",
        "Rank these for a rainy Sunday: {TITLE}, {TITLE2}, or a board game.",
        "Did {TEAM} win last night? Just the score please.",
        "I bought {THING} last month and it makes a clicking noise every few minutes, is that normal?",
        "Write a product description for {PRODUCT} in under 50 words.",
        "how many calories roughly in a bowl of {DISH}",
        "Plan a 3-day itinerary for {PLACE} with one museum a day and cheap eats.",
        "ELI5: {TOPIC}",
        "Make a shopping list for {DISH} for six people.",
        "Is it cheaper to buy {PRODUCT} in {MONTH} or wait for Black Friday?",
        "Summarise the plot of {TITLE} without spoilers past the first act.",
        "Give me a 20-minute bodyweight workout I can do in a hotel room in {PLACE}.",
        "Convert 350°F to Celsius - is that right for roasting vegetables?",
        "What's the etiquette for tipping in {PLACE}?",
        "i need a name for our pub quiz team, something about {TOPIC}",
        "Write a short thank-you note to our neighbours for looking after the cat in {MONTH}.",
        "Pros and cons of buying {THING} versus renting one?",
        "Suggest a wine to go with {DISH}.",
        "Is {MONTH} too late to plant garlic?",
        "Explain the rules of cricket in five sentences, as if to a fan of {TEAM}.",
        "We're moving from a flat in {PLACE} to a house with a garden in {MONTH}. Make a checklist for the last two "
        "weeks: utilities, post redirection, cleaning, what to pack first and what to leave for the new owners.",
        "Is {TITLE} suitable for a 12-year-old?",
        "compare {PRODUCT} with the cheaper alternatives, table please",
        "ok now make it rhyme",
        "Why do people say {TOPIC} is hard to explain? Give me an analogy with {DISH}.",
    ],
    "fr": [
        "Ça vaut le coup d'aller à {PLACE} en {MONTH} ou il pleut trop ?",
        "par quoi remplacer la viande dans {DISH} pour une version végé ?",
        "Classe-les pour un dimanche pluvieux : {TITLE}, {TITLE2} ou un jeu de société.",
        "Est-ce que {TEAM} a gagné hier soir ? Juste le score stp.",
        "J'ai acheté {THING} le mois dernier et ça fait un bruit de clic toutes les deux minutes, c'est normal ?",
        "Écris une fiche produit pour {PRODUCT} en moins de 50 mots.",
        "combien de calories à peu près dans {DISH}",
        "Organise trois jours à {PLACE} avec un musée par jour et des adresses pas chères.",
        "Explique-moi {TOPIC} comme à un enfant de dix ans.",
        "Fais la liste de courses pour {DISH} pour six personnes.",
        "Vaut-il mieux acheter {PRODUCT} en {MONTH} ou attendre le Black Friday ?",
        "Résume {TITLE} sans rien dévoiler après le premier acte.",
        "Quelles sont les règles du pourboire à {PLACE} ?",
        "il nous faut un nom d'équipe pour le quiz du bar, un truc sur {TOPIC}",
        "Écris un mot de remerciement aux voisins qui ont gardé le chat en {MONTH}.",
        "Avantages et inconvénients d'acheter {THING} plutôt que de le louer ?",
        "Quel vin servir avec {DISH} ?",
        "Est-ce trop tard pour planter l'ail en {MONTH} ?",
        "Nous quittons un appartement à {PLACE} pour une maison avec jardin en {MONTH}. Fais une checklist des deux "
        "dernières semaines : compteurs, suivi du courrier, ménage, cartons prioritaires et ce qu'on laisse aux "
        "nouveaux propriétaires.",
        "{TITLE}, c'est adapté pour un enfant de 12 ans ?",
        "compare {PRODUCT} avec les alternatives moins chères, en tableau stp",
        "ok maintenant fais rimer",
    ],
    "es": [
        "¿Merece la pena ir a {PLACE} en {MONTH} o llueve demasiado?",
        "¿con qué sustituyo la carne en {DISH} para hacerlo vegetariano?",
        "Ordénalos para un domingo de lluvia: {TITLE}, {TITLE2} o un juego de mesa.",
        "¿Ganó {TEAM} anoche? Solo el resultado, porfa.",
        "Compré {THING} el mes pasado y hace un clic cada pocos minutos, ¿es normal?",
        "Escribe una ficha de producto para {PRODUCT} en menos de 50 palabras.",
        "cuántas calorías tiene más o menos {DISH}",
        "Organiza tres días en {PLACE} con un museo al día y sitios baratos para comer.",
        "Explícame {TOPIC} como si tuviera diez años.",
        "Haz la lista de la compra para {DISH} para seis personas.",
        "¿Compro {PRODUCT} en {MONTH} o espero al Black Friday?",
        "Resume {TITLE} sin destripar nada después del primer acto.",
        "¿Cómo funciona lo de la propina en {PLACE}?",
        "necesitamos un nombre para el equipo del trivial, algo sobre {TOPIC}",
        "Escribe una nota de agradecimiento a los vecinos que cuidaron del gato en {MONTH}.",
        "¿Ventajas e inconvenientes de comprar {THING} en vez de alquilarlo?",
        "¿Qué vino va bien con {DISH}?",
        "¿Es demasiado tarde para plantar ajos en {MONTH}?",
        "Nos mudamos de un piso en {PLACE} a una casa con jardín en {MONTH}. Haz una lista para las dos últimas "
        "semanas: suministros, redirección del correo, limpieza, qué empaquetar primero y qué dejar a los nuevos "
        "dueños.",
        "¿{TITLE} es apta para un niño de 12 años?",
        "compara {PRODUCT} con las alternativas más baratas, en tabla porfa",
        "vale, ahora hazlo con rima",
    ],
}
_CHAT_SLOTS = re.compile(r"\{(PLACE|THING|TOPIC|MONTH|PRODUCT|TEAM|DISH|TITLE2|TITLE)\}")


def chat_free(rng: random.Random, template: str, lang: str) -> str:
    """A PII-free chat message: ``template`` with places, products, dishes, titles... filled."""
    fills = _CHAT_FILL[lang]
    title = rng.choice(fills["TITLE"])
    chosen = {slot: rng.choice(pool) for slot, pool in fills.items()}
    chosen["TITLE"] = title
    chosen["TITLE2"] = rng.choice([t for t in fills["TITLE"] if t != title])
    return _CHAT_SLOTS.sub(lambda m: chosen[m.group(1)], template)


# --- PII-free technical text -------------------------------------------------


def _hex(r: random.Random, k: int) -> str:
    return "".join(r.choice("0123456789abcdef") for _ in range(k))


def _b36(r: random.Random, k: int) -> str:
    return "".join(r.choice(string.ascii_lowercase + string.digits) for _ in range(k))


def _uuid(r: random.Random) -> str:
    return str(uuid.UUID(int=r.getrandbits(128), version=4))


def _sv(r: random.Random) -> str:
    return f"{r.randint(0, 12)}.{r.randint(0, 40)}.{r.randint(0, 25)}"


def _day(r: random.Random) -> str:
    return f"{r.randint(2021, 2027)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}"


def _isbn13(r: random.Random) -> str:
    body = "978" + r.choice(["0", "1", "2", "84", "3"]) + _digits(r, 8)
    body = body[:12]
    check = (10 - sum(int(c) * (1 if i % 2 == 0 else 3) for i, c in enumerate(body)) % 10) % 10
    return f"{body[:3]}-{body[3]}-{body[4:8]}-{body[8:12]}-{check}"


def _ean13(r: random.Random) -> str:
    body = r.choice(["30", "34", "50", "84", "87", "76", "40"]) + _digits(r, 10)
    check = (10 - sum(int(c) * (1 if i % 2 == 0 else 3) for i, c in enumerate(body)) % 10) % 10
    return body + str(check)


_MODS = ["billing", "ingest", "search", "payments", "notify", "reports"]
_RES = ["aws_lambda_function", "aws_sqs_queue", "google_storage_bucket", "azurerm_key_vault", "aws_iam_role"]
_FNS = ["settle_batch", "rotate_keys", "compact_segments", "refresh_rates", "prune_sessions", "emit_invoices"]
_TYPES = ["Invoice", "Shipment", "LedgerEntry", "PriceRule", "Subscription", "Warehouse"]
_PATHS = ["/graphql", "/v2/quotes", "/healthz", "/static/app.9f3c.js", "/v1/embeddings", "/metrics"]
_UA = [
    "okhttp/4.12.0",
    "python-httpx/0.27.2",
    "Go-http-client/2.0",
    "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
    "curl/8.7.1",
]
_MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def _clf_time(r: random.Random) -> str:
    return (
        f"{r.randint(1, 28):02d}/{r.choice(_MON)}/{r.randint(2021, 2027)}:{r.randint(0, 23):02d}:"
        f"{r.randint(0, 59):02d}:{r.randint(0, 59):02d} +0000"
    )


PII_FREE: list[Callable[[random.Random], str]] = [
    # Terraform plan
    lambda r: (
        f"Terraform will perform the following actions:\n\n  # module.{r.choice(_MODS)}.{(res := r.choice(_RES))}.main will be "
        f"created\n  + resource \"{res}\" \"main\" {{\n      + memory_size = {r.choice([128, 256, 512, 1024])}\n"
        f"      + timeout     = {r.randint(3, 900)}\n    }}\n\nPlan: {r.randint(1, 9)} to add, {r.randint(0, 5)} to change, "
        f"{r.randint(0, 3)} to destroy."
    ),
    # Dockerfile
    lambda r: (
        f"FROM python:3.{r.randint(10, 13)}-slim AS build\nWORKDIR /app\nCOPY pyproject.toml uv.lock ./\n"
        f"RUN pip install --no-cache-dir uv=={_sv(r)} && uv sync --frozen --no-dev\nEXPOSE {r.choice([8000, 8080, 9090])}\n"
        f'HEALTHCHECK --interval={r.randint(10, 60)}s CMD curl -fsS http://localhost:8080/healthz || exit 1\nCMD ["uvicorn", "app.main:app"]'
    ),
    # nginx access log, request id instead of client address
    lambda r: (
        f'{_hex(r, 32)} - - [{_clf_time(r)}] "{r.choice(["GET", "POST"])} {r.choice(_PATHS)} HTTP/2.0" '
        f'{r.choice([200, 201, 304, 429, 502])} {r.randint(0, 90000)} "-" "{r.choice(_UA)}" rt={r.randint(0, 4)}.{_digits(r, 3)} '
        f"uct={r.randint(0, 1)}.{_digits(r, 3)}"
    ),
    # Apache error log without client
    lambda r: (
        f"[{r.choice(['Mon', 'Tue', 'Wed', 'Thu'])} {r.choice(_MON)} {r.randint(1, 28):02d} {r.randint(0, 23):02d}:"
        f"{r.randint(0, 59):02d}:{r.randint(0, 59):02d}.{_digits(r, 6)} {r.randint(2021, 2027)}] [proxy_fcgi:error] "
        f"[pid {r.randint(100, 65000)}:tid {r.randint(10**11, 10**12)}] AH01071: Got error 'Primary script unknown'"
    ),
    # Prometheus exposition with a histogram
    lambda r: (
        "# HELP http_request_duration_seconds Request latency.\n# TYPE http_request_duration_seconds histogram\n"
        + "".join(
            f'http_request_duration_seconds_bucket{{route="{r.choice(_PATHS)}",le="{le}"}} {r.randint(0, 10**6)}\n'
            for le in ("0.05", "0.25", "1", "+Inf")
        )
        + f"http_request_duration_seconds_sum {r.randint(100, 99999)}.{_digits(r, 3)}"
    ),
    # GraphQL
    lambda r: (
        f"query {r.choice(_TYPES)}s($status: Status!, $first: Int = {r.randint(10, 200)}) {{\n  "
        f"{r.choice(_TYPES).lower()}s(status: $status, first: $first) {{\n    edges {{ node {{ id total {{ amount currency }} "
        f"createdAt }} }}\n    pageInfo {{ endCursor hasNextPage }}\n  }}\n}}"
    ),
    # protobuf
    lambda r: (
        f'syntax = "proto3";\npackage {r.choice(_MODS)}.v{r.randint(1, 4)};\n\nmessage {r.choice(_TYPES)} {{\n'
        f"  string sku = 1;\n  int64 amount_minor = 2;\n  uint32 quantity = {r.randint(3, 9)};\n  repeated string tags = "
        f"{r.randint(10, 20)};\n}}"
    ),
    # regex question
    lambda r: (
        r.choice(
            [
                r"Why does ^(?<year>\d{4})-(?<month>0[1-9]|1[0-2])-(?<day>\d{2})$ not match ",
                r"Make this regex lazy: <div class=\"(.*)\">(.*)</div> for input ",
                r"Is [A-Z]{3}-\d{4,6}(?:-[a-z]+)? too permissive for ",
            ]
        )
        + f"'{_day(r)}T{r.randint(0, 23):02d}'?"
    ),
    # systemd timer / k8s CronJob schedule
    lambda r: (
        f"[Timer]\nOnCalendar={r.choice(['Mon..Fri', 'Sat,Sun', '*-*-01'])} *-*-* {r.randint(0, 23):02d}:{r.randint(0, 59):02d}:00\n"
        f"RandomizedDelaySec={r.randint(1, 30)}m\nPersistent=true\nUnit={r.choice(_FNS).replace('_', '-')}.service"
    ),
    lambda r: (
        f'kind: CronJob\nspec:\n  schedule: "*/{r.randint(2, 30)} {r.randint(0, 6)}-{r.randint(7, 23)} * * 1-5"\n'
        f"  concurrencyPolicy: Forbid\n  jobTemplate:\n    spec:\n      backoffLimit: {r.randint(0, 6)}"
    ),
    # semver ranges
    lambda r: (
        f'"peerDependencies": {{"react": ">={r.randint(16, 19)}.{r.randint(0, 9)}.0 <{r.randint(20, 21)}", '
        f'"typescript": "~{r.randint(4, 5)}.{r.randint(0, 9)}.{r.randint(0, 9)}", "vite": "^{r.randint(4, 6)}.0.0 || ^{r.randint(7, 8)}.0.0-beta.{r.randint(1, 9)}"}}'
    ),
    # macOS crash report
    lambda r: (
        f"Thread {r.randint(0, 12)} Crashed:: Dispatch queue: com.apple.main-thread\n"
        f"0   libsystem_kernel.dylib        0x{_hex(r, 16)} __pthread_kill + {r.randint(4, 12)}\n"
        f"1   libsystem_c.dylib             0x{_hex(r, 16)} abort + {r.randint(100, 200)}\n"
        f"2   Ledger                        0x{_hex(r, 16)} -[LGRSyncEngine flush:] + {r.randint(20, 900)}"
    ),
    # kernel segfault line
    lambda r: (
        f"[{r.randint(100, 999999)}.{_digits(r, 6)}] {r.choice(_FNS)}[{r.randint(100, 65000)}]: segfault at {_hex(r, 12)} ip "
        f"{_hex(r, 16)} sp {_hex(r, 16)} error {r.choice([4, 6, 14])} in libcrypto.so.3[{_hex(r, 12)}+{_hex(r, 6)}]"
    ),
    # CSV of metrics
    lambda r: (
        "date,region,requests,p95_ms,error_rate\n"
        + "\n".join(
            f"{_day(r)},{r.choice(['eu-west-1', 'us-east-2', 'ap-south-1'])},{r.randint(10**4, 10**8)},{r.randint(20, 900)},0.{_digits(r, 4)}"
            for _ in range(r.randint(2, 4))
        )
    ),
    # diff hunk
    lambda r: (
        f"@@ -{r.randint(10, 400)},7 +{r.randint(10, 400)},9 @@ def {r.choice(_FNS)}(batch):\n"
        f"-    total = sum(line.amount for line in batch)\n+    total = sum((line.amount for line in batch), Decimal(0))\n"
        f'+    if total < 0:\n+        raise ValueError("negative batch")\n     return total'
    ),
    # Makefile
    lambda r: (
        f".PHONY: test lint build\nCFLAGS := -O{r.randint(0, 3)} -Wall\ntest:\n\tpytest -q -x tests/unit -n {r.randint(2, 16)}\n"
        f"lint:\n\truff check src && mypy --strict src\nbuild: $(OBJS)\n\t$(CC) $(CFLAGS) -o $@ $^"
    ),
    # SQL plan
    lambda r: (
        f"Hash Join  (cost={r.randint(1, 99)}.{_digits(r, 2)}..{r.randint(100, 9999)}.{_digits(r, 2)} rows={r.randint(10, 99999)} "
        f"width={r.randint(8, 120)}) (actual time=0.{_digits(r, 3)}..{r.randint(1, 999)}.{_digits(r, 3)} rows={r.randint(10, 99999)} loops=1)\n"
        f"  Hash Cond: (o.account_id = a.id)\n  ->  Seq Scan on orders o  (cost=0.00..{r.randint(100, 9999)}.00 rows={r.randint(1000, 10**6)})\n"
        f"Planning Time: 0.{_digits(r, 3)} ms\nExecution Time: {r.randint(1, 9999)}.{_digits(r, 3)} ms"
    ),
    # currency amounts
    lambda r: (
        f"Q{r.randint(1, 4)} revenue: €{r.randint(1, 999)}.{_digits(r, 3)}.{_digits(r, 3)},{_digits(r, 2)} (+{r.randint(0, 9)},{r.randint(0, 9)} %), "
        f"US${r.randint(1, 999)},{_digits(r, 3)}.{_digits(r, 2)}, ¥{r.randint(1, 99)},{_digits(r, 3)},000; EUR/USD 1.{_digits(r, 4)}"
    ),
    # ISBN
    lambda r: (
        f"ISBN {_isbn13(r)} (paperback, {r.randint(2, 9)}th edition, {r.randint(120, 980)} pages) - reorder {r.randint(2, 40)} copies"
    ),
    # ticket ids
    lambda r: (
        f"{r.choice(['PAY', 'INFRA', 'MOB', 'WEB'])}-{r.randint(100, 9999)} blocked by {r.choice(['INFRA', 'SEC'])}-{r.randint(100, 9999)}; "
        f"Zendesk #{r.randint(10**5, 10**7)}, ServiceNow INC{_digits(r, 7)}, PagerDuty P{_b36(r, 6).upper()}"
    ),
    # hashes
    lambda r: f"b3sum {_hex(r, 64)}  dist/app-{_sv(r)}.whl\nsha1 {_hex(r, 40)}  dist/app-{_sv(r)}.tar.gz",
    # GitHub Actions
    lambda r: (
        f"on:\n  push:\n    branches: [main]\njobs:\n  test:\n    runs-on: ubuntu-{r.choice(['22.04', '24.04'])}\n    timeout-minutes: "
        f"{r.randint(5, 60)}\n    steps:\n      - uses: actions/checkout@v4\n      - uses: astral-sh/setup-uv@v{r.randint(3, 6)}\n      - run: make test"
    ),
    # Helm values
    lambda r: (
        f"resources:\n  limits:\n    cpu: {r.randint(1, 20) * 100}m\n    memory: {r.randint(1, 32) * 128}Mi\nautoscaling:\n  "
        f"minReplicas: {r.randint(1, 3)}\n  maxReplicas: {r.randint(4, 40)}\n  targetCPUUtilizationPercentage: {r.randint(50, 90)}"
    ),
    # Ansible task
    lambda r: (
        f"- name: Ensure {(pkg := r.choice(['chrony', 'nftables', 'logrotate']))} is installed\n  ansible.builtin.apt:\n    name: "
        f"{pkg}\n    state: present\n    cache_valid_time: {r.randint(600, 86400)}\n  become: true"
    ),
    # pyproject
    lambda r: (
        f'[project]\nname = "{r.choice(_MODS)}-sync"\nversion = "{_sv(r)}"\nrequires-python = ">=3.{r.randint(9, 12)}"\n'
        f'dependencies = ["httpx>={_sv(r)}", "orjson~={r.randint(3, 4)}.{r.randint(0, 10)}"]'
    ),
    # go.mod
    lambda r: (
        f"module github.com/acme/{r.choice(_MODS)}\n\ngo 1.{r.randint(20, 23)}\n\nrequire (\n\tgolang.org/x/sync v0.{r.randint(1, 9)}.0\n"
        f"\tgoogle.golang.org/grpc v1.{r.randint(50, 68)}.{r.randint(0, 3)}\n)"
    ),
    # systemd unit
    lambda r: (
        f"[Unit]\nDescription={r.choice(_MODS)} worker\nAfter=network-online.target\n\n[Service]\nExecStart=/opt/{r.choice(_MODS)}/bin/worker "
        f"--concurrency {r.randint(1, 64)}\nRestart=on-failure\nMemoryMax={r.randint(1, 16)}G"
    ),
    # OOM kill
    lambda r: (
        f"kernel: Out of memory: Killed process {r.randint(100, 99999)} (java) total-vm:{r.randint(10**6, 10**8)}kB, "
        f"anon-rss:{r.randint(10**6, 10**7)}kB, file-rss:0kB, shmem-rss:0kB, UID:{r.randint(100, 2000)} oom_score_adj:{r.randint(0, 999)}"
    ),
    # Redis INFO
    lambda r: (
        f"# Memory\nused_memory:{r.randint(10**6, 10**10)}\nused_memory_human:{r.randint(1, 999)}.{_digits(r, 2)}M\n"
        f"maxmemory_policy:allkeys-lru\nmem_fragmentation_ratio:1.{_digits(r, 2)}"
    ),
    # consumer lag
    lambda r: (
        f"GROUP              TOPIC          PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG\n{r.choice(_MODS)}-consumers  "
        f"{r.choice(_TYPES).lower()}s.v1   {r.randint(0, 11)}          {r.randint(10**6, 10**8)}        {r.randint(10**6, 10**8)}        {r.randint(0, 5000)}"
    ),
    # kubectl events
    lambda r: (
        f"Events:\n  Type     Reason     Age                From     Message\n  ----     ------     ----               ----     -------\n"
        f"  Warning  BackOff    {r.randint(1, 59)}m (x{r.randint(2, 90)} over {r.randint(1, 5)}h)  kubelet  Back-off restarting failed container "
        f"{r.choice(_MODS)} in pod {r.choice(_MODS)}-{_hex(r, 10)}-{_b36(r, 5)}"
    ),
    # OpenAPI
    lambda r: (
        f"paths:\n  /v{r.randint(1, 3)}/{r.choice(_TYPES).lower()}s/{{id}}:\n    get:\n      operationId: get{r.choice(_TYPES)}\n      "
        f"responses:\n        '200':\n          description: OK\n        '404':\n          description: Not found"
    ),
    # JSON Schema
    lambda r: (
        f'{{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "required": ["sku", "qty"], '
        f'"properties": {{"sku": {{"type": "string", "pattern": "^[A-Z]{{3}}-[0-9]{{{r.randint(3, 8)}}}$"}}, "qty": {{"type": "integer", '
        f'"minimum": 1, "maximum": {r.randint(10, 10000)}}}}}}}'
    ),
    # Rust panic
    lambda r: (
        f"thread 'tokio-runtime-worker' panicked at src/{r.choice(_MODS)}/{r.choice(_FNS)}.rs:{r.randint(10, 900)}:{r.randint(1, 80)}:\n"
        f"called `Option::unwrap()` on a `None` value\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"
    ),
    # JVM GC log
    lambda r: (
        f"[{_day(r)}T{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}.{_digits(r, 3)}+0000][gc] GC({r.randint(1, 99999)}) "
        f"Pause Young (Normal) (G1 Evacuation Pause) {r.randint(500, 4000)}M->{r.randint(100, 499)}M({r.choice([2048, 4096, 8192])}M) "
        f"{r.randint(1, 80)}.{_digits(r, 3)}ms"
    ),
    # df -h
    lambda r: (
        f"Filesystem      Size  Used Avail Use% Mounted on\n/dev/nvme{r.randint(0, 3)}n1p{r.randint(1, 4)}  {r.randint(50, 2000)}G  "
        f"{r.randint(10, 49)}G  {r.randint(10, 1900)}G  {r.randint(1, 99)}% /var/lib/{r.choice(['docker', 'postgresql', 'containerd'])}"
    ),
    # ls -l
    lambda r: (
        f"-rw-r----- 1 root adm {r.randint(1000, 10**8)} {r.choice(_MON)} {r.randint(1, 28):2d} {r.randint(0, 23):02d}:{r.randint(0, 59):02d} "
        f"syslog.{r.randint(1, 9)}.gz\ndrwxr-x--- 2 www-data www-data 4096 {r.choice(_MON)} {r.randint(1, 28):2d} {r.randint(2021, 2026)} cache"
    ),
    # LaTeX
    lambda r: (
        f"\\begin{{align}}\n  f(x) &= \\sum_{{k=0}}^{{{r.randint(2, 60)}}} \\binom{{n}}{{k}} x^k (1-x)^{{n-k}} \\\\\n  "
        f"\\int_0^1 f(x)\\,dx &\\approx {r.randint(0, 9)}.{_digits(r, 4)}\n\\end{{align}}"
    ),
    # assembly
    lambda r: (
        f"mov rax, qword ptr [rbp - 0x{_hex(r, 2)}]\nadd rax, 0x{_hex(r, 2)}\ncall 0x{_hex(r, 6)} <_ZN6ledger{r.randint(4, 9)}settleEv>\n"
        f"test eax, eax\njne 0x{_hex(r, 6)}"
    ),
    # CSS
    lambda r: (
        f".btn-{r.choice(['primary', 'ghost', 'danger'])} {{ padding: 0.{r.randint(2, 9)}rem {r.randint(1, 2)}.{r.randint(0, 9)}rem; "
        f"border-radius: {r.randint(2, 12)}px; background: #{_hex(r, 6)}; transition: opacity {r.randint(100, 400)}ms ease-in; }}"
    ),
    # SVG path
    lambda r: (
        f'<svg viewBox="0 0 24 24"><path d="M{r.randint(1, 20)} {r.randint(1, 20)}L2 7l10 5 10-5-10-5zm0 {r.randint(10, 16)}.5L4.5 11 2 12.5l10 5 '
        f'10-5-2.5-1.5L12 15.5z" fill="#{_hex(r, 6)}"/></svg>'
    ),
    # HTTP response headers
    lambda r: (
        f"HTTP/2 429\ncontent-type: application/json\nretry-after: {r.randint(1, 60)}\nx-ratelimit-remaining-requests: 0\n"
        f"x-ratelimit-reset-tokens: {r.randint(1, 59)}s\nx-request-id: req_{_b36(r, 24)}"
    ),
    # iCalendar recurrence
    lambda r: (
        f"DTSTART;TZID=Europe/{r.choice(['Paris', 'Madrid', 'Dublin'])}:{_day(r).replace('-', '')}T{r.randint(7, 18):02d}0000\n"
        f"RRULE:FREQ={r.choice(['WEEKLY', 'MONTHLY'])};BYDAY={r.randint(1, 4)}{r.choice(['MO', 'TU', 'TH'])};COUNT={r.randint(2, 52)}"
    ),
    # EAN-13 stock lines
    lambda r: (
        f"EAN {_ean13(r)} x {r.randint(1, 48)} @ {r.randint(0, 99)}.{_digits(r, 2)} EUR\nEAN {_ean13(r)} x {r.randint(1, 48)} @ "
        f"{r.randint(0, 99)}.{_digits(r, 2)} EUR"
    ),
    # user agents / browser matrix
    lambda r: (
        f"Top user agents last {r.randint(2, 30)}d: {r.choice(_UA)} ({r.randint(1, 60)}%), {r.choice(_UA)} ({r.randint(1, 30)}%), "
        f"Dalvik/2.1.0 (Linux; U; Android {r.randint(10, 15)}) ({r.randint(1, 20)}%)"
    ),
    # DOI / arXiv references
    lambda r: (
        f"See doi:10.{r.choice([1145, 1109, 1016])}/{r.choice(['TPDS', 'j.future', '3600006'])}.{r.randint(2019, 2026)}.{_digits(r, 7)} "
        f"and arXiv:{r.randint(19, 26)}{r.randint(1, 12):02d}.{_digits(r, 5)}v{r.randint(1, 4)} for the benchmark setup."
    ),
    # feature flags
    lambda r: (
        f'{{"flag": "{r.choice(_FNS)}_v{r.randint(2, 5)}", "rollout": {r.randint(0, 100)}, "segments": ["beta", "internal"], '
        f'"updated_at": "{_day(r)}T{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:00Z", "kill_switch": false}}'
    ),
    # spreadsheet formula
    lambda r: (
        f"=IFERROR(VLOOKUP(B{r.randint(2, 999)},Rates!$A$2:$C${r.randint(100, 5000)},3,FALSE),0)*D{r.randint(2, 999)} "
        f"- why does this return #N/A for row {r.randint(2, 999)}?"
    ),
    # web vitals
    lambda r: (
        f"LCP {r.randint(1, 5)}.{_digits(r, 2)} s, INP {r.randint(40, 600)} ms, CLS 0.{_digits(r, 2)} (p75, mobile, {r.randint(7, 28)}-day window, "
        f"{r.randint(1000, 10**6)} page views)"
    ),
    # time zones
    lambda r: (
        f"Release window: {r.randint(10, 20)}:00 UTC = {r.randint(10, 21)}:00 CET = {r.randint(4, 14)}:00 EST "
        f"({_day(r)}, freeze starts T-{r.randint(2, 72)}h)"
    ),
]  # fmt: skip


def generate(rng_seed: int = SEED) -> dict[str, list[dict]]:
    """The v4 frozen files' records, keyed by file name."""
    out: dict[str, list[dict]] = {}
    sizes = {"en": (400, 140), "fr": (240, 110), "es": (240, 110)}
    for offset, (lang, (n_pii, n_free)) in enumerate(sizes.items()):
        rng = random.Random(rng_seed + offset)
        templates, free = TEMPLATES[lang], CHAT_FREE[lang]
        records = []
        for i in range(n_pii):
            text, entities = fill(templates[i % len(templates)], rng, lang)
            records.append({"id": f"v4{lang}{i + 1:04d}", "lang": lang, "text": text, "entities": entities})
        for i in range(n_free):
            text = chat_free(rng, free[i % len(free)], lang)
            records.append({"id": f"v4{lang}f{i + 1:04d}", "lang": lang, "text": text, "entities": []})
        out[f"heldout-{lang}.jsonl"] = records
    rng = random.Random(rng_seed + 100)
    out["pii_free.jsonl"] = [
        {"id": f"v4t{i + 1:04d}", "lang": "en", "text": PII_FREE[i % len(PII_FREE)](rng), "entities": []}
        for i in range(480)
    ]
    return out


def render(records: list[dict]) -> bytes:
    """The JSONL bytes of ``records`` (one object a line, UTF-8, no ASCII escaping)."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("frozen_v4"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    sums = []
    for name, records in sorted(generate().items()):
        data = render(records)
        (args.out / name).write_bytes(data)
        sums.append(f"{hashlib.sha256(data).hexdigest()}  {name}\n")
        print(f"wrote {len(records)} records to {args.out / name}")
    (args.out / "SHA256SUMS").write_text("".join(sums), encoding="utf-8")


if __name__ == "__main__":
    main()
