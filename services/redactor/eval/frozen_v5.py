"""The FROZEN held-out evaluation set **v5** (issue 11, fifth held-out round).

Written blind, by a hand that neither read the detector's rules nor ran the
detector (or ``evaluate.py``) on any text, and committed before anyone
measured it. v1 (``frozen.py``), v2 (``frozen_v2.py``), v3 (``frozen_v3.py``)
and v4 (``frozen_v4.py``) are *spent*: their results were known while later
rounds were tuned, so they count as tuning material now. v5 is the current
held-out set: it is measured once, by the lead.

Self-contained on purpose: imports nothing from ``generate.py``,
``tuning.py``, ``round6.py`` or the earlier frozen generators, so growing the
tuning set can never change these files. Its templates and value pools (names,
e-mail domains, phone layouts, NANP area codes, IBAN countries, card values,
streets and towns, PII-free chat templates and fills, technical kinds) are new;
``tests/unit/test_eval_frozen.py`` checks the pools and every planted value
are disjoint from every earlier generator's pools and every earlier labelled
value (v1-v4, tuning, samples), that every gold span is sound (offsets, no
overlap, phones valid for ``phonenumbers``, cards Luhn-valid in 12-19 digits,
IBAN check digits and registry lengths), that the PII-free texts hold no IP
address, MAC address, e-mail address or v5 name, that
``eval/frozen_v5/SHA256SUMS`` pins the committed files, and that this script
reproduces them byte for byte.

Rules for whoever tunes the detector: ``evaluate.py --frozen-v5`` reports on
these files; ``evaluate.py`` refuses ``--misses`` on them, so no individual
miss or false positive is read and fixed. Nobody reads the results before the
lead's single measurement.

Files (JSONL, ``{"id", "lang", "text", "entities": [{"type", "start", "end",
"value"}]}``, code point offsets) in ``eval/frozen_v5/``:

- ``heldout-en.jsonl`` (400 messages with PII + 140 PII-free chat messages),
  ``heldout-fr.jsonl`` and ``heldout-es.jsonl`` (240 + 110 each): what a
  gateway carries -- support tickets with a requester block, CRM exports
  (CSV with a header, pipe-separated dumps), e-mails with signatures and
  quoted replies, chat transcripts with handles and timestamps, JSON tool-call
  arguments, YAML and TOML configs of a contact, markdown tables, web forms,
  shipping labels and invoices with multi-line address blocks, SEPA mandates,
  HR and clinic records, SMS threads, git trailers, log lines with a
  customer's data -- with names of many origins in every position and in the
  forms people write (lower case, ALL CAPS, initials, ``Last, First``,
  ``LAST First``, titles, hyphenated, particles, two Spanish surnames);
  phones in layouts valid for ``phonenumbers`` in 32 regions; Luhn-valid cards
  of real issuer ranges (12-19 digits, spaces, dashes or none); IBANs of 18
  registry countries not used before; street addresses in each country's own
  layout; and PII-free chat on everyday topics.
- ``pii_free.jsonl`` (480): technical text of kinds no earlier set used (see
  ``PII_FREE``): any detection is a false positive. No IP or MAC addresses, no
  e-mail addresses, no names of people, no Luhn-valid digit runs of card
  length.

Gold conventions (as in v4): a title (``Dr``, ``Mme``, ``Sra.``) is not part
of a PERSON span; a possessive ``'s`` is not either; ``Last, First``,
``LAST First`` and initials (``K. Mwangi``) are one span; a multi-line address
is one STREET_ADDRESS span including its line breaks; a PO-box line with its
town is a STREET_ADDRESS.

Usage: ``python services/redactor/eval/frozen_v5.py [--out DIR]`` (seed 771903).
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

SEED = 771903

# --- names -------------------------------------------------------------------

NAMES = {
    "en": {
        "first": (
            "Aoibheann Nyambura Kiprono Xiu-Ying Zi-Hao Ragnhild Evie-Rose Ugochukwu Ebere Olumide "
            "Efua Akua Mbali Sizwe Lerato Naledi Prakash Lalitha Sudhir Vaishnavi Anirudh Jaspreet "
            "Navdeep Shabnam Nusrat Tanvir Daisuke Bich Duy Hieu Przemysław Małgorzata Zdeněk "
            "Jarmila Goran Snežana Tiina Jouni Maarten Wieke Ionela Yitzhak Ofra Thanasis Kalliope "
            "Hemi Rawiri Siosaia Briallen Caradoc Lowenna Kerensa Araminta Fenella Cormac Ailbhe "
            "Sorcha Eoghan Mhairi Struan"
        ).split(),
        "last": (
            "Onwuachi Adewale Asante Agyemang Kiplagat Chege Sithole Naidoo Raghavan Subramanian "
            "Chakraborty Banerjee Dasgupta Mukherjee Majumder Watanabe Inoue Wróblewski Szymańska "
            "Lewandowska Novotná Jovanović Ionescu Dumitrescu Sandberg Hakkarainen Leinonen Visser "
            "Karagiannis Christodoulou Khoury Saliba Hennessy Brennan-Kaye Moriarty Penhaligon "
            "Tregothnan Ruatapu Taufa Fa'asavalu MacIsaac McGillivray"
        ).split()
        + ["van Rensburg", "ter Horst", "Al-Sayegh", "Ní Bhriain", "da Cunha", "Ó Ceallaigh"],
    },
    "fr": {
        "first": (
            "Ombeline Clothilde Théophile Anatole Eugénie Erwan Awa Ibrahima Khadija Salimata Cheikh "
            "Samia Thiên Enguerrand Philippine Wassim Djibril Aliénor Sixtine Aymeric Tancrède "
            "Gwendal Brieuc Nolwenn Soazig Ysaline Mariama Boubacar Aïssata Houria Nadir Lounès"
        ).split(),
        "last": (
            "Kervella Prigent Jaouen Cadiou Lozach Mével Rouxel Vautrin Sow Cissé Ouédraogo Bouzid "
            "Chérif Lemaître-Aubépin Fauconnier Brissac Hautecœur Ropars Kerjean Thépaut "
            "Quillivic Gourmelon Bénézech Aubrespy Sawadogo Kaboré Ndour Belkacem"
        ).split()
        + ["Le Floc'h", "Le Cornec", "de Montbrison", "du Bellay", "d'Harcourt", "de la Tourette"],
    },
    "es": {
        "first": (
            "Iñaki Garazi Amaia Oriol Arnau Roser Uxío Antía Breogán Yaretzi Maximiliano Renata "
            "Fermín Eusebio Lucrecia Nayeli Anahí Ander Ibai Maialen Txomin Jordina Queralt Bieito "
            "Xoán Iria Yamileth Wenceslao Teodora Anselmo Milagros Edelmira"
        ).split(),
        "last": (
            "Zubizarreta Olaizola Garmendia Ferrer Pujol Couto Lamas Barreiro Paredes Cisneros "
            "Condori Choque Apaza Ticona Oyarzún Fuenzalida Bermúdez Aranburu Larrañaga Casademont "
            "Rovira Vilanova Outeiro Ledesma Huarachi Llanquileo Antileo Sarmiento Arismendi"
        ).split()
        + ["de Arteaga", "de las Heras", "Ponce de León", "del Olmo"],
    },
}
# Surname particles (van Rensburg, de las Heras, Ní Bhriain): not name tokens on their own when
# the test compares name pools.
PARTICLES = ("van", "ter", "de", "del", "las", "du", "la", "le", "al", "ní", "da", "ó")


def person(rng: random.Random, lang: str, full: bool = False) -> tuple[str, str]:
    """``(first, last)``: ``last`` is empty for a first name alone (7 %, never when ``full``).

    Spanish names get two surnames 40 % of the time.
    """
    pool = NAMES[lang]
    first, last = rng.choice(pool["first"]), rng.choice(pool["last"])
    if not full and rng.random() < 0.07:
        return first, ""
    if lang == "es" and rng.random() < 0.4:
        return first, f"{last} {rng.choice([n for n in pool['last'] if n != last])}"
    return first, last


def _name(p: tuple[str, str]) -> str:
    return f"{p[0]} {p[1]}" if p[1] else p[0]


def _initials(p: tuple[str, str]) -> str:
    """``K. Mwangi``; a hyphenated first name gives ``J.-E. Kervella``."""
    first = "-".join(f"{part[0]}." for part in p[0].split("-"))
    return f"{first} {p[1]}"


DOMAINS = {
    "en": [
        "iinet.net.au",
        "shaw.ca",
        "talktalk.net",
        "optusnet.com.au",
        "mweb.co.za",
        "unimelb.edu.au",
        "uct.ac.za",
        "brackenridge-surveyors.co.uk",
        "tidewater-orthodontics.com",
        "plus.net",
        "earthlink.net",
        "frontier.com",
    ],
    "fr": [
        "hotmail.fr",
        "live.fr",
        "voila.fr",
        "netcourrier.com",
        "sympatico.ca",
        "univ-rennes.fr",
        "ac-toulouse.fr",
        "cabinet-lefrancq-avocats.fr",
        "pt.lu",
    ],
    "es": [
        "outlook.es",
        "live.com.mx",
        "vtr.net",
        "speedy.com.ar",
        "etb.net.co",
        "uc.cl",
        "upv.es",
        "ehu.eus",
        "notaria-ribadeo.es",
    ],
}


def _ascii(s: str) -> str:
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode()


def email(rng: random.Random, p: tuple[str, str], lang: str) -> str:
    """An address built from person ``p`` on one of ``lang``'s v5 domains."""
    first = re.sub(r"[^a-z]", "", _ascii(p[0]).lower())
    if not p[1]:
        return (
            f"{first}{rng.choice(['.work', '_' + str(rng.randint(10, 99)), 'x'])}@{rng.choice(DOMAINS[lang])}"
        )
    # the first surname (of two, in Spanish), particles glued on: van Rensburg -> vanrensburg
    surname = max((s for s in NAMES[lang]["last"] if p[1] == s or p[1].startswith(s + " ")), key=len)
    last = re.sub(r"[^a-z]", "", _ascii(surname).lower())
    local = rng.choice(
        [
            f"{first}.{last}",
            f"{first}-{last}",
            f"{first[0]}.{last}",
            f"{last}{first[0]}",
            f"{last}-{first}",
            f"{first}{last[0]}{rng.randint(1, 99)}",
            f"{first}.{last}+{rng.choice(['billing', 'travel', 'school', 'orders'])}",
            f"{last.upper()}.{first[0].upper()}",
        ]
    )
    return f"{local}@{rng.choice(DOMAINS[lang])}"


# --- phones ------------------------------------------------------------------


