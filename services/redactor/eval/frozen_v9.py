"""The FROZEN held-out evaluation set **v9** (issue 11, ninth held-out round).

Written blind, by a hand that neither read the detector's rules nor ran the
detector (or ``evaluate.py``) on any text, nor read any earlier set's texts or
misses, and committed before anyone measured it. v1-v8 are *spent*. v9 is the
current held-out set: it is measured once, by the lead.

Self-contained: imports nothing from the other generators. It imports
``phonenumbers`` (pinned by ``uv.lock``) only to draw phone numbers until one is
valid. Its templates and value pools (names, e-mail domains, NANP area codes,
card layouts, IBAN values, streets and towns, PII-free chat templates and
fills, technical kinds) are new; ``tests/unit/test_eval_frozen.py`` checks the
disjointness from every earlier generator and labelled value, the soundness of
every gold span, that the PII-free texts hold no IP address, MAC address,
e-mail address, v9 name or Luhn-valid run of card length, that
``eval/frozen_v9/SHA256SUMS`` pins the committed files, and that this script
reproduces them byte for byte.

Rules: ``evaluate.py --frozen-v9`` reports on these files; ``evaluate.py``
refuses ``--misses`` on them.

Files (JSONL, ``{"id", "lang", "text", "entities": [{"type", "start", "end",
"value"}]}``, code point offsets) in ``eval/frozen_v9/``:

- ``heldout-en.jsonl`` (400 messages with PII + 140 PII-free chat messages),
  ``heldout-fr.jsonl`` and ``heldout-es.jsonl`` (240 + 110 each).
- ``pii_free.jsonl`` (480): technical text; any detection is a false positive.

Gold conventions (as in v7/v8): a title is not part of a PERSON span, nor a
possessive ``'s``; ``Last, First``, ``LAST First``, initials are one span; a
multi-line address is one STREET_ADDRESS span with its line breaks (country
excluded); card and IBAN spans include their separators; a phone span is the
number as written without its extension.

Usage: ``python services/redactor/eval/frozen_v9.py [--out DIR]`` (seed 90613).
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

SEED = 90613

# --- names -----------------------------------------------------------------------------

NAMES = {
    "en": {
        "first": [
            "Cuthbert", "Wilfrid", "Hildegard", "Gwendolyn", "Ebenezer", "Marmaduke", "Jolyon", "Perpetua",
            "Torquil", "Ailsa", "Ciaran", "Darragh", "Grainne", "Padraig", "Yaa", "Chukwuemeka", "Kehinde",
            "Taiwo", "Chidi", "Mpho", "Sibusiso", "Anahera", "Manaia", "Ropata", "Vaiola", "Sefo", "Iosefa",
            "Aditi", "Rupa", "Sunil", "Yuna", "Xiulan", "Guowei", "Huy", "Duc", "Sakura", "Jiwoo", "Doyun",
            "Radek", "Ludmila", "Bozena", "Dusan", "Milos", "Vesna", "Teodor", "Oskari", "Veikko", "Ilmari",
            "Signe", "Leif", "Gunnar", "Mattias", "Ebba", "Casimir", "Octavia", "Horatio", "Isadora",
        ],
        "last": [
            "Mutua", "Njoroge", "Odhiambo", "Chebet", "Mokoena", "Molefe", "Pillay", "Govender", "Waititi",
            "Horomona", "Kupu", "Latu", "Vaipulu", "Kaufusi", "Krishnamurthy", "Pillai", "Gokhale", "Kimura",
            "Hayashi", "Bui", "Ngo", "Kang", "Yoon", "Jang", "Kwon", "Ahn", "Liang", "Xu", "Luo", "Zheng",
            "Xie", "Feng", "Deng", "Peng", "Zeng", "Pavlovic", "Nikolic", "Djordjevic", "Stojanovic",
            "Lewandowski", "Mazur", "Krawczyk", "Heikkinen", "Koskinen", "Jarvinen", "Dahl", "Moen",
            "Hawthorne", "Loxley", "Entwistle", "Ormerod", "Sowerby", "Cholmondeley", "Marjoribanks",
            "Dalrymple", "Urquhart", "Menzies", "Keane", "Molloy", "Cregan", "Delaney", "Flanagan",
            "Ormerod-Mutua", "Cregan-Pillay", "Molloy-Keane",
        ],
    },
    "fr": {
        "first": [
            "Baptistine", "Éléonore", "Géraldine", "Isaure", "Joséphine", "Laurène", "Mahaut", "Roseline",
            "Ursule", "Barthélemy", "Cyprien", "Déodat", "Eloi", "Firmin", "Hilaire", "Isidore", "Jocelyn",
            "Lazare", "Norbert", "Octave", "Pacôme", "Romuald", "Séverin", "Théophane", "Zéphirin",
            "Kadidiatou", "Binta", "Lamine", "Malick", "Mourad", "Leïla", "Kamel", "Hocine",
        ],
        "last": [
            "Aubertin", "Beaufils", "Carbonnel", "Desrosiers", "Escoffier", "Gaillardet", "Hautecoeur",
            "Jouvenel", "Lapeyre", "Noiret", "Pommereau", "Quesnel", "Rabier", "Sauvageot", "Tournier",
            "Brossard", "Dubreuil", "Guillemot", "Lamarque", "Peyrot", "Rigaud", "Thibaudeau", "Keraudren",
            "Diop", "Keita", "Touré", "Cherifi", "Hamidi", "Khelifi", "Mebarki", "Ouali", "Saadi", "Ziani",
            "Lachaume", "de Rochefort", "de Jouvenel", "Beaufils-Noiret", "Aubertin-Diop",
        ],
    },
    "es": {
        "first": [
            "Ascensión", "Candelaria", "Visitación", "Adolfo", "Amancio", "Benigno", "Casimiro", "Ceferino",
            "Demetrio", "Faustino", "Gervasio", "Isidoro", "Leandro", "Marcelino", "Nemesio", "Pancracio",
            "Rufino", "Teodosio", "Venancio", "Zacarías", "Arantxa", "Idoia", "Nekane", "Joseba", "Mikel",
            "Koldo", "Montse", "Xènia", "Quim", "Maricruz", "Lupita", "Ceferino Amancio",
        ],
        "last": [
            "Aguirrezabal", "Otxoa", "Albornoz", "Bermejo", "Castañeda", "Cuadrado", "Escudero", "Gallardo",
            "Manzanares", "Montoya", "Noriega", "Ordóñez", "Palacios", "Rebollo", "Tamayo", "Valverde",
            "Zamorano", "Espinosa", "Fajardo", "Jurado", "Olmedo", "Pacheco", "Quesada", "Sandoval",
            "Vallejo", "Yáñez", "Vilaseca", "Puigvert", "Bosch", "Balaguer", "Coromines", "de Albornoz",
            "del Olmedo", "Vilaseca-Puigvert", "Bermejo Tamayo", "Noriega Palacios", "Montoya Sandoval",
        ],
    },
}  # fmt: skip

PARTICLES = ("de", "del")

TITLES = {
    "en": ["Mr", "Mrs", "Ms", "Dr", "Miss", "Prof"],
    "fr": ["M.", "Mme", "Mlle", "Dr", "Maître"],
    "es": ["Sr.", "Sra.", "Srta.", "Dr.", "Dra.", "Don", "Doña"],
}


def _ascii(s: str) -> str:
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode("ascii")


def person(rng: random.Random, lang: str) -> tuple[str, str]:
    """A (first, last) pair drawn from ``lang``'s pools."""
    return rng.choice(NAMES[lang]["first"]), rng.choice(NAMES[lang]["last"])


