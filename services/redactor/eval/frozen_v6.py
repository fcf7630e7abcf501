"""The FROZEN held-out evaluation set **v6** (issue 11, sixth held-out round).

Written blind, by a hand that neither read the detector's rules nor ran the
detector (or ``evaluate.py``) on any text, nor read any earlier set's texts or
misses, and committed before anyone measured it. v1-v5 are *spent*: their
results were known while later rounds were tuned, so they count as tuning
material now. v6 is the current held-out set: it is measured once, by the lead.

Self-contained on purpose: imports nothing from the other generators, so growing
the tuning set can never change these files. It imports ``phonenumbers`` (pinned
by ``uv.lock``) only to draw phone numbers until one is valid, so that every
planted phone is valid for libphonenumber. Its templates and value pools (names,
e-mail domains, NANP area codes, cards, IBAN values, streets and towns, PII-free
chat templates and fills, technical kinds) are new; ``tests/unit/test_eval_frozen.py``
checks that the pools and every planted value are disjoint from every earlier
generator and labelled value, that every gold span is sound (offsets, no overlap,
phones valid for ``phonenumbers``, cards Luhn-valid in 12-19 digits, IBAN check
digits and registry lengths), that the PII-free texts hold no IP address, MAC
address, e-mail address, v6 name or Luhn-valid run of card length, that
``eval/frozen_v6/SHA256SUMS`` pins the committed files, and that this script
reproduces them byte for byte.

Rules for whoever tunes the detector: ``evaluate.py --frozen-v6`` reports on
these files; ``evaluate.py`` refuses ``--misses`` on them. Nobody reads the
results before the lead's single measurement.

Files (JSONL, ``{"id", "lang", "text", "entities": [{"type", "start", "end",
"value"}]}``, code point offsets) in ``eval/frozen_v6/``:

- ``heldout-en.jsonl`` (400 messages with PII + 140 PII-free chat messages),
  ``heldout-fr.jsonl`` and ``heldout-es.jsonl`` (240 + 110 each).
- ``pii_free.jsonl`` (480): technical text (see ``TECH``); any detection is a
  false positive.

Gold conventions: a title (``Dr``, ``Mme``, ``Sra.``) is not part of a PERSON
span, nor is a possessive ``'s``; ``Last, First``, ``LAST First``, initials
(``T. Mensah-Osei``) and a middle initial are one span; a multi-line address is
one STREET_ADDRESS span including its line breaks (town and postcode included,
country excluded); card and IBAN spans include their separators.

IBAN countries: each language mixes the countries a gateway in that market
really sees (already used by earlier sets: the *values* are new) with registry
countries no earlier set used (``_IBAN_NEW``).

Usage: ``python services/redactor/eval/frozen_v6.py [--out DIR]`` (seed 60613).
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

SEED = 60613

# --- names -------------------------------------------------------------------

NAMES = {
    "en": {
        "first": (
            "Obiageli Farai Abena Bongani Ayodeji Funmilayo Chidiebere Nnamdi Kelechi Tafadzwa Rudo "
            "Tinashe Nyasha Kofi Nomvula Themba Folasade Babajide Oyinkansola Devika Ishaan Kavitha "
            "Raghunath Meenakshi Bhavesh Chandni Keerthana Prasanth Takumi Ryota Sayaka Shiori Hiroki "
            "Xinyi Haoran Xiaomei Trang Khanh Phuong Abdelrahman Yousra Marwan Nadira Bashir Bogdana "
            "Radoslav Svyatoslav Dobromir Yaroslava Xiomara Yulissa Edgardo Marisela Oisín Caoimhe "
            "Tadhg Fionnuala Emrys Gwilym Eluned Torvald Ingeborg Sigrun Malakai Leilani Kainoa Tamati "
            "Yaw-Kofi Oyin-Tade"
        ).split(),
        "last": (
            "Obiora Ezeh Onyekachi Anyanwu Mutasa Chikwanha Makoni Mlambo Amoako Gyamfi Appiah-Kubi "
            "Boakye Venkatesan Iyengar Bhattacharjee Chaudhuri Kulkarni Ramakrishnan Gangopadhyay "
            "Nakashima Hirabayashi Matsumura Fujiwara Hwang Seong Vuong Duong Bergström Haugland "
            "Sjöberg Abdelaziz Haddadin Nasrallah Tamimi Yakovleva Zielińska Przybylski Hrabovsky "
            "Tkachenko Echeverry Quiñónez Mendieta O'Driscoll MacLennan Thistlethwaite Ashdown-Tolley "
            "Kealoha Tupou Ngata"
        ).split()
        + ["de Villiers", "Abu Bakr", "bin Rashid", "Mac Giolla Phádraig", "van der Heever"],
    },
    "fr": {
        "first": (
            "Honorine Goulven Mathurin Oumou Seydou Moussa Yacine Kenza Amaury Edmée Ngoc Véronique "
            "Abdoulaye Ramatoulaye Fodé Nafissatou Baptistin Aurèle Eulalie Gwenaëlle Ronan Tugdual "
            "Aïcha Nassim Ilyès Romane Hortense Aubin Clovis Domitille Sidonie Violaine Thibaut "
            "Ernestine Hippolyte Faustine Aurèle-Hippolyte Sidonie-Faustine"
        ).split(),
        "last": (
            "Pennec Bescond Lagadec Coulibaly Benhaddou Lefebvre-Dujardin Delacroix-Marin Marchetti "
            "Pétillon Rousselot Chevrier Laffargue Bonnefoy Diakité Konaté Ouattara Zeroual Perraudin "
            "Diouf Sylla Kouyaté Diarra Benchekroun Lahlou Boucher-Lamy Fontanel Rivoire Mercadier "
            "Jourdain Cazenave Harismendy Vidalenc Lacoste-Barrère"
        ).split()
        + [
            "Le Guen",
            "Le Gall",
            "Le Berre",
            "du Plessis-Mornay",
            "de Saint-Exupéry",
            "de Kerguelen",
            "d'Estienne",
        ],
    },
    "es": {
        "first": (
            "Aitana Fulgencio Leocadia Eulalia Apolonia Xochitl Citlali Tonatiuh Quetzalli Crisanto "
            "Florencio Josune Kepa Eider Yadira Heriberto Rigoberto Yanina Agustina Lautaro Ione Ekaitz "
            "Amaiur Garbiñe Irati Oihana Jokin Asier Gorka Miren Uxue Encarnación Gumersindo "
            "Saturnino Hermenegildo Leopoldo Anacleto Yoselin Dayana Yeison Xiadani Yareli Cuauhtémoc "
            "Lisandro"
        ).split(),
        "last": (
            "Agirre Mendizábal Villca Sotomayor Valdivieso Benavides Iturbide Arriaga Salcedo "
            "Bustamante Cañizares Saavedra Montalbán Zamudio Carrasquilla Peñalosa Altamirano "
            "Xicoténcatl Colque Irigoyen Arrizabalaga Olabarrieta Elorza Zabaleta Aizpurua Lizarraga "
            "Gorostiza Yupanqui Huanca Chambi Cutipa Barrientos Avendaño Valenzuela Caamaño "
            "Pereira-Lago Rivadeneira Santisteban Landaeta Zepeda Arancibia"
        ).split()
        + ["de los Ríos", "de Urquijo", "del Valle-Inclán"],
    },
}
PARTICLES = ("van", "der", "de", "bin", "abu", "mac", "du", "d'", "le", "la", "los", "del")


def person(rng: random.Random, lang: str) -> tuple[str, str]:
    """``(first, last)``; Spanish names get two surnames 45 % of the time."""
    pool = NAMES[lang]
    first, last = rng.choice(pool["first"]), rng.choice(pool["last"])
    if lang == "es" and rng.random() < 0.45:
        last = f"{last} {rng.choice([n for n in pool['last'] if n != last])}"
    return first, last


def _ascii(s: str) -> str:
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode()


def _initial(first: str) -> str:
    """``T.``; a hyphenated first name gives ``J.-B.``."""
    return "-".join(f"{part[0]}." for part in first.split("-"))


def _cap_letter(surname: str) -> str:
    return next((c for c in surname if c.isupper()), surname[0].upper())


def name_form(rng: random.Random, p: tuple[str, str], form: str) -> str:
    """The way a person is written: ``full``, ``first``, ``last``, ``lf`` (``Last, First``),
    ``LF`` (``LAST First``), ``low`` (lower case), ``up`` (upper case), ``ini``
    (``T. Last``), ``mid`` (``First Q. Last``), ``fl`` (``First L.``), ``hand`` (a
    lower-case handle), ``any`` (one of them at random)."""
    first, last = p
    if form == "any":
        form = rng.choice(["full", "full", "lf", "LF", "low", "up", "ini", "mid", "fl"])
    if form == "full":
        return f"{first} {last}"
    if form == "first":
        return first
    if form == "last":
        return last
    if form == "lf":
        return f"{last}, {first}"
    if form == "LF":
        return f"{last.upper()} {first}"
    if form == "low":
        return f"{first} {last}".lower()
    if form == "up":
        return f"{first} {last}".upper()
    if form == "ini":
        return f"{_initial(first)} {last}"
    if form == "mid":
        return f"{first} {rng.choice('ABCDEFGHJKLMNPRSTVW')}. {last}"
    if form == "fl":
        return f"{first} {_cap_letter(last)}."
    if form == "hand":
        return re.sub(r"[^a-z]", "", _ascii(first).lower())
    raise ValueError(form)


DOMAINS = {
    "en": [
        "kestrelmail.co.uk", "harbourline.ie", "wattlepost.com.au", "kiwimesh.co.nz",
        "baobabnet.co.za", "lagoslink.com.ng", "monsoonmail.in", "tamarackhealth.ca",
        "prairiecoop.org", "quillfield.law", "bluegumlabs.io", "ridgeway-dental.co.uk",
    ],
    "fr": [
        "courriel-breizh.fr", "lamouette.fr", "hexagone-mutuelle.fr", "dakar-services.sn",
        "lausanne-ortho.ch", "mailbox.be", "gazette-liege.be", "atlas-conseil.ma",
        "cabinet-vauban.fr", "etude-notariale-morlaix.fr",
    ],
    "es": [
        "correo-norte.es", "mensajeria.com.mx", "pampa.net.ar", "cordillera.cl",
        "andesmail.pe", "clinica-triana.es", "gestoria-ebro.es", "bogota-digital.co",
        "ikastola-lea.eus", "cooperativa-tajo.es",
    ],
}  # fmt: skip


def email(rng: random.Random, p: tuple[str, str], lang: str) -> str:
    """An address made from ``p``'s name in one of the shapes people use."""
    first = re.sub(r"[^a-z]", "", _ascii(p[0]).lower())
    last = re.sub(r"[^a-z]", "", _ascii(p[1].split(" ")[-1] if lang == "es" else p[1]).lower())
    shape = rng.randrange(7)
    local = [
        f"{first}.{last}",
        f"{first[0]}{last}",
        f"{last}.{first[0]}",
        f"{first}_{last}{rng.randint(2, 99)}",
        f"{first}{rng.randint(1970, 2006)}",
        f"{first}.{last}+{rng.choice(['factures', 'shop', 'news', 'tickets', 'rh'])}",
        f"{last}-{first}",
    ][shape]
    return f"{local}@{rng.choice(DOMAINS[lang])}"