def _digits(rng: random.Random, k: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(k))


_US_AREAS = ["406", "479", "605", "701", "802", "207", "603", "304", "515", "775", "928", "252"]
_CA_AREAS = ["709", "306", "204", "867"]
_QC_AREAS = ["581", "873"]
_CARIB_AREAS = {"JM": "876", "DO": "809", "PR": "787"}


def _exchange(rng: random.Random) -> str:
    while True:
        x = rng.randint(212, 989)
        if x % 100 != 11 and x != 555 and x // 10 != 95 and str(x)[1:] != "00":
            return str(x)


# Every layout with the region its numbers are valid in (checked by the test with
# ``phonenumbers.is_valid_number``); the test also checks each planted number's digit shape
# (digits masked as 9) is one no earlier set used.
def _phone_layouts(rng: random.Random) -> dict[str, list[tuple[str, Callable[[], str]]]]:
    d = lambda k: _digits(rng, k)  # noqa: E731
    x = lambda: _exchange(rng)  # noqa: E731
    pick = rng.choice
    return {
        "en": [
            ("US", lambda: f"1 {pick(_US_AREAS)}-{x()}-{d(4)}"),
            ("US", lambda: f"+1 {pick(_US_AREAS)}-{x()}-{d(4)}"),
            ("US", lambda: f"+1 ({pick(_US_AREAS)}) {x()}.{d(4)}"),
            ("US", lambda: f"+1 ({pick(_US_AREAS)})-{x()}-{d(4)}"),
            ("CA", lambda: f"1 {pick(_CA_AREAS)} {x()} {d(4)}"),
            ("JM", lambda: f"+1-876-{pick('348')}{d(2)} {d(4)}"),
            ("GB", lambda: f"+44 (0)20 3{d(3)}-{d(4)}"),
            ("GB", lambda: f"+44 (0) 7{pick('89')}{d(2)}-{d(6)}"),
            ("NZ", lambda: f"+64 (0)21-{d(3)}-{d(4)}"),
            ("NZ", lambda: f"+64 9 3{d(2)} {d(4)}"),
            ("GH", lambda: f"+233 (0)24-{d(3)}-{d(4)}"),
            ("UG", lambda: f"+256-77{pick('0123456789')}-{d(6)}"),
            ("MY", lambda: f"+60 12-{d(3)} {d(4)}"),
            ("PK", lambda: f"+92 (300) {d(7)}"),
            ("HK", lambda: f"+852-6{pick('13459')}{d(2)}-{d(4)}"),
            ("ZA", lambda: f"+27 (0)21 {pick('4679')}{d(2)}-{d(4)}"),
        ],
        "fr": [
            ("FR", lambda: f"0033 (0)6.{d(2)}.{d(2)}.{d(2)}.{d(2)}"),
            ("FR", lambda: f"+33 (0)1.4{d(1)}.{d(2)}.{d(2)}.{d(2)}"),
            ("FR", lambda: f"+33 (0) 7-{pick('56789')}{d(1)}-{d(2)}-{d(2)}-{d(2)}"),
            ("LU", lambda: f"+352 6{pick(['21', '28', '61', '91'])}-{d(3)}-{d(3)}"),
            ("MC", lambda: f"+377 6 {d(2)} {d(2)} {d(2)} {d(2)}"),
            ("CM", lambda: f"+237 6 {pick('79')}{d(1)} {d(2)} {d(2)} {d(2)}"),
            ("MA", lambda: f"+212 (0)6 {pick('1256')}{d(1)} {d(2)} {d(2)} {d(2)}"),
            ("MG", lambda: f"+261 34 {d(2)} {d(3)} {d(2)}"),
            ("HT", lambda: f"+509 3{pick('4678')} {d(2)} {d(4)}"),
            ("ML", lambda: f"+223 7{pick('0123456')} {d(2)} {d(2)} {d(2)}"),
            ("BE", lambda: f"+32 (0)2 {pick('2345')}{d(2)} {d(2)} {d(2)}"),
            ("CH", lambda: f"022/{pick('37')}{d(2)} {d(2)} {d(2)}"),
            ("CA", lambda: f"+1 ({pick(_QC_AREAS)}) {x()}.{d(4)}"),
        ],
        "es": [
            ("ES", lambda: f"+34 (91) {d(3)} {d(2)} {d(2)}"),
            ("ES", lambda: f"(+34) 6{d(2)}-{d(3)}-{d(3)}"),
            ("ES", lambda: f"+34 6{d(2)}-{d(2)}-{d(2)}-{d(2)}"),
            ("PE", lambda: f"+51 (9{d(2)}) {d(3)} {d(3)}"),
            ("PE", lambda: f"(01) {pick('2345')}{d(2)}-{d(4)}"),
            ("CL", lambda: f"+56 9 6{pick('012345678')}{d(2)}-{d(4)}"),
            ("PA", lambda: f"(+507) 6{d(3)}-{d(4)}"),
            ("HN", lambda: f"+504-9{d(3)}-{d(4)}"),
            ("DO", lambda: f"1 (809) {x()} {d(4)}"),
            ("PR", lambda: f"+1 787-{x()}-{d(4)}"),
            ("NI", lambda: f"(+505) 8{d(3)} {d(4)}"),
            ("CU", lambda: f"+53 5 {d(3)} {d(4)}"),
            ("MX", lambda: f"+52 (33) {d(4)} {d(4)}"),
            ("AR", lambda: f"+54 11 4{d(3)}-{d(4)}"),
        ],
    }


PHONE_REGIONS = {
    "en": ("US", "CA", "JM", "GB", "NZ", "GH", "UG", "MY", "PK", "HK", "ZA"),
    "fr": ("FR", "LU", "MC", "CM", "MA", "MG", "HT", "ML", "BE", "CH", "CA"),
    "es": ("ES", "PE", "CL", "PA", "HN", "DO", "PR", "NI", "CU", "MX", "AR"),
}


def phone(rng: random.Random, lang: str) -> str:
    """A phone number in one of ``lang``'s v5 layouts (real numbering-plan prefixes)."""
    _, make = rng.choice(_phone_layouts(rng)[lang])
    return make()


# --- cards -------------------------------------------------------------------


def _luhn(body: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(body)):
        n = int(ch) * (2 if i % 2 == 0 else 1)
        total += n - 9 if n > 9 else n
    return body + str((10 - total % 10) % 10)


def _luhn_valid(number: str) -> bool:
    return _luhn(number[:-1]) == number


# (network, prefix generator, lengths): issuer ranges (ISO/IEC 7812 IINs) as the networks publish them
_CARD_RANGES: list[tuple[str, Callable[[random.Random], str], list[int]]] = [
    ("visa", lambda r: "4", [16, 16, 19, 13]),
    ("visa-electron", lambda r: r.choice(["4026", "417500", "4508", "4844", "4913", "4917"]), [16]),
    ("mastercard", lambda r: str(r.randint(51, 55)), [16]),
    ("mastercard-2", lambda r: str(r.randint(2221, 2720)), [16]),
    ("amex", lambda r: r.choice(["34", "37"]), [15]),
    ("discover", lambda r: r.choice(["6011", "65", str(r.randint(644, 649))]), [16, 19]),
    ("jcb", lambda r: str(r.randint(3528, 3589)), [16, 19]),
    ("unionpay", lambda r: r.choice(["62", str(r.randint(8100, 8171))]), [16, 19]),
    ("maestro", lambda r: r.choice(["6304", "5018", "5020", "5038", "6761", "6763"]), [12, 15, 16, 19]),
    ("diners", lambda r: r.choice(["36", "38", "39", "3095"]), [14, 16]),
    ("elo", lambda r: r.choice(["636368", "438935", "504175", "451416", "509048"]), [16]),
    ("hipercard", lambda r: "606282", [16]),
    ("dankort", lambda r: "5019", [16]),
    ("uatp", lambda r: "1", [15]),
    ("mir", lambda r: str(r.randint(2200, 2204)), [16, 19]),
    ("bc-card", lambda r: "6541", [16]),
]


def card(rng: random.Random) -> str:
    """A Luhn-valid card number of a real issuer range, grouped as printed or typed."""
    _, prefix_of, lengths = rng.choice(_CARD_RANGES)
    prefix = prefix_of(rng)
    length = rng.choice(lengths)
    number = _luhn(prefix + _digits(rng, length - len(prefix) - 1))
    sep = rng.choice([" ", " ", "-", "", "  "]) if length != 12 else rng.choice([" ", ""])
    if length == 15 and prefix[0] == "3":  # Amex 4-6-5
        groups = [number[:4], number[4:10], number[10:]]
    elif length == 15:  # UATP 4-5-6
        groups = [number[:4], number[4:9], number[9:]]
    elif length == 14:  # Diners 4-6-4
        groups = [number[:4], number[4:10], number[10:]]
    elif length == 19 and rng.random() < 0.4:  # 6-13, as some UnionPay and Maestro cards print it
        groups = [number[:6], number[6:]]
    else:
        groups = [number[i : i + 4] for i in range(0, length, 4)]
    return sep.join(groups)


# --- IBANs -------------------------------------------------------------------

# BBAN layouts of the SWIFT IBAN registry: n digits, a upper-case letters.
# ``fixed`` countries print one check value for every account (their national key makes
# it so): the last two BBAN digits are chosen to give it.
_IBAN_BBAN: dict[str, tuple[Callable[[Callable[[int], str], Callable[[int], str]], str], str | None]] = {
    "GE": (lambda d, a: a(2) + d(16), None),
    "AZ": (lambda d, a: a(4) + d(20), None),
    "KZ": (lambda d, a: d(3) + d(13), None),
    "PK": (lambda d, a: a(4) + d(16), None),
    "QA": (lambda d, a: a(4) + d(21), None),
    "KW": (lambda d, a: a(4) + d(22), None),
    "JO": (lambda d, a: a(4) + d(4) + d(18), None),
    "BH": (lambda d, a: a(4) + d(14), None),
    "XK": (lambda d, a: d(4) + d(10) + d(2), None),
    "AL": (lambda d, a: d(8) + d(16), None),
    "EG": (lambda d, a: d(4) + d(4) + d(17), None),
    "VG": (lambda d, a: a(4) + d(16), None),
    "DJ": (lambda d, a: d(5) + d(5) + d(11) + d(2), None),
    "BI": (lambda d, a: d(5) + d(5) + d(11) + d(2), None),
    "SC": (lambda d, a: a(4) + d(2) + d(2) + d(16) + "SCR", None),
    "MK": (lambda d, a: d(3) + d(10), "07"),
    "RS": (lambda d, a: d(3) + d(13), "35"),
    "ME": (lambda d, a: d(3) + d(13), "25"),
    "NI": (lambda d, a: a(4) + d(20), None),
    "BR": (lambda d, a: d(8) + d(5) + d(10) + ("C" if d(1) < "5" else "P") + "1", None),
    "SM": (lambda d, a: a(1) + d(5) + d(5) + d(12), None),
    "VA": (lambda d, a: d(3) + d(15), None),
    "BA": (lambda d, a: d(3) + d(3) + d(8), "39"),
    "TL": (lambda d, a: d(3) + d(14), "38"),
}
_IBAN_COUNTRIES = {
    "en": ["GE", "AZ", "KZ", "PK", "QA", "KW", "JO", "BH", "XK", "AL", "EG", "VG"],
    "fr": ["DJ", "BI", "SC", "MK", "RS", "ME"],
    "es": ["NI", "BR", "SM", "VA", "BA", "TL"],
}


