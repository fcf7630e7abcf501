"""Pure rules for number-shaped personal data: payment cards and phone candidates.

No model and no Presidio here (``engine.py`` wraps these in recognizers).

Cards (:func:`find_cards`): a run of 12 to 19 digits, with any of the
separators people type between groups (space, no-break space, ``-``, ``.``,
``/``, or none), is a card number when it passes the Luhn check (ISO/IEC
7812-1 annex B) and its leading digits and length fall in an issuer range of
a payment network (ISO/IEC 7812 issuer identification numbers as published
by the networks: :data:`CARD_RANGES`). Presidio's own recognizer only knows
the Visa/Mastercard-5/Amex/Discover/Diners prefixes with 13-16 digits, so it
missed Mastercard's 2-series (``2221 0000 0000 0009``) and 19-digit numbers
(``4000000000000000006``, ``6200000000000000000``).

Phones (:func:`phone_candidate_ok`): the phone matcher (libphonenumber)
happily reads an order id's tail (``ORD-2024-000123``), a date, a version or
a GUID's last group as a national number. A digit run is offered to it only
when it stands on its own: not glued to a word or identifier on either side,
not after ``#`` or ``key=``, and not shaped like a date, a dotted version or
an IPv4 address. A bare digit run with neither a trunk prefix (``0``) nor an
international one (``+``, ``00``) nor a separator (``4155550134``) is as
likely a seed, checksum or count: it needs a phone word before it
(:func:`phone_context`, :func:`bare_run_ok`). A phone-shaped run that no
numbering plan validates (``+1 (536) 794-8329``: area code unassigned) is
still a phone number when a phone word stands before it or it starts with an
international prefix (:func:`possible_phone_ok`; people mistype, invent and
quote such numbers, and they identify them all the same).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# (first digits low, high, lengths issued), inclusive; the prefix length is
# the number of digits of ``low``. Sources: ISO/IEC 7812 IIN
# assignments as published by each network (Visa, Mastercard incl. the
# 2221-2720 series, American Express, Discover/Diners Club International,
# JCB, UnionPay, Maestro, Mir, RuPay, Verve, Troy, UATP, and the national
# schemes GPN, BORICA, China T-Union, UzCard, Humo, DinaCard; round 13).
CARD_RANGES: tuple[tuple[int, int, tuple[int, ...]], ...] = (
    (1, 1, (15,)),  # UATP (airlines)
    (1946, 1946, (16, 18, 19)),  # GPN (Indonesia)
    (2200, 2204, (16, 17, 18, 19)),  # Mir
    (2205, 2205, (16,)),  # BORICA (Bulgaria)
    (2221, 2720, (16,)),  # Mastercard 2-series
    (300, 305, (14, 15, 16, 17, 18, 19)),  # Diners Club
    (31, 31, (19,)),  # China T-Union
    (3095, 3095, (14, 15, 16, 17, 18, 19)),  # Diners Club International (3095)
    (34, 34, (15,)),  # American Express
    (37, 37, (15,)),  # American Express
    (3528, 3589, (16, 17, 18, 19)),  # JCB
    (36, 36, (14, 15, 16, 17, 18, 19)),  # Diners Club International
    (38, 39, (14, 16, 17, 18, 19)),  # Diners Club International (14 digits) / Discover network
    (4, 4, (13, 16, 19)),  # Visa (the lengths Visa issues)
    (50, 50, tuple(range(12, 20))),  # Maestro
    (51, 55, (16,)),  # Mastercard
    (56, 58, tuple(range(12, 20))),  # Maestro
    (60, 69, tuple(range(12, 20))),  # Discover, UnionPay (62), RuPay (60, 65), Maestro (6xxx), Verve
    (81, 81, (16, 17, 18, 19)),  # UnionPay 81 (16-19 digits, like 62), RuPay 81
    (82, 82, (16,)),  # RuPay 82
    (8600, 8600, (16,)),  # UzCard (Uzbekistan)
    (9792, 9792, (16,)),  # Troy
    (9860, 9860, (16,)),  # Humo (Uzbekistan)
    (9891, 9891, (16,)),  # DinaCard (Serbia)
)

_SPACE = " \u00a0\u202f\t"
# Digit groups joined by one separator (one or two space-like characters --
# people and form fields write double spaces too, round 8 -- or one of ``-./``
# with optional spaces around it); the look-arounds keep a candidate from
# starting or ending inside a longer token. Never a line break.
_CARD_CANDIDATE = re.compile(
    rf"(?<![\w+.\-/])\d+(?:(?:[{_SPACE}]{{0,2}}[-./][{_SPACE}]{{0,2}}|[{_SPACE}]{{1,2}})\d+)*(?![\w]|[.\-/]\d)"
)
_GROUP = re.compile(r"\d+")


def luhn_valid(digits: str) -> bool:
    """True when ``digits`` (only 0-9) passes the Luhn mod-10 check (ISO/IEC 7812-1)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = ord(ch) - 48
        if i % 2 == 1:
            n *= 2
            if n > 9:
                n -= 9
        total += n
    return total % 10 == 0


