"""Shared by the tuning-round generators (``round9.py`` … ``round14.py``): their
hand-written cases mark each gold entity inline, and this turns the markup into
the evaluator's records and writes the round's two JSON Lines files.

Markup: ``[[value|TYPE]]`` around each planted value (``TYPE`` a Presidio entity
type such as ``PERSON`` or ``IBAN_CODE``); the value may hold ``|`` (the last one
splits), not ``]]``. Offsets are in ``str`` characters (code points), end
exclusive, as ``evaluate.py`` reads them. The frozen held-out generators do not
use this module: each of them stays self-contained so its files reproduce from
its own source alone.
"""

from __future__ import annotations

import json
from pathlib import Path

TUNING = Path(__file__).parent / "tuning"


def parse_marked(marked: str) -> tuple[str, list[dict[str, object]]]:
    """``marked`` with its ``[[value|TYPE]]`` markup removed, and the gold
    entities it marked: ``{"type", "start", "end", "value"}`` per entity, in
    text order, ``text[start:end] == value``."""
    text, entities = "", []
    rest = marked
    while "[[" in rest:
        before, _, after = rest.partition("[[")
        inner, _, rest = after.partition("]]")
        value, _, entity = inner.rpartition("|")
        text += before
        entities.append({"type": entity, "start": len(text), "end": len(text) + len(value), "value": value})
        text += value
    return text + rest, entities


def write_tuning_files(files: dict[str, list[dict[str, object]]]) -> None:
    """Write each ``tuning/<name>`` as one JSON object per line (UTF-8, non-ASCII
    kept as is), the byte layout the tuning-file pin tests reproduce."""
    for name, records in files.items():
        with (TUNING / name).open("w", encoding="utf-8") as f:
            for record in records:
                f.write(json.dumps(record, ensure_ascii=False) + "\n")
