"""The FROZEN held-out evaluation set **v10** (issue 11, tenth held-out round).

Written blind, by a hand that neither read the detector's rules nor ran the
detector (or ``evaluate.py``) on any text, nor read any earlier set's texts or
misses, and committed before anyone measured it. v1-v9 are *spent*. v10 is the
current held-out set: it is measured once, by the lead.

Self-contained: imports nothing from the other generators. It imports
``phonenumbers`` (pinned by ``uv.lock``) only to draw phone numbers until one is
valid. Its templates and value pools (names, e-mail domains, NANP area codes,
card issuers and layouts, IBAN countries, streets and towns, PII-free chat
templates and fills, technical kinds) are new; ``tests/unit/test_eval_frozen.py``
checks the disjointness from every earlier generator and labelled value, the
soundness of every gold span, that the PII-free texts hold no IP address, MAC
address, e-mail address, v10 name or Luhn-valid run of card length, that
``eval/frozen_v10/SHA256SUMS`` pins the committed files, and that this script
reproduces them byte for byte.

Rules: ``evaluate.py --frozen-v10`` reports on these files; ``evaluate.py``
refuses ``--misses`` on them.

Files (JSONL, ``{"id", "lang", "text", "entities": [{"type", "start", "end",
"value"}]}``, code point offsets) in ``eval/frozen_v10/``:

- ``heldout-en.jsonl`` (400 messages with PII + 140 PII-free chat messages),
  ``heldout-fr.jsonl`` and ``heldout-es.jsonl`` (240 + 110 each).
- ``pii_free.jsonl`` (480): technical text; any detection is a false positive.

Gold conventions (as in v7-v9): a title is not part of a PERSON span, nor a
possessive ``'s``; ``Last, First``, ``LAST First``, initials are one span; a
first and last name written together are one span; a multi-line address is one
STREET_ADDRESS span with its line breaks (country excluded); card and IBAN
spans include their separators; a phone span is the number as written without
its extension; masked card tails (``**** 4417``) are not cards.

Usage: ``python services/redactor/eval/frozen_v10.py [--out DIR]`` (seed 41077).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import unicodedata
from pathlib import Path

import phonenumbers

SEED = 41077

# --- names -----------------------------------------------------------------------------

NAMES = {
    "en": {
        "first": [
            "Ottoline",
            "Peregrine",
            "Lysander",
            "Thandeka",
            "Whetu",
            "Tamatea",
            "Yindi",
            "Hephzibah",
            "Seamus",
            "Harjeet",
            "Gurleen",
            "Meixiang",
            "Minseo",
            "Lupe",
            "Anouska",
            "Kristof",
            "Radomir",
            "Wystan",
            "Grizel",
            "Leofric",
            "Melangell",
            "Tegwen",
            "Ffion",
            "Gethin",
            "Ianto",
            "Hywel",
            "Lowri",
            "Morwenna",
            "Kerenza",
            "Jago",
            "Demelza",
            "Nkosana",
            "Zodwa",
            "Tumelo",
            "Hinewai",
            "Ngaio",
            "Kahurangi",
            "Tipene",
            "Sakshi",
            "Kaveri",
            "Tanvi",
            "Pranav",
            "Weiming",
            "Jianhong",
            "Shuting",
            "Quynh",
            "Tsubasa",
            "Ayaka",
            "Jihoon",
            "Hayun",
        ],
        "last": [
            "Quartermaine",
            "Ironside",
            "Te Whare",
            "Tjapaltjarri",
            "Culpepper",
            "Harcourt",
            "Gillespie",
            "Vainikolo",
            "Strickland",
            "Treloar",
            "Trevithick",
            "Carnsew",
            "Polglaze",
            "Chenoweth",
            "Nankivell",
            "Roskilly",
            "Tregenza",
            "Jenkyn",
            "Kipchoge",
            "Onyango",
            "Tuiasosopo",
            "Leavasa",
            "Havili",
            "Koloamatangi",
            "Fifita",
            "Talakai",
            "Ganguly",
            "Sengupta",
            "Lakshmanan",
            "Hasegawa",
            "Ihaia-Nikau",
            "Tawhiri",
            "Mereana-Kowhai",
        ],
    },
    "fr": {
        "first": [
            "Philibert",
            "Séraphin",
            "Amadou",
            "Ndeye",
            "Ermengarde",
            "Aldebert",
            "Théodrade",
            "Radegonde",
            "Wandrille",
            "Hermance",
            "Eudoxie",
            "Athénaïs",
            "Gurvan",
            "Ewen",
            "Mariam",
            "Lalla",
            "Djamel",
            "Idir",
            "Ulysse",
            "Lothaire",
            "Guénolé",
            "Sylvestre",
            "Jeanne-Adèle",
        ],
        "last": [
            "Delacourt",
            "Vaillancourt",
            "Quéméneur",
            "Rivoallan",
            "Berthelot",
            "Mazaudier",
            "Chauvineau",
            "Ouedraogo",
            "Benslimane",
            "Tchoumba",
            "de Kerviler",
            "Rouzaud",
            "Gourvennec",
            "Penven",
            "Trividic",
            "Larvor",
            "Plouhinec",
            "Ménez",
            "Maréchal-Dutreil",
            "Hennequin",
            "Thibodeau",
            "Boisvert",
            "Ansquer",
            "Toulemonde",
            "Wattebled",
            "Caudron",
            "Sauvaget",
            "Ghazouani",
            "Haddadi",
            "Amokrane",
            "Ekambi",
        ],
    },
    "es": {
        "first": [
            "Covadonga",
            "Sagrario",
            "Telmo",
            "Yeray",
            "Nayara",
            "Yuliana",
            "Consolación",
            "Nicasio",
            "Lázaro",
            "Onofre",
            "Luz-Marina",
            "Yurena",
            "Ayoze",
            "Acerina",
            "Tanausú",
            "Chaxiraxi",
            "Maricela",
            "Osvaldo",
            "Ruperto",
            "Ailín",
        ],
        "last": [
            "Barrenechea",
            "Mondragón",
            "Ochoa",
            "Pombo",
            "Villalustre",
            "Berrocal",
            "Anguita",
            "Iturriaga",
            "Aranguren",
            "Azpilicueta",
            "Saldaña",
            "Villaseñor",
            "Buendía",
            "Olmedilla",
            "Peñalver",
            "Jaramillo",
            "Palomino",
            "Recuero",
            "Sigüenza",
            "Ayuso",
            "Carbonell",
            "Fuster",
            "Vilaplana",
            "del Recuero",
            "de Sigüenza",
        ],
    },
}

PARTICLES = ("de", "del", "van", "der", "te", "mac", "an")

TITLES = {
    "en": ["Dr", "Mrs", "Mr", "Ms", "Prof.", "Rev."],
    "fr": ["M.", "Mme", "Dr", "Me", "Maître"],
    "es": ["Sr.", "Sra.", "Dra.", "D.", "Dña."],
}


def _ascii(s: str) -> str:
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode().lower()


def person(rng: random.Random, lang: str) -> tuple[str, str]:
    """A (first, last) pair from ``lang``'s pools."""
    pools = NAMES[lang]
    return rng.choice(pools["first"]), rng.choice(pools["last"])


