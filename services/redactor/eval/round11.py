"""Round-11 development material (issue 11): the false-positive classes of the spent v8.

Writes two tuning files (deterministic):

- ``eval/tuning/round11.jsonl``: labelled messages that must keep their
  detections next to the round-11 precision rules — phones split by ``/``
  after a trunk-0 area code (``089/1234567``); bare ten-digit phones after
  ``text <Name> on`` / ``texting them at`` or a ``Next of kin:`` key (a
  recall class); a house name or a unit then a street without a number, with
  its town and postcode (``Rose Cottage, Heronsgate Lane, Ludlow SY8 1QT``);
  lower-case names after a cue word.
- ``eval/tuning/pii_free_round11.jsonl``: PII-free texts of the round-11
  false-positive classes: count ratios (``(8881/55091 lines)``, ``3847/43079
  checks``), numbers after a product-code key (``GTIN``, ``UPC``, ``lot``),
  lower-case noun phrases with a plural after ``for`` / ``with`` (``for runny
  yolks``), a unit and a street without a town, desks signing a letter or
  heading a column (``Customer Services``, ``Recepción``, ``Postcode``).

Usage::

    uv run python services/redactor/eval/round11.py

Written after reading the spent v8's misses and false positives
(``evaluate.py --frozen-v8 --misses``, round 11), with new strings: no
name, number or sentence is copied from v8. The round-11 rules were tuned on
this file, so it measures nothing held out.
"""

from __future__ import annotations

from tuning_rounds import parse_marked, write_tuning_files

# [[...|TYPE]] marks an entity; the text is the template without the marks.
LABELLED: list[tuple[str, str]] = [
    # phones that the precision rules must keep
    ("call me on [[089/1234567|PHONE_NUMBER]] tomorrow.", "en"),
    ("ring the depot on [[0171/2345678|PHONE_NUMBER]] after six", "en"),
    ("then text [[Oluwaseun|PERSON]] on [[4155550173|PHONE_NUMBER]] when it lands.", "en"),
    ("texting them at [[4155550173|PHONE_NUMBER]] now", "en"),
    (
        "Ward 7\nNext of kin: [[Marguerite Okonkwo|PERSON]], [[5035550188|PHONE_NUMBER]]\nDischarge pending.",
        "en",
    ),
    # a house name or a unit, then a street without a number (town and postcode required)
    ("new address is [[Lilac Cottage, Heronsgate Lane, Ludlow SY8 1QT|STREET_ADDRESS]] from May", "en"),
    ("Ship to:\n[[Apt 9, Kestrel Crescent\nTralee, Co. Kerry\nV92 K2P3|STREET_ADDRESS]]", "en"),
    ('{"address": "[[Beech House, Millers Row, Ripon HG4 1DE|STREET_ADDRESS]]"}', "en"),
    # a name signing above its desk
    ("Kind regards,\n[[Ifeoma Lindqvist|PERSON]]\nCustomer Services", "en"),
    # lower-case names after a cue word (singular surnames stay names)
    ("can you remind [[horace whitcombe|PERSON]] about the invoice", "en"),
    ("lunch with [[marguerite okonkwo|PERSON]] moved to friday", "en"),
]

PII_FREE: list[tuple[str, str]] = [
    # count ratios
    ("Coverage: 81.2% (4412/54330 lines), branches 71%", "en"),
    ("nightly: passed 3847/43079 checks, 12 flaky", "en"),
    ("Progress 1200/15000 rows imported", "en"),
    ("the text box at 4155550173 px is off screen", "en"),
    ("Unit 4, Main Street was repainted last week.", "en"),
    # desks signing a letter or heading a column
    ("Your parcel left our depot today.\n\nCustomer Services", "en"),
    ("Le recordamos su cita de mañana.\n\nAtentamente,\nRecepción", "es"),
    ("Name,Email,Postcode\nn/a,n/a,n/a", "en"),
    # product codes after their key
    ("Batch B7720 best before 2028-02, GTIN 0712345678911, qty 48", "en"),
    ("UPC: 036000291452 on the outer box", "en"),
    ("lot 4471902286 recalled by the vendor", "en"),
    # lower-case noun phrases with a plural
    ("how long should I fry onions for golden edges?", "en"),
    ("any tips for fluffy pancakes with crispy edges?", "en"),
    ("what temperature for soft boiled eggs with runny yolks?", "en"),
]


def build() -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """The labelled records and the PII-free records, in file order."""
    labelled: list[dict[str, object]] = []
    for k, (marked, lang) in enumerate(LABELLED):
        text, entities = parse_marked(marked)
        labelled.append({"id": f"r11-{k}", "lang": lang, "text": text, "entities": entities})
    free = [
        {"id": f"r11-free-{k}", "lang": lang, "text": text, "entities": []}
        for k, (text, lang) in enumerate(PII_FREE)
    ]
    return labelled, free


def main() -> None:
    """Write ``tuning/round11.jsonl`` and ``tuning/pii_free_round11.jsonl``."""
    labelled, free = build()
    write_tuning_files({"round11.jsonl": labelled, "pii_free_round11.jsonl": free})


if __name__ == "__main__":
    main()
