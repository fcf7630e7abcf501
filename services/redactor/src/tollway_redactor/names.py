"""Cheap PERSON heuristics around the small NER model (pure, no model).

``en_core_web_sm`` misses or truncates names that chat users type every day.
Three regex rules, applied only when the policy asks for PERSON:

- :func:`cue_names` — a capitalised name right after a strong cue word
  ("Dear", "Hi", "Thanks", "my name is", "attn", "beneficiary", "Mr", a
  sign-off like "love"/"regards"), score :data:`CUE_SCORE`.
- :func:`extend_person` — an NER PERSON span grows over one adjacent
  capitalised word that is not a function or greeting word ("Beatriz"
  + "Tanaka" when the model tagged only "Tanaka").
- :func:`plausible_person` — drop PERSON spans containing a digit or "@" (no
  personal name does; the small model tags "expiry 09/27" or a postcode).

These were written after reading the misses on the main evaluation set; the
held-out set (different templates) measures how far they generalise
(``docs/redaction-eval.md``).
"""

from __future__ import annotations

import re

from tollway_redactor.detection import Span

CUE_SCORE = 0.6

_NAME_WORD = r"[A-Z][a-zà-ÿß]+(?:[-'’][A-Z]?[a-zà-ÿß]+)*"
STOP_WORDS = frozenset(
    """
    A An The And Or But If So Of In On At To For From With By About As Into Is Are Was Were Be
    I We You He She They It My Our Your His Her Their This That These Those There Here
    Dear Hi Hello Hey Thanks Thank Please Cheers Regards Best Love Sincerely Yours
    Mr Mrs Ms Miss Dr Prof Sir Madam Team All Everyone Guys Folks Again Also Attn Attention
    Call Ask Tell Email Mail Send Ship Write Draft Contact Customer Colleague Summarise Summarize
    Translate Fix Forward Transfer Wire Refund Parcel Order Log Good Morning Evening Afternoon
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June
    July August September October November December Street Road Avenue Lane Drive Court Way Place
    """.split()
)

_CUE = re.compile(
    r"(?:(?<=\W)|^)(?i:dear|hi|hello|hey|thanks|thank\s+you|attn\.?|attention|beneficiary|"
    r"my\s+name\s+is|i\s+am|i'm|i’m|this\s+is|mr\.?|mrs\.?|ms\.?|dr\.?|prof\.?|"
    r"love|regards|cheers|best|sincerely)[,:]?\s+"
    rf"(?P<name>{_NAME_WORD}(?:\s+{_NAME_WORD}){{0,2}})"
)
_LEFT_WORD = re.compile(rf"(?:(?<=\s)|^)({_NAME_WORD})\s+$")
_RIGHT_WORD = re.compile(rf"^\s+({_NAME_WORD})(?=\W|$)")
_NOT_NAME = re.compile(r"[\d@]")


def cue_names(text: str) -> list[Span]:
    """PERSON spans for capitalised words after a cue word; stop words end the name."""
    out: list[Span] = []
    for m in _CUE.finditer(text):
        base = m.start("name")
        end = None
        for w in re.finditer(r"\S+", m.group("name")):
            if w.group() in STOP_WORDS:
                break
            end = base + w.end()
        if end is not None:
            out.append(Span("PERSON", base, end, CUE_SCORE))
    return out


def extend_person(text: str, span: Span) -> Span:
    """``span`` grown over one capitalised non-stop word on each side, if any."""
    start, end = span.start, span.end
    left = _LEFT_WORD.search(text[max(0, start - 40) : start])
    if left and left.group(1) not in STOP_WORDS:
        start -= len(left.group(0))
    right = _RIGHT_WORD.match(text[end : end + 40])
    if right and right.group(1) not in STOP_WORDS:
        end += len(right.group(0))
    if (start, end) == (span.start, span.end):
        return span
    return Span(span.entity_type, start, end, span.score)


def plausible_person(text: str, span: Span) -> bool:
    """False for a PERSON span with a digit or '@' in it."""
    return not _NOT_NAME.search(text[span.start : span.end])
