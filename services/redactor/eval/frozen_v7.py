"""The FROZEN held-out evaluation set **v7** (issue 11, seventh held-out round).

Written blind, by a hand that neither read the detector's rules nor ran the
detector (or ``evaluate.py``) on any text, nor read any earlier set's texts or
misses, and committed before anyone measured it. v1-v6 are *spent*: their
results were known while later rounds were tuned, so they count as tuning
material now. v7 is the current held-out set: it is measured once, by the lead.

Self-contained on purpose: imports nothing from the other generators, so growing
the tuning set can never change these files. It imports ``phonenumbers`` (pinned
by ``uv.lock``) only to draw phone numbers until one is valid, so that every
planted phone is valid for libphonenumber. Its templates and value pools (names,
e-mail domains, NANP area codes, cards, IBAN values, streets and towns, PII-free
chat templates and fills, technical kinds) are new; ``tests/unit/test_eval_frozen.py``
checks that the pools and every planted value are disjoint from every earlier
generator and labelled value, that every gold span is sound, that the PII-free
texts hold no IP address, MAC address, e-mail address, v7 name or Luhn-valid run
of card length, that ``eval/frozen_v7/SHA256SUMS`` pins the committed files, and
that this script reproduces them byte for byte.

Rules for whoever tunes the detector: ``evaluate.py --frozen-v7`` reports on
these files; ``evaluate.py`` refuses ``--misses`` on them. Nobody reads the
results before the lead's single measurement.

Files (JSONL, ``{"id", "lang", "text", "entities": [{"type", "start", "end",
"value"}]}``, code point offsets) in ``eval/frozen_v7/``:

- ``heldout-en.jsonl`` (400 messages with PII + 140 PII-free chat messages),
  ``heldout-fr.jsonl`` and ``heldout-es.jsonl`` (240 + 110 each).
- ``pii_free.jsonl`` (480): technical text (see ``TECH``); any detection is a
  false positive.

Gold conventions: a title (``Dr``, ``Mme``, ``Sra.``) is not part of a PERSON
span, nor is a possessive ``'s``; ``Last, First``, ``LAST First``, initials and
a middle initial are one span; a multi-line address is one STREET_ADDRESS span
including its line breaks (town, postcode and province included, country
excluded); card and IBAN spans include their separators; a phone span is the
number as written (``+``, trunk prefix and separators included) without its
extension (``ext. 31``, ``poste 12``, ``ext 4`` follow outside the span).

Usage: ``python services/redactor/eval/frozen_v7.py [--out DIR]`` (seed 71429).
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

SEED = 71429

# --- names -------------------------------------------------------------------

NAMES = {
    "en": {
        "first": (
            "Anwuli Ebubechi Nkemdirim Ifeoluwa Lwazi Kagiso Esinam Sharvani Adithya Pranjal Tejaswini "
            "Vaidehi Gurpreet Harjinder Zhenyu Ruoxi Jiahui Yuxuan Seojun Hyeonwoo Kazuki Haruna Yuzuki "
            "Layan Hamdan Rawan Ziyad Miroslava Rhodri Cerys Wiremu Eskil Obumneme Adaugo Somtochukwu "
            "Kwadwo-Manu Nanayaa Dumisani Nokuthula Tshepiso Shreyas Mrinalini Jaswinder Navjot Haozhe "
            "Zihan Jisoo Dohyun Ryunosuke Kotone Bilqis Hessa Nawaf Bożydar Jarosław-Piotr Seosamh "
            "Gruffudd Angharad Mererangi Tevita Losaline Halvard Refilwe-Palesa"
        ).split(),
        "last": (
            "Ntuli Sibiya Olanrewaju Ezeokafor Chimezie Ofori-Atta Agyeman-Duah Oppong Dhaliwal Grewal "
            "Subramaniam Kanagaratnam Ouyang Tachibana Morimoto Baek Abou-Khalil Dvořák Horvat Fonoti "
            "Whakaruru Ó_Dálaigh Mac_Giolla_Bhríde Anozie Okeke-Ojiudu Mthembu-Ngcobo Zungu Mabuza "
            "Shabalala Hlongwane Boateng-Asare Kyeremateng Venugopal Padmanabhan Vaithilingam Bhullar "
            "Sekhon Randhawa Guo-Lindgren Shimabukuro Higashiyama Tsukamoto Bukhari Abdulkarim Grzybowska "
            "Szczepańska Kovačević Ó_Ceallacháin Mac_an_tSaoi Faleolo Rangihuna Bjørnstad Ekdahl Qiu Jeon"
        ).split(),
    },
    "fr": {
        "first": (
            "Gwenvaël Maëlwenn Gaëtane Albérick Eudes Foulques Clothaire Évrard Ermeline Aldric Léontine "
            "Gonzague Thibaud-Armand Nour-Eddine Ouiza Zoubida Tassadit Coumba Mariétou Issiaka Yvonnick Loeiz"
        ).split(),
        "last": (
            "Kerguiduff Tromeur Quintric Guivarc'h Desnoyelles Vaucouleurs Boisgontier Chassériaud "
            "Ferrandière Laborderie Dupérier-Marsac Lhuillier-Bonnel Puységur Bourdalouë Tessandier "
            "Zéroual Benabdallah Ouaddour Belaïdi Payet-Técher Hoareau-Grondin d'Hautpoul de_Villèle"
        ).split(),
    },
    "es": {
        "first": (
            "Ainhize Unax Aritz Oihane Purificación Eleuterio Heliodoro Anunciación Brígida Yuridia Xóchitl "
            "Nezahualcóyotl Jacinta-Belén Wendolyne Deyanira Eusebia Illari Kusi Amaru Chaska Xarles "
            "Iñigo-Xabat Gaizka"
        ).split(),
        "last": (
            "Agirregabiria Etxezarreta Mendizabal Ugarteburu Berasategui Landaluze Valdeolmillos "
            "Villalpando Bocanegra Covarrubias Tlapanco Ccahuana Pillco Antezana Sagastizabal Urkiaga "
            "Mazarrasa Tlacuilo Añaños de_los_Arcos-Mendizabal"
        ).split(),
    },
}
# underscores in a pool entry are spaces (a surname with particles is one entry)
for _pools in NAMES.values():
    for _key in ("first", "last"):
        _pools[_key] = [n.replace("_", " ") for n in _pools[_key]]

PARTICLES = ("de", "los", "ó", "mac", "giolla", "an", "d'")

TITLES = {
    "en": ["Dr", "Dr.", "Mr", "Mrs", "Ms", "Mx", "Prof.", "Sister", "Rev."],
    "fr": ["M.", "Mme", "Dr", "Me", "Pr", "Mlle"],
    "es": ["Sr.", "Sra.", "Dra.", "Dr.", "D.", "Dña.", "Lic."],
}


def person(rng: random.Random, lang: str) -> tuple[str, str]:
    """A (first, last) pair from the language's pools (15 % drawn from another language's pools)."""
    src = lang if rng.random() < 0.85 else rng.choice([k for k in NAMES if k != lang])
    return rng.choice(NAMES[src]["first"]), rng.choice(NAMES[src]["last"])


def _ascii(s: str) -> str:
    s = s.translate(str.maketrans({"ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "æ": "ae", "œ": "oe", "ß": "ss"}))
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode()


def _surname_key(last: str) -> str:
    """The surname as an e-mail part: ascii, no particles' spaces, no apostrophes."""
    return re.sub(r"[^a-z-]", "", _ascii(last).lower().replace(" ", ""))


def name_form(rng: random.Random, p: tuple[str, str], form: str) -> str:
    """``p`` written in one of the forms people really write (``full``, ``first``, ``last``,
    ``lastfirst``, ``upper``, ``initial``, ``mid``, ``lower``, ``initials``)."""
    first, last = p
    if form == "first":
        return first
    if form == "last":
        return last
    if form == "lastfirst":
        return f"{last}, {first}"
    if form == "upper":
        return f"{last.upper()} {first}"
    if form == "initial":
        return f"{first[0]}. {last}"
    if form == "mid":
        return f"{first} {rng.choice('ABCDEGHJKLMNRSTW')}. {last}"
    if form == "lower":
        return f"{first} {last}".lower()
    if form == "initials":
        parts = first.split("-")
        return "-".join(f"{x[0]}." for x in parts) + f" {last}"
    return f"{first} {last}"


DOMAINS = {
    "en": [
        "tallowquay.co.uk", "brindlefern.com", "northgatehaulage.ie", "kestrelpeak.com.au",
        "whakarongo.co.nz", "veldsparmining.co.za", "ironbarkgroup.net", "fastmail.fm",
        "quillmere.org", "saltmarsh-dental.co.uk",
    ],
    "fr": [
        "ebenisterie-kerlann.bzh", "mutuelle-armorique.fr", "courrier-lemanique.ch", "boite-namuroise.be",
        "cave-cooperative-tain.fr", "vosges-numerique.fr", "cabinet-vauban-avocats.fr", "gmx.fr",
    ],
    "es": [
        "olivarera-jaenera.es", "txindoki-ingenieria.eus", "papeleria-la-estrella.com.mx", "navegante-austral.com.ar",
        "ferreteria-zubieta.es", "bodegas-almansa.com", "clinicadental-olivar.es", "huertas-del-segura.es",
    ],
}  # fmt: skip


