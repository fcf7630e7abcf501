"""The FROZEN held-out evaluation set **v11** (issue 11, eleventh held-out round).

Written blind, by a hand that neither read the detector's rules nor ran the
detector (or ``evaluate.py``) on any text, nor read any earlier set's texts or
misses, and committed before anyone measured it. v1-v10 are *spent*. v11 is the
current held-out set: it is measured once, by the lead.

Self-contained: imports nothing from the other generators. It imports
``phonenumbers`` (pinned by ``uv.lock``) only to draw phone numbers until one is
valid. Its templates and value pools (names, e-mail domains, NANP area codes,
streets and towns, PII-free chat templates and fills, technical kinds) are new; the card issuer ranges are the real ones (values new) and the
IBAN countries are a new mix of countries planted before (every country with
IBANs was planted by an earlier set; the values are new).
``tests/unit/test_eval_frozen.py`` checks the disjointness from every earlier
generator and labelled value, the soundness of every gold span, that the
PII-free texts hold no IP address, MAC address, e-mail address, v11 name or
Luhn-valid run of card length, that ``eval/frozen_v11/SHA256SUMS`` pins the
committed files, and that this script reproduces them byte for byte.

PERSON weighs most in v11: most names carry no cue word (no title, no
``name:``, no greeting): names as subject or object of a sentence, in attendee
lists, CSV/TSV cells, JSON values under varied keys, after ``cc``, in lower
case, all caps, with initials, hyphenated, with particles, of many origins.

Rules: ``evaluate.py --frozen-v11`` reports on these files; ``evaluate.py``
refuses ``--misses`` on them.

Files (JSONL, ``{"id", "lang", "text", "entities": [{"type", "start", "end",
"value"}]}``, code point offsets) in ``eval/frozen_v11/``:

- ``heldout-en.jsonl`` (400 messages with PII + 140 PII-free chat messages),
  ``heldout-fr.jsonl`` and ``heldout-es.jsonl`` (240 + 110 each).
- ``pii_free.jsonl`` (480): technical text; any detection is a false positive.

Gold conventions (as in v7-v10): a title is not part of a PERSON span, nor a
possessive ``'s``; ``Last, First``, ``LAST First``, initials are one span; a
first and last name written together are one span; a multi-line address is one
STREET_ADDRESS span with its line breaks (country excluded); card and IBAN
spans include their separators; a phone span is the number as written without
its extension; masked card tails (``**** 4417``) are not cards.

Usage: ``python services/redactor/eval/frozen_v11.py [--out DIR]`` (seed 70913).
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

SEED = 70913

# --- names -----------------------------------------------------------------------------

NAMES = {
    "en": {
        "first": ["Chidubem", "Siyabonga", "Wirihana", "Tavita", "Dervla", "Cressida", "Evander", "Ptolemy",
                  "Zebedee", "Xanthe", "Dashiell", "Keziah", "Jedidiah", "Yetunde", "Manpreet", "Sukhjinder",
                  "Soyeon", "Sinazo", "Ebube", "Adaobi", "Tochukwu", "Thokozani", "Nonhlanhla", "Khanyisile",
                  "Pania", "Bronwen", "Iestyn", "Meinir", "Ottilie", "Lucasta", "Mirrin", "Anwen", "Ruaridh",
                  "Murdo", "Ishbel", "Cathal", "Donncha", "Feidhlim", "Pádraig", "Bláthnaid", "Gráinne",
                  "Harinder", "Kuldeep", "Baljit", "Amarjit", "Satnam", "Paramjit", "Ebrahim", "Mogamat",
                  "Shireen", "Lesedi", "Nthabiseng", "Tshepo", "Keabetswe", "Onalenna", "Dikeledi", "Uchenna"],
        "last": ["Fitzwarren", "Blenkinsop", "Ravenscroft", "Thistlewood", "Wetherell", "Aldershaw", "Nakagawa",
                 "Hoshino", "Oosthuizen", "Szymanski", "MacFadyen", "Ó Súilleabháin", "Ballantyne", "Ekwueme",
                 "Anantharaman", "Thiruvengadam", "Chandrasekhar", "Kumaraswamy", "Kuznetsova", "Volkonsky",
                 "Wisniewska", "Grabowski", "Dąbrowski", "Pawlak", "Nowicka", "Fjeldstad", "Thorsteinsson",
                 "Ingólfsdóttir", "Igwe", "Fashola", "Akinola", "Oyinlola", "Fashola-Grabowski",
                 "Akinola-Ravenscroft"],
    },
    "fr": {
        "first": ["Yaëlle", "Ferréol", "Solange", "Théodebert", "Valérien", "Zélie", "Anselme", "Dieudonné",
                  "Evrard", "Irénée", "Joachim", "Marcelline", "Odilon", "Prosper", "Landry", "Brunehaut",
                  "Hugolin", "Zélie-Marcelline"],
        "last": ["Pouliquen", "Chassagne", "Vigouroux", "Bourdais", "Benkirane", "Lemercier", "Peyrefitte",
                 "Trémoulet", "Ravanel", "Dufourcq", "Loubatières", "Nkoulou", "Hadjadj", "Mézières",
                 "Kerdoncuff", "Salaün", "Le Toullec", "Riou", "Pichavant", "Bizien", "Soubiran",
                 "Bousquet-Lafont", "Laborde", "Bordenave", "Darrigrand", "Haramburu", "Sangaré", "Amrani",
                 "Zerrouki", "de Mendiburu"],
    },
    "es": {
        "first": ["Iago", "Meritxell", "Lluís", "Guillermina", "Leidy", "Dagoberto", "Amaranta", "Sinforosa",
                  "Eufemia", "Clodoaldo", "Filomena", "Pascasio", "Teodomiro", "Zenón", "Olegario", "Gaudencio",
                  "Ataulfo", "Baldomero", "Maddi", "Beñat", "Goiuri", "Arantza", "Eufemia Arantza"],
        "last": ["Castelao", "Outeiriño", "Vilaboa", "Casademunt", "de la Cueva", "Cotrina", "Valderrama",
                 "Sorolla", "Zurbarán", "Aguirrezabala", "Errazkin", "Azpilikueta", "Ibarguren", "Mugica",
                 "Amenábar", "Chillida", "Oteiza", "Lekuona", "Baroja", "Unamuno", "Quiñones", "Tejedor",
                 "Montenegro", "Ibarguren-Lekuona", "Castelao Vilaboa"],
    },
}  # fmt: skip

PARTICLES = ("de", "del", "van", "der", "la", "le", "du", "ap", "ó")

TITLES = {
    "en": ["Dr", "Mrs", "Mr", "Ms", "Miss", "Dr."],
    "fr": ["M.", "Mme", "Dr", "Pr", "Mlle"],
    "es": ["Sr.", "Sra.", "Dr.", "Dña.", "Don"],
}


def _ascii(s: str) -> str:
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode().lower()


def person(rng: random.Random, lang: str) -> tuple[str, str]:
    """A (first, last) pair from ``lang``'s pools."""
    pools = NAMES[lang]
    return rng.choice(pools["first"]), rng.choice(pools["last"])