def _iban_check(country: str, bban: str) -> str:
    numeric = "".join(str(int(c, 36)) for c in bban + country + "00")
    return f"{98 - int(numeric) % 97:02d}"


def iban(rng: random.Random, countries: list[str]) -> str:
    """A check-digit-valid IBAN of one of ``countries``: grouped by 4 (55 %), compact, or dashed."""
    country = rng.choice(countries)
    d = lambda k: _digits(rng, k)  # noqa: E731
    a = lambda k: "".join(rng.choice(string.ascii_uppercase) for _ in range(k))  # noqa: E731
    layout, fixed = _IBAN_BBAN[country]
    bban = layout(d, a)
    if fixed is not None:
        bban = next(b for b in (bban + f"{k:02d}" for k in range(100)) if _iban_check(country, b) == fixed)
    code = f"{country}{_iban_check(country, bban)}{bban}"
    roll = rng.random()
    if roll < 0.55:
        return " ".join(code[i : i + 4] for i in range(0, len(code), 4))
    if roll < 0.9:
        return code
    return "-".join(code[i : i + 4] for i in range(0, len(code), 4))


# --- addresses ---------------------------------------------------------------

STREETS = {
    "en": [
        "Cottonwood Hollow",
        "Pawnee",
        "Juniper Flats",
        "Wild Plum",
        "Sugar Maple",
        "Mesquite",
        "Lavender Mews",
        "Ropewalk",
        "Chantry Close",
        "Kowhai Street",
        "Pohutukawa Grove",
        "Jacaranda Avenue",
        "Tobar Lane",
        "Muskwa Way NW",
    ],
    "fr": [
        "rue du Pressoir",
        "impasse des Lavandières",
        "allée du Colombier",
        "chemin des Pêcheurs",
        "rue de la Fontaine-aux-Loups",
        "place du Marché-aux-Grains",
        "lieu-dit Kerhuel",
        "rue des Combattants",
        "rue des Jardiniers",
        "route de Chêne",
        "rue Saint-Hubert",
        "boulevard des Moulins",
    ],
    "es": [
        "C/ Pintor Sorolla",
        "Camino de las Torres",
        "Paseo de Canalejas",
        "Rúa do Vilar",
        "C/ del Doctor Fleming",
        "Gran Vía de les Corts Catalanes",
        "Jr. Huallaga",
        "Av. Providencia",
        "Diagonal 40A",
        "Bvar. Artigas",
        "Calz. de Tlalpan",
    ],
}


_ES_STREET_TOWNS = [
    (STREETS["es"][0], "46002 València"),
    (STREETS["es"][1], "50008 Zaragoza"),
    (STREETS["es"][2], "37001 Salamanca"),
    (STREETS["es"][3], "15705 Santiago de Compostela"),
    (STREETS["es"][4], "28036 Madrid"),
    (STREETS["es"][5], "08015 Barcelona"),
]


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def address(rng: random.Random, lang: str, multiline: bool = False) -> str:
    """A street address in one of ``lang``'s v5 country layouts; ``multiline`` breaks it into lines."""
    sep = "\n" if multiline else ", "
    pick = rng.choice
    n = rng.randint
    st = STREETS[lang]
    if lang == "en":
        kind = rng.random()
        if kind < 0.3:  # US, with or without a unit
            street = f"{n(100, 48999)} {pick(st[:6])} {pick(['Ln', 'Lane', 'Pkwy', 'Way', 'Pl', 'Loop', 'Terrace'])}"
            if rng.random() < 0.45:
                street += f"{pick([', ', ' ', sep])}{pick(['Apt', 'Unit', 'Bldg 3, Apt', 'Suite', 'Lot'])} {n(1, 320)}{pick(['', '', 'A', 'F'])}"
            city = pick(
                [
                    "Billings, MT 59101",
                    "Burlington, VT 05401",
                    "Sioux Falls, SD 57104",
                    "Bangor, ME 04401",
                    "Fargo, ND 58102",
                ]
            )
            return f"{street}{sep}{city}"
        if kind < 0.38:  # rural route / PO box
            return (
                pick([f"RR {n(1, 9)} Box {n(10, 499)}", f"PO Box {n(1000, 89999)}"])
                + f"{sep}{pick(['Montpelier, VT 05602', 'Pierre, SD 57501', 'Helena, MT 59604'])}"
            )
        if kind < 0.56:  # UK: building name or flat, street, town, postcode on its own line
            street = f"{n(1, 220)} {pick(st[6:9])}"
            if rng.random() < 0.4:
                street = f"{pick(['Flat 2B', 'Top Flat', 'Basement Flat', 'The Old Forge', 'Flat ' + str(n(1, 40))])}{sep}{street}"
            town, code = pick(
                [("Bath", "BA1 2QH"), ("York", "YO1 7HH"), ("Truro", "TR1 2SJ"), ("Inverness", "IV1 1QY")]
            )
            return f"{street}{sep}{town}{sep}{code}" if multiline else f"{street}, {town} {code}"
        if kind < 0.7:  # New Zealand: suburb line
            return f"{pick(['', '', str(n(1, 12)) + '/'])}{n(2, 180)} {pick(st[9:11])}{sep}{sep.join(pick([('Ponsonby', 'Auckland 1011'), ('Karori', 'Wellington 6012'), ('Riccarton', 'Christchurch 8041')]))}"
        if kind < 0.82:  # South Africa
            return f"{n(2, 90)} {st[11]}{sep}{sep.join(pick([('Rondebosch', 'Cape Town', '7700'), ('Brooklyn', 'Pretoria', '0181'), ('Westville', 'Durban', '3629')]))}"
        if kind < 0.92:  # Ireland with Eircode
            return f"{pick(['Apt ' + str(n(1, 30)) + ', ', ''])}{n(1, 60)} {st[12]}{sep}{pick(['Ennis, Co. Clare V95 ', 'Tralee, Co. Kerry V92 ', 'Sligo F91 '])}{pick(['Y2R4', 'KX0C', 'E3H9'])}"
        return f"{n(1000, 9999)} {st[13]}{sep}{pick(['Edmonton, AB T6R 0A1', 'Edmonton AB  T5J 2R7'])}"
    if lang == "fr":
        kind = rng.random()
        if kind < 0.45:  # France: complement line, number (bis/ter/B), street, CEDEX or not
            line = f"{n(1, 210)}{pick(['', '', ' bis', ' ter', 'B', ' quater'])}{pick([' ', ', '])}{pick(st[:6])}"
            if rng.random() < 0.35:
                line = f"{pick(['Les Jardins d’Iroise, bât. B', 'Appartement 31, 3e étage', 'Résidence Le Clos Fleuri', 'Escalier 4, porte gauche'])}{sep}{line}"
            city = pick(
                [
                    "35000 Rennes",
                    "67000 STRASBOURG",
                    "21000 Dijon",
                    "64100 Bayonne",
                    "13002 Marseille",
                    "59800 Lille",
                    "97200 Fort-de-France",
                ]
            )
            return f"{line}{sep}{city}"
        if kind < 0.55:  # lieu-dit, rural
            return f"{_cap(st[6])}{sep}{pick(['29860 Plabennec', '22300 Ploubezre'])}"
        if kind < 0.7:  # Belgium: street then number, box
            return f"{_cap(st[7])} {n(1, 300)}{pick(['', ' bte 4', '/2'])}{sep}{pick(['1310 La Hulpe', '6000 Charleroi', '7000 Mons'])}"
        if kind < 0.8:  # Luxembourg
            return f"{n(1, 120)}, {st[8]}{sep}L-{pick(['1835', '4050', '2412'])} {pick(['Luxembourg', 'Esch-sur-Alzette', 'Howald'])}"
        if kind < 0.9:  # Switzerland: street then number
            return f"{_cap(st[9])} {n(1, 200)}{sep}{pick(['1208 Genève', '1227 Carouge'])}"
        if kind < 0.95:  # Québec
            return f"{n(100, 9999)}, {st[10]}, {pick(['bureau', 'app.'])} {n(100, 900)}{sep}{pick(['Montréal (Québec) H2X 1Y4', 'Laval (Québec) H7N 3X2'])}"
        return f"{n(1, 40)}, {st[11]}{sep}98000 Monaco"
    kind = rng.random()
    if kind < 0.5:  # Spain: the street's own town
        street, city = pick(_ES_STREET_TOWNS)
        line = f"{street}{pick([', ', ' ', ', n.º '])}{n(1, 260)}"
        line += pick(
            [
                f", {n(1, 12)}.º {pick('ABCDI')}",
                f", esc. {pick('AB')}, {n(1, 7)}.º {n(1, 4)}.ª",
                ", entlo.",
                f", {n(1, 5)}º izq.",
                ", local 2",
                "",
            ]
        )
        return f"{line}{sep}{city}"
    if kind < 0.6:  # Perú
        return f"{st[6]} {n(100, 999)}, dpto. {n(101, 1504)}{sep}Cercado de Lima{sep}Lima 15001"
    if kind < 0.7:  # Chile
        return f"{st[7]} {n(100, 2999)}, of. {n(101, 1805)}{sep}Providencia, Santiago"
    if kind < 0.8:  # Colombia
        return f"{st[8]} # {n(10, 99)}-{n(10, 99)}, apto. {n(201, 1504)}{sep}{pick(['Medellín, Antioquia', 'Bogotá D.C.'])}"
    if kind < 0.9:  # Uruguay
        return f"{st[9]} {n(100, 2999)}, apto. {n(101, 1204)}{sep}11300 Montevideo"
    return f"{st[10]} {n(100, 4999)}{sep}Col. {pick(['Country Club', 'Portales Sur', 'Nativitas'])}{sep}{pick(['04220 Coyoacán, CDMX', '03630 Benito Juárez, CDMX'])}"