def email(rng: random.Random, p: tuple[str, str], lang: str) -> str:
    """An address for ``p`` at one of the language's domains, in a layout people use."""
    first = re.sub(r"[^a-z-]", "", _ascii(p[0]).lower())
    last = _surname_key(p[1])
    user = rng.choice(
        [
            f"{first}.{last}",
            f"{first[0]}{last}",
            f"{first}{rng.randint(2, 98)}",
            f"{last}.{first[0]}",
            f"{first}_{last}",
            f"{first[0]}.{last}+{rng.choice(['facturas', 'news', 'rh', 'ops'])}",
            f"{last}{first[:2]}",
        ]
    )
    mail = f"{user}@{rng.choice(DOMAINS[lang])}"
    return mail.upper() if rng.random() < 0.04 else mail


# --- phones --------------------------------------------------------------------

_US_AREAS = [
    "231",
    "270",
    "309",
    "325",
    "360",
    "417",
    "435",
    "540",
    "575",
    "606",
    "715",
    "740",
    "830",
    "906",
    "970",
]
_CA_AREAS = ["249", "431", "639", "782", "825", "365"]
_QC_AREAS = ["354", "468"]
PHONE_REGIONS = {
    "en": ("US", "CA", "GB", "IE", "AU", "NZ", "ZA", "IN", "SG"),
    "fr": ("FR", "BE", "CH", "LU", "CA", "MC"),
    "es": ("ES", "MX", "AR", "CO", "CL", "PE", "US"),
}
# where the numbers come from, per language: home regions are written in national
# and international layouts, the others in international layouts only
_PHONE_FROM = {
    "en": ["US", "US", "US", "CA", "GB", "GB", "GB", "IE", "AU", "AU", "NZ", "ZA", "IN", "SG", "NG", "KE",
           "GH", "JM", "MT", "PH"],
    "fr": ["FR", "FR", "FR", "FR", "BE", "CH", "LU", "CA", "MC", "SN", "CI", "MA", "TN", "RE", "GP", "CM"],
    "es": ["ES", "ES", "ES", "MX", "MX", "AR", "CO", "CL", "PE", "US", "UY", "EC", "DO", "VE", "CR", "GT"],
}  # fmt: skip
_EXT = {
    "en": [" ext. {}", " x{}", " ext {}"],
    "fr": [" poste {}", " (poste {})"],
    "es": [" ext. {}", " int. {}"],
}


def _valid_for(value: str, lang: str) -> bool:
    for region in PHONE_REGIONS[lang]:
        try:
            if phonenumbers.is_valid_number(phonenumbers.parse(value, region)):
                return True
        except phonenumbers.NumberParseException:
            continue
    return False


def _draw_number(rng: random.Random, region: str) -> phonenumbers.PhoneNumber:
    """A random valid number of ``region`` (NANP from the v7 area codes)."""
    cc = phonenumbers.country_code_for_region(region)
    while True:
        if region in ("US", "CA"):
            area = rng.choice(_US_AREAS if region == "US" else rng.choice([_CA_AREAS, _QC_AREAS]))
            exch = f"{rng.randint(2, 9)}{rng.randint(0, 9)}{rng.randint(0, 9)}"
            if exch[1:] == "11" or exch == "555":
                continue
            nsn = f"{area}{exch}{rng.randint(0, 9999):04d}"
        else:
            kind = rng.choice([phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE])
            example = phonenumbers.example_number_for_type(region, kind) or phonenumbers.example_number(
                region
            )
            assert example is not None, region
            ex = str(example.national_number)
            keep = rng.randint(1, min(3, len(ex) - 5))
            nsn = ex[:keep] + "".join(str(rng.randint(0, 9)) for _ in range(len(ex) - keep))
        number = phonenumbers.PhoneNumber(country_code=cc, national_number=int(nsn))
        if region == "IT":
            number.italian_leading_zero = True
        if phonenumbers.is_valid_number(number) and phonenumbers.region_code_for_number(number) == region:
            return number


def phone(rng: random.Random, lang: str) -> tuple[str, str]:
    """A phone number valid for libphonenumber in one of many layouts, and its extension text
    (``""`` mostly) that follows it outside the span."""
    PNF = phonenumbers.PhoneNumberFormat
    while True:
        region = rng.choice(_PHONE_FROM[lang])
        n = _draw_number(rng, region)
        intl = phonenumbers.format_number(n, PNF.INTERNATIONAL)
        nat = phonenumbers.format_number(n, PNF.NATIONAL)
        e164 = phonenumbers.format_number(n, PNF.E164)
        layouts = [intl, e164, intl.replace(" ", "-"), "00" + intl[1:], intl.replace(" ", ".")]
        if region in PHONE_REGIONS[lang]:
            digits = re.sub(r"\D", "", nat)
            layouts += [nat, nat, re.sub(r"[ ()-]+", ".", nat).strip("."), digits, nat.replace(" ", "-")]
            if region in ("US", "CA"):
                layouts += [
                    f"1-{digits[:3]}-{digits[3:6]}-{digits[6:]}",
                    f"{digits[:3]}/{digits[3:6]}-{digits[6:]}",
                ]
            if region == "GB":
                layouts.append(f"+44 (0){nat[1:]}")
        value = rng.choice(layouts)
        if not _valid_for(value, lang):
            continue
        ext = rng.choice(_EXT[lang]).format(rng.randint(2, 499)) if rng.random() < 0.08 else ""
        return value, ext


# --- cards ---------------------------------------------------------------------


def _luhn(body: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch) * (2 if i % 2 == 0 else 1)
        total += d - 9 if d > 9 else d
    return body + str((10 - total % 10) % 10)


# (issuer prefix choices, lengths, weight): real issuer ranges
_ISSUERS: list[tuple[list[str], list[int], int]] = [
    (["4"], [16, 16, 16, 13, 19], 6),  # Visa
    ([str(p) for p in range(51, 56)], [16], 4),  # Mastercard 51-55
    ([str(p) for p in range(2221, 2721, 37)], [16], 3),  # Mastercard 2-series
    (["34", "37"], [15], 3),  # American Express
    (["36", "300", "301", "305", "38"], [14], 2),  # Diners Club
    (["6011", "644", "647", "649", "65"], [16, 19], 2),  # Discover
    ([str(p) for p in range(3528, 3590, 9)], [16, 17, 18, 19], 2),  # JCB
    (["62"], [16, 17, 18, 19], 3),  # UnionPay
    (["5018", "5020", "5038", "6304", "6759", "6761", "56", "58"], [12, 13, 15, 17, 18, 19], 4),  # Maestro
    (["2200", "2201", "2204"], [16], 1),  # Mir
    (["60", "6521", "81", "82"], [16], 1),  # RuPay
    (["9792"], [16], 1),  # Troy
    (["5061", "6500"], [16, 18, 19], 1),  # Verve
    (["1"], [15], 1),  # UATP
    (["606282"], [16], 1),  # Hipercard
    (["5019"], [16], 1),  # Dankort
]


def _group(digits: str, sizes: list[int], sep: str) -> str:
    out, i = [], 0
    for s in sizes:
        if i >= len(digits):
            break
        out.append(digits[i : i + s])
        i += s
    if i < len(digits):
        out.append(digits[i:])
    return sep.join(out)


def card(rng: random.Random) -> str:
    """A Luhn-valid number in a real issuer range, 12-19 digits, grouped as printed or typed."""
    prefixes, lengths, _ = rng.choices(_ISSUERS, weights=[w for *_, w in _ISSUERS])[0]
    prefix, length = rng.choice(prefixes), rng.choice(lengths)
    digits = _luhn(prefix + "".join(str(rng.randint(0, 9)) for _ in range(length - len(prefix) - 1)))
    sep = rng.choice([" ", " ", "-", "", " "])
    if length == 15 and prefix in ("34", "37"):
        sizes = [4, 6, 5]
    elif length == 14:
        sizes = rng.choice([[4, 6, 4], [4, 4, 4, 2]])
    elif length == 19:
        sizes = rng.choice([[4, 4, 4, 4, 3], [6, 13]])
    else:
        sizes = [4] * 5
    return _group(digits, sizes, sep) if sep else digits


# --- IBAN ----------------------------------------------------------------------

# BBAN layouts of the SWIFT IBAN registry: n digit, a upper letter, c letter or digit
_BBAN = {
    "GB": "4a14n", "IE": "4a14n", "NL": "4a10n", "DE": "18n", "FR": "10n11c2n", "BE": "12n",
    "CH": "5n12c", "LU": "3n13c", "MC": "10n11c2n", "ES": "20n", "PT": "21n", "IT": "1a10n12c",
    "AD": "8n12c", "PL": "24n", "CZ": "20n", "SE": "20n", "FI": "14n", "DK": "14n", "NO": "11n",
    "HU": "24n", "RO": "4a16c", "BG": "4a6n8c", "HR": "17n", "SI": "15n", "EE": "16n", "LT": "16n",
    "GR": "7n16c", "IS": "22n", "HN": "4a20n", "OM": "3n16c", "YE": "4a4n18c", "MN": "16n",
    "RU": "14n15c", "SN": "2a22n", "MA": "24n", "CM": "23n", "GQ": "23n",
}  # fmt: skip
_IBAN_COUNTRIES = {
    "en": ["GB", "GB", "IE", "IE", "NL", "DE", "PL", "SE", "DK", "NO", "HN", "OM", "IS", "FI", "YE"],
    "fr": ["FR", "FR", "FR", "FR", "FR", "BE", "CH", "LU", "MC", "RO", "GR", "MN", "HU", "CZ", "SN", "MA", "CM"],
    "es": ["ES", "ES", "PT", "AD", "IT", "BG", "HR", "SI", "EE", "LT", "RU", "HN", "GQ"],
}  # fmt: skip
# countries no earlier set planted: Yemen (SWIFT registry), and IBANs that banks of Senegal,
# Morocco, Cameroon and Equatorial Guinea issue (ISO 13616 layout and check digits, not in the
# SWIFT registry): a French- or Spanish-speaking gateway sees them (about 1 IBAN in 6 in fr)
_IBAN_NEW = frozenset({"YE", "SN", "MA", "CM", "GQ"})


