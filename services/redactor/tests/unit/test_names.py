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


def test_listed_first_names_start_a_name_with_the_words_after_them():
    from tollway_redactor.names import gazetteer_names

    def names(text: str) -> list[str]:
        return [text[s.start : s.end] for s in gazetteer_names(text)]

    assert names("Please cc Imogen Farrow and Keisha Mbeki on the reply.") == [
        "Imogen Farrow",
        "Keisha Mbeki",
    ]
    assert names("Ask for Jasper at the front desk.") == ["Jasper"]
    assert names("from Tamsin Vance today") == ["Tamsin Vance"]  # an unlisted first name before a listed one
    assert names("Grace Kelly starred in the film.") == ["Grace Kelly"]  # ambiguous + listed surname
    # everyday words, places, software, nationalities alone are no names
    assert names("Will you check the May invoice before Friday?") == []
    assert names("Our Paris and Austin offices close early in August.") == []
    assert names("Grace period ends on Monday; Summer Sale starts in June.") == []
    assert names("Translate to German: the parcel is late.") == []
    assert names("What is the capital of France? And of Chad, or of Texas?") == []
    # not inside e-mails, identifiers, CamelCase or paths
    assert names("mail imogen.Farrow@x.org, class JasperHandler, /home/Jasper/x") == []


def test_a_lone_place_that_is_also_a_given_name_is_no_person():
    text = "our Austin office"
    assert not plausible_person(text, Span("PERSON", 4, 10, 0.85))
    assert plausible_person("ask Grace", Span("PERSON", 4, 9, 0.85))