# --- templates with PII ------------------------------------------------------

TEMPLATES = {
    "en": [
        "Subject: [#SR-88412] Refund not received\nRequester: {P} <{E}>\nCallback: {PH}\nPriority: P2\n\n"
        "Hi, I returned the blender three weeks ago and still no refund. -- can you draft our reply?",
        "account_id,full_name,email,mobile,signup_date\nA-10442,{P},{E},{PH},2025-03-14\nA-10443,{P2},{E2},{PH2},"
        "2025-03-15\nDedupe these CRM rows and tell me if any look like the same person.",
        'Tool call arguments: {"recipient_name": "{P}", "recipient_phone": "{PH}", "deliver_to": "{A}", '
        '"gift_message": "Happy birthday!"}\nDid the model fill the tool correctly?',
        "> On Tue, {P} wrote:\n> Can you move the tasting to Thursday?\n\nSure, Thursday works. Thanks,\n{P2}\n"
        "Events Coordinator | {PH}\nRewrite my reply so it sounds warmer.",
        "SHIP TO:\n{PU}\n{AM}\n\nRMA 55-7781 | weight 2.4 kg\nIs this shipping label complete for a domestic parcel?",
        'customer:\n  name: {P}\n  contact:\n    email: {E}\n    phone: "{PH}"\n  payout_iban: {IB}\n'
        "Validate this YAML against our schema and list any type errors.",
        "INVOICE 2026-0417\nBill to: {P}\n{AM}\nPayment: card ending in the number below\nCard: {CC}\n"
        "Explain why the card shouldn't be printed in full on the invoice.",
        "[14:02] <{f}> anyone know how to expense the hotel?\n[14:03] <support> DM me your corporate card number\n"
        "[14:03] <{f}> ok it's {CC}\nWhat went wrong in this chat, from a security point of view?",
        "SEPA Direct Debit Mandate\nDebtor name: {P}\nDebtor address: {A}\nIBAN: {IB}\nCreditor: Brightwave "
        "Energy Ltd\nSummarise what the debtor is agreeing to.",
        "| Employee | Extension / mobile | Desk |\n|:--|:--|:--|\n| {LF} | {PH} | 3F-12 |\n| {P2} | {PH2} | 3F-14 |\n"
        "Sort this table by surname.",
        "Reviewed-by: {P} <{E}>\nSigned-off-by: {P2} <{E2}>\n\nWhat do these git trailers mean?",
        '2026-11-30T09:14:22Z WARN checkout: declined card={CC} customer="{P}" reason=insufficient_funds\n'
        "Why is this log line a compliance problem?",
        "Clinic intake form\nSurname, first name: {LF}\nDate of birth: 12/07/1988\nHome phone: {PH}\nAddress: {A}\n"
        "Turn this into a friendly welcome message.",
        "text from {F}: 'running late, the buzzer at {A} doesn't work, call me on {PH}'. reply for me pls",
        "Please write to Dr {L} to reschedule Friday's appointment to the following week.",
        "I think {F2} and {F} should co-lead the migration. Write a short announcement for the team.",
        "can u remind {p} that the rent goes to {IB} from next month",
        "Emergency contact on file: {PU} (spouse), {PH}. Write the HR confirmation message.",
        "Thanks to {I} and {I2} for reviewing the draft! Turn this into a proper acknowledgement paragraph.",
        "Order #A7-20931 for {P}. Deliver to:\n{AM}\nLeave with neighbour if out. Rewrite these instructions for "
        "the courier app (max 120 chars).",
        "Best wishes,\n\n{P}\nHead of Partnerships\nM: {PH}\nE: {E}\n\nShorten this signature to two lines.",
        "{P} wants to pay the deposit by card ({CC}) instead of transfer. Write a reply explaining the 2% card fee.",
        "Who should I cc? {P} (finance), {P2} (legal) or {P3} (ops). The question is about VAT on the refund.",
        'Contractor details for the payroll file:\n  name = "{P}"\n  iban = "{IB}"\n  phone = "{PH}"\n'
        "Convert this TOML snippet to JSON.",
        "Dear {F},\n\nYour replacement card {CC} has been dispatched to {A}.\n\nKind regards\n\n"
        "Proofread this letter.",
        "The caller said her name was {P} and gave {PH} as a callback, but the account lists {PH2}. What should "
        "the agent do?",
        "msg from {FI}: my iban changed, new one is {IB}. pls update before payroll",
        "Lease addendum - tenants: {P} and {P2}; premises: {A}. Draft a clause about subletting.",
        "Attendee list (RSVP yes):\n{P}\n{P2}\n{P3}\n{LF}\nHow many vegetarian meals should I order if half are "
        "vegetarian?",
        "{LFU} - passport renewal appointment, phone {PH}. Write an SMS reminder for tomorrow 10:15.",
        'messages=[{"role": "user", "content": "My name is {P}, card {CC}, please cancel my subscription"}]\n'
        "Which parts of this payload should be masked before logging?",
        "Vendor master data change request\nVendor: {P} Consulting\nOld IBAN: {IB}\nNew IBAN: {IB2}\nRequested by: "
        "{P2}\nWhat checks should AP run before approving?",
        "{F}, your table for 4 is confirmed for Saturday. We'll text {PH} if anything changes. Make this sound "
        "friendlier.",
        "please summarise the complaint from {p} ({e}) about the late delivery to {A}",
        "Gift aid declaration\nFull name: {P}\nHome address:\n{AM}\nDraft a thank-you note for the donation.",
        "Mentor pairing for Q1: {P} -> {P2}; {P3} -> {I}. Write an email introducing each pair.",
        "Hey, it's {F}! Card {CC} got declined at the pharmacy again, can you check the limit?",
        "Bank details for the refund: account holder {LF}, IBAN {IB}. Confirm back to the customer without "
        "repeating the full IBAN.",
        "Witness statement taken from {P}, who lives at {A}, reachable on {PH}. Summarise in neutral language.",
        "Pickup from {A} at 7:15 for {P}; driver {P2} ({PH}). Write the booking confirmation.",
        "{PU}\n{AM}\n{PH}\n\nFormat this as a business-card layout.",
        "Can you translate this into French? 'Hi {F}, the plumber will call you on {PH} before coming round.'",
        "Write a polite chaser to {L}'s assistant: the signed contract hasn't come back.",
        "Scholarship shortlist: {LF}; {P2}; {I}. Write a congratulatory email to each.",
        '- name: {P}\n  email: {E}\n  card: "{CC}"\n  address: "{A}"\nWhich fields here are PCI-scoped?',
        "Reminder: {P} from the dental practice called, rebook on {PH}.",
        "Write a short bio for {P}, our new head of research, for the website.",
        "My landlord {P} asked me to send rent to {IB} instead of the usual account. Red flag?",
    ],
    "fr": [
        "Objet : [Dossier n° 118-4402] Remboursement non reçu\nDemandeur : {P} <{E}>\nRappel : {PH}\n\n"
        "Bonjour, j'ai renvoyé l'aspirateur il y a trois semaines. Rédige notre réponse.",
        "id_client;nom_complet;courriel;portable\nC-2081;{P};{E};{PH}\nC-2082;{P2};{E2};{PH2}\nDédoublonne ces "
        "lignes du CRM.",
        'Arguments de l\'outil : {"destinataire": "{P}", "telephone": "{PH}", "adresse_livraison": "{A}"}\n'
        "Le modèle a-t-il bien rempli l'outil ?",
        "> Le mardi, {P} a écrit :\n> Peut-on décaler la dégustation à jeudi ?\n\nJeudi, parfait. Merci,\n{P2}\n"
        "Coordination événements | {PH}\nRends ma réponse plus chaleureuse.",
        "DESTINATAIRE :\n{PU}\n{AM}\n\nColis 3,1 kg\nCette étiquette est-elle complète ?",
        "FACTURE 2026-0388\nClient : {P}\n{AM}\nCarte : {CC}\nPourquoi ne faut-il pas imprimer la carte en entier ?",
        "Mandat de prélèvement SEPA\nNom du débiteur : {LFU}\nAdresse : {A}\nIBAN : {IB}\nExplique ce que le "
        "débiteur accepte.",
        "| Collaborateur | Portable | Bureau |\n|:--|:--|:--|\n| {LF} | {PH} | B204 |\n| {P2} | {PH2} | B206 |\n"
        "Trie ce tableau par nom.",
        '2026-11-30T09:14:22Z WARN paiement refusé carte={CC} client="{P}"\nPourquoi cette ligne de log pose '
        "problème ?",
        "Fiche patient\nNom, prénom : {LF}\nTéléphone : {PH}\nAdresse : {A}\nÉcris un message d'accueil.",
        "sms de {F} : « en retard, l'interphone au {A} marche pas, appelle-moi au {PH} ». réponds pour moi stp",
        "Merci d'écrire à Me {L} pour reporter le rendez-vous de vendredi.",
        "peux-tu rappeler à {p} que le loyer part sur {IB} dès le mois prochain",
        "Contact d'urgence : {PU} (conjoint), {PH}. Rédige la confirmation RH.",
        "Commande n° A7-20931 pour {P}. Livrer à :\n{AM}\nRéécris ces consignes pour le livreur.",
        "Bien à vous,\n\n{P}\nResponsable partenariats\nPort. : {PH}\nCourriel : {E}\n\nRaccourcis cette signature.",
        "{P} veut régler l'acompte par carte ({CC}). Explique les frais de 2 %.",
        "Qui mettre en copie : {P} (compta), {P2} (juridique) ou {P3} (logistique) ?",
        "Chère {F},\n\nVotre nouvelle carte {CC} a été envoyée au {A}.\n\nCordialement\n\nRelis cette lettre.",
        "msg de {FI} : mon IBAN a changé, le nouveau c'est {IB}. à mettre à jour avant la paie",
        "Bail - locataires : {P} et {P2} ; logement : {A}. Rédige une clause sur la sous-location.",
        "{LFU} - rendez-vous en préfecture, tél. {PH}. Écris un SMS de rappel pour demain 10 h 15.",
        'messages=[{"role": "user", "content": "Je suis {P}, carte {CC}, résiliez mon abonnement"}]\nQue faut-il '
        "masquer avant de journaliser ?",
        "Demande de modification fournisseur\nFournisseur : {P} Conseil\nAncien IBAN : {IB}\nNouvel IBAN : {IB2}\n"
        "Quels contrôles faire ?",
        "Reçu fiscal - donateur : {P}\nAdresse :\n{AM}\nRédige un mot de remerciement.",
        "Coucou c'est {F} ! La carte {CC} a encore été refusée à la pharmacie, tu peux vérifier le plafond ?",
        "Témoignage recueilli auprès de {P}, domicilié {A}, joignable au {PH}. Résume sans jugement.",
        "Prise en charge au {A} à 7 h 15 pour {P} ; chauffeur {P2} ({PH}). Rédige la confirmation.",
        "Traduis en anglais : « Bonjour {F}, le plombier vous appellera au {PH} avant de passer. »",
        '- nom: {P}\n  courriel: {E}\n  carte: "{CC}"\n  adresse: "{A}"\nQuels champs relèvent de PCI DSS ?',
        "Merci à {I} et {I2} pour la relecture ! Transforme ça en remerciements.",
        "Mon propriétaire {P} me demande de verser le loyer sur {IB}. C'est suspect ?",
        "Rédige une courte biographie de {P}, notre nouvelle directrice de la recherche.",
        "Binômes de tutorat : {P} -> {P2} ; {P3} -> {I}. Écris un mail de présentation.",
        "Liste des inscrits :\n{P}\n{P2}\n{LF}\nCombien de repas prévoir ?",
        "{PU}\n{AM}\n{PH}\n\nMets ça en forme de carte de visite.",
    ],
    "es": [
        "Asunto: [Caso n.º 118-4402] Reembolso no recibido\nSolicitante: {P} <{E}>\nDevolver llamada: {PH}\n\n"
        "Hola, devolví la batidora hace tres semanas. Redacta nuestra respuesta.",
        "id_cliente;nombre_completo;correo;movil\nC-2081;{P};{E};{PH}\nC-2082;{P2};{E2};{PH2}\nQuita los "
        "duplicados de estas filas del CRM.",
        'Argumentos de la herramienta: {"destinatario": "{P}", "telefono": "{PH}", "entregar_en": "{A}"}\n'
        "¿Rellenó bien el modelo la herramienta?",
        "> El martes, {P} escribió:\n> ¿Podemos pasar la cata al jueves?\n\nEl jueves me va bien. Gracias,\n{P2}\n"
        "Coordinación de eventos | {PH}\nHaz mi respuesta más cálida.",
        "ENVIAR A:\n{PU}\n{AM}\n\nBulto 3,1 kg\n¿Está completa esta etiqueta?",
        "FACTURA 2026-0388\nCliente: {P}\n{AM}\nTarjeta: {CC}\n¿Por qué no se debe imprimir la tarjeta completa?",
        "Orden de domiciliación SEPA\nTitular: {P}\nDomicilio: {A}\nIBAN: {IB}\nExplica lo que acepta el titular.",
        "| Empleado | Móvil | Puesto |\n|:--|:--|:--|\n| {LF} | {PH} | B204 |\n| {P2} | {PH2} | B206 |\n"
        "Ordena la tabla por apellido.",
        '2026-11-30T09:14:22Z WARN pago rechazado tarjeta={CC} cliente="{P}"\n¿Por qué esta línea de log es un '
        "problema?",
        "Ficha de paciente\nApellidos, nombre: {LF}\nTeléfono: {PH}\nDomicilio: {A}\nEscribe un mensaje de "
        "bienvenida.",
        "wasap de {F}: «llego tarde, el portero automático de {A} no va, llámame al {PH}». contéstale tú porfa",
        "Escribe a la Dra. {L} para cambiar la cita del viernes a la semana siguiente.",
        "recuérdale a {p} que el alquiler va a {IB} desde el mes que viene",
        "Contacto de emergencia: {PU} (cónyuge), {PH}. Redacta la confirmación de RR. HH.",
        "Pedido n.º A7-20931 para {P}. Entregar en:\n{AM}\nReescribe las instrucciones para el repartidor.",
        "Un saludo cordial,\n\n{P}\nResponsable de Alianzas\nMóv.: {PH}\nCorreo: {E}\n\nAcorta esta firma.",
        "{P} quiere pagar la señal con tarjeta ({CC}). Explica la comisión del 2 %.",
        "¿A quién pongo en copia: {P} (contabilidad), {P2} (jurídico) o {P3} (operaciones)?",
        "Estimada {F}:\n\nSu nueva tarjeta {CC} se ha enviado a {A}.\n\nAtentamente\n\nRevisa esta carta.",
        "mensaje de {FI}: me cambió el IBAN, el nuevo es {IB}. actualizadlo antes de la nómina",
        "Contrato de arrendamiento - inquilinos: {P} y {P2}; vivienda: {A}. Redacta una cláusula de subarriendo.",
        "{LFU} - cita para renovar el DNI, tel. {PH}. Escribe un SMS de recordatorio para mañana a las 10:15.",
        'messages=[{"role": "user", "content": "Soy {P}, tarjeta {CC}, cancelen mi suscripción"}]\n¿Qué hay que '
        "enmascarar antes de registrarlo?",
        "Solicitud de cambio de proveedor\nProveedor: {P} Asesores\nIBAN anterior: {IB}\nIBAN nuevo: {IB2}\n"
        "¿Qué comprobaciones hay que hacer?",
        "Certificado de donación - donante: {P}\nDomicilio:\n{AM}\nRedacta una nota de agradecimiento.",
        "¡Hola, soy {F}! Me volvieron a rechazar la tarjeta {CC} en la farmacia, ¿puedes mirar el límite?",
        "Declaración de {P}, con domicilio en {A}, localizable en el {PH}. Resúmela de forma neutral.",
        "Recogida en {A} a las 7:15 para {P}; conductor {P2} ({PH}). Redacta la confirmación.",
        "Traduce al inglés: «Hola {F}, el fontanero te llamará al {PH} antes de pasar».",
        '- nombre: {P}\n  correo: {E}\n  tarjeta: "{CC}"\n  direccion: "{A}"\n¿Qué campos entran en PCI DSS?',
        "¡Gracias a {I} y a {I2} por revisar el borrador! Conviértelo en un agradecimiento formal.",
        "Mi casero {P} me pide que ingrese el alquiler en {IB}. ¿Es sospechoso?",
        "Escribe una biografía breve de {P}, nuestra nueva directora de investigación.",
        "Parejas de mentoría: {P} -> {P2}; {P3} -> {I}. Escribe un correo de presentación.",
        "Inscritos:\n{P}\n{P2}\n{LF}\n¿Cuántos menús encargo?",
        "{PU}\n{AM}\n{PH}\n\nDale formato de tarjeta de visita.",
    ],
}
_SLOTS = re.compile(r"\{(P2|P3|PH2|PH|PU|P|p|f|e|F2|FI|F|LFU|LF|L|I2|I|E2|E|CC|IB2|IB|AM|A)\}")