def _bban(rng: random.Random, layout: str) -> str:
    out = []
    for count, kind in re.findall(r"(\d+)([nac])", layout):
        for _ in range(int(count)):
            if kind == "n":
                out.append(str(rng.randint(0, 9)))
            elif kind == "a":
                out.append(rng.choice("ABCDEFGHIJKLMNOPRSTUVWXYZ"))
            else:
                out.append(rng.choice("0123456789ABCDEFGHJKLMNPRSTUVWXYZ0123456789"))
    return "".join(out)


def _iban_check(country: str, bban: str) -> str:
    n = int("".join(str(int(c, 36)) for c in bban + country + "00"))
    return f"{98 - n % 97:02d}"


def iban(rng: random.Random, lang: str) -> str:
    """An IBAN with valid ISO 13616 check digits, spaced in 4s, unspaced or lower case."""
    country = rng.choice(_IBAN_COUNTRIES[lang])
    bban = _bban(rng, _BBAN[country])
    code = country + _iban_check(country, bban) + bban
    style = rng.random()
    if style < 0.55:
        code = " ".join(code[i : i + 4] for i in range(0, len(code), 4))
    elif style < 0.65:
        code = " ".join(code[i : i + 4] for i in range(0, len(code), 4)).lower()
    elif style < 0.72:
        code = code.lower()
    return code


# --- addresses -----------------------------------------------------------------

STREETS = {
    "en": [
        "Wexcombe Lane", "Quillfeather Row", "Saltings Drove", "Coldharbour Parade", "Fennick Close",
        "Tanyard Hollow", "Ravensdyke Road", "Skirbeck Terrace", "Hobhole Bank", "Gallowtree Gate",
        "Larchmont Spur", "Cutbank Creek Road", "Tamarack Bluff Drive", "Sweetgrass Trail",
        "Ballinteer Heights", "Knocknagree Court", "Warrigal Crescent", "Boobialla Street",
        "Kowhaiwhai Lane", "Pohutukawa Rise", "Protea Kloof Street", "Klipspringer Avenue",
    ],
    "fr": [
        "rue des Tanneurs-Vieux", "avenue du Clos-Vougeot", "boulevard des Hortillonnages",
        "chemin de la Croix-Berthelot", "allée des Cormiers-Blancs", "impasse du Four-à-Chaux",
        "place de la Halle-aux-Toiles", "rue du Pont-de-Ruan", "chemin des Grillons-Verts",
        "rue de la Fonderie-Cail", "avenue des Épinettes-Hautes", "boulevard Paul-Sédir",
    ],
    "es": [
        "calle del Almirez", "avenida de los Alcotanes", "plaza del Trillo", "paseo de la Alameda Vieja",
        "camino de las Eras Bajas", "carretera de Cehegín", "calle Mayor de Ondarroa",
        "avenida Txurruka", "calle de la Cerería Vieja", "plaza de los Curtidores Altos", "calle Tamazula",
        "avenida Gaona Chacabuco", "pasaje Los Copihues", "jirón Huallaga Alto",
    ],
}  # fmt: skip
_UK = [("Marlborough", "SN8 1QT"), ("Boston", "PE21 9LP"), ("Alnwick", "NE66 1XR"), ("Ledbury", "HR8 1DQ"),
       ("Wigtown", "DG8 9HU"), ("Llandovery", "SA20 0AR")]  # fmt: skip
_US = [("Lewistown", "MT", "59457"), ("Minot", "ND", "58701"), ("Spearfish", "SD", "57783"),
       ("Kearney", "NE", "68845"), ("Brattleboro", "VT", "05301"), ("Presque Isle", "ME", "04769"),
       ("Elko", "NV", "89801"), ("Truth or Consequences", "NM", "87901")]  # fmt: skip
_IE = [("Rathfarnham, Dublin 16", "D16 X2F3"), ("Kanturk, Co. Cork", "P51 K7T2"),
       ("Ballinasloe, Co. Galway", "H53 E9W4"), ("Carrick-on-Shannon, Co. Leitrim", "N41 V0C8")]  # fmt: skip
_AU = [("Oakleigh", "VIC", "3166"), ("Toowoomba", "QLD", "4350"), ("Mount Gambier", "SA", "5290"),
       ("Kalgoorlie", "WA", "6430"), ("Queanbeyan", "NSW", "2620")]  # fmt: skip
_CA = [("Yellowknife", "NT", "X1A 3G2"), ("Corner Brook", "NL", "A2H 6J7"), ("Antigonish", "NS", "B2G 2L4"),
       ("Swift Current", "SK", "S9H 3W4"), ("Steinbach", "MB", "R5G 1T5")]  # fmt: skip
_NZ = [("Te Awamutu", "3800"), ("Greymouth", "7805"), ("Masterton", "5810"), ("Gore", "9710")]
_ZA = [
    ("Die Wilgers, Pretoria", "0184"),
    ("Stellenbosch", "7600"),
    ("Mbombela", "1201"),
    ("Gqeberha", "6001"),
]
_FR = ["45200 Montargis", "36200 Argenton-sur-Creuse", "29270 Carhaix-Plouguer", "03100 Montluçon",
       "12100 Millau", "80100 Abbeville", "97430 Le Tampon", "71100 Chalon-sur-Saône"]  # fmt: skip
_FR_CEDEX = ["35043 Rennes Cedex", "44306 Nantes CEDEX 3", "87031 Limoges Cedex 1", "21074 Dijon CEDEX"]
_FR_LIEUDIT = ["Les Grandes Ouches", "La Brousse-Haute", "Le Pré-Bâtard", "Kerampuil"]
_BE_CH = ["6220 Fleurus", "5580 Rochefort", "1868 Collombey", "2800 Delémont"]
_ES = [("30510", "Yecla", "Murcia"), ("48700", "Ondarroa", "Bizkaia"), ("13300", "Valdepeñas", "Ciudad Real"),
       ("22300", "Barbastro", "Huesca"), ("06800", "Mérida", "Badajoz"), ("36800", "Redondela", "Pontevedra"),
       ("30430", "Cehegín", "Murcia")]  # fmt: skip
_LATAM = {"calle Tamazula": "Col. Las Quintas, 80060 Culiacán, Sin.",
          "avenida Gaona Chacabuco": "C1406 CABA", "pasaje Los Copihues": "8320000 Santiago, Región Metropolitana",
          "jirón Huallaga Alto": "Cercado de Lima 15001, Lima"}  # fmt: skip


def _en_address(rng: random.Random) -> list[str]:
    """The lines of an English-speaking address (country line excluded)."""
    n, street = rng.randint(2, 998), rng.choice(STREETS["en"][:10])
    kind = rng.choice(
        ["uk", "uk", "us", "us", "us_po", "us_rr", "ie", "au", "au_po", "ca", "ca_rr", "nz", "nz_rd", "za"]
    )
    if kind == "uk":
        town, pc = rng.choice(_UK)
        flat = rng.choice(
            ["", "", f"Flat {rng.randint(1, 12)}, ", f"{rng.choice(['Rose', 'Ivy', 'Mill'])} Cottage, "]
        )
        return [f"{flat}{n} {street}", town.upper() if rng.random() < 0.3 else town, pc]
    if kind.startswith("us"):
        town, st, z = rng.choice(_US)
        if kind == "us_po":
            return [f"PO Box {rng.randint(10, 9999)}", f"{town}, {st} {z}"]
        if kind == "us_rr":
            return [
                f"RR {rng.randint(1, 6)} Box {rng.randint(10, 400)}",
                f"{town}, {st} {z}-{rng.randint(1000, 9999)}",
            ]
        us_street = rng.choice(STREETS["en"][10:14])
        unit = rng.choice(
            ["", "", f" Apt {rng.randint(1, 30)}{rng.choice('ABC')}", f" Unit {rng.randint(100, 450)}"]
        )
        return [f"{rng.randint(100, 29999)} {us_street}{unit}", f"{town}, {st} {z}"]
    if kind == "ie":
        town, ec = rng.choice(_IE)
        return [f"{rng.randint(1, 80)} {rng.choice(STREETS['en'][14:16])}", town, ec]
    if kind.startswith("au"):
        sub, st, pc = rng.choice(_AU)
        if kind == "au_po":
            return [f"PO Box {rng.randint(10, 2999)}", f"{sub} {st} {pc}"]
        return [
            f"{rng.choice(['', f'Unit {rng.randint(1, 20)}/'])}{n} {rng.choice(STREETS['en'][16:18])}",
            f"{sub} {st} {pc}",
        ]
    if kind.startswith("ca"):
        town, pr, pc = rng.choice(_CA)
        if kind == "ca_rr":
            return [
                f"RR {rng.randint(1, 5)} Site {rng.randint(1, 30)} Comp {rng.randint(1, 60)}",
                f"{town} {pr}  {pc}",
            ]
        return [f"{n} {rng.choice(STREETS['en'][10:14])}", f"{town} {pr}  {pc}"]
    if kind.startswith("nz"):
        town, pc = rng.choice(_NZ)
        if kind == "nz_rd":
            return [
                f"{rng.randint(100, 1999)} {rng.choice(STREETS['en'][18:20])}",
                f"RD {rng.randint(1, 9)}",
                f"{town} {pc}",
            ]
        return [f"{n} {rng.choice(STREETS['en'][18:20])}", f"{town} {pc}"]
    town, pc = rng.choice(_ZA)
    return [f"{n} {rng.choice(STREETS['en'][20:])}", town, pc]


