"""Card numbers after identifier words (issue 11: a card pasted as an order
reference was not detected unless a card word stood nearby) and order ids
that fail Luhn (never cards, whatever the words around them).

Hand-written; values are located by search. Writes
``eval/tuning/cards-context.jsonl`` (same shape as the other tuning files).
Measure with ``python services/redactor/eval/evaluate.py --samples
services/redactor/eval/tuning/cards-context.jsonl --misses``.

Usage: ``python services/redactor/eval/card_context.py``
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).with_name("tuning") / "cards-context.jsonl"

C = "CREDIT_CARD"

CASES: list[tuple[str, list[tuple[str, str]]]] = [
    ("Your order 4111111111111111 has shipped", [(C, "4111111111111111")]),
    ("order #5555555555554444 confirmed", [(C, "5555555555554444")]),
    ("Order id=4012888888881881, please check", [(C, "4012888888881881")]),
    ("invoice 378282246310005 paid yesterday", [(C, "378282246310005")]),
    ("ref 6011000990139424 for the refund", [(C, "6011000990139424")]),
    ("Order number 4000000000000000006 arrived", [(C, "4000000000000000006")]),
    ("ticket 2223003122003222 was reopened", [(C, "2223003122003222")]),
    ("reference: 3530111333300000", [(C, "3530111333300000")]),
    ("Your order 4111111111111112 has shipped", []),  # fails Luhn
    ("order #5555555555554445 confirmed", []),
    ("Order id=1234567890123456, please check", []),
    ("invoice 378282246310006 paid yesterday", []),
    ("tracking 1Z999AA10123456784", []),
    ("Order ORD-2024-000123 has shipped", []),
    ("order 100000000000000008 is late", []),
    ("Card order 4111111111111112 declined", []),  # a card word does not make a Luhn failure a card
]


def main() -> None:
    """Write :data:`OUT`."""
    with OUT.open("w", encoding="utf-8") as fh:
        for n, (text, gold) in enumerate(CASES, 1):
            entities, cursor = [], 0
            for etype, value in gold:
                start = text.index(value, cursor)
                entities.append({"type": etype, "start": start, "end": start + len(value), "value": value})
                cursor = start + len(value)
            record = {"id": f"tcc{n:04d}", "lang": "en", "text": text, "entities": entities}
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(f"wrote {len(CASES)} records to {OUT}")


if __name__ == "__main__":
    main()
