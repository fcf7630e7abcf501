"""The soak's pure parts: growth fits over the samples and the markdown report.

No I/O here (``bench/soak.py`` collects, this computes and renders), so it is unit-tested in
``bench/tests/test_soak_unit.py``. Units: time in seconds since the soak's start, RSS in bytes,
open file descriptors as counts, growth per hour from a least-squares line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Thresholds:
    """When growth is flagged (per hour, from the linear fit after warm-up).

    RSS: more than ``rss_mib_per_h`` MiB/h *and* more than ``rss_fraction_per_h`` of the
    start value per hour (so a 3 GB JVM is not flagged for a few MiB and a 20 MB helper is
    not flagged for noise). fds: more than ``fds_per_h`` descriptors/h *and* the end above
    the start by more than ``fds_slack`` (sockets come and go with the load).
    """

    rss_mib_per_h: float = 16.0
    rss_fraction_per_h: float = 0.10
    fds_per_h: float = 20.0
    fds_slack: int = 10


def slope_per_hour(points: Sequence[tuple[float, float]]) -> float:
    """Least-squares slope of ``(t_seconds, value)`` points, in value units per hour.

    0.0 with fewer than two points or when every t is equal.
    """
    n = len(points)
    if n < 2:
        return 0.0
    mt = sum(t for t, _ in points) / n
    mv = sum(v for _, v in points) / n
    var = sum((t - mt) ** 2 for t, _ in points)
    if var == 0:
        return 0.0
    cov = sum((t - mt) * (v - mv) for t, v in points)
    return cov / var * 3600.0


@dataclass(slots=True)
class Growth:
    """One series' figures after warm-up: start (first sample), end (last), max, growth/h."""

    start: float
    end: float
    max: float
    per_hour: float
    samples: int


def growth(points: Sequence[tuple[float, float]], warmup_s: float) -> Growth | None:
    """Figures of the points at or after ``warmup_s`` (None if there are none)."""
    after = [(t, v) for t, v in points if t >= warmup_s]
    if not after:
        return None
    return Growth(
        start=after[0][1],
        end=after[-1][1],
        max=max(v for _, v in after),
        per_hour=slope_per_hour(after),
        samples=len(after),
    )


def flag(rss: Growth | None, fds: Growth | None, th: Thresholds) -> list[str]:
    """The reasons a service's (or process's) growth is above :class:`Thresholds` (empty: fine)."""
    reasons: list[str] = []
    if rss is not None and rss.samples >= 3:
        limit = max(th.rss_mib_per_h * MIB, th.rss_fraction_per_h * rss.start)
        if rss.per_hour > limit:
            reasons.append(f"RSS +{rss.per_hour / MIB:.1f} MiB/h (> {limit / MIB:.1f})")
    if fds is not None and fds.samples >= 3:
        if fds.per_hour > th.fds_per_h and fds.end - fds.start > th.fds_slack:
            reasons.append(f"fds +{fds.per_hour:.0f}/h, {fds.start:.0f} -> {fds.end:.0f}")
    return reasons


def service_growth(
    samples: Sequence[Mapping[str, Any]], warmup_s: float, th: Thresholds
) -> list[dict[str, Any]]:
    """Per service: RSS and fds (summed over its processes) at start, end, max and per hour.

    ``samples``: ``[{"t": s, "services": {name: {"rss": bytes, "fds": n, "processes": n}}}]``.
    A service absent from a sample (nothing listening) is skipped in that sample.
    """
    names: list[str] = []
    for s in samples:
        for name in s["services"]:
            if name not in names:
                names.append(name)
    out: list[dict[str, Any]] = []
    for name in names:
        present = [(s["t"], s["services"][name]) for s in samples if name in s["services"]]
        rss = growth([(t, float(v["rss"])) for t, v in present], warmup_s)
        fds = growth([(t, float(v["fds"])) for t, v in present], warmup_s)
        procs = [v["processes"] for t, v in present if t >= warmup_s]
        out.append(
            {
                "service": name,
                "rss": asdict(rss) if rss else None,
                "fds": asdict(fds) if fds else None,
                "processes": (min(procs), max(procs)) if procs else None,
                "flags": flag(rss, fds, th),
            }
        )
    return out