def _first_capital(surname: str) -> str:
    """The letter a surname is abbreviated by: its first capital (``van Rensburg`` -> ``R``)."""
    return next((c for c in surname if c.isupper()), surname[0].upper())


def fill(template: str, rng: random.Random, lang: str) -> tuple[str, list[dict]]:
    """``template`` with its slots filled and the gold entities (code point offsets).

    Slots: ``P``/``P2``/``P3`` full names (``p`` lower case, ``PU`` upper case), ``F``/``F2``
    first names (``f`` a lower-case chat handle), ``FI`` ``First L.``, ``L`` a surname,
    ``I``/``I2`` initials, ``LF`` ``Last, First``, ``LFU`` ``LAST First``, ``E``/``E2``
    e-mails (``e`` lower case), ``PH``/``PH2`` phones, ``CC`` a card, ``IB``/``IB2`` IBANs,
    ``A`` an address on one line, ``AM`` one across lines.
    """
    p1 = person(rng, lang)
    p2 = person(rng, lang)
    while p2[0] == p1[0]:
        p2 = person(rng, lang)
    p3 = person(rng, lang)
    while p3[0] in (p1[0], p2[0]):
        p3 = person(rng, lang)
    other = person(rng, lang, full=True)
    listed = person(rng, lang, full=True)
    listed2 = person(rng, lang, full=True)
    surname = rng.choice(NAMES[lang]["last"])
    full1 = p1 if p1[1] else (p1[0], surname)
    values = {
        "P": ("PERSON", _name(p1)),
        "P2": ("PERSON", _name(p2)),
        "P3": ("PERSON", _name(p3)),
        "p": ("PERSON", _name(p1).lower()),
        "PU": ("PERSON", _name(p1).upper()),
        "F": ("PERSON", p1[0]),
        "f": ("PERSON", re.sub(r"[^a-z]", "", _ascii(p1[0]).lower())),
        "F2": ("PERSON", p2[0]),
        "FI": ("PERSON", f"{full1[0]} {_first_capital(full1[1])}."),
        "L": ("PERSON", surname),
        "I": ("PERSON", _initials(listed)),
        "I2": ("PERSON", _initials(listed2)),
        "LF": ("PERSON", f"{other[1]}, {other[0]}"),
        "LFU": ("PERSON", f"{other[1].upper()} {other[0]}"),
        "E": ("EMAIL_ADDRESS", email(rng, p1, lang)),
        "e": ("EMAIL_ADDRESS", email(rng, p1, lang).lower()),
        "E2": ("EMAIL_ADDRESS", email(rng, p2, lang)),
        "PH": ("PHONE_NUMBER", phone(rng, lang)),
        "PH2": ("PHONE_NUMBER", phone(rng, lang)),
        "CC": ("CREDIT_CARD", card(rng)),
        "IB": ("IBAN_CODE", iban(rng, _IBAN_COUNTRIES[lang])),
        "IB2": ("IBAN_CODE", iban(rng, _IBAN_COUNTRIES[lang])),
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
        "PLACE": ["Wrocław", "Luang Prabang", "the Faroe Islands", "Oaxaca", "Kyoto", "the Dolomites", "Lamu", "Riga", "Mallorca", "the Scottish Highlands"],
        "THING": ["a sourdough starter", "a standing desk", "an espresso grinder", "a dehumidifier", "a pressure cooker", "noise-cancelling headphones", "a sit-on mower"],
        "TOPIC": ["compound interest", "how tides work", "black holes", "the water cycle", "inflation", "photosynthesis", "how noise cancelling works"],
        "MONTH": ["January", "April", "June", "September", "November"],
        "PRODUCT": ["a Garmin Forerunner", "a Dyson V15", "a Framework laptop", "a Moka pot", "a Brompton bike", "a Kobo Clara"],
        "TEAM": ["Liverpool", "the Wallabies", "Celtic", "the Boston Celtics", "Juventus", "the Toronto Raptors"],
        "DISH": ["ramen", "moussaka", "fish tacos", "dal makhani", "paella", "goulash", "a lemon drizzle cake"],
        "TITLE": ["The Last of Us", "Succession", "Interstellar", "Dark", "The Bear", "Severance", "Arrival"],
    },
    "fr": {
        "PLACE": ["Annecy", "Colmar", "Biarritz", "Gaspé", "Dakar", "Gand", "Gordes", "Saint-Malo", "Bastia"],
        "THING": ["un levain", "un bureau assis-debout", "un moulin à café", "un déshumidificateur", "un autocuiseur"],
        "TOPIC": ["les intérêts composés", "les marées", "les trous noirs", "l'inflation", "la photosynthèse"],
        "MONTH": ["janvier", "avril", "juin", "septembre", "novembre"],
        "PRODUCT": ["une montre Garmin", "un Dyson V15", "un ordinateur Framework", "une cafetière italienne", "un vélo pliant"],
        "TEAM": ["le Stade rochelais", "l'ASSE", "le LOSC", "l'AS Monaco", "le Stade français"],
        "DISH": ["un bœuf bourguignon", "une ratatouille", "un cassoulet", "une quiche lorraine", "un hachis parmentier"],
        "TITLE": ["Les Choristes", "Intouchables", "Dix pour cent", "Le Bureau des légendes", "La Haine"],
    },
    "es": {
        "PLACE": ["Cádiz", "Santa Marta", "Mendoza", "Oaxaca", "Segovia", "La Palma", "Arequipa", "San Sebastián", "Montevideo"],
        "THING": ["una masa madre", "un escritorio elevable", "un molinillo de café", "un deshumidificador", "una olla exprés"],
        "TOPIC": ["el interés compuesto", "las mareas", "los agujeros negros", "la inflación", "la fotosíntesis"],
        "MONTH": ["enero", "junio", "septiembre", "noviembre"],
        "PRODUCT": ["un reloj Garmin", "una Dyson V15", "un portátil Framework", "una cafetera italiana", "una bici plegable"],
        "TEAM": ["el Celta", "la Real Sociedad", "Colo-Colo", "el Atlético Nacional", "Peñarol"],
        "DISH": ["unas migas", "unas arepas", "un sancocho", "unos chilaquiles", "un cocido madrileño"],
        "TITLE": ["El ministerio del tiempo", "Mar adentro", "Élite", "Roma", "Relatos salvajes"],
    },
}  # fmt: skip

