"""Pure detection logic: overlap resolution, placeholder numbering, anonymisation.

No I/O and no model here; the engine (``engine.py``) produces raw spans and
these functions turn them into the answer of ``POST /v1/redact``.

Rules (from the redaction issue):

- Overlapping detections are resolved deterministically: the higher score
  wins, then the longer span, then the earlier start, then the entity type
  name. Adjacent spans (one ends where the next starts) both survive.
- Placeholders are typed and numbered per request, ``<PERSON_1>``; the same
  value (after a light normalisation) gets the same placeholder in every
  text of the request; numbers are assigned in text order, then offset order.
- Text outside detections is copied unchanged, byte for byte.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Span:
    """A raw detection: entity type, code point offsets ``[start, end)``, score 0..1."""

    entity_type: str
    start: int
    end: int
    score: float

    @property
    def length(self) -> int:
        """Length of the span in code points."""
        return self.end - self.start


@dataclass
class TextAnalysis:
    """What the detector found in one text.

    Attributes:
        spans: non-overlapping detections sorted by start (code points).
        language: detected ISO 639-1 code (lower case) of the text, None when
            undetermined (short or mixed text: the default model was used).
        language_policy: ``supported`` when a configured model covered all
            of the text, else the policy applied (``block``,
            ``patterns_only``, ``pass``).
    """

    spans: list[Span] = field(default_factory=list)
    language: str | None = None
    language_policy: str = "supported"


def resolve_overlaps(spans: Iterable[Span]) -> list[Span]:
    """Keep a non-overlapping subset of ``spans``, sorted by start.

    Greedy by priority: higher score, then longer span, then earlier start,
    then entity type (so the result never depends on input order). Empty or
    inverted spans are dropped. Adjacent spans do not overlap.

    Returns:
        The kept spans sorted by ``start``.
    """
    ordered = sorted(
        (s for s in spans if s.end > s.start and s.start >= 0),
        key=lambda s: (-s.score, -s.length, s.start, s.entity_type, s.end),
    )
    starts: list[int] = []
    kept: list[Span] = []  # parallel to starts, sorted by start
    for span in ordered:
        i = bisect.bisect_left(starts, span.start)
        # the kept span starting at or after span.start must start at/after span.end
        if i < len(kept) and kept[i].start < span.end:
            continue
        # the kept span starting before span.start must end at/before span.start
        if i > 0 and kept[i - 1].end > span.start:
            continue
        starts.insert(i, span.start)
        kept.insert(i, span)
    return kept


_DIGITS_TYPES = frozenset(
    {"PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "US_SSN", "US_BANK_NUMBER", "US_PASSPORT"}
)
_NOT_ALNUM = re.compile(r"[\W_]+", re.UNICODE)
_SPACES = re.compile(r"\s+")


def normalise_value(entity_type: str, value: str) -> str:
    """The identity of a detected value for placeholder numbering.

    Number-like types ignore spaces and punctuation ("4111 1111 1111 1111"
    is the same card as "4111111111111111"); other types ignore case and
    collapse whitespace ("John  Smith" == "john smith").
    """
    if entity_type in _DIGITS_TYPES:
        return _NOT_ALNUM.sub("", value).casefold()
    return _SPACES.sub(" ", value.strip()).casefold()


@dataclass(slots=True)
class PlaceholderAllocator:
    """Hands out ``<TYPE_N>`` placeholders for one request.

    ``counters`` holds the last number used per type; ``assigned`` maps
    ``(type, normalised value)`` to its placeholder.
    """

    counters: dict[str, int] = field(default_factory=dict)
    assigned: dict[tuple[str, str], str] = field(default_factory=dict)

    def placeholder(self, entity_type: str, value: str) -> str:
        """The placeholder for ``value`` of ``entity_type``, allocating a new number if unseen."""
        key = (entity_type, normalise_value(entity_type, value))
        found = self.assigned.get(key)
        if found is not None:
            return found
        n = self.counters.get(entity_type, 0) + 1
        self.counters[entity_type] = n
        made = f"<{entity_type}_{n}>"
        self.assigned[key] = made
        return made


@dataclass(frozen=True, slots=True)
class Replacement:
    """A kept span and the placeholder that replaced it."""

    span: Span
    placeholder: str


def anonymise(
    text: str, spans: Sequence[Span], allocator: PlaceholderAllocator
) -> tuple[str, list[Replacement]]:
    """Replace each span of ``text`` by its placeholder.

    Args:
        text: the original text.
        spans: detections for ``text``; overlaps are resolved here first, so
            any list is safe.
        allocator: the request's allocator (shared across its texts).

    Returns:
        ``(anonymised text, replacements sorted by start)``.
    """
    kept = resolve_overlaps(spans)
    pieces: list[str] = []
    out: list[Replacement] = []
    cursor = 0
    for span in kept:
        if span.end > len(text):
            continue  # a stale cached span can never cut outside the text
        placeholder = allocator.placeholder(span.entity_type, text[span.start : span.end])
        pieces.append(text[cursor : span.start])
        pieces.append(placeholder)
        cursor = span.end
        out.append(Replacement(span, placeholder))
    pieces.append(text[cursor:])
    return "".join(pieces), out


def anonymise_all(
    texts: Sequence[str], spans_per_text: Sequence[Sequence[Span]]
) -> list[tuple[str, list[Replacement]]]:
    """Anonymise every text of one request with one shared allocator.

    Numbering follows text order, then offset order, so the same request
    always yields the same placeholders.
    """
    allocator = PlaceholderAllocator()
    return [anonymise(t, s, allocator) for t, s in zip(texts, spans_per_text, strict=True)]