def process_growth(
    samples: Sequence[Mapping[str, Any]], warmup_s: float, th: Thresholds
) -> list[dict[str, Any]]:
    """Per process alive in every sample after warm-up: the same figures as :func:`service_growth`.

    ``samples[i]["services"][name]["pids"]``: ``{pid: {"comm": str, "rss": bytes, "fds": n}}``
    (pids may be str after a JSON round trip). Processes that came or went (a Postgres backend
    of someone else's test, a restarted worker) are left out: their series is not comparable.
    """
    after = [s for s in samples if s["t"] >= warmup_s]
    if not after:
        return []
    out: list[dict[str, Any]] = []
    for name, first in after[0]["services"].items():
        for pid, info in first.get("pids", {}).items():
            series = []
            for s in after:
                p = s["services"].get(name, {}).get("pids", {}).get(pid)
                if p is None:
                    break
                series.append((s["t"], p))
            if len(series) != len(after):
                continue
            rss = growth([(t, float(p["rss"])) for t, p in series], warmup_s)
            fds = growth([(t, float(p["fds"])) for t, p in series], warmup_s)
            out.append(
                {
                    "service": name,
                    "pid": int(pid),
                    "comm": info.get("comm", ""),
                    "role": info.get("role", ""),
                    "rss": asdict(rss) if rss else None,
                    "fds": asdict(fds) if fds else None,
                    "flags": flag(rss, fds, th),
                }
            )
    return out


def parse_metrics(text: str, names: Sequence[str]) -> dict[str, float]:
    """The values of unlabelled samples ``names`` in a Prometheus text exposition (absent: left out)."""
    wanted = set(names)
    out: dict[str, float] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name, _, value = line.partition(" ")
        if name in wanted:
            try:
                out[name] = float(value.split()[0])
            except (ValueError, IndexError):
                continue
    return out


def journal_drops(
    samples: Sequence[Mapping[str, Any]], fraction: float = 0.5
) -> list[tuple[float, int, int]]:
    """``(t, bytes before, bytes after)`` wherever the journal shrank by more than ``fraction`` between
    two samples: a sealed segment deleted once Kafka acknowledged all it held."""
    out: list[tuple[float, int, int]] = []
    prev: int | None = None
    for s in samples:
        cur = s.get("journal_bytes")
        if cur is None:
            continue
        if prev is not None and prev > 0 and cur < prev * (1 - fraction):
            out.append((s["t"], prev, cur))
        prev = cur
    return out


def _mib(v: float | None) -> str:
    return "–" if v is None else f"{v / MIB:.1f}"


def _series_cells(g: Mapping[str, Any] | None, mib: bool) -> list[str]:
    if g is None:
        return ["–"] * 4
    if mib:
        return [_mib(g["start"]), _mib(g["end"]), _mib(g["max"]), f"{g['per_hour'] / MIB:+.1f}"]
    return [f"{g['start']:.0f}", f"{g['end']:.0f}", f"{g['max']:.0f}", f"{g['per_hour']:+.1f}"]