def issuer_range(digits: str) -> bool:
    """True when the leading digits and the length of ``digits`` match :data:`CARD_RANGES`."""
    n = len(digits)
    for low, high, lengths in CARD_RANGES:
        width = len(str(low))
        if n in lengths and low <= int(digits[:width]) <= high:
            return True
    return False


@dataclass(frozen=True, slots=True)
class CardMatch:
    """A card number found in a text: code point offsets ``[start, end)``."""

    start: int
    end: int


# A product barcode number (EAN-13/GTIN/UPC/ISBN-13) after its keyword: 13
# digits passing the EAN check are the article, not a 13-digit Visa (round 7).
_BARCODE_BEFORE = re.compile(r"(?i)\b(?:ean|ean-?13|gtin|gtin-?13|upc|isbn|isbn-?13|barcode)\s*[:#=]?\s*$")


def ean13_valid(digits: str) -> bool:
    """True when the 13 digits of ``digits`` pass the EAN-13/GTIN-13 check (weights 1, 3)."""
    if len(digits) != 13 or not digits.isdigit():
        return False
    total = sum((3 if i % 2 else 1) * (ord(c) - 48) for i, c in enumerate(digits[:12]))
    return (10 - total % 10) % 10 == ord(digits[12]) - 48


def find_cards(text: str) -> list[CardMatch]:
    """Card numbers in ``text`` (Luhn + issuer range + 12-19 digits, any separators).

    A candidate is a run of digit groups, separated by one or two spaces
    or one of ``-./``; a grouped number starts with a group of 4 digits
    (4-4-4-4, 4-6-5, 4-6-4, 4-4-4-4-3), or is 6 digits (the issuer number,
    BIN) then the rest in one group (``620885 7591810551577``, round 8), or
    is 18 or 19 digits in even groups of 5 or 6 with a last group no longer
    (6-6-6, 5-5-5-4: Maestro/UnionPay numbers, round 12), and
    every group but the last has at least 3 digits (so lists of small
    numbers or pids are no card). When the whole
    run is no card, the longest valid run of whole groups inside it is
    taken (``4111 1111 1111 1111 2025``: the card, not the year). The
    words around a candidate never decide: a Luhn-valid number of a card
    length in an issuer range is a card after ``order`` or ``id=`` too (a
    card pasted as an order reference is still a card; an order id passes
    Luhn and a range by chance only, about 1 in 30), and a number failing
    Luhn is never one, whatever card word stands before it. One exception:
    13 digits right after a barcode word (``EAN``, ``GTIN``, ``ISBN``) that
    pass the EAN-13 check are an article number (round 7).
    """
    out: list[CardMatch] = []
    for m in _CARD_CANDIDATE.finditer(text):
        groups = [(g.start() + m.start(), g.end() + m.start()) for g in _GROUP.finditer(m.group())]
        i = 0
        while i < len(groups):
            found = _longest_card(text, groups, i)
            if found is None:
                i += 1
                continue
            j, match = found
            raw = text[match.start : match.end]
            if not (
                ean13_valid(raw) and _BARCODE_BEFORE.search(text[max(0, match.start - 20) : match.start])
            ):
                out.append(match)
            i = j + 1
    return out