def _fr_address(rng: random.Random) -> list[str]:
    street = rng.choice(STREETS["fr"])
    num = f"{rng.randint(1, 140)}{rng.choice(['', '', '', ' bis', ' ter', 'bis', ' B'])}"
    kind = rng.choice(["fr", "fr", "fr", "cedex", "lieudit", "bech", "bp"])
    if kind == "fr":
        extra = rng.choice(
            ["", "", f"Bâtiment {rng.choice('ABC')}, ", f"Résidence les Aulnes, apt {rng.randint(1, 40)}, "]
        )
        return [
            f"{extra}{num}, {street}" if rng.random() < 0.4 else f"{extra}{num} {street}",
            rng.choice(_FR),
        ]
    if kind == "cedex":
        return [f"{num} {street}", rng.choice(_FR_CEDEX)]
    if kind == "bp":
        return [f"{num} {street}", f"BP {rng.randint(10, 900)}", rng.choice(_FR_CEDEX)]
    if kind == "lieudit":
        return [f"Lieu-dit {rng.choice(_FR_LIEUDIT)}", rng.choice(_FR)]
    return [f"{street[0].upper()}{street[1:]} {rng.randint(1, 90)}", rng.choice(_BE_CH)]


def _es_address(rng: random.Random) -> list[str]:
    street = rng.choice(STREETS["es"])
    if street in _LATAM:
        return [
            f"{street[0].upper()}{street[1:]} {rng.randint(100, 4800)}{rng.choice(['', ', piso 3 dto. B', ' int. 4'])}",
            _LATAM[street],
        ]
    cp, city, prov = rng.choice(_ES)
    if street == "carretera de Cehegín":
        cp, city, prov = _ES[-1]
    if street.startswith("carretera") or street.startswith("camino"):
        first = f"{street[0].upper()}{street[1:]}, km {rng.randint(1, 40)},{rng.randint(1, 9)}"
    else:
        piso = rng.choice([
            "", f", {rng.randint(1, 9)}.º {rng.choice('ABCD')}", f", piso {rng.randint(1, 8)}, puerta {rng.randint(1, 12)}",
            f", esc. {rng.randint(1, 3)}, {rng.randint(1, 6)}º {rng.choice(['izda.', 'dcha.'])}", f", bajo {rng.choice('AB')}",
            f", escalera {rng.choice('ABI')}, {rng.randint(1, 9)}-{rng.randint(1, 4)}",
        ])  # fmt: skip
        s = street if rng.random() < 0.3 else street[0].upper() + street[1:]
        if rng.random() < 0.2:
            s = s.replace("calle ", "C/ ").replace("avenida ", "Avda. ").replace("plaza ", "Pza. ")
        first = (
            f"{s}, {rng.randint(1, 120)}{piso}" if rng.random() < 0.7 else f"{s} {rng.randint(1, 120)}{piso}"
        )
    return [first, f"{cp} {city} ({prov})" if rng.random() < 0.6 else f"{cp} {city}, {prov}"]


_ADDRESS = {"en": _en_address, "fr": _fr_address, "es": _es_address}


_LATAM_COUNTRY = {"Sin.": "MÉXICO", "CABA": "ARGENTINA", "Metropolitana": "CHILE", "Lima": "PERÚ"}


def country_of(lines: list[str], lang: str) -> str:
    """The country line written under an address whose lines are ``lines``."""
    last = lines[-1]
    if lang == "fr":
        return ("BELGIQUE" if last[0] in "56" else "SUISSE") if last in _BE_CH else "FRANCE"
    if lang == "es":
        return next((c for k, c in _LATAM_COUNTRY.items() if last.endswith(k)), "ESPAÑA")
    if any(last == pc for _, pc in _UK):
        return "United Kingdom"
    if any(last == ec for _, ec in _IE):
        return "Ireland"
    if any(last == pc for _, pc in _ZA):
        return "South Africa"
    if re.search(r", [A-Z]{2} \d{5}", last):
        return "USA"
    if "  " in last:
        return "Canada"
    if re.search(r" (VIC|QLD|SA|WA|NSW) \d{4}$", last):
        return "Australia"
    return "New Zealand"


def address_with_country(rng: random.Random, lang: str) -> tuple[str, str]:
    """An address across lines, and the country line written under it (outside the span)."""
    lines = _ADDRESS[lang](rng)
    return "\n".join(lines), country_of(lines, lang)


def address(rng: random.Random, lang: str, multiline: bool = False) -> str:
    """An address in the real layout of a country of ``lang``, on one line or across lines."""
    lines = _ADDRESS[lang](rng)
    return "\n".join(lines) if multiline else ", ".join(lines)


# --- templates with PII ----------------------------------------------------------
# Slots: [[P1:form]] a person (forms of ``name_form``), [[T1]] a title and P1's surname (the
# title outside the span), [[E1]]/[[E2]] P1's/P2's e-mail, [[PH]] a phone, [[CC]] a card,
# [[IB]] an IBAN, [[AD]] an address on one line, [[AM]] one across lines; [[CO]], [[REF]],
# [[DATE]], [[TIME]], [[AMT]] are fills without personal data; [[AMC]] is [[AM]] followed by
# its country line (outside the span).

