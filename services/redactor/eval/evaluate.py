"""Precision and recall per entity type and language, and the false-positive rate on
PII-free text, of the redactor's detector on labelled samples.

Runs the same ``Detector`` the service runs (default settings: lean spaCy
models per supported language, language detection, Presidio and Tollway
recognizers, the configured default threshold and language policy), in-process,
with the default entity types of the service.

Matching: a gold entity is *found* when a detection of the same type overlaps
it, and *fully covered* when detections of that type cover every character of
it (what matters for redaction: nothing of the value leaks). A detection is a
true positive when it overlaps a gold entity of its type. The false-positive
rate counts the samples without gold entities that got *any* detection.

Usage::

    python services/redactor/eval/evaluate.py                    # samples.jsonl (tuning, English)
    python services/redactor/eval/evaluate.py --tuning           # eval/tuning/*.jsonl
    python services/redactor/eval/evaluate.py --frozen-v11       # eval/frozen_v11/*.jsonl (v11, the held-out set: measured once, by the lead)
    python services/redactor/eval/evaluate.py --frozen-v10       # eval/frozen_v10/*.jsonl (v10, spent: now tuning material)
    python services/redactor/eval/evaluate.py --frozen-v9        # eval/frozen_v9/*.jsonl (v9, spent: now tuning material)
    python services/redactor/eval/evaluate.py --frozen-v8        # eval/frozen_v8/*.jsonl (v8, spent: now tuning material)
    python services/redactor/eval/evaluate.py --frozen-v7        # eval/frozen_v7/*.jsonl (v7, spent: now tuning material)
    python services/redactor/eval/evaluate.py --frozen-v6        # eval/frozen_v6/*.jsonl (v6, spent: now tuning material)
    python services/redactor/eval/evaluate.py --frozen-v5        # eval/frozen_v5/*.jsonl (v5, spent: now tuning material)
    python services/redactor/eval/evaluate.py --frozen-v4        # eval/frozen_v4/*.jsonl (v4, spent: now tuning material)
    python services/redactor/eval/evaluate.py --frozen-v3        # eval/frozen_v3/*.jsonl (v3, spent: now tuning material)
    python services/redactor/eval/evaluate.py --frozen           # eval/frozen_v2/*.jsonl (v2, spent: now tuning material)
    python services/redactor/eval/evaluate.py --frozen-v1        # eval/frozen/*.jsonl (v1, spent: now tuning material)
    python services/redactor/eval/evaluate.py --samples A.jsonl B.jsonl [--misses]

``--misses`` (print every miss and false positive) is refused on the files of
the current frozen held-out set (``HELD_OUT_DIRS``; empty now: v11 was
measured once on 2026-12-03 and is spent, and no new held-out set has been
written yet): nobody tunes on them, and nobody reads their results before the
lead's single measurement. The v1 to v11 frozen files were measured once and
are spent (v5 to v11 on 2026-12-03): they may be read like tuning files.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

from tollway_redactor.engine import Detector
from tollway_redactor.settings import RedactorSettings

HERE = Path(__file__).parent
# Folders of the current frozen held-out set: measured once, never read for
# tuning. Empty: v11 (frozen 2026-12-03) was measured once and is spent, and
# no new held-out set has been written since.
HELD_OUT_DIRS: tuple[str, ...] = ()
TYPES = ["PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "STREET_ADDRESS"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=Path, nargs="*", default=None)
    parser.add_argument(
        "--frozen-v11",
        action="store_true",
        help="the frozen held-out set v11 (eval/frozen_v11): measured once",
    )
    parser.add_argument(
        "--frozen-v10", action="store_true", help="the spent v10 frozen set (eval/frozen_v10)"
    )
    parser.add_argument("--frozen-v9", action="store_true", help="the spent v9 frozen set (eval/frozen_v9)")
    parser.add_argument("--frozen-v8", action="store_true", help="the spent v8 frozen set (eval/frozen_v8)")
    parser.add_argument("--frozen-v7", action="store_true", help="the spent v7 frozen set (eval/frozen_v7)")
    parser.add_argument("--frozen-v6", action="store_true", help="the spent v6 frozen set (eval/frozen_v6)")
    parser.add_argument("--frozen-v5", action="store_true", help="the spent v5 frozen set (eval/frozen_v5)")
    parser.add_argument("--frozen-v4", action="store_true", help="the spent v4 frozen set (eval/frozen_v4)")
    parser.add_argument("--frozen-v3", action="store_true", help="the spent v3 frozen set (eval/frozen_v3)")
    parser.add_argument(
        "--frozen", "--frozen-v2", action="store_true", help="the spent v2 frozen set (eval/frozen_v2)"
    )
    parser.add_argument("--frozen-v1", action="store_true", help="the spent v1 frozen set (eval/frozen)")
    parser.add_argument("--tuning", action="store_true", help="the issue-11 tuning set (eval/tuning)")
    parser.add_argument("--threshold", type=float, default=None)
    parser.add_argument("--policy", choices=["block", "patterns_only", "pass"], default=None)
    parser.add_argument(
        "--misses",
        action="store_true",
        help="print misses and false positives (refused on the current held-out set)",
    )
    args = parser.parse_args()
    paths: list[Path] = list(args.samples or [])
    if args.frozen_v11:
        paths += sorted((HERE / "frozen_v11").glob("*.jsonl"))
    if args.frozen_v10:
        paths += sorted((HERE / "frozen_v10").glob("*.jsonl"))
    if args.frozen_v9:
        paths += sorted((HERE / "frozen_v9").glob("*.jsonl"))
    if args.frozen_v8:
        paths += sorted((HERE / "frozen_v8").glob("*.jsonl"))
    if args.frozen_v7:
        paths += sorted((HERE / "frozen_v7").glob("*.jsonl"))
    if args.frozen_v6:
        paths += sorted((HERE / "frozen_v6").glob("*.jsonl"))
    if args.frozen_v5:
        paths += sorted((HERE / "frozen_v5").glob("*.jsonl"))
    if args.frozen_v4:
        paths += sorted((HERE / "frozen_v4").glob("*.jsonl"))
    if args.frozen_v3:
        paths += sorted((HERE / "frozen_v3").glob("*.jsonl"))
    if args.frozen:
        paths += sorted((HERE / "frozen_v2").glob("*.jsonl"))
    if args.frozen_v1:
        paths += sorted((HERE / "frozen").glob("*.jsonl"))
    if args.tuning:
        paths += sorted((HERE / "tuning").glob("*.jsonl"))
    if not paths:
        paths = [HERE / "samples.jsonl"]
    held_out = {(HERE / d).resolve() for d in HELD_OUT_DIRS}
    if args.misses and any(p.resolve().parent in held_out for p in paths):
        sys.exit("--misses is refused on the frozen held-out set: nobody tunes on it")

    settings = RedactorSettings()
    threshold = settings.default_score_threshold if args.threshold is None else args.threshold
    samples = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                record.setdefault("lang", "en")
                record["file"] = f"{path.parent.name}/{path.name}"
                samples.append(record)
    detector = Detector(settings.engine_config())

    started = time.process_time()
    analyses = detector.analyze_texts(
        [s["text"] for s in samples], settings.default_entity_types, threshold, args.policy
    )
    cpu_s = time.process_time() - started

    gold_n: dict[tuple[str, str], int] = defaultdict(int)
    found: dict[tuple[str, str], int] = defaultdict(int)
    covered: dict[tuple[str, str], int] = defaultdict(int)
    pred_n: dict[tuple[str, str], int] = defaultdict(int)
    tp: dict[tuple[str, str], int] = defaultdict(int)
    free_n: dict[str, int] = defaultdict(int)
    free_hit: dict[str, int] = defaultdict(int)
    detected_lang: dict[tuple[str, str], int] = defaultdict(int)
    policies: dict[tuple[str, str], int] = defaultdict(int)
    for sample, analysis in zip(samples, analyses, strict=True):
        text, lang, spans = sample["text"], sample["lang"], analysis.spans
        detected_lang[(lang, str(analysis.language))] += 1
        policies[(lang, analysis.language_policy)] += 1
        if not sample["entities"]:
            free_n[sample["file"]] += 1
            if spans:
                free_hit[sample["file"]] += 1
        for g in sample["entities"]:
            key = (lang, g["type"])
            gold_n[key] += 1
            same = [s for s in spans if s.entity_type == g["type"]]
            if any(s.start < g["end"] and g["start"] < s.end for s in same):
                found[key] += 1
            elif args.misses:
                print(f"MISS {lang} {g['type']:15} {g['value']!r:40} in {text!r}")
            if all(any(s.start <= i < s.end for s in same) for i in range(g["start"], g["end"])):
                covered[key] += 1
            elif args.misses and any(s.start < g["end"] and g["start"] < s.end for s in same):
                part = [text[s.start : s.end] for s in same if s.start < g["end"] and g["start"] < s.end]
                print(f"PART {lang} {g['type']:15} {g['value']!r:40} got {part}")
        for s in spans:
            key = (lang, s.entity_type)
            pred_n[key] += 1
            if any(
                g["type"] == s.entity_type and s.start < g["end"] and g["start"] < s.end
                for g in sample["entities"]
            ):
                tp[key] += 1
            elif args.misses:
                print(f"FP   {lang} {s.entity_type:15} {text[s.start : s.end]!r:40} in {text!r}")

    print(f"files: {', '.join(p.name for p in paths)}")
    print(f"samples: {len(samples)}, threshold {threshold}, policy {args.policy or detector.default_policy}")
    print(f"model: {detector.model_version}")
    print(
        f"CPU for all samples: {cpu_s * 1000:.0f} ms ({cpu_s * 1000 / max(1, len(samples)):.2f} ms/sample)\n"
    )
    langs = sorted({lang for lang, _ in gold_n})
    if langs:
        print(
            "| language | entity type | gold | detected | precision | recall (overlap) | recall (full span) |"
        )
        print("|---|---|---|---|---|---|---|")
        for lang in langs:
            for t in TYPES:
                k = (lang, t)
                if not gold_n[k] and not pred_n[k]:
                    continue
                p = f"{tp[k] / pred_n[k]:.3f}" if pred_n[k] else "–"
                r = f"{found[k] / gold_n[k]:.3f}" if gold_n[k] else "–"
                f = f"{covered[k] / gold_n[k]:.3f}" if gold_n[k] else "–"
                print(f"| {lang} | {t} | {gold_n[k]} | {pred_n[k]} | {p} | {r} | {f} |")
            others = sorted(t for (lg, t) in pred_n if lg == lang and t not in TYPES)
            for t in others:
                print(f"| {lang} | {t} (not in gold) | 0 | {pred_n[(lang, t)]} | – | – | – |")
    if free_n:
        print("\n| PII-free file | texts | texts with any detection | false-positive rate |")
        print("|---|---|---|---|")
        for name in sorted(free_n):
            print(f"| {name} | {free_n[name]} | {free_hit[name]} | {free_hit[name] / free_n[name]:.2%} |")
    print("\nlanguage detected (gold -> detected: samples):", dict(sorted(detected_lang.items())))
    print("language policy applied (gold -> policy: samples):", dict(sorted(policies.items())))


if __name__ == "__main__":
    main()