def name_form(p: tuple[str, str], form: str) -> str:
    """``p`` in ``form``: full, lf (``Last, First``), lower, init, first, last, upper (``LAST First``), caps."""
    first, last = p
    return {
        "full": f"{first} {last}",
        "lf": f"{last}, {first}",
        "lower": f"{first} {last}".lower(),
        "init": f"{first[0]}. {last}",
        "first": first,
        "last": last,
        "upper": f"{last.upper()} {first}",
        "caps": f"{first} {last}".upper(),
    }[form]


# --- e-mail --------------------------------------------------------------------------------

DOMAINS = {
    "en": ["harbourline-freight.co.uk", "quillmoor.com", "tidewaterclinic.org", "brackenfield.net",
           "ironbarkdental.com.au", "kowhaiaccounting.co.nz", "stellenbrook.co.za", "larchview.ie"],
    "fr": ["cabinet-vercors-conseil.fr", "mutuelle-aubrac.fr", "ecoleduvallon.fr", "transports-sologne.fr",
           "notaires-bourbonnais.fr", "atelier-lemanique.ch"],
    "es": ["gestoria-moncayo.es", "clinicadelsegura.es", "asesoria-tierracampos.es", "transportes-bierzo.com",
           "ferreteria-almanzora.es", "cooperativa-jerte.es"],
}  # fmt: skip


def email(rng: random.Random, p: tuple[str, str], lang: str) -> str:
    """An address built from ``p`` at one of ``lang``'s domains."""
    first, last = (re.sub(r"[^a-z]", "", _ascii(x).lower()) for x in p)
    local = rng.choice([f"{first}.{last}", f"{first[0]}{last}", f"{last}.{first[0]}", f"{first}_{last}",
                        f"{first}{rng.randint(2, 98)}", f"{last}-{first}"])  # fmt: skip
    return f"{local}@{rng.choice(DOMAINS[lang])}"


# --- phones --------------------------------------------------------------------------------

_US_AREAS = ["564", "726", "838", "986", "447", "464", "582"]
_CA_AREAS = ["584", "942", "437", "647", "905"]
PHONE_REGIONS = {
    "en": ["GB", "US", "CA", "IE", "AU", "NZ", "ZA", "IN", "SG", "KE", "NG", "GH", "PH", "MY", "HK"],
    "fr": ["FR", "BE", "CH", "LU", "MC", "CA", "SN", "CI", "MA", "TN", "CM", "RE", "MG"],
    "es": ["ES", "MX", "AR", "CO", "CL", "PE", "UY", "EC", "CR", "PA", "DO", "GT", "BO", "PY"],
}
_EXT = {"en": [" ext. {n}", " x{n}", " extn {n}"], "fr": [" poste {n}", " (poste {n})"],
        "es": [" ext. {n}", " int. {n}", " extensión {n}"]}  # fmt: skip


def _valid_for(value: str, lang: str) -> bool:
    for region in PHONE_REGIONS[lang]:
        try:
            if phonenumbers.is_valid_number(phonenumbers.parse(value, region)):
                return True
        except phonenumbers.NumberParseException:
            continue
    return False


