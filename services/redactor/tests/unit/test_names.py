"""PERSON heuristics around the small model (pure)."""

from __future__ import annotations

import pytest

from tollway_redactor.detection import Span
from tollway_redactor.names import cue_names, extend_person, plausible_person

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Dear Priya Wang, thank you for your order", ["Priya Wang"]),
        ("thanks Fatima Park! also", ["Fatima Park"]),
        ("Hi Team, the build is red", []),
        ("my name is Lukas and I need help", ["Lukas"]),
        ("attn: Omar Hassan", ["Omar Hassan"]),
        ("see you soon, love Emma", ["Emma"]),
        ("hi there", []),
    ],
)
def test_cue_names(text, names):
    assert [text[s.start : s.end] for s in cue_names(text)] == names


def test_extend_person_over_adjacent_capitalised_word_only():
    text = "Dear Beatriz Tanaka, call Omar"
    assert extend_person(text, Span("PERSON", 13, 19, 0.85)) == Span("PERSON", 5, 19, 0.85)
    # "Dear" and "call" are stop words: never absorbed
    assert extend_person(text, Span("PERSON", 26, 30, 0.85)) == Span("PERSON", 26, 30, 0.85)


def test_plausible_person():
    text = "expiry 09/27 for Jane"
    assert not plausible_person(text, Span("PERSON", 0, 12, 0.85))
    assert plausible_person(text, Span("PERSON", 17, 21, 0.85))


def test_ner_segments_select_sentences_that_may_hold_a_name():
    from tollway_redactor.names import ner_segments

    text = (
        "Hi, I'm Priya Sharma and I need help. You can reach me at priya.sharma@example.com today. "
        "The invoice was paid. My manager Sean Murphy asked.\nkeep it short"
    )
    picked = [text[a:b].strip() for a, b in ner_segments(text)]
    assert picked == ["Hi, I'm Priya Sharma and I need help.", "My manager Sean Murphy asked."]
    assert ner_segments("what is the capital of france?") == []
    assert ner_segments("") == []