TEMPLATES = {
    "en": [
        "Hi team,\n\nCan someone call [[P1:full]] back on [[PH]] before noon? She says the courier left the parcel at the wrong door again.\n\nThanks",
        "Ticket #[[REF]] | Requester: [[P1:lastfirst]] <[[E1]]> | Priority: P3\nSubject: refund to card ending in a different number\nBody: I was charged twice on [[CC]] for the same order, please reverse one.",
        'customer_id,full_name,email,phone,address\n[[REF]],"[[P1:lastfirst]]",[[E1]],[[PH]],"[[AD]]"',
        '{"tool":"crm.update_contact","arguments":{"contact":{"name":"[[P1:full]]","email":"[[E1]]","mobile":"[[PH]]"},"reason":"bounced newsletter"}}',
        "Please ship the replacement hinge to:\n[[P1:full]]\n[[AMC]]",
        "Thanks for your help earlier!\n\n--\n[[P1:full]]\nSenior Buyer, [[CO]]\nm: [[PH]]\ne: [[E1]]",
        "[[TIME]] agent: can I confirm the name on the account?\n[[TIME]] customer: [[P1:lower]]\n[[TIME]] agent: and the card you paid with?\n[[TIME]] customer: [[CC]]",
        "Meeting notes [[DATE]]\nAttendees: [[P1:initial]], [[P2:full]], [[P3:first]]\n- [[P2:first]] to send the revised quote to [[E2]]\n- budget sign-off stays with [[P3:last]]",
        "Dear [[T1]],\n\nYour appointment at the Ferndale clinic is confirmed for [[DATE]] at [[TIME]]. If you cannot attend, ring us on [[PH]] at least 24 hours ahead.\n\nReception",
        "HR record\nEmployee: [[P1:upper]]\nHome address: [[AD]]\nSalary account: [[IB]]\nEmergency contact: [[P2:full]] ([[PH]])",
        "INVOICE [[REF]]\nBill to: [[P1:full]], [[AD]]\nAmount due: [[AMT]]\nPay by bank transfer to our account, quoting the invoice number.",
        "SHIP TO\n[[P1:upper]]\n[[AMC]]\nTEL [[PH]]\nPKG 1 OF 1   WT 2.4 KG",
        "| Name | Email | Phone |\n|---|---|---|\n| [[P1:full]] | [[E1]] | [[PH]] |\n| [[P2:full]] | [[E2]] | [[PH]] |",
        'contact:\n  name: [[P1:full]]\n  email: [[E1]]\n  phone: "[[PH]]"\n  billing_iban: [[IB]]',
        "I'm moving next week, the new address is [[AD]], could you update it before the next delivery?",
        "spoke to [[P1:full]] this morning, she wants the refund on the card [[CC]] rather than store credit",
        "Dear [[T1]],\n\nWe write to confirm that the standing order from account [[IB]] has been cancelled as you requested on [[DATE]].\n\nYours sincerely,\nCustomer Accounts, [[CO]]",
        "Form submission\nFirst name: [[P1:first]]\nLast name: [[P1:last]]\nEmail: [[E1]]\nPhone: [[PH]]\nMessage: the tap in the upstairs bathroom still drips",
        "Could you forward this to [[P1:full]]? Her address is [[E1]] and she handles the Northern accounts now.",
        "Hey, it's [[P1:first]]. Lost my phone so text me on [[PH]] for now, the old number is dead.",
        "Escalation: [[P1:initials]] reports the payment with card [[CC]] was declined three times although the bank says the funds are there.",
        "Please update the payee for supplier [[REF]]: beneficiary [[P1:full]], IBAN [[IB]], effective [[DATE]].",
        "New starter checklist for [[P1:full]] (starts [[DATE]]):\n- laptop to be posted to [[AD]]\n- payroll: [[IB]]\n- buddy: [[P2:first]]",
        "Hi [[P1:first]],\n\nJust a reminder that your car is booked in for its service on [[DATE]]. Any questions, give the workshop a ring on [[PH]].\n\nCheers,\n[[P2:first]]",
        '{"name": "create_booking", "arguments": "{\\"guest\\": \\"[[P1:full]]\\", \\"email\\": \\"[[E1]]\\", \\"card\\": \\"[[CC]]\\"}"}',
        "RE: delivery problem\n\n[[P1:full]] wrote:\n> The driver could not find [[AD]], is there a note on the order?\n\nYes, we've added directions now.",
        "Attendance list: [[P1:full]]; [[P2:lastfirst]]; [[P3:full]]",
        "The form was filled in by [[P1:mid]] who gave [[E1]] as a contact and [[PH]] as a daytime number.",
        "Can you check why [[P1:full]]'s direct debit from [[IB]] bounced this month?",
        "Order [[REF]]\nDeliver to:\n[[AM]]\nRecipient phone: [[PH]]\nLeave with neighbour if out.",
        "From: [[P1:full]] <[[E1]]>\nTo: Accounts team\nSubject: card change\n\nPlease charge future renewals to [[CC]] instead.\n\nKind regards\n[[P1:first]]",
        "Pharmacy reminder: [[T1]], your repeat prescription is ready to collect. Questions? Call [[PH]].",
        "Volunteer rota\nSat: [[P1:mid]]\nSun: [[P2:lower]]\nCover: [[P3:initial]]",
        "Chat transcript\nVisitor: my name is [[P1:full]] and I never got the confirmation e-mail\nBot: which address did you use?\nVisitor: [[E1]]",
        "Landlord details for the tenancy file: [[P1:full]], [[AD]], rent paid into [[IB]].",
        "Please remove my details from your list. [[E1]] / [[PH]]",
        "We have received a cheque from [[P1:upper]] but the reference is missing; the return address on the envelope was\n[[AM]]",
        "ok so [[P1:first]] said the new card is [[CC]] and the old one should be cancelled",
        "Wire instructions (do not share): beneficiary [[P1:full]], account [[IB]], reference [[REF]].",
        "Driver notes: [[P1:lastfirst]], [[AD]], gate code changes on Mondays, phone ahead [[PH]]",
    ],
    "fr": [
        "Bonjour,\n\nPouvez-vous rappeler [[P1:full]] au [[PH]] ? Le colis n'est toujours pas arrivé.\n\nMerci",
        "Ticket [[REF]] | Demandeur : [[P1:upper]] <[[E1]]>\nObjet : double prélèvement\nJ'ai été débitée deux fois sur la carte [[CC]], merci de rembourser.",
        "nom;prénom;courriel;téléphone;adresse\n[[P1:last]];[[P1:first]];[[E1]];[[PH]];[[AD]]",
        '{"outil":"crm.maj_contact","arguments":{"nom":"[[P1:full]]","courriel":"[[E1]]","tel":"[[PH]]"}}',
        "Merci d'expédier la pièce à :\n[[P1:full]]\n[[AMC]]",
        "Bien cordialement,\n\n[[P1:full]]\nResponsable des achats – [[CO]]\nTél. : [[PH]]\n[[E1]]",
        "[[TIME]] conseiller : quel est le nom du titulaire ?\n[[TIME]] client : [[P1:lower]]\n[[TIME]] conseiller : et le numéro de carte ?\n[[TIME]] client : [[CC]]",
        "Compte rendu du [[DATE]]\nPrésents : [[P1:initial]], [[P2:full]], [[P3:first]]\n- [[P2:first]] envoie le devis révisé à [[E2]]\n- validation budgétaire : [[P3:last]]",
        "[[T1]],\n\nVotre rendez-vous au cabinet de kinésithérapie est confirmé le [[DATE]] à [[TIME]]. En cas d'empêchement, merci de prévenir au [[PH]].\n\nLe secrétariat",
        "Fiche salarié\nNom : [[P1:upper]]\nAdresse : [[AD]]\nRIB (IBAN) : [[IB]]\nPersonne à prévenir : [[P2:full]], [[PH]]",
        "FACTURE [[REF]]\nClient : [[P1:full]], [[AD]]\nMontant TTC : [[AMT]]\nRèglement par virement sous 30 jours.",
        "DESTINATAIRE\n[[P1:upper]]\n[[AMC]]\nTél. [[PH]]",
        "| Nom | Courriel | Téléphone |\n|---|---|---|\n| [[P1:full]] | [[E1]] | [[PH]] |\n| [[P2:lastfirst]] | [[E2]] | [[PH]] |",
        "Je déménage la semaine prochaine, ma nouvelle adresse est [[AD]], pouvez-vous la mettre à jour ?",
        "vu avec [[P1:first]] ce matin, elle préfère un remboursement sur la carte [[CC]] plutôt qu'un avoir",
        "[[T1]],\n\nNous vous confirmons la résiliation du prélèvement sur le compte [[IB]] à compter du [[DATE]].\n\nVeuillez agréer nos salutations distinguées.\nService clientèle",
        "Formulaire de contact\nPrénom : [[P1:first]]\nNom : [[P1:last]]\nE-mail : [[E1]]\nTéléphone : [[PH]]\nMessage : le chauffe-eau fuit encore",
        "Pouvez-vous transférer à [[P1:full]] ? Son adresse est [[E1]], c'est elle qui suit le dossier maintenant.",
        "Coucou c'est [[P1:first]], j'ai changé de numéro : [[PH]]",
        "Merci de modifier le bénéficiaire du fournisseur [[REF]] : [[P1:full]], IBAN [[IB]], à partir du [[DATE]].",
        "Arrivée de [[P1:full]] le [[DATE]] :\n- ordinateur à envoyer au [[AD]]\n- paie : [[IB]]\n- parrain : [[P2:first]]",
        "De : [[P1:full]] <[[E1]]>\nObjet : changement de carte\n\nMerci de prélever les prochains renouvellements sur la carte [[CC]].\n\nCordialement,\n[[P1:first]]",
        "Planning des bénévoles : samedi [[P1:full]], dimanche [[P2:lower]], remplaçant [[P3:initial]]",
        "Le chèque de [[P1:upper]] est arrivé sans référence ; adresse au dos de l'enveloppe :\n[[AM]]",
        "Coordonnées du bailleur : [[P1:full]], [[AD]], loyer versé sur [[IB]].",
        "Merci de supprimer mes coordonnées de vos fichiers : [[E1]] / [[PH]]",
        "Instructions de virement : bénéficiaire [[P1:lastfirst]], compte [[IB]], référence [[REF]].",
        "bonjour je suis [[P1:full]] et je n'ai jamais reçu le mail de confirmation sur [[E1]]",
    ],
    "es": [
        "Hola:\n\n¿Podéis llamar a [[P1:full]] al [[PH]]? Dice que el paquete sigue sin llegar.\n\nGracias",
        "Incidencia [[REF]] | Solicitante: [[P1:upper]] <[[E1]]>\nAsunto: cobro duplicado\nMe han cobrado dos veces en la tarjeta [[CC]], por favor devolved uno.",
        "apellidos;nombre;correo;teléfono;dirección\n[[P1:last]];[[P1:first]];[[E1]];[[PH]];[[AD]]",
        '{"herramienta":"crm.actualizar_contacto","argumentos":{"nombre":"[[P1:full]]","correo":"[[E1]]","movil":"[[PH]]"}}',
        "Enviar la pieza de recambio a:\n[[P1:full]]\n[[AMC]]",
        "Un saludo,\n\n[[P1:full]]\nJefa de compras · [[CO]]\nTel.: [[PH]]\n[[E1]]",
        "[[TIME]] agente: ¿a nombre de quién está la cuenta?\n[[TIME]] cliente: [[P1:lower]]\n[[TIME]] agente: ¿y el número de tarjeta?\n[[TIME]] cliente: [[CC]]",
        "Acta de la reunión del [[DATE]]\nAsistentes: [[P1:initial]], [[P2:full]], [[P3:first]]\n- [[P2:first]] enviará el presupuesto revisado a [[E2]]\n- aprobación del gasto: [[P3:last]]",
        "Estimado/a [[T1]]:\n\nLe recordamos su cita en la consulta de dermatología el [[DATE]] a las [[TIME]]. Si no puede acudir, avísenos en el [[PH]].\n\nAtentamente,\nAdmisión",
        "Ficha de empleado\nNombre: [[P1:upper]]\nDomicilio: [[AD]]\nCuenta de nómina: [[IB]]\nContacto de emergencia: [[P2:full]], [[PH]]",
        "FACTURA [[REF]]\nCliente: [[P1:full]], [[AD]]\nImporte total: [[AMT]]\nPago por transferencia en 30 días.",
        "DESTINATARIO\n[[P1:upper]]\n[[AM]]\nTLF. [[PH]]",
        "| Nombre | Correo | Teléfono |\n|---|---|---|\n| [[P1:full]] | [[E1]] | [[PH]] |\n| [[P2:lastfirst]] | [[E2]] | [[PH]] |",
        "Me mudo la semana que viene, la nueva dirección es [[AD]], ¿podéis cambiarla antes del próximo envío?",
        "he hablado con [[P1:first]] esta mañana, prefiere el reembolso en la tarjeta [[CC]] y no un vale",
        "Estimado/a [[T1]]:\n\nLe confirmamos la cancelación de la domiciliación en la cuenta [[IB]] con efecto [[DATE]].\n\nReciba un cordial saludo,\nAtención al cliente",
        "Formulario web\nNombre: [[P1:first]]\nApellidos: [[P1:last]]\nCorreo: [[E1]]\nTeléfono: [[PH]]\nMensaje: la caldera sigue haciendo ruido",
        "¿Le puedes reenviar esto a [[P1:full]]? Su correo es [[E1]] y ahora lleva ella las cuentas del norte.",
        "Soy [[P1:first]], he cambiado de número, apúntate este: [[PH]]",
        "Cambio de beneficiario del proveedor [[REF]]: [[P1:full]], IBAN [[IB]], desde el [[DATE]].",
        "Incorporación de [[P1:full]] el [[DATE]]:\n- enviar el portátil a [[AD]]\n- nómina: [[IB]]\n- mentor: [[P2:first]]",
        "De: [[P1:full]] <[[E1]]>\nAsunto: cambio de tarjeta\n\nPor favor, cargad las próximas renovaciones en la tarjeta [[CC]].\n\nSaludos,\n[[P1:first]]",
        "Turnos de voluntariado: sábado [[P1:full]], domingo [[P2:lower]], suplente [[P3:initial]]",
        "Ha llegado una carta de [[P1:upper]] sin referencia; el remite del sobre era:\n[[AM]]",
        "Datos del arrendador: [[P1:full]], [[AD]], la renta se ingresa en [[IB]].",
        "Por favor, borrad mis datos de vuestra lista: [[E1]] / [[PH]]",
        "Datos para la transferencia: beneficiario [[P1:lastfirst]], cuenta [[IB]], concepto [[REF]].",
        "hola soy [[P1:full]] y nunca me llegó el correo de confirmación a [[E1]]",
    ],
}

