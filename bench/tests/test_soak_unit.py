"""The soak's pure parts (bench/soak_report.py): growth fits, flags, the report and its section."""

from __future__ import annotations

from typing import Any

import pytest

from bench import soak_report
from bench.soak_report import MIB, Thresholds, flag, growth, replace_section, slope_per_hour

pytestmark = pytest.mark.unit


def test_slope_is_per_hour_and_exact_on_a_line() -> None:
    # 1 MiB every 60 s = 60 MiB/h, whatever the intercept.
    pts = [(t, 100 * MIB + t / 60 * MIB) for t in range(0, 1800, 30)]
    assert slope_per_hour(pts) == pytest.approx(60 * MIB)
    assert slope_per_hour([(0, 5.0), (30, 5.0), (60, 5.0)]) == 0.0


def test_slope_of_too_few_or_simultaneous_points_is_zero() -> None:
    assert slope_per_hour([]) == 0.0
    assert slope_per_hour([(10, 1.0)]) == 0.0
    assert slope_per_hour([(10, 1.0), (10, 9.0)]) == 0.0


def test_slope_sees_through_noise() -> None:
    # A sawtooth (GC) around a flat line has no trend; the same on a ramp has the ramp's.
    flat = [(t, 50.0 + (7 if (t // 30) % 2 else -7)) for t in range(0, 3600, 30)]
    assert abs(slope_per_hour(flat)) < 1.0
    ramp = [(t, v + t / 3600 * 40) for t, v in flat]
    assert slope_per_hour(ramp) == pytest.approx(40, abs=1.0)


def test_growth_starts_after_warm_up() -> None:
    pts = [(0.0, 10.0), (30.0, 90.0), (60.0, 100.0), (90.0, 130.0), (120.0, 110.0)]
    g = growth(pts, warmup_s=60)
    assert g is not None
    assert (g.start, g.end, g.max, g.samples) == (100.0, 110.0, 130.0, 3)
    assert growth(pts, warmup_s=1000) is None


def _g(start: float, end: float, per_hour: float, samples: int = 10) -> soak_report.Growth:
    return soak_report.Growth(start=start, end=end, max=max(start, end), per_hour=per_hour, samples=samples)


def test_rss_flag_needs_both_the_absolute_and_the_relative_threshold() -> None:
    th = Thresholds(rss_mib_per_h=16, rss_fraction_per_h=0.10)
    # 20 MiB/h on a 100 MiB process: above 16 MiB/h and above 10 MiB/h -> flagged.
    assert flag(_g(100 * MIB, 110 * MIB, 20 * MIB), None, th)
    # 20 MiB/h on a 1 GiB process: below 10 % of start per hour -> not flagged.
    assert flag(_g(1024 * MIB, 1034 * MIB, 20 * MIB), None, th) == []
    # 10 MiB/h on a small process: below the absolute floor -> not flagged.
    assert flag(_g(20 * MIB, 25 * MIB, 10 * MIB), None, th) == []
    # Too few samples to fit a trend: never flagged.
    assert flag(_g(100 * MIB, 200 * MIB, 500 * MIB, samples=2), None, th) == []


def test_fd_flag_needs_a_slope_and_a_real_rise() -> None:
    th = Thresholds(fds_per_h=20, fds_slack=10)
    assert flag(None, _g(40, 80, 80), th) == ["fds +80/h, 40 -> 80"]
    assert flag(None, _g(40, 45, 80), th) == []  # steep but within the slack (sockets come and go)
    assert flag(None, _g(40, 60, 10), th) == []  # a rise but a gentle slope


def _sample(t: float, edge_rss: int, edge_fds: int, with_pg: bool, pg_pid: str = "900") -> dict[str, Any]:
    services: dict[str, Any] = {
        "edge": {
            "rss": edge_rss + 50 * MIB,
            "fds": edge_fds + 10,
            "processes": 2,
            "pids": {
                "100": {"comm": "python", "role": "supervisor", "rss": 50 * MIB, "fds": 10},
                "101": {"comm": "python", "role": "worker", "rss": edge_rss, "fds": edge_fds},
            },
        }
    }
    if with_pg:
        services["postgres"] = {
            "rss": 30 * MIB,
            "fds": 9,
            "processes": 1,
            "pids": {pg_pid: {"comm": "postgres", "role": "", "rss": 30 * MIB, "fds": 9}},
        }
    return {"t": t, "services": services}


def test_service_and_process_growth_flag_the_leaking_worker_only() -> None:
    # The worker leaks 1 MiB and 1 fd a minute (60 MiB/h, 60 fds/h) over 30 minutes.
    samples = [
        _sample(t, 80 * MIB + int(t / 60 * MIB), 40 + int(t / 60), with_pg=t != 600, pg_pid=str(900 + int(t)))
        for t in range(0, 1830, 30)
    ]
    th = Thresholds()
    services = {s["service"]: s for s in soak_report.service_growth(samples, 120, th)}
    edge = services["edge"]
    assert edge["rss"]["per_hour"] == pytest.approx(60 * MIB, rel=0.02)
    assert edge["rss"]["start"] == 132 * MIB and edge["rss"]["end"] == 160 * MIB
    assert edge["fds"]["start"] == 52 and edge["fds"]["end"] == 80
    assert edge["processes"] == (2, 2)
    assert len(edge["flags"]) == 2
    assert services["postgres"]["flags"] == []  # absent from one sample: skipped there, flat elsewhere
    procs = soak_report.process_growth(samples, 120, th)
    by_pid = {p["pid"]: p for p in procs}
    assert set(by_pid) == {100, 101}  # the Postgres backends came and went: not comparable series
    assert by_pid[100]["flags"] == [] and by_pid[101]["flags"]
    assert by_pid[101]["role"] == "worker"


def _result(services: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "started_at": "2026-12-02 07:00",
        "minutes": 30,
        "command": "uv run --no-sync python -m bench.soak --minutes 30",
        "clients": 6,
        "rate": 6.0,
        "warmup_s": 120.0,
        "sample_every_s": 30.0,
        "thresholds": {"rss_mib_per_h": 16.0, "rss_fraction_per_h": 0.1, "fds_per_h": 20.0, "fds_slack": 10},
        "traffic": {
            "chat": {"calls": 100, "ok": 100, "errors": {}},
            "limited": {"calls": 20, "ok": 6, "errors": {"http_429": 14}},
        },
        "oracle": {
            "calls": 106,
            "ledger_rows": 120,
            "lost": 0,
            "duplicates": 0,
            "null_cost": 0,
            "token_diff": 0,
            "micro_usd_diff": 0,
            "estimated_rows": 3,
            "out_of_bound": 0,
            "mismatches": 0,
            "phantom": 0,
            "no_ledger_row": 1,
            "settled_s": 4.2,
        },
        "services": services,
        "processes": [],
        "lag": {"tollway-ledger": {"start": 0, "end": 2, "max": 17}, "tollway-quota": None},
        "journal": {"start": 2048, "end": 4096, "max": 4096},
        "journal_files": {"start": 2, "end": 2, "max": 3},
        "notes": ["a note"],
    }


def test_render_carries_the_figures_and_the_verdict() -> None:
    ok = {"service": "edge", "rss": None, "fds": None, "processes": (2, 2), "flags": []}
    md = soak_report.render(_result([ok]))
    assert md.startswith("## Soak\n")
    assert "`uv run --no-sync python -m bench.soak --minutes 30`" in md
    assert "### Traffic: 120 calls, 106 answered in full" in md
    assert "| limited | 20 | 6 | http_429: 14 |" in md
    assert "| 106 | 120 | 0 | 0 | 0 | 0 | 0 | 3 | 0 | 0 | 0 | 1 | 4 s |" in md
    assert "| lag of `tollway-ledger` (messages) | 0 | 2 | 17 |" in md
    assert "| lag of `tollway-quota` (messages) | – | – | – |" in md
    assert "| edge journal (KiB, all workers) | 2.0 | 4.0 | 4.0 |" in md
    assert "No service's RSS or fds grew above the thresholds" in md
    assert "- a note" in md
    leaking = {
        "service": "ledger",
        "rss": {"start": 80 * MIB, "end": 110 * MIB, "max": 110 * MIB, "per_hour": 60 * MIB, "samples": 57},
        "fds": {"start": 20, "end": 20, "max": 21, "per_hour": 0.0, "samples": 57},
        "processes": (1, 2),
        "flags": ["RSS +60.0 MiB/h (> 16.0)"],
    }
    md = soak_report.render(_result([ok, leaking]))
    assert (
        "| ledger | 1–2 | 80.0 | 110.0 | 110.0 | +60.0 | 20 | 20 | 21 | +0.0 | RSS +60.0 MiB/h (> 16.0) |"
        in md
    )
    assert "Growth above the thresholds: ledger" in md


def test_replace_section_appends_once_and_then_replaces_only_its_own() -> None:
    doc = "# Reliability\n\n| fault | rows |\n|---|---|\n| kafka | 1 |\n\n## Secrets in logs\n\nnone.\n"
    first = replace_section(doc, "## Soak\n\nrun 1\n")
    assert first == doc + "\n## Soak\n\nrun 1\n"
    second = replace_section(first, "## Soak\n\nrun 2\n")
    assert second == doc + "\n## Soak\n\nrun 2\n"
    # A section someone adds after it later survives a re-run.
    later = second + "\n## Later\n\nkept\n"
    third = replace_section(later, "## Soak\n\nrun 3\n")
    assert third == doc + "\n## Soak\n\nrun 3\n\n## Later\n\nkept\n"


def test_parse_metrics_reads_unlabelled_samples_only() -> None:
    text = (
        "# HELP tollway_journal_records x\n# TYPE tollway_journal_records gauge\n"
        "tollway_journal_records 3.0\n"
        'tollway_consumer_lag_messages{partition="1"} 7.0\n'
        "tollway_journal_acked_total 2616.0\n"
        "tollway_journal_bytes 2.969826e+06\n"
    )
    got = soak_report.parse_metrics(
        text, ["tollway_journal_records", "tollway_journal_acked_total", "tollway_journal_bytes", "absent"]
    )
    assert got == {
        "tollway_journal_records": 3.0,
        "tollway_journal_acked_total": 2616.0,
        "tollway_journal_bytes": 2969826.0,
    }


def test_journal_drops_are_the_segment_deletions_only() -> None:
    samples: list[dict[str, Any]] = [
        {"t": 0, "journal_bytes": 10 * MIB},
        {"t": 30, "journal_bytes": None},  # a sample without the journal: skipped
        {"t": 60, "journal_bytes": 20 * MIB},
        {"t": 90, "journal_bytes": 19 * MIB},  # a small dip is not a deletion
        {"t": 120, "journal_bytes": 2 * MIB},
        {"t": 150, "journal_bytes": 3 * MIB},
    ]
    assert soak_report.journal_drops(samples) == [(120, 19 * MIB, 2 * MIB)]
    md = soak_report.render({**_result([]), "samples": samples})
    assert "- the edge journal shrank during the run" in md and "at 120 s from 19.0 to 2.0 MiB" in md
