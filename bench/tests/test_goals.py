"""The Goals table from a results dict: one row per figure of issue 9's Performance section,
each against its goal, with how far off a missed one is; and the sections a regenerated page keeps."""

from __future__ import annotations

import copy

import pytest

from bench import report
from bench.procs import parse_metric_total
from bench.tests.test_bench_unit import RESULTS, _wrk_step

pytestmark = pytest.mark.unit

MIB = 2**20


def _stream_step(target: str, chunks: int, interval: int, ttft: int, n: int, p95: float, cpu: dict) -> dict:
    return {
        "scenario": f"{n} streams x {chunks} chunks",
        "target": target,
        "path": "/v1/chat/completions",
        "concurrency": n,
        "stream": {
            "streams": n,
            "completed": n,
            "failures": {},
            "events_p50": chunks + 4,
            "ttfc_p50_ms": p95 / 2,
            "ttfc_p95_ms": p95,
            "loadgen_cpu_s": 0.5,
        },
        "model": f"fake-stream-c{chunks}-i{interval}-t{ttft}",
        "chunks": chunks,
        "interval_ms": interval,
        "ttft_ms": ttft,
        "cpu_s": cpu,
        "peak_rss_bytes": {k: 50 * MIB for k in cpu},
        "processes": {k: 1 for k in cpu},
        "wall_s": 6,
        "machine_busy_cores": 1.0,
        "note": None,
    }


def _results() -> dict:
    r = copy.deepcopy(RESULTS)
    r["targets"] += [
        {
            "name": "litellm-metered",
            "kind": "peer",
            "version": "",
            "workers": 1,
            "command": "",
            "unavailable": None,
            "notes": [],
        }
    ]
    r["targets"][3]["unavailable"] = None  # portkey ran
    r["steps"] += [
        _wrk_step("portkey", 1, 1250, 0.7, {"gateway": 2.0, "provider": 1.0}, 6250),  # tollway 1000: 0.80x
        _wrk_step("portkey", 16, 1000, 9.0, {"gateway": 2.0, "provider": 1.0}, 5000),  # tollway 1500: 1.50x
    ]
    # ladder chat at c=16: 10,000 calls; edge 3.0 s = 0.3 ms, stack 15.0 s = 1.5 ms per call
    lad = _wrk_step(
        "tollway",
        16,
        2000,
        5.0,
        {
            "edge": 3.0,
            "quota": 2.0,
            "ledger": 2.0,
            "valkey": 1.0,
            "kafka": 5.0,
            "postgres": 2.0,
            "provider": 1.0,
        },
        10000,
        scenario="ladder: chat",
    )
    lad["valkey_commands"] = 360000
    lad["valkey_round_trips"] = {"edge": 20000.0, "quota": 500.0}  # 2.00 + 0.05 per call
    r["steps"].append(lad)
    lm = _wrk_step(
        "litellm-metered",
        16,
        50,
        300.0,
        {"gateway": 10.0, "valkey": 0.5, "provider": 0.1},
        500,
        scenario="ladder: chat",
    )
    r["steps"].append(lm)  # 21 ms per call, proxy + Valkey
    # streams: 200 x 200 chunks: tollway 10 streams at 8.0 ms each = 40 µs per chunk; Δp95 25 ms (goal 20)
    # 60 chunks: 4.0 ms per stream -> marginal (8.0 - 4.0) / 140 = 28.6 µs; Δp95 90 ms (goal 100)
    r["steps"] += [
        _stream_step("direct", 200, 25, 0, 10, 80.0, {"provider": 0.05}),
        _stream_step("tollway", 200, 25, 0, 10, 105.0, {"edge": 0.08, "provider": 0.05}),
        _stream_step("direct", 60, 50, 400, 50, 600.0, {"provider": 0.05}),
        _stream_step("tollway", 60, 50, 400, 50, 690.0, {"edge": 0.2, "provider": 0.05}),
    ]
    r["relay_cpu"] = {
        "command": "uv run --no-sync python services/edge/bench/relay_cpu.py --calls 20",
        "elapsed_s": 30.0,
        "relay_us_per_chunk": 35.0,
        "translated_us_per_chunk": 52.5,
        "modes": {"stream-10": {"cpu_ms_per_call": 0.9, "p50_ms": 30.0, "p99_ms": 40.0}},
    }
    r["idle"] = {
        "wall_s": 1.0,
        "cpu_s": {"tollway/edge": 0.0},
        "rss_bytes": {"tollway/edge": 170 * MIB},
        "processes": {"tollway/edge": 3},
        "machine_busy_cores": 0.5,
        "per_process": {
            "tollway/edge": [
                {"pid": 10, "comm": "python", "rss_bytes": 50 * MIB, "worker": False},
                {"pid": 11, "comm": "python", "rss_bytes": 55 * MIB, "worker": True},
                {"pid": 12, "comm": "python", "rss_bytes": 65 * MIB, "worker": True},
            ]
        },
    }
    return r


