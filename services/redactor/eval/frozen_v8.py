"""The FROZEN held-out evaluation set **v8** (issue 11, eighth held-out round).

Written blind, by a hand that neither read the detector's rules nor ran the
detector (or ``evaluate.py``) on any text, nor read any earlier set's texts or
misses, and committed before anyone measured it. v1-v7 are *spent*: their
results were known while later rounds were tuned, so they count as tuning
material now. v8 is the current held-out set: it is measured once, by the lead.

Self-contained on purpose: imports nothing from the other generators, so growing
the tuning set can never change these files. It imports ``phonenumbers`` (pinned
by ``uv.lock``) only to draw phone numbers until one is valid, so that every
planted phone is valid for libphonenumber. Its templates and value pools (names,
e-mail domains, NANP area codes, card layouts, IBAN values, streets and towns,
PII-free chat templates and fills, technical kinds) are new;
``tests/unit/test_eval_frozen.py`` checks that the pools and every planted value
are disjoint from every earlier generator and labelled value, that every gold
span is sound, that the PII-free texts hold no IP address, MAC address, e-mail
address, v8 name or Luhn-valid run of card length, that
``eval/frozen_v8/SHA256SUMS`` pins the committed files, and that this script
reproduces them byte for byte.

Rules for whoever tunes the detector: ``evaluate.py --frozen-v8`` reports on
these files; ``evaluate.py`` refuses ``--misses`` on them. Nobody reads the
results before the lead's single measurement.

Files (JSONL, ``{"id", "lang", "text", "entities": [{"type", "start", "end",
"value"}]}``, code point offsets) in ``eval/frozen_v8/``:

- ``heldout-en.jsonl`` (400 messages with PII + 140 PII-free chat messages),
  ``heldout-fr.jsonl`` and ``heldout-es.jsonl`` (240 + 110 each).
- ``pii_free.jsonl`` (480): technical text (see ``TECH``); any detection is a
  false positive.

Gold conventions (as in v7): a title (``Dr``, ``Mme``, ``Sra.``) is not part of a
PERSON span, nor is a possessive ``'s``; ``Last, First``, ``LAST First``,
initials and a middle initial are one span; a multi-line address is one
STREET_ADDRESS span including its line breaks (town, postcode and province
included, country excluded); card and IBAN spans include their separators; a
phone span is the number as written (``+``, ``00``, trunk prefix and separators
included) without its extension (``ext. 31``, ``poste 12``, ``x4`` follow
outside the span).

Usage: ``python services/redactor/eval/frozen_v8.py [--out DIR]`` (seed 80317).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path

import phonenumbers

SEED = 80317

# --- names ---------------------------------------------------------------------------

NAMES = {
    "en": {
        "first": [
            "Ruairidh", "Hamish", "Mairead", "Torin", "Hamza", "Aaliyah", "Sanjeev", "Venkatesh", "Nandini",
            "Farida", "Nasrin", "Dariush", "Arash", "Parisa", "Mehmet", "Burak", "Serkan", "Anastasia",
            "Yevgeny", "Miroslav", "Agnieszka", "Grzegorz", "Wojciech", "Ngozi", "Chinedu", "Achieng",
            "Tatenda", "Mthunzi", "Ngaire", "Kalani", "Keanu", "Makoa", "Jarrah", "Kirra", "Nguyet", "Huong",
            "Jiho", "Seoyeon", "Minjun", "Haeun", "Wenjie", "Xiaoling", "Junhao", "Tomasz", "Ivana",
            "Jelena", "Radovan", "Tuomas", "Saana", "Jukka", "Torbjorn", "Asbjorn", "Eirik", "Brynjar",
            "Pernille", "Jesper", "Birgitte",
        ],
        "last": [
            "Kariuki", "Ochieng", "Nkosi", "Parata", "Tuhiwai", "Kahananui", "Akana", "Takeda", "Hashimoto",
            "Yoshida", "Raghunathan", "Chaudhry", "Farooqui", "Rahimi", "Tehrani", "Karimi", "Aydin",
            "Ozturk", "Demirci", "Volkov", "Petrenko", "Wisniewski", "Szymanska", "Wozniak", "Dabrowski",
            "Kovacevic", "Jovanovic", "Popescu", "Stanciu", "Korhonen", "Makinen", "Nieminen", "Bergstrom",
            "Kristiansen", "Rasmussen", "Thorsen", "Mulcahy", "Doherty", "Donnelly", "McGillicuddy",
            "Sutherland", "Kilpatrick", "Farquharson", "Drummond", "Ogilvie", "Abernethy", "Ashcroft",
            "Cartwright", "Braithwaite", "Ashcroft-Mulcahy", "Drummond-Ogilvie", "van Bergstrom",
        ],
    },
    "fr": {
        "first": [
            "Ghislaine", "Fulbert", "Ludivine", "Jocelyne", "Rodolphe", "Lucienne", "Marceline", "Évariste",
            "Gislaine", "Servane", "Katell", "Youenn", "Kadiatou", "Karima", "Nabil", "Djamila", "Farès",
            "Lyes", "Lucienne-Servane", "Fulbert-Évariste", "Florin", "Ileana", "Nikola", "Milica",
        ],
        "last": [
            "Pruvost", "Deschamps", "Baudouin", "Ollivier", "Hébert", "Chabert", "Grandjean", "Trémolières",
            "Castagnède", "Larrieu", "Etchegaray", "Duvernois", "Ravenel", "Bouchareb", "Benyahia",
            "Sissoko", "Ndiaye", "Mbappé", "de Ravenel", "du Pruvost", "Chabert-Larrieu", "Gheorghe",
        ],
    },
    "es": {
        "first": [
            "Xavier", "Valentina", "Asunción", "Ezequiel", "Nahuel", "Ayelén", "Tadeo", "Evaristo",
            "Herminia", "Ildefonso", "Rosendo", "Zoila", "Celedonio", "Zoila Herminia", "Ildefonso Tadeo",
            "Sorin", "Vasile", "Ilinca",
        ],
        "last": [
            "Barrenetxea", "Puigdemont", "Casals", "Roig", "Prats", "Quintanilla", "Santillán", "Montalvo",
            "Cifuentes", "Llorente", "Carvajal", "Uribe", "Londoño", "Restrepo", "Arango", "Escobedo",
            "Maldonado", "Galindo", "Portillo", "de Montalvo", "del Portillo", "Galindo-Uribe",
        ],
    },
}  # fmt: skip

PARTICLES = ("de", "du", "del", "van")

TITLES = {
    "en": ["Mr", "Mrs", "Ms", "Dr", "Prof.", "Mx"],
    "fr": ["M.", "Mme", "Dr", "Me", "Pr"],
    "es": ["Sr.", "Sra.", "Dña.", "D.", "Dr.", "Dra."],
}


def person(rng: random.Random, lang: str) -> tuple[str, str]:
    """A (first, last) pair drawn from ``lang``'s pools."""
    pools = NAMES[lang]
    return rng.choice(pools["first"]), rng.choice(pools["last"])


def _ascii(s: str) -> str:
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode("ascii")


def name_form(rng: random.Random, p: tuple[str, str], form: str) -> str:
    """``p`` written in ``form``: full, lf (``Last, First``), lower, init (``F. Last``), first, last,
    upper (``LAST First``), mid (``First Q. Last``), caps (``FIRST LAST``)."""
    first, last = p
    if form == "lf":
        return f"{last}, {first}"
    if form == "lower":
        return f"{first} {last}".lower()
    if form == "init":
        return f"{first[0]}. {last}"
    if form == "first":
        return first
    if form == "last":
        return last
    if form == "upper":
        return f"{last.upper()} {first}"
    if form == "mid":
        return f"{first} {rng.choice('BCDHJKLMNRSTW')}. {last}"
    if form == "caps":
        return f"{first} {last}".upper()
    return f"{first} {last}"


# --- e-mail --------------------------------------------------------------------------

DOMAINS = {
    "en": ["kestrelmail.net", "brightfjord.io", "tallowpost.com", "harbourlane.co.uk", "quokkamail.com.au",
           "fernleaf.co.nz", "ubuntu-post.co.za", "pinecone-ops.ca", "ptarmigan.dev"],
    "fr": ["courriel-azur.fr", "lepetitquai.fr", "boitemarine.be", "lemanpost.ch"],
    "es": ["correo-lince.es", "buzon-alameda.com", "malvamail.mx"],
}  # fmt: skip


def email(rng: random.Random, p: tuple[str, str], lang: str) -> str:
    """An address for ``p`` at one of ``lang``'s domains (ASCII local part, several layouts)."""
    first = re.sub(r"[^a-z]", "", _ascii(p[0]).lower())
    last = re.sub(r"[^a-z]", "", _ascii(p[1]).lower())
    local = rng.choice(
        [
            f"{first}.{last}",
            f"{first[0]}{last}",
            f"{last}.{first[0]}",
            f"{first}_{last}{rng.randint(2, 99)}",
            f"{first}-{last}",
            f"{last}+{rng.choice(['billing', 'hr', 'support', 'rdv'])}",
            f"{first}{rng.randint(1960, 2005)}",
            f"{first[0].upper()}{last.capitalize()}",
        ]
    )
    return f"{local}@{rng.choice(DOMAINS[lang])}"


