"""Issue 11, round 14: the largest PERSON miss class of the spent v11 that a
structural rule reaches — the items of a JSON array of people
(``"watchers": ["Soyeon W.", "paramjit wetherell"]``). The rule alone (pure)
and through the real detector, and the round-14 tuning files."""

from __future__ import annotations

import pytest

from tollway_redactor.detection import Span
from tollway_redactor.engine import Detector
from tollway_redactor.names import json_list_names, table_names

from .conftest import assert_tuning_files_reproduce, found, load_eval_module


def _names(text: str, spans: list[Span] | None = None) -> list[str]:
    return [text[s.start : s.end] for s in json_list_names(text, spans or [])]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ('{"watchers": ["Ezinne K.", "lorcan pettigrew"]}', ["Ezinne K.", "lorcan pettigrew"]),
        ('{"copia": ["Nerea U.", "aitziber larrañaga"]}', ["Nerea U.", "aitziber larrañaga"]),
        ('{"en_copie": ["Gurvan P.", "ronan le goff"]}', ["Gurvan P.", "ronan le goff"]),
        ('{"reviewers": ["Ifeoma Strachan", "Wendeline T."]}', ["Ifeoma Strachan", "Wendeline T."]),
        ('{\\"followers\\": [\\"Oisín Treharne\\"]}', ["Oisín Treharne"]),  # JSON inside a string
    ],
)
def test_items_of_an_array_under_a_key_of_people_are_names(text: str, names: list[str]) -> None:
    assert _names(text) == names


def test_an_array_with_a_found_name_makes_its_other_items_names() -> None:
    text = '{"team": ["Ysolde Penhallow", "Ikaika R."], "sprint": 31}'
    first = Span("PERSON", text.index("Ysolde"), text.index("Ysolde") + len("Ysolde Penhallow"), 0.85)
    assert _names(text) == []  # "team" alone names no people
    assert _names(text, [first]) == ["Ysolde Penhallow", "Ikaika R."]


@pytest.mark.parametrize(
    "text",
    [
        '{"tags": ["urgent", "billing", "follow up"], "priority": 2}',
        '{"reviewers": ["backend team", "release managers"], "pr": 88}',
        '{"watchers": ["ops-oncall", "#payments"], "ticket": "TK/1/A"}',
        '{"copia": ["equipo de ventas", "contabilidad"]}',
        '{"en_copie": ["service client", "comptabilité"]}',
        '{"owners": ["@platform", "@security"], "path": "src/"}',
        '{"watchers": ["Ezinne K.", 42]}',  # not an array of strings
    ],
)
def test_arrays_of_teams_tags_and_handles_stay_unmatched(text: str) -> None:
    assert _names(text) == []


def test_round14_names_through_the_detector(detector: Detector) -> None:
    text = (
        '{"assignee": "Tamsin Rowbotham", "watchers": ["Ezinne K.", "lorcan pettigrew"], "ticket": "TK/88/Q"}'
    )
    assert found(detector, text) == [
        ("PERSON", "Tamsin Rowbotham"),
        ("PERSON", "Ezinne K."),
        ("PERSON", "lorcan pettigrew"),
    ]
    assert found(detector, '{"labels": ["Good First Issue", "Help Wanted"]}') == []


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("ref,given,family,phone\n41,Wenonah,Trevaskis,+44 7700 900123", ["Wenonah", "Trevaskis"]),
        ("| name | role |\n|---|---|\n| Goikoetxea, Ainhoa | driver |", ["Goikoetxea, Ainhoa"]),
        ("titulaire\tdossier\nKerjean, Maëlys\tDOS/2231/B\n", ["Kerjean, Maëlys"]),
    ],
)
def test_given_family_columns_and_last_comma_first_cells_are_names(text: str, names: list[str]) -> None:
    assert [t for t in table_names_found(text)] == names


@pytest.mark.parametrize(
    "text",
    [
        "given,family,count\nGood,Bad,3",
        "family\tmembers\nRosaceae\t4800",
        "| name | role |\n|---|---|\n| Build, Test | step |",
    ],
)
def test_everyday_words_in_name_columns_stay_unmatched(text: str) -> None:
    assert table_names_found(text) == []


def table_names_found(text: str) -> list[str]:
    return [text[s.start : s.end] for s in table_names(text)]


def test_round14_tuning_files_reproduce() -> None:
    labelled, free = load_eval_module("round14").build()
    assert_tuning_files_reproduce({"round14.jsonl": labelled, "pii_free_round14.jsonl": free})