def _longest_card(text: str, groups: list[tuple[int, int]], i: int) -> tuple[int, CardMatch] | None:
    """The longest card made of ``groups[i..j]`` (whole groups), as ``(j, match)``."""
    best: tuple[int, CardMatch] | None = None
    digits = ""
    first = groups[i][1] - groups[i][0]
    for j in range(i, len(groups)):
        a, b = groups[j]
        if j > i and groups[j - 1][1] - groups[j - 1][0] < 3:
            break  # only the last group may be shorter than 3 digits
        digits += text[a:b]
        if len(digits) > 19:
            break
        if len(digits) < 12 or not luhn_valid(digits) or not issuer_range(digits):
            continue
        if j > i and first != 4 and not (first == 6 and j == i + 1) and not _even_groups(groups, i, j):
            continue
        start, end = groups[i][0], b
        if not _consistent_separators(text[start:end]):
            continue
        best = (j, CardMatch(start, end))
    return best


def _even_groups(groups: list[tuple[int, int]], i: int, j: int) -> bool:
    """True when ``groups[i..j]`` are groups of 5 or 6 digits, the last one no longer.

    The layouts of 18- and 19-digit Maestro/UnionPay/Discover numbers on
    receipts and statements (``630428 771706 984444``, 6-6-6;
    ``62173 45678 90123 4567``, 5-5-5-4; round 12): every group but the
    last has the first group's width, the last has 1 to that many digits.
    """
    width = groups[i][1] - groups[i][0]
    if width not in (5, 6):
        return False
    if any(b - a != width for a, b in groups[i:j]):
        return False
    total = sum(b - a for a, b in groups[i : j + 1])
    return 1 <= groups[j][1] - groups[j][0] <= width and total >= 18


def _consistent_separators(raw: str) -> bool:
    """At most one kind of separator between digit groups (``4111 1111-1111.1111`` is no card)."""
    kinds = {c for c in raw if not c.isdigit() and c not in " \u00a0\u202f\t"}
    return len(kinds) <= 1


# --- phone candidates --------------------------------------------------------

_DATE_SHAPES = re.compile(
    r"^(?:(?:(?:19|20)\d\d[-/.](?:0?[1-9]|1[0-2])[-/.](?:0?[1-9]|[12]\d|3[01])"
    r"|(?:0?[1-9]|[12]\d|3[01])[-/.](?:0?[1-9]|1[0-2])[-/.](?:19|20)?\d\d"
    r"|(?:0?[1-9]|1[0-2])[-/.](?:0?[1-9]|[12]\d|3[01])[-/.](?:19|20)?\d\d)(?=$|\s)"
    r"|(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?=$|\s|[.T]\d))"
)
_IPV4 = re.compile(r"^(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$")
_PHONE_KEYS = re.compile(
    r"(?i)(?:phone|tel|tél|tlf|telefon|teléfono|telefono|téléphone|mobile|mobil|móvil|movil|cell|celular|"
    r"fax|whatsapp|handy|portable|number|numéro|número|numero|contact|contacto)\w*$"
)


# Short keys that name a phone in signatures and vCards (``T:+44…``, ``M:07…``).
_SHORT_PHONE_KEYS = frozenset({"t", "m", "p", "f", "ph", "mob", "gsm", "cel", "fixe", "tfno", "tlf", "tel"})
_GROUP_RE = re.compile(r"\d+")


def _phone_key(key: str) -> bool:
    """True when ``key`` (of ``key=value`` / ``key:value``) names a phone number."""
    return key.lower() in _SHORT_PHONE_KEYS or _PHONE_KEYS.search(key) is not None