# --- phones ------------------------------------------------------------------


def _d(rng: random.Random, k: int) -> str:
    return "".join(rng.choice("0123456789") for _ in range(k))


def _exch(rng: random.Random) -> str:
    while True:
        e = f"{rng.randint(2, 9)}{_d(rng, 2)}"
        if e[1:] != "11" and e != "555":
            return e


_US_AREAS = ["218", "320", "507", "563", "319", "641", "712", "785", "620", "918"]
_CA_AREAS = ["506", "807", "705", "519", "780", "403", "250"]
_QC_AREAS = ["579", "367", "263"]

# region -> layouts: each draws (text) from rng; the text is checked with phonenumbers
Layout = Callable[[random.Random], str]


def _nanp(areas: list[str]) -> list[Layout]:
    return [
        lambda r: f"({r.choice(areas)}) {_exch(r)}-{_d(r, 4)}",
        lambda r: f"{r.choice(areas)}.{_exch(r)}.{_d(r, 4)}",
        lambda r: f"+1 {r.choice(areas)} {_exch(r)} {_d(r, 4)}",
        lambda r: f"1-{r.choice(areas)}-{_exch(r)}-{_d(r, 4)}",
        lambda r: f"+1-{r.choice(areas)}-{_exch(r)}-{_d(r, 4)}",
        lambda r: f"{r.choice(areas)} {_exch(r)} {_d(r, 4)}",
    ]