def name_form(p: tuple[str, str], form: str) -> str:
    """``p`` written in ``form`` (full, first, last, rev, lower, lfirst, init, upper, caps, fi, initials)."""
    first, last = p
    forms = {
        "full": f"{first} {last}",
        "first": first,
        "last": last,
        "rev": f"{last}, {first}",
        "lower": f"{first} {last}".lower(),
        "lfirst": first.lower(),
        "init": f"{first[0]}. {last}",
        "upper": f"{last.upper()} {first}",
        "caps": f"{first} {last}".upper(),
        "fi": f"{first} {last[0].upper()}.",
        "initials": f"{first[0]}.{last[0].upper()}.",
    }
    return forms[form]


DOMAINS = {
    "en": ["brackenridge-mills.co.uk", "kauri-coast-surveyors.co.nz", "umhlanga-tiles.co.za",
           "saltmarsh-dental.ie", "prairiefold.ca", "wattlebird-clinic.com.au", "oakhurst-ledger.com"],
    "fr": ["boulangerie-quemener.fr", "etude-castagnede.fr", "transports-vigouroux.fr", "mutuelle-armor.fr",
           "ardennes-bois.be"],
    "es": ["conservas-bermeo.es", "gestoria-tudela.es", "clinica-ribeiro.es", "vinos-toro.com",
           "fontaneria-lorca.es"],
}  # fmt: skip


def email(rng: random.Random, p: tuple[str, str], lang: str) -> str:
    """An address for ``p`` at one of ``lang``'s domains."""
    first, last = (_ascii(x).replace(" ", "").replace("'", "") for x in p)
    local = rng.choice(
        [f"{first}.{last}", f"{first[0]}.{last}", f"{last}{first[0]}", f"{first}-{last[:3]}",
         f"{last}{rng.randint(1, 9)}", f"{first}.{last}+compta" if lang == "fr" else f"{first}+crm"]
    )  # fmt: skip
    dom = rng.choice(DOMAINS[lang])
    if rng.random() < 0.1:
        return f"{local.capitalize()}@{dom}"
    return f"{local}@{dom}"


# --- phones ----------------------------------------------------------------------------

_US_AREAS = ["240", "260", "351", "352", "401", "405"]
# every Canadian area code tried was used by an earlier set: v11 plants no Canadian number
_CA_AREAS: list[str] = []
PHONE_REGIONS = {
    "en": ["GB", "US", "IE", "AU", "NZ", "ZA", "IN", "SG"],
    "fr": ["FR", "BE", "CH", "LU", "MA", "SN"],
    "es": ["ES", "MX", "AR", "CO", "CL", "PE"],
}
_ABROAD = ["BG", "HR", "SI", "SK", "LT", "LV", "EE", "IS", "MT", "CY", "UA", "RS", "VN", "ID", "PK", "BD",
           "LK", "NP", "EG", "TN", "GH", "TZ", "UG", "PA", "GT", "BO", "PY", "QA", "KW", "JO"]  # fmt: skip
_EXT = {"en": [" ext {n}", " extn. {n}", " x {n}"], "fr": [" (poste {n})", " p. {n}"],
        "es": [" (ext. {n})", " ext {n}"]}  # fmt: skip


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


# --- cards -----------------------------------------------------------------------------

