"""Overlapping windows (no entity at an edge is lost) and language/script detection."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tollway_redactor.detection import Span
from tollway_redactor.languages import LanguageDetector, cue_language, foreign_script_runs
from tollway_redactor.names import trim_labels
from tollway_redactor.windows import plan_windows

pytestmark = pytest.mark.unit


@given(
    length=st.integers(0, 5_000),
    size=st.integers(250, 1_200),
    overlap=st.integers(2, 120),
    data=st.data(),
)
def test_every_short_entity_is_owned_by_exactly_one_window_that_holds_it(length, size, overlap, data):
    windows = plan_windows(length, size, overlap)
    assert windows[0].start == 0 and windows[-1].end == length
    assert all(w.end - w.start <= size for w in windows)
    assert all(a.own_end == b.own_start for a, b in zip(windows, windows[1:], strict=False))
    if length == 0:
        return
    start = data.draw(st.integers(0, length - 1))
    end = data.draw(st.integers(start + 1, min(length, start + overlap // 2) if overlap >= 2 else start + 1))
    owners = [w for w in windows if w.own_start <= start < w.own_end]
    assert len(owners) == 1
    assert owners[0].start <= start and end <= owners[0].end


def test_window_edges_move_to_whitespace():
    text = ("word " * 400).strip()
    for w in plan_windows(len(text), 300, 40, text)[:-1]:
        assert text[w.end - 1] == " "


def test_plan_rejects_bad_sizes():
    with pytest.raises(ValueError):
        plan_windows(10, 100, 60)


def test_foreign_script_runs():
    text = "Please tell 山田太郎 that Иван Петров called about the μs timer"
    runs = [(text[r.start : r.end], r.script) for r in foreign_script_runs(text)]
    assert runs == [("山田太郎", "Han"), ("Иван Петров", "Cyrillic")]
    assert foreign_script_runs("Café crème, Müller, Ñandú, Łódź") == []


@pytest.fixture(scope="module")
def detector() -> LanguageDetector:
    return LanguageDetector()


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Please write a short note to my landlord about the broken heater.", "en"),
        ("Bonjour, je voudrais résilier mon abonnement avant la fin du mois.", "fr"),
        ("Hola, quiero cambiar la dirección de envío de mi pedido, por favor.", "es"),
        ("Hallo, ich möchte meine Bestellung stornieren und das Geld zurück.", "de"),
        ("ok", None),
        ("uuid=57a6d9c4-74e7-394e-8e97-d46ae54d4b8f status=ok", None),
    ],
)
def test_language_detection(detector, text, lang):
    assert detector.detect(text) == lang


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Je suis Jean Martin.", "fr"),
        ("Bonjour Camille", "fr"),
        ("Merci", "fr"),
        ("Me llamo Pedro Ruiz.", "es"),
        ("Hola María", "es"),
        ("¿Puedes traducir esto?", "es"),
        ("My name is Camille Dubois", "en"),
        ("Bonjour is French for hello", "en"),  # more English cues than French ones
        ("Camille Dubois", None),  # names alone: no cue, read as English
        ("ok", None),
        ("María", None),  # half a cue (a letter Spanish writes) is not enough
    ],
)
def test_short_texts_by_cues(detector, text, lang):
    """Texts too short for Lingua (or that it cannot tell) go by cue words and
    letters; no cue (or a tie) leaves them undetermined: the English model."""
    assert cue_language(text) == lang
    assert detector.detect(text) == lang


def test_cues_are_limited_to_the_candidates():
    only_en = LanguageDetector(candidates=["en", "fr"])
    assert only_en.detect("Hola María") is None  # es is not a candidate: not reported
    assert only_en.detect("Bonjour Camille") == "fr"


def test_labels_are_never_names():
    text = "Tel. Jane Roe"
    assert trim_labels(text, Span("PERSON", 0, 13, 0.85)) == Span("PERSON", 5, 13, 0.85)
    assert trim_labels("Tel.", Span("PERSON", 0, 4, 0.85)) is None
    assert trim_labels("Kafka", Span("PERSON", 0, 5, 0.85)) is None
