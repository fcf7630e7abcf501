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


# Words that commonly open a sentence and are not names: a sentence whose only
# capitalised word is one of these (or "I") does not need NER.
OPENERS = STOP_WORDS | frozenset(
    """
    What How Why When Where Who Which Whose Could Would Should Can Will Do Does Did Have Has Had
    Yes No Ok Okay Sure Then Now Let Make Give Show Explain List Generate Create Keep Last Next
    First Second Finally Just Maybe Because Since While Although However After Before Also Not
    Is Are Was Were Be Been Am Any Some Every Each Other Another Many Much More Most One Two Three
    Its It's I'm I've I'll I'd Don't Can't Won't Isn't There's That's What's Let's Here's
    Use Add Remove Update Change Check Find Help Need Want Try Read See Look Note Remember Thanks
    """.split()
)
_SENTENCE = re.compile(r"[^\n]+?(?:[.!?]+(?=\s|$)|\n|$)")  # a dot inside an e-mail does not end it
_CAP_WORD = re.compile(r"(?<![\w@.])[A-Z][a-zà-ÿß'’]+")


def ner_segments(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the sentences of ``text`` that may hold a name.

    A sentence qualifies when it has a capitalised word (``[A-Z][a-z]+``,
    not inside an e-mail or identifier) that is not in :data:`OPENERS`.
    Text with no such word (lower-case chat, code, numbers) skips NER: the
    small model finds almost no names there (measured in
    ``docs/redaction-eval.md``).
    """
    out: list[tuple[int, int]] = []
    for m in _SENTENCE.finditer(text):
        if any(w.group() not in OPENERS for w in _CAP_WORD.finditer(m.group())):
            if out and out[-1][1] == m.start():
                out[-1] = (out[-1][0], m.end())  # merge neighbours: fewer, longer NER calls
            else:
                out.append((m.start(), m.end()))
    return out