LAYOUTS: dict[str, list[Layout]] = {
    "US": _nanp(_US_AREAS),
    "CA": _nanp(_CA_AREAS),
    "GB": [
        lambda r: f"07{r.choice('4579')}{_d(r, 2)} {_d(r, 6)}",
        lambda r: f"+44 7{r.choice('4579')}{_d(r, 2)} {_d(r, 3)} {_d(r, 3)}",
        lambda r: f"+44 (0)113 {r.choice('2345')}{_d(r, 2)} {_d(r, 4)}",
        lambda r: f"0117 9{_d(r, 2)} {_d(r, 4)}",
        lambda r: f"029 20{_d(r, 2)} {_d(r, 4)}",
        lambda r: f"0044 7{r.choice('4579')}{_d(r, 2)}-{_d(r, 6)}",
    ],
    "IE": [
        lambda r: f"08{r.choice('35679')} {_d(r, 3)} {_d(r, 4)}",
        lambda r: f"+353 8{r.choice('35679')} {_d(r, 3)} {_d(r, 4)}",
        lambda r: f"(01) {r.choice('2345689')}{_d(r, 2)} {_d(r, 4)}",
        lambda r: f"+353 91 {r.choice('5679')}{_d(r, 5)}",
    ],
    "AU": [
        lambda r: f"04{r.choice('0123')}{_d(r, 1)} {_d(r, 3)} {_d(r, 3)}",
        lambda r: f"+61 4{r.choice('0123')}{_d(r, 1)} {_d(r, 3)} {_d(r, 3)}",
        lambda r: f"(07) 3{_d(r, 3)} {_d(r, 4)}",
        lambda r: f"+61 8 9{_d(r, 3)} {_d(r, 4)}",
    ],
    "NZ": [
        lambda r: f"021 {_d(r, 3)} {_d(r, 4)}",
        lambda r: f"+64 27 {_d(r, 3)} {_d(r, 4)}",
        lambda r: f"(04) {r.choice('34589')}{_d(r, 2)} {_d(r, 4)}",
    ],
    "ZA": [
        lambda r: f"08{r.choice('234')} {_d(r, 3)} {_d(r, 4)}",
        lambda r: f"+27 7{r.choice('234689')} {_d(r, 3)} {_d(r, 4)}",
        lambda r: f"021 {r.choice('4')}{_d(r, 2)} {_d(r, 4)}",
    ],
    "NG": [
        lambda r: f"0803 {_d(r, 3)} {_d(r, 4)}",
        lambda r: f"+234 80{r.choice('3568')} {_d(r, 3)} {_d(r, 4)}",
    ],
    "KE": [lambda r: f"+254 7{r.choice('0129')}{_d(r, 1)} {_d(r, 3)} {_d(r, 3)}", lambda r: f"07{r.choice('0129')}{_d(r, 1)} {_d(r, 6)}"],
    "IN": [lambda r: f"+91 9{_d(r, 4)} {_d(r, 5)}", lambda r: f"+91-98{_d(r, 3)}-{_d(r, 5)}"],
    "SG": [lambda r: f"+65 {r.choice('89')}{_d(r, 3)} {_d(r, 4)}"],
    "GH": [lambda r: f"+233 24 {_d(r, 3)} {_d(r, 4)}", lambda r: f"024 {_d(r, 3)} {_d(r, 4)}"],
    "FR": [
        lambda r: f"0{r.choice('67')} {_d(r, 2)} {_d(r, 2)} {_d(r, 2)} {_d(r, 2)}",
        lambda r: f"0{r.choice('67')}.{_d(r, 2)}.{_d(r, 2)}.{_d(r, 2)}.{_d(r, 2)}",
        lambda r: f"+33 {r.choice('67')} {_d(r, 2)} {_d(r, 2)} {_d(r, 2)} {_d(r, 2)}",
        lambda r: f"+33 (0){r.choice('12345')} {_d(r, 2)} {_d(r, 2)} {_d(r, 2)} {_d(r, 2)}",
        lambda r: f"0{r.choice('12345')}-{_d(r, 2)}-{_d(r, 2)}-{_d(r, 2)}-{_d(r, 2)}",
        lambda r: f"0033 {r.choice('67')} {_d(r, 2)} {_d(r, 2)} {_d(r, 2)} {_d(r, 2)}",
        lambda r: f"0{r.choice('67')}{_d(r, 8)}",
    ],
    "BE": [
        lambda r: f"04{r.choice('789')}{_d(r, 1)} {_d(r, 2)} {_d(r, 2)} {_d(r, 2)}",
        lambda r: f"+32 4{r.choice('789')}{_d(r, 1)} {_d(r, 2)} {_d(r, 2)} {_d(r, 2)}",
        lambda r: f"02 {r.choice('2345')}{_d(r, 2)} {_d(r, 2)} {_d(r, 2)}",
    ],
    "CH": [
        lambda r: f"07{r.choice('689')} {_d(r, 3)} {_d(r, 2)} {_d(r, 2)}",
        lambda r: f"+41 7{r.choice('689')} {_d(r, 3)} {_d(r, 2)} {_d(r, 2)}",
        lambda r: f"022 {r.choice('37')}{_d(r, 2)} {_d(r, 2)} {_d(r, 2)}",
    ],
    "LU": [lambda r: f"+352 6{r.choice('29')}1 {_d(r, 3)} {_d(r, 3)}"],
    "MA": [lambda r: f"+212 6{_d(r, 2)} {_d(r, 2)} {_d(r, 2)} {_d(r, 2)}", lambda r: f"06 {_d(r, 2)} {_d(r, 2)} {_d(r, 2)} {_d(r, 2)}"],
    "SN": [lambda r: f"+221 7{r.choice('78')} {_d(r, 3)} {_d(r, 2)} {_d(r, 2)}"],
    "TN": [lambda r: f"+216 {r.choice('29')}{_d(r, 1)} {_d(r, 3)} {_d(r, 3)}"],
    "RE": [lambda r: f"+262 692 {_d(r, 2)} {_d(r, 2)} {_d(r, 2)}", lambda r: f"0692 {_d(r, 2)} {_d(r, 2)} {_d(r, 2)}"],
    "CAQ": _nanp(_QC_AREAS),
    "ES": [
        lambda r: f"6{_d(r, 2)} {_d(r, 3)} {_d(r, 3)}",
        lambda r: f"+34 6{_d(r, 2)} {_d(r, 2)} {_d(r, 2)} {_d(r, 2)}",
        lambda r: f"(+34) 6{_d(r, 2)}-{_d(r, 3)}-{_d(r, 3)}",
        lambda r: f"9{r.choice('1345')}{_d(r, 1)} {_d(r, 2)} {_d(r, 2)} {_d(r, 2)}",
        lambda r: f"0034 7{r.choice('1234')}{_d(r, 1)} {_d(r, 3)} {_d(r, 3)}",
        lambda r: f"6{_d(r, 8)}",
        lambda r: f"6{_d(r, 2)}.{_d(r, 2)}.{_d(r, 2)}.{_d(r, 2)}",
    ],
    "MX": [lambda r: f"+52 55 {_d(r, 4)} {_d(r, 4)}", lambda r: f"33 {_d(r, 4)} {_d(r, 4)}", lambda r: f"+52 (81) {_d(r, 4)}-{_d(r, 4)}"],
    "AR": [lambda r: f"+54 9 11 {r.choice('2345')}{_d(r, 3)}-{_d(r, 4)}", lambda r: f"(011) 4{_d(r, 3)}-{_d(r, 4)}"],
    "CO": [lambda r: f"+57 3{r.choice('012')}{_d(r, 1)} {_d(r, 3)} {_d(r, 4)}", lambda r: f"31{_d(r, 1)} {_d(r, 3)} {_d(r, 4)}"],
    "CL": [lambda r: f"+56 9 {_d(r, 4)} {_d(r, 4)}"],
    "PE": [lambda r: f"+51 9{_d(r, 2)} {_d(r, 3)} {_d(r, 3)}", lambda r: f"9{_d(r, 2)} {_d(r, 3)} {_d(r, 3)}"],
    "UY": [lambda r: f"+598 9{r.choice('123456789')} {_d(r, 3)} {_d(r, 3)}"],
    "EC": [lambda r: f"+593 9{r.choice('6789')} {_d(r, 3)} {_d(r, 4)}"],
    "CR": [lambda r: f"+506 8{_d(r, 3)} {_d(r, 4)}"],
    "PA": [lambda r: f"+507 6{_d(r, 3)}-{_d(r, 4)}"],
    "BO": [lambda r: f"+591 7{_d(r, 7)}"],
    "GT": [lambda r: f"+502 5{_d(r, 3)} {_d(r, 4)}"],
}  # fmt: skip

PHONE_REGIONS = {
    "en": ["US", "CA", "GB", "IE", "AU", "NZ", "ZA", "NG", "KE", "IN", "SG", "GH"],
    "fr": ["FR", "BE", "CH", "LU", "MA", "SN", "TN", "RE", "CA"],
    "es": ["ES", "MX", "AR", "CO", "CL", "PE", "UY", "EC", "CR", "PA", "BO", "GT"],
}
_LAYOUT_KEYS = {
    "en": ["US", "US", "CA", "GB", "GB", "IE", "AU", "NZ", "ZA", "NG", "KE", "IN", "SG", "GH"],
    "fr": ["FR", "FR", "FR", "FR", "BE", "BE", "CH", "LU", "MA", "SN", "TN", "RE", "CAQ"],
    "es": ["ES", "ES", "ES", "ES", "MX", "MX", "AR", "CO", "CL", "PE", "UY", "EC", "CR", "PA", "BO", "GT"],
}


def phone(rng: random.Random, lang: str) -> str:
    """A phone of a region of ``lang``, valid for ``phonenumbers`` (drawn until valid)."""
    key = rng.choice(_LAYOUT_KEYS[lang])
    region = "CA" if key == "CAQ" else key
    layout = rng.choice(LAYOUTS[key])
    for _ in range(200):
        text = layout(rng)
        if phonenumbers.is_valid_number(phonenumbers.parse(text, region)):
            return text
    raise AssertionError(f"no valid number for {key}")


# --- cards -------------------------------------------------------------------


def _luhn(body: str) -> str:
    """``body`` plus its Luhn check digit."""
    total = 0
    for i, ch in enumerate(reversed(body)):
        n = int(ch) * (1 if i % 2 else 2)
        total += n - 9 if n > 9 else n
    return body + str((10 - total % 10) % 10)


# (issuer, prefixes, lengths, groupings per length)
_ISSUERS: list[tuple[str, list[str], list[int]]] = [
    ("visa", ["4"], [16, 16, 16, 13, 19]),
    ("mastercard", ["51", "52", "53", "54", "55"], [16]),
    ("mastercard2", [str(p) for p in range(2221, 2721, 37)], [16]),
    ("amex", ["34", "37"], [15]),
    ("discover", ["6011", "644", "647", "65"], [16, 19]),
    ("jcb", ["3528", "3541", "3566", "3589"], [16, 19]),
    ("diners", ["36", "300", "305", "38"], [14]),
    ("unionpay", ["62", "6212", "6288"], [16, 17, 18, 19]),
    ("maestro", ["5018", "5020", "5038", "6304", "6759", "6761", "6763"], [12, 13, 15, 16, 19]),
    ("mir", ["2200", "2201", "2202", "2204"], [16]),
    ("rupay", ["6521", "6522", "508"], [16]),
    ("troy", ["9792"], [16]),
    ("elo", ["401178", "504175", "636368"], [16]),
    ("verve", ["506099", "650002"], [16, 19]),
    ("hipercard", ["606282"], [16]),
]


def _group(digits: str, sizes: list[int], sep: str) -> str:
    out, i = [], 0
    for s in sizes:
        out.append(digits[i : i + s])
        i += s
    if i < len(digits):
        out.append(digits[i:])
    return sep.join(p for p in out if p)


def card(rng: random.Random) -> str:
    """A Luhn-valid number of a real issuer range, 12-19 digits, written as people do."""
    issuer, prefixes, lengths = rng.choice(_ISSUERS)
    prefix, length = rng.choice(prefixes), rng.choice(lengths)
    digits = _luhn(prefix + _d(rng, length - len(prefix) - 1))
    sep = rng.choice([" ", " ", "-", "", "  ", ".", " - "])
    if issuer == "amex":
        sizes = [4, 6, 5]
    elif issuer == "diners" and rng.random() < 0.6:
        sizes = [4, 6, 4]
    elif length == 19 and rng.random() < 0.5:
        sizes = [6, 13]
    else:
        sizes = [4] * 5
    if sep == "":
        return digits
    return _group(digits, sizes, sep)


