"""Precision and recall per entity type of the redactor's detector on labelled samples.

Runs the same ``Detector`` the service runs (default settings: lean spaCy
``en_core_web_sm``, Presidio recognizers, Tollway's street-address
recognizer, threshold = the configured default), in-process.

Matching: a gold entity is *found* when a detection of the same type
overlaps it, and *fully covered* when detections of that type cover every
character of it (what matters for redaction: nothing of the value leaks). A
detection is a true positive when it overlaps a gold entity of its type.

Usage: ``python services/redactor/eval/evaluate.py [--samples PATH] [--threshold T] [--misses]``
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

from tollway_redactor.engine import Detector
from tollway_redactor.settings import RedactorSettings

TYPES = ["PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "STREET_ADDRESS"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=Path, default=Path(__file__).with_name("samples.jsonl"))
    parser.add_argument("--threshold", type=float, default=None)
    parser.add_argument(
        "--misses", action="store_true", help="print missed and spurious spans (local debugging)"
    )
    args = parser.parse_args()
    settings = RedactorSettings()
    threshold = settings.default_score_threshold if args.threshold is None else args.threshold
    samples = [
        json.loads(line) for line in args.samples.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    detector = Detector(settings.engine_config())

    started = time.process_time()
    predictions = detector.analyze([s["text"] for s in samples], TYPES, threshold)
    cpu_s = time.process_time() - started

    gold_n = defaultdict(int)
    found = defaultdict(int)
    covered = defaultdict(int)
    pred_n = defaultdict(int)
    tp = defaultdict(int)
    for sample, spans in zip(samples, predictions, strict=True):
        text = sample["text"]
        for g in sample["entities"]:
            t = g["type"]
            gold_n[t] += 1
            same = [s for s in spans if s.entity_type == t]
            if any(s.start < g["end"] and g["start"] < s.end for s in same):
                found[t] += 1
            else:
                if args.misses:
                    print(f"MISS {t:15} {g['value']!r:40} in {text!r}")
            if all(any(s.start <= i < s.end for s in same) for i in range(g["start"], g["end"])):
                covered[t] += 1
            elif args.misses and any(s.start < g["end"] and g["start"] < s.end for s in same):
                part = [text[s.start : s.end] for s in same if s.start < g["end"] and g["start"] < s.end]
                print(f"PART {t:15} {g['value']!r:40} got {part}")
        for s in spans:
            pred_n[s.entity_type] += 1
            if any(
                g["type"] == s.entity_type and s.start < g["end"] and g["start"] < s.end
                for g in sample["entities"]
            ):
                tp[s.entity_type] += 1
            elif args.misses:
                print(f"FP   {s.entity_type:15} {text[s.start : s.end]!r:40} in {text!r}")

    print(f"samples: {len(samples)}, threshold {threshold}, model {detector.model_version}")
    print(f"CPU for all samples: {cpu_s * 1000:.0f} ms ({cpu_s * 1000 / len(samples):.2f} ms/sample)\n")
    print("| entity type | gold | detected | precision | recall (overlap) | recall (full span) |")
    print("|---|---|---|---|---|---|")
    for t in TYPES:
        p = tp[t] / pred_n[t] if pred_n[t] else float("nan")
        r = found[t] / gold_n[t] if gold_n[t] else float("nan")
        f = covered[t] / gold_n[t] if gold_n[t] else float("nan")
        print(f"| {t} | {gold_n[t]} | {pred_n[t]} | {p:.3f} | {r:.3f} | {f:.3f} |")


if __name__ == "__main__":
    main()