def name_form(p: tuple[str, str], form: str) -> str:
    """``p`` written in ``form`` (full, first, last, rev, lower, init, upper, initials)."""
    first, last = p
    if form == "full":
        return f"{first} {last}"
    if form == "first":
        return first
    if form == "last":
        return last
    if form == "rev":
        return f"{last}, {first}"
    if form == "lower":
        return f"{first} {last}".lower()
    if form == "init":
        return f"{first[0]}. {last}"
    if form == "upper":
        return f"{last.upper()} {first}"
    if form == "initials":
        return f"{first[0]}.{last[0]}."
    raise ValueError(form)


DOMAINS = {
    "en": ["quillmoor-freight.co.uk", "tidewater-dental.com.au", "kestrelbank.ie", "larchfield.org",
           "hollowayprinting.ca", "mail.pukekohe-vets.co.nz", "karoo-logistics.co.za"],
    "fr": ["fromagerie-vauclair.fr", "cabinet-lormeau.fr", "mutuelle-causses.fr", "atelier-sirocco.be",
           "notaires-pyrene.fr"],
    "es": ["talleres-ubeda.es", "clinica-almanzora.es", "bodegas-tiedra.com", "asesoria-valdejalon.es",
           "ferreteria-lucena.es"],
}  # fmt: skip


def email(rng: random.Random, p: tuple[str, str], lang: str) -> str:
    """An address for ``p`` at one of ``lang``'s domains."""
    first, last = (_ascii(x).replace(" ", "").replace("'", "") for x in p)
    local = rng.choice(
        [f"{first}.{last}", f"{first[0]}{last}", f"{last}.{first[0]}", f"{first}_{last[:4]}",
         f"{first}{rng.randint(2, 98)}", f"{last}+factures" if lang == "fr" else f"{last}+orders"]
    )  # fmt: skip
    dom = rng.choice(DOMAINS[lang])
    if rng.random() < 0.12:
        return f"{local.upper()}@{dom.upper()}"
    return f"{local}@{dom}"


# --- phones ----------------------------------------------------------------------------

_US_AREAS = ["209", "253", "262", "330", "336", "347"]
_CA_AREAS = ["257", "273", "382"]
PHONE_REGIONS = {
    "en": ["GB", "US", "CA", "IE", "AU", "NZ", "ZA", "IN", "SG"],
    "fr": ["FR", "BE", "CH", "LU", "CA", "MA"],
    "es": ["ES", "MX", "AR", "CO", "CL", "PE"],
}
_ABROAD = ["DE", "IT", "NL", "PT", "PL", "SE", "NO", "DK", "FI", "JP", "KR", "BR", "TR", "GR", "AT", "CZ",
           "HU", "RO", "IL", "AE", "NG", "KE", "PH", "TH", "MY", "SN", "CI", "UY", "EC", "CR"]  # fmt: skip
_EXT = {"en": [" ext. {n}", " x{n}", " (ext {n})"], "fr": [" poste {n}", ", poste {n}"],
        "es": [" ext. {n}", " extensión {n}"]}  # fmt: skip


def _draw(rng: random.Random, region: str) -> phonenumbers.PhoneNumber:
    kind = rng.choice([phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE])
    if region == "CI":
        kind = phonenumbers.PhoneNumberType.MOBILE
    ex = phonenumbers.example_number_for_type(region, kind) or phonenumbers.example_number(region)
    national = phonenumbers.national_significant_number(ex)
    while True:
        if region == "US":
            digits = (
                rng.choice(_US_AREAS)
                + str(rng.randint(2, 9))
                + "".join(rng.choice("0123456789") for _ in range(6))
            )
        elif region == "CA":
            digits = (
                rng.choice(_CA_AREAS)
                + str(rng.randint(2, 9))
                + "".join(rng.choice("0123456789") for _ in range(6))
            )
        else:
            keep = 2 if len(national) > 6 else 1
            digits = national[:keep] + "".join(rng.choice("0123456789") for _ in range(len(national) - keep))
        n = phonenumbers.parse("+" + str(ex.country_code) + digits)
        if phonenumbers.is_valid_number(n) and phonenumbers.region_code_for_number(n) == region:
            return n


def _layout(rng: random.Random, n: phonenumbers.PhoneNumber, national_ok: bool) -> str:
    fmt = phonenumbers.PhoneNumberFormat
    intl = phonenumbers.format_number(n, fmt.INTERNATIONAL)
    choices = [intl, phonenumbers.format_number(n, fmt.E164), intl.replace(" ", "."), intl.replace(" ", "-"),
               "00" + intl[1:]]  # fmt: skip
    if national_ok:
        nat = phonenumbers.format_number(n, fmt.NATIONAL)
        choices += [nat, nat, re.sub(r"[ ()\-.]", "", nat), nat.replace(" ", "-")]
        if n.country_code == 1:
            d = str(n.national_number)
            choices += [
                f"({d[:3]}) {d[3:6]}-{d[6:]}",
                f"{d[:3]}.{d[3:6]}.{d[6:]}",
                f"1-{d[:3]}-{d[3:6]}-{d[6:]}",
            ]
    return rng.choice(choices).strip()


def _valid_in(value: str, region: str) -> bool:
    try:
        return phonenumbers.is_valid_number(phonenumbers.parse(value, region))
    except phonenumbers.NumberParseException:
        return False