# --- IBANs -------------------------------------------------------------------

# BBAN structure: n digits, a upper-case letters, c alphanumerics (SWIFT IBAN registry)
_BBAN = {
    "GB": ["4a", "14n"], "IE": ["4a", "14n"], "FO": ["14n"], "GL": ["14n"], "FK": ["2a", "12n"],
    "LC": ["4a", "24c"], "IQ": ["4a", "15n"], "NL": ["4a", "10n"], "DE": ["18n"], "FR": ["10n", "11c", "2n"],
    "BE": ["12n"], "LU": ["3n", "13c"], "MC": ["10n", "11c", "2n"], "CH": ["5n", "12c"], "MD": ["2c", "18c"],
    "LY": ["21n"], "SD": ["14n"], "ES": ["20n"], "PT": ["21n"], "AD": ["8n", "12c"], "IT": ["1a", "10n", "12c"],
    "PS": ["4a", "21c"], "SO": ["19n"], "ST": ["21n"], "BY": ["4c", "4n", "16c"],
}  # fmt: skip
_IBAN_COUNTRIES = {
    "en": ["GB", "GB", "IE", "NL", "DE", "FO", "GL", "FK", "LC", "IQ"],
    "fr": ["FR", "FR", "FR", "BE", "LU", "MC", "CH", "MD", "LY", "SD"],
    "es": ["ES", "ES", "ES", "PT", "AD", "IT", "PS", "SO", "ST", "BY"],
}
_IBAN_NEW = frozenset({"FO", "GL", "FK", "LC", "IQ", "MD", "LY", "SD", "PS", "SO", "ST", "BY"})
_BANKS = {
    "GB": ["NWBK", "BARC", "MONZ", "SRLG"],
    "IE": ["AIBK", "BOFI"],
    "NL": ["RABO", "INGB", "KNAB", "BUNQ"],
}


def _iban_check(country: str, bban: str) -> str:
    num = int("".join(str(int(c, 36)) for c in bban + country + "00"))
    return f"{98 - num % 97:02d}"


def iban(rng: random.Random, lang: str) -> str:
    """A checksum-valid IBAN of a country of ``lang``, electronic or in groups of four."""
    country = rng.choice(_IBAN_COUNTRIES[lang])
    parts = []
    for spec in _BBAN[country]:
        k, kind = int(spec[:-1]), spec[-1]
        if kind == "a" and country in _BANKS and not parts:
            parts.append(rng.choice(_BANKS[country]))
            continue
        alphabet = {
            "n": "0123456789",
            "a": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
            "c": "0123456789ABCDEFGHJKLMNPRSTUVWXYZ",
        }[kind]
        if kind == "c":
            parts.append("".join(rng.choice("0123456789" * 3 + alphabet) for _ in range(k)))
        else:
            parts.append("".join(rng.choice(alphabet) for _ in range(k)))
    bban = "".join(parts)
    code = country + _iban_check(country, bban) + bban
    style = rng.randrange(4)
    if style == 0:
        return code
    groups = " ".join(code[i : i + 4] for i in range(0, len(code), 4))
    return groups if style < 3 else groups.replace(" ", "-")


# --- addresses ---------------------------------------------------------------

STREETS = {
    "en": [
        "Larkspur Ridge Road", "Quarry Bank Lane", "Whitcombe Mews", "Tallowmere Crescent",
        "Bramblewick Drive", "Old Ferry Wharf Road", "Saltings Way", "Kittiwake Close",
        "Fernhollow Avenue", "Cobbler's Row", "Wattle Grove Parade", "Ironbark Street",
    ],
    "fr": [
        "rue des Chaudronniers", "rue du Pont-Levis", "avenue des Marronniers-Roses", "boulevard de la Corderie",
        "allée des Fauvettes", "impasse des Bourreliers", "quai des Cordeliers-Neufs", "chemin de la Garenne-Haute",
        "place des Halles-Basses", "rue de la Tonnellerie", "cours Saint-Louis-des-Forges",
    ],
    "es": [
        "Calle de los Cuchilleros Viejos", "Avenida de los Almendros Altos", "Plaza de la Alhóndiga",
        "Calle del Alfarero Mayor", "Paseo de las Acacias Rojas", "Calle Horno de la Merced",
        "Avenida del Faro de Poniente", "Ronda de los Tejares Bajos", "Travesía del Molino Harinero",
        "Calle Sant Bartomeu de l'Erm", "Rúa da Fonte do Pazo",
    ],
}  # fmt: skip
_EN_TOWNS = [
    ("US", "Bemidji, MN 56601"), ("US", "Ottumwa, IA 52501"), ("US", "Salina, KS 67401"),
    ("UK", "Truro\nTR1 3QP"), ("UK", "Hexham\nNE46 2JL"), ("UK", "Llandudno\nLL30 1BE"),
    ("IE", "Clonakilty, Co. Cork\nP85 WK23"), ("AU", "Toowoomba QLD 4350"), ("AU", "Ballarat VIC 3350"),
    ("CA", "Moncton NB  E1C 4P2"), ("NZ", "Whanganui 4500"), ("ZA", "Stellenbosch\n7600"),
]  # fmt: skip
_FR_TOWNS = [
    "67000 Strasbourg", "29600 Morlaix", "13008 Marseille", "21000 Dijon", "64100 Bayonne",
    "86000 Poitiers", "35400 Saint-Malo", "74000 Annecy", "59800 Lille", "97400 Saint-Denis",
]  # fmt: skip
_FR_CEDEX = ["69441 Lyon Cedex 03", "33076 Bordeaux CEDEX", "31106 Toulouse Cedex 1"]
_BE_CH = ["5000 Namur", "4020 Liège", "1009 Pully", "2000 Neuchâtel"]
_ES_TOWNS = [
    "28004 Madrid", "08012 Barcelona", "39005 Santander", "30004 Murcia", "41003 Sevilla",
    "15703 Santiago de Compostela", "48005 Bilbao", "50001 Zaragoza", "03002 Alicante", "35002 Las Palmas de Gran Canaria",
]  # fmt: skip
_LATAM = [
    ("MX", "Col. Roma Norte, 06700 Ciudad de México, CDMX"), ("MX", "Col. Americana, 44160 Guadalajara, Jal."),
    ("AR", "C1414 CABA"), ("CO", "Medellín, Antioquia"), ("CL", "Providencia, Santiago"), ("PE", "Miraflores, Lima 15074"),
]  # fmt: skip


def address(rng: random.Random, lang: str, multiline: bool = False) -> str:
    """A street address in the layout of a country of ``lang``; across lines when ``multiline``."""
    nl = "\n" if multiline else ", "
    n = rng.randint(1, 240)
    street = rng.choice(STREETS[lang])
    if lang == "en":
        country, town = rng.choice(_EN_TOWNS)
        if not multiline:
            town = town.replace("\n", " ")
        if country == "US":
            unit = rng.choice(
                [
                    "",
                    f", Apt {rng.randint(1, 40)}{rng.choice('ABCD')}",
                    f" #{rng.randint(100, 999)}",
                    ", Suite 2",
                ]
            )
            return f"{rng.randint(100, 9800)} {street}{unit}{nl}{town}"
        if country == "AU":
            return f"Unit {rng.randint(1, 30)}/{n} {street}{nl}{town}"
        if country == "UK":
            flat = rng.choice(
                ["", f"Flat {rng.randint(1, 12)}, ", f"{rng.choice(['Rose', 'Holly', 'Ivy'])} Cottage{nl}"]
            )
            return f"{flat}{n} {street}{nl}{town}"
        return f"{n} {street}{nl}{town}"
    if lang == "fr":
        kind = rng.randrange(6)
        suffix = rng.choice(["", "", " bis", " ter", "B"])
        if kind == 0:
            return f"{n}{suffix}, {street}{nl}{rng.choice(_FR_TOWNS)}"
        if kind == 1:
            bat = f"Résidence Les {rng.choice(['Tilleuls', 'Hortensias', 'Glycines'])}, bât. {rng.choice('ABCD')}"
            return f"{bat}{nl}{n} {street}{nl}{rng.choice(_FR_TOWNS)}"
        if kind == 2:
            return f"{n}{suffix} {street}{nl}BP {rng.randint(10, 990)}{nl}{rng.choice(_FR_CEDEX)}"
        if kind == 3:
            s = street[0].upper() + street[1:]
            return f"{s} {n}{rng.choice(['', '/2', ' bte 4'])}{nl}{rng.choice(_BE_CH)}"
        if kind == 4:
            return f"{n}, {street}{nl}Montréal (Québec)  H2X {rng.randint(1, 9)}{rng.choice('ABCEGHJ')}{rng.randint(1, 9)}"
        return f"{n} {street.upper()}{nl}{rng.choice(_FR_TOWNS).upper()}"
    kind = rng.randrange(5)
    floor = rng.choice([
        f", {rng.randint(1, 9)}º {rng.choice(['A', 'B', 'izda.', 'dcha.'])}",
        f", piso {rng.randint(1, 12)}, puerta {rng.randint(1, 6)}",
        ", bajo", f", {rng.randint(1, 6)}º {rng.randint(1, 4)}ª", f", esc. {rng.choice('AB')}, {rng.randint(1, 8)}º C", "",
    ])  # fmt: skip
    if kind <= 1:
        return f"{street}, {n}{floor}{nl}{rng.choice(_ES_TOWNS)}"
    if kind == 2:
        short = street.replace("Calle ", "C/ ").replace("Avenida ", "Avda. ").replace("Plaza ", "Pza. ")
        return f"{short} {n}{floor}{nl}{rng.choice(_ES_TOWNS)}"
    if kind == 3:
        return f"{street} n.º {n}{nl}{rng.choice(_ES_TOWNS)}"
    country, town = rng.choice(_LATAM)
    if country == "CO":
        return f"Carrera {rng.randint(10, 80)}{rng.choice(['', 'A', 'B'])} # {rng.randint(1, 99)}-{rng.randint(10, 99)}{nl}{town}"
    if country == "AR":
        return f"{street} {rng.randint(100, 5000)}, piso {rng.randint(1, 14)} depto. {rng.choice('ABCD')}{nl}{town}"
    return f"{street} {rng.randint(100, 3000)}{rng.choice(['', f', int. {rng.randint(1, 30)}'])}{nl}{town}"


