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


@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [
        ("goroutine 7 [running]:\nmain.(*Server).handle(0xc000a5, 0x1)", "Server", True),
        ("class LedgerRepository(BaseModel):", "LedgerRepository(BaseModel", True),
        ("at Contoso.Orders.OrderProcessor.Process(Order order)", "OrderProcessor", True),
        ("JacksonObjectMapper is slow", "JacksonObjectMapper", True),  # CamelCase
        ("ExponentialBackoff(initial = 200, max = 5)", "max", True),  # assigned to
        ("Fri, 17 Jan 2026 14:28:38 +0000 cron[7]", "Jan", True),  # a date
        ("ETA 19 Sep, parcel 3/10", "Sep", True),
        ("deposit: SE71 6446 (Rosamund Brannigan).", "Rosamund Brannigan", False),  # parentheses
        ("name=Thaddeus Okonkwo; phone=0117 934 2275", "Thaddeus Okonkwo", False),  # key=value
        ('{"name": "Aiko Mori"}', "Aiko Mori", False),
        ("**Attendees:** Jan Novak", "Jan Novak", False),
        ("ask Jan about it", "Jan", False),  # no number beside it
        ("lunch with Connor McKenzie", "McKenzie", False),  # a surname prefix, not CamelCase
    ],
)
def test_code_and_dates_are_no_names(text, value, expected):
    from tollway_redactor.names import code_or_date

    start = text.index(value)
    assert code_or_date(text, Span("PERSON", start, start + len(value), 0.85)) is expected


def test_one_everyday_word_is_no_name():
    from tollway_redactor.names import everyday_word

    text = "¿Qué es mejor, Python o Rust? Ask Maria."
    assert everyday_word(text, Span("PERSON", 1, 4, 0.85))
    assert not everyday_word(text, Span("PERSON", 34, 39, 0.85))  # a listed first name


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("pls ask maria gonzalez to send the deck", ["maria gonzalez"]),
        ("remind james wilson that the car is due", ["james wilson"]),
        ("the build will mark the release as done", []),  # everyday words
        ("restart kafka and redis on node two", []),
        ("see parse_invoice_lines and maria.gonzalez@example.com", []),  # identifiers, e-mails
    ],
)
def test_lower_case_first_and_last_names(text, names):
    from tollway_redactor.names import lowercase_names

    assert [text[s.start : s.end] for s in lowercase_names(text)] == names


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Please cc Wanjiru Kamau on the thread.", ["Wanjiru Kamau"]),
        ("write a follow-up thanking them for the intro to Soo-jin Park.", ["Soo-jin Park"]),
        ("Attendees: Oyelaran Bello, Kwabena and me.", ["Oyelaran Bello"]),
        ("merci de prévenir Anouk Ferrand la veille", ["Anouk Ferrand"]),
        ("avisa a Nahia Goikoetxea por favor", ["Nahia Goikoetxea"]),
        ("Ask Google Assistant to set a timer", []),  # "ask", "tell", "contact" take products too
        ("How do I contact Microsoft Support?", []),
        ("invite Monday standup attendees", []),  # a stop word ends the name before it starts
        ("we met Lisbon-based founders", []),
    ],
)
def test_names_after_a_verb_that_takes_a_person(text, names):
    from tollway_redactor.names import context_names

    assert [text[s.start : s.end] for s in context_names(text)] == names


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Best regards,\nHannah Kleinschmidt\nHead of Finance", ["Hannah Kleinschmidt"]),
        ("Cordialement,\nFrançoise Dumont", ["Françoise Dumont"]),
        ("Chère Madame Lefort, merci.", ["Lefort"]),
        ("Un saludo,\nBeatriz Lozano", ["Beatriz Lozano"]),
        ("Estimada señora Quiroga, le escribo", ["Quiroga"]),
    ],
)
def test_sign_offs_and_titles_of_three_languages_are_cues(text, names):
    assert [text[s.start : s.end] for s in cue_names(text)][-len(names) :] == names


def test_an_unlisted_given_name_before_a_listed_surname():
    from tollway_redactor.names import gazetteer_names

    text = "Forward it to Tamsin Fitzpatrick today."
    assert [text[s.start : s.end] for s in gazetteer_names(text)] == ["Tamsin Fitzpatrick"]
    # an everyday word before a surname is no given name
    text = "Open Fitzpatrick files first."
    assert [text[s.start : s.end] for s in gazetteer_names(text)] == []


def test_a_name_never_spans_lines():
    from tollway_redactor.names import first_line

    text = "Best regards,\nHannah Kleinschmidt\nHead of Finance"
    end = text.index(" of")
    for start in (text.index("Hannah"), text.index(",")):
        s = first_line(text, Span("PERSON", start, end, 0.85))
        assert text[s.start : s.end] == "Hannah Kleinschmidt"
    assert extend_person(text, Span("PERSON", 14, 20, 0.85)) == Span("PERSON", 14, 33, 0.85)
