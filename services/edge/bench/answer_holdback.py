"""The delay answer redaction adds to each streamed chunk's delivery (issue 11,
"Answers too": goal ≤ 50 ms p95), measured on the edge's own code path:
``streaming.holdback.StreamScanner.scan`` over the splitter's events, against
a real redactor (Presidio + spaCy; ``--redactor-url``, default the local
stack's ``http://127.0.0.1:8081``).

Each stream is a chat completion chunk stream of an answer of about 700
characters (sentences of prose with an e-mail, a phone number, a card and a
name planted), one word per chunk, each chunk its own upstream read (as a
real model's stream arrives). Per chunk, the time ``scan`` takes is the delay
it adds before the relay writes that chunk (a chunk that releases nothing adds
only the parse; one that releases text waits for one redactor round trip).
``--concurrency`` streams run at once (the redactor serves them all).
Every sentence of every stream is unique (a run tag at its start), so the
redactor's detection cache never serves a scan.

    uv run python services/edge/bench/answer_holdback.py [--streams 40] [--concurrency 1] [--window 64]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

import aiohttp
import orjson

from tollway_contracts.redaction import RedactionPolicy
from tollway_edge.redaction.client import RedactorPool
from tollway_edge.redaction.coalesce import CoalescingRedactor
from tollway_edge.streaming.holdback import StreamScanner
from tollway_edge.streaming.sse import SSESplitter

SENTENCES = [
    "Thanks for reaching out about order {n}, I looked at the account history for you.",
    "The customer on file is Maria Garcia and the contact address is maria.garcia@example.com for now.",
    "You can also call the support line on +1 415 555 0134 during business hours in the week.",
    "The card ending the payment was 4111 1111 1111 1111, which the bank confirmed yesterday.",
    "Shipping usually takes three to five working days, depending on the carrier and the region.",
    "If anything else comes up, reply to this thread and the team will pick it up quickly.",
    "Have a good day and thanks again for your patience while we sorted the refund out.",
]


class _Call:
    """What the scanner reads on a call (no prompt placeholders)."""

    request_id = "bench"
    redaction = None
    redaction_mapping = None

    def __init__(self, policy: RedactionPolicy) -> None:
        self.redaction_policy = policy

    def fail(self, *args: Any) -> None:
        """Unused: the scanner never fails a call itself."""


def _chunks(text: str) -> list[bytes]:
    words = text.split(" ")
    out = []
    for i, word in enumerate(words):
        choice = {"index": 0, "delta": {"content": (" " if i else "") + word}, "finish_reason": None}
        out.append(
            b"data: " + orjson.dumps({"id": "c", "object": "chat.completion.chunk", "choices": [choice]})
        )
    end = {"index": 0, "delta": {}, "finish_reason": "stop"}
    out.append(b"data: " + orjson.dumps({"id": "c", "object": "chat.completion.chunk", "choices": [end]}))
    out.append(b"data: [DONE]")
    return [c + b"\n\n" for c in out]


async def _stream(pool: Any, n: int, window: int, delays: list[float], scans: list[float]) -> None:
    run = f"{time.time_ns()}-{n}"
    # every sentence unique (a run tag at its start): no held text is ever a detection-cache hit
    text = " ".join(f"Ref {run}/{k}: " + s.format(n=run) for k, s in enumerate(SENTENCES))
    scanner = StreamScanner(_Call(RedactionPolicy(answers="redact")), pool, 10_000, window)  # type: ignore[arg-type]
    splitter = SSESplitter()
    released = ""
    for chunk in _chunks(text):
        events = splitter.feed(chunk)
        t = time.perf_counter()
        out = await scanner.scan(events)
        delays.append((time.perf_counter() - t) * 1000.0)
        for e in out:
            obj = e.json()
            if isinstance(obj, dict):
                released += "".join(c.get("delta", {}).get("content") or "" for c in obj["choices"])
        await asyncio.sleep(0.002)  # the model's pace between chunks
    scans.extend(scanner.scan_ms)
    assert "maria.garcia@example.com" not in released and "4111 1111" not in released, released


def _pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(p * len(s)))]


async def main() -> None:
    """Run the streams and print per-chunk delay percentiles (ms)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--redactor-url", default="http://127.0.0.1:8081")
    ap.add_argument("--streams", type=int, default=40)
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--window", type=int, default=64)
    ap.add_argument(
        "--in-flight",
        type=int,
        default=2,
        help="CoalescingRedactor's max requests in flight (the edge: 2 x redactor URLs); 0 = no coalescing",
    )
    args = ap.parse_args()
    delays: list[float] = []
    scans: list[float] = []
    async with aiohttp.ClientSession() as http:
        pool: Any = RedactorPool([args.redactor_url], http)
        if args.in_flight:
            pool = CoalescingRedactor(pool, args.in_flight)
        await _stream(pool, -1, args.window, [], [])  # warm the connection and the model
        sem = asyncio.Semaphore(args.concurrency)

        async def one(n: int) -> None:
            async with sem:
                await _stream(pool, n, args.window, delays, scans)

        t0 = time.perf_counter()
        await asyncio.gather(*(one(n) for n in range(args.streams)))
        wall = time.perf_counter() - t0
    print(
        f"streams={args.streams} concurrency={args.concurrency} window={args.window} in_flight={args.in_flight} "
        f"chunks={len(delays)} redactor_round_trips={len(scans)} wall_s={wall:.1f}"
    )
    print(
        "added delay per chunk ms: "
        f"p50={_pct(delays, 0.50):.2f} p95={_pct(delays, 0.95):.2f} p99={_pct(delays, 0.99):.2f} "
        f"mean={statistics.fmean(delays):.2f}"
    )
    print(
        "per redactor round trip ms: "
        f"p50={_pct(scans, 0.50):.2f} p95={_pct(scans, 0.95):.2f} p99={_pct(scans, 0.99):.2f}"
    )


if __name__ == "__main__":
    asyncio.run(main())