# --- templates with PII ------------------------------------------------------

# Slots: <<P1:form>> / <<P2:form>> / <<P3:form>> a person (forms: see name_form), the
# same person for every slot of one index; <<E1>> / <<E2>> that person's e-mail
# (<<e1>> lower case); <<PH>> a phone, <<CC>> a card, <<IB>> an IBAN, <<A>> an
# address on one line, <<AM>> one across lines (each slot a fresh value).
TEMPLATES = {
    "en": [
        "Ticket #HD-{n5} | Requester: <<P1:full>> <<<E1>>>\nCallback: <<PH>>\nSubject: double charge on card <<CC>>, please refund asap",
        "Hi <<P1:first>>,\n\nThanks for the quick turnaround. Invoice attached; remit to <<IB>>.\n\nCheers,\n<<P2:full>>\nAccounts Payable | <<PH>>\n<<E2>>",
        '{"tool": "create_contact", "arguments": {"name": "<<P1:full>>", "email": "<<e1>>", "mobile": "<<PH>>", "street": "<<A>>"}}',
        "id,last_name,first_name,email,phone\n{n4},<<P1:last>>,<<P1:first>>,<<E1>>,<<PH>>\n{n4},<<P2:last>>,<<P2:first>>,<<E2>>,<<PH>>",
        "Ship to:\n<<P1:up>>\n<<AM>>\n\nTracking will be sent to <<e1>>.",
        "[{hh}:{mm}] <<P1:hand>>: can you update my card on file to <<CC>>? exp {exp}\n[{hh}:{mm}] agent_{n2}: sure, done",
        "customer:\n  name: \"<<P1:lf>>\"\n  contact:\n    phone: \"<<PH>>\"\n    email: <<E1>>\n  billing_iban: <<IB>>",
        "| Name | Phone | Email |\n|---|---|---|\n| <<P1:full>> | <<PH>> | <<E1>> |\n| <<P2:ini>> | <<PH>> | <<E2>> |",
        "Please summarise this complaint: my name is <<P1:low>> and i've been trying to reach you on <<PH>> for a week about the parcel to <<A>>",
        "From: <<P1:full>> <<<E1>>>\nTo: Billing team\n\nDear team, kindly debit <<IB>> instead of the card <<CC>>. Regards, <<P1:first>>",
        "Patient: <<P1:LF>>  DOB: {dd}/{mm2}/19{yy}\nNext of kin: <<P2:full>> (<<PH>>)\nAddress:\n<<AM>>",
        "Meeting notes - attendees: <<P1:full>>, <<P2:fl>>, <<P3:mid>>. Action: <<P2:first>> to send the NDA to <<E3>>.",
        "Dr <<P1:last>> asked me to forward the referral. You can reach the clinic on <<PH>> or write to <<E1>>.",
        "rewrite more politely: '<<P1:first>> you still haven't paid, wire the money to <<IB>> today or we cancel'",
        "Lead: <<P1:up>> | Company: {company} | Tel <<PH>> | <<e1>> | owner: <<P2:ini>>",
        "Card declined for <<P1:full>>: <<CC>>. Billing address on file: <<A>>. Retry with the backup card <<CC>>?",
        "Signed for by <<P1:ini>> at the front desk, <<A>>.",
        "new hire checklist\n- name: <<P1:full>>\n- personal email: <<e1>>\n- phone: <<PH>>\n- salary account: <<IB>>\n- buddy: <<P2:full>>",
        "<<P1:lf>> (<<E1>>) wrote:\n> can you call me back on <<PH>>? my landline is <<PH>>",
        "Translate to French: 'Hello, this is <<P1:full>> from accounts. Our new bank details are <<IB>>.'",
        "Paid with card <<CC>>, cardholder <<P1:up>>, ref {ref}",
        "git log: Co-authored-by: <<P1:full>> <<<E1>>>\nReviewed-by: <<P2:full>> <<<E2>>>",
        "Return label\nFROM: <<P1:full>>, <<AM>>\nTO: Returns Centre, Unit 4, {company}",
        "sms from <<PH>>: hi its <<P1:hand>> again, the code didnt work, pls call back on <<PH>>",
        "Who is <<P1:full>>? Their LinkedIn says they moved to {company} and their number is <<PH>>",
        "Refund approved by <<P2:mid>> for <<P1:lf>>; send to IBAN <<IB>> (not the card <<CC>>).",
        "Dear Mrs <<P1:last>>,\nyour appointment is confirmed for {dd}/{mm2}. Please bring the form to <<A>>.\nKind regards, <<P2:fl>>",
        "emergency contact: <<P1:low>> - <<PH>> - <<e1>>",
        '{"order": "SO-{n6}", "payer": {"name": "<<P1:LF>>", "card": "<<CC>>", "iban": "<<IB>>"}, "notes": "leave with <<P2:first>>"}',
        "Forward to <<P1:first>>'s team: the vendor <<P2:full>> changed their bank to <<IB>> - verify by calling <<PH>> first.",
        "Mailing list export:\n\"<<P1:lf>>\";\"<<E1>>\";\"<<A>>\"\n\"<<P2:lf>>\";\"<<E2>>\";\"<<A>>\"",
        "Hey <<P1:first>> - is <<CC>> the company card or yours? asking for the expense report. <<P2:first>>",
    ],
    "fr": [
        "Bonjour <<P1:first>>,\n\nVeuillez trouver ci-joint la facture n° F{n5}. Merci de régler par virement sur <<IB>>.\n\nCordialement,\n<<P2:full>>\nTél. : <<PH>>\n<<E2>>",
        "Ticket SAV {n5} — Client : <<P1:LF>>\nAdresse de livraison :\n<<AM>>\nJoignable au <<PH>>",
        '{"fonction": "creer_client", "arguments": {"nom": "<<P1:last>>", "prenom": "<<P1:first>>", "courriel": "<<e1>>", "telephone": "<<PH>>"}}',
        "nom;prénom;email;tél;adresse\n<<P1:last>>;<<P1:first>>;<<E1>>;<<PH>>;<<A>>",
        "Mme <<P1:last>> a réglé avec la carte <<CC>>, mais le prélèvement sur <<IB>> est aussi passé. Pouvez-vous rembourser ?",
        "Compte rendu : présents <<P1:full>>, <<P2:ini>>, <<P3:full>>. <<P2:first>> envoie le devis à <<E1>> avant vendredi.",
        "[{hh}:{mm}] <<P1:hand>> : mon numéro a changé, c'est le <<PH>> maintenant\n[{hh}:{mm}] conseiller : c'est noté, merci",
        "Mandat de prélèvement SEPA\nDébiteur : <<P1:up>>\nAdresse : <<A>>\nIBAN : <<IB>>",
        "De : <<P1:full>> <<<E1>>>\nObjet : RE: dossier {n5}\n\nJe vous rappelle au <<PH>> demain. <<P1:first>>",
        "Reformule poliment : « <<P1:first>>, tu n'as toujours pas payé, vire l'argent sur <<IB>> »",
        "contact urgence : <<P1:low>>, <<PH>>, <<e1>>",
        "| Nom | Téléphone | Courriel |\n|---|---|---|\n| <<P1:lf>> | <<PH>> | <<E1>> |\n| <<P2:full>> | <<PH>> | <<E2>> |",
        "Patient : <<P1:LF>>, né le {dd}/{mm2}/19{yy}\nMédecin traitant : Dr <<P2:last>>\nDomicile :\n<<AM>>",
        "client:\n  nom: \"<<P1:full>>\"\n  carte: \"<<CC>>\"\n  iban: <<IB>>\n  tel: \"<<PH>>\"",
        "Colis remis à <<P1:fl>> au <<A>>, signature de <<P2:ini>>.",
        "Merci de mettre à jour ma carte : <<CC>> (exp. {exp}). <<P1:full>>",
        "Traduis en anglais : « Je m'appelle <<P1:full>>, j'habite <<A>> et mon portable est le <<PH>>. »",
        "Expéditeur : <<P1:up>>, <<AM>>\nDestinataire : entrepôt {company}",
        "Salut <<P1:first>> ! C'est <<P2:first>>, tu peux m'envoyer le RIB ? Le mien c'est <<IB>> sinon",
        "Nouvelle recrue : <<P1:mid>> — courriel perso <<e1>>, compte salaire <<IB>>, tuteur : <<P2:full>>",
        '{"commande": "CMD-{n6}", "payeur": "<<P1:lf>>", "carte": "<<CC>>", "livraison": "<<A>>"}',
    ],
    "es": [
        "Hola <<P1:first>>:\n\nAdjunto la factura FV-{n5}. El pago por transferencia a <<IB>>.\n\nUn saludo,\n<<P2:full>>\nTel. <<PH>>\n<<E2>>",
        "Incidencia {n5} — Cliente: <<P1:LF>>\nDirección de entrega:\n<<AM>>\nTeléfono: <<PH>>",
        '{"funcion": "alta_cliente", "argumentos": {"nombre": "<<P1:full>>", "correo": "<<e1>>", "movil": "<<PH>>", "domicilio": "<<A>>"}}',
        "apellidos,nombre,email,telefono\n<<P1:last>>,<<P1:first>>,<<E1>>,<<PH>>\n<<P2:last>>,<<P2:first>>,<<E2>>,<<PH>>",
        "La Sra. <<P1:last>> pagó con la tarjeta <<CC>> y también se le cargó en <<IB>>. ¿Podéis devolverlo?",
        "Acta: asistentes <<P1:full>>, <<P2:ini>> y <<P3:full>>. <<P3:first>> enviará el presupuesto a <<E1>>.",
        "[{hh}:{mm}] <<P1:hand>>: me cambié de número, ahora es el <<PH>>\n[{hh}:{mm}] agente: anotado, gracias",
        "Orden de domiciliación SEPA\nDeudor: <<P1:up>>\nDomicilio: <<A>>\nIBAN: <<IB>>",
        "De: <<P1:full>> <<<E1>>>\nAsunto: RE: expediente {n5}\n\nLe llamo mañana desde el <<PH>>. <<P1:first>>",
        "Reescribe con educación: «<<P1:first>>, todavía no has pagado, haz la transferencia a <<IB>> hoy»",
        "contacto de emergencia: <<P1:low>> - <<PH>> - <<e1>>",
        "| Nombre | Teléfono | Correo |\n|---|---|---|\n| <<P1:lf>> | <<PH>> | <<E1>> |\n| <<P2:full>> | <<PH>> | <<E2>> |",
        "Paciente: <<P1:LF>>, nacido el {dd}/{mm2}/19{yy}\nMédico: Dr. <<P2:last>>\nDomicilio:\n<<AM>>",
        "cliente:\n  nombre: \"<<P1:full>>\"\n  tarjeta: \"<<CC>>\"\n  iban: <<IB>>\n  telefono: \"<<PH>>\"",
        "Paquete entregado a <<P1:fl>> en <<A>>, firma de <<P2:ini>>.",
        "Por favor actualizad mi tarjeta: <<CC>> (cad. {exp}). <<P1:full>>",
        "Traduce al inglés: «Me llamo <<P1:full>>, vivo en <<A>> y mi móvil es el <<PH>>.»",
        "Remitente: <<P1:up>>, <<AM>>\nDestinatario: almacén {company}",
        "Oye <<P1:first>>, soy <<P2:first>>, ¿me pasas tu cuenta? La mía es <<IB>> por si acaso",
        "Alta de empleado: <<P1:mid>> — correo personal <<e1>>, cuenta nómina <<IB>>, tutor: <<P2:full>>",
        '{"pedido": "PED-{n6}", "pagador": "<<P1:lf>>", "tarjeta": "<<CC>>", "envio": "<<A>>"}',
    ],
}  # fmt: skip