# (issuer, prefixes, lengths): real issuer ranges, each at the lengths it issues
_CARDS = [
    ("visa", ["4"], [16, 13, 19]),
    ("mastercard", ["51", "52", "53", "54", "55"], [16]),
    ("mastercard2", [str(x) for x in range(2231, 2721, 43)], [16]),
    ("amex", ["34", "37"], [15]),
    ("discover", ["6011", "644", "645", "646", "647", "648", "649", "65"], [16, 19]),
    ("jcb", [str(x) for x in range(3529, 3590, 6)], [16, 19]),
    ("diners", ["300", "301", "302", "303", "304", "305", "36", "38"], [14]),
    ("unionpay", ["62", "81"], [16, 19, 17, 18]),
    ("maestro", ["50", "56", "57", "58", "59", "61", "66", "68"], [12, 19, 13, 15, 18, 17]),
    ("mir", ["2200", "2201", "2202", "2203", "2204"], [16, 19]),
    ("rupay", ["60", "65", "81", "82", "508"], [16]),
    ("troy", ["9792"], [16]),
    ("verve", ["506", "650"], [16, 19, 18]),
    ("elo", ["401178", "438935", "504175", "636297"], [16]),
    ("hipercard", ["606282", "384100"], [16]),
]
_GROUPS = {12: [[4, 4, 4]], 13: [[4, 4, 5], [4, 3, 3, 3]], 14: [[4, 6, 4]], 15: [[4, 6, 5]],
           16: [[4, 4, 4, 4]], 17: [[4, 4, 4, 5]], 18: [[4, 4, 4, 6], [6, 6, 6]],
           19: [[4, 4, 4, 4, 3], [5, 5, 5, 4]]}  # fmt: skip
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
    sep = rng.choice([" ", " ", "-", ".", "", " "])
    if not sep:
        return digits
    out, i = [], 0
    for g in rng.choice(_GROUPS[length]):
        out.append(digits[i : i + g])
        i += g
    return sep.join(out)


# --- IBANs -----------------------------------------------------------------------------

# BBAN layouts (a: upper letter, n: digit); lengths as the SWIFT registry has them. Every
# country here is in the SWIFT IBAN registry (none outside it is planted in v11).
_BBAN = {
    "GB": "aaaa" + "n" * 14, "IE": "aaaa" + "n" * 14, "NO": "n" * 11, "DK": "n" * 14, "IS": "n" * 22,
    "SE": "n" * 20, "FI": "n" * 14, "SA": "n" * 20, "AE": "n" * 19, "IL": "n" * 19,
    "MU": "aaaa" + "n" * 19 + "aaa", "SC": "aaaa" + "n" * 20 + "aaa", "JO": "aaaa" + "n" * 22, "CY": "n" * 24,
    "FR": "n" * 23, "BE": "n" * 12, "CH": "n" * 17, "TN": "n" * 20, "MR": "n" * 23, "LB": "n" * 24,
    "LI": "n" * 17, "AT": "n" * 16, "DE": "n" * 18, "SM": "a" + "n" * 22,
    "ES": "n" * 20, "PT": "n" * 21, "AD": "n" * 20, "IT": "a" + "n" * 22, "GR": "n" * 23, "HR": "n" * 17,
    "SI": "n" * 15, "PL": "n" * 24, "CZ": "n" * 20, "RO": "aaaa" + "n" * 16, "TR": "n" * 22,
}  # fmt: skip
_IBAN_COUNTRIES = {
    "en": ["GB", "IE", "NO", "DK", "IS", "SE", "FI", "SA", "AE", "IL", "MU", "SC", "JO", "CY"],
    "fr": ["FR", "BE", "CH", "TN", "MR", "LB", "LI", "AT", "DE", "SM"],
    "es": ["ES", "PT", "AD", "IT", "GR", "HR", "SI", "PL", "CZ", "RO", "TR"],
}
# outside the SWIFT registry: none in v11
_IBAN_OUTSIDE_SWIFT: frozenset[str] = frozenset()
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
    if style < 0.5:
        return " ".join(code[i : i + 4] for i in range(0, len(code), 4))
    if style < 0.8:
        return code
    if style < 0.9:
        return code.lower()
    return " ".join(code[i : i + 4] for i in range(0, len(code), 4)).lower()


# --- addresses -------------------------------------------------------------------------

STREETS = {
    "en": ["Gorsebrook Lane", "Puddingstone Way", "Wagtail Close", "Millrace Row", "Flintknapper Road",
           "Thornleigh Terrace", "Cobblewick Drive", "Sloeberry Crescent", "Applegarth Court",
           "Tolpuddle Gardens"],
    "us": ["E Persimmon Flats Rd", "Lost Mule Canyon Road", "S Chickadee Hollow Ln", "Bluestem Prairie Pkwy",
           "Old Sawmill Spur"],
    "fr": ["rue des Tonneliers-Vieux", "boulevard des Salines-Hautes", "chemin du Gué-Perdu",
           "allée des Sureaux-Penchés", "impasse de la Forge-Rouge", "place du Pilori-Neuf",
           "avenue des Maraîchers-Unis", "rue Basse-des-Cloutiers"],
    "es": ["calle Cordeleros de San Lázaro", "avenida de las Salinas Altas", "plaza de los Tintoreros",
           "paseo de las Norias Quebradas", "camino de las Eras Viejas", "carretera de Ayllón",
           "calle Zapateros Viejos", "avenida del Valle del Jerte"],
}  # fmt: skip
_UK = [("Kendal", "LA9"), ("Truro", "TR1"), ("Hawick", "TD9"), ("Dolgellau", "LL40")]
_US = [("Missoula", "MT", "598"), ("Pocatello", "ID", "832"), ("Winona", "MN", "559"),
       ("Bangor", "ME", "044"), ("Cheyenne", "WY", "820")]  # fmt: skip
_IE = [("Listowel", "Co. Kerry", "V31"), ("Carrick-on-Shannon", "Co. Leitrim", "N41"),
       ("Dungarvan", "Co. Waterford", "X35")]  # fmt: skip