# --- phones --------------------------------------------------------------------------

_US_AREAS = ["205", "229", "251", "276", "307", "308", "318", "361", "432", "478", "509", "530", "570",
             "601", "660", "662", "731", "806", "812", "903", "910", "940", "979", "989"]  # fmt: skip
_CA_AREAS = ["226", "289", "368", "428", "474", "548", "672", "683", "742", "753", "879"]
_CARIB_AREAS = {"268": "AG", "441": "BM", "658": "JM", "868": "TT"}
PHONE_REGIONS = {
    "en": ["US", "CA", "GB", "IE", "AU", "NZ", "ZA", "IN", "SG", "NG", "KE", "GH", "AG", "BM", "JM", "TT", "MT"],
    "fr": ["FR", "BE", "CH", "LU", "MC", "CA", "SN", "CI", "MA", "TN", "RE", "GP", "DZ", "CM"],
    "es": ["ES", "MX", "AR", "CO", "CL", "PE", "EC", "UY", "PY", "BO", "CR", "PA", "GT", "DO", "SV", "HN"],
}  # fmt: skip
_EXT = {"en": [" ext. {n}", " x{n}", " ext {n}", " (ext. {n})"], "fr": [" poste {n}", " p. {n}"],
        "es": [" ext. {n}", " int. {n}", " extensión {n}"]}  # fmt: skip


def _valid_for(value: str, lang: str) -> bool:
    for region in PHONE_REGIONS[lang]:
        try:
            if phonenumbers.is_valid_number(phonenumbers.parse(value, region)):
                return True
        except phonenumbers.NumberParseException:
            continue
    return False


