"""Placeholder numbering, overlap resolution and anonymisation (pure)."""

from __future__ import annotations

import itertools
import random

import pytest

from tollway_redactor.detection import PlaceholderAllocator, Span, anonymise, anonymise_all, resolve_overlaps

pytestmark = pytest.mark.unit


def test_same_value_same_placeholder_across_texts_and_numbering_in_order():
    texts = [
        "Jane Roe met Bob Stone.",
        "Bob Stone wrote to jane roe and Carl.",
        "Card 4111 1111 1111 1111 / 4111111111111111",
    ]
    spans = [
        [Span("PERSON", 0, 8, 0.85), Span("PERSON", 13, 22, 0.85)],
        [Span("PERSON", 0, 9, 0.85), Span("PERSON", 19, 27, 0.85), Span("PERSON", 32, 36, 0.85)],
        [Span("CREDIT_CARD", 5, 24, 1.0), Span("CREDIT_CARD", 27, 43, 1.0)],
    ]
    out = anonymise_all(texts, spans)
    assert [o[0] for o in out] == [
        "<PERSON_1> met <PERSON_2>.",
        "<PERSON_2> wrote to <PERSON_1> and <PERSON_3>.",
        "Card <CREDIT_CARD_1> / <CREDIT_CARD_1>",
    ]
    assert [r.placeholder for r in out[1][1]] == ["<PERSON_2>", "<PERSON_1>", "<PERSON_3>"]


def test_numbering_is_per_type():
    a = PlaceholderAllocator()
    assert a.placeholder("PERSON", "A") == "<PERSON_1>"
    assert a.placeholder("EMAIL_ADDRESS", "a@x.io") == "<EMAIL_ADDRESS_1>"
    assert a.placeholder("PERSON", "B") == "<PERSON_2>"
    assert a.placeholder("PERSON", " a ") == "<PERSON_1>"


def test_overlaps_resolved_by_score_then_length():
    spans = [
        Span("PERSON", 0, 10, 0.6),
        Span("LOCATION", 5, 15, 0.85),  # higher score wins
        Span("EMAIL_ADDRESS", 20, 40, 0.9),
        Span("URL", 25, 40, 0.9),  # same score: longer wins
        Span("PHONE_NUMBER", 40, 50, 0.4),  # adjacent to the email: kept
    ]
    kept = resolve_overlaps(spans)
    assert kept == [
        Span("LOCATION", 5, 15, 0.85),
        Span("EMAIL_ADDRESS", 20, 40, 0.9),
        Span("PHONE_NUMBER", 40, 50, 0.4),
    ]


def test_overlap_resolution_does_not_depend_on_input_order():
    rng = random.Random(7)
    spans = [
        Span(rng.choice("ABC"), s, s + rng.randint(1, 9), rng.choice([0.4, 0.6, 0.85, 1.0]))
        for s in (rng.randint(0, 60) for _ in range(25))
    ]
    expected = resolve_overlaps(spans)
    for _ in range(50):
        rng.shuffle(spans)
        assert resolve_overlaps(spans) == expected
    for a, b in itertools.pairwise(expected):
        assert a.end <= b.start


@pytest.mark.parametrize("seed", range(30))
def test_text_around_detections_never_corrupted(seed):
    rng = random.Random(seed)
    text = "".join(rng.choice("ab <>_é😀\n") for _ in range(80))
    spans = [
        Span(rng.choice(["PERSON", "EMAIL_ADDRESS"]), s, s + rng.randint(0, 12), rng.random())
        for s in (rng.randint(0, 85) for _ in range(12))
    ]
    anon, reps = anonymise(text, spans, PlaceholderAllocator())
    # rebuild the original from the replacements: every untouched character is in place
    rebuilt, cursor = [], 0
    for r in reps:
        rebuilt.append(text[cursor : r.span.start] + text[r.span.start : r.span.end])
        cursor = r.span.end
    rebuilt.append(text[cursor:])
    assert "".join(rebuilt) == text
    # the anonymised text is the gaps + placeholders, in order
    expected, cursor = [], 0
    for r in reps:
        expected += [text[cursor : r.span.start], r.placeholder]
        cursor = r.span.end
    expected.append(text[cursor:])
    assert anon == "".join(expected)
    assert all(r.span.end <= len(text) for r in reps)


def test_adjacent_detections_both_replaced():
    text = "JaneRoe@x.io"
    anon, _ = anonymise(
        text, [Span("PERSON", 0, 7, 0.85), Span("EMAIL_ADDRESS", 0, 12, 1.0)], PlaceholderAllocator()
    )
    assert anon == "<EMAIL_ADDRESS_1>"
    anon, _ = anonymise("AB", [Span("X", 0, 1, 0.5), Span("Y", 1, 2, 0.5)], PlaceholderAllocator())
    assert anon == "<X_1><Y_1>"