_AU = [("Mildura", "VIC", "3500"), ("Geraldton", "WA", "6530"), ("Toowoomba", "QLD", "4350")]
_CA = [("Kamloops", "BC", "V2C"), ("Brandon", "MB", "R7A"), ("Truro", "NS", "B2N")]
_NZ = [("Gisborne", "4010"), ("Oamaru", "9400"), ("Whanganui", "4500")]
_ZA = [("Kimberley", "8301"), ("Mthatha", "5099"), ("Knysna", "6570")]
_FR = ["46000 Cahors", "12100 Millau", "23000 Guéret", "05000 Gap", "39000 Lons-le-Saunier", "48000 Mende"]
_FR_CEDEX = ["29229 Brest CEDEX 2", "87031 Limoges Cedex 1", "64109 Bayonne CEDEX"]
_FR_LIEUDIT = ["Lieu-dit Le Claux-Bas", "Lieu-dit Les Bruyères-Hautes", "Lieu-dit La Borie-Grande"]
_ES = [("16001", "Cuenca", "Cuenca"), ("05001", "Ávila", "Ávila"), ("49600", "Benavente", "Zamora"),
       ("13300", "Valdepeñas", "Ciudad Real"), ("32002", "Ourense", "Ourense"), ("31500", "Tudela", "Navarra")]  # fmt: skip
_L = "ABDEFHJNPRSTUWXY"


def _en_address(rng: random.Random) -> list[str]:
    k = rng.randrange(8)
    n = str(rng.randint(3, 388))
    if k == 0:
        town, out = rng.choice(_UK)
        pc = f"{out} {rng.randint(1, 9)}{rng.choice(_L)}{rng.choice(_L)}"
        return [
            f"{rng.choice(['', 'Apartment 5, ', 'The Old Forge, '])}{n} {rng.choice(STREETS['en'])}",
            town,
            pc,
        ]
    if k in (1, 2):
        city, st, z = rng.choice(_US)
        zipc = f"{z}{rng.randint(10, 99)}"
        if k == 2 and rng.random() < 0.5:
            first = rng.choice(
                [
                    f"P.O. Box {rng.randint(100, 9999)}",
                    f"Rural Route {rng.randint(1, 6)}, Box {rng.randint(10, 300)}",
                ]
            )
        else:
            first = f"{n} {rng.choice(STREETS['us'])}{rng.choice(['', ' Unit 12', ' Ste 205', ' #4'])}"
        return [
            first,
            f"{city}, {st} {zipc}" if rng.random() < 0.6 else f"{city} {st} {zipc}-{rng.randint(1000, 9999)}",
        ]
    if k == 3:
        town, county, rk = rng.choice(_IE)
        return [
            f"{n} {rng.choice(STREETS['en'])}",
            town,
            county,
            f"{rk} {rng.choice(_L)}{rng.choice(_L)}{rng.randint(10, 99)}",
        ]
    if k == 4:
        sub, st, pc = rng.choice(_AU)
        return [
            f"{rng.choice(['', 'Unit 9/', '3/'])}{n} {rng.choice(STREETS['en'])}",
            f"{sub.upper()} {st} {pc}",
        ]
    if k == 5:
        city, prov, fsa = rng.choice(_CA)
        return [
            f"{rng.choice(['', '1204-'])}{n} {rng.choice(STREETS['en'])}",
            f"{city}, {prov} {fsa} {rng.randint(1, 9)}{rng.choice(_L)}{rng.randint(1, 9)}",
        ]
    if k == 6:
        town, pc = rng.choice(_NZ)
        return [f"{n} {rng.choice(STREETS['en'])}", rng.choice(["RD 3", "Kaiti", "Central"]), f"{town} {pc}"]
    town, pc = rng.choice(_ZA)
    return [f"{n} {rng.choice(STREETS['en'])}", town, pc]


def _fr_address(rng: random.Random) -> list[str]:
    k = rng.randrange(5)
    n = f"{rng.randint(2, 180)}{rng.choice(['', '', ' bis', ' ter', ' B'])}"
    street = rng.choice(STREETS["fr"])
    if k == 0:
        return [f"{n} {street}", rng.choice(_FR)]
    if k == 1:
        return [f"{n}, {street}", rng.choice(_FR_CEDEX)]
    if k == 2:
        return [rng.choice(_FR_LIEUDIT), rng.choice(_FR)]
    if k == 3:
        return [f"Résidence Les Hauts, escalier {rng.choice('ABC')}", f"{n} {street}", rng.choice(_FR)]
    return [f"{n} {street}", f"BP {rng.randint(10, 900)}", rng.choice(_FR_CEDEX)]


def _es_address(rng: random.Random) -> list[str]:
    cp, city, prov = rng.choice(_ES)
    street = rng.choice(STREETS["es"])
    n = rng.randint(2, 210)
    piso = rng.choice(["", f", {rng.randint(1, 9)}.º {rng.choice('ABCD')}", f", escalera {rng.choice('12')}, {rng.randint(1, 7)}.º {rng.randint(1, 4)}.ª",
                       f", piso {rng.randint(1, 8)}, puerta {rng.randint(1, 6)}", ", bajo dcha.", f", ático {rng.choice('AB')}"])  # fmt: skip
    if street.startswith("carretera") or street.startswith("camino"):
        first = f"{street}, km {rng.randint(2, 60)}" if rng.random() < 0.5 else f"{street}, s/n"
    else:
        first = f"{street}, {n}{piso}" if rng.random() < 0.6 else f"{street} nº {n}{piso}"
    last = rng.choice([f"{cp} {city} ({prov})", f"{cp} {city}, {prov}", f"{cp} {city}"])
    return [first, last]


def address(rng: random.Random, lang: str, multiline: bool) -> str:
    """An address in one of ``lang``'s countries' layouts, on one line or several."""
    lines = {"en": _en_address, "fr": _fr_address, "es": _es_address}[lang](rng)
    return "\n".join(lines) if multiline else ", ".join(lines)


# --- templates -------------------------------------------------------------------------