def _unix_time(group: str) -> bool:
    """True for 10 or 13 digits starting 15-19: Unix time in s or ms (2017-2033).

    No national number without a trunk prefix starts so (NANP area codes
    never start with 1; 10-digit numbers elsewhere start 0 or 6-9)."""
    return len(group) in (10, 13) and group[0] == "1" and group[1] in "56789"


# A number right after one of these words is an identifier, not a phone
# number ("Tracking number 021796984477", "Kafka offset 0918344916021").
_PHONE_ID_KEY = re.compile(
    r"(?i)\b(?:id|ids|uid|uuid|guid|offset|seq|sequence|ts|timestamp|epoch(?:_ms)?|order|tracking|"
    r"shipment|ref|reference|invoice|ticket|build|block|po|partition|checksum|crc|hash|isbn|ean|sku|"
    r"gtin|upc|mpn|asin|lot|"
    r"serial|version|commit|pid|pids|port|ports|range|case|batch|job|run|request|transaction|txn|size|bytes|"
    r"mtime|ctime|atime|created|updated|amount|count|total|account|acct|customer|member|policy|contract|"
    r"loan|parcel)"
    r"(?:\s+(?:number|no\.?|nr\.?|id|#))?\s*[#:=]?\s*$"
)


# A North American number written with dots after its country code
# (``1.505.922.5961``, ``+1.343.930.6147``): 3-3-4 digit groups after a
# one-digit first group, a layout no version number has (round 7).
_DOTTED_NANP = re.compile(r"^1\.[2-9]\d{2}\.[2-9]\d{2}\.\d{4}$")


def phone_candidate_ok(text: str, start: int, end: int) -> bool:
    """Whether the digit run ``text[start:end]`` may be offered to the phone matcher.

    False when it is glued to an identifier (``ORD-2024-000123``,
    ``a456-426614174000``, ``v1.2.3``, ``#2024-000123``, ``seq=631521654``
    unless the key is phone-like), right after an identifier word
    (``tracking number``, ``offset``, ``order``), or when the run itself is a date
    (``2024-05-03``, ``03/05/2024``, ``20240503``), a dotted version with a
    one-digit group (``10.0.19045.3803``) or an IPv4 address; a hex dump's
    offset column (digits at a line start before ``:``) or a run holding a
    group of 14+ digits without ``+``/``00`` (GS1 identifiers; round 8).
    """
    run = text[start:end]
    left = text[start - 1] if start > 0 else ""
    left2 = text[start - 2] if start > 1 else ""
    right = text[end] if end < len(text) else ""
    right2 = text[end + 1] if end + 1 < len(text) else ""
    if left and (left.isalnum() or left == "_"):
        return False
    if left in "-./" and left and left2 and (left2.isalnum() or left2 == "_"):
        return False
    if left == "#":
        return False
    key_value = re.search(r"(\w+)[\"']?\s*[=:]\s*[\"']?$", text[max(0, start - 40) : start])
    if (
        key_value is not None
        and not _phone_key(key_value.group(1))
        and (left in "=\"'" or "_" in key_value.group(1) or (left == ":" and not phone_context(text, start)))
    ):
        # key=value, "key": value, snake_case keys, ``window:1772275282``
        # (no space after the colon: a key, not a label): an identifier
        # unless the key says phone
        return False
    if right == ":" and run.isdigit() and (start == 0 or text[start - 1] == "\n"):
        return False  # a hex dump's offset column (``00000010: 9d2b bf28 ...``, round 8)
    if not run.startswith(("+", "00", "(+")) and any(len(g) >= 14 for g in _GROUP_RE.findall(run)):
        # 14 or more digits in one group without an international prefix: no
        # national number is that long (GS1 ``(02) 11609174980710``, round 8)
        return False
    first = _GROUP_RE.match(run.lstrip("+("))
    if first is not None and not run.startswith("+") and _unix_time(first.group()):
        return False  # Unix time in seconds or milliseconds (2017-2033), alone or as a run's first group
    if _PHONE_ID_KEY.search(text[max(0, start - 30) : start]):
        return False
    if right and (right.isalnum() or right == "_"):
        return False
    if right in "-./" and right and right2 and right2.isalnum():
        return False
    core = run.lstrip("+(")
    if _DATE_SHAPES.match(core) or _IPV4.match(core):
        return False
    if not run.startswith("+") and _COUNT_RATIO.match(core):
        # "(8881/55091 lines)", "3847/43079": a count over a total; a national
        # number split by "/" opens with its trunk 0 ("089/1234567"; round 11)
        return False
    if _ZIP_PLUS4.match(run) and _STATE_BEFORE.search(text[max(0, start - 6) : start]):
        return False  # a US ZIP+4 after its state ("Brattleboro, VT 05301-4641"; round 10)
    if _id_column(text, start):
        return False  # a CSV/table column headed customer_id, invoice, order... (round 10)
    after_country_code = _COUNTRY_CODE_BEFORE.search(text[max(0, start - 12) : start]) is not None
    if (
        "." in core
        and not any(c in core for c in " -()/")
        and not after_country_code
        and not run.startswith("+")  # "+61.2.4315.5613": no version starts with "+" (round 10)
    ):
        # (after "+33 " a dotted run is the national part: "+33 6.90.65.02.82")
        groups = core.split(".")
        if len(groups) >= 3 and any(len(g) == 1 for g in groups) and not _DOTTED_NANP.match(core):
            return False  # a version such as 10.0.19045.3803 (not 1.505.922.5961: a NANP number)
        if len(groups) == 2 and not _trunk_dotted(groups):
            return False  # a decimal number such as 169.831173
    return True