def _draw_number(rng: random.Random, region: str) -> phonenumbers.PhoneNumber:
    """A random valid number of ``region`` (mobile or fixed line)."""
    kind = rng.choice([phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE])
    example = phonenumbers.example_number_for_type(region, kind) or phonenumbers.example_number(region)
    assert example is not None
    national = phonenumbers.national_significant_number(example)
    for attempt in range(2400):
        keep = min(1 + attempt // 600, len(national) - 4)
        if region in ("US", "CA") or region in _CARIB_AREAS.values():
            if region == "US":
                area = rng.choice(_US_AREAS)
            elif region == "CA":
                area = rng.choice(_CA_AREAS)
            else:
                area = next(a for a, r in _CARIB_AREAS.items() if r == region)
            digits = area + str(rng.randint(2, 9)) + "".join(str(rng.randint(0, 9)) for _ in range(6))
        else:
            digits = national[:keep] + "".join(str(rng.randint(0, 9)) for _ in range(len(national) - keep))
        n = phonenumbers.parse("+" + str(example.country_code) + digits, None)
        if phonenumbers.is_valid_number(n) and phonenumbers.region_code_for_number(n) == region:
            return n
    raise RuntimeError(region)


def phone(rng: random.Random, lang: str) -> tuple[str, str]:
    """A valid phone number as people write it in ``lang``'s messages, and an extension suffix
    (empty most of the time) that stays outside the span."""
    regions = PHONE_REGIONS[lang]
    home = regions[0]
    region = home if rng.random() < 0.45 else rng.choice(regions)
    while True:
        n = _draw_number(rng, region)
        style = rng.randrange(8)
        intl = phonenumbers.format_number(n, phonenumbers.PhoneNumberFormat.INTERNATIONAL)
        nat = phonenumbers.format_number(n, phonenumbers.PhoneNumberFormat.NATIONAL)
        e164 = phonenumbers.format_number(n, phonenumbers.PhoneNumberFormat.E164)
        if region in ("US", "CA") and lang == "en":
            nat_digits = str(n.national_number)
            value = [
                nat,
                f"{nat_digits[:3]}-{nat_digits[3:6]}-{nat_digits[6:]}",
                f"{nat_digits[:3]}.{nat_digits[3:6]}.{nat_digits[6:]}",
                f"1-{nat_digits[:3]}-{nat_digits[3:6]}-{nat_digits[6:]}",
                intl,
                e164,
                f"+1 ({nat_digits[:3]}) {nat_digits[3:6]} {nat_digits[6:]}",
                nat_digits,
            ][style]
        elif region == home or (lang == "fr" and region == "CA"):
            value = [
                nat,
                nat.replace(" ", ""),
                nat.replace(" ", "."),
                nat.replace(" ", "-"),
                intl,
                e164,
                "00" + intl[1:],
                intl.replace(" ", "."),
            ][style]
        else:
            value = [intl, e164, "00" + intl[1:], intl.replace(" ", "-"), intl, e164, intl, "00" + e164[1:]][
                style
            ]
        value = value.strip()
        if _valid_for(value, lang):
            break
    ext = rng.choice(_EXT[lang]).format(n=rng.randint(2, 899)) if rng.random() < 0.12 else ""
    return value, ext


# --- cards ---------------------------------------------------------------------------


def _luhn(body: str) -> str:
    """``body`` plus its Luhn check digit."""
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return body + str((10 - total % 10) % 10)


# (issuer prefixes, lengths, groupings per length); real issuer ranges
_CARDS: list[tuple[list[str], list[int]]] = [
    (["4"], [13, 16, 19]),  # Visa
    ([str(p) for p in range(51, 56)], [16]),  # Mastercard 5-series
    ([str(p) for p in (2221, 2285, 2347, 2410, 2599, 2633, 2718)], [16]),  # Mastercard 2-series
    (["34", "37"], [15]),  # American Express
    (["36", "300", "305", "38"], [14]),  # Diners Club
    (["6011", "644", "649", "65"], [16, 19]),  # Discover
    (["3528", "3541", "3566", "3589"], [16, 17, 18, 19]),  # JCB
    (["62"], [16, 17, 18, 19]),  # UnionPay
    (["6759", "6761", "5018", "5020", "5038", "6304"], [12, 13, 15, 17, 18, 19]),  # Maestro
    (["2200", "2202", "2204"], [16]),  # Mir
    (["5061", "6500"], [16, 18, 19]),  # Verve
    (["636368", "504175", "451416"], [16]),  # Elo
    (["606282"], [16]),  # Hipercard
    (["9792"], [16]),  # Troy
    (["5019"], [16]),  # Dankort
    (["1"], [15]),  # UATP
]
_GROUPS = {12: [4, 4, 4], 13: [4, 3, 3, 3], 14: [4, 6, 4], 15: [4, 6, 5], 16: [4, 4, 4, 4], 17: [4, 4, 4, 5],
           18: [4, 4, 4, 6], 19: [4, 4, 4, 4, 3]}  # fmt: skip


def _group(digits: str, sizes: list[int], sep: str) -> str:
    out, i = [], 0
    for s in sizes:
        out.append(digits[i : i + s])
        i += s
    return sep.join(x for x in out if x)


_CARD_TURN = [0]


def card(rng: random.Random) -> str:
    """A Luhn-valid card number in a real issuer range, 12-19 digits, grouped with spaces, hyphens,
    dots or nothing (19-digit numbers also as 6-13)."""
    _CARD_TURN[0] += 1
    prefixes, lengths = _CARDS[_CARD_TURN[0] % len(_CARDS)] if rng.random() < 0.6 else rng.choice(_CARDS)
    prefix, length = rng.choice(prefixes), rng.choice(lengths)
    if _CARD_TURN[0] % 9 == 0:
        prefix, length = rng.choice(_CARDS[rng.choice([0, 5, 6, 7, 8, 10])][0]), 19
    body = prefix + "".join(str(rng.randint(0, 9)) for _ in range(length - len(prefix) - 1))
    digits = _luhn(body)
    sep = rng.choice([" ", " ", "-", "", ".", " "])
    sizes = _GROUPS[length] if not (length == 19 and rng.random() < 0.3) else [6, 13]
    return _group(digits, sizes, sep)


# --- IBAN ----------------------------------------------------------------------------

# BBAN layouts: n digit, a upper-case letter, c letter or digit
_BBAN = {
    "GB": "4a14n", "IE": "4a14n", "NL": "4a10n", "DE": "18n", "MT": "4a5n18c", "CY": "8n16c", "GI": "4a15c",
    "AE": "3n16n", "SA": "2n18c", "QA": "4a21c", "KW": "4a22c", "PK": "4a16c", "BR": "23n1a1c",
    "VG": "4a16n", "SC": "4a20n3a", "MU": "4a19n3a", "IR": "22n",
    "FR": "10n11c2n", "BE": "12n", "CH": "5n12c", "LU": "3n13c", "MC": "10n11c2n", "TN": "20n", "MR": "23n",
    "DJ": "23n", "BI": "23n", "LB": "4n20c", "DZ": "22n", "BJ": "2a22n", "BF": "2a22n", "CI": "1a23n",
    "MG": "23n", "ML": "1a23n", "TG": "2a22n",
    "ES": "20n", "PT": "21n", "AD": "8n12c", "IT": "1a10n12c", "CR": "18n", "DO": "4c20n", "GT": "24c",
    "SV": "4a20n", "NI": "4a20n", "HN": "4a20n", "AO": "21n", "MZ": "21n", "CV": "21n",
}  # fmt: skip
_IBAN_COUNTRIES = {
    "en": ["GB", "IE", "NL", "DE", "MT", "CY", "GI", "AE", "SA", "QA", "KW", "PK", "BR", "VG", "SC", "MU", "IR"],
    "fr": ["FR", "BE", "CH", "LU", "MC", "TN", "MR", "DJ", "BI", "LB", "DZ", "BJ", "BF", "CI", "MG", "ML", "TG"],
    "es": ["ES", "PT", "AD", "IT", "CR", "DO", "GT", "SV", "NI", "HN", "AO", "MZ", "CV"],
}  # fmt: skip
# Countries no earlier set or round planted. NONE of them is in the SWIFT IBAN
# registry: they are the "experimental" IBANs their banks issue (Algeria, Benin,
# Burkina Faso, Côte d'Ivoire, Madagascar, Mali, Togo, Angola, Mozambique, Cape
# Verde, Iran), with the lengths those banks print. Every registry country above
# was planted by an earlier set (none is left unused).
_IBAN_NEW = frozenset({"DZ", "BJ", "BF", "CI", "MG", "ML", "TG", "AO", "MZ", "CV", "IR"})
_IBAN_TURN: dict[str, int] = {}


def _bban(rng: random.Random, layout: str) -> str:
    out = []
    for count, kind in re.findall(r"(\d+)([nac])", layout):
        for _ in range(int(count)):
            if kind == "n":
                out.append(str(rng.randint(0, 9)))
            elif kind == "a":
                out.append(rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ"))
            else:
                out.append(rng.choice("ABCDEFGHKLMNPRSTUVWXYZ0123456789"))
    return "".join(out)


def _iban_check(country: str, bban: str) -> str:
    number = int("".join(str(int(c, 36)) for c in bban + country + "00"))
    return f"{98 - number % 97:02d}"


def iban(rng: random.Random, lang: str) -> str:
    """A checksum-valid IBAN of one of ``lang``'s countries (in turn), spaced in 4s, unspaced or lower case."""
    pool = _IBAN_COUNTRIES[lang]
    turn = _IBAN_TURN.get(lang, 0)
    _IBAN_TURN[lang] = turn + 1
    country = pool[turn % len(pool)]
    bban = _bban(rng, _BBAN[country])
    code = country + _iban_check(country, bban) + bban
    style = rng.randrange(6)
    if style in (0, 1, 2):
        return " ".join(code[i : i + 4] for i in range(0, len(code), 4))
    if style == 3:
        return code
    if style == 4:
        return " ".join(code[i : i + 4] for i in range(0, len(code), 4)).lower()
    return code.lower()


# --- addresses -----------------------------------------------------------------------

STREETS = {
    "en": ["Harebell Close", "Tinsmiths Yard", "Old Mill Creek Road", "Wattlebird Parade", "Spruce Ridge Road",
           "Kowhai Terrace", "Protea Lane", "Quarrymans Walk", "Ashgrove Court", "Tamarisk Crescent",
           "Bellbird Drive", "Saddleback Trail", "Ironbark Avenue", "Gannet Wynd", "Lantern Hill Road"],
    "fr": ["rue des Tanneurs-Roux", "allée des Mûriers-Blancs", "impasse du Colombier-Neuf",
           "chemin de la Font-Vieille", "boulevard des Cordiers", "avenue du Vieux-Pressoir",
           "place des Tisserandes", "rue de la Sablière-Haute", "chemin des Vignettes-Basses",
           "quai des Gabariers"],
    "es": ["calle de los Alfareros Viejos", "avenida del Trasmallo", "plaza de las Hilanderas",
           "paseo de los Almendros Bravos", "camino de la Noria Seca", "carretera de Valdelobos",
           "calle del Salinero Mayor", "avenida de la Mimbrera", "ronda de los Cordeleros Altos",
           "calle Tejedoras del Sur", "avenida Cerro Colorado Chico", "carrera Los Guayacanes",
           "pasaje Los Copihues Rojos"],
}  # fmt: skip

_UK = [("Wymondham", "NR18 {d}{L}{L}"), ("Settle", "BD24 {d}{L}{L}"), ("Kendal", "LA9 {d}{L}{L}"),
       ("Hexham", "NE46 {d}{L}{L}"), ("Oban", "PA34 {d}{L}{L}")]  # fmt: skip
_US = [("Laramie", "WY", "82070"), ("Chadron", "NE", "69337"), ("Hettinger", "ND", "58639"),
       ("Natchitoches", "LA", "71457"), ("Ely", "NV", "89301"), ("Kalispell", "MT", "59901")]  # fmt: skip
_IE = [("Tullamore, Co. Offaly", "R35"), ("Ballina, Co. Mayo", "F26"), ("Dungarvan, Co. Waterford", "X35")]
_AU = [("Kalgoorlie", "WA", "6430"), ("Mudgee", "NSW", "2850"), ("Bairnsdale", "VIC", "3875"),
       ("Longreach", "QLD", "4730")]  # fmt: skip
_CA = [("Prince George", "BC", "V2N"), ("Sylvan Lake", "AB", "T4S"), ("Moose Jaw", "SK", "S6H"),
       ("Truro", "NS", "B2N")]  # fmt: skip
_NZ = [("Taumarunui", "3920"), ("Hastings", "4179"), ("Alexandra", "9320")]
_ZA = [("Dullstroom", "1110"), ("Clarens", "9707"), ("Prince Albert", "6930")]
_FR = ["24200 Sarlat-la-Canéda", "15000 Aurillac", "46100 Figeac", "58500 Clamecy", "04300 Forcalquier",
       "70200 Lure", "12200 Villefranche-de-Rouergue"]  # fmt: skip
_FR_CEDEX = ["63033 Clermont-Ferrand Cedex 1", "86011 Poitiers CEDEX", "25043 Besançon Cedex"]
_FR_LIEUDIT = ["Les Combettes", "La Borie-Basse", "Le Mas-Rouget"]
_BE_CH = ["5030 Gembloux", "6900 Marche-en-Famenne", "1806 Saint-Légier", "2900 Porrentruy"]
_ES = [("44600", "Alcañiz", "Teruel"), ("10600", "Plasencia", "Cáceres"), ("42002", "Soria", "Soria"),
       ("22700", "Jaca", "Huesca"), ("27400", "Monforte de Lemos", "Lugo"), ("06300", "Zafra", "Badajoz")]  # fmt: skip
# Latin-American streets and the locality line of their own country
_LATAM = {
    "calle Tejedoras del Sur": "Col. Vasco de Quiroga, 58230 Morelia, Mich.",
    "avenida Cerro Colorado Chico": "X5000 Córdoba",
    "carrera Los Guayacanes": "Barrio El Poblado, Medellín, Antioquia",
    "pasaje Los Copihues Rojos": "4780000 Temuco",
}
_LATAM_COUNTRY = {"Mich.": "MÉXICO", "Córdoba": "ARGENTINA", "Antioquia": "COLOMBIA", "Temuco": "CHILE"}


def _uk_pc(rng: random.Random, pattern: str) -> str:
    letters = "ABDEFGHJLNPQRSTUWXY"
    return (
        pattern.replace("{d}", str(rng.randint(1, 9)), 1)
        .replace("{L}", rng.choice(letters), 1)
        .replace("{L}", rng.choice(letters), 1)
    )


def _en_address(rng: random.Random) -> list[str]:
    s = rng.choice(STREETS["en"])
    n = rng.randint(2, 4890)
    kind = rng.randrange(11)
    if kind == 0:
        town, pc = rng.choice(_UK)
        return [f"Flat {rng.randint(1, 24)}, {rng.randint(2, 140)} {s}", town, _uk_pc(rng, pc)]
    if kind == 1:
        town, pc = rng.choice(_UK)
        return [f"{rng.choice(['Rose', 'Holly', 'Ivy'])} Cottage, {s}", f"{town} {_uk_pc(rng, pc)}"]
    if kind == 2:
        town, st, z = rng.choice(_US)
        return [f"{n} {s}, Apt {rng.randint(1, 40)}{rng.choice('ABCD')}", f"{town}, {st} {z}"]
    if kind == 3:
        town, st, z = rng.choice(_US)
        return [f"PO Box {rng.randint(10, 9999)}", f"{town}, {st} {z}-{rng.randint(1000, 9999)}"]
    if kind == 4:
        town, st, z = rng.choice(_US)
        return [f"RR {rng.randint(1, 9)} Box {rng.randint(10, 499)}", f"{town}, {st} {z}"]
    if kind == 5:
        town, key = rng.choice(_IE)
        code = f"{key} {rng.choice('ACDEFHKNPRTVWXY')}{rng.randint(1, 9)}{rng.choice('ACDEFHKNPRTVWXY')}{rng.randint(1, 9)}"
        return [f"Apt {rng.randint(1, 30)}, {s}", town, code]
    if kind == 6:
        town, st, pc = rng.choice(_AU)
        return [f"Unit {rng.randint(1, 12)}/{rng.randint(2, 300)} {s}", f"{town} {st} {pc}"]
    if kind == 7:
        town, st, pc = rng.choice(_AU)
        return [f"PO Box {rng.randint(100, 1999)}", f"{town} {st} {pc}"]
    if kind == 8:
        town, prov, fsa = rng.choice(_CA)
        pc = f"{fsa} {rng.randint(1, 9)}{rng.choice('ABCEGHJKLMNPRSTVWXYZ')}{rng.randint(0, 9)}"
        if rng.random() < 0.4:
            return [
                f"RR {rng.randint(1, 6)}, Site {rng.randint(1, 30)}, Box {rng.randint(1, 99)}",
                f"{town} {prov} {pc}",
            ]
        return [f"{rng.randint(101, 1204)}-{n} {s}", f"{town} {prov} {pc}"]
    if kind == 9:
        town, pc = rng.choice(_NZ)
        if rng.random() < 0.5:
            return [f"{n} {s}, RD {rng.randint(1, 9)}", f"{town} {pc}"]
        return [f"{rng.randint(2, 90)}{rng.choice(['', 'A', 'B'])} {s}", f"{town} {pc}"]
    town, pc = rng.choice(_ZA)
    if rng.random() < 0.4:
        return [f"PO Box {rng.randint(10, 999)}", town, pc]
    return [f"{rng.randint(2, 88)} {s}", town, pc]


def _fr_address(rng: random.Random) -> list[str]:
    s = rng.choice(STREETS["fr"])
    num = f"{rng.randint(1, 140)}{rng.choice(['', '', '', ' bis', ' ter', 'bis'])}"
    kind = rng.randrange(6)
    if kind == 0:
        return [f"{num}, {s}", rng.choice(_FR)]
    if kind == 1:
        return [f"Bât. {rng.choice('ABCDE')}, appt {rng.randint(1, 60)}", f"{num} {s}", rng.choice(_FR)]
    if kind == 2:
        return [f"Lieu-dit {rng.choice(_FR_LIEUDIT)}", rng.choice(_FR)]
    if kind == 3:
        return [f"{num} {s}", f"BP {rng.randint(10, 999)}", rng.choice(_FR_CEDEX)]
    if kind == 4:
        street = s[0].upper() + s[1:]
        return [f"{street} {rng.randint(1, 90)}", rng.choice(_BE_CH)]
    return [f"{num} {s}", rng.choice(_FR)]


def _es_address(rng: random.Random) -> list[str]:
    s = rng.choice(STREETS["es"])
    cp, city, prov = rng.choice(_ES)
    place = f"{cp} {city} ({prov})" if city != prov or rng.random() < 0.5 else f"{cp} {city}"
    kind = rng.randrange(7)
    if s in _LATAM or kind == 6:
        s = s if s in _LATAM else rng.choice(sorted(_LATAM))
        street, place = s[0].upper() + s[1:], _LATAM[s]
        if s.startswith("carrera"):
            return [f"{street} # {rng.randint(10, 99)}-{rng.randint(10, 99)}", place]
        if s.startswith("avenida"):
            return [
                f"Av. {s.split(' ', 1)[1]} {rng.randint(100, 2999)}, piso {rng.randint(1, 9)} dto. {rng.choice('ABC')}",
                place,
            ]
        return [f"{street} {rng.randint(10, 2999)}", place]
    if s.startswith("carretera"):
        return [f"{s[0].upper()}{s[1:]}, km {rng.randint(1, 40)},{rng.randint(1, 9)}", place]
    if s.startswith("camino"):
        return [f"{s[0].upper()}{s[1:]}, s/n", place]
    piso = rng.choice(
        [
            f"{rng.randint(1, 9)}º {rng.choice('ABCD')}",
            f"piso {rng.randint(1, 9)}, puerta {rng.randint(1, 12)}",
            f"esc. {rng.randint(1, 3)}, {rng.randint(1, 8)}º {rng.randint(1, 4)}ª",
            "bajo",
            f"{rng.randint(1, 6)}.º izda.",
        ]
    )
    street = s
    if kind == 1:
        street = "C/ " + s.split(" ", 1)[1] if s.startswith("calle") else s[0].upper() + s[1:]
    elif kind == 2 and s.startswith("avenida"):
        street = "Avda. " + s.split(" ", 1)[1]
    else:
        street = s[0].upper() + s[1:]
    return [f"{street}, {rng.randint(1, 180)}, {piso}", place]


_ADDRESS: dict[str, Callable[[random.Random], list[str]]] = {
    "en": _en_address,
    "fr": _fr_address,
    "es": _es_address,
}


def _country(lines: list[str], lang: str) -> str:
    last = lines[-1]
    for key, country in _LATAM_COUNTRY.items():
        if key in last:
            return country
    if lang == "fr":
        return (
            "BELGIQUE"
            if last[:4] in ("5030", "6900")
            else "SUISSE"
            if last[:4] in ("1806", "2900")
            else "FRANCE"
        )
    if lang == "es":
        return "ESPAÑA"
    if re.search(r"\b[A-Z]{2} \d{5}", last):
        return "USA"
    if re.search(r"\b(NSW|VIC|QLD|WA) \d{4}$", last):
        return "Australia"
    if re.search(r"[A-Z]\d[A-Z] \d[A-Z]\d$", last):
        return "Canada"
    if last.isdigit() and len(lines) == 3 and last.isdigit():
        return "South Africa"
    if re.fullmatch(r"[A-Z]\d\d [A-Z0-9]{4}", last):
        return "Ireland"
    if re.search(r"\d{4}$", last):
        return "New Zealand"
    return "United Kingdom"


def address(rng: random.Random, lang: str, multiline: bool) -> tuple[str, str]:
    """An address of ``lang``'s countries on one line (``, ``) or several, and its country."""
    lines = _ADDRESS[lang](rng)
    return ("\n" if multiline else ", ").join(lines), _country(lines, lang)


# --- templates with PII --------------------------------------------------------------
# Slots: <<P1>>..<<P3>> (forms after ':'), <<T1>> title + P1's last name, <<E1>> <<E2>>, <<PH>>,
# <<CC>>, <<IB>>, <<AD>> one-line address, <<AM>> multi-line address, <<AMC>> multi-line + country,
# plain: <<REF>> <<DATE>> <<TIME>> <<AMT>> <<CO>>.

TEMPLATES = {
    "en": [
        "Ticket #<<REF>> — customer <<P1>> says the refund for card <<CC>> never arrived. Callback on <<PH>> before <<TIME>>.",
        "hey <<P1:first>>, it's <<P2:first>>. can you ring me at <<PH>> when you're free? lost my work phone",
        "Name,Email,Phone,Postcode\n<<P1:lf>>,<<E1>>,<<PH>>,see below\n<<P2:lf>>,<<E2>>,,n/a",
        '{"tool": "create_contact", "arguments": {"name": "<<P1>>", "email": "<<E1>>", "phone": "<<PH>>"}}',
        "Please ship to:\n<<P1:caps>>\n<<AMC>>",
        "Hi <<P1:first>>,\n\nThe contract is attached. I'll be out until <<DATE>>; <<P2>> covers my desk.\n\nBest,\n<<P3:first>>\n--\n<<P3>> | Accounts Payable, <<CO>>\nM: <<PH>> | <<E2>>",
        "Meeting notes <<DATE>>\nAttendees: <<P1:init>>, <<P2:mid>>, <<P3:lower>>\n- <<P2:first>> to send the revised budget\n- vendor call moved",
        "employee_id: E-<<REF>>\nfull_name: <<P1:upper>>\nhome_address: |\n  <<AD>>\nsalary_account: <<IB>>",
        "| Name | Role | Mobile |\n|---|---|---|\n| <<P1>> | Site lead | <<PH>> |\n| <<P2>> | Safety officer | — |",
        "Reminder: <<T1>> has you booked for <<DATE>> at <<TIME>> at the clinic. To cancel call <<PH>>.",
        "Dear <<T1>>,\n\nWe have received your transfer from <<IB>> for <<AMT>>. Your statement will follow by post to <<AD>>.\n\nCustomer Services",
        'Can you summarise this complaint? "I\'m <<P1>> and my card ending <<CC>> was charged twice at <<CO>>. Email me at <<E1>>."',
        "ok so <<P1:lower>> just told me <<P2:first>> moved to <<AD>>, can you update the CRM",
        "INVOICE <<REF>>\nBill to: <<P1>>\n<<AM>>\nPay by bank transfer to <<IB>> within 30 days.",
        "From: <<P1>> <<<E1>>>\nTo: billing\nSubject: wrong card\n\nPlease charge <<CC>> instead of the old one. Thanks, <<P1:first>>",
        "Translate to French: <<P1>> will arrive on <<DATE>>; reach her at <<PH>>.",
        "user: my wife <<P1:first>> and I moved, new address is <<AD>>\nassistant: Thanks! I'll update both profiles.",
        "Shipping label\nSHIP TO: <<P1:caps>>\n<<AM>>\nTEL <<PH>>\nREF <<REF>>",
        "Write a polite reply to <<P1:lf>> who asked why card <<CC>> was declined on <<DATE>>.",
        "Expense claim by <<P1:init>> — reimburse <<AMT>> to <<IB>> (approved by <<P2>>).",
        "Patient: <<P1:upper>>\nDOB: on file\nNext of kin: <<P2>>, <<PH>>\nGP surgery notified.",
        "I spoke to <<P1>> and <<P2>> yesterday; both want invoices sent to <<E1>> from now on.",
        'customers.csv row 88 looks wrong: "<<P1>>";"<<AD>>";"<<PH>>" — the postcode is in the street column?',
        '{"order": "<<REF>>", "recipient": {"name": "<<P1:lf>>", "address": "<<AD>>"}, "payment": {"card": "<<CC>>"}}',
        "thanks <<P1:first>>! <<P2:first>> says the keys are with the neighbour. p.s. my new number is <<PH>>",
        "Regards,\n<<P1:mid>>\nHead of Procurement, <<CO>>\n<<AM>>\nDirect: <<PH>>",
        "Could <<P1>>'s payroll go to <<IB>> from next month? The old account closes on <<DATE>>.",
        "Standing order form\nAccount holder: <<P1:lf>>\nIBAN: <<IB>>\nAmount: <<AMT>> monthly",
        "Draft a follow-up: <<P1:first>> <<P2:last>> missed the onboarding on <<DATE>>; her manager is <<P3>>.",
        "Who should I contact about the lease? The letter is signed by <<P1:init>> and lists <<E1>> and <<PH>>.",
        "name: <<P1>>\nemail: <<E1>>\ncard: <<CC>>\nnotes: wants paper receipts",
        "Recap for <<P1:first>>: <<P2:upper>> (<<E2>>) confirmed the delivery to <<AD>> for <<DATE>>.",
        "Dispute filed: cardholder <<P1:caps>>, PAN <<CC>>, amount <<AMT>>, merchant <<CO>>.",
        "Good morning <<T1>>, your replacement card <<CC>> was posted today to the address we hold:\n<<AM>>",
        "Summarise: <<P1:lower>> emailed from <<E1>> asking to split the bill with <<P2:lower>>.",
        "Please wire the deposit to <<IB>> (beneficiary <<P1>>), then text <<P2:first>> on <<PH>>.",
        "Volunteer roster\n1. <<P1>> — <<PH>>\n2. <<P2:init>> — <<E2>>\n3. <<P3:lf>> — drives the van",
        "The landlord, <<P1>>, wants rent paid into <<IB>> and keys returned to <<AD>>.",
        "Appointment confirmed for <<P1:upper>> with Dr <<P2:last>> on <<DATE>>. Questions: <<PH>>",
        "<<P1:first>> <<P1:last>> forwarded you a file. Reply to <<E1>> or call <<PH>>.",
    ],
    "fr": [
        "Bonjour <<T1>>,\n\nvotre rendez-vous du <<DATE>> à <<TIME>> est confirmé. Pour annuler : <<PH>>.\n\nLe secrétariat",
        "Objet : changement de RIB\n\nMerci de verser mon salaire sur <<IB>> à partir du mois prochain.\n\n<<P1>>",
        "salut <<P1:first>>, c'est <<P2:first>>, tu peux me rappeler au <<PH>> ? merci",
        "Nom;Prénom;Courriel;Téléphone\n<<P1:last>>;<<P1:first>>;<<E1>>;<<PH>>\n<<P2:last>>;<<P2:first>>;<<E2>>;",
        "Adresse de livraison :\n<<P1:caps>>\n<<AMC>>",
        "Compte rendu du <<DATE>>\nPrésents : <<P1:init>>, <<P2>>, <<P3:lower>>\n- <<P2:first>> relance le fournisseur",
        '{"action": "maj_client", "nom": "<<P1:lf>>", "adresse": "<<AD>>", "iban": "<<IB>>"}',
        "Cordialement,\n<<P1:mid>>\nService comptabilité — <<CO>>\nTél. <<PH>>\n<<E1>>",
        "Résume ce message : « Je suis <<P1>>, ma carte <<CC>> a été débitée deux fois chez <<CO>>. »",
        "Facture <<REF>>\nClient : <<P1>>\n<<AM>>\nRèglement par virement sur <<IB>>",
        "<<P1:lower>> m'a dit que <<P2:first>> avait déménagé au <<AD>>, tu mets à jour la fiche ?",
        "Madame, Monsieur,\n\nje soussigné(e) <<P1:upper>>, demeurant <<AD>>, demande la résiliation de mon contrat.\n\nFait le <<DATE>>",
        "Traduis en anglais : <<P1>> passera le <<DATE>>, son portable est le <<PH>>.",
        "| Nom | Poste | Mobile |\n|---|---|---|\n| <<P1>> | chef d'équipe | <<PH>> |\n| <<P2:lf>> | accueil | — |",
        "Paiement refusé pour la carte <<CC>> de <<P1:lf>> le <<DATE>>, montant <<AMT>>.",
        "merci <<P1:first>> ! <<P2:first>> récupère les clés demain. au fait mon mail c'est <<E1>>",
        "Étiquette colis\nDESTINATAIRE : <<P1:caps>>\n<<AM>>\nTÉL <<PH>>",
        "Rappel : <<T1>> vous attend le <<DATE>> pour le bilan annuel. Merci d'apporter votre carte Vitale.",
        "Note de frais de <<P1:init>> : rembourser <<AMT>> sur <<IB>> (validé par <<P2>>).",
        "J'ai croisé <<P1>> et <<P2>> hier ; ils veulent recevoir les factures à <<E2>>.",
        "Bulletin d'adhésion\nNom : <<P1:upper>>\nAdresse : <<AD>>\nCarte : <<CC>>\nCourriel : <<E1>>",
        "Le bailleur, <<P1>>, demande que le loyer soit versé sur <<IB>> et que le préavis soit envoyé au :\n<<AM>>",
        "Bonsoir <<P1:first>>, ta nouvelle carte <<CC>> arrive à l'adresse habituelle. Bises, <<P2:first>>",
        "Contact urgence pour <<P1:lf>> : <<P2>>, <<PH>>",
    ],
    "es": [
        "Hola <<P1:first>>, soy <<P2:first>>. ¿Me llamas al <<PH>> cuando puedas? Gracias",
        "Estimado <<T1>>:\n\nle confirmamos la cita del <<DATE>> a las <<TIME>>. Para anularla llame al <<PH>>.\n\nAtentamente,\nRecepción",
        "Asunto: cambio de cuenta\n\nPor favor, domicilien los recibos en <<IB>> a partir de <<DATE>>.\n\nUn saludo,\n<<P1>>",
        "Nombre;Apellidos;Correo;Teléfono\n<<P1:first>>;<<P1:last>>;<<E1>>;<<PH>>\n<<P2:first>>;<<P2:last>>;<<E2>>;",
        "Dirección de envío:\n<<P1:caps>>\n<<AMC>>",
        "Acta de la reunión del <<DATE>>\nAsistentes: <<P1:init>>, <<P2>>, <<P3:lower>>\n- <<P2:first>> enviará el presupuesto",
        '{"funcion": "alta_cliente", "nombre": "<<P1:lf>>", "direccion": "<<AD>>", "tarjeta": "<<CC>>"}',
        "Saludos cordiales,\n<<P1:mid>>\nDepartamento de compras — <<CO>>\nTel. <<PH>>\n<<E1>>",
        "Resume esta queja: «Soy <<P1>> y me cobraron dos veces en la tarjeta <<CC>> en <<CO>>.»",
        "Factura <<REF>>\nCliente: <<P1>>\n<<AM>>\nPago por transferencia a <<IB>>",
        "<<P1:lower>> me dijo que <<P2:first>> se mudó a <<AD>>, ¿actualizas la ficha?",
        "Yo, <<P1:upper>>, con domicilio en <<AD>>, solicito la baja del servicio con fecha <<DATE>>.",
        "Traduce al inglés: <<P1>> llegará el <<DATE>>; su móvil es el <<PH>>.",
        "| Nombre | Cargo | Móvil |\n|---|---|---|\n| <<P1>> | encargado | <<PH>> |\n| <<P2:lf>> | recepción | — |",
        "Pago rechazado: tarjeta <<CC>> de <<P1:lf>>, importe <<AMT>>, fecha <<DATE>>.",
        "¡gracias <<P1:first>>! <<P2:first>> recoge las llaves mañana. por cierto mi correo es <<E1>>",
        "Etiqueta de envío\nDESTINATARIO: <<P1:caps>>\n<<AM>>\nTEL. <<PH>>",
        "Recordatorio: <<T1>> le espera el <<DATE>> para la revisión. Traiga su tarjeta sanitaria.",
        "Nota de gastos de <<P1:init>>: abonar <<AMT>> en <<IB>> (aprobado por <<P2>>).",
        "Ayer hablé con <<P1>> y con <<P2>>; quieren las facturas en <<E2>>.",
        "Ficha de socio\nNombre: <<P1:upper>>\nDomicilio: <<AD>>\nTarjeta: <<CC>>\nCorreo: <<E1>>",
        "El casero, <<P1>>, pide el alquiler en <<IB>> y el preaviso por escrito a:\n<<AM>>",
        "Buenas noches <<P1:first>>, tu tarjeta nueva <<CC>> llega a la dirección de siempre. Un abrazo, <<P2:first>>",
        "Contacto de emergencia de <<P1:lf>>: <<P2>>, <<PH>>",
    ],
}

_SLOT = re.compile(r"<<(P[123]|T1|E[12]|PH|CC|IB|AD|AMC|AM|CO|REF|DATE|TIME|AMT)(?::(\w+))?>>")
_COMPANIES = {
    "en": ["Halvorsen Freight", "Bluegum Outfitters", "Northgate Tiling", "Copperleaf Dental"],
    "fr": ["Menuiserie Vautour", "Les Vergers du Causse", "Transports Rivelaine"],
    "es": ["Conservas La Gaviota", "Talleres Ribazo", "Ferretería El Yunque"],
}
_MONTHS = {
    "en": ["January", "March", "May", "July", "September", "November"],
    "fr": ["janvier", "mars", "mai", "juillet", "septembre", "novembre"],
    "es": ["enero", "marzo", "mayo", "julio", "septiembre", "noviembre"],
}


def _plain(slot: str, rng: random.Random, lang: str) -> str:
    if slot == "CO":
        return rng.choice(_COMPANIES[lang])
    if slot == "REF":
        return f"{rng.choice(['INV', 'TK', 'SO', 'FAC'])}-{rng.randint(2025, 2027)}-{rng.randint(100, 99999):05d}"
    if slot == "DATE":
        day, month = rng.randint(1, 28), rng.choice(_MONTHS[lang])
        return f"{month} {day}" if lang == "en" else f"{day} {month}" if lang == "fr" else f"{day} de {month}"
    if slot == "TIME":
        return f"{rng.randint(8, 17)}:{rng.choice(['00', '15', '30', '45'])}"
    symbol = {"en": "£", "fr": "€", "es": "€"}[lang]
    amount = f"{rng.randint(12, 4800)}.{rng.randint(0, 99):02d}"
    return f"{symbol}{amount}" if lang == "en" else f"{amount.replace('.', ',')} {symbol}"


def fill(template: str, rng: random.Random, lang: str) -> tuple[str, list[dict]]:
    """The text of ``template`` with its slots filled, and its gold entities."""
    people: list[tuple[str, str]] = []
    while len(people) < 3:
        p = person(rng, lang)
        if all(p[0] != q[0] and p[1] != q[1] for q in people):
            people.append(p)
    mails = [email(rng, people[0], lang), email(rng, people[1], lang)]
    out: list[str] = []
    entities: list[dict] = []
    length = 0

    def add(value: str, kind: str | None) -> None:
        nonlocal length
        if kind:
            entities.append({"type": kind, "start": length, "end": length + len(value), "value": value})
        out.append(value)
        length += len(value)

    pos = 0
    for m in _SLOT.finditer(template):
        add(template[pos : m.start()], None)
        pos = m.end()
        slot, form = m.group(1), m.group(2)
        if slot in ("P1", "P2", "P3"):
            add(name_form(rng, people[int(slot[1]) - 1], form or "full"), "PERSON")
        elif slot == "T1":
            add(rng.choice(TITLES[lang]) + " ", None)
            add(people[0][1], "PERSON")
        elif slot in ("E1", "E2"):
            add(mails[int(slot[1]) - 1], "EMAIL_ADDRESS")
        elif slot == "PH":
            value, ext = phone(rng, lang)
            add(value, "PHONE_NUMBER")
            add(ext, None)
        elif slot == "CC":
            add(card(rng), "CREDIT_CARD")
        elif slot == "IB":
            add(iban(rng, lang), "IBAN_CODE")
        elif slot == "AMC":
            value, country = address(rng, lang, True)
            add(value, "STREET_ADDRESS")
            add("\n" + country, None)
        elif slot in ("AD", "AM"):
            add(address(rng, lang, slot == "AM")[0], "STREET_ADDRESS")
        else:
            add(_plain(slot, rng, lang), None)
    add(template[pos:], None)
    return "".join(out), entities


# --- PII-free chat -------------------------------------------------------------------

_CHAT_FILL = {
    "en": {
        "DISH": ["a mushroom risotto for eight", "a lentil dhal with spinach", "sourdough with rye starter",
                 "a plum galette", "a smoked paprika chickpea stew"],
        "THING": ["a second-hand road bike", "a dehumidifier for the cellar", "noise-cancelling earmuffs",
                  "a cast-iron skillet", "a motorised standing desk frame"],
        "TOPIC": ["tidal power", "how glaciers carve fjords", "the history of the printing press",
                  "why bread goes stale", "how vaccines are stored cold"],
    },
    "fr": {
        "DISH": ["une tarte aux blettes et chèvre", "un gratin de blettes", "une soupe de châtaignes", "un clafoutis aux griottes"],
        "THING": ["un vélo cargo d'occasion", "une bouilloire à température réglable", "un déshumidificateur à compresseur",
                  "des chaussures de randonnée légères"],
        "TOPIC": ["la formation des orages", "l'histoire du canal du Midi", "la fermentation du poiré",
                  "le fonctionnement des marées"],
    },
    "es": {
        "DISH": ["una crema de calabaza asada con comino", "un arroz con alcachofas", "unas lentejas con chorizo vegano",
                 "un bizcocho de naranja"],
        "THING": ["una bicicleta plegable usada", "un purificador de aire", "una olla a presión",
                  "unas botas de montaña ligeras"],
        "TOPIC": ["cómo se forman los volcanes", "la historia del acueducto de Segovia",
                  "por qué el cielo es azul", "cómo funciona la energía eólica"],
    },
}  # fmt: skip

CHAT_FREE = {
    "en": [
        "What's a good way to make {DISH} without a food processor?",
        "I'm thinking about buying {THING}. What should I check before paying?",
        "Explain {TOPIC} to a curious twelve-year-old, in five short paragraphs.",
        "Give me a packing list for a three-day hike with one night in a hut.",
        "rewrite this so it sounds less passive aggressive: as per my last message the report is late",
        "Can you compare {THING} with renting one for a month? Pros and cons please.",
        "My sourdough is flat every time. Room is cold, about 17 degrees. Ideas?",
        "Write a short toast for my team's end-of-year dinner, warm but not cheesy.",
        "what's the difference between a savings account and a money market fund, briefly",
        "Plan a week of dinners around {DISH}, with leftovers for lunch.",
        "Is it safe to leave a phone charger plugged in with nothing attached?",
        "Suggest five names for a board-game café near the river.",
        "Explain {TOPIC} in three bullet points and one analogy.",
        "Give me a 20-minute bodyweight workout I can do in a hotel room.",
        "how long should I boil eggs for runny yolks at altitude?",
        "Summarise the causes of the 1929 stock market crash in five bullet points.",
        "I have {THING} that makes a clicking noise. Where do I start troubleshooting?",
        "What are polite ways to decline a meeting that has no agenda?",
        "Draft a notice for the office kitchen asking people to label their food.",
        "Which houseplants cope with a north-facing window and irregular watering?",
        "Turn this into a haiku: the printer jammed again on a Friday afternoon",
        "Is {DISH} okay to freeze, and for how long?",
        "What questions should I ask at the end of a job interview for an analyst role?",
        "Explain compound interest with an example using round numbers.",
        "Write a limerick about a cat who hates Mondays.",
        "Help me plan a budget for a weekend trip: train, two nights, food.",
        "Tell me about {TOPIC}; keep it under 200 words.",
        "Give me three icebreakers for a remote team meeting of twelve people.",
    ],
    "fr": [
        "Comment réussir {DISH} sans four à chaleur tournante ?",
        "Je pense acheter {THING}. Qu'est-ce que je dois vérifier avant ?",
        "Explique {TOPIC} à un enfant de dix ans, en quelques phrases.",
        "Donne-moi une liste de courses pour une semaine de repas végétariens.",
        "reformule ça pour que ce soit plus poli : je vous rappelle que le dossier est en retard",
        "Quels sont les avantages d'acheter {THING} plutôt que de le louer ?",
        "Propose un menu de fête pour six personnes autour de {DISH}.",
        "Écris un petit discours pour le départ à la retraite d'un collègue, chaleureux mais court.",
        "Quelle est la différence entre un livret A et une assurance vie, en deux mots ?",
        "Comment détartrer une cafetière sans vinaigre ?",
        "Trouve cinq noms pour une librairie-café dans une petite ville.",
        "Résume {TOPIC} en trois points.",
        "Une séance de sport de vingt minutes sans matériel, s'il te plaît.",
        "combien de temps faut-il laisser reposer une pâte à crêpes ?",
        "Quelles plantes supportent une pièce peu éclairée ?",
        "Transforme en haïku : la réunion a encore duré deux heures",
        "Peut-on congeler {DISH}, et combien de temps ?",
        "Quelles questions poser à la fin d'un entretien d'embauche ?",
        "Explique les intérêts composés avec un exemple simple.",
        "Aide-moi à préparer un week-end en train avec un petit budget.",
        "Parle-moi de {TOPIC} en moins de cent mots.",
        "Donne trois idées pour animer une réunion d'équipe à distance.",
    ],
    "es": [
        "¿Cómo preparo {DISH} sin horno?",
        "Estoy pensando en comprar {THING}. ¿Qué debería revisar antes?",
        "Explica {TOPIC} a un niño de diez años, con frases cortas.",
        "Hazme una lista de la compra para una semana de cenas ligeras.",
        "reescribe esto para que suene más amable: le recuerdo que el informe sigue pendiente",
        "¿Qué ventajas tiene comprar {THING} frente a alquilarlo?",
        "Propón un menú para seis personas alrededor de {DISH}.",
        "Escribe un brindis corto para la cena de fin de año del equipo.",
        "¿Qué diferencia hay entre un plan de pensiones y un fondo indexado, en pocas palabras?",
        "¿Cómo se quita la cal de la mampara de la ducha?",
        "Sugiere cinco nombres para una cafetería con juegos de mesa.",
        "Resume {TOPIC} en tres ideas clave.",
        "Dame una rutina de ejercicios de veinte minutos sin material.",
        "¿cuánto tiempo hay que cocer un huevo para que la yema quede líquida?",
        "¿Qué plantas aguantan bien en un piso con poca luz?",
        "Convierte en haiku: la impresora se atascó otra vez un viernes",
        "¿Se puede congelar {DISH}? ¿Cuánto tiempo aguanta?",
        "¿Qué preguntas hago al final de una entrevista de trabajo?",
        "Explícame el interés compuesto con un ejemplo sencillo.",
        "Ayúdame a organizar un fin de semana en tren con poco presupuesto.",
        "Háblame de {TOPIC} en menos de cien palabras.",
        "Dame tres ideas para empezar una reunión de equipo en remoto.",
    ],
}
_CHAT_SLOT = re.compile(r"\{(DISH|THING|TOPIC)\}")
_CHAT_TAIL = {
    "en": ["", "", " Thanks!", " Keep it short.", " Use plain English."],
    "fr": ["", "", " Merci !", " Fais court."],
    "es": ["", "", " ¡Gracias!", " Sé breve."],
}


def chat_free(rng: random.Random, template: str, lang: str) -> str:
    """``template`` with its fills drawn, plus a polite tail sometimes (no personal data)."""
    text = _CHAT_SLOT.sub(lambda m: rng.choice(_CHAT_FILL[lang][m.group(1)]), template)
    return text + rng.choice(_CHAT_TAIL[lang])


# --- PII-free technical text ---------------------------------------------------------


def _hex(r: random.Random, k: int) -> str:
    return "".join(r.choice("0123456789abcdef") for _ in range(k))


def _uuid(r: random.Random) -> str:
    h = _hex(r, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{r.choice('89ab')}{h[17:20]}-{h[20:]}"


def _ver(r: random.Random) -> str:
    return f"{r.randint(0, 14)}.{r.randint(0, 30)}.{r.randint(0, 40)}"


def _ts(r: random.Random) -> str:
    return (
        f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}T{r.randint(0, 23):02d}:"
        f"{r.randint(0, 59):02d}:{r.randint(0, 59):02d}.{r.randint(0, 999):03d}Z"
    )


def _n(r: random.Random, k: int) -> str:
    return "".join(str(r.randint(0, 9)) for _ in range(k))


_SVC = [
    "quota-sync",
    "pdf-render",
    "geo-tiles",
    "invoice-batch",
    "search-indexer",
    "thumbnailer",
    "ledger-api",
]
_TBL = ["stock_moves", "tax_rates", "render_jobs", "webhook_deliveries", "plan_limits", "feature_flags"]
_ROUTE = ["/v2/catalog/items", "/healthz", "/v1/reports/export", "/api/tiles/12/2048/1361.png", "/metrics",
          "/v3/batches/status"]  # fmt: skip
_EXC = ["IndexError", "PermissionError", "asyncio.CancelledError", "sqlalchemy.exc.OperationalError"]
_DEFAULTS = ["0", "''", "now()"]
_HOSTS = ["registry.internal.example", "cdn.example.org", "builds.example.net"]


def _k8s(r: random.Random) -> str:
    svc = r.choice(_SVC)
    return (
        f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {svc}\n  labels:\n    app: {svc}\n"
        f"spec:\n  replicas: {r.randint(1, 9)}\n  template:\n    spec:\n      containers:\n"
        f"        - name: {svc}\n          image: {r.choice(_HOSTS)}/{svc}:{_ver(r)}\n"
        f"          resources:\n            limits:\n              cpu: {r.randint(100, 2000)}m\n"
        f"              memory: {r.choice([128, 256, 512, 1024])}Mi"
    )


def _trace(r: random.Random) -> str:
    return (
        "Traceback (most recent call last):\n"
        f'  File "/srv/app/{r.choice(_SVC).replace("-", "_")}/worker.py", line {r.randint(10, 900)}, in run\n'
        f"    result = handler(batch_{_n(r, 3)})\n"
        f'  File "/srv/app/lib/retry.py", line {r.randint(10, 300)}, in wrapper\n'
        f"    return fn(*args, **kwargs)\n"
        f"{r.choice(_EXC)}: batch {_hex(r, 8)} failed after {r.randint(2, 9)} attempts"
    )


def _http(r: random.Random) -> str:
    return (
        f"GET {r.choice(_ROUTE)}?page={r.randint(1, 80)}&per_page={r.choice([25, 50, 100])} HTTP/1.1\n"
        f"Host: {r.choice(_HOSTS)}\nAccept: application/json\nX-Request-Id: {_uuid(r)}\n\n"
        f"HTTP/1.1 {r.choice([200, 304, 404, 429, 503])} \nContent-Type: application/json\n"
        f'Content-Length: {r.randint(2, 90000)}\nETag: "{_hex(r, 16)}"\nRetry-After: {r.randint(1, 120)}'
    )


TECH: list[Callable[[random.Random], str]] = [
    lambda r: f"sha512sum {_hex(r, 32)}{_hex(r, 32)} ./artifacts/{r.choice(_SVC)}_{_ver(r)}.whl",
    lambda r: (
        f'{_ts(r)} level=warn svc={r.choice(_SVC)} msg="slow query" table={r.choice(_TBL)} took_ms={r.randint(200, 9000)}'
    ),
    lambda r: (
        f"SELECT id, sku, qty FROM {r.choice(_TBL)} WHERE updated_at > '2026-{r.randint(1, 12):02d}-01' AND qty < {r.randint(1, 500)} ORDER BY id LIMIT {r.choice([50, 100, 500])};"
    ),
    lambda r: json.dumps(
        {
            "job_id": _uuid(r),
            "status": r.choice(["queued", "running", "done"]),
            "attempt": r.randint(1, 5),
            "duration_ms": r.randint(5, 99999),
        }
    ),
    lambda r: (
        f"Order SO-{r.randint(2025, 2027)}-{_n(r, 6)} status changed: picked -> packed ({r.randint(1, 40)} lines, warehouse W{r.randint(1, 9)})"
    ),
    lambda r: (
        f"Invoice ref INV/{r.randint(2025, 2027)}/{_n(r, 5)} total {r.randint(10, 99999)}.{_n(r, 2)} EUR net 30, PO {_n(r, 8)}"
    ),
    _k8s,
    _trace,
    _http,
    lambda r: (
        f"commit {_hex(r, 40)}\nMerge: {_hex(r, 7)} {_hex(r, 7)}\n\n    bump {r.choice(_SVC)} to {_ver(r)}"
    ),
    lambda r: (
        f"[{r.randint(1, 99):2d}/{r.randint(99, 400)}] Compiling {r.choice(['serde', 'tokio', 'hyper', 'rayon'])} v{_ver(r)}\n    Finished release [optimized] target(s) in {r.randint(10, 600)}.{r.randint(0, 9)}s"
    ),
    lambda r: (
        f'http_requests_total{{route="{r.choice(_ROUTE)}",code="{r.choice([200, 404, 500])}"}} {r.randint(10, 9_999_999)}'
    ),
    lambda r: (
        f"id,sku,warehouse,qty,updated\n{_n(r, 6)},SKU-{_hex(r, 6).upper()},W{r.randint(1, 9)},{r.randint(0, 900)},2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}\n{_n(r, 6)},SKU-{_hex(r, 6).upper()},W{r.randint(1, 9)},{r.randint(0, 900)},2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}"
    ),
    lambda r: (
        f"[server]\nport = {r.randint(1024, 65000)}\nworkers = {r.randint(1, 32)}\n\n[cache]\nttl_seconds = {r.randint(30, 86400)}\nmax_entries = {r.randint(1000, 900000)}"
    ),
    lambda r: (
        f"https://docs.example.org/{r.choice(['guides', 'api', 'changelog'])}/{_ver(r)}/{r.choice(['pagination', 'rate-limits', 'webhooks'])}#section-{r.randint(1, 12)}"
    ),
    lambda r: f"docker pull {r.choice(_HOSTS)}/{r.choice(_SVC)}@sha256:{_hex(r, 64)}",
    lambda r: (
        f"def {r.choice(['chunked', 'paginate', 'backoff'])}(items, size={r.randint(2, 500)}):\n    for i in range(0, len(items), size):\n        yield items[i : i + size]"
    ),
    lambda r: (
        f"| metric | p50 | p95 | p99 |\n|---|---|---|---|\n| latency_ms | {r.randint(2, 40)} | {r.randint(41, 200)} | {r.randint(201, 900)} |\n| rps | {r.randint(10, 5000)} | – | – |"
    ),
    lambda r: (
        f"npm WARN deprecated {r.choice(['glob', 'rimraf', 'uuid', 'querystring'])}@{_ver(r)}: this version is no longer supported"
    ),
    lambda r: (
        f"ERROR {_ts(r)} [{r.choice(_SVC)}] request_id={_uuid(r)} upstream timed out after {r.randint(1000, 30000)} ms (attempt {r.randint(1, 5)}/5)"
    ),
    lambda r: (
        f"pip install '{r.choice(['numpy', 'pydantic', 'httpx', 'orjson'])}>={_ver(r)},<{r.randint(15, 30)}'"
    ),
    lambda r: (
        f"Build #{r.randint(1000, 99999)} {r.choice(['passed', 'failed', 'canceled'])} in {r.randint(1, 59)}m {r.randint(0, 59)}s — {r.randint(100, 4000)} tests, {r.randint(0, 12)} skipped"
    ),
    lambda r: (
        f"ALTER TABLE {r.choice(_TBL)} ADD COLUMN {r.choice(['region_code', 'batch_no', 'checksum'])} {r.choice(['TEXT', 'BIGINT', 'UUID'])} NOT NULL DEFAULT {r.choice(_DEFAULTS)};"
    ),
    lambda r: (
        f"cpu_seconds={r.randint(1, 9000)}.{_n(r, 3)} rss_bytes={_n(r, 9)} gc_pauses={r.randint(0, 400)} uptime_s={_n(r, 7)}"
    ),
    lambda r: (
        f"Tracking no. 1Z{_hex(r, 6).upper()}{_n(r, 10)} — parcel weight {r.randint(1, 30)}.{r.randint(0, 9)} kg, {r.randint(1, 5)} pieces"
    ),
    lambda r: (
        f"release: v{_ver(r)}\nchecksum: {_hex(r, 64)}\nbuilt_at: {_ts(r)}\nrunner: linux-amd64-{r.randint(1, 64)}"
    ),
    lambda r: (
        f"WARN  [{r.choice(_SVC)}] retry budget {r.randint(1, 99)}% used; backoff {r.randint(50, 8000)}ms; queue depth {r.randint(0, 90000)}"
    ),
    lambda r: (
        f'{{"type": "function", "name": "get_stock", "arguments": {{"sku": "SKU-{_hex(r, 8).upper()}", "warehouse": "W{r.randint(1, 9)}"}}}}'
    ),
    lambda r: (lambda v: f'git tag -a v{v} -m "release {v}" && git push origin v{v}')(_ver(r)),
    lambda r: (
        f"Coverage: {r.randint(50, 99)}.{r.randint(0, 9)}% ({_n(r, 4)}/{_n(r, 5)} lines), branches {r.randint(40, 99)}%"
    ),
    lambda r: (
        f"CREATE INDEX CONCURRENTLY idx_{r.choice(_TBL)}_{r.choice(['ts', 'sku', 'state'])} ON {r.choice(_TBL)} ({r.choice(['created_at', 'sku', 'state'])});"
    ),
    lambda r: (
        f"batch {_n(r, 10)} settled: {r.randint(1, 9000)} items, fee {r.randint(0, 999)}.{_n(r, 2)}, window {r.randint(0, 23):02d}:00-{r.randint(0, 23):02d}:59 UTC"
    ),
    lambda r: (
        f"curl -s -H 'Accept: application/json' 'https://api.example.com/v1/rates?base=EUR&symbols=USD,GBP&date=2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}'"
    ),
    lambda r: (
        f'kubectl rollout status deployment/{r.choice(_SVC)} -n prod --timeout={r.randint(30, 600)}s\ndeployment "{r.choice(_SVC)}" successfully rolled out'
    ),
    lambda r: (
        f"Lot {r.choice('ABCDEFG')}{_n(r, 7)} expires 2027-{r.randint(1, 12):02d}, GTIN {_n(r, 13)}, qty {r.randint(1, 999)}"
    ),
    lambda r: (
        f"panic: runtime error: index out of range [{r.randint(5, 99)}] with length {r.randint(1, 4)}\n\ngoroutine {r.randint(1, 900)} [running]:\nmain.(*Pool).dispatch(0xc000{_hex(r, 6)})"
    ),
    lambda r: (
        f"{r.choice(['ETag', 'Cache-Control'])}: {r.choice(['max-age=', 'W/'])}{r.randint(60, 86400)}; build={_hex(r, 12)}; region=eu-west-{r.randint(1, 3)}"
    ),
    lambda r: (
        f"const TIMEOUT_MS = {r.randint(100, 60000)};\nexport async function fetchPage(cursor) {{\n  return api.get(`/items?cursor=${{cursor}}&limit={r.choice([20, 50])}`);\n}}"
    ),
    lambda r: (
        f"Ticket {r.choice(['OPS', 'INFRA', 'DATA'])}-{r.randint(100, 9999)}: disk usage on volume vol-{_hex(r, 17)} at {r.randint(70, 99)}%, resize scheduled"
    ),
    lambda r: (
        f"locale=en_GB tz=UTC build={_ver(r)}+{_hex(r, 7)} features=[{r.choice(['dark_mode', 'bulk_export', 'sso'])}] rollout={r.randint(1, 100)}%"
    ),
]


def _luhn_valid(digits: str) -> bool:
    return _luhn(digits[:-1]) == digits


def _no_card(text: str) -> str:
    """``text`` with the last digit of every Luhn-valid run of 12-19 digits bumped (no card-shaped
    run in PII-free text passes Luhn)."""

    def fix(m: re.Match[str]) -> str:
        run = m.group(0)
        return run[:-1] + str((int(run[-1]) + 1) % 10) if _luhn_valid(run) else run

    return re.sub(r"(?<![0-9A-Za-z])\d{12,19}(?![0-9A-Za-z])", fix, text)


def generate(rng_seed: int = SEED) -> dict[str, list[dict]]:
    """The v8 frozen files' records, keyed by file name."""
    _CARD_TURN[0] = 0
    _IBAN_TURN.clear()
    out: dict[str, list[dict]] = {}
    sizes = {"en": (400, 140), "fr": (240, 110), "es": (240, 110)}
    for offset, (lang, (n_pii, n_free)) in enumerate(sizes.items()):
        rng = random.Random(rng_seed + offset)
        templates, free = TEMPLATES[lang], CHAT_FREE[lang]
        records = []
        for i in range(n_pii):
            text, entities = fill(templates[i % len(templates)], rng, lang)
            records.append({"id": f"v8{lang}{i + 1:04d}", "lang": lang, "text": text, "entities": entities})
        for i in range(n_free):
            text = chat_free(rng, free[i % len(free)], lang)
            records.append({"id": f"v8{lang}f{i + 1:04d}", "lang": lang, "text": text, "entities": []})
        out[f"heldout-{lang}.jsonl"] = records
    rng = random.Random(rng_seed + 100)
    out["pii_free.jsonl"] = [
        {"id": f"v8t{i + 1:04d}", "lang": "en", "text": _no_card(TECH[i % len(TECH)](rng)), "entities": []}
        for i in range(480)
    ]
    return out


def render(records: list[dict]) -> bytes:
    """The JSONL bytes of ``records`` (one object a line, UTF-8, no ASCII escaping)."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def main() -> None:
    """Write the v8 files and their ``SHA256SUMS`` into ``--out`` (default ``eval/frozen_v8``)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("frozen_v8"))
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