TEMPLATES = {
    "en": [
        "{P1:full} will send the revised quote tomorrow; if it slips, chase {P2:first} on {PH}.",
        "ask {P1:lfirst} whether the pallet for {AD} left the yard, {P2:lower} thinks it did",
        "attendees: {P1:full}, {P2:init}, {P3:caps}\napologies: none\nactions: {P1:first} to book the van, {P3:first} to pay {IB}",
        "account_holder\tsort_ref\tcard\n{P1:rev}\t{REF}\t{CC}\n",
        '{{"assignee": "{P1:full}", "watchers": ["{P2:fi}", "{P3:lower}"], "ticket": "{REF}"}}',
        "cc {P1:lower}, {P2:full}\n\nFixed the delivery address to {AM} — please confirm, {P1:first}.",
        "{P1:caps} / {PH} / {E1}",
        "I think {P1:first} already refunded {CC} but {P2:full} says the bank never saw it",
        "Got a voicemail from {P1:init} at {PH}{X}, something about the standing order to {IB}.",
        "- [ ] {P1:first}: renew insurance\n- [ ] {P2:full}: move payroll to {IB}\n- [x] {P3:fi}: new card {CC} activated",
        "contact_name: {P1:full}\nsite: |\n  {AD}\nbilling_iban: {IB}\nnotify: {E1}",
        "{P1:last} and {P2:last} both live at {AD} so the parcels can go together",
        "Hey, it's {P1:first}. New number {PH}, new place {AD}. Tell {P2:lfirst}!",
        "Appointment reminder for {P1:full}: dental check, {DATE} 10:40. Questions? {PH}",
        "Order {REF} shipped to\n{P1:caps}\n{AM}\ncontact {PH}",
        "id,given,family,mobile,email\n{N},{P1:first},{P1:last},{PH},{E1}",
        "the card ending {LAST4} is old — {P1:first} now uses {CC}, exp 11/30",
        "{P1:fi} approved the expense; {P2:full} still needs to send the receipt to {E2}",
        "Seating plan: table 4 — {P1:full}, {P2:full}, {P3:full}, {P4:full}",
        "Re: lease renewal\n\n{P1:first}, the landlord wants the deposit back to {IB} before you leave {AD}.\n\n{P2:first}",
        "| name | role | phone |\n|---|---|---|\n| {P1:full} | site lead | {PH} |\n| {P2:rev} | driver | {PH} |",
        "Bank letter: we confirm that account {IB} is held in the name of {P1:caps}, {AM}.",
        "Thanks for the call earlier. I've copied {P1:full} ({E1}) so she can set up the card {CC}.",
        "HR record updated — employee {P1:rev}, home {AD}, emergency contact {P2:full} {PH}",
        "{P1:lower} paid with {CC} and {P2:lower} with cash, split the rest",
        "meeting moved; {P1:full}, {P2:first} and I will dial in from {AD}",
        '{{"recipient":{{"name":"{P1:upper}","street":"{AD}","phone":"{PH}"}},"payer_iban":"{IB}"}}',
        "invoice {REF} disputed by {P1:init}; she sent proof from {E1} and her card {CC}",
        "Please ring {P1:full} back on {PH}; {P2:initials} already emailed {E2}",
        "new starter {P1:full} sits next to {P2:full} from monday",
        "{P1:first}'s sister {P2:first} picked up the keys for {AD}",
        "Direct debit mandate\nDebtor: {P1:full}\nIBAN: {IB}\nAddress: {AM}\nEmail: {E1}",
    ],
    "fr": [
        "{P1:full} enverra le devis demain ; sinon relance {P2:first} au {PH}.",
        "demande à {P1:lfirst} si la palette pour {AD} est partie, {P2:lower} pense que oui",
        "Présents : {P1:full}, {P2:init}, {P3:caps}\nExcusé : personne\nÀ faire : {P1:first} règle la facture sur {IB}",
        "titulaire;référence;carte\n{P1:rev};{REF};{CC}\n",
        '{{"responsable": "{P1:full}", "en_copie": ["{P2:fi}", "{P3:lower}"], "dossier": "{REF}"}}',
        "cc {P1:lower}, {P2:full}\n\nJ'ai corrigé l'adresse de livraison :\n{AM}\nTu confirmes, {P1:first} ?",
        "{P1:caps} — {PH} — {E1}",
        "je crois que {P1:first} a déjà remboursé la carte {CC} mais {P2:full} dit que la banque n'a rien vu",
        "Message de {P1:init} au {PH}{X} au sujet du virement permanent vers {IB}.",
        "Rappel : votre rendez-vous chez le kiné avec {P1:full} est le {DATE}. Pour annuler : {PH}",
        "{P1:last} et {P2:last} habitent tous les deux {AD}, on peut grouper les colis",
        "Salut, c'est {P1:first}. Nouveau numéro {PH}, nouvelle adresse {AD}. Dis-le à {P2:lfirst} !",
        "Colis {REF} expédié à\n{P1:caps}\n{AM}\ntél. {PH}",
        "la carte qui finit par {LAST4} est périmée, {P1:first} utilise maintenant {CC}",
        "{P1:fi} a validé la note de frais ; {P2:full} doit encore envoyer le justificatif à {E2}",
        "Plan de table : {P1:full}, {P2:full}, {P3:full}",
        "Madame, Monsieur,\n\nNous attestons que le compte {IB} est ouvert au nom de {P1:caps}, demeurant {AM}.\n\nLe service clientèle",
        "Merci pour l'appel. J'ai mis {P1:full} ({E1}) en copie pour la carte {CC}.",
        "Fiche salarié : {P1:rev}, domicile {AD}, personne à prévenir {P2:full} {PH}",
        "{P1:lower} a payé avec {CC}, {P2:lower} en espèces",
        '{{"destinataire":{{"nom":"{P1:upper}","adresse":"{AD}","tel":"{PH}"}},"iban_payeur":"{IB}"}}',
        "Mandat SEPA\nDébiteur : {P1:full}\nIBAN : {IB}\nAdresse : {AM}\nCourriel : {E1}",
        "{P1:first} passe prendre les clés rue du marché avec {P2:first}, paiement par carte {CC}",
        "Rappelle {P1:full} au {PH} ; {P2:initials} a déjà écrit à {E2}",
    ],
    "es": [
        "{P1:full} manda el presupuesto mañana; si no, llama a {P2:first} al {PH}.",
        "pregúntale a {P1:lfirst} si salió el palé para {AD}, {P2:lower} cree que sí",
        "Asistentes: {P1:full}, {P2:init}, {P3:caps}\nTareas: {P1:first} paga la factura a {IB}",
        "titular;referencia;tarjeta\n{P1:rev};{REF};{CC}\n",
        '{{"responsable": "{P1:full}", "copia": ["{P2:fi}", "{P3:lower}"], "expediente": "{REF}"}}',
        "cc {P1:lower}, {P2:full}\n\nHe corregido la dirección de entrega:\n{AM}\n¿Me confirmas, {P1:first}?",
        "{P1:caps} | {PH} | {E1}",
        "creo que {P1:first} ya devolvió el cargo de la tarjeta {CC} pero {P2:full} dice que el banco no lo ve",
        "Mensaje de {P1:init} desde el {PH}{X} sobre la transferencia periódica a {IB}.",
        "Recordatorio: su cita con {P1:full} en el centro de salud es el {DATE}. Para cambiarla: {PH}",
        "{P1:last} y {P2:last} viven los dos en {AD}, así que mandamos los paquetes juntos",
        "Hola, soy {P1:first}. Número nuevo {PH}, piso nuevo en {AD}. ¡Avisa a {P2:lfirst}!",
        "Envío {REF} para\n{P1:caps}\n{AM}\ntlf. {PH}",
        "la tarjeta acabada en {LAST4} está caducada, {P1:first} usa ahora la {CC}",
        "{P1:fi} aprobó el gasto; {P2:full} todavía tiene que mandar el tique a {E2}",
        "Mesa 3: {P1:full}, {P2:full}, {P3:full}",
        "Muy señor mío:\n\nCertificamos que la cuenta {IB} figura a nombre de {P1:caps}, con domicilio en {AM}.\n\nAtentamente",
        "Gracias por la llamada. He puesto en copia a {P1:full} ({E1}) para lo de la tarjeta {CC}.",
        "Ficha de empleado: {P1:rev}, domicilio {AD}, contacto de emergencia {P2:full} {PH}",
        "{P1:lower} pagó con {CC} y {P2:lower} en efectivo",
        '{{"destinatario":{{"nombre":"{P1:upper}","direccion":"{AD}","telefono":"{PH}"}},"iban_ordenante":"{IB}"}}',
        "Orden de domiciliación SEPA\nDeudor: {P1:full}\nIBAN: {IB}\nDomicilio: {AM}\nCorreo: {E1}",
        "{P1:first} recoge las llaves con {P2:first} esta tarde y paga con la tarjeta {CC}",
        "Vuelve a llamar a {P1:full} al {PH}; {P2:initials} ya escribió a {E2}",
    ],
}