_ZIP_PLUS4 = re.compile(r"^\d{5}-\d{4}$")
# Two digit groups joined by one "/" with no space, the first without a
# trunk 0: a fraction or count ratio (coverage "8881/55091"), no phone.
_COUNT_RATIO = re.compile(r"^[1-9]\d*/\d+$")
_STATE_BEFORE = re.compile(r"\b[A-Z]{2}[ \t]+$")
_ID_HEADER = re.compile(r"(?i)(?:\b|_)(?:id|ids|ref|reference|invoice|order|account|customer|ticket|sku)$")


def _id_column(text: str, start: int) -> bool:
    """True when the value stands in a table or CSV column whose header names an
    identifier (``customer_id``, ``invoice``) and no phone."""
    header = column_header(text, start)
    if header is None:
        header = _first_column_header(text, start)
    if header is None:
        return False
    header = header.strip().strip("\"'|").strip()
    return _ID_HEADER.search(header) is not None and _PHONE_WORD.search(header) is None


def _first_column_header(text: str, start: int) -> str | None:
    """The first header cell of a CSV block when ``start`` opens its line (quoted
    commas in later cells make :func:`column_header` give up on such rows)."""
    line_start = text.rfind("\n", 0, start) + 1
    if line_start != start or line_start == 0:
        return None
    first = line_start
    for _ in range(200):
        if first == 0:
            break
        prev_start = text.rfind("\n", 0, first - 1) + 1
        if "," not in text[prev_start : first - 1]:
            break
        first = prev_start
    if first == line_start:
        return None
    head = text[first : text.find("\n", first)]
    return None if any(c.isdigit() for c in head) else head.split(",")[0]


def _trunk_dotted(groups: list[str]) -> bool:
    """True for a national number written with one dot after its area code
    (``07463.372782``, ``029.70835``; round 10): a trunk ``0`` then 2+ digits
    before the dot, 8+ digits in all, a shape no decimal number is written in."""
    return groups[0].startswith("0") and len(groups[0]) >= 3 and len(groups[0]) + len(groups[1]) >= 8