def _rows() -> dict[str, dict]:
    return {row["goal"].split(" (")[0]: row for row in report.goal_rows(_results())}


def test_every_issue_9_figure_has_a_row_against_its_goal() -> None:
    rows = report.goal_rows(_results())
    goals = " | ".join(r["goal"] for r in rows)
    for figure in (
        "edge CPU per call, full path",
        "relay CPU per streamed chunk",
        "10 streams x 200 chunks: all complete, first chunk p95 within 20 ms of direct",
        "50 streams x 60 chunks: all complete, first chunk p95 within 100 ms of direct",
        "added p50 at concurrency 1",
        "added p99 at concurrency 1",
        "whole-stack CPU per call",
        "Valkey client round trips per call",
        "Valkey CPU per call",
        "idle RSS of the edge, per worker process",
        "req/s vs portkey at every concurrency",
        "whole-stack CPU per call vs litellm-metered",
    ):
        assert figure in goals, figure


def test_goal_verdicts_and_how_far_off() -> None:
    rows = _rows()
    edge = rows["edge CPU per call, full path"]
    assert (edge["measured"], edge["met"]) == ("0.300 ms", True)
    stack = rows["whole-stack CPU per call"]
    assert stack["measured"].startswith("1.500 ms (edge 0.300, quota 0.200")
    assert stack["met"] is False and stack["short"] == "+0.500 ms"
    assert "+0.500 ms; where the time goes: [profile](#where-the-edges-time-goes-py-spy)" in report.verdict(
        stack
    )
    rt = rows["Valkey client round trips per call"]
    assert (rt["measured"], rt["met"]) == ("2.05 (edge 2.00, quota 0.05)", True)
    vk = rows["Valkey CPU per call"]
    assert vk["measured"].startswith("0.100 ms; 36.00 commands per call") and vk["met"] is None
    relay = rows["relay CPU per streamed chunk"]
    assert "40.0 µs (CPU per 200-chunk stream ÷ 200" in relay["measured"]
    assert "marginal 28.6 µs" in relay["measured"] and "relay_cpu.py 35.0 µs" in relay["measured"]
    assert relay["met"] is True  # 40 ≤ 45
    added99 = rows["added p99 at concurrency 1"]  # tollway 2.4 - direct 0.9 = 1.5 ms
    assert (added99["measured"], added99["met"]) == ("1.50 ms", True)
    rss = rows["idle RSS of the edge, per worker process"]  # the 50 MiB supervisor is not a worker
    assert rss["measured"] == "max 65 MiB over 2 workers (55, 65); not workers: python 50 MiB"
    assert rss["met"] is False and report.verdict(rss) == "**no** (+5 MiB)"  # memory: no CPU profile link
    pk = rows["req/s vs portkey at every concurrency"]
    assert pk["measured"].startswith("min 0.80× at c=1") and pk["met"] is False
    lm = rows["whole-stack CPU per call vs litellm-metered"]
    assert "tollway 1.500 ms vs litellm-metered 21.000 ms (proxy + Valkey)" in lm["measured"]


