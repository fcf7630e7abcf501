"""Recall per type and PII-free false positives of an OLDER detector on the frozen set.

For before/after comparisons only: put another checkout's
``services/redactor/src`` first on ``PYTHONPATH`` (its ``Detector`` needs only
``analyze``), e.g. main before issue 11::

    git archive 8478b22 services/redactor/src | tar -x -C /tmp/base
    PYTHONPATH=/tmp/base/services/redactor/src uv run python services/redactor/eval/frozen_baseline.py
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from tollway_redactor.engine import Detector
from tollway_redactor.settings import RedactorSettings


def main() -> None:
    settings = RedactorSettings()
    detector = Detector(settings.engine_config())
    for path in sorted((Path(__file__).parent / "frozen").glob("*.jsonl")):
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        predictions = detector.analyze(
            [r["text"] for r in records], settings.default_entity_types, settings.default_score_threshold
        )
        gold: dict[str, int] = defaultdict(int)
        found: dict[str, int] = defaultdict(int)
        free = hit = 0
        for record, spans in zip(records, predictions, strict=True):
            if not record["entities"]:
                free += 1
                hit += bool(spans)
            for e in record["entities"]:
                gold[e["type"]] += 1
                found[e["type"]] += any(
                    s.entity_type == e["type"] and s.start < e["end"] and e["start"] < s.end for s in spans
                )
        recall = {t: f"{found[t] / gold[t]:.3f}" for t in sorted(gold)}
        print(path.name, recall, f"false positives {hit}/{free}" if free else "")


if __name__ == "__main__":
    main()