CHAT_FREE = {
    "en": [
        "Quick one: carry-on only for 5 days in {PLACE} in {MONTH}, doable?",
        "Give me three ways to use up leftover {DISH} without it feeling like leftovers.",
        "Would you rather: rewatch {TITLE} or start {TITLE2}? Pick one and defend it.",
        "Who's favourite to win between {TEAM} and the other lot this weekend, roughly?",
        "Is {THING} worth the counter space in a small flat?",
        "Compare {PRODUCT} with its closest rival in a 3-row table.",
        "Explain {TOPIC} using only a kitchen analogy.",
        "Write a haiku about {PLACE} in {MONTH}.",
        "what wine goes with {DISH}? budget under 15",
        "My {THING} smells like burning plastic on first use, is that a factory coating thing?",
        "Draft a 2-sentence review of {TITLE} without spoilers.",
        "How do I explain {TOPIC} to a ten-year-old who loves football?",
        "Packing list for a rainy weekend in {PLACE}, please, bullet points.",
        "Is {PRODUCT} still good value in {MONTH} or is a new model due?",
        "Rank the kits {TEAM} wore over the last five seasons, just vibes.",
        "Convert this recipe for {DISH} from cups to grams.",
    ],
    "fr": [
        "Petite question : un bagage cabine pour 5 jours à {PLACE} en {MONTH}, c'est jouable ?",
        "Trois idées pour recycler un reste de {DISH} ?",
        "Tu préfères revoir {TITLE} ou commencer {TITLE2} ? Choisis et argumente.",
        "{TEAM} a-t-il une chance ce week-end, à vue de nez ?",
        "{THING}, ça vaut la place dans une petite cuisine ?",
        "Compare {PRODUCT} avec son concurrent direct dans un tableau de trois lignes.",
        "Explique {TOPIC} avec une analogie de cuisine.",
        "Écris un haïku sur {PLACE} en {MONTH}.",
        "quel vin avec {DISH} ? moins de 15 euros",
        "Fais-moi un avis de deux phrases sur {TITLE}, sans divulgâcher.",
        "Comment expliquer {TOPIC} à un enfant de dix ans ?",
        "Liste de valise pour un week-end pluvieux à {PLACE}, en puces.",
        "Convertis la recette de {DISH} des tasses en grammes.",
    ],
    "es": [
        "Pregunta rápida: ¿solo equipaje de mano para 5 días en {PLACE} en {MONTH}?",
        "Dame tres ideas para aprovechar lo que sobró de {DISH}.",
        "¿Volver a ver {TITLE} o empezar {TITLE2}? Elige y argumenta.",
        "¿Tiene opciones {TEAM} este fin de semana, a ojo?",
        "¿Merece la pena {THING} en una cocina pequeña?",
        "Compara {PRODUCT} con su rival directo en una tabla de tres filas.",
        "Explica {TOPIC} con una analogía de cocina.",
        "Escribe un haiku sobre {PLACE} en {MONTH}.",
        "¿qué vino va con {DISH}? menos de 15 euros",
        "Reseña de dos frases de {TITLE}, sin destripes.",
        "¿Cómo le explico {TOPIC} a un niño de diez años?",
        "Lista de equipaje para un finde lluvioso en {PLACE}, en viñetas.",
        "Pasa la receta de {DISH} de tazas a gramos.",
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


def _b62(r: random.Random, k: int) -> str:
    return "".join(r.choice(string.ascii_letters + string.digits) for _ in range(k))


def _uuid(r: random.Random) -> str:
    return str(uuid.UUID(int=r.getrandbits(128), version=4))


def _ver(r: random.Random) -> str:
    return f"{r.randint(0, 9)}.{r.randint(0, 30)}.{r.randint(0, 19)}"


def _date(r: random.Random) -> str:
    return f"{r.randint(2022, 2027)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}"


def _ts(r: random.Random) -> str:
    return f"{_date(r)}T{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}.{_digits(r, 3)}Z"


def _num(r: random.Random, k: int) -> str:
    """``k`` digits, not starting with 0, never a Luhn-valid run of card length (12-19)."""
    while True:
        s = str(r.randint(1, 9)) + _digits(r, k - 1)
        if not (12 <= k <= 19 and _luhn_valid(s)):
            return s


def _gs1(body: str) -> str:
    """``body`` with its GS1 mod-10 check digit."""
    total = sum(int(c) * (3 if i % 2 == 0 else 1) for i, c in enumerate(reversed(body)))
    return body + str((10 - total % 10) % 10)


def _gib(r: random.Random) -> int:
    """A size in GiB whose byte count is no Luhn-valid run of card length."""
    while True:
        g = r.randint(2, 900)
        if not _luhn_valid(str(g * 1073741824)):
            return g


def _epoch_ms(r: random.Random) -> str:
    while True:
        s = str(r.randint(1_600_000_000_000, 1_800_000_000_000))
        if not _luhn_valid(s):
            return s


def _gtin14(r: random.Random) -> str:
    while True:
        s = _gs1("1" + _digits(r, 12))
        if not _luhn_valid(s):
            return s


def _sscc(r: random.Random) -> str:
    while True:
        s = _gs1("0" + str(r.randint(30, 89)) + _digits(r, 14))
        if not _luhn_valid(s):
            return s


_SVC = ["orders", "catalog", "checkout", "pricing", "fulfilment", "ledger"]
_TBL = ["orders", "order_lines", "shipments", "invoices", "stock_moves", "price_lists"]
_ERR = ["TimeoutError", "KeyError", "ValueError", "ConnectionResetError", "IntegrityError"]
_REG = ["eu-west-3", "eu-central-1", "us-west-2", "ap-northeast-1", "sa-east-1"]
_HOSTS = ["api.shop.example", "status.vendor.example", "docs.payments.example", "cdn.assets.example"]
_AIRPORTS = ["MAD", "CDG", "LHR", "AMS", "LIS", "BCN", "FRA", "DUB", "YUL", "MEX"]


PII_FREE: list[Callable[[random.Random], str]] = [
    # Python traceback
    lambda r: (
        f"Traceback (most recent call last):\n  File \"/srv/{(svc := r.choice(_SVC))}/app/handlers.py\", line {r.randint(20, 900)}, in handle\n"
        f"    result = await client.fetch(batch_id)\n  File \"/usr/lib/python3.{r.randint(10, 13)}/asyncio/tasks.py\", line {r.randint(300, 700)}, in wait_for\n"
        f"    raise exceptions.{r.choice(['TimeoutError', 'CancelledError'])}() from exc\n{r.choice(_ERR)}: batch {_num(r, 6)} of {svc} not acknowledged"
    ),
    # Java stack trace
    lambda r: (
        f"Exception in thread \"pool-{r.randint(1, 9)}-thread-{r.randint(1, 32)}\" java.lang.IllegalStateException: "
        f"Shipment {_num(r, 8)} already closed\n\tat com.acme.{(svc := r.choice(_SVC))}.ShipmentService.close(ShipmentService.java:{r.randint(40, 600)})\n"
        f"\tat com.acme.{svc}.ShipmentController.finish(ShipmentController.java:{r.randint(40, 300)})\n\tat java.base/java.lang.Thread.run(Thread.java:{r.randint(800, 1600)})"
    ),
    # Node.js error
    lambda r: (
        f"TypeError: Cannot read properties of undefined (reading '{r.choice(['sku', 'currency', 'lines'])}')\n"
        f"    at normaliseOrder (/srv/app/dist/{r.choice(_SVC)}/normalise.js:{r.randint(10, 400)}:{r.randint(3, 60)})\n"
        f"    at async Promise.all (index {r.randint(0, 9)})\n    at async processQueue (/srv/app/dist/queue.js:{r.randint(10, 200)}:{r.randint(3, 40)})"
    ),
    # Go panic
    lambda r: (
        f"panic: runtime error: index out of range [{r.randint(3, 99)}] with length {r.randint(0, 3)}\n\ngoroutine {r.randint(1, 9999)} [running]:\n"
        f"main.(*Batcher).flush(0xc000{_hex(r, 6)}, {{0xc000{_hex(r, 6)}, 0x{r.randint(1, 64):x}, 0x{r.randint(64, 128):x}}})\n"
        f"\t/build/internal/batch/batcher.go:{r.randint(20, 400)} +0x{_hex(r, 3)}\nexit status 2"
    ),
    # SQL DDL
    lambda r: (
        f"CREATE TABLE {(t := r.choice(_TBL))} (\n  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,\n  reference TEXT NOT NULL UNIQUE,\n"
        f"  amount_minor BIGINT NOT NULL CHECK (amount_minor >= 0),\n  currency CHAR(3) NOT NULL DEFAULT 'EUR',\n  created_at TIMESTAMPTZ NOT NULL DEFAULT now()\n);\n"
        f"CREATE INDEX {t}_created_idx ON {t} (created_at DESC) WHERE amount_minor > {r.randint(0, 10000)};"
    ),
    # SQL query with order numbers
    lambda r: (
        f"SELECT o.reference, SUM(l.qty * l.unit_price_minor) AS total\nFROM orders o JOIN order_lines l ON l.order_id = o.id\n"
        f"WHERE o.reference IN ('SO-{r.randint(2022, 2026)}-{_digits(r, 6)}', 'SO-{r.randint(2022, 2026)}-{_digits(r, 6)}')\n"
        f"  AND o.created_at >= DATE '{_date(r)}'\nGROUP BY o.reference HAVING SUM(l.qty) > {r.randint(1, 50)};"
    ),
    # Postgres log
    lambda r: (
        f"{_date(r)} {r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}.{_digits(r, 3)} UTC [{r.randint(100, 99999)}] ERROR:  duplicate key value "
        f"violates unique constraint \"{(t := r.choice(_TBL))}_pkey\"\n{_date(r)} UTC DETAIL:  Key (id)=({_num(r, 7)}) already exists.\nSTATEMENT:  INSERT INTO {t} DEFAULT VALUES"
    ),
    # order API response
    lambda r: json.dumps(
        {
            "id": _uuid(r),
            "number": f"{r.randint(100, 999)}-{_digits(r, 7)}-{_digits(r, 7)}",
            "status": r.choice(["paid", "shipped", "refunded"]),
            "total": {"amount": r.randint(100, 999999), "currency": r.choice(["EUR", "USD", "MXN"])},
            "lines": [{"sku": f"SKU-{_digits(r, 5)}-{r.choice(['BL', 'RD', 'XL'])}", "qty": r.randint(1, 9)}],
            "created_at": _ts(r),
        }
    ),
    # payment webhook without card data
    lambda r: json.dumps(
        {
            "type": r.choice(["charge.succeeded", "payout.paid", "invoice.finalized"]),
            "id": f"evt_{_b62(r, 24)}",
            "data": {"object": f"ch_{_b62(r, 24)}", "amount": r.randint(100, 99999), "livemode": False},
            "created": r.randint(1_700_000_000, 1_800_000_000),
        }
    ),
    # URLs without personal data
    lambda r: (
        f"Broken links found by the crawler:\nhttps://{r.choice(_HOSTS)}/v{r.randint(1, 4)}/reference/{r.choice(_TBL)}?page={r.randint(2, 40)}&per_page=50 (404)\n"
        f"https://{r.choice(_HOSTS)}/changelog#{_date(r)} (301 -> 404)\nhttps://{r.choice(_HOSTS)}/assets/{_hex(r, 8)}/logo.svg (timeout)"
    ),
    # invoice references
    lambda r: (
        f"INV-{r.randint(2022, 2026)}-{_digits(r, 5)} | PO 45000{_digits(r, 5)} | due {_date(r)} | net {r.choice([14, 30, 60])} | "
        f"total {r.randint(1, 99)} {_digits(r, 3)},{_digits(r, 2)} EUR | VAT {r.choice([5.5, 10, 20, 21])} %\nMatch this line to the remittance advice."
    ),
    # marketplace order ids and tracking numbers
    lambda r: (
        f"Order {r.randint(100, 999)}-{_digits(r, 7)}-{_digits(r, 7)} shipped in {r.randint(2, 4)} parcels: 1Z{_b62(r, 6).upper()}{_num(r, 10)}, "
        f"JD{_num(r, 18)}, SSCC {_sscc(r)}. Which carrier uses which format?"
    ),
    # git log --oneline
    lambda r: "\n".join(
        f"{_hex(r, 7)} {r.choice(['fix', 'feat', 'chore', 'perf'])}({r.choice(_SVC)}): {r.choice(['retry idempotent writes', 'bump deps', 'cache price lookups', 'drop legacy flag', 'batch stock updates'])}"
        for _ in range(r.randint(3, 5))
    ),
    # changelog
    lambda r: (
        f"## [{_ver(r)}] - {_date(r)}\n### Fixed\n- Rounding of tax lines when the order has more than {r.randint(10, 99)} items (#{r.randint(100, 9999)})\n"
        f"### Changed\n- Default page size is now {r.choice([25, 50, 100])} (was {r.choice([10, 20])})"
    ),
    # crontab
    lambda r: (
        f"# m h dom mon dow command\n*/{r.randint(2, 15)} * * * * /usr/local/bin/{r.choice(_SVC)}-sync --since 15m >> /var/log/sync.log 2>&1\n"
        f"{r.randint(0, 59)} {r.randint(0, 5)} * * 0 /usr/local/bin/vacuum --tables {r.choice(_TBL)} --keep-days {r.randint(7, 90)}"
    ),
    # nginx server block (names only, no addresses)
    lambda r: (
        f"server {{\n    listen 443 ssl http2;\n    server_name {r.choice(_HOSTS)};\n    client_max_body_size {r.randint(1, 64)}m;\n"
        f"    location /api/ {{\n        proxy_pass http://upstream_{r.choice(_SVC)};\n        proxy_read_timeout {r.randint(5, 120)}s;\n    }}\n}}"
    ),
    # .env without secrets
    lambda r: (
        f"LOG_LEVEL={r.choice(['info', 'debug', 'warn'])}\nPOOL_SIZE={r.randint(4, 64)}\nREQUEST_TIMEOUT_MS={r.randint(500, 30000)}\n"
        f"AWS_REGION={r.choice(_REG)}\nFEATURE_BULK_EXPORT={r.choice(['true', 'false'])}\nCACHE_TTL_SECONDS={r.randint(30, 86400)}"
    ),
    # INI
    lambda r: (
        f"[database]\nhost = db.internal\nport = {r.choice([5432, 6432, 3306])}\npool_min = {r.randint(1, 4)}\npool_max = {r.randint(8, 64)}\n\n"
        f"[retry]\nattempts = {r.randint(2, 9)}\nbackoff = exponential\nmax_delay_ms = {r.randint(1000, 60000)}"
    ),
    # Maven dependency
    lambda r: (
        f"<dependency>\n  <groupId>com.fasterxml.jackson.core</groupId>\n  <artifactId>jackson-databind</artifactId>\n  <version>2.{r.randint(12, 18)}.{r.randint(0, 3)}</version>\n"
        f"</dependency>\nWhy does mvn dependency:tree show version 2.{r.randint(9, 11)}.{r.randint(0, 9)} instead?"
    ),
    # package.json scripts
    lambda r: json.dumps(
        {
            "name": f"@acme/{r.choice(_SVC)}-web",
            "version": _ver(r),
            "scripts": {"build": "tsc -p tsconfig.build.json", "test": f"vitest run --coverage --maxWorkers={r.randint(2, 8)}"},
            "engines": {"node": f">={r.randint(18, 22)}"},
        },
        indent=2,
    ),
    # docker compose
    lambda r: (
        f"services:\n  {(svc := r.choice(_SVC))}:\n    image: ghcr.io/acme/{svc}:{_ver(r)}\n    ports:\n      - \"{(p := r.choice([8080, 8443, 9000]))}:{p}\"\n"
        f"    depends_on: [db, cache]\n    deploy:\n      resources:\n        limits: {{cpus: \"{r.randint(1, 4)}.0\", memory: {r.randint(1, 8)}g}}"
    ),
    # k8s deployment with digest
    lambda r: (
        f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {(svc := r.choice(_SVC))}\nspec:\n  replicas: {r.randint(2, 12)}\n  template:\n    spec:\n"
        f"      containers:\n        - name: {svc}\n          image: registry.example/{svc}@sha256:{_hex(r, 64)}"
    ),
    # inventory CSV
    lambda r: "sku,warehouse,qty_on_hand,reorder_point,last_count\n" + "\n".join(
        f"SKU-{_digits(r, 5)}-{r.choice(['BL', 'GR', 'XL', 'S'])},WH-{r.randint(1, 12):02d},{r.randint(0, 5000)},{r.randint(10, 400)},{_date(r)}"
        for _ in range(r.randint(3, 5))
    ),
    # markdown benchmark table
    lambda r: (
        "| build | p50 (ms) | p99 (ms) | RSS (MiB) |\n|---|---:|---:|---:|\n"
        + "\n".join(f"| {_ver(r)} | {r.randint(2, 90)}.{r.randint(0, 9)} | {r.randint(90, 900)} | {r.randint(60, 900)} |" for _ in range(3))
    ),
    # JSON log line
    lambda r: json.dumps(
        {
            "ts": _ts(r),
            "level": r.choice(["info", "warn", "error"]),
            "msg": r.choice(["cache miss", "retrying upstream", "slow query"]),
            "key": f"price:sku:{_digits(r, 6)}",
            "latency_ms": r.randint(1, 4000),
            "trace_id": _hex(r, 32),
            "span_id": _hex(r, 16),
        }
    ),
    # W3C trace context headers
    lambda r: (
        f"traceparent: 00-{_hex(r, 32)}-{_hex(r, 16)}-0{r.choice('01')}\ntracestate: vendor={_hex(r, 16)}\n"
        f"Why are my spans not linked across the {r.choice(_SVC)} and {r.choice(_SVC)} services?"
    ),
    # AWS ARNs
    lambda r: (
        f"arn:aws:sqs:{(reg := r.choice(_REG))}:{_num(r, 12)}:{r.choice(_SVC)}-dlq\narn:aws:lambda:{reg}:{_num(r, 12)}:function:{r.choice(_SVC)}-"
        f"{r.choice(['ingest', 'compact', 'notify'])}:{r.randint(1, 80)}\nWhy does the policy deny SendMessage?"
    ),
    # object-store paths
    lambda r: (
        f"s3://acme-lake/raw/{r.choice(_TBL)}/dt={_date(r)}/part-{r.randint(0, 199):05d}-{_uuid(r)}.snappy.parquet\n"
        f"gs://acme-exports/{r.choice(_TBL)}/{_date(r)}/shard-{r.randint(0, 63):03d}-of-064.avro"
    ),
    # Windows registry and paths
    lambda r: (
        f"reg add \"HKLM\\SOFTWARE\\Policies\\Acme\\{r.choice(_SVC).title()}\" /v SyncIntervalMinutes /t REG_DWORD /d {r.randint(5, 240)} /f\n"
        f"C:\\ProgramData\\Acme\\logs\\{r.choice(_SVC)}-{_date(r).replace('-', '')}.log is {r.randint(1, 900)} MB, how do I rotate it?"
    ),
    # Spring properties
    lambda r: (
        f"spring.datasource.hikari.maximum-pool-size={r.randint(5, 60)}\nspring.jpa.properties.hibernate.jdbc.batch_size={r.randint(10, 500)}\n"
        f"management.endpoints.web.exposure.include=health,info,prometheus\nserver.shutdown=graceful"
    ),
    # C snippet
    lambda r: (
        f"#define CRC_POLY 0x{_hex(r, 8).upper()}u\nstatic uint32_t crc_step(uint32_t crc, uint8_t b) {{\n    crc ^= b;\n"
        f"    for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (CRC_POLY & -(crc & 1u));\n    return crc;\n}}"
    ),
    # TypeScript interface
    lambda r: (
        f"export interface {r.choice(['Shipment', 'Invoice', 'StockMove'])}Dto {{\n  id: string; // uuid v4\n  reference: `${{string}}-${{number}}`;\n"
        f"  amountMinor: number;\n  currency: 'EUR' | 'USD';\n  tags?: string[]; // max {r.randint(5, 50)}\n}}"
    ),
    # bash script
    lambda r: (
        f"#!/usr/bin/env bash\nset -euo pipefail\nfor shard in $(seq 0 {r.randint(3, 63)}); do\n  ./bin/reindex --shard \"$shard\" --batch {r.randint(100, 5000)} || exit 1\n"
        f"done\necho \"done in ${{SECONDS}}s\""
    ),
    # pytest summary
    lambda r: (
        f"FAILED tests/unit/test_{r.choice(_TBL)}.py::test_rounding[{r.randint(0, 20)}] - AssertionError: assert {r.randint(100, 999)} == {r.randint(100, 999)}\n"
        f"==== {r.randint(1, 9)} failed, {r.randint(100, 3000)} passed, {r.randint(0, 40)} skipped in {r.randint(5, 300)}.{_digits(r, 2)}s ===="
    ),
    # coverage report
    lambda r: (
        "Name                      Stmts   Miss  Cover\n---------------------------------------------\n"
        + "\n".join(f"src/{t}.py{' ' * (22 - len(t))}{r.randint(40, 900):5d}  {r.randint(0, 60):5d}   {r.randint(60, 100)}%" for t in r.sample(_TBL, 3))
    ),
    # pip freeze
    lambda r: "\n".join(
        f"{p}=={r.randint(0, 4)}.{r.randint(0, 40)}.{r.randint(0, 12)}"
        for p in r.sample(["httpx", "pydantic", "sqlalchemy", "orjson", "structlog", "uvloop", "tenacity"], 4)
    ) + "\nWhich of these pins conflict?",
    # checksums and key fingerprints
    lambda r: (
        f"SHA512 (release-{_ver(r)}.tar.xz) = {_hex(r, 128)}\nSigning key fingerprint: "
        + " ".join(_hex(r, 4).upper() for _ in range(10))
    ),
    # JWT header only, and a non-personal claim set
    lambda r: (
        f"Header: {{\"alg\": \"ES256\", \"kid\": \"{_hex(r, 16)}\", \"typ\": \"JWT\"}}\nClaims: {{\"iss\": \"https://auth.platform.example\", "
        f"\"aud\": \"{r.choice(_SVC)}-api\", \"exp\": {r.randint(1_700_000_000, 1_800_000_000)}, \"scope\": \"orders:read\"}}\nWhy is exp rejected?"
    ),
    # many timestamp formats
    lambda r: (
        f"epoch ms {_epoch_ms(r)} | {_ts(r)} | {r.choice(['Mon', 'Wed', 'Fri'])}, {r.randint(1, 28):02d} "
        f"{r.choice(['Mar', 'Jul', 'Nov'])} {r.randint(2022, 2027)} {r.randint(0, 23):02d}:{r.randint(0, 59):02d}:00 +0000 | {r.randint(2022, 2027)}-W{r.randint(1, 52):02d} | "
        f"PT{r.randint(1, 9)}H{r.randint(1, 59)}M - normalise all of these to UTC ISO 8601"
    ),
    # maintenance schedule
    lambda r: "| window | starts (UTC) | ends (UTC) | impact |\n|---|---|---|---|\n" + "\n".join(
        f"| MW-{_digits(r, 4)} | {_date(r)} {r.randint(0, 5):02d}:00 | {r.randint(6, 9):02d}:30 | {r.choice(['read-only', 'none', 'degraded search'])} |"
        for _ in range(r.randint(2, 4))
    ),
    # compatibility matrix
    lambda r: (
        f"SDK {_ver(r)} supports API versions {r.randint(2022, 2024)}-{r.randint(1, 12):02d}-01 to {r.randint(2025, 2026)}-{r.randint(1, 12):02d}-01; "
        f"Python 3.{r.randint(9, 13)}+, Node {r.randint(18, 22)} LTS, Go 1.{r.randint(21, 23)}. Is {_ver(r)} still supported?"
    ),
    # hex dump
    lambda r: "\n".join(
        f"{i * 16:08x}: " + " ".join(_hex(r, 4) for _ in range(8)) + "  " + "".join(r.choice("....PK..ab%&") for _ in range(16))
        for i in range(r.randint(2, 4))
    ),
    # Unicode code points
    lambda r: (
        f"U+{r.randint(0x1F300, 0x1F6FF):04X} renders as tofu on Android {r.randint(8, 12)}; U+200D joins, U+FE0F selects emoji style. "
        f"Byte length in UTF-8: {r.randint(4, 28)}."
    ),
    # ledger journal
    lambda r: (
        f"{_date(r)} * Office supplies INV-{_digits(r, 6)}\n    Expenses:Office        {r.randint(5, 900)}.{_digits(r, 2)} EUR\n    Assets:Bank:Operating\n"
        f"{_date(r)} * Cloud hosting {r.choice(['Oct', 'Nov'])}\n    Expenses:Hosting       {r.randint(100, 9000)}.{_digits(r, 2)} EUR\n    Liabilities:CreditLine"
    ),
    # timetable
    lambda r: (
        f"{r.choice(['IB', 'AF', 'KL', 'TP'])}{r.randint(100, 9999)} {(a := r.choice(_AIRPORTS))} "
        f"{(dep := r.randint(5 * 60, 20 * 60)) // 60:02d}:{dep % 60:02d} -> {r.choice([x for x in _AIRPORTS if x != a])} "
        f"{(arr := dep + r.randint(55, 190)) // 60:02d}:{arr % 60:02d}, gate {r.choice('ABKS')}{r.randint(1, 60)}, "
        f"{r.choice(['A321neo', 'E190', 'B737-8', 'A220-300'])}, on time"
    ),
    # chess PGN without players
    lambda r: (
        f"[Event \"Club rapid {r.randint(1, 12)}\"]\n[Result \"{r.choice(['1-0', '0-1', '1/2-1/2'])}\"]\n[TimeControl \"{r.choice(['600+5', '900+10'])}\"]\n\n"
        f"1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Be{r.choice('23')} e5 - was move 6 book?"
    ),
    # unit conversions
    lambda r: (
        f"{(g := _gib(r))} GiB = {g * 1073741824} bytes; {r.randint(1, 64)} vCPU x {r.randint(1, 730)} h = "
        f"{r.randint(100, 99999)} vCPU-hours; {(m := r.randint(1, 99))} Mbit/s = {m / 8:.2f} MB/s"
    ),
    # HTTP request
    lambda r: (
        f"GET /api/v{r.randint(1, 3)}/{r.choice(_TBL)}?status={r.choice(['shipped', 'open'])}&since={_ts(r)}&limit={r.choice([50, 100, 500])} HTTP/1.1\n"
        f"Host: {r.choice(_HOSTS)}\nAccept: application/json\nX-Request-ID: {_uuid(r)}\nIf-None-Match: W/\"{_hex(r, 16)}\""
    ),
    # error code table
    lambda r: (
        f"E{r.randint(1000, 1999)} INVALID_CURRENCY - currency must be ISO 4217\nE{r.randint(2000, 2999)} RATE_LIMITED - retry after "
        f"{r.randint(1, 60)} s\nE{r.randint(3000, 3999)} STOCK_CONFLICT - sku reserved by order {r.randint(100, 999)}-{_digits(r, 7)}-{_digits(r, 7)}"
    ),
    # SSCC / GTIN shipping label data
    lambda r: (
        f"(00) {_sscc(r)}\n(02) {_gtin14(r)}\n(37) {r.randint(1, 400)}\n(15) {r.randint(24, 28)}{r.randint(1, 12):02d}{r.randint(1, 28):02d}\n"
        "Decode these GS1-128 application identifiers."
    ),
    # Kotlin data class
    lambda r: (
        f"data class PriceRule(\n    val id: UUID,\n    val minQty: Int = {r.randint(1, 20)},\n    val discountBps: Int = {r.randint(50, 2500)},\n"
        f"    val validUntil: Instant = Instant.parse(\"{_ts(r)}\"),\n)"
    ),
]  # fmt: skip


def generate(rng_seed: int = SEED) -> dict[str, list[dict]]:
    """The v5 frozen files' records, keyed by file name."""
    out: dict[str, list[dict]] = {}
    sizes = {"en": (400, 140), "fr": (240, 110), "es": (240, 110)}
    for offset, (lang, (n_pii, n_free)) in enumerate(sizes.items()):
        rng = random.Random(rng_seed + offset)
        templates, free = TEMPLATES[lang], CHAT_FREE[lang]
        records = []
        for i in range(n_pii):
            text, entities = fill(templates[i % len(templates)], rng, lang)
            records.append({"id": f"v5{lang}{i + 1:04d}", "lang": lang, "text": text, "entities": entities})
        for i in range(n_free):
            text = chat_free(rng, free[i % len(free)], lang)
            records.append({"id": f"v5{lang}f{i + 1:04d}", "lang": lang, "text": text, "entities": []})
        out[f"heldout-{lang}.jsonl"] = records
    rng = random.Random(rng_seed + 100)
    out["pii_free.jsonl"] = [
        {"id": f"v5t{i + 1:04d}", "lang": "en", "text": PII_FREE[i % len(PII_FREE)](rng), "entities": []}
        for i in range(480)
    ]
    return out


def render(records: list[dict]) -> bytes:
    """The JSONL bytes of ``records`` (one object a line, UTF-8, no ASCII escaping)."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def main() -> None:
    """Write the v5 files and their ``SHA256SUMS`` into ``--out`` (default ``eval/frozen_v5``)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("frozen_v5"))
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