def test_each_stream_shape_has_its_own_ttfc_goal() -> None:
    rows = {r["goal"]: r for r in report.goal_rows(_results())}
    s200 = rows["10 streams x 200 chunks: all complete, first chunk p95 within 20 ms of direct"]
    assert s200["met"] is False and s200["short"] == "Δp95 +5.0 ms over"
    s60 = rows["50 streams x 60 chunks: all complete, first chunk p95 within 100 ms of direct"]
    assert s60["met"] is True and "50/50 done; Δp95 90.0 ms" in s60["measured"]


def test_round_trips_not_exported_is_said_not_counted_as_zero() -> None:
    r = _results()
    next(s for s in r["steps"] if s["scenario"] == "ladder: chat" and s["target"] == "tollway")[
        "valkey_round_trips"
    ] = {"edge": None, "quota": 300.0}
    row = next(x for x in report.goal_rows(r) if x["goal"].startswith("Valkey client round trips"))
    assert row["met"] is None and "not exported: edge started from code without" in row["measured"]


PREVIOUS = """# Benchmarks

## Streaming

**200 streams**

| a | b |

**Translated streaming (OpenAI client → Anthropic provider)** — not generated (keep this block)

| relay | run 1 µs/chunk |
| pass-through | 39.7 |

## Memory (all processes of each gateway)

| x |

## Response cache (issue 13)

cache text kept

## Tracing on and off (issue 15)

tracing text kept

## Noise

old noise
"""


def test_kept_sections_include_the_old_inline_translated_block() -> None:
    kept = report.kept_sections(PREVIOUS)
    assert kept["Translated streaming"].startswith(
        "## Translated streaming (kept from an earlier page)\n\n**Translated"
    )
    assert "| pass-through | 39.7 |" in kept["Translated streaming"]
    assert "## Memory" not in kept["Translated streaming"]
    assert kept["Response cache"] == "## Response cache (issue 13)\n\ncache text kept\n"
    assert kept["Tracing on and off"] == "## Tracing on and off (issue 15)\n\ntracing text kept\n"


def test_render_keeps_hand_sections_and_generates_translated_from_relay_cpu() -> None:
    r = _results()
    md = report.render(r, PREVIOUS)
    assert "cache text kept" in md and "tracing text kept" in md and "old noise" not in md
    assert "## Translated streaming (relay CPU per chunk, generated)" in md
    assert "| translated (Anthropic events → OpenAI chunks) | 52.5 |" in md
    assert "| translation's own cost | +17.5 (+50 %) |" in md
    assert "39.7" not in md  # replaced by this run's figures
    del r["relay_cpu"]
    md = report.render(r, PREVIOUS)
    assert "| pass-through | 39.7 |" in md  # no relay_cpu run: the previous block is kept
    assert md.index("## Translated streaming") < md.index("## Memory") < md.index("## Response cache")
    assert "## Where the edge's time goes (py-spy)" in md  # the verdicts' link target exists


def test_parse_metric_total_sums_label_sets_and_ignores_longer_names() -> None:
    text = (
        "# HELP tollway_valkey_round_trips_total x\n"
        "# TYPE tollway_valkey_round_trips_total counter\n"
        'tollway_valkey_round_trips_total{client="pipelined",service="edge"} 120.0\n'
        'tollway_valkey_round_trips_total{client="redis-py",service="edge"} 3.0\n'
        'tollway_valkey_round_trips_created{client="pipelined",service="edge"} 1.7e9\n'
        "tollway_valkey_round_trips_total_other 99.0\n"
    )
    assert parse_metric_total(text, "tollway_valkey_round_trips_total") == 123.0
    assert parse_metric_total(text, "tollway_absent_total") is None