def phone(rng: random.Random, lang: str) -> tuple[str, str]:
    """A valid number (as written, without extension) and its extension text (maybe empty)."""
    if rng.random() < 0.4:
        region = rng.choice(_ABROAD)
        value = _layout(rng, _draw(rng, region), False)
    else:
        region = rng.choice(PHONE_REGIONS[lang])
        value = _layout(rng, _draw(rng, region), True)
    if not any(_valid_in(value, r) for r in PHONE_REGIONS[lang]):
        return phone(rng, lang)
    ext = rng.choice(_EXT[lang]).format(n=rng.randint(10, 4999)) if rng.random() < 0.12 else ""
    return value, ext


# --- cards -----------------------------------------------------------------------------

# (issuer, prefixes, lengths)
_CARDS = [
    ("visa", ["4"], [13, 16, 19]),
    ("mastercard", ["51", "52", "53", "54", "55"], [16]),
    ("mastercard2", [str(x) for x in range(2221, 2721, 37)], [16]),
    ("amex", ["34", "37"], [15]),
    ("discover", ["6011", "644", "645", "646", "647", "648", "649", "65"], [16, 19]),
    ("jcb", [str(x) for x in range(3528, 3590, 7)], [16, 19]),
    ("diners", ["300", "301", "302", "303", "304", "305", "36", "38"], [14]),
    ("unionpay", ["62", "81"], [16, 17, 18, 19]),
    ("maestro", ["50", "56", "57", "58", "63", "67", "69"], [12, 13, 15, 17, 18, 19]),
    ("mir", ["2200", "2201", "2202", "2203", "2204"], [16, 17, 18, 19]),
    ("rupay", ["60", "508", "82"], [16]),
    ("troy", ["9792"], [16]),
    ("verve", ["506", "650"], [16, 18, 19]),
    ("elo", ["636368", "504175", "509"], [16]),
    ("hipercard", ["606282"], [16]),
]
_GROUPS = {12: [4, 4, 4], 13: [4, 4, 5], 14: [4, 6, 4], 15: [4, 6, 5], 16: [4, 4, 4, 4],
           17: [4, 4, 4, 5], 18: [4, 4, 4, 6], 19: [4, 4, 4, 4, 3]}  # fmt: skip
_TURN = [0]


def _luhn_digit(body: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch) * (1 if i % 2 else 2)
        total += d - 9 if d > 9 else d
    return str((10 - total % 10) % 10)


