"""Round-14 development material (issue 11): the JSON-array miss class of the spent v11.

Writes two tuning files (deterministic):

- ``eval/tuning/round14.jsonl``: labelled messages of the round-14 recall
  class — PERSON items of a JSON array of people (``"watchers"``,
  ``"copia"``, ``"en_copie"``, ``"reviewers"``...), with no cue word inside
  the array: ``First L.``, lower-case ``first last``, capitalised pairs, in
  en/es/fr, the key naming people or another item being a found name; and
  the cells of a CSV's ``given``/``family`` columns and ``Last, First`` in a
  table or TSV name column.
- ``eval/tuning/pii_free_round14.jsonl``: PII-free JSON arrays the round-14
  rule must leave alone: tags, labels, branch names, product and place
  lists, under keys that name people and under keys that do not.

Usage::

    uv run python services/redactor/eval/round14.py

Written after reading the spent v11's misses (``evaluate.py --frozen-v11
--misses``, round 14), with new strings: no name, number or sentence is
copied from v11. The round-14 rule was tuned on this file, so it measures
nothing held out.
"""

from __future__ import annotations

from tuning_rounds import parse_marked, write_tuning_files

# [[...|TYPE]] marks an entity; the text is the template without the marks.
LABELLED: list[tuple[str, str]] = [
    # a JSON array of people under a key that names people
    (
        '{"owner": "[[Tamsin Rowbotham|PERSON]]", "watchers": ["[[Ezinne K.|PERSON]]", "[[lorcan pettigrew|PERSON]]"]}',
        "en",
    ),
    ('{"reviewers": ["[[Ifeoma Strachan|PERSON]]", "[[Wendeline T.|PERSON]]"], "pr": 4471}', "en"),
    ('{"cc": ["[[ruadhan mcgillivray|PERSON]]", "[[Saoirse Penberthy|PERSON]]"], "subject": "rota"}', "en"),
    (
        '{"titular": "[[Itziar Goikoetxea|PERSON]]", "copia": ["[[Nerea U.|PERSON]]", "[[aitziber larrañaga|PERSON]]"]}',
        "es",
    ),
    ('{"asistentes": ["[[Higinio Valdemoro|PERSON]]", "[[casilda ocampo|PERSON]]"], "sala": "B2"}', "es"),
    (
        '{"titulaire": "[[Maëlys Kerjean|PERSON]]", "en_copie": ["[[Gurvan P.|PERSON]]", "[[ronan le goff|PERSON]]"]}',
        "fr",
    ),
    (
        '{"participants": ["[[Enguerrand Vautrin|PERSON]]", "[[bérengère lachaud|PERSON]]"], "salle": "C"}',
        "fr",
    ),
    # escaped inside a tool call's JSON string
    (
        '{"arguments": "{\\"followers\\": [\\"[[Oisín Treharne|PERSON]]\\", \\"[[Malachy D.|PERSON]]\\"]}"}',
        "en",
    ),
    # an unnamed key: one item is a found name, the others have a name's shape
    ('{"team": ["[[Ysolde Penhallow|PERSON]]", "[[Ikaika R.|PERSON]]"], "sprint": 31}', "en"),
    # a CSV's given-name and family-name columns; "Last, First" in a table or TSV name cell
    (
        "ref,given,family,phone\n41,[[Wenonah|PERSON]],[[Trevaskis|PERSON]],[[+44 7700 900123|PHONE_NUMBER]]",
        "en",
    ),
    ("| name | rol |\n|---|---|\n| [[Goikoetxea, Ainhoa|PERSON]] | chófer |", "es"),
    ("titulaire\tdossier\n[[Kerjean, Maëlys|PERSON]]\tDOS/2231/B\n", "fr"),
]

# Texts with no PII at all.
PII_FREE: list[tuple[str, str]] = [
    ('{"tags": ["urgent", "billing", "follow up"], "priority": 2}', "en"),
    ('{"reviewers": ["backend team", "release managers"], "pr": 88}', "en"),
    ('{"watchers": ["ops-oncall", "#payments"], "ticket": "TK/1/A"}', "en"),
    ('{"labels": ["Good First Issue", "Help Wanted"]}', "en"),
    ('{"copia": ["equipo de ventas", "contabilidad"], "asunto": "cierre"}', "es"),
    ('{"participantes": ["todo el equipo"], "sala": "grande"}', "es"),
    ('{"en_copie": ["service client", "comptabilité"], "objet": "facture"}', "fr"),
    ('{"membres": ["Équipe Paris", "Équipe Lyon"]}', "fr"),
    ('{"owners": ["@platform", "@security"], "path": "src/"}', "en"),
    ('{"steps": ["Open Settings", "Click Save"]}', "en"),
    ("given,family,count\nGood,Bad,3", "en"),
    ("family\tmembers\nRosaceae\t4800", "en"),
    ("| name | role |\n|---|---|\n| Build, Test | step |", "en"),
]


def build() -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """The labelled records and the PII-free records, in file order."""
    labelled: list[dict[str, object]] = []
    for k, (marked, lang) in enumerate(LABELLED):
        text, entities = parse_marked(marked)
        labelled.append({"id": f"r14-{k}", "lang": lang, "text": text, "entities": entities})
    free = [
        {"id": f"r14-free-{k}", "lang": lang, "text": text, "entities": []}
        for k, (text, lang) in enumerate(PII_FREE)
    ]
    return labelled, free


def main() -> None:
    """Write ``tuning/round14.jsonl`` and ``tuning/pii_free_round14.jsonl``."""
    labelled, free = build()
    write_tuning_files({"round14.jsonl": labelled, "pii_free_round14.jsonl": free})


if __name__ == "__main__":
    main()