_SLOT = re.compile(r"<<(P[123]:\w+|E[123]|e1|PH|CC|IB|AM|A)>>")
_COMPANIES = [
    "Northwind Tiling",
    "Brightmoor Freight",
    "Helix Kitchens",
    "Quayside Print Ltd",
    "Alderbank Ceramics",
]


def _plain(template: str, rng: random.Random) -> str:
    """Fill the non-PII placeholders (``{n5}``, ``{hh}``...)."""
    fills: dict[str, Callable[[], str]] = {
        "n2": lambda: _d(rng, 2), "n4": lambda: str(rng.randint(1000, 9999)),
        "n5": lambda: str(rng.randint(10000, 99999)), "n6": lambda: str(rng.randint(100000, 999999)),
        "hh": lambda: f"{rng.randint(7, 22):02d}", "mm": lambda: f"{rng.randint(0, 59):02d}",
        "mm2": lambda: f"{rng.randint(1, 12):02d}", "dd": lambda: f"{rng.randint(1, 28):02d}",
        "yy": lambda: f"{rng.randint(30, 99)}", "exp": lambda: f"{rng.randint(1, 12):02d}/{rng.randint(27, 33)}",
        "company": lambda: rng.choice(_COMPANIES), "ref": lambda: f"PAY-{_d(rng, 3)}-{rng.choice('KMQX')}{_d(rng, 2)}",
    }  # fmt: skip
    return re.sub(r"\{(\w+)\}", lambda m: fills[m.group(1)](), template)


def fill(template: str, rng: random.Random, lang: str) -> tuple[str, list[dict]]:
    """``template`` with its slots filled and the gold entities (code point offsets)."""
    template = _plain(template, rng)
    people: list[tuple[str, str]] = []
    while len(people) < 3:
        p = person(rng, lang)
        if all(p[0] != q[0] and p[1] != q[1] for q in people):
            people.append(p)
    emails = [email(rng, p, lang) for p in people]
    out: list[str] = []
    entities: list[dict] = []
    pos = length = 0
    for m in _SLOT.finditer(template):
        literal = template[pos : m.start()]
        out.append(literal)
        length += len(literal)
        slot = m.group(1)
        if slot[:2] in ("P1", "P2", "P3"):
            etype, value = "PERSON", name_form(rng, people[int(slot[1]) - 1], slot[3:])
        elif slot[0] in "Ee":
            etype, value = "EMAIL_ADDRESS", emails[int(slot[1]) - 1]
            value = value.lower() if slot[0] == "e" else value
        elif slot == "PH":
            etype, value = "PHONE_NUMBER", phone(rng, lang)
        elif slot == "CC":
            etype, value = "CREDIT_CARD", card(rng)
        elif slot == "IB":
            etype, value = "IBAN_CODE", iban(rng, lang)
        else:
            etype, value = "STREET_ADDRESS", address(rng, lang, multiline=slot == "AM")
        if template.lstrip().startswith(("{", "[{")) or '": "' in template:
            value = value.replace("\n", ", ")
        entities.append({"type": etype, "start": length, "end": length + len(value), "value": value})
        out.append(value)
        length += len(value)
        pos = m.end()
    out.append(template[pos:])
    return "".join(out), entities


# --- PII-free chat -----------------------------------------------------------