def card(rng: random.Random) -> str:
    """A Luhn-valid card number of a real issuer range, in a layout people write."""
    _, prefixes, lengths = _CARDS[_TURN[0] % len(_CARDS)]
    length = lengths[(_TURN[0] // len(_CARDS)) % len(lengths)]
    _TURN[0] += 1
    prefix = rng.choice(prefixes)
    body = prefix + "".join(rng.choice("0123456789") for _ in range(length - 1 - len(prefix)))
    digits = body + _luhn_digit(body)
    sep = rng.choice([" ", " ", "-", ".", ""])
    if not sep:
        return digits
    out, i = [], 0
    for g in _GROUPS[length]:
        out.append(digits[i : i + g])
        i += g
    return sep.join(out)


# --- IBANs -----------------------------------------------------------------------------

# BBAN layouts (a: upper letter, n: digit); lengths as the SWIFT registry has them
_BBAN = {
    "GB": "aaaa" + "n" * 14, "IE": "aaaa" + "n" * 14, "MT": "aaaa" + "n" * 23, "GI": "aaaa" + "n" * 15,
    "KW": "aaaa" + "n" * 22, "QA": "aaaa" + "n" * 21, "BH": "aaaa" + "n" * 14, "PK": "aaaa" + "n" * 16,
    "VG": "aaaa" + "n" * 16, "TL": "n" * 19, "EG": "n" * 25, "GE": "aa" + "n" * 16, "XK": "n" * 16,
    "FR": "n" * 23, "BE": "n" * 12, "LU": "n" * 16, "MC": "n" * 23, "CH": "n" * 17, "MK": "n" * 15,
    "AL": "n" * 24, "ME": "n" * 18,
    "ES": "n" * 20, "PT": "n" * 21, "VA": "n" * 18, "SK": "n" * 20, "RS": "n" * 18, "BA": "n" * 16,
    "DO": "aaaa" + "n" * 20, "BR": "n" * 23 + "aa",
    # not in the SWIFT registry: the layouts and lengths their banks issue
    "DZ": "n" * 22, "MG": "n" * 23, "IR": "n" * 22, "AO": "n" * 21, "MZ": "n" * 21, "CV": "n" * 21,
}  # fmt: skip
_IBAN_COUNTRIES = {
    "en": ["GB", "IE", "MT", "GI", "KW", "QA", "BH", "PK", "VG", "TL", "EG", "GE", "XK", "IR"],
    "fr": ["FR", "BE", "LU", "MC", "CH", "MK", "AL", "ME", "DZ", "MG"],
    "es": ["ES", "PT", "VA", "SK", "RS", "BA", "DO", "BR", "AO", "MZ", "CV"],
}
# outside the SWIFT registry (their banks' layouts and lengths)
_IBAN_OUTSIDE_SWIFT = frozenset({"DZ", "MG", "IR", "AO", "MZ", "CV"})
# no IBAN country is new any more: every country with IBANs was planted by an earlier set or round;
# the values (check digits and BBANs) are new
_IBAN_NEW: frozenset[str] = frozenset()
_IBAN_TURN = {"en": [0], "fr": [0], "es": [0]}
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def iban(rng: random.Random, lang: str) -> str:
    """An IBAN with valid ISO 13616 check digits, spaced in 4s, unspaced or lower case."""
    pool = _IBAN_COUNTRIES[lang]
    cc = pool[_IBAN_TURN[lang][0] % len(pool)]
    _IBAN_TURN[lang][0] += 1
    bban = "".join(rng.choice(_UPPER) if c == "a" else rng.choice("0123456789") for c in _BBAN[cc])
    num = int("".join(str(int(c, 36)) for c in bban + cc + "00"))
    code = f"{cc}{98 - num % 97:02d}{bban}"
    style = rng.random()
    if style < 0.55:
        return " ".join(code[i : i + 4] for i in range(0, len(code), 4))
    if style < 0.85:
        return code
    return " ".join(code[i : i + 4] for i in range(0, len(code), 4)).lower()


# --- addresses -------------------------------------------------------------------------

STREETS = {
    "en": ["Wrenbury Close", "Cindermill Road", "Ottercombe Lane", "Bramblefold Crescent", "Kittiwake Parade",
           "Saltcote Rise", "Hobnail Way", "Larchmere Avenue", "Quoit Green", "Tanyard Mews"],
    "us": ["Sassafras Hollow Road", "N Cottonwood Bend Dr", "W Plover Ridge Blvd", "Beaverkill Trail"],
    "fr": ["rue des Cordiers-Neufs", "avenue Aristide-Bergès", "boulevard du Bief-Vert",
           "chemin de la Combe-Noire", "allée des Rouges-Gorges", "impasse du Moulin-Brûlé",
           "rue de la Grange-aux-Dîmes", "rue du Puits-Salé"],
    "es": ["calle Cerrajeros del Pilar", "avenida de los Almendros Bajos", "plaza del Rosal Viejo",
           "paseo de las Tenerías", "camino de Valdelosa", "carretera de Almazán", "calle Alfareros de Triana",
           "avenida del Bierzo Alto"],
}  # fmt: skip
_UK = [("Ludlow", "SY8"), ("Hexham", "NE46"), ("Bideford", "EX39"), ("Oban", "PA34")]
_US = [("Fayetteville", "AR", "727"), ("Madison", "WI", "537"), ("Bismarck", "ND", "585"),
       ("Brattleboro", "VT", "053"), ("Juneau", "AK", "998")]  # fmt: skip
_IE = [("Ballina", "Co. Mayo", "F26"), ("Clonakilty", "Co. Cork", "P85"), ("Tullamore", "Co. Offaly", "R35")]
_AU = [("Mudgee", "NSW", "2850"), ("Bendigo", "VIC", "3550"), ("Kalgoorlie", "WA", "6430")]
_CA = [("Moose Jaw", "SK", "S6H"), ("Corner Brook", "NL", "A2H"), ("Red Deer", "AB", "T4N")]
_NZ = [("Timaru", "7910"), ("Masterton", "5810"), ("Levin", "5510")]
_ZA = [("Stellenbosch", "7600"), ("Polokwane", "0699"), ("Upington", "8800")]
_FR = ["24200 Sarlat-la-Canéda", "15000 Aurillac", "04000 Digne-les-Bains", "79000 Niort", "52000 Chaumont",
       "36000 Châteauroux"]  # fmt: skip
_FR_CEDEX = ["86034 Poitiers CEDEX", "33076 Bordeaux Cedex", "51096 Reims CEDEX 2"]
_FR_LIEUDIT = ["Lieu-dit Les Granges-Basses", "Lieu-dit La Font-Vieille", "Lieu-dit Le Pech-Haut"]
_ES = [("44001", "Teruel", "Teruel"), ("42002", "Soria", "Soria"), ("22700", "Jaca", "Huesca"),
       ("06800", "Mérida", "Badajoz"), ("10600", "Plasencia", "Cáceres"), ("28901", "Getafe", "Madrid")]  # fmt: skip
_L = "ABDEFHJNPRSTUWXY"


def _en_address(rng: random.Random) -> list[str]:
    k = rng.randrange(8)
    n = str(rng.randint(2, 240))
    if k == 0:
        town, out = rng.choice(_UK)
        pc = f"{out} {rng.randint(1, 9)}{rng.choice(_L)}{rng.choice(_L)}"
        return [f"{rng.choice(['', 'Flat 2, ', 'Unit 7, '])}{n} {rng.choice(STREETS['en'])}", town, pc]
    if k in (1, 2):
        city, st, z = rng.choice(_US)
        zipc = f"{z}{rng.randint(10, 99)}"
        if k == 2 and rng.random() < 0.5:
            first = rng.choice(
                [f"PO Box {rng.randint(100, 9999)}", f"RR {rng.randint(1, 6)} Box {rng.randint(10, 300)}"]
            )
        else:
            first = f"{n} {rng.choice(STREETS['us'])}{rng.choice(['', ' Apt 3C', ' Suite 410'])}"
        return [first, f"{city}, {st} {zipc}"]
    if k == 3:
        town, county, rk = rng.choice(_IE)
        return [
            f"{n} {rng.choice(STREETS['en'])}",
            town,
            county,
            f"{rk} {rng.choice(_L)}{rng.randint(100, 999)}",
        ]
    if k == 4:
        sub, st, pc = rng.choice(_AU)
        return [f"{rng.choice(['', 'Unit 4/', '12/'])}{n} {rng.choice(STREETS['en'])}", f"{sub} {st} {pc}"]
    if k == 5:
        city, prov, fsa = rng.choice(_CA)
        return [
            f"{n} {rng.choice(STREETS['en'])}",
            f"{city} {prov} {fsa} {rng.randint(1, 9)}{rng.choice(_L)}{rng.randint(1, 9)}",
        ]
    if k == 6:
        town, pc = rng.choice(_NZ)
        return [f"{n} {rng.choice(STREETS['en'])}", f"{town} {pc}"]
    town, pc = rng.choice(_ZA)
    return [f"{n} {rng.choice(STREETS['en'])}", town, pc]


def _fr_address(rng: random.Random) -> list[str]:
    k = rng.randrange(4)
    n = f"{rng.randint(1, 160)}{rng.choice(['', '', ' bis', ' ter', 'B'])}"
    street = rng.choice(STREETS["fr"])
    if k == 0:
        return [f"{n}, {street}", rng.choice(_FR)]
    if k == 1:
        return [f"{n} {street}", rng.choice(_FR_CEDEX)]
    if k == 2:
        return [rng.choice(_FR_LIEUDIT), rng.choice(_FR)]
    return [f"Bâtiment C, {n} {street}", rng.choice(_FR)]


def _es_address(rng: random.Random) -> list[str]:
    cp, city, prov = rng.choice(_ES)
    street = rng.choice(STREETS["es"])
    n = rng.randint(1, 190)
    piso = rng.choice(["", f", {rng.randint(1, 9)}.º {rng.choice('ABCD')}", f", esc. {rng.choice('12ID')}, {rng.randint(1, 7)}º {rng.randint(1, 4)}ª",
                       f", piso {rng.randint(1, 8)}, puerta {rng.randint(1, 6)}", ", bajo izda."])  # fmt: skip
    if street.startswith("carretera") or street.startswith("camino"):
        first = (
            f"{street}, km {rng.randint(2, 40)},{rng.randint(1, 9)}"
            if rng.random() < 0.5
            else f"{street}, s/n"
        )
    else:
        first = f"{street}, {n}{piso}" if rng.random() < 0.6 else f"{street} n.º {n}{piso}"
    last = rng.choice([f"{cp} {city} ({prov})", f"{cp} {city}, {prov}"])
    return [first, last]


def address(rng: random.Random, lang: str, multiline: bool) -> str:
    """An address in one of ``lang``'s countries' layouts, on one line or several."""
    lines = {"en": _en_address, "fr": _fr_address, "es": _es_address}[lang](rng)
    return "\n".join(lines) if multiline else ", ".join(lines)


# --- templates -------------------------------------------------------------------------

TEMPLATES = {
    "en": [
        "Ticket #{REF} reopened by {P1:full}. Callback on {PH} please, she says the refund hit {CC} twice.",
        "From: {P1:full} <{E1}>\nSubject: change of bank\n\nPlease pay invoice {REF} to {IB} from now on.\n\nCheers,\n{P1:first}",
        'name,email,phone,postcode_area\n"{P1:rev}",{E1},{PH},north\n',
        '{{"tool":"crm.update_contact","args":{{"display_name":"{P1:full}","mobile":"{PH}","email":"{E1}"}}}}',
        "Ship to:\n{P1:upper}\n{AM}\nTel {PH}",
        "hi {P1:lower} here, my card {CC} got declined at the till, can you check? last four on the receipt say **** {LAST4}",
        "Reminder: {T} {P1:last}, your appointment with {T} {P2:full} is on {DATE}. Reply to {E1} or ring {PH} to move it.",
        "| employee | iban | start |\n|---|---|---|\n| {P1:full} | {IB} | {DATE} |\n| {P2:init} | {IB2} | {DATE} |",
        "Meeting notes {DATE}: {P1:full} and {P2:first} agreed to move the depot to {AD}. {P2:first} will email {E2}.",
        'employee:\n  name: {P1:rev}\n  home: "{AD}"\n  salary_account: {IB}\n  emergency_contact: {PH}',
        "Dear {T} {P1:last},\n\nWe have received your payment of {AMT} from account {IB}. Our records show your address as\n{AM}\n\nYours sincerely,\nAccounts team",
        "spoke to {P1:first} at 3, she wants the parcel left with {P2:full} next door, {AD}",
        "Card on file: {CC} (exp 09/29). Cardholder {P1:upper}. Billing: {AD}.",
        "Thanks {P1:first}! Forwarding to {P2:full} ({E2}, {PH}) who handles the Leeds accounts.",
        "{P1:initials} signed off the PO; invoice {REF} goes to {E1}, wire to {IB}.",
        "Customer {P1:rev} called from {PH}{X} about order {REF}; wants delivery to {AD} instead.",
        "-- \n{P1:full}\nSenior Buyer | Quillmoor Freight\nM: {PH}\nE: {E1}",
        "Please update payroll: {P1:full} moved to {AM}\nnew account {IB}",
        "{P1:full}, {P2:full} and {P3:full} are on the rota tonight; if nobody answers try {PH}",
        "refund of {AMT} approved for {P1:init}, original card {CC}, confirmation sent to {E1}",
        "Patient: {P1:upper}\nDOB: 1980-ish (see chart)\nPhone: {PH}\nAddress: {AD}",
        "lol {P1:lower} just paid me back with {CC} via the app, tell {P2:first} to stop worrying",
        "Chat transcript\n[agent] Can I take the long card number?\n[customer] {CC}\n[agent] And the postal address?\n[customer] {AD}",
        "Standing order set up: payee {P1:full}, IBAN {IB}, reference {REF}, amount {AMT} monthly.",
        "we met {P1:full} at the trade fair; her direct line is {PH} and she ships from {AD}",
        "Vendor form\nLegal name: {P1:full}\nRemittance e-mail: {E1}\nIBAN: {IB}\nPhone: {PH}",
        "Could {P1:full} ring me back on {PH}? I'm at {AD} all week.",
        "Return label\nFROM: {P1:full}, {AD}\nTO: Returns Dept (label printed from the portal)",
        "{P1:last}'s new card is {CC}; keep the old one ending {LAST4} blocked.",
        "Your statement is ready, {P1:first}. Direct debit from {IB} will be collected on {DATE}.",
    ],
    "fr": [
        "Bonjour {T} {P1:last},\n\nVotre rendez-vous avec {T} {P2:full} est fixé au {DATE}. En cas d'empêchement, appelez le {PH}.\n\nCordialement",
        "De : {P1:full} <{E1}>\nObjet : nouveau RIB\n\nMerci de virer désormais sur {IB}.\n\n{P1:first}",
        "nom;courriel;téléphone\n{P1:upper};{E1};{PH}\n",
        '{{"outil":"facturation.creer","params":{{"client":"{P1:full}","iban":"{IB}","adresse":"{AD}"}}}}',
        "Livraison :\n{P1:full}\n{AM}\nTél. {PH}",
        "salut c'est {P1:lower}, ma carte {CC} a été refusée hier, tu peux regarder ?",
        "Compte rendu du {DATE} : {P1:full} reprend le dossier, {P2:init} assure l'intérim. Contact : {E2}.",
        "Fiche salarié\nNom : {P1:rev}\nAdresse : {AD}\nIBAN : {IB}\nPortable : {PH}",
        "Madame, Monsieur,\n\nNous accusons réception de votre règlement de {AMT} par carte {CC}. Le colis partira vers\n{AM}\n\nLe service client",
        "{P1:first} passe demain chez {P2:full}, {AD}, pour récupérer les clés.",
        "Pour le remboursement, {P1:init} a donné la carte {CC} et le numéro {PH}{X}.",
        "--\n{P1:full}\nResponsable achats\nTél. : {PH}\nMél : {E1}",
        "Merci {P1:first} ! Je transmets à {P2:full} ({E2}) qui gère les comptes de Lyon.",
        "Prélèvement mensuel de {AMT} sur le compte {IB} au nom de {P1:upper}.",
        "on a croisé {P1:full} au salon, elle livre depuis {AD}, son fixe c'est le {PH}",
        "Bénéficiaire : {P1:full}\nIBAN : {IB}\nRéférence : {REF}",
        "Rappel : vaccination de Pistache le {DATE} avec {T} {P1:last}. Répondez à {E1}.",
        "Le client {P1:rev} a appelé du {PH} au sujet de la commande {REF}.",
        "{P1:full}, {P2:full} et {P3:first} sont de permanence ; sinon essayez le {PH}",
        "Carte enregistrée : {CC}. Titulaire : {P1:full}. Facturation : {AD}.",
    ],
    "es": [
        "Estimado/a {T} {P1:last}:\n\nLe recordamos su cita con la Dra. {P2:full} el {DATE}. Para cambiarla llame al {PH}.\n\nUn saludo",
        "De: {P1:full} <{E1}>\nAsunto: cambio de cuenta\n\nA partir de ahora transferid a {IB}.\n\n{P1:first}",
        'nombre;correo;telefono\n"{P1:rev}";{E1};{PH}\n',
        '{{"herramienta":"envios.crear","args":{{"destinatario":"{P1:full}","telefono":"{PH}","direccion":"{AD}"}}}}',
        "Enviar a:\n{P1:upper}\n{AM}\nTlf. {PH}",
        "hola soy {P1:lower}, me han rechazado la tarjeta {CC} en la gasolinera, ¿lo miras?",
        "Acta del {DATE}: {P1:full} y {P2:first} acuerdan trasladar el almacén a {AD}. {P2:first} escribirá a {E2}.",
        "Ficha de empleado\nNombre: {P1:rev}\nDomicilio: {AD}\nIBAN: {IB}\nMóvil: {PH}",
        "Muy señor mío:\n\nHemos recibido su pago de {AMT} con la tarjeta {CC}. El pedido se enviará a\n{AM}\n\nAtención al cliente",
        "{P1:first} se queda con las llaves de {P2:full}, que vive en {AD}.",
        "Para el reembolso, {P1:init} facilitó la tarjeta {CC} y el teléfono {PH}{X}.",
        "--\n{P1:full}\nJefa de compras\nTel.: {PH}\nCorreo: {E1}",
        "¡Gracias {P1:first}! Se lo paso a {P2:full} ({E2}), que lleva las cuentas de Zaragoza.",
        "Domiciliación de {AMT} en la cuenta {IB} a nombre de {P1:upper}.",
        "conocimos a {P1:full} en la feria, envía desde {AD} y su fijo es el {PH}",
        "Beneficiario: {P1:full}\nIBAN: {IB}\nConcepto: {REF}",
        "Recordatorio: revisión dental el {DATE} con la Dra. {P1:last}. Responda a {E1}.",
        "El cliente {P1:rev} llamó desde el {PH} por el pedido {REF}.",
        "{P1:full}, {P2:full} y {P3:first} están de guardia; si no, pruebe el {PH}",
        "Tarjeta guardada: {CC}. Titular: {P1:full}. Facturación: {AD}.",
    ],
}

_SLOT = re.compile(r"\{\{|\}\}|\{(P[123]:\w+|T|E[12]|PH|CC|IB2?|AD|AM|REF|DATE|AMT|X|LAST4)\}")
_DATES = {"en": ["4 November", "Friday 21st", "the 9th", "Jan 30"], "fr": ["8 janvier", "jeudi 11", "vendredi 27 mars"],
          "es": ["5 de mayo", "martes 16", "jueves 2 de abril"]}  # fmt: skip
_AMTS = {
    "en": ["£312.40", "$1,085.00", "€77.15"],
    "fr": ["418,60 €", "1 250,00 €"],
    "es": ["93,20 €", "2.140,00 €"],
}


def fill(template: str, rng: random.Random, lang: str) -> tuple[str, list[dict]]:
    """``template`` with its slots filled, and the gold entities of the filled text."""
    people: dict[str, tuple[str, str]] = {}
    out: list[str] = []
    ents: list[dict] = []
    pos = 0
    last = 0
    ext = ""

    def put(text: str, typ: str | None) -> None:
        nonlocal pos
        if typ:
            ents.append({"type": typ, "start": pos, "end": pos + len(text), "value": text})
        out.append(text)
        pos += len(text)

    for m in _SLOT.finditer(template):
        put(template[last : m.start()], None)
        last = m.end()
        tok = m.group(0)
        if tok in ("{{", "}}"):
            put(tok[0], None)
            continue
        slot = m.group(1)
        if ":" in slot:
            key, form = slot.split(":")
            while key not in people:
                p = person(rng, lang)
                if p not in people.values():
                    people[key] = p
            put(name_form(people[key], form), "PERSON")
        elif slot == "T":
            put(rng.choice(TITLES[lang]), None)
        elif slot in ("E1", "E2"):
            key = "P" + slot[1]
            if key not in people:
                people[key] = person(rng, lang)
            put(email(rng, people[key], lang), "EMAIL_ADDRESS")
        elif slot == "PH":
            value, ext = phone(rng, lang)
            put(value, "PHONE_NUMBER")
        elif slot == "X":
            put(ext, None)
        elif slot == "CC":
            put(card(rng), "CREDIT_CARD")
        elif slot in ("IB", "IB2"):
            put(iban(rng, lang), "IBAN_CODE")
        elif slot == "AD":
            put(address(rng, lang, False), "STREET_ADDRESS")
        elif slot == "AM":
            put(address(rng, lang, True), "STREET_ADDRESS")
        elif slot == "REF":
            put(f"{rng.choice(['INV', 'PO', 'SO', 'RMA'])}-{rng.randint(20000, 99999)}", None)
        elif slot == "DATE":
            put(rng.choice(_DATES[lang]), None)
        elif slot == "AMT":
            put(rng.choice(_AMTS[lang]), None)
        elif slot == "LAST4":
            put(f"{rng.randint(0, 9999):04d}", None)
    put(template[last:], None)
    return "".join(out), ents


# --- PII-free chat ---------------------------------------------------------------------

_CHAT_FILL = {
    "en": ["the rhubarb crumble", "a cast-iron griddle", "the loft hatch draught strip", "a second-hand canoe trailer",
           "the quarterly VAT return", "the lino in the hallway", "a seed-tray heater", "the tide tables",
           "a folding workbench", "the choir rota"],
    "fr": ["la tarte aux mirabelles", "un vélo cargo", "la déclaration de TVA trimestrielle",
           "le carrelage de la véranda", "une sorbetière à manivelle", "les horaires des marées", "un établi pliant",
           "la chorale du mardi"],
    "es": ["la tarta de queso de La Viña", "una olla de barro para el cocido", "la declaración trimestral del IVA",
           "el suelo del porche", "una bici de montaña usada", "la tabla de mareas", "un banco de trabajo plegable",
           "el coro de los jueves"],
}  # fmt: skip
CHAT_FREE = {
    "en": [
        "has anyone actually tried {F}? worth it or not",
        "Quick one: is {F} still on for this weekend?",
        "I finally sorted {F}, took me most of Saturday",
        "Can you add {F} to the shopping list for the cabin trip",
        "Does {F} need booking in advance or can we just turn up?",
        "honestly {F} was the best part of the week",
        "Reminder to self: check {F} before the inspection",
        "We should compare notes on {F} at the next club night",
    ],
    "fr": [
        "quelqu'un a déjà testé {F} ? ça vaut le coup ?",
        "Petite question : {F}, c'est toujours prévu ce week-end ?",
        "J'ai enfin réglé {F}, ça m'a pris tout le samedi",
        "Tu peux ajouter {F} à la liste pour le gîte ?",
        "Il faut réserver pour {F} ou on peut venir comme ça ?",
        "franchement {F}, c'était le meilleur moment de la semaine",
    ],
    "es": [
        "¿alguien ha probado {F}? ¿merece la pena?",
        "Una cosa: ¿{F} sigue en pie para el finde?",
        "Por fin arreglé {F}, me llevó todo el sábado",
        "¿Puedes apuntar {F} en la lista para la casa rural?",
        "¿Hay que reservar {F} o se puede ir sin más?",
        "la verdad es que {F} fue lo mejor de la semana",
    ],
}
_CHAT_TAIL = {
    "en": ["", " :)", " thanks!", " no rush", " (asking for the group)", " cheers", " x"],
    "fr": ["", " :)", " merci !", " pas d'urgence", " bises", " (pour le groupe)"],
    "es": ["", " :)", " ¡gracias!", " sin prisa", " un abrazo", " (pregunto por el grupo)"],
}


def chat_free(rng: random.Random, lang: str) -> str:
    """A PII-free chat message in ``lang``."""
    t = rng.choice(CHAT_FREE[lang]).format(F=rng.choice(_CHAT_FILL[lang]))
    if t[0].islower() and rng.random() < 0.3:
        t = t[0].upper() + t[1:]
    return t + rng.choice(_CHAT_TAIL[lang])


# --- PII-free technical text -----------------------------------------------------------


def _hex(r: random.Random, k: int) -> str:
    return "".join(r.choice("0123456789abcdef") for _ in range(k))


def _uuid(r: random.Random) -> str:
    h = _hex(r, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _ts(r: random.Random) -> str:
    return f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}T{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}Z"


_SVC = ["tariff-engine", "pallet-router", "invoice-render", "stock-reconciler", "webhook-relay", "tile-cache"]
_TBL = ["pallet_moves", "tariff_bands", "render_jobs", "stock_counts", "relay_attempts"]
_EXC = ["IndexError", "PermissionError", "RuntimeError", "BrokenPipeError"]


def _tech(r: random.Random, kind: int) -> str:
    svc, tbl, exc = r.choice(_SVC), r.choice(_TBL), r.choice(_EXC)
    v = f"{r.randint(0, 9)}.{r.randint(0, 30)}.{r.randint(0, 40)}"
    n = r.randint(10, 99999)
    ts = _ts(r)
    kinds = [
        lambda: f"{ts} INFO {svc} request_id={_uuid(r)} status=200 duration_ms={r.randint(3, 900)}",
        lambda: (
            f"{ts} WARN {svc} retrying batch {n} attempt={r.randint(2, 5)} backoff_ms={r.randint(100, 5000)}"
        ),
        lambda: (
            f'Traceback (most recent call last):\n  File "/srv/{svc}/app/jobs.py", line {r.randint(10, 900)}, in run\n    rows = fetch_{tbl}(cursor)\n{exc}: batch {n} could not be processed'
        ),
        lambda: (
            f"SELECT sku, qty FROM {tbl} WHERE updated_at > '{ts}' AND qty > {r.randint(1, 50)} ORDER BY sku LIMIT {r.randint(10, 500)};"
        ),
        lambda: (
            f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {svc}\nspec:\n  replicas: {r.randint(1, 6)}\n  template:\n    spec:\n      containers:\n        - name: {svc}\n          image: registry.internal/{svc}:{v}\n          resources:\n            limits: {{cpu: {r.randint(100, 900)}m, memory: {r.randint(64, 900)}Mi}}"
        ),
        lambda: f'{{"event":"{tbl}.updated","id":"{_uuid(r)}","version":"{v}","count":{n},"ok":true}}',
        lambda: (
            f"sku,warehouse,qty,unit_cost\nSKU-{r.randint(1000, 9999)},WH-{r.randint(1, 9)},{r.randint(1, 400)},{r.randint(1, 99)}.{r.randint(10, 99)}\nSKU-{r.randint(1000, 9999)},WH-{r.randint(1, 9)},{r.randint(1, 400)},{r.randint(1, 99)}.{r.randint(10, 99)}"
        ),
        lambda: (
            f"GET /api/v3/{tbl}?page={r.randint(1, 40)}&per_page=50 HTTP/1.1\nHost: api.example.internal\nAccept: application/json\n\nHTTP/1.1 200 OK\nContent-Type: application/json\nX-Request-Id: {_uuid(r)}"
        ),
        lambda: f"commit {_hex(r, 40)}\n\n    {svc}: bump to {v}, fix flaky {tbl} test",
        lambda: f"sha256:{_hex(r, 64)}  {svc}-{v}.tar.gz",
        lambda: (
            f"Compiling {svc} v{v} (/build/{svc})\n    Finished release [optimized] target(s) in {r.randint(10, 300)}.{r.randint(0, 9)}s"
        ),
        lambda: (
            f'# HELP {tbl}_total Rows processed.\n# TYPE {tbl}_total counter\n{tbl}_total{{service="{svc}"}} {n}'
        ),
        lambda: (
            f'[{svc}]\nworkers = {r.randint(1, 32)}\ntimeout_s = {r.randint(5, 120)}\nqueue = "{tbl}"\nretries = {r.randint(0, 9)}'
        ),
        lambda: (
            f"Order ORD-{r.randint(100000, 999999)} status changed: picked -> packed ({r.randint(1, 40)} items, {r.randint(1, 9)} boxes)"
        ),
        lambda: (
            f"Invoice INV/2026/{r.randint(1000, 9999)} total {r.randint(10, 9999)}.{r.randint(10, 99)} EUR, VAT {r.choice([5, 10, 20, 21])}%, due in 30 days"
        ),
        lambda: (
            f"def {tbl}_checksum(rows):\n    acc = 0\n    for row in rows:\n        acc ^= hash(row.sku) & 0x{_hex(r, 6)}\n    return acc"
        ),
        lambda: (
            f'resource "aws_s3_bucket" "{tbl.replace("_", "-")}" {{\n  bucket = "{svc}-artifacts-{_hex(r, 6)}"\n  tags = {{ team = "platform", cost_center = "cc-{r.randint(100, 999)}" }}\n}}'
        ),
        lambda: (
            f"{r.randint(0, 59)} {r.randint(0, 23)} * * {r.randint(0, 6)} /usr/local/bin/{svc} --compact --table {tbl}"
        ),
        lambda: (
            f"| metric | p50 | p95 |\n|---|---|---|\n| {svc} latency (ms) | {r.randint(1, 90)} | {r.randint(90, 900)} |\n| {tbl} rows/s | {n} | {n // 2} |"
        ),
        lambda: (
            f"Error: {svc}@{v} requires peer dependency react@^{r.randint(16, 19)}.0.0 but none was installed"
        ),
        lambda: (
            f"  at {svc.replace('-', '')}.Handler.process ({svc}/handler.js:{r.randint(10, 600)}:{r.randint(1, 80)})\n  at async Promise.all (index {r.randint(0, 9)})"
        ),
        lambda: (
            f"diff --git a/config/{svc}.yaml b/config/{svc}.yaml\n-  replicas: {r.randint(1, 4)}\n+  replicas: {r.randint(5, 9)}"
        ),
        lambda: (
            f"Build #{r.randint(100, 9999)} succeeded in {r.randint(1, 30)}m{r.randint(0, 59)}s; {r.randint(100, 3000)} tests passed, {r.randint(0, 12)} skipped"
        ),
        lambda: f"https://docs.example.org/{svc}/v{v}/reference#{tbl}",
        lambda: (
            f"LOT {r.choice('ABCDEFGH')}{r.randint(100, 999)}-{r.randint(10, 99)} | batch {n} | humidity {r.randint(20, 80)}% | temp {r.randint(2, 30)}.{r.randint(0, 9)} C"
        ),
        lambda: (
            f"Warning: unused variable `{tbl}` in src/{svc.replace('-', '_')}.rs line {r.randint(10, 999)}"
        ),
        lambda: (
            f"kubectl rollout status deployment/{svc} -n prod\nWaiting for {r.randint(1, 5)} of {r.randint(6, 9)} updated replicas to be available..."
        ),
        lambda: (
            f"INSERT INTO {tbl} (id, created_at, qty) VALUES ('{_uuid(r)}', '{ts}', {r.randint(1, 999)});"
        ),
        lambda: (
            f'ETag: "{_hex(r, 32)}"\nCache-Control: max-age={r.randint(60, 86400)}\nVary: Accept-Encoding'
        ),
        lambda: (
            f"shipment SHP-{_hex(r, 8).upper()} weight={r.randint(1, 900)}kg pallets={r.randint(1, 24)} route=R{r.randint(10, 99)}"
        ),
    ]
    return kinds[kind % len(kinds)]()


def _luhn_run(text: str) -> bool:
    for run in re.findall(r"(?<![0-9A-Za-z])\d{12,19}(?![0-9A-Za-z])", text):
        total = 0
        for i, ch in enumerate(reversed(run)):
            d = int(ch) * (2 if i % 2 else 1)
            total += d - 9 if d > 9 else d
        if total % 10 == 0:
            return True
    return False


def generate(rng_seed: int = SEED) -> dict[str, list[dict]]:
    """The four files' records, deterministic for ``rng_seed``."""
    rng = random.Random(rng_seed)
    _TURN[0] = 0
    for t in _IBAN_TURN.values():
        t[0] = 0
    out: dict[str, list[dict]] = {}
    sizes = {"en": (400, 140), "fr": (240, 110), "es": (240, 110)}
    for lang in ("en", "fr", "es"):
        records: list[dict] = []
        n_pii, n_free = sizes[lang]
        for i in range(n_pii):
            text, ents = fill(TEMPLATES[lang][i % len(TEMPLATES[lang])], rng, lang)
            records.append(
                {"id": f"v10{lang}{len(records) + 1:04d}", "lang": lang, "text": text, "entities": ents}
            )
        seen: set[str] = set()
        while len(seen) < n_free:
            text = chat_free(rng, lang)
            if text in seen:
                continue
            seen.add(text)
            records.append(
                {"id": f"v10{lang}{len(records) + 1:04d}", "lang": lang, "text": text, "entities": []}
            )
        out[f"heldout-{lang}.jsonl"] = records
    free: list[dict] = []
    texts: set[str] = set()
    while len(free) < 480:
        text = _tech(rng, len(free) % 30)
        if text in texts or _luhn_run(text):
            continue
        texts.add(text)
        free.append({"id": f"v10tech{len(free) + 1:04d}", "lang": "en", "text": text, "entities": []})
    out["pii_free.jsonl"] = free
    return out


def render(records: list[dict]) -> bytes:
    """The JSONL bytes of ``records`` (one object a line, UTF-8, no ASCII escaping)."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def main() -> None:
    """Write the v10 files and their ``SHA256SUMS`` into ``--out`` (default ``eval/frozen_v10``)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("frozen_v10"))
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