# Words that announce a phone number (en, fr, es, de, it, nl), looked for in
# the 40 characters before a digit run.
_PHONE_WORD = re.compile(
    r"(?i)\b(?:phone|tel|tél|telephone|téléphone|teléfono|telefono|telefon|mobile|mobil|móvil|movil|cell|"
    r"cellphone|celular|portable|fax|whatsapp|sms|text\s+me|call|ring|dial|reach|reachable|contact\w*|"
    # round 11: "text Torbjorn on ...", "texting her at ...", "Next of kin: ..."
    r"text(?:ed|ing)?\s+(?:us|him|her|them|(?-i:[A-Z])[\w'’-]+)\s+(?:on|at)|next\s+of\s+kin|"
    r"joindre|appel\w*|rappel\w*|llam\w*|number|numéro|número|nummer|coordonnées|cellulare|bellen|"
    r"anrufen|mob|tlf|tfno)\b"
)


def phone_context(text: str, start: int) -> bool:
    """True when a phone word (``phone``, ``mobile``, ``call``, ``tél``, ``llámame``...)
    stands in the 40 characters before ``start``, or heads the table or CSV
    column the number stands in (:func:`column_header`; round 9)."""
    if _PHONE_WORD.search(text[max(0, start - 40) : start]) is not None:
        return True
    key = _LINE_KEY_BEFORE.search(text[max(0, start - 12) : start])
    if key is not None and key.group(1).lower() in _SHORT_PHONE_KEYS:
        return True  # a signature's "m: 4176103866" (round 10)
    header = column_header(text, start)
    return header is not None and _PHONE_WORD.search(header) is not None


_LINE_KEY_BEFORE = re.compile(r"(?:^|\n)[ \t]*(\w{1,4})\.?[ \t]*:[ \t]*$")
_TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-{3,}")
_COLUMN_SEPARATORS = ("|", ";", "\t", ",")


def column_header(text: str, pos: int) -> str | None:
    """The header of the column ``pos`` stands in, or None.

    A markdown table (``| Nombre | Teléfono |`` then a ``|---|`` rule) or a
    CSV/TSV block (a first line of as many ``,``/``;``/tab-separated cells,
    none holding a digit): the header is the cell of the block's first line
    at the same index as the cell holding ``pos``. Lines are read up to the
    first blank line above ``pos``, at most 200 lines.
    """
    line_start = text.rfind("\n", 0, pos) + 1
    line_end = text.find("\n", pos)
    line = text[line_start : line_end if line_end >= 0 else len(text)]
    for sep in _COLUMN_SEPARATORS:
        if sep not in line:
            continue
        index = line.count(sep, 0, pos - line_start)
        first = line_start
        for _ in range(200):  # walk up to the block's first line
            if first == 0:
                break
            prev_start = text.rfind("\n", 0, first - 1) + 1
            prev = text[prev_start : first - 1]
            if not prev.strip() or sep not in prev:
                break
            first = prev_start
        if first == line_start:
            return None  # the number's own line heads the block: no header above it
        head_end = text.find("\n", first)
        head = text[first:head_end]
        cells = head.split(sep)
        if sep == "|":
            rule = text[head_end + 1 : text.find("\n", head_end + 1)]
            if not _TABLE_RULE.match(rule):
                return None
        elif any(c.isdigit() for c in head) or len(cells) != len(line.split(sep)):
            return None
        return cells[index] if index < len(cells) else None
    return None


def bare_run_ok(text: str, start: int, end: int) -> bool:
    """False for an undelimited run of digits (``4155550134``) without a trunk
    prefix ``0`` and without a phone word before it: such a run is as likely a
    seed, checksum, count or id as a phone number."""
    run = text[start:end]
    if not run.isdigit() or run.startswith("0"):
        return True
    return phone_context(text, start)


def possible_phone_ok(text: str, start: int, end: int) -> bool:
    """Whether a run no numbering plan validates may still be taken as a phone number
    by its shape: an international prefix (``+``, ``00``) or a phone word before it."""
    run = text[start:end].lstrip("(")
    return run.startswith(("+", "00")) or phone_context(text, start)


# --- IPv4 look-alikes -------------------------------------------------------