_CHAT_FILL = {
    "en": {
        "DISH": ["a chickpea and spinach stew", "sourdough focaccia with olives", "miso-glazed aubergine", "a rhubarb and ginger crumble", "egusi soup", "a pork and fennel ragù"],
        "THING": ["a sit-stand desk converter", "a pair of bone-conduction earphones", "a carbon-steel wok", "a second-hand gravel bike", "a split ergonomic keyboard", "a heat-pump tumble dryer"],
        "TOPIC": ["how a heat pump moves heat", "why the sky turns red at sunset", "the rules of cricket's follow-on", "how sourdough starters work", "how solar panels degrade", "how index funds are weighted"],
        "SKILL": ["touch typing on a split board", "sight reading piano music", "indoor bouldering", "knitting cabled jumpers", "giving a ten-minute talk", "ink sketching outdoors"],
    },
    "fr": {
        "DISH": ["un kig ha farz", "une soupe au pistou d'hiver", "des galettes aux poireaux", "un tajine de légumes aux pruneaux", "une garbure"],
        "THING": ["un vélo cargo électrique", "une machine à pain", "un aspirateur balai reconditionné", "une liseuse étanche", "une yaourtière"],
        "TOPIC": ["le fonctionnement d'une pompe à chaleur", "la formation des nuages", "le calcul des intérêts composés", "la fermentation du levain", "les éclipses de lune"],
        "SKILL": ["la couture à la machine", "le déchiffrage au piano", "le bloc en salle", "le tournage de poterie", "l'improvisation théâtrale"],
    },
    "es": {
        "DISH": ["unas fabes con almejas", "un salmorejo sin pan", "unas migas extremeñas", "un pisto con huevo", "un ajiaco"],
        "THING": ["una bici de carga", "una panificadora", "una silla de oficina de malla", "una aspiradora sin cable reacondicionada", "una yogurtera"],
        "TOPIC": ["cómo funciona una bomba de calor", "la formación de las nubes", "cómo se calcula una hipoteca a tipo fijo", "la fermentación de la masa madre", "los eclipses de luna"],
        "SKILL": ["la cerámica en torno", "el ganchillo amigurumi", "la escalada en rocódromo", "la lectura a primera vista", "la improvisación teatral"],
    },
}  # fmt: skip
CHAT_FREE = {
    "en": [
        "what's a good weeknight recipe for {DISH}? I have about 40 minutes",
        "Can you explain {TOPIC} like I'm twelve?",
        "is {THING} worth it for a small flat or is it overkill",
        "Give me a 4-week plan to get better at {SKILL}, 20 minutes a day.",
        "I burnt {DISH} last night, what did I do wrong?",
        "Pros and cons of {THING} vs just waiting for a sale?",
        "how do I stay motivated learning {SKILL} when progress feels slow",
        "Summarise {TOPIC} in three bullet points please",
        "my kid asked about {TOPIC} and I had no idea, help",
        "Write a short haiku about {DISH}.",
        "Which is easier to start with, {SKILL} or running?",
        "any tips for cleaning {THING}? the manual is useless",
        "Quiz me on {TOPIC} with five multiple-choice questions.",
        "ok last question: can {DISH} be frozen and reheated?",
    ],
    "fr": [
        "Tu as une recette simple pour {DISH} ? J'ai une heure devant moi.",
        "Peux-tu m'expliquer {TOPIC} simplement ?",
        "est-ce que {THING} vaut vraiment le coup pour un petit appartement",
        "Propose-moi un programme de quatre semaines pour progresser en {SKILL}.",
        "J'ai raté {DISH} hier soir, qu'est-ce qui a pu clocher ?",
        "Avantages et inconvénients de {THING} ?",
        "Résume {TOPIC} en trois points, s'il te plaît.",
        "comment rester motivé pour {SKILL} quand on stagne",
        "Écris un petit poème sur {DISH}.",
        "Pose-moi cinq questions sur {TOPIC} pour réviser.",
        "des astuces pour entretenir {THING} ?",
    ],
    "es": [
        "¿Tienes una receta fácil para {DISH}? Tengo una hora.",
        "¿Me explicas {TOPIC} de forma sencilla?",
        "¿merece la pena {THING} para un piso pequeño?",
        "Hazme un plan de cuatro semanas para mejorar en {SKILL}.",
        "Ayer me salió fatal {DISH}, ¿qué pudo fallar?",
        "Ventajas e inconvenientes de {THING}, por favor.",
        "Resume {TOPIC} en tres puntos.",
        "cómo no desanimarse con {SKILL} cuando no avanzas",
        "Escribe un poema corto sobre {DISH}.",
        "Hazme cinco preguntas tipo test sobre {TOPIC}.",
        "¿algún truco para limpiar {THING}?",
    ],
}  # fmt: skip
_CHAT_SLOT = re.compile(r"\{(DISH|THING|TOPIC|SKILL)\}")
_CHAT_TAIL = {
    "en": ["", "", " Thanks!", " Keep it short.", " No jargon please.", " (asking for a friend)", " Bullet points are fine.", " ty"],
    "fr": ["", "", " Merci !", " Fais court.", " Sans jargon, stp.", " (c'est pour un ami)", " En quelques lignes.", " merci d'avance"],
    "es": ["", "", " ¡Gracias!", " Breve, por favor.", " Sin tecnicismos.", " (es para un amigo)", " En pocas líneas.", " gracias de antemano"],
}  # fmt: skip


def chat_free(rng: random.Random, template: str, lang: str) -> str:
    """A PII-free chat message: ``template`` with everyday fills and an optional closing remark."""
    text = _CHAT_SLOT.sub(lambda m: rng.choice(_CHAT_FILL[lang][m.group(1)]), template)
    return text + rng.choice(_CHAT_TAIL[lang])


# --- PII-free technical text -------------------------------------------------


def _hex(r: random.Random, k: int) -> str:
    return "".join(r.choice("0123456789abcdef") for _ in range(k))


def _uuid(r: random.Random) -> str:
    h = _hex(r, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{r.choice('89ab')}{h[17:20]}-{h[20:]}"


def _ver(r: random.Random) -> str:
    return f"{r.randint(0, 14)}.{r.randint(0, 30)}.{r.randint(0, 60)}"


def _ts(r: random.Random) -> str:
    return f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}T{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}.{r.randint(0, 999):03d}Z"


def _date(r: random.Random) -> str:
    return f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}"


_SVCS = ["billing-api", "search-indexer", "quote-engine", "media-transcoder", "notif-dispatch", "tax-calc"]
_TABLES = ["subscriptions", "usage_rollups", "coupons", "warehouse_bins", "tax_rates", "feature_flags"]
_EXC = ["RuntimeError", "OSError", "TypeError", "asyncio.CancelledError", "sqlalchemy.exc.OperationalError"]
_PATHS = ["/v2/quotes", "/v1/rollups/daily", "/internal/healthz", "/v3/catalog/items", "/api/tax/rates"]