def _draw(rng: random.Random, region: str) -> phonenumbers.PhoneNumber:
    """A random valid number of ``region``."""
    kind = rng.choice([phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE])
    example = phonenumbers.example_number_for_type(region, kind) or phonenumbers.example_number(region)
    assert example is not None
    national = phonenumbers.national_significant_number(example)
    for attempt in range(3000):
        if region in ("US", "CA"):
            area = rng.choice(_US_AREAS if region == "US" else _CA_AREAS)
            digits = area + str(rng.randint(2, 9)) + "".join(str(rng.randint(0, 9)) for _ in range(6))
        else:
            keep = min(2 + attempt // 1000, len(national) - 3)
            digits = national[:keep] + "".join(str(rng.randint(0, 9)) for _ in range(len(national) - keep))
        n = phonenumbers.parse(f"+{example.country_code}{digits}", None)
        if phonenumbers.is_valid_number(n) and phonenumbers.region_code_for_number(n) == region:
            return n
    raise RuntimeError(region)


def phone(rng: random.Random, lang: str) -> tuple[str, str]:
    """A valid number written as people write it, and an extension (often empty) outside the span."""
    regions = PHONE_REGIONS[lang]
    region = regions[0] if rng.random() < 0.4 else rng.choice(regions)
    while True:
        n = _draw(rng, region)
        intl = phonenumbers.format_number(n, phonenumbers.PhoneNumberFormat.INTERNATIONAL)
        nat = phonenumbers.format_number(n, phonenumbers.PhoneNumberFormat.NATIONAL)
        e164 = phonenumbers.format_number(n, phonenumbers.PhoneNumberFormat.E164)
        options = [intl, e164, "00" + intl[1:]]
        if "-" not in intl:
            options += [intl.replace(" ", "-"), intl.replace(" ", ".")]
        if region == regions[0] or region in ("US", "CA"):
            options += [nat, nat, nat.replace(" ", ""), nat.replace(" ", "."), nat.replace(" ", "-")]
        value = rng.choice(options)
        if _valid_for(value, lang):
            break
    ext = rng.choice(_EXT[lang]).format(n=rng.randint(2, 989)) if rng.random() < 0.15 else ""
    return value, ext


# --- cards ---------------------------------------------------------------------------------

# (issuer prefix, length): Visa, Mastercard 5x and 2-series, Amex, Diners, Discover, JCB, UnionPay,
# Maestro, Mir, RuPay, Verve, Troy, Elo, Dankort, UATP
_CARDS = [
    ("4", 16),
    ("4", 13),
    ("4", 19),
    ("53", 16),
    ("2231", 16),
    ("2690", 16),
    ("37", 15),
    ("34", 15),
    ("36", 14),
    ("305", 14),
    ("6011", 16),
    ("65", 19),
    ("3541", 16),
    ("3577", 19),
    ("3589", 17),
    ("621", 18),
    ("624", 19),
    ("6759", 12),
    ("5018", 17),
    ("6304", 18),
    ("2202", 16),
    ("60", 16),
    ("5061", 19),
    ("9792", 16),
    ("6363", 16),
    ("5019", 16),
    ("1", 15),
    ("6799", 13),
]
_GROUPS = {12: [4, 4, 4], 13: [4, 4, 5], 14: [4, 6, 4], 15: [4, 6, 5], 16: [4, 4, 4, 4],
           17: [4, 4, 4, 5], 18: [6, 6, 6], 19: [4, 4, 4, 4, 3]}  # fmt: skip
_TURN = [0]


def _luhn_digit(body: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch) * (2 if i % 2 == 0 else 1)
        total += d - 9 if d > 9 else d
    return str((10 - total % 10) % 10)


def card(rng: random.Random) -> str:
    """A Luhn-valid number in a real issuer range, grouped with spaces, dashes, dots or nothing."""
    prefix, length = _CARDS[_TURN[0] % len(_CARDS)]
    _TURN[0] += 1
    body = prefix + "".join(str(rng.randint(0, 9)) for _ in range(length - 1 - len(prefix)))
    digits = body + _luhn_digit(body)
    sep = rng.choice([" ", " ", "-", ".", ""])
    out, i = [], 0
    for size in _GROUPS[length]:
        out.append(digits[i : i + size])
        i += size
    return sep.join(out)


# --- IBANs ---------------------------------------------------------------------------------

# country: BBAN layout (n digit, a upper letter, c alphanumeric)
_BBAN = {
    "GB": "aaaa" + "n" * 14,
    "IE": "aaaa" + "n" * 14,
    "AT": "n" * 16,
    "SK": "n" * 20,
    "PL": "n" * 24,
    "FI": "n" * 14,
    "DK": "n" * 14,
    "LV": "aaaa" + "c" * 13,
    "EE": "n" * 16,
    "SE": "n" * 20,
    "FR": "n" * 10 + "c" * 11 + "nn",
    "BE": "n" * 12,
    "CH": "n" * 5 + "c" * 12,
    "LU": "nnn" + "c" * 13,
    "MC": "n" * 10 + "c" * 11 + "nn",
    "CZ": "n" * 20,
    "ES": "n" * 20,
    "PT": "n" * 21,
    "IT": "a" + "n" * 10 + "c" * 12,
    "HU": "n" * 24,
    "HR": "n" * 17,
    "SI": "n" * 15,
    # not in the SWIFT registry (CEMAC, UEMOA, Comoros): the lengths their banks issue
    "CF": "n" * 23,
    "CG": "n" * 23,
    "TD": "n" * 23,
    "NE": "aa" + "n" * 22,
    "GW": "aa" + "n" * 19,
    "KM": "n" * 23,
}
_IBAN_COUNTRIES = {
    "en": ["GB", "IE", "AT", "SK", "PL", "FI", "DK", "LV", "EE", "SE"],
    "fr": ["FR", "BE", "CH", "LU", "MC", "CZ", "CF", "CG", "TD", "NE", "GW", "KM"],
    "es": ["ES", "PT", "IT", "HU", "HR", "SI"],
}
_IBAN_NEW = frozenset({"CF", "CG", "TD", "NE", "GW", "KM"})  # outside the SWIFT registry
_IBAN_TURN = {"en": [0], "fr": [0], "es": [0]}


def iban(rng: random.Random, lang: str) -> str:
    """A checksum-valid IBAN of one of ``lang``'s countries, grouped in 4s, unspaced or lower case."""
    pool = _IBAN_COUNTRIES[lang]
    country = pool[_IBAN_TURN[lang][0] % len(pool)]
    _IBAN_TURN[lang][0] += 1
    alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    bban = "".join(
        str(rng.randint(0, 9))
        if k == "n"
        else rng.choice(alpha)
        if k == "a"
        else rng.choice(alpha + "0123456789")
        for k in _BBAN[country]
    )
    num = int("".join(str(int(c, 36)) for c in bban + country + "00"))
    code = f"{country}{98 - num % 97:02d}{bban}"
    style = rng.randrange(5)
    if style == 0:
        return code
    spaced = " ".join(code[i : i + 4] for i in range(0, len(code), 4))
    return spaced.lower() if style == 1 else spaced


# --- addresses -----------------------------------------------------------------------------

STREETS = {
    "en": ["Quarrymoor Lane", "Gallowtree Row", "Heronsgate Crescent", "Tinkers Hollow Road", "Saltcote Walk",
           "Ploughwright Avenue", "Coldharbour Mews", "Pennyroyal Drive", "Kestrelmoor Close", "Ashwell Brook Way",
           "Bottlebrush Hill Parade", "Karaka Grove", "Protea Ridge Street", "Bramblecombe Terrace"],
    "fr": ["rue du Pressoir-Seigneurial", "avenue du Clos-Margot", "boulevard Anatole-Guérineau", "chemin des Sept-Sources",
           "allée des Cormiers-Pourpres", "impasse du Moulin-Roussel", "place de la Halle-aux-Grains",
           "rue du Four-Banal", "avenue des Tilleuls-Argentés"],
    "es": ["calle del Esparto Trenzado", "avenida de los Almendrales Altos", "plaza de la Aceña Harinera", "paseo del Azud de Riego",
           "camino del Pozo Airón", "carretera de Valdemorillo a Navalagamella", "calle Hornacina",
           "avenida del Cierzo", "plaza de los Tejedores"],
}  # fmt: skip
_UK = [
    ("Bishop's Castle", "SY9 {d}{L}{L}"),
    ("Hexham", "NE46 {d}{L}{L}"),
    ("Ludlow", "SY8 {d}{L}{L}"),
    ("Berwick-upon-Tweed", "TD15 {d}{L}{L}"),
    ("Oakham", "LE15 {d}{L}{L}"),
]
_US = [
    ("Bemidji", "MN", "56601"),
    ("Ely", "NV", "89301"),
    ("Rolla", "MO", "65401"),
    ("Tupelo", "MS", "38804"),
    ("Keene", "NH", "03431"),
]
_IE = [
    ("Clonakilty", "Co. Cork", "P85"),
    ("Ballinasloe", "Co. Galway", "H53"),
    ("Carrick-on-Shannon", "Co. Leitrim", "N41"),
]
_AU = [
    ("Mildura", "VIC", "3500"),
    ("Dubbo", "NSW", "2830"),
    ("Katherine", "NT", "0850"),
    ("Esperance", "WA", "6450"),
]
_CA = [("Kamloops", "BC", "V2C"), ("Brandon", "MB", "R7A"), ("Truro", "NS", "B2N")]
_NZ = [("Gisborne", "4010"), ("Oamaru", "9400"), ("Whakatane", "3120")]
_ZA = [("Graaff-Reinet", "6280"), ("Paarl", "7646"), ("Kokstad", "4700")]
_FR = ["48000 Mende", "23000 Guéret", "09200 Saint-Girons", "55100 Verdun", "32000 Auch", "71700 Tournus"]
_FR_CEDEX = ["87031 Limoges CEDEX 1", "21074 Dijon Cedex", "29196 Quimper CEDEX"]
_FR_LIEUDIT = ["Lieu-dit La Pradelle", "Lieu-dit Les Quatre-Vents", "Lieu-dit Le Bois-Joli"]
_ES = [
    ("49600", "Benavente", "Zamora"),
    ("13300", "Valdepeñas", "Ciudad Real"),
    ("22700", "Jaca", "Huesca"),
    ("06800", "Mérida", "Badajoz"),
    ("33700", "Luarca", "Asturias"),
    ("04600", "Huércal-Overa", "Almería"),
]
_LETTERS = "ABDEFGHJLNPQRSTUWXYZ"


def _en_address(rng: random.Random) -> list[str]:
    kind = rng.randrange(9)
    n = rng.randint(2, 388)
    street = rng.choice(STREETS["en"])
    if kind == 0:
        town, pc = rng.choice(_UK)
        pc = pc.format(d=rng.randint(1, 9), L=rng.choice(_LETTERS))
        return [f"{n} {street}", town, pc]
    if kind == 1:
        town, st, z = rng.choice(_US)
        return [f"{n} {street} Apt {rng.randint(1, 40)}{rng.choice('ABC')}", f"{town}, {st} {z}"]
    if kind == 2:
        town, st, z = rng.choice(_US)
        return [f"PO Box {rng.randint(11, 9980)}", f"{town}, {st} {z}-{rng.randint(1000, 9999)}"]
    if kind == 3:
        town, st, z = rng.choice(_US)
        return [f"RR {rng.randint(1, 9)} Box {rng.randint(10, 499)}", f"{town}, {st} {z}"]
    if kind == 4:
        town, county, rk = rng.choice(_IE)
        return [f"{n} {street}", f"{town}, {county}", f"{rk} {rng.choice(_LETTERS)}{rng.randint(100, 999)}"]
    if kind == 5:
        town, st, pc = rng.choice(_AU)
        return [f"Unit {rng.randint(1, 20)}/{n} {street}", f"{town} {st} {pc}"]
    if kind == 6:
        town, prov, fsa = rng.choice(_CA)
        return [
            f"{n} {street}",
            f"{town} {prov} {fsa} {rng.randint(1, 9)}{rng.choice(_LETTERS)}{rng.randint(1, 9)}",
        ]
    if kind == 7:
        town, pc = rng.choice(_NZ)
        return [f"{n} {street}", f"RD {rng.randint(1, 9)}", f"{town} {pc}"]
    town, pc = rng.choice(_ZA)
    return [f"{n} {street}", town, pc]


def _fr_address(rng: random.Random) -> list[str]:
    kind = rng.randrange(5)
    n = rng.randint(1, 140)
    street = rng.choice(STREETS["fr"])
    if kind == 0:
        return [f"{n} {street}", rng.choice(_FR)]
    if kind == 1:
        return [f"{n} {rng.choice(['bis', 'ter'])} {street}", rng.choice(_FR)]
    if kind == 2:
        return [f"{n}, {street}", f"BP {rng.randint(10, 990)}", rng.choice(_FR_CEDEX)]
    if kind == 3:
        return [rng.choice(_FR_LIEUDIT), rng.choice(_FR)]
    return [f"Bâtiment {rng.choice('ABC')}, {n} {street}", rng.choice(_FR)]


def _es_address(rng: random.Random) -> list[str]:
    kind = rng.randrange(5)
    n = rng.randint(1, 160)
    street = rng.choice(STREETS["es"])
    street = street[0].upper() + street[1:]
    cp, city, prov = rng.choice(_ES)
    last = f"{cp} {city} ({prov})" if rng.random() < 0.6 else f"{cp} {city}, {prov}"
    if kind == 0:
        return [f"{street}, {n}, {rng.randint(1, 9)}.º {rng.choice('ABCD')}", last]
    if kind == 1:
        return [
            f"{street} n.º {n}, esc. {rng.randint(1, 3)}, {rng.randint(1, 7)}.º {rng.choice(['izda.', 'dcha.'])}",
            last,
        ]
    if kind == 2:
        return [f"{street}, {n}, piso {rng.randint(1, 8)}, puerta {rng.randint(1, 12)}", last]
    if kind == 3:
        road = rng.choice([x for x in STREETS["es"] if x.startswith(("carretera", "camino"))])
        street = road[0].upper() + road[1:]
        return [f"{street}, km {rng.randint(2, 60)},{rng.randint(1, 9)}", last]
    return [f"{street}, s/n, bajo", last]


def address(rng: random.Random, lang: str, multiline: bool) -> str:
    """An address in ``lang``'s countries' layouts, on several lines or one."""
    lines = {"en": _en_address, "fr": _fr_address, "es": _es_address}[lang](rng)
    return "\n".join(lines) if multiline else ", ".join(lines)


# --- templates -----------------------------------------------------------------------------

# Slots: {P[n]:form} person, {T} title, {E[n]} e-mail of person n, {PH} phone (+ext), {CC} card,
# {IB} IBAN, {AD} one-line address, {AM} multi-line address, {REF} {DATE} {AMT} plain fillers.
TEMPLATES = {
    "en": [
        "Ticket #{REF} escalated\nCustomer: {P1:lf}\nCallback: {PH}\nNotes: refund to card {CC}, prefers a call after 5pm.",
        "hey it's {P1:first}, my new number is {PH} — text me when the parcel lands",
        "{P1:full}\n{AM}\n\nDear Sir or Madam,\nplease close account {IB} and send the balance by cheque.",
        'tool_call: update_contact({{"name": "{P1:full}", "email": "{E1}", "phone": "{PH}"}})',
        "contact:\n  name: {P1:lower}\n  mail: {E1}\n  ship_to: |\n    {AD}\n",
        "id,full_name,phone,iban\n{REF},{P1:full},{PH},{IB}",
        "| Field | Value |\n|---|---|\n| Holder | {P1:upper} |\n| Card | {CC} |\n| Billing | {AD} |",
        "Reminder: {T} {P1:last}, your appointment with {T} {P2:full} is on {DATE}. Call {PH} to rebook.",
        "Minutes {DATE}\nPresent: {P1:full}, {P2:init}, {P3:first}\nAction: {P2:first} to email {E2} with the draft.",
        "Thanks {P1:first}!\n\nCheers,\n{P2:full}\nSenior Buyer\nm: {PH}\n{E2}",
        "SHIP TO\n{P1:caps}\n{AM}\nTel {PH}",
        "i paid with {CC} but got charged twice, can {P1:lower} from billing look at it? thx",
        "Employee record\nName: {P1:lf}\nStart date: {DATE}\nSalary account: {IB}\nHome: {AD}",
        "Please wire {AMT} to {P1:full}, IBAN {IB}, ref {REF}.",
        "Spoke with {P1:full} this morning; she asked that we stop calling {PH} and write to {E1} instead.",
        "{P1:full} said {P2:first} would bring the forms to {AD} on {DATE}.",
        "From: {P1:full} <{E1}>\nSubject: change of address\n\nNew address from {DATE}:\n{AM}\n\nRegards, {P1:first}",
        "INVOICE {REF}\nBill to: {P1:full}, {AD}\nPaid by card {CC}\nAmount {AMT}",
        "Dear {T} {P1:last}, we have added {P2:full} ({IB}) as a payee on your account. Not you? Call {PH}.",
        "name={P1:full}; card={CC}; exp=08/29",
        "> {P1:full} wrote:\n> could you ring me on {PH}?\nsure, will do after lunch",
        "Driver {P1:init} collected from {AD} at 14:10; recipient {P2:lf} signed.",
        "Re: Dental check-up\nHi {P1:first}, {T} {P2:last} can see you {DATE} at 9:40. Reply to {E2} or call {PH}.",
        "Emergency contact for {P1:full}: {P2:full} ({PH}), {AD}",
        '{{"customer": {{"first": "{P1:first}", "last": "{P1:last}"}}, "iban": "{IB}", "phone": "{PH}"}}',
        "lost my wallet, pls block {CC} asap — {P1:lower}",
        "Applicant: {P1:upper}\nE-mail: {E1}\nMobile: {PH}\nAddress:\n{AM}",
        "cc {P1:full} and {P2:full} on the thread, and loop in {E3} from legal",
        "Appointment reminder: {P1:first}, your physio session is {DATE} at 08:15. Running late? Ring the front desk on {PH}.",
        "New starter checklist\n- name: {P1:full}\n- manager: {P2:lf}\n- payroll IBAN: {IB}\n- locker: 14",
        "{P1:lower}\n{AM}",
        "morning all, {P1:full} is covering for {P2:first} until friday",
        "Parcel for {P1:init}\n{AM}\nLeave with neighbour if out. {PH}",
        "re the dispute: card {CC} was used at 02:14 from an app I never installed. {P1:full}",
        "Our records show {P1:full} moved from {AD} last spring.",
        "Best wishes,\n{P1:first}\n--\n{P1:full} | Practice Manager | {PH} | {E1}",
        "owner: {P1:lower}\nbilling:\n  card: \"{CC}\"\n  contact: {E1}",
        "{P1:caps} — DOB withheld — referred by {T} {P2:last}, tel {PH}",
        "Can you ask {P1:first} whether {P2:first} got the keys back from {P3:full}?",
        "Statement address changed to:\n{AM}\nAccount {IB} — {T} {P1:full}",
    ],
    "fr": [
        "Bonjour {T} {P1:last},\nvotre rendez-vous du {DATE} est confirmé. Pour annuler : {PH}.\nLe secrétariat",
        "Dossier {REF} — titulaire : {P1:upper}, RIB/IBAN {IB}, adresse : {AD}",
        "salut c'est {P1:first}, tu peux m'envoyer ça sur {E1} ? mon tel a changé : {PH}",
        "{P1:full}\n{AM}\n\nObjet : résiliation de mon contrat\n\nMadame, Monsieur, ...",
        "Fiche salarié\nNom : {P1:lf}\nCompte : {IB}\nCourriel : {E1}",
        "J'ai payé avec la carte {CC} mais la commande {REF} n'est jamais arrivée.",
        "Compte rendu du {DATE}\nPrésents : {P1:full}, {P2:init}\n{P2:first} relancera {E2}.",
        "Cordialement,\n{P1:full}\nChargée de clientèle\nTél. : {PH}\n{E1}",
        "Livraison : {P1:caps}\n{AM}",
        "Virement de {AMT} à {P1:full} (IBAN {IB}) effectué ce matin.",
        "{P1:first} a dit que {P2:full} passerait au {AD} vers midi.",
        "nom;prenom;telephone;iban\n{P1:last};{P1:first};{PH};{IB}",
        "Merci de débiter la carte {CC} au nom de {T} {P1:full}.",
        "Facture {REF}\nClient : {P1:full}\n{AM}\nRèglement par carte {CC}",
        '{{"nom": "{P1:full}", "courriel": "{E1}", "adresse": "{AD}"}}',
        "En cas d'urgence prévenir {P1:lower} au {PH}",
        "Rappel : {P1:first}, votre séance de kiné est prévue {DATE} à 8 h 15. Empêchement ? Appelez le {PH}.",
        "Nouvel arrivant\n- nom : {P1:full}\n- responsable : {P2:lf}\n- IBAN paie : {IB}",
        "bonjour à tous, {P1:full} remplace {P2:first} jusqu'à vendredi",
        "Colis pour {P1:init}\n{AM}\nTél. {PH}",
        "Bien à vous,\n{P1:first}\n--\n{P1:full} · Service clients · {PH} · {E1}",
        "Tu peux demander à {P1:first} si {P2:first} a rendu les clés à {P3:full} ?",
        "Nouvelle adresse de correspondance :\n{AM}\nCompte {IB} — {T} {P1:full}",
        "contestation : la carte {CC} a été débitée deux fois le {DATE}. {P1:full}",
    ],
    "es": [
        "Estimado {T} {P1:last}:\nle recordamos su cita del {DATE}. Para anularla llame al {PH}.",
        "Expediente {REF} — titular: {P1:upper}, cuenta {IB}, domicilio: {AD}",
        "hola soy {P1:first}, mándamelo a {E1} porfa, mi móvil nuevo es {PH}",
        "{P1:full}\n{AM}\n\nAsunto: baja del servicio",
        "Ficha de empleado\nNombre: {P1:lf}\nCuenta nómina: {IB}\nCorreo: {E1}",
        "Pagué con la tarjeta {CC} y el pedido {REF} no ha llegado.",
        "Acta del {DATE}\nAsistentes: {P1:full}, {P2:init}\n{P2:first} escribirá a {E2}.",
        "Un saludo,\n{P1:full}\nAtención al cliente\nTel.: {PH}\n{E1}",
        "Enviar a: {P1:caps}\n{AM}",
        "Transferencia de {AMT} a {P1:full} (IBAN {IB}) realizada hoy.",
        "{P1:first} dice que {P2:full} pasará por {AD} a mediodía.",
        "apellidos;nombre;telefono;iban\n{P1:last};{P1:first};{PH};{IB}",
        "Cargar en la tarjeta {CC} a nombre de {T} {P1:full}.",
        "Factura {REF}\nCliente: {P1:full}\n{AM}\nPago con tarjeta {CC}",
        '{{"nombre": "{P1:full}", "correo": "{E1}", "direccion": "{AD}"}}',
        "En caso de urgencia avisar a {P1:lower} al {PH}",
        "Recordatorio: {P1:first}, su sesión de fisioterapia es el {DATE} a las 8:15. Si no puede venir, llame al {PH}.",
        "Alta de empleado\n- nombre: {P1:full}\n- responsable: {P2:lf}\n- IBAN nómina: {IB}",
        "buenas, {P1:full} sustituye a {P2:first} hasta el viernes",
        "Paquete para {P1:init}\n{AM}\nTel. {PH}",
        "Atentamente,\n{P1:first}\n--\n{P1:full} · Secretaría · {PH} · {E1}",
        "¿Le preguntas a {P1:first} si {P2:first} le devolvió las llaves a {P3:full}?",
        "Nueva dirección de envío:\n{AM}\nCuenta {IB} — {T} {P1:full}",
        "reclamación: la tarjeta {CC} tiene dos cargos del {DATE}. {P1:full}",
    ],
}  # fmt: skip

_SLOT = re.compile(r"\{\{|\}\}|\{(P[123]:\w+|T|E[123]|PH|CC|IB|AD|AM|REF|DATE|AMT)\}")
_DATES = {"en": ["3 March", "Tuesday 14th", "the 22nd", "June 9"], "fr": ["12 mars", "mardi 4", "lundi 17 juin"],
          "es": ["12 de marzo", "martes 4", "lunes 17 de junio"]}  # fmt: skip


def fill(template: str, rng: random.Random, lang: str) -> tuple[str, list[dict]]:
    """``template`` with its slots filled, and the gold entities (code point offsets)."""
    people = [person(rng, lang) for _ in range(3)]
    out = ""
    ents: list[dict] = []
    pos = 0
    for m in _SLOT.finditer(template):
        out += template[pos : m.start()]
        pos = m.end()
        tok = m.group(0)
        if tok in ("{{", "}}"):
            out += tok[0]
            continue
        slot = m.group(1)
        kind, value, tail = "", "", ""
        if ":" in slot:
            kind, value = "PERSON", name_form(people[int(slot[1]) - 1], slot.split(":")[1])
        elif slot.startswith("E"):
            kind, value = "EMAIL_ADDRESS", email(rng, people[int(slot[1]) - 1], lang)
        elif slot == "PH":
            kind, (value, tail) = "PHONE_NUMBER", phone(rng, lang)
        elif slot == "CC":
            kind, value = "CREDIT_CARD", card(rng)
        elif slot == "IB":
            kind, value = "IBAN_CODE", iban(rng, lang)
        elif slot in ("AD", "AM"):
            kind, value = "STREET_ADDRESS", address(rng, lang, slot == "AM")
        elif slot == "T":
            out += rng.choice(TITLES[lang])
            continue
        elif slot == "REF":
            out += f"{rng.choice(['TK', 'CS', 'INV', 'ORD'])}-{rng.randint(10000, 99999)}"
            continue
        elif slot == "DATE":
            out += rng.choice(_DATES[lang])
            continue
        else:
            out += f"{rng.randint(40, 9000)}.{rng.randint(0, 99):02d} {'€' if lang != 'en' else '£'}"
            continue
        ents.append({"type": kind, "start": len(out), "end": len(out) + len(value), "value": value})
        out += value + tail
    out += template[pos:]
    return out, ents


# --- PII-free chat -------------------------------------------------------------------------

_CHAT_FILL = {
    "en": ["the sourdough starter", "a second-hand kayak", "the allotment shed", "a wok that keeps rusting",
           "the wisteria", "a rain barrel", "the loft insulation", "the garden trellis"],
    "fr": ["la pâte à crêpes", "un vieux vélo de course", "le potager du balcon", "une cocotte en fonte",
           "le compost", "les volets du salon", "la yaourtière", "le poêle à granulés"],
    "es": ["la masa madre", "una bici de segunda mano", "el huerto del patio", "la cafetera de émbolo",
           "el toldo de la terraza", "las persianas del salón", "la yogurtera", "la estufa de pellets"],
}  # fmt: skip
CHAT_FREE = {
    "en": ["any tips for keeping {X} alive through winter?", "finally sorted {X} this weekend, took ages",
           "is it worth paying extra for {X} or just make do?", "we ended up giving away {X} to the neighbours",
           "how long should {X} take to settle in, roughly?", "ugh, {X} again. third time this month",
           "thinking of selling {X}, what would you ask for it?", "quick one: does {X} need any special care?",
           "honestly {X} was the best thing we bought this year", "anyone else find {X} way harder than the videos make it look?",
           "we moved {X} to the other side of the garden and it's happier now", "rate my setup: {X}, nothing fancy"],
    "fr": ["des conseils pour entretenir {X} cet hiver ?", "on a enfin réglé le souci avec {X}",
           "ça vaut le coup de remplacer {X} ?", "j'ai donné {X} à la voisine finalement",
           "combien de temps faut-il pour {X}, à peu près ?", "encore {X} qui fait des siennes",
           "franchement {X}, c'est le meilleur achat de l'année", "quelqu'un a déjà essayé de réparer {X} soi-même ?",
           "on a déplacé {X} près de la fenêtre, ça va mieux", "vous feriez quoi avec {X} à ma place ?"],
    "es": ["¿algún consejo para cuidar {X} este invierno?", "por fin arreglamos lo de {X}",
           "¿merece la pena cambiar {X}?", "al final le regalé {X} a la vecina",
           "¿cuánto tarda {X} en estar listo, más o menos?", "otra vez {X} dando guerra",
           "la verdad es que {X} ha sido la mejor compra del año", "¿alguien ha intentado arreglar {X} por su cuenta?",
           "hemos movido {X} junto a la ventana y va mejor", "¿qué haríais vosotros con {X}?"],
}  # fmt: skip
_CHAT_TAIL = {
    "en": ["", " cheers", " (asking for a friend)", " lol", " any ideas?", " thanks in advance"],
    "fr": ["", " merci", " bonne soirée", " des idées ?", " (je demande pour un ami)"],
    "es": ["", " gracias", " ¿ideas?", " un saludo", " (pregunto por un amigo)"],
}


def chat_free(rng: random.Random, lang: str) -> str:
    """A PII-free chat message."""
    t = rng.choice(CHAT_FREE[lang]).replace("{X}", rng.choice(_CHAT_FILL[lang]))
    return t + rng.choice(_CHAT_TAIL[lang])


# --- PII-free technical text ---------------------------------------------------------------


def _hex(r: random.Random, k: int) -> str:
    return "".join(r.choice("0123456789abcdef") for _ in range(k))


def _uuid(r: random.Random) -> str:
    h = _hex(r, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _ts(r: random.Random) -> str:
    return f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}T{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}Z"


_SVC = ["ledger-sync", "thumbnailer", "quota-keeper", "feed-indexer", "mailer-queue", "geo-tiler"]
_TBL = ["shipment_legs", "currency_pairs", "warehouse_bins", "sku_aliases", "cron_runs"]
_EXC = ["KeyError", "TimeoutError", "ValueError", "ConnectionResetError"]


def _tech(r: random.Random, kind: int) -> str:
    svc, tbl = r.choice(_SVC), r.choice(_TBL)
    if kind == 0:
        return f'{_ts(r)} level=info svc={svc} msg="batch done" rows={r.randint(1, 90000)} took_ms={r.randint(2, 9000)}'
    if kind == 1:
        return (
            f'Traceback (most recent call last):\n  File "/srv/{svc}/worker.py", line {r.randint(10, 900)}, in run\n'
            f"    self.flush(batch)\n{r.choice(_EXC)}: batch {r.randint(1, 999)} rejected"
        )
    if kind == 2:
        return f"SELECT id, sku, qty FROM {tbl} WHERE updated_at > now() - interval '{r.randint(1, 72)} hours' LIMIT {r.randint(10, 500)};"
    if kind == 3:
        return (
            f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {svc}\nspec:\n  replicas: {r.randint(1, 9)}\n"
            f"  template:\n    spec:\n      containers:\n        - name: {svc}\n          image: registry.example.com/{svc}:{r.randint(1, 9)}.{r.randint(0, 30)}.{r.randint(0, 99)}"
        )
    if kind == 4:
        return f"GET /api/v3/{tbl}?page={r.randint(1, 80)}&per_page=50 HTTP/1.1\nHost: api.example.com\nAccept: application/json\nX-Request-Id: {_uuid(r)}"
    if kind == 5:
        return f"sha256:{_hex(r, 64)}  {svc}-{r.randint(1, 9)}.{r.randint(0, 20)}.tar.gz"
    if kind == 6:
        return f'{{"job": "{svc}", "run_id": "{_uuid(r)}", "status": "{r.choice(["ok", "retry", "failed"])}", "attempt": {r.randint(1, 5)}}}'
    if kind == 7:
        return f"sku,warehouse,qty\nSKU-{r.randint(1000, 9999)}-{r.choice('XYZ')},WH{r.randint(1, 40)},{r.randint(0, 500)}\nSKU-{r.randint(1000, 9999)}-{r.choice('XYZ')},WH{r.randint(1, 40)},{r.randint(0, 500)}"
    if kind == 8:
        return f"[{r.randint(1, 40)}/{r.randint(41, 90)}] Compiling {svc} v0.{r.randint(1, 40)}.{r.randint(0, 9)} (/build/{svc})"
    if kind == 9:
        return f'{svc}_requests_total{{code="{r.choice(["200", "404", "503"])}",route="/{tbl}"}} {r.randint(1, 9999999)}'
    if kind == 10:
        return f"commit {_hex(r, 40)}\nAuthor: ci-bot <noreply>\n\n    chore({svc}): bump lockfile, {r.randint(2, 60)} packages"
    if kind == 11:
        return f"Order ORD-{r.randint(100000, 999999)} status changed: packed -> shipped (carrier ref CR{r.randint(10000000, 99999999)}X)"
    if kind == 12:
        return f"[{svc}]\ntimeout_s = {r.randint(1, 120)}\nmax_batch = {r.randint(16, 4096)}\nenabled = {r.choice(['true', 'false'])}"
    if kind == 13:
        return f"| metric | p50 | p99 |\n|---|---|---|\n| {svc} latency ms | {r.randint(1, 90)} | {r.randint(100, 900)} |"
    if kind == 14:
        return f'def test_{tbl}_roundtrip():\n    rows = load_fixture("{tbl}.json")\n    assert len(rows) == {r.randint(1, 400)}'
    if kind == 15:
        return f"Invoice ref INV/{r.randint(2020, 2026)}/{r.randint(1000, 99999)} — net 30, currency EUR, lines: {r.randint(1, 40)}"
    if kind == 16:
        return f"docker build -t {svc}:{_hex(r, 7)} . && docker push registry.example.com/{svc}:{_hex(r, 7)}"
    if kind == 17:
        return f"https://docs.example.org/{svc}/reference/{tbl}#section-{r.randint(1, 30)}"
    if kind == 18:
        return f"WARN pool {svc}: {r.randint(1, 64)}/{r.randint(64, 128)} connections busy, queue depth {r.randint(0, 300)} at {_ts(r)}"
    if kind == 19:
        return f"ALTER TABLE {tbl} ADD COLUMN archived_at timestamptz NULL; -- migration {r.randint(100, 999)}_{tbl}"
    if kind == 20:
        return (
            f"panic: runtime error: index out of range [{r.randint(1, 64)}] with length {r.randint(0, 1)}\n\n"
            f"goroutine {r.randint(1, 900)} [running]:\nmain.(*{svc.replace('-', '')}Worker).drain(...)\n"
            f"\t/src/{svc}/drain.go:{r.randint(10, 400)} +0x{_hex(r, 3)}"
        )
    if kind == 21:
        pkg = svc.split("-")[0]
        return (
            f"java.lang.IllegalStateException: cursor closed\n\tat com.example.{pkg}.Reader.next(Reader.java:{r.randint(20, 600)})"
            f"\n\tat com.example.{pkg}.Job.run(Job.java:{r.randint(20, 600)})"
        )
    if kind == 22:
        return f'resource "aws_s3_bucket" "{tbl}" {{\n  bucket = "{svc}-artifacts-{_hex(r, 6)}"\n  force_destroy = false\n}}'
    if kind == 23:
        return (
            f"--- a/{svc}/config.go\n+++ b/{svc}/config.go\n@@ -{r.randint(1, 90)},6 +{r.randint(1, 90)},7 @@\n"
            f"-\tRetries: 3,\n+\tRetries: {r.randint(4, 9)},"
        )
    if kind == 24:
        return (
            f"added {r.randint(1, 900)} packages, and audited {r.randint(900, 2000)} packages in {r.randint(2, 59)}s"
            f"\n\n{r.randint(0, 9)} vulnerabilities found"
        )
    if kind == 25:
        return f"*/{r.randint(2, 30)} * * * * /opt/{svc}/bin/rotate --keep {r.randint(3, 14)} >> /var/log/{svc}/rotate.log 2>&1"
    if kind == 26:
        return (
            "LAST SEEN   TYPE      REASON      OBJECT              MESSAGE\n"
            f"{r.randint(1, 59)}s         Warning   BackOff     pod/{svc}-{_hex(r, 5)}   Back-off restarting failed container"
        )
    if kind == 27:
        name = tbl.replace("_", "")
        return f'query {{ {name}(first: {r.randint(5, 100)}, after: "{_hex(r, 12)}") {{ edges {{ node {{ id sku qty }} }} }} }}'
    if kind == 28:
        status = r.choice(["200 OK", "304 Not Modified", "429 Too Many Requests"])
        return f'HTTP/1.1 {status}\nContent-Type: application/json\nETag: W/"{_hex(r, 16)}"\nRetry-After: {r.randint(1, 60)}'
    return (
        f"Build #{r.randint(100, 9999)} of {svc} finished in {r.randint(1, 59)}m {r.randint(0, 59)}s: "
        f"{r.randint(200, 3000)} tests, {r.randint(0, 4)} skipped"
    )


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
                {"id": f"v9{lang}{len(records) + 1:04d}", "lang": lang, "text": text, "entities": ents}
            )
        seen: set[str] = set()
        while len(seen) < n_free:
            text = chat_free(rng, lang)
            if text in seen:
                continue
            seen.add(text)
            records.append(
                {"id": f"v9{lang}{len(records) + 1:04d}", "lang": lang, "text": text, "entities": []}
            )
        out[f"heldout-{lang}.jsonl"] = records
    free: list[dict] = []
    texts: set[str] = set()
    while len(free) < 480:
        text = _tech(rng, len(free) % 30)
        if text in texts or _luhn_run(text):
            continue
        texts.add(text)
        free.append({"id": f"v9tech{len(free) + 1:04d}", "lang": "en", "text": text, "entities": []})
    out["pii_free.jsonl"] = free
    return out


def render(records: list[dict]) -> bytes:
    """The JSONL bytes of ``records`` (one object a line, UTF-8, no ASCII escaping)."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def main() -> None:
    """Write the v9 files and their ``SHA256SUMS`` into ``--out`` (default ``eval/frozen_v9``)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("frozen_v9"))
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