_COUNTRY_CODE_BEFORE = re.compile(r"(?:\+|\b00)\d{1,3}[ \t\u00a0]?(?:\(0\)[ \t\u00a0]?)?$")
_VERSION_BEFORE = re.compile(r"(?i)\b(?:version|ver\.?|v|release|build|firmware|fw|rev)\s*[:=]?\s*$")


def dotted_quad_not_ip(text: str, start: int, end: int) -> bool:
    """True when the IPv4-shaped ``text[start:end]`` is part of something else.

    - a longer dotted run of digits (``+33 6.65.87.82.76``: a French number
      written with dots; ``1.2.3.4.5``): a digit group joined by a dot on
      either side;
    - the national part of a phone after a country code (``+33 6.65.87.82``,
      ``0033 6.65.87.82``);
    - a version after a version word (``version 1.12.34.56``, ``build 2.0.1.7``).

    An IPv6 match (no dot) is never rejected here.
    """
    if "." not in text[start:end]:
        return False
    if text[end : end + 1] == "." and text[end + 1 : end + 2].isdigit():
        return True
    if start >= 2 and text[start - 1] == "." and text[start - 2].isdigit():
        return True
    before = text[max(0, start - 12) : start]
    return _COUNTRY_CODE_BEFORE.search(before) is not None or _VERSION_BEFORE.search(before) is not None


# --- IBANs typed in lower case ------------------------------------------------

_IBAN_ANY_CASE = re.compile(
    r"(?<![\w])[A-Za-z]{2}\d{2}(?:[A-Za-z0-9]{11,30}|(?:[ \-][A-Za-z0-9]{1,4}){3,8})(?![\w])"
)
_IBAN_GROUP = re.compile(r"[ \-]")


def iban_checksum_ok(compact: str) -> bool:
    """True when ``compact`` (no separators, any case) passes the IBAN mod-97 check (ISO 13616)
    and has an IBAN's length (15-34)."""
    if not 15 <= len(compact) <= 34 or not compact.isalnum() or not compact.isascii():
        return False
    moved = (compact[4:] + compact[:4]).upper()
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


# IBAN countries of the SWIFT IBAN registry that Presidio 2.2's recognizer
# does not list, with their IBAN lengths (registry release 98, 2024): an El
# Salvador IBAN (``SV33 OXHF 2123 ...``) leaked (frozen v4, round 7).
EXTRA_IBAN_LENGTHS: dict[str, int] = {
    "BI": 27, "DJ": 27, "FK": 18, "HN": 28, "MN": 20, "NI": 28, "OM": 23, "RU": 33, "SD": 18,
    "SO": 23, "ST": 25, "SV": 28, "YE": 30,
}  # fmt: skip
# Every country of the registry (release 98, 2024) with its IBAN length.
# Presidio's per-country patterns are narrower than the registry for some
# (its Palestine pattern wants 21 digits where the registry has 21
# alphanumerics: ``PS90 IXRJ L97P V79G ...`` leaked, spent v6, round 9), so
# the registry's length and the mod-97 check decide for every country.
REGISTRY_IBAN_LENGTHS: dict[str, int] = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
    "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28,
    "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23,
    "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26,
    "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20,
    "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30,
    "NL": 18, "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22,
    "SA": 24, "SC": 31, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "TL": 23, "TN": 24, "TR": 26,
    "UA": 29, "VA": 22, "VG": 24, "XK": 20,
    **EXTRA_IBAN_LENGTHS,
}  # fmt: skip
# Countries outside the SWIFT registry whose banks issue ISO 13616 IBANs in
# practice, with the length of their national format (round 10: Senegalese,
# Moroccan, Cameroonian and Equatorial Guinean IBANs leaked, spent v7). The
# BCEAO's UEMOA members (BJ BF CI ML NE SN TG: 28, bank code of a letter and
# 4 digits; GW: 25), the BEAC's CEMAC members (CM CF TD CG GQ GA: 27) and
# the Comoros (27), Morocco (28, the RIB's 24 digits), Algeria (26),
# Madagascar (27), Angola, Cape Verde and Mozambique (25) and Iran (26), as
# the ECBS/Nordea "experimental IBAN" lists give them. Length and mod-97
# decide, as for the registry: a random 25-28 character run passes both with
# odds of about 1 in 97 after its country code and length already matched.
NON_REGISTRY_IBAN_LENGTHS: dict[str, int] = {
    "BJ": 28, "BF": 28, "CI": 28, "ML": 28, "NE": 28, "SN": 28, "TG": 28, "GW": 25,
    "CM": 27, "CF": 27, "TD": 27, "CG": 27, "GQ": 27, "GA": 27, "KM": 27,
    "MA": 28, "DZ": 26, "MG": 27, "AO": 25, "CV": 25, "MZ": 25, "IR": 26,
}  # fmt: skip
KNOWN_IBAN_LENGTHS: dict[str, int] = {**REGISTRY_IBAN_LENGTHS, **NON_REGISTRY_IBAN_LENGTHS}
_EXTRA_IBAN = re.compile(
    rf"(?<![\w])(?:{'|'.join(KNOWN_IBAN_LENGTHS)})\d{{2}}(?:[A-Z0-9]{{11,30}}|(?:[ \-][A-Z0-9]{{1,4}}){{3,8}})(?![\w])"
)