TECH: list[Callable[[random.Random], str]] = [
    lambda r: f"{_ts(r)} level=info svc={r.choice(_SVCS)} msg=\"request done\" status={r.choice([200, 201, 204, 304])} dur_ms={r.randint(2, 900)} req_id={_uuid(r)}",
    lambda r: f"{_ts(r)} WARN [{r.choice(_SVCS)}] retry {r.randint(1, 5)}/5 after {r.choice(['503', 'timeout', 'ECONNRESET'])} (backoff {r.randint(100, 3200)} ms)",
    lambda r: f"Traceback (most recent call last):\n  File \"/srv/app/{r.choice(['jobs', 'handlers', 'tasks'])}.py\", line {r.randint(10, 900)}, in run\n    result = step(ctx)\n{r.choice(_EXC)}: step {r.randint(1, 40)} exceeded {r.randint(5, 120)}s",
    lambda r: f"SELECT id, plan_code, renews_at FROM {r.choice(_TABLES)} WHERE renews_at < '{_date(r)}' AND status = 'active' ORDER BY id LIMIT {r.choice([50, 100, 500])};",
    lambda r: f"UPDATE {r.choice(_TABLES)} SET version = version + 1 WHERE id = {r.randint(1000, 99999999)} RETURNING version;",
    lambda r: f"commit {_hex(r, 40)}\nDate:   {_date(r)}\n\n    {r.choice(['fix', 'refactor', 'perf', 'chore'])}: {r.choice(['batch size for rollups', 'cache key includes locale', 'drop unused index', 'bump base image'])}",
    lambda r: f"sha256:{_hex(r, 64)}",
    lambda r: f"docker pull registry.example.org/{r.choice(_SVCS)}:{_ver(r)}@sha256:{_hex(r, 64)}",
    lambda r: f"ORDER-{r.randint(2024, 2026)}-{r.randint(100000, 999999)} status=SHIPPED carrier={r.choice(['DHL', 'UPS', 'GLS', 'SEUR'])} parcels={r.randint(1, 6)}",
    lambda r: f"Invoice INV/{r.randint(2025, 2026)}/{r.randint(1, 99999):05d} — net {r.randint(10, 9999)}.{r.randint(0, 99):02d} EUR, VAT {r.choice([5.5, 10, 20, 21])} %, due {_date(r)}",
    lambda r: f"{{\"event\":\"{r.choice(['cart.updated', 'quote.expired', 'job.failed'])}\",\"id\":\"{_uuid(r)}\",\"ts\":{r.randint(1700000000, 1800000000)},\"attempt\":{r.randint(1, 9)}}}",
    lambda r: f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {r.choice(_SVCS)}\nspec:\n  replicas: {r.randint(1, 12)}\n  template:\n    spec:\n      containers:\n        - image: {r.choice(_SVCS)}:{_ver(r)}\n          resources: {{limits: {{cpu: \"{r.randint(1, 4)}\", memory: {r.choice([256, 512, 1024])}Mi}}}}",
    lambda r: f"[server]\nport = {r.randint(1024, 65000)}\nworkers = {r.randint(1, 16)}\n\n[cache]\nttl_seconds = {r.randint(30, 86400)}\nmax_entries = {r.randint(1000, 500000)}",
    lambda r: f"sku,qty,unit_price_cents,warehouse\nSKU-{_hex(r, 6).upper()},{r.randint(1, 90)},{r.randint(99, 99999)},WH{r.randint(1, 9)}\nSKU-{_hex(r, 6).upper()},{r.randint(1, 90)},{r.randint(99, 99999)},WH{r.randint(1, 9)}",
    lambda r: f"| metric | p50 | p95 | p99 |\n|---|---|---|---|\n| latency_ms | {r.randint(2, 40)} | {r.randint(41, 200)} | {r.randint(201, 900)} |\n| rps | {r.randint(100, 5000)} | – | – |",
    lambda r: f"GET https://api.example.com{r.choice(_PATHS)}?page={r.randint(1, 80)}&per_page={r.choice([25, 50, 100])}&sort=-created_at -> {r.choice([200, 404, 429])}",
    lambda r: f"https://docs.example.org/guides/{r.choice(['rate-limits', 'webhooks', 'pagination', 'idempotency'])}#{r.choice(['retries', 'headers', 'examples'])}",
    lambda r: f"def {r.choice(['chunked', 'window', 'rollup'])}(xs, n={r.randint(2, 64)}):\n    for i in range(0, len(xs), n):\n        yield xs[i : i + n]",
    lambda r: f"fn checksum(buf: &[u8]) -> u32 {{\n    buf.iter().fold({r.randint(0, 9999)}u32, |acc, b| acc.wrapping_mul({r.choice([31, 33, 37])}).wrapping_add(*b as u32))\n}}",
    lambda r: f"const retryDelays = [{', '.join(str(r.randint(50, 5000)) for _ in range(4))}]; // ms, exponential with jitter",
    lambda r: f"pip install 'httpx=={_ver(r)}' 'orjson>={_ver(r)}'",
    lambda r: f"npm ERR! code ERESOLVE\nnpm ERR! peer react@\"^{r.randint(16, 19)}.0.0\" from some-widget@{_ver(r)}",
    lambda r: f"build #{r.randint(1000, 99999)} passed in {r.randint(1, 59)}m{r.randint(0, 59):02d}s on runner linux-{r.choice(['x64', 'arm64'])}-{r.randint(1, 40)}",
    lambda r: f"Tracking {r.choice(['JJD', 'CP', 'LX'])}{r.randint(100000000, 999999999)}{r.choice(['DE', 'FR', 'ES'])} — in transit, ETA {_date(r)}",
    lambda r: f"ETag: \"{_hex(r, 32)}\"\nCache-Control: max-age={r.randint(60, 86400)}, stale-while-revalidate={r.randint(10, 600)}",
    lambda r: f"kafka topic={r.choice(_SVCS)}.events partition={r.randint(0, 31)} offset={r.randint(10**6, 10**9)} lag={r.randint(0, 5000)}",
    lambda r: f"cron: '{r.randint(0, 59)} {r.randint(0, 23)} * * {r.randint(0, 6)}'  # weekly rollup of {r.choice(_TABLES)}",
    lambda r: f"Error E{r.randint(1000, 9999)}: field 'quantity' must be between 1 and {r.choice([99, 999])} (got {r.randint(1000, 5000)})",
    lambda r: f"release {_ver(r)} ({_date(r)}): {r.randint(2, 30)} fixes, {r.randint(0, 8)} features, migration {r.randint(100, 999)}_add_{r.choice(_TABLES)}_idx",
    lambda r: f"PO-{r.randint(10000, 99999)}-{r.choice('ABCDEFGH')}  qty {r.randint(1, 500)}  pallet {r.randint(1, 40)}/{r.randint(41, 80)}  bin {r.choice('ABCDEF')}{r.randint(1, 30)}-{r.randint(1, 9)}",
    lambda r: f"terraform: aws_s3_bucket.{r.choice(['assets', 'backups', 'exports'])}: Modifying... [id=tw-{_hex(r, 12)}]",
    lambda r: f"go: downloading golang.org/x/{r.choice(['net', 'sync', 'text'])} v0.{r.randint(10, 40)}.{r.randint(0, 9)}",
    lambda r: f"HTTP/1.1 429 Too Many Requests\nRetry-After: {r.randint(1, 120)}\nX-RateLimit-Remaining: 0\nX-Request-Id: {_uuid(r)}",
    lambda r: f"jwt header {{\"alg\":\"{r.choice(['RS256', 'ES256', 'EdDSA'])}\",\"kid\":\"{_hex(r, 16)}\"}} exp={r.randint(1700000000, 1800000000)}",
    lambda r: f"gpu{r.randint(0, 7)}: util {r.randint(0, 100)}% mem {r.randint(1, 80)}/80 GiB temp {r.randint(30, 88)}C",
    lambda r: f"coupon SPRING{r.randint(10, 60)}-{_hex(r, 5).upper()} valid {_date(r)}..{_date(r)}, max uses {r.randint(10, 10000)}",
    lambda r: f"CREATE INDEX CONCURRENTLY idx_{r.choice(_TABLES)}_{r.choice(['created', 'status', 'tenant'])} ON {r.choice(_TABLES)} ({r.choice(['created_at', 'status', 'tenant_id'])});",
    lambda r: f"ticket SUP-{r.randint(1000, 99999)}: dashboard widget shows NaN when the range is empty; repro on build {_ver(r)}",
    lambda r: f"checksum mismatch: expected {_hex(r, 40)}, got {_hex(r, 40)}",
    lambda r: f"feature_flags.{r.choice(['new_checkout', 'batch_exports', 'dark_mode'])}: rollout {r.randint(0, 100)}% (bucket salt {_hex(r, 8)})",
]  # fmt: skip


# --- files -------------------------------------------------------------------


def generate(rng_seed: int = SEED) -> dict[str, list[dict]]:
    """The v6 frozen files' records, keyed by file name."""
    out: dict[str, list[dict]] = {}
    sizes = {"en": (400, 140), "fr": (240, 110), "es": (240, 110)}
    for offset, (lang, (n_pii, n_free)) in enumerate(sizes.items()):
        rng = random.Random(rng_seed + offset)
        templates, free = TEMPLATES[lang], CHAT_FREE[lang]
        records = []
        for i in range(n_pii):
            text, entities = fill(templates[i % len(templates)], rng, lang)
            records.append({"id": f"v6{lang}{i + 1:04d}", "lang": lang, "text": text, "entities": entities})
        for i in range(n_free):
            text = chat_free(rng, free[i % len(free)], lang)
            records.append({"id": f"v6{lang}f{i + 1:04d}", "lang": lang, "text": text, "entities": []})
        out[f"heldout-{lang}.jsonl"] = records
    rng = random.Random(rng_seed + 100)
    out["pii_free.jsonl"] = [
        {"id": f"v6t{i + 1:04d}", "lang": "en", "text": TECH[i % len(TECH)](rng), "entities": []}
        for i in range(480)
    ]
    return out


def render(records: list[dict]) -> bytes:
    """The JSONL bytes of ``records`` (one object a line, UTF-8, no ASCII escaping)."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def main() -> None:
    """Write the v6 files and their ``SHA256SUMS`` into ``--out`` (default ``eval/frozen_v6``)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("frozen_v6"))
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