_SLOT = re.compile(r"\[\[(P[123]|T1|E[12]|PH|CC|IB|AD|AMC|AM|CO|REF|DATE|TIME|AMT)(?::(\w+))?\]\]")
_COMPANIES = {
    "en": ["Northwind Fixings Ltd", "Harbourline Freight", "Bluegate Joinery", "Copperleaf Analytics", "Riverbend Plastics"],
    "fr": ["Atelier Granit SARL", "Transports du Lévezou", "Menuiserie des Trois Ponts", "Optique du Marché"],
    "es": ["Suministros Levante S.L.", "Talleres Ribera del Duero", "Cerámicas del Turia S.A.", "Logística Ebro"],
}  # fmt: skip
_MONTHS = {
    "en": "January February March April May June July August September October November December".split(),
    "fr": "janvier février mars avril mai juin juillet août septembre octobre novembre décembre".split(),
    "es": "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre".split(),
}


def _plain(slot: str, rng: random.Random, lang: str) -> str:
    """A fill without personal data."""
    if slot == "CO":
        return rng.choice(_COMPANIES[lang])
    if slot == "REF":
        return (
            rng.choice(["INV-", "TK-", "PO", "SR-", "FAC-", ""])
            + f"{rng.randint(2024, 2026)}-{rng.randint(1000, 99999)}"
        )
    if slot == "DATE":
        d, m = rng.randint(1, 28), rng.randint(1, 12)
        if rng.random() < 0.5:
            return f"{d} {_MONTHS[lang][m - 1]}"
        return f"{d:02d}/{m:02d}/2027" if lang != "en" else f"2027-{m:02d}-{d:02d}"
    if slot == "TIME":
        return f"{rng.randint(8, 18):02d}:{rng.choice(['00', '15', '30', '45', '05', '50'])}"
    amount = rng.randint(1200, 980000)
    if lang == "en":
        return f"{rng.choice(['£', '$', 'A$', 'NZ$'])}{amount // 100:,}.{amount % 100:02d}"
    return f"{amount // 100:,}".replace(",", "\u202f") + f",{amount % 100:02d} €"


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
    pos = 0
    length = 0

    def add(value: str, kind: str | None, after: str = "") -> None:
        nonlocal length
        if kind:
            entities.append({"type": kind, "start": length, "end": length + len(value), "value": value})
        out.append(value + after)
        length += len(value) + len(after)

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
            add(value, "PHONE_NUMBER", ext)
        elif slot == "CC":
            add(card(rng), "CREDIT_CARD")
        elif slot == "IB":
            add(iban(rng, lang), "IBAN_CODE")
        elif slot == "AMC":
            value, country = address_with_country(rng, lang)
            add(value, "STREET_ADDRESS", "\n" + country)
        elif slot in ("AD", "AM"):
            add(address(rng, lang, multiline=slot == "AM"), "STREET_ADDRESS")
        else:
            add(_plain(slot, rng, lang), None)
    add(template[pos:], None)
    return "".join(out), entities


# --- PII-free chat -----------------------------------------------------------------

_CHAT_FILL = {
    "en": {
        "DISH": ["a lentil and squash dhal", "buckwheat crêpes", "a smoked mackerel pâté", "a chickpea and chard stew", "a rhubarb crumble"],
        "THING": ["a second-hand cargo bike", "an induction hob", "a pair of trail shoes", "a wall-mounted drying rack", "a standing desk frame"],
        "TOPIC": ["how glaciers carve valleys", "tidal energy", "sourdough hydration", "the scoring in curling", "lichen symbiosis"],
        "SKILL": ["touch typing", "bookbinding", "sight reading music", "basic plumbing", "wood carving"],
    },
    "fr": {
        "DISH": ["une tarte aux poireaux", "un clafoutis aux prunes", "des lentilles au lard", "une soupe au pistou"],
        "THING": ["un vélo à assistance électrique", "une bouilloire réglable", "un matelas en latex", "une perceuse sans fil"],
        "TOPIC": ["la formation des stalactites", "les taux d'intérêt variables", "la fermentation du cidre", "les marées d'équinoxe"],
        "SKILL": ["la reliure", "le crochet", "la taille des rosiers", "le solfège"],
    },
    "es": {
        "DISH": ["unas lentejas con chorizo", "un pisto manchego", "una crema de calabaza", "un arroz con acelgas"],
        "THING": ["una olla exprés de acero", "un tendedero de techo", "unas botas de montaña", "una bicicleta plegable"],
        "TOPIC": ["la inflación subyacente", "la energía mareomotriz", "la poda del olivo", "la trashumancia de ovejas"],
        "SKILL": ["la encuadernación", "el ganchillo", "la talla en madera", "el lenguaje de signos"],
    },
}  # fmt: skip

CHAT_FREE = {
    "en": [
        "What can I cook tonight besides {DISH}? I have an hour and not much in the fridge.",
        "Is {THING} worth buying or should I wait for the spring sales?",
        "Explain {TOPIC} like I'm twelve, please.",
        "I want to learn {SKILL} this winter. Where should a complete beginner start?",
        "Give me three arguments for and against a four-day working week.",
        "Rewrite this so it sounds friendlier: we regret to inform you that the workshop is cancelled.",
        "how long should i boil eggs for a runny yolk",
        "Summarise the plot of a typical heist film in five bullet points.",
        "My sourdough starter smells like nail varnish, is it dead?",
        "Can you suggest a name for a book club that reads only short novels?",
        "What is the difference between a latte and a flat white?",
        "Draft a polite note to the neighbours about the bins being collected on Thursday now.",
        "Translate 'the meeting has moved to the second floor' into plain, simple English for a sign.",
        "is it ok to water succulents once a week in summer?",
        "Help me plan a rainy Sunday with two kids under six and no car.",
        "Which is healthier for breakfast, porridge or muesli? Keep it short.",
        "Write a haiku about a broken umbrella.",
        "Why does my laptop fan spin up when I open too many browser tabs?",
        "Compare renting and buying {THING} for a one-month project.",
        "Any tips to stop procrastinating on a long report?",
        "What's a good warm-up before a 5k run?",
        "Give me a shopping list for {DISH} for four people.",
        "Make a quiz of five questions on {TOPIC} with answers at the end.",
        "thanks, that worked! one more thing: how do I keep basil alive indoors?",
        "Tell me a joke about accountants that is not mean.",
        "How many cups of flour are in a kilo, roughly?",
        "What should I pack for a three-day hiking trip in autumn?",
        "Please turn these notes into a paragraph: budget approved, launch moved to Q3, hiring paused.",
        "Is it rude to leave a group chat without saying anything?",
        "Could you explain the rules of chess castling again?",
    ],
    "fr": [
        "Qu'est-ce que je peux cuisiner ce soir à part {DISH} ?",
        "{THING}, ça vaut le coup ou j'attends les soldes ?",
        "Explique-moi {TOPIC} simplement, comme à un enfant de douze ans.",
        "J'aimerais apprendre {SKILL} cet hiver, par où commencer ?",
        "Donne-moi trois arguments pour et contre la semaine de quatre jours.",
        "Reformule de façon plus chaleureuse : nous avons le regret de vous informer que l'atelier est annulé.",
        "combien de temps pour cuire un œuf mollet",
        "Mon levain sent le dissolvant, il est mort ?",
        "Propose un nom pour un club de lecture qui ne lit que des romans courts.",
        "Quelle différence entre un noisette et un cappuccino ?",
        "Rédige un mot poli pour les voisins : les poubelles passent désormais le jeudi.",
        "c'est normal d'arroser les cactus une fois par semaine en été ?",
        "Aide-moi à organiser un dimanche pluvieux avec deux enfants de moins de six ans.",
        "Écris un haïku sur un parapluie cassé.",
        "Pourquoi le ventilateur de mon ordinateur s'emballe quand j'ouvre trop d'onglets ?",
        "Fais une liste de courses pour {DISH} pour quatre personnes.",
        "Prépare un quiz de cinq questions sur {TOPIC}, réponses à la fin.",
        "merci ça marche ! et comment garder du basilic en intérieur ?",
        "Que faut-il emporter pour trois jours de randonnée en automne ?",
        "Transforme ces notes en paragraphe : budget validé, lancement repoussé au troisième trimestre.",
        "Tu peux me réexpliquer la règle du roque aux échecs ?",
        "Louer ou acheter {THING} pour un projet d'un mois, qu'est-ce qui revient moins cher ?",
    ],
    "es": [
        "¿Qué puedo cenar hoy aparte de {DISH}?",
        "¿Merece la pena comprar {THING} o espero a las rebajas?",
        "Explícame {TOPIC} como si tuviera doce años.",
        "Quiero aprender {SKILL} este invierno, ¿por dónde empiezo?",
        "Dame tres argumentos a favor y en contra de la semana laboral de cuatro días.",
        "Reescribe esto para que suene más cercano: lamentamos informarle de que el taller queda cancelado.",
        "cuánto tiempo hay que cocer un huevo pasado por agua",
        "Mi masa madre huele a quitaesmalte, ¿se ha muerto?",
        "Propón un nombre para un club de lectura de novelas cortas.",
        "¿Qué diferencia hay entre un cortado y un café con leche?",
        "Redacta una nota educada para los vecinos: la basura se recoge ahora los jueves.",
        "¿está bien regar los cactus una vez por semana en verano?",
        "Ayúdame a planear un domingo lluvioso con dos niños pequeños y sin coche.",
        "Escribe un haiku sobre un paraguas roto.",
        "¿Por qué se acelera el ventilador del portátil cuando abro muchas pestañas?",
        "Hazme la lista de la compra para {DISH} para cuatro personas.",
        "Prepara un test de cinco preguntas sobre {TOPIC} con las respuestas al final.",
        "¡gracias, funcionó! otra cosa: ¿cómo mantengo la albahaca viva dentro de casa?",
        "¿Qué llevo para una ruta de senderismo de tres días en otoño?",
        "Convierte estas notas en un párrafo: presupuesto aprobado, lanzamiento aplazado al tercer trimestre.",
        "¿Me vuelves a explicar cómo funciona el enroque en el ajedrez?",
        "¿Sale más barato alquilar o comprar {THING} para un proyecto de un mes?",
    ],
}  # fmt: skip
_CHAT_SLOT = re.compile(r"\{(DISH|THING|TOPIC|SKILL)\}")
_CHAT_TAIL = {
    "en": ["", "", " Thanks!", " Keep it brief.", " No rush.", " (asking for a friend)"],
    "fr": ["", "", " Merci !", " Fais court.", " Rien d'urgent."],
    "es": ["", "", " ¡Gracias!", " Hazlo breve.", " Sin prisa."],
}