@dataclass(frozen=True, slots=True)
class IbanMatch:
    """An IBAN found in a text: code point offsets ``[start, end)``."""

    start: int
    end: int


def find_extra_ibans(text: str) -> list[IbanMatch]:
    """IBANs (upper case, grouped by 4 or not) of every country in
    :data:`KNOWN_IBAN_LENGTHS` (the registry's and the non-registry countries
    of :data:`NON_REGISTRY_IBAN_LENGTHS`): the country's length and the mod-97 check
    (ISO 13616) decide, whatever Presidio's per-country pattern says, trimmed
    to whole groups (``SV33 ... 9609 pour``)."""
    out: list[IbanMatch] = []
    for m in _EXTRA_IBAN.finditer(text):
        raw = m.group()
        cuts = [len(raw)] + [i for i in range(len(raw) - 1, 4, -1) if raw[i] in " -"]
        for cut in cuts:
            compact = _IBAN_GROUP.sub("", raw[:cut])
            if len(compact) == KNOWN_IBAN_LENGTHS[compact[:2]] and iban_checksum_ok(compact):
                out.append(IbanMatch(m.start(), m.start() + cut))
                break
    return out


def uppercase_ibans(text: str) -> str:
    """``text`` with every IBAN typed in lower or mixed case (``fr76 3000 6000 0112
    3456 7890 189``) upper-cased in place (same length, same offsets).

    The IBAN recognizer matches upper case only (matched case-insensitively,
    its last group swallowed a following word and every candidate failed
    validation); an IBAN typed in lower case leaked. A candidate is
    upper-cased only when it passes the mod-97 check, trimmed to the longest
    run of whole groups that does (``fr76 ... 189 pour``: not ``pour``), so
    the recognizer still validates what it then matches.
    """
    out: list[str] | None = None
    for m in _IBAN_ANY_CASE.finditer(text):
        raw = m.group()
        if not any(c.islower() for c in raw):
            continue  # upper case: the recognizer reads it as it is
        end = _iban_end(raw)
        if end is None:
            continue
        if out is None:
            out = list(text)
        out[m.start() : m.start() + end] = raw[:end].upper()
    return text if out is None else "".join(out)


def _iban_end(raw: str) -> int | None:
    """Length of the longest prefix of ``raw`` made of whole groups that is a valid IBAN."""
    cuts = [len(raw)] + [i for i in range(len(raw) - 1, 4, -1) if raw[i] in " -"]
    for cut in cuts:
        if iban_checksum_ok(_IBAN_GROUP.sub("", raw[:cut])):
            return cut
    return None