_SLOT = re.compile(r"\{\{|\}\}|\{(P[1234]:\w+|T|E[12]|PH|CC|IB2?|AD|AM|REF|DATE|AMT|X|LAST4|N)\}")
_DATES = {"en": ["12 March", "Tuesday 8th", "the 23rd", "Oct 3"], "fr": ["14 février", "lundi 6", "mardi 19 mai"],
          "es": ["9 de octubre", "miércoles 21", "lunes 3 de marzo"]}  # fmt: skip
_AMTS = {
    "en": ["£48.90", "$2,310.75", "€605.00"],
    "fr": ["73,40 €", "3 905,00 €"],
    "es": ["411,05 €", "1.760,50 €"],
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
            put(
                f"{rng.choice(['TK', 'CASE', 'DLV', 'CRN'])}/{rng.randint(1000, 9999)}/{rng.choice('QWXZ')}",
                None,
            )
        elif slot == "DATE":
            put(rng.choice(_DATES[lang]), None)
        elif slot == "AMT":
            put(rng.choice(_AMTS[lang]), None)
        elif slot == "N":
            put(str(rng.randint(1, 999)), None)
        elif slot == "LAST4":
            put(f"{rng.randint(0, 9999):04d}", None)
    put(template[last:], None)
    return "".join(out), ents


# --- PII-free chat ---------------------------------------------------------------------


# --- PII-free chat ---------------------------------------------------------------------

_CHAT_FILL = {
    "en": ["the rain gauge on the fence", "a secondhand pressure washer", "the allotment water butt",
           "the gutter on the shed", "a tandem kayak", "the Sunday pub quiz", "the boiler service",
           "a ukulele for beginners", "the hedge trimming", "the broadband router upgrade"],
    "fr": ["le levain du pain", "un nettoyeur haute pression d'occasion", "la récupération d'eau de pluie",
           "la gouttière de l'abri", "un kayak biplace", "le quiz du dimanche", "l'entretien de la chaudière",
           "un ukulélé pour débutant"],
    "es": ["el pluviómetro de la valla", "una hidrolimpiadora de segunda mano", "el depósito de agua del huerto",
           "el canalón del cobertizo", "un kayak doble", "el concurso de preguntas del domingo",
           "la revisión de la caldera", "un ukelele para principiantes"],
}  # fmt: skip
CHAT_FREE = {
    "en": [
        "is {F} really worth the hassle? asking before I commit",
        "Update on {F}: sorted, finally",
        "what's the verdict on {F}, yes or no",
        "I keep forgetting about {F}, can someone nudge me on Friday",
        "Did we ever decide who's handling {F}?",
        "no news on {F} yet, will shout when there is",
        "Just a heads-up that {F} might be delayed a week",
        "anyone got opinions on {F}? the reviews are all over the place",
    ],
    "fr": [
        "{F}, ça vaut vraiment la peine ? je demande avant de me lancer",
        "Des nouvelles pour {F} : c'est réglé, enfin",
        "alors, le verdict pour {F}, oui ou non ?",
        "J'oublie toujours {F}, quelqu'un peut me relancer vendredi ?",
        "On a fini par décider qui s'occupe de {F} ?",
        "Pas encore de nouvelles pour {F}, je vous dis dès que j'en ai",
    ],
    "es": [
        "¿{F} merece de verdad la pena? pregunto antes de lanzarme",
        "Novedades de {F}: arreglado, por fin",
        "entonces, ¿qué decidimos con {F}, sí o no?",
        "Siempre se me olvida {F}, ¿alguien me lo recuerda el viernes?",
        "¿Al final quién se encarga de {F}?",
        "Todavía nada sobre {F}, aviso en cuanto sepa algo",
    ],
}
_CHAT_TAIL = {
    "en": ["", " :D", " ta", " no stress", " (for the newsletter)", " 👍", "!!"],
    "fr": ["", " :D", " merci d'avance", " rien ne presse", " 👍", " (pour la newsletter)"],
    "es": ["", " :D", " gracias de antemano", " sin agobios", " 👍", " (para el boletín)"],
}


def chat_free(rng: random.Random, lang: str) -> str:
    """A PII-free chat message in ``lang``."""
    t = rng.choice(CHAT_FREE[lang]).format(F=rng.choice(_CHAT_FILL[lang]))
    if t[0].islower() and rng.random() < 0.35:
        t = t[0].upper() + t[1:]
    return t + rng.choice(_CHAT_TAIL[lang])


# --- PII-free technical text -----------------------------------------------------------


def _hex(r: random.Random, k: int) -> str:
    return "".join(r.choice("0123456789abcdef") for _ in range(k))


def _guid(r: random.Random) -> str:
    h = _hex(r, 32).upper()
    return f"{{{h[:8]}-{h[8:12]}-4{h[13:16]}-B{h[17:20]}-{h[20:]}}}"


def _ts(r: random.Random) -> str:
    return f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d} {r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}.{r.randint(0, 999):03d}"