def chat_free(rng: random.Random, template: str, lang: str) -> str:
    """A PII-free chat message from ``template`` with its fills and an optional tail."""
    text = _CHAT_SLOT.sub(lambda m: rng.choice(_CHAT_FILL[lang][m.group(1)]), template)
    return text + rng.choice(_CHAT_TAIL[lang])


# --- PII-free technical text ---------------------------------------------------------


def _hex(r: random.Random, k: int) -> str:
    return "".join(r.choice("0123456789abcdef") for _ in range(k))


def _uuid(r: random.Random) -> str:
    h = _hex(r, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{r.choice('89ab')}{h[17:20]}-{h[20:]}"


def _ver(r: random.Random) -> str:
    return f"{r.randint(0, 9)}.{r.randint(0, 40)}.{r.randint(0, 20)}"


def _ts(r: random.Random) -> str:
    return (
        f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}T{r.randint(0, 23):02d}:"
        f"{r.randint(0, 59):02d}:{r.randint(0, 59):02d}.{r.randint(0, 999):03d}Z"
    )


def _n(r: random.Random, k: int) -> str:
    return str(r.randint(10 ** (k - 1), 10**k - 1))


_SVC = [
    "ledger-sync",
    "pricing-rules",
    "thumbnailer",
    "geo-tiles",
    "inbox-router",
    "report-builder",
    "fx-rates",
]
_TBL = ["ledger_entries", "price_lists", "tile_cache", "report_jobs", "fx_quotes", "sku_aliases", "shipments"]
_ROUTE = [
    "/v4/tiles/{z}/{x}/{y}.pbf",
    "/v1/reports/export",
    "/v2/fx/latest",
    "/internal/metrics",
    "/v3/skus/batch",
]
_EXC = ["KeyError", "ValueError", "TimeoutError", "ConnectionResetError", "json.decoder.JSONDecodeError"]

