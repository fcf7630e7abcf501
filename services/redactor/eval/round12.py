"""Round-12 development material (issue 11): the miss classes of the spent v9.

Writes two tuning files (deterministic):

- ``eval/tuning/round12.jsonl``: labelled messages of the round-12 recall
  classes — 18- and 19-digit Maestro/UnionPay/Discover card numbers written
  in even groups of 5 or 6 digits (6-6-6, 5-5-5-4) with a space, ``-`` or
  ``.`` between groups, in en/fr/es, after a card word or none.
- ``eval/tuning/pii_free_round12.jsonl``: PII-free texts that the round-12
  rules must leave alone: lists of 6-digit codes that fail Luhn or fall in
  no issuer range, groups of uneven width, thousands groups of 3 digits;
  ``de Madrid a Toledo`` and ``calle Mayor a las 5`` without a road number.

Usage::

    uv run python services/redactor/eval/round12.py

Written after reading the spent v9's misses (``evaluate.py --frozen-v9
--misses``, round 12), with new strings: no name, number or sentence is
copied from v9. The round-12 rules were tuned on this file, so it measures
nothing held out.
"""

from __future__ import annotations

from tuning_rounds import parse_marked, write_tuning_files

# [[...|TYPE]] marks an entity; the text is the template without the marks.
LABELLED: list[tuple[str, str]] = [
    # cards in even groups of 5 or 6 digits (18 and 19 digits; Luhn-valid, issuer ranges 50, 60-69)
    ("Charged to card [[630419 772854 103366|CREDIT_CARD]] on the 3rd.", "en"),
    ("billing:\n  card: '[[621488-306927-511043|CREDIT_CARD]]'\n  currency: EUR", "en"),
    ("Paid with [[501873.649205.718351|CREDIT_CARD]], ref attached", "en"),
    ("UnionPay [[62719 30485 76120 9385|CREDIT_CARD]] declined twice", "en"),
    ("la carte [[630419-772854-103366|CREDIT_CARD]] a été refusée hier", "fr"),
    ("Réglé par carte [[62719 30485 76120 9385|CREDIT_CARD]].", "fr"),
    ("el cargo en la tarjeta [[621488 306927 511043|CREDIT_CARD]] está duplicado", "es"),
    ("Tarjeta: [[501873-649205-718351|CREDIT_CARD]]\nTitular en el reverso", "es"),
    # Spanish roads named by the towns they join ("de X a Y"), with a number, s/n or a km point
    (
        "domicilio: [[Carretera de Colmenar a Torrelodones n.º 17, esc. 2, 3.º dcha., "
        "28250 Torrelodones (Madrid)|STREET_ADDRESS]]",
        "es",
    ),
    ("Nueva dirección:\n[[Camino de Ayna al Molino, 12, 2.º A\n02125 Ayna (Albacete)|STREET_ADDRESS]]", "es"),
    (
        "Enviar a:\n[[Carretera de Olmedo a Portillo, km 12,4\n47450 Pozal de Gallinas (Valladolid)|STREET_ADDRESS]]",
        "es",
    ),
    (
        "pasará por [[Carretera de Olmedo a Portillo, s/n, bajo, 47400 Medina del Campo (Valladolid)|STREET_ADDRESS]]"
        " a mediodía.",
        "es",
    ),
    # "Surname, Given" in a record or after a role word: one person, not two
    ("Employee record\nName: [[Okafor, Benedikt|PERSON]]\nStart date: 3 March", "en"),
    ("Parcel left at the door; recipient [[Govender, Oluchi|PERSON]] signed.", "en"),
]

PII_FREE: list[tuple[str, str]] = [
    # 6-digit codes in a row: Luhn fails, or no issuer range for 18 digits
    ("Batch codes 630419 772856 103367 were re-run overnight.", "en"),
    ("lot numbers 712345 650321 998877 recalled", "en"),
    # uneven widths and thousands groups
    ("Totals: 62173 4567 890123 units across regions", "en"),
    ("worker pids 60417 23355 90813 restarted", "en"),
    ("le budget passe à 630 419 772 854 103 euros sur dix ans", "fr"),
    ("códigos 501873 649205 718352 anulados por el sistema", "es"),
    # "a" / "y" between capitalised words that are no road
    ("Fui de Madrid a Toledo 12 veces este año.", "es"),
    ("Quedamos en la calle Mayor a las 5 de la tarde.", "es"),
    (
        "El tren de Sevilla a Cádiz sale del andén 4, 41001 pasajeros al año.",
        "es",
    ),  # two people side by side after a greeting or a verb stay two spans (checked in the unit tests)
]


def build() -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """The labelled records and the PII-free records, in file order."""
    labelled: list[dict[str, object]] = []
    for k, (marked, lang) in enumerate(LABELLED):
        text, entities = parse_marked(marked)
        labelled.append({"id": f"r12-{k}", "lang": lang, "text": text, "entities": entities})
    free = [
        {"id": f"r12-free-{k}", "lang": lang, "text": text, "entities": []}
        for k, (text, lang) in enumerate(PII_FREE)
    ]
    return labelled, free


def main() -> None:
    """Write ``tuning/round12.jsonl`` and ``tuning/pii_free_round12.jsonl``."""
    labelled, free = build()
    write_tuning_files({"round12.jsonl": labelled, "pii_free_round12.jsonl": free})


if __name__ == "__main__":
    main()