_SVC = ["ledger-sync", "quote-builder", "label-printer", "rate-limiter", "geo-tiler", "batch-exporter"]
_TBL = ["freight_quotes", "label_jobs", "ledger_entries", "export_runs", "tile_requests"]
_EXC = ["KeyError", "TimeoutError", "ValueError", "ConnectionResetError"]


def _tech(r: random.Random, kind: int) -> str:
    svc, tbl, exc = r.choice(_SVC), r.choice(_TBL), r.choice(_EXC)
    v = f"{r.randint(1, 12)}.{r.randint(0, 25)}.{r.randint(0, 60)}"
    n = r.randint(10, 88888)
    ts = _ts(r)
    kinds = [
        lambda: f'[{ts}] level=debug svc={svc} trace={_hex(r, 32)} span={_hex(r, 16)} msg="cache miss"',
        lambda: f"{ts} ERROR {svc}: {exc} while flushing {tbl} (batch={n}, retry_in={r.randint(1, 60)}s)",
        lambda: (
            f"panic: runtime error: index out of range [{r.randint(3, 40)}] with length {r.randint(1, 3)}\n\ngoroutine {r.randint(1, 400)} [running]:\nmain.(*{svc.replace('-', '')}).flush(...)\n\t/src/{svc}/flush.go:{r.randint(10, 400)} +0x{_hex(r, 3)}"
        ),
        lambda: (
            f"java.lang.IllegalStateException: {tbl} closed\n\tat com.example.{svc.replace('-', '')}.Worker.run(Worker.java:{r.randint(20, 900)})\n\tat java.base/java.lang.Thread.run(Thread.java:{r.randint(800, 1600)})"
        ),
        lambda: (
            f"CREATE INDEX CONCURRENTLY idx_{tbl}_created ON {tbl} (created_at DESC) WITH (fillfactor = {r.randint(40, 100)}) WHERE shard = {r.randint(1, 64)};"
        ),
        lambda: (
            f"UPDATE {tbl} SET state = 'done', finished_at = now() WHERE job_id = {n} AND state = 'running';"
        ),
        lambda: (
            f'services:\n  {svc}:\n    image: ghcr.io/example/{svc}:{v}\n    restart: unless-stopped\n    environment:\n      WORKERS: "{r.randint(1, 16)}"\n      QUEUE: {tbl}'
        ),
        lambda: (
            f'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {svc}-config\n  namespace: tools\ndata:\n  BATCH_SIZE: "{r.randint(50, 5000)}"\n  LOG_LEVEL: info'
        ),
        lambda: (
            f'{{"job":"{tbl}","guid":"{_guid(r)}","attempt":{r.randint(1, 6)},"elapsed_s":{r.randint(1, 900)}.{r.randint(0, 9)}}}'
        ),
        lambda: (
            f"date,requests,errors,p99_ms\n2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d},{n},{r.randint(0, 90)},{r.randint(40, 2000)}\n2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d},{n + r.randint(1, 900)},{r.randint(0, 90)},{r.randint(40, 2000)}"
        ),
        lambda: (
            f"POST /v2/{tbl}/bulk HTTP/2\n:authority: api.example.com\ncontent-type: application/json\ncontent-length: {r.randint(100, 90000)}\n\nHTTP/2 202\nx-correlation-id: {_guid(r)}\nretry-after: {r.randint(1, 30)}"
        ),
        lambda: f"{_hex(r, 7)} (HEAD -> main, origin/main) {svc}: handle empty {tbl} page ({v})",
        lambda: f"{_hex(r, 40)}  dist/{svc}-{v}-linux-amd64.zip",
        lambda: (
            f"> {svc}@{v} build\n> tsc -p tsconfig.build.json\n\nDone in {r.randint(2, 90)}.{r.randint(10, 99)}s."
        ),
        lambda: (
            f'{tbl}_latency_seconds_bucket{{le="0.{r.randint(1, 9)}",svc="{svc}"}} {n}\n{tbl}_latency_seconds_count{{svc="{svc}"}} {n + r.randint(1, 500)}'
        ),
        lambda: (
            f"[Unit]\nDescription={svc} worker\nAfter=network-online.target\n\n[Service]\nExecStart=/opt/{svc}/bin/{svc} --queue {tbl}\nRestart=on-failure\nRestartSec={r.randint(1, 30)}"
        ),
        lambda: (
            f"Purchase order PUR-{r.randint(2024, 2026)}-{r.randint(100, 99999):05d}: {r.randint(1, 80)} lines, incoterm FCA, status APPROVED"
        ),
        lambda: (
            f"Credit note CN{r.randint(10, 99)}-{r.randint(1000, 9999)} against invoice FAC-{r.randint(1000, 9999)}-{r.choice('ABC')}, net {r.randint(5, 5000)}.{r.randint(10, 99)}"
        ),
        lambda: (
            f"fn {tbl}_len(items: &[Item]) -> usize {{\n    items.iter().filter(|i| i.qty > {r.randint(0, 9)}).count()\n}}"
        ),
        lambda: (
            f'module "{svc.replace("-", "_")}" {{\n  source  = "./modules/queue"\n  name    = "{tbl}"\n  retention_hours = {r.randint(1, 336)}\n}}'
        ),
        lambda: f"*/{r.randint(2, 30)} * * * * flock -n /tmp/{svc}.lock /opt/{svc}/run-{tbl}.sh",
        lambda: (
            f"| stage | duration | result |\n|---|---|---|\n| lint | {r.randint(5, 90)}s | ok |\n| test | {r.randint(60, 900)}s | {r.choice(['ok', 'flaky'])} |"
        ),
        lambda: f"npm WARN deprecated {svc}-legacy@{v}: use {svc} >= {r.randint(2, 9)}.0.0 instead",
        lambda: (
            f"    at Object.<anonymous> ({svc}/src/{tbl}.ts:{r.randint(10, 500)}:{r.randint(1, 60)})\n    at Module._compile (node:internal/modules/cjs/loader:{r.randint(1000, 1500)}:{r.randint(1, 40)})"
        ),
        lambda: (
            f"--- a/{svc}/settings.toml\n+++ b/{svc}/settings.toml\n@@ -{r.randint(1, 40)},3 +{r.randint(1, 40)},3 @@\n-max_batch = {r.randint(10, 99)}\n+max_batch = {r.randint(100, 999)}"
        ),
        lambda: (
            f"==== {r.randint(50, 3000)} passed, {r.randint(0, 9)} xfailed, {r.randint(0, 30)} warnings in {r.randint(5, 600)}.{r.randint(10, 99)}s ===="
        ),
        lambda: f"https://status.example.net/incidents/{_hex(r, 12)}?component={svc}&window=24h",
        lambda: (
            f"Pallet PLT-{r.randint(1000, 9999)}-{r.choice('KLMN')} | {r.randint(1, 40)} cartons | gross {r.randint(50, 900)} kg | dock {r.randint(1, 12)}"
        ),
        lambda: (
            f'FROM python:3.{r.randint(10, 13)}-slim\nWORKDIR /app\nCOPY . .\nRUN pip install --no-cache-dir .\nCMD ["{svc}", "--queue", "{tbl}"]'
        ),
        lambda: (
            f"base64 payload: {''.join(r.choice('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/') for _ in range(48))}=="
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
                {"id": f"v11{lang}{len(records) + 1:04d}", "lang": lang, "text": text, "entities": ents}
            )
        seen: set[str] = set()
        while len(seen) < n_free:
            text = chat_free(rng, lang)
            if text in seen:
                continue
            seen.add(text)
            records.append(
                {"id": f"v11{lang}{len(records) + 1:04d}", "lang": lang, "text": text, "entities": []}
            )
        out[f"heldout-{lang}.jsonl"] = records
    free: list[dict] = []
    texts: set[str] = set()
    while len(free) < 480:
        text = _tech(rng, len(free) % 30)
        if text in texts or _luhn_run(text):
            continue
        texts.add(text)
        free.append({"id": f"v11tech{len(free) + 1:04d}", "lang": "en", "text": text, "entities": []})
    out["pii_free.jsonl"] = free
    return out


def render(records: list[dict]) -> bytes:
    """The JSONL bytes of ``records`` (one object a line, UTF-8, no ASCII escaping)."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def main() -> None:
    """Write the v11 files and their ``SHA256SUMS`` into ``--out`` (default ``eval/frozen_v11``)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("frozen_v11"))
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