TECH: list[Callable[[random.Random], str]] = [
    lambda r: f"{_ts(r)} INFO {r.choice(_SVC)} request_id={_uuid(r)} route={r.choice(_ROUTE)} status=200 duration_ms={r.randint(2, 900)}",
    lambda r: f"{_ts(r)} WARN {r.choice(_SVC)} retrying upstream call attempt={r.randint(2, 5)}/5 backoff_ms={r.randint(100, 3200)} trace_id={_hex(r, 32)}",
    lambda r: f"sha256:{_hex(r, 64)}  dist/{r.choice(_SVC)}-{_ver(r)}.tar.gz",
    lambda r: f"commit {_hex(r, 40)}\nDate:   Thu Nov {r.randint(10, 28)} {r.randint(10, 23)}:{r.randint(10, 59)}:{r.randint(10, 59)} 2026 +0000\n\n    {r.choice(['fix', 'feat', 'chore', 'perf'])}({r.choice(_SVC)}): {r.choice(['handle empty pages', 'bump pinned deps', 'cache fx quotes for 60 s', 'drop legacy route'])}",
    lambda r: f"Traceback (most recent call last):\n  File \"/srv/app/{r.choice(_SVC).replace('-', '_')}/worker.py\", line {r.randint(20, 600)}, in run\n    result = handler(payload)\n  File \"/srv/app/common/retry.py\", line {r.randint(10, 90)}, in wrapped\n    return fn(*args, **kwargs)\n{r.choice(_EXC)}: {r.choice(['missing field currency', 'upstream closed the stream', 'Expecting value: line 1 column 1 (char 0)', 'deadline exceeded'])}",
    lambda r: f"java.lang.IllegalStateException: queue drained\n\tat io.fluxline.queue.Consumer.poll(Consumer.java:{r.randint(40, 400)})\n\tat io.fluxline.queue.Worker.run(Worker.java:{r.randint(20, 200)})\n\tat java.base/java.lang.Thread.run(Thread.java:{r.randint(800, 1600)})",
    lambda r: f"SELECT sku, sum(qty) AS units FROM {r.choice(_TBL)} WHERE created_at >= now() - interval '{r.randint(2, 30)} days' AND status = '{r.choice(['open', 'settled', 'void'])}' GROUP BY sku ORDER BY units DESC LIMIT {r.randint(5, 100)};",
    lambda r: f"UPDATE {r.choice(_TBL)} SET retries = retries + 1, updated_at = now() WHERE id = {_n(r, 7)} RETURNING id, retries;",
    lambda r: f"server:\n  port: {r.randint(3000, 9999)}\n  read_timeout: {r.randint(5, 60)}s\ncache:\n  ttl_seconds: {r.randint(30, 3600)}\n  max_entries: {r.randint(1000, 500000)}\nfeatures:\n  new_pricing: {r.choice(['true', 'false'])}",
    lambda r: f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {r.choice(_SVC)}\n  labels:\n    app.kubernetes.io/version: \"{_ver(r)}\"\nspec:\n  replicas: {r.randint(1, 12)}\n  template:\n    spec:\n      containers:\n        - name: app\n          image: registry.internal/{r.choice(_SVC)}:{_ver(r)}\n          resources:\n            limits: {{cpu: \"{r.randint(1, 4)}\", memory: {r.choice(['256Mi', '512Mi', '1Gi', '2Gi'])}}}",
    lambda r: json.dumps({"service": r.choice(_SVC), "window": "5m", "p50_ms": round(r.uniform(1, 40), 1), "p95_ms": round(r.uniform(40, 400), 1), "errors": r.randint(0, 40), "rps": round(r.uniform(10, 3000), 1)}),
    lambda r: "sku,warehouse,qty,unit_cost\n" + "\n".join(f"SKU-{_n(r, 6)},WH{r.randint(1, 9)},{r.randint(0, 900)},{r.randint(1, 900)}.{r.randint(0, 99):02d}" for _ in range(r.randint(2, 5))),
    lambda r: f"GET {r.choice(_ROUTE)}?page={r.randint(1, 40)}&per_page={r.choice([25, 50, 100])} HTTP/1.1\nHost: api.fluxline.example\nAccept: application/json\nX-Request-Id: {_uuid(r)}\nUser-Agent: fluxline-cli/{_ver(r)}\n\nHTTP/1.1 {r.choice(['200 OK', '304 Not Modified', '429 Too Many Requests'])}\nContent-Type: application/json\nCache-Control: max-age={r.randint(0, 600)}",
    lambda r: f"Order ORD-{r.randint(2024, 2026)}-{_n(r, 6)} shipped in {r.randint(1, 4)} parcels, carrier ref {r.choice(['DPD', 'GLS', 'UPS'])}{_n(r, 10)}, {r.randint(1, 40)} items.",
    lambda r: f"Invoice INV/{r.randint(2024, 2026)}/{_n(r, 5)} is overdue by {r.randint(1, 90)} days; amount {r.randint(10, 9000)}.{r.randint(0, 99):02d} EUR, dunning level {r.randint(1, 3)}.",
    lambda r: f"[{r.randint(1, 99):3d}%] Building CXX object src/CMakeFiles/core.dir/{r.choice(['parser', 'lexer', 'codegen', 'arena'])}.cpp.o\n[{r.randint(1, 99):3d}%] Linking CXX static library libcore.a",
    lambda r: f"http_requests_total{{service=\"{r.choice(_SVC)}\",method=\"{r.choice(['GET', 'POST'])}\",code=\"{r.choice(['200', '404', '503'])}\"}} {r.randint(100, 9999999)}\nprocess_resident_memory_bytes {r.randint(10**7, 10**9)}",
    lambda r: f"Step {r.randint(1, 9)}/12 : RUN pip install --no-cache-dir -r requirements.txt\n ---> Running in {_hex(r, 12)}\nSuccessfully built {_hex(r, 12)}\nSuccessfully tagged {r.choice(_SVC)}:{_ver(r)}",
    lambda r: f"added {r.randint(10, 900)} packages, and audited {r.randint(900, 2000)} packages in {r.randint(2, 60)}s\n\n{r.randint(50, 300)} packages are looking for funding\n  run `npm fund` for details\n\nfound {r.randint(0, 9)} vulnerabilities",
    lambda r: f"# crontab\n{r.randint(0, 59)} {r.randint(0, 23)} * * {r.randint(0, 6)} /opt/jobs/{r.choice(_SVC)}/nightly.sh >> /var/log/{r.choice(_SVC)}.log 2>&1",
    lambda r: f"panic: runtime error: index out of range [{r.randint(3, 64)}] with length {r.randint(0, 3)}\n\ngoroutine {r.randint(1, 400)} [running]:\nmain.(*Batcher).flush(0xc000{_hex(r, 6)})\n\t/build/cmd/batcher/main.go:{r.randint(30, 300)} +0x{_hex(r, 3)}",
    lambda r: f"error[E0308]: mismatched types\n --> src/{r.choice(['codec', 'frame', 'buffer'])}.rs:{r.randint(10, 400)}:{r.randint(5, 40)}\n  |\n  |     let n: u32 = header.len();\n  |                  ^^^^^^^^^^^^ expected `u32`, found `usize`",
    lambda r: f"Terraform will perform the following actions:\n\n  # aws_s3_bucket.{r.choice(_TBL)} will be created\n  + resource \"aws_s3_bucket\" \"{r.choice(_TBL)}\" {{\n      + bucket = \"{r.choice(_SVC)}-artifacts-{_hex(r, 6)}\"\n    }}\n\nPlan: {r.randint(1, 9)} to add, {r.randint(0, 4)} to change, 0 to destroy.",
    lambda r: f"server {{\n    listen {r.choice([443, 8443])} ssl http2;\n    server_name {r.choice(_SVC)}.fluxline.example;\n    location /static/ {{ expires {r.randint(1, 30)}d; }}\n    location / {{ proxy_pass http://upstream_{r.choice(_TBL)}; }}\n}}",
    lambda r: f"Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.{_hex(r, 40)}.{_hex(r, 43)}",
    lambda r: f"## {_ver(r)} ({r.randint(2024, 2026)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d})\n\n- Fixed a crash when the export queue was empty\n- Raised the default page size to {r.choice([50, 100, 200])}\n- Deprecated `--legacy-format`",
    lambda r: f"| benchmark | before (ms) | after (ms) |\n|---|---|---|\n| parse_small | {r.uniform(0.1, 2):.3f} | {r.uniform(0.1, 2):.3f} |\n| parse_large | {r.uniform(10, 90):.2f} | {r.uniform(10, 90):.2f} |",
    lambda r: f"Dec {r.randint(1, 28):02d} {r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d} worker-{r.randint(1, 40)} systemd[1]: Started {r.choice(_SVC)}.service - {r.choice(_SVC)} worker.",
    lambda r: f"latency p50={r.uniform(1, 20):.1f}ms p95={r.uniform(20, 200):.1f}ms p99={r.uniform(200, 900):.1f}ms over {r.randint(1000, 900000)} requests (window {r.randint(1, 60)}m)",
    lambda r: "NAME                              READY   STATUS    RESTARTS   AGE\n" + "\n".join(f"{r.choice(_SVC)}-{_hex(r, 10)}-{_hex(r, 5)}   1/1     {r.choice(['Running', 'Pending', 'CrashLoopBackOff'])}   {r.randint(0, 12)}          {r.randint(1, 59)}{r.choice('mhd')}" for _ in range(r.randint(2, 4))),
    lambda r: f"arn:aws:iam::{_n(r, 12)}:role/{r.choice(_SVC)}-deployer\narn:aws:s3:::{r.choice(_SVC)}-releases/{_ver(r)}/bundle.zip",
    lambda r: f"const RE = /^[A-Z]{{2}}-\\d{{{r.randint(3, 8)}}}$/;\nexport function isRef(s: string): boolean {{\n  return RE.test(s.trim());\n}}",
    lambda r: f"query {{\n  shipments(first: {r.randint(5, 100)}, status: IN_TRANSIT) {{\n    edges {{ node {{ id trackingRef etaDays }} }}\n  }}\n}}",
    lambda r: f".card-grid {{\n  display: grid;\n  grid-template-columns: repeat({r.randint(2, 6)}, minmax(0, 1fr));\n  gap: {r.randint(4, 32)}px;\n}}",
    lambda r: f"EAN {_n(r, 13)} | batch B{_n(r, 5)} | best before {r.randint(1, 28):02d}/{r.randint(1, 12):02d}/2027 | lot {r.randint(1, 99)}",
    lambda r: f"Build #{r.randint(1000, 99999)} finished in {r.randint(1, 59)}m {r.randint(0, 59)}s: {r.randint(100, 4000)} tests, {r.randint(0, 5)} failed, {r.randint(0, 40)} skipped (commit {_hex(r, 7)})",
    lambda r: f'"dependencies": {{\n  "zod": "^{_ver(r)}",\n  "undici": "~{_ver(r)}",\n  "pino": "{_ver(r)}"\n}}',
    lambda r: f"{r.choice(_SVC)}: tick={_n(r, 10)} seq={_n(r, 9)} offset={_n(r, 8)} partition={r.randint(0, 31)} lag={r.randint(0, 5000)}",
    lambda r: f"Ticket SUP-{_n(r, 5)}: the export button times out for reports over {r.randint(10, 500)} MB; workaround is to split by month. Status: {r.choice(['open', 'in progress', 'resolved'])}.",
    lambda r: f"$ curl -s https://status.fluxline.example/api/v2/summary.json | jq '.components[] | {{name, status}}'\n{{\"name\": \"{r.choice(_SVC)}\", \"status\": \"{r.choice(['operational', 'degraded_performance'])}\"}}",
    lambda r: f"base64: {''.join(r.choice('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') for _ in range(r.randint(40, 120)))}==",
    lambda r: f"ALTER TABLE {r.choice(_TBL)} ADD COLUMN {r.choice(['archived_at', 'checksum', 'region_code'])} {r.choice(['timestamptz', 'text', 'bigint'])};\nCREATE INDEX CONCURRENTLY ix_{r.choice(_TBL)}_{_hex(r, 4)} ON {r.choice(_TBL)} (created_at);",
    lambda r: f"wheel: tollway_{r.choice(['core', 'edge', 'ledger'])}-{_ver(r)}-py3-none-any.whl ({r.randint(10, 900)} kB)\nchecksum md5={_hex(r, 32)}",
    lambda r: f"Tracking {r.choice(['1Z', 'JD', 'CP'])}{_hex(r, 4).upper()}{_n(r, 10)}: {r.choice(['out for delivery', 'arrived at depot', 'customs cleared'])} ({r.randint(1, 28):02d}/{r.randint(1, 12):02d} {r.randint(0, 23):02d}:{r.randint(0, 59):02d})",
    lambda r: f"def backoff(attempt: int, base: float = {r.choice(['0.2', '0.5', '1.0'])}) -> float:\n    \"\"\"Seconds to wait before retry number `attempt`.\"\"\"\n    return min({r.randint(10, 120)}.0, base * 2 ** attempt)",
    lambda r: f"See https://docs.fluxline.example/guides/{r.choice(['webhooks', 'pagination', 'rate-limits'])}#{r.choice(['retries', 'cursors', 'headers'])} and https://github.com/fluxline/{r.choice(_SVC)}/issues/{r.randint(10, 4000)} for the background.",
    lambda r: f"# .env.example\nLOG_LEVEL={r.choice(['info', 'debug', 'warn'])}\nWORKERS={r.randint(1, 16)}\nQUEUE_URL=amqp://queue.internal:5672/%2F\nFEATURE_FLAGS=fast-export,{r.choice(['new-checkout', 'lazy-images', 'batch-upload'])}",
    lambda r: f"FROM python:3.{r.randint(10, 13)}-slim\nWORKDIR /app\nCOPY pyproject.toml uv.lock ./\nRUN pip install uv && uv sync --frozen --no-dev\nEXPOSE {r.choice([8000, 8080, 9000])}\nCMD [\"uv\", \"run\", \"{r.choice(_SVC)}\"]",
]  # fmt: skip


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
    """The v7 frozen files' records, keyed by file name."""
    out: dict[str, list[dict]] = {}
    sizes = {"en": (400, 140), "fr": (240, 110), "es": (240, 110)}
    for offset, (lang, (n_pii, n_free)) in enumerate(sizes.items()):
        rng = random.Random(rng_seed + offset)
        templates, free = TEMPLATES[lang], CHAT_FREE[lang]
        records = []
        for i in range(n_pii):
            text, entities = fill(templates[i % len(templates)], rng, lang)
            records.append({"id": f"v7{lang}{i + 1:04d}", "lang": lang, "text": text, "entities": entities})
        for i in range(n_free):
            text = chat_free(rng, free[i % len(free)], lang)
            records.append({"id": f"v7{lang}f{i + 1:04d}", "lang": lang, "text": text, "entities": []})
        out[f"heldout-{lang}.jsonl"] = records
    rng = random.Random(rng_seed + 100)
    out["pii_free.jsonl"] = [
        {"id": f"v7t{i + 1:04d}", "lang": "en", "text": _no_card(TECH[i % len(TECH)](rng)), "entities": []}
        for i in range(480)
    ]
    return out


def render(records: list[dict]) -> bytes:
    """The JSONL bytes of ``records`` (one object a line, UTF-8, no ASCII escaping)."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def main() -> None:
    """Write the v7 files and their ``SHA256SUMS`` into ``--out`` (default ``eval/frozen_v7``)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("frozen_v7"))
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