def render(result: Mapping[str, Any], heading: str = "##") -> str:
    """The soak's markdown section from its result dict (the raw JSON ``bench/soak.py`` writes).

    Keys used: ``started_at``, ``minutes``, ``command``, ``clients``, ``rate``, ``warmup_s``,
    ``sample_every_s``, ``thresholds``, ``traffic`` (per kind: calls, ok, errors),
    ``oracle`` (OracleReport.summary() plus ``no_ledger_row``), ``services``, ``processes``,
    ``lag`` and ``journal`` (start/end/max), ``notes``.
    """
    lines: list[str] = []
    h = heading
    lines.append(f"{h} Soak")
    lines.append("")
    lines.append(
        f"{result['minutes']:g} minutes of mixed traffic against the running local stack, started "
        f"{result['started_at']} (UTC); {result['clients']} concurrent clients at about "
        f"{result['rate']:g} calls/s in all; every {result['sample_every_s']:g} s the RSS and open "
        f"file descriptors of every process of every service, the ledger's and quota's Kafka lag "
        f"and the edge journal's size were sampled. Start = first sample after a "
        f"{result['warmup_s']:g} s warm-up; growth = least-squares slope after warm-up, per hour."
    )
    lines.append("")
    lines.append(f"Command: `{result['command']}`")
    lines.append("")
    traffic = result["traffic"]
    total = sum(k["calls"] for k in traffic.values())
    ok = sum(k["ok"] for k in traffic.values())
    lines.append(f"{h}# Traffic: {total} calls, {ok} answered in full")
    lines.append("")
    lines.append("| kind | calls | ok | errors by kind |")
    lines.append("|---|---:|---:|---|")
    for kind, k in traffic.items():
        errs = ", ".join(f"{e}: {n}" for e, n in sorted(k["errors"].items())) or "–"
        lines.append(f"| {kind} | {k['calls']} | {k['ok']} | {errs} |")
    lines.append("")
    o = result["oracle"]
    lines.append(f"{h}# Billing, call by call (the provider's log vs `ledger.usage_records`)")
    lines.append("")
    lines.append(
        "| billable calls at the provider | ledger rows (run's calls) | lost | duplicates | NULL cost "
        "| token diff | micro-USD diff | estimated rows | out of bound | mismatches | phantom "
        "| calls without a ledger row | settled after |"
    )
    lines.append("|" + "---:|" * 13)
    lines.append(
        f"| {o['calls']} | {o['ledger_rows']} | {o['lost']} | {o['duplicates']} | {o['null_cost']} "
        f"| {o['token_diff']} | {o['micro_usd_diff']} | {o['estimated_rows']} | {o['out_of_bound']} "
        f"| {o['mismatches']} | {o['phantom']} | {o.get('no_ledger_row', 0)} "
        f"| {o.get('settled_s', 0):.0f} s |"
    )
    lines.append("")
    lines.append(f"{h}# Memory and file descriptors per service")
    lines.append("")
    lines.append(
        "| service | processes | RSS start MiB | end | max | MiB/h | fds start | end | max | fds/h | flag |"
    )
    lines.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for s in result["services"]:
        procs = s["processes"]
        p = "–" if not procs else (f"{procs[0]}" if procs[0] == procs[1] else f"{procs[0]}–{procs[1]}")
        cells = _series_cells(s["rss"], True) + _series_cells(s["fds"], False)
        lines.append(
            f"| {s['service']} | {p} | " + " | ".join(cells) + f" | {'; '.join(s['flags']) or 'ok'} |"
        )
    lines.append("")
    flagged = [p for p in result.get("processes", []) if p["flags"]]
    watched = [p for p in result.get("processes", []) if p.get("role")]
    shown = watched + [p for p in flagged if p not in watched]
    if shown:
        lines.append(f"{h}# Per process (the services' own processes alive throughout, and any flagged)")
        lines.append("")
        lines.append(
            "| service | pid | role | RSS start MiB | end | max | MiB/h | fds start | end | max | fds/h | flag |"
        )
        lines.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for p in shown:
            cells = _series_cells(p["rss"], True) + _series_cells(p["fds"], False)
            lines.append(
                f"| {p['service']} | {p['pid']} | {p.get('role') or p['comm']} | "
                + " | ".join(cells)
                + f" | {'; '.join(p['flags']) or 'ok'} |"
            )
        lines.append("")
    lines.append(f"{h}# Kafka lag and the journal")
    lines.append("")
    lines.append("| series | start | end | max |")
    lines.append("|---|---:|---:|---:|")
    for name, g in result["lag"].items():
        lines.append(
            f"| lag of `{name}` (messages) | "
            + (" | ".join(f"{g[k]:.0f}" for k in ("start", "end", "max")) if g else "– | – | –")
            + " |"
        )
    j = result["journal"]
    lines.append(
        "| edge journal (KiB, all workers) | "
        + (" | ".join(f"{j[k] / 1024:.1f}" for k in ("start", "end", "max")) if j else "– | – | –")
        + " |"
    )
    for key, label in (
        ("journal_unacked", "edge journal: records not yet acknowledged by Kafka"),
        ("journal_oldest_s", "edge journal: oldest unacknowledged record's age (s)"),
    ):
        g = result.get(key)
        if g:
            lines.append(f"| {label} | " + " | ".join(f"{g[k]:.0f}" for k in ("start", "end", "max")) + " |")
    jf = result.get("journal_files")
    if jf:
        lines.append(
            "| edge journal (files, all workers) | "
            + " | ".join(f"{jf[k]:.0f}" for k in ("start", "end", "max"))
            + " |"
        )
    lines.append("")
    flagged_services = [s["service"] for s in result["services"] if s["flags"]]
    verdict = (
        "No service's RSS or fds grew above the thresholds"
        if not flagged_services
        else "Growth above the thresholds: " + ", ".join(flagged_services)
    )
    th = result["thresholds"]
    lines.append(
        f"{verdict} (flagged when RSS grows > max({th['rss_mib_per_h']:g} MiB/h, "
        f"{th['rss_fraction_per_h']:.0%} of start per hour), or fds > {th['fds_per_h']:g}/h and end > start + "
        f"{th['fds_slack']})."
    )
    drops = journal_drops(result.get("samples", []))
    if drops:
        lines.append(
            "- the edge journal shrank during the run (sealed segments deleted once acknowledged): "
            + ", ".join(f"at {t:.0f} s from {b / MIB:.1f} to {a / MIB:.1f} MiB" for t, b, a in drops)
        )
    for note in result.get("notes", []):
        lines.append(f"- {note}")
    observations = result.get("observations", [])
    if observations:
        lines.append("")
        lines.append("Observations written after the run (the JSON's `observations`):")
        lines.append("")
        lines.extend(f"- {o}" for o in observations)
    lines.append("")
    return "\n".join(lines)


def replace_section(doc: str, section: str, title: str = "## Soak") -> str:
    """``doc`` with its ``title`` section (up to the next ``## `` heading or the end) replaced by
    ``section``, or ``section`` appended at the end when there is none yet."""
    lines = doc.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip() == title), None)
    body = section if section.endswith("\n") else section + "\n"
    if start is None:
        sep = "" if not doc or doc.endswith("\n\n") else ("\n" if doc.endswith("\n") else "\n\n")
        return doc + sep + body
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
        len(lines),
    )
    tail = "".join(lines[end:])
    return "".join(lines[:start]) + body + ("\n" + tail if tail else "")
