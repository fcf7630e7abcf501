"""Render results.json as docs/benchmarks.md: every table shows every target, with Tollway ÷ peer ratios."""

from __future__ import annotations

from typing import Any

GOAL_RPS_VS_LITELLM = 20.0
GOAL_RPS_VS_PORTKEY = 2.0
# Issue 9, "Performance": every figure below is a row of the Goals table (goal_rows).
GOAL_EDGE_CPU_MS = 0.4  # edge CPU per call, full path (auth, admission with every limit kind, usage events)
RELAY_TODAY_US = 90.0  # relay CPU per streamed chunk when issue 9 was filed (18.55 ms per 200-chunk stream)
GOAL_RELAY_US = RELAY_TODAY_US / 2  # "at most half of today's"
GOAL_ADDED_P50_MS = 1.0  # added latency at concurrency 1
GOAL_ADDED_P99_MS = 3.0
GOAL_STACK_CPU_MS = 1.0  # whole-stack CPU per call
GOAL_ROUND_TRIPS = 3.0  # Valkey client round trips per call on the default path: admit, release, settle
GOAL_IDLE_RSS_MIB = 60.0  # per edge worker process
GOAL_RPS_VS_PORTKEY_EVERY_C = 1.0  # Tollway (metering on) leads Portkey at every concurrency
# Streams: (chunks, interval ms, ttft ms) -> goal on time to first chunk p95 minus direct's, ms; all must complete.
STREAM_GOALS = {(200, 25, 0): 20.0, (60, 50, 400): 100.0}
GOAL_TTFC_DELTA_MS = 100.0  # a stream shape without its own goal above

PEERS = ("litellm", "litellm-metered", "portkey")
ORDER = ("direct", "tollway", "tollway+redaction", "litellm", "litellm-metered", "portkey", "portkey-patched")
STACK_GROUPS = ("edge", "quota", "ledger", "redactor", "valkey", "kafka", "postgres")
PROFILE_ANCHOR = "#where-the-edges-time-goes-py-spy"
# Sections written by hand (or by other harnesses) that a regenerated page keeps from the previous one.
KEPT_SECTIONS = ("Translated streaming", "Response cache", "Tracing on and off")


def _f(v: float | None, nd: int = 1, unit: str = "") -> str:
    if v is None:
        return "–"
    return f"{v:,.{nd}f}{unit}"


def _ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or b == 0:
        return "–"
    r = a / b
    if 0 < r < 0.5:
        return f"{r:.3g}× (1/{1 / r:,.0f})"
    return f"{r:,.2f}×"


def gateway_group(target: str) -> str:
    if target == "direct":
        return "provider"
    if target.startswith("tollway"):
        return "edge"
    return "gateway"


def ok_calls(step: dict) -> int:
    if "wrk" in step:
        return step["wrk"]["ok"]
    return step["stream"]["completed"]


def cpu_ms_per_call(step: dict, group: str) -> float | None:
    n = ok_calls(step)
    if not n or group not in step["cpu_s"]:
        return None
    return step["cpu_s"][group] * 1000 / n


def stack_cpu_ms_per_call(step: dict) -> float | None:
    """All of the target's own processes (Tollway: edge and its dependencies; peers: the gateway and,
    for litellm-metered, the Valkey its counters live in): every group but the shared provider."""
    n = ok_calls(step)
    if not n:
        return None
    if step["target"].startswith("tollway"):
        total = sum(v for k, v in step["cpu_s"].items() if k in STACK_GROUPS)
    elif step["target"] == "direct":
        total = step["cpu_s"].get("provider", 0.0)
    else:
        total = sum(v for k, v in step["cpu_s"].items() if k != "provider")
    return total * 1000 / n


def loadgen_cpu_ms_per_call(step: dict) -> float | None:
    n = ok_calls(step)
    lg = step["wrk"]["loadgen_cpu_s"] if "wrk" in step else step["stream"]["loadgen_cpu_s"]
    return lg * 1000 / n if n else None


def _steps(results: dict, scenario: str) -> list[dict]:
    return [s for s in results["steps"] if s["scenario"] == scenario]


def _find(results: dict, scenario: str, target: str, concurrency: int | None = None) -> dict | None:
    for s in results["steps"]:
        if (
            s["scenario"] == scenario
            and s["target"] == target
            and (concurrency is None or s["concurrency"] == concurrency)
        ):
            return s
    return None


def _targets(results: dict) -> list[dict]:
    ts = {t["name"]: t for t in results["targets"]}
    return [ts[n] for n in ORDER if n in ts] + [t for n, t in ts.items() if n not in ORDER]


def _available(results: dict) -> list[str]:
    return [t["name"] for t in _targets(results) if not t["unavailable"]]


def _unavailable_note(results: dict, name: str) -> str | None:
    for t in results["targets"]:
        if t["name"] == name:
            return t["unavailable"]
    return "not in this run"


def sweep_table(results: dict) -> tuple[list[str], dict[str, dict[int, dict]]]:
    by: dict[str, dict[int, dict]] = {}
    for s in _steps(results, "sweep"):
        by.setdefault(s["target"], {})[s["concurrency"]] = s
    return sorted({c for d in by.values() for c in d}), by


def knee(series: dict[int, dict]) -> int | None:
    """Smallest concurrency reaching 90% of the peak req/s: past it more load only adds latency."""
    if not series:
        return None
    peak = max(s["wrk"]["rps"] for s in series.values())
    for c in sorted(series):
        if series[c]["wrk"]["rps"] >= 0.9 * peak:
            return c
    return None


def peak_rps(series: dict[int, dict]) -> float | None:
    good = [s["wrk"]["rps"] for s in series.values()]
    return max(good) if good else None


def valkey_per_call(step: dict) -> float | None:
    n = ok_calls(step)
    v = step.get("valkey_commands")
    return v / n if v is not None and n else None


def round_trips_per_call(step: dict) -> dict[str, float] | None:
    """Valkey client round trips per successful call during the step, by service (edge, quota) and
    their sum ("total"); None when a service did not export ``tollway_valkey_round_trips_total``."""
    rt, n = step.get("valkey_round_trips"), ok_calls(step)
    if not rt or not n or any(v is None for v in rt.values()):
        return None
    out = {k: v / n for k, v in rt.items()}
    out["total"] = sum(rt.values()) / n
    return out


def edge_worker_rss(results: dict) -> list[dict] | None:
    """The idle edge's worker processes (those listening on its port), each {pid, comm, rss_bytes}."""
    procs = (results.get("idle") or {}).get("per_process", {}).get("tollway/edge")
    if not procs:
        return None
    return [p for p in procs if p["worker"]] or None


def relay_us_per_chunk(results: dict) -> dict[str, float]:
    """Relay CPU per streamed chunk (µs), every way this run measured it:

    - ``per_chunk``: the edge's CPU per stream in the 200-chunk scenario ÷ 200, the method of the
      issue's 90 µs (it includes each call's fixed cost, a few % of a 200-chunk stream);
    - ``marginal``: (CPU per stream of the longer scenario − of the shorter) ÷ their chunk difference;
    - ``relay_cpu``: services/edge/bench/relay_cpu.py (its own edge, 200- vs 10-chunk streams 2 ms apart).
    """
    out: dict[str, float] = {}
    per: dict[int, float] = {}
    for st in results["steps"]:
        if "stream" in st and st["target"] == "tollway" and st["stream"]["completed"]:
            v = cpu_ms_per_call(st, "edge")
            if v is not None and shape_applied(st):
                per[st["chunks"]] = v
    if per:
        longest = max(per)
        out["per_chunk"] = per[longest] / longest * 1000
        if len(per) > 1:
            shortest = min(per)
            out["marginal"] = (per[longest] - per[shortest]) / (longest - shortest) * 1000
    rc = results.get("relay_cpu") or {}
    if rc.get("relay_us_per_chunk") is not None:
        out["relay_cpu"] = rc["relay_us_per_chunk"]
    return out


def _row(goal: str, target: str, measured: str, met: bool | None, short: str = "", cpu: bool = True) -> dict:
    return {"goal": goal, "target": target, "measured": measured, "met": met, "short": short, "cpu": cpu}


def verdict(row: dict) -> str:
    """The *met* cell: yes / **no** (by how much, and where the time goes) / – (no goal or not measured)."""
    if row["met"] is None:
        return row["short"] or "–"
    if row["met"]:
        return "yes"
    if not row.get("cpu", True):
        return f"**no** ({row['short']})" if row["short"] else "**no**"
    short = f"{row['short']}; " if row["short"] else ""
    return f"**no** ({short}where the time goes: [profile]({PROFILE_ANCHOR}))"


def goal_rows(results: dict) -> list[dict]:
    """One row per goal (issue 9's Performance section, and the earlier peer ratios), each
    {goal, target, measured, met (True/False/None), short (how far off, or why not measured)}."""
    rows: list[dict] = []
    names = _available(results)
    missing_tw = _unavailable_note(results, "tollway") if "tollway" not in names else None
    cs, sweep = sweep_table(results)
    tw = sweep.get("tollway", {})
    for peer, goal in (("litellm", GOAL_RPS_VS_LITELLM), ("portkey", GOAL_RPS_VS_PORTKEY)):
        a, b = peak_rps(tw), peak_rps(sweep.get(peer, {}))
        g = f"peak req/s vs {peer}, full path, equal workers"
        if missing_tw:
            rows.append(_row(g, f"≥ {goal:g}×", missing_tw, None))
        elif b is None or a is None:
            rows.append(
                _row(
                    g,
                    f"≥ {goal:g}×",
                    f"{peer}: {_unavailable_note(results, peer) or 'not in the sweep'}",
                    None,
                )
            )
        else:
            r = a / b if b else 0.0
            rows.append(
                _row(
                    g,
                    f"≥ {goal:g}×",
                    f"{_f(a, 0)} ÷ {_f(b, 0)} = {_ratio(a, b)}",
                    r >= goal,
                    f"short by {goal - r:.1f}×",
                )
            )

    lad = _find(results, "ladder: chat", "tollway") or tw.get(16)
    where = (
        f"ladder chat, c={lad['concurrency']}"
        if lad and lad["scenario"].startswith("ladder")
        else "sweep c=16"
    )
    g = f"edge CPU per call, full path ({where})"
    if lad is None:
        rows.append(
            _row(
                "edge CPU per call, full path", f"≤ {GOAL_EDGE_CPU_MS} ms", missing_tw or "not measured", None
            )
        )
    else:
        v = cpu_ms_per_call(lad, "edge")
        short = f"+{(v or 0) - GOAL_EDGE_CPU_MS:.3f} ms"
        vpc = valkey_per_call(lad)
        if vpc is not None and vpc < 0.9:
            short += f"; ⚠ admission not on the path ({vpc:.2f} Valkey commands per call)"
        rows.append(
            _row(
                g, f"≤ {GOAL_EDGE_CPU_MS} ms", _f(v, 3, " ms"), v is not None and v <= GOAL_EDGE_CPU_MS, short
            )
        )

    relay = relay_us_per_chunk(results)
    g = "relay CPU per streamed chunk (edge)"
    tgt = f"≤ {GOAL_RELAY_US:g} µs (half of {RELAY_TODAY_US:g})"
    if not relay:
        rows.append(
            _row(g, tgt, missing_tw or "not measured (no Tollway stream completed, no relay_cpu run)", None)
        )
    else:
        parts = []
        if "per_chunk" in relay:
            parts.append(f"{relay['per_chunk']:.1f} µs (CPU per 200-chunk stream ÷ 200, the issue's method)")
        if "marginal" in relay:
            parts.append(f"marginal {relay['marginal']:.1f} µs (between the two stream scenarios)")
        if "relay_cpu" in relay:
            parts.append(f"relay_cpu.py {relay['relay_cpu']:.1f} µs")
        judged = relay.get("per_chunk", relay.get("relay_cpu"))
        rows.append(
            _row(g, tgt, "; ".join(parts), judged <= GOAL_RELAY_US, f"+{judged - GOAL_RELAY_US:.1f} µs")
        )

    for scen in dict.fromkeys(st["scenario"] for st in results["steps"] if "stream" in st):
        d, t = _find(results, scen, "direct"), _find(results, scen, "tollway")
        anyst = t or d or next(st for st in results["steps"] if st["scenario"] == scen)
        goal_ms = STREAM_GOALS.get(
            (anyst["chunks"], anyst["interval_ms"], anyst["ttft_ms"]), GOAL_TTFC_DELTA_MS
        )
        g = f"{scen}: all complete, first chunk p95 within {goal_ms:g} ms of direct"
        if not t:
            rows.append(_row(g, "", missing_tw or "not measured", None))
            continue
        ts, ds = t["stream"], d["stream"] if d else None
        dp50 = (
            (ts["ttfc_p50_ms"] - ds["ttfc_p50_ms"])
            if ds and ts["ttfc_p50_ms"] is not None and ds["ttfc_p50_ms"] is not None
            else None
        )
        dp95 = (
            (ts["ttfc_p95_ms"] - ds["ttfc_p95_ms"])
            if ds and ts["ttfc_p95_ms"] is not None and ds["ttfc_p95_ms"] is not None
            else None
        )
        done = ts["completed"] == ts["streams"]
        measured = (
            f"{ts['completed']}/{ts['streams']} done; Δp95 {_f(dp95, 1, ' ms')} (Δp50 {_f(dp50, 1, ' ms')})"
        )
        target = f"{ts['streams']} done, Δp95 ≤ {goal_ms:g} ms"
        if not shape_applied(t):
            rows.append(
                _row(
                    g,
                    target,
                    measured,
                    None,
                    "not comparable: the provider did not stream the asked shape "
                    f"({_f(ts['events_p50'], 0)} events per stream, {t['chunks']} chunks asked"
                    f"{' by model ' + t['model'] if t.get('model') else ''})",
                )
            )
            continue
        short = []
        if not done:
            short.append(f"{ts['streams'] - ts['completed']} incomplete")
        if dp95 is None or dp95 > goal_ms:
            short.append(f"Δp95 +{(dp95 or 0) - goal_ms:.1f} ms over" if dp95 is not None else "no Δp95")
        rows.append(_row(g, target, measured, not short, ", ".join(short)))

    d1, t1 = sweep.get("direct", {}).get(1), tw.get(1)
    for q, goal in (("p50", GOAL_ADDED_P50_MS), ("p99", GOAL_ADDED_P99_MS)):
        g = f"added {q} at concurrency 1"
        if d1 and t1 and t1["wrk"][f"{q}_ms"] is not None and d1["wrk"][f"{q}_ms"] is not None:
            added = t1["wrk"][f"{q}_ms"] - d1["wrk"][f"{q}_ms"]
            rows.append(
                _row(g, f"≤ {goal} ms", _f(added, 2, " ms"), added <= goal, f"+{added - goal:.2f} ms")
            )
        else:
            rows.append(_row(g, f"≤ {goal} ms", missing_tw or "not measured (no sweep at c=1)", None))

    g = f"whole-stack CPU per call ({where if lad else 'chat'})"
    if lad is None:
        rows.append(_row(g, f"≤ {GOAL_STACK_CPU_MS} ms", missing_tw or "not measured", None))
    else:
        v = stack_cpu_ms_per_call(lad)
        parts = ", ".join(
            f"{k} {cpu_ms_per_call(lad, k):.3f}"
            for k in STACK_GROUPS
            if k in lad["cpu_s"] and cpu_ms_per_call(lad, k)
        )
        rows.append(
            _row(
                g,
                f"≤ {GOAL_STACK_CPU_MS} ms",
                f"{_f(v, 3, ' ms')} ({parts})",
                v is not None and v <= GOAL_STACK_CPU_MS,
                f"+{(v or 0) - GOAL_STACK_CPU_MS:.3f} ms",
            )
        )
        rt = round_trips_per_call(lad)
        g = "Valkey client round trips per call (admit, release, settle; no cache, breaker closed)"
        if rt is None:
            why = (
                "not measured in this run"
                if lad.get("valkey_round_trips") is None
                else "not exported: "
                + ", ".join(k for k, v in lad["valkey_round_trips"].items() if v is None)
                + " started from code without tollway_valkey_round_trips_total (restart the stack)"
            )
            rows.append(_row(g, f"≤ {GOAL_ROUND_TRIPS:g}", why, None))
        else:
            rows.append(
                _row(
                    g,
                    f"≤ {GOAL_ROUND_TRIPS:g}",
                    f"{rt['total']:.2f} (edge {rt['edge']:.2f}, quota {rt['quota']:.2f})",
                    rt["total"] <= GOAL_ROUND_TRIPS,
                    f"+{rt['total'] - GOAL_ROUND_TRIPS:.2f}",
                )
            )
        vk, vpc = cpu_ms_per_call(lad, "valkey"), valkey_per_call(lad)
        rows.append(
            _row(
                "Valkey CPU per call (beside the round trips)",
                "reported",
                f"{_f(vk, 3, ' ms')}; {_f(vpc, 2)} commands per call (all clients, commands inside scripts included)",
                None,
            )
        )

    workers = edge_worker_rss(results)
    g = "idle RSS of the edge, per worker process"
    if workers is None:
        rows.append(_row(g, f"≤ {GOAL_IDLE_RSS_MIB:g} MiB", missing_tw or "not measured per process", None))
    else:
        mib = [w["rss_bytes"] / 2**20 for w in workers]
        sup = [p for p in results["idle"]["per_process"]["tollway/edge"] if not p["worker"]]
        sup_mib = ", ".join(f"{p['comm']} {p['rss_bytes'] / 2**20:.0f} MiB" for p in sup)
        extra = f"; not workers: {sup_mib}" if sup else ""
        rows.append(
            _row(
                g,
                f"≤ {GOAL_IDLE_RSS_MIB:g} MiB",
                f"max {max(mib):.0f} MiB over {len(mib)} workers ({', '.join(f'{x:.0f}' for x in mib)}){extra}",
                max(mib) <= GOAL_IDLE_RSS_MIB,
                f"+{max(mib) - GOAL_IDLE_RSS_MIB:.0f} MiB",
                cpu=False,
            )
        )

    g = "req/s vs portkey at every concurrency (Tollway metering on, Portkey none)"
    pk = sweep.get("portkey", {})
    ratios = {
        c: tw[c]["wrk"]["rps"] / pk[c]["wrk"]["rps"]
        for c in cs
        if c in tw and c in pk and pk[c]["wrk"]["rps"]
    }
    if missing_tw or not ratios:
        rows.append(
            _row(
                g,
                f"≥ {GOAL_RPS_VS_PORTKEY_EVERY_C:g}× (min over the sweep)",
                missing_tw or f"portkey: {_unavailable_note(results, 'portkey') or 'not in the sweep'}",
                None,
            )
        )
    else:
        cmin = min(ratios, key=lambda c: ratios[c])
        rows.append(
            _row(
                g,
                f"≥ {GOAL_RPS_VS_PORTKEY_EVERY_C:g}× (min over the sweep)",
                f"min {ratios[cmin]:.2f}× at c={cmin} (c={min(ratios)}..{max(ratios)}: {', '.join(f'{ratios[c]:.2f}' for c in sorted(ratios))})",
                ratios[cmin] >= GOAL_RPS_VS_PORTKEY_EVERY_C,
                f"short by {GOAL_RPS_VS_PORTKEY_EVERY_C - ratios[cmin]:.2f}× at c={cmin}",
            )
        )

    g = "whole-stack CPU per call vs litellm-metered (metering on both sides)"
    lm = _find(results, "ladder: chat", "litellm-metered") or sweep.get("litellm-metered", {}).get(16)
    if lad is None or lm is None:
        rows.append(
            _row(
                g,
                "compared",
                missing_tw
                or f"litellm-metered: {_unavailable_note(results, 'litellm-metered') or 'not measured'}",
                None,
            )
        )
    else:
        a, b = stack_cpu_ms_per_call(lad), stack_cpu_ms_per_call(lm)
        rows.append(
            _row(
                g,
                "compared (no goal)",
                f"tollway {_f(a, 3, ' ms')} vs litellm-metered {_f(b, 3, ' ms')} (proxy + Valkey) = {_ratio(a, b)}",
                None,
            )
        )
    return rows


def kept_sections(previous: str | None) -> dict[str, str]:
    """The sections of a previous page that a regenerated one keeps (KEPT_SECTIONS), by title.

    A section runs from its ``## `` heading to the next one. The translated-streaming block of pages
    written before it had a heading of its own (a bold paragraph inside "## Streaming") is kept too,
    under the heading "## Translated streaming".
    """
    if not previous:
        return {}
    out: dict[str, str] = {}
    sections: list[list[str]] = []
    for line in previous.splitlines():
        if line.startswith("## ") or not sections:
            sections.append([])
        sections[-1].append(line)
    for sec in sections:
        title = sec[0].removeprefix("## ").strip()
        for k in KEPT_SECTIONS:
            if title.startswith(k):
                out[k] = "\n".join(sec).rstrip() + "\n"
        if title == "Streaming" and "Translated streaming" not in out:
            start = next((i for i, ln in enumerate(sec) if ln.startswith("**Translated streaming")), None)
            if start is not None:
                out["Translated streaming"] = (
                    "## Translated streaming (kept from an earlier page)\n\n"
                    + "\n".join(sec[start:]).rstrip()
                    + "\n"
                )
    return out


def translated_section(results: dict) -> str | None:
    """The relay CPU per chunk section from this run's relay_cpu.py figures (None if it did not run)."""
    rc = results.get("relay_cpu")
    if not rc or rc.get("failure") or "relay_us_per_chunk" not in rc:
        return None
    lines = [
        "## Translated streaming (relay CPU per chunk, generated)\n",
        f"`{rc['command']}` in this run ({rc['elapsed_s']:.0f} s): one edge process from this checkout with "
        "admission off, the same chat calls to the fake provider as `kind: openai` (pass-through) and as "
        "`kind: anthropic` (Anthropic's events translated into chat completion chunks); per chunk = (CPU per "
        "200-chunk stream − CPU per 10-chunk stream) / 190; best of the runs per mode.\n",
        "| relay | µs per chunk |\n|---|---|",
        f"| pass-through (OpenAI chunks relayed as they are) | {rc['relay_us_per_chunk']:.1f} |",
    ]
    tr = rc.get("translated_us_per_chunk")
    if tr is not None:
        own = tr - rc["relay_us_per_chunk"]
        pct = own / rc["relay_us_per_chunk"] * 100 if rc["relay_us_per_chunk"] else 0.0
        lines.append(f"| translated (Anthropic events → OpenAI chunks) | {tr:.1f} |")
        lines.append(f"| translation's own cost | {own:+.1f} ({pct:+.0f} %) |")
    lines.append("")
    lines.append("| mode | edge CPU ms per call | latency p50 / p99 ms |\n|---|---|---|")
    for name, m in rc.get("modes", {}).items():
        lines.append(f"| {name} | {m['cpu_ms_per_call']:.3f} | {m['p50_ms']:.2f} / {m['p99_ms']:.2f} |")
    return "\n".join(lines) + "\n"


def _errors_cell(s: dict) -> str:
    r = s["wrk"]
    if r.get("failure"):
        return f"run failed: {r['failure'][:80]}"
    if r["requests"] == 0 and r["errors"] == 0:
        return "no answer within the step"
    return str(r["errors"]) + (f" {r['error_kinds']}" if r["errors"] else "")


def shape_applied(step: dict) -> bool:
    """Did the provider stream the asked number of chunks (i.e. did the shape in the model name reach it)?"""
    ev = step["stream"]["events_p50"]
    return ev is None or ev >= step["chunks"]


def render(results: dict, previous: str | None = None) -> str:
    """docs/benchmarks.md from a results dict; `previous` (the page being replaced) supplies the
    sections kept across runs (:data:`KEPT_SECTIONS`, :func:`kept_sections`)."""
    kept = kept_sections(previous)
    out: list[str] = []
    w = out.append
    names = _available(results)
    m = results["machine"]
    w("# Benchmarks: Tollway beside LiteLLM and Portkey\n")
    if results.get("preliminary"):
        w(
            "> **PRELIMINARY.** Measured while other engineers were using the same 2-core machine and while "
            "parts of Tollway were still being built; absolute numbers are noisy. Read the ratios measured in "
            "one run and the CPU per call, not the throughput alone. The final run replaces this page.\n"
        )
    w(
        f"Generated by `{results['command']}` (or `bash bench/run.sh`) on {results['started_at']} "
        f"(took {results['elapsed_s']:.0f} s), repository at `{results['git']}`. Raw numbers: "
        "[`docs/benchmarks/results.json`](benchmarks/results.json).\n"
    )
    w("## Machine and versions\n")
    w("| | |\n|---|---|")
    w(
        f"| machine | {m['cpus']} CPUs ({m['cpu_model']}), {m['memory_gib']} GiB, {m['os']}, kernel {m['kernel']} |"
    )
    w(
        f"| load average at start / end | {', '.join(f'{x:.2f}' for x in m['loadavg_at_start'])} / "
        f"{', '.join(f'{x:.2f}' for x in results['loadavg_at_end'])} |"
    )
    w(f"| tools | Python {m['python']}, Node {m['node']}, {m['wrk']}, open files {m['nofile']} |")
    for t in _targets(results):
        status = t["unavailable"] or "measured"
        w(
            f"| {t['name']} | {t['version'] or '–'}; workers {t['workers']}; `{t['command'] or '–'}`; {status} |"
        )
    w("")
    for t in _targets(results):
        for n in t["notes"]:
            w(f"- {t['name']}: {n}")
    for n in results.get("notes", []):
        w(f"- {n}")
    st = results["settings"]
    w(
        f"\nEach step runs {st['duration_s']:g} s after a {st['warmup_s']:g} s warm-up per target; steps of all targets "
        "are interleaved so drifting background load hits them alike. Non-stream load: `wrk -t1 -cN --timeout 10s` "
        "with a Lua script for the POST body and headers; streams: "
        f"{st['stream_clients']} asyncio aiohttp client processes opening the streams evenly over "
        f"{st.get('stream_ramp_s', 0):g} s. Chat body: `{st['chat_body']}`.\n"
    )
    w(
        "CPU per call = CPU seconds (utime+stime+cutime+cstime from `/proc/<pid>/stat`, summed over every process of "
        f"the group and its children, over the step plus {st['settle_s']:g} s) ÷ successful calls. *Gateway* = the "
        "edge's processes for Tollway, all processes of the peer otherwise; *stack* adds, for Tollway, quota, ledger, "
        "redactor, Valkey, Kafka and Postgres, for litellm-metered the Valkey holding its counters (all shared with "
        "other users of the machine, so they carry noise). Valkey round trips are counted at Tollway's clients "
        "(`tollway_valkey_round_trips_total` on the edge's and quota's `/metrics`, read before and after each step).\n"
    )

    # --- goals --------------------------------------------------------------------------------------
    cs, sweep = sweep_table(results)
    w("## Goals\n")
    w(
        "Why the missed goals are missed, with profiles and what was tried: "
        "[`edge-performance.md`](edge-performance.md).\n"
    )
    w("| goal | target | measured | met |\n|---|---|---|---|")
    for row in goal_rows(results):
        w(f"| {row['goal']} | {row['target']} | {row['measured']} | {verdict(row)} |")
    if results.get("settings", {}).get("quick"):
        w(
            "\n> **--quick run**: steps of 2 s, streams at 5% of their counts; it proves the harness, not the goals."
        )
    w("")

    # --- idle -----------------------------------------------------------------------------------------
    idle = results.get("idle")
    if idle:
        w("## Idle\n")
        w(
            f"{idle['wall_s']:.1f} s with no load; whole machine busy {idle['machine_busy_cores']:.2f} cores "
            "(other users included).\n"
        )
        w("| process group | processes | CPU (% of a core) | RSS (MiB) |\n|---|---|---|---|")
        for k in idle["cpu_s"]:
            w(
                f"| {k} | {idle['processes'].get(k, 0)} | {idle['cpu_s'][k] / idle['wall_s'] * 100:.1f} | "
                f"{idle['rss_bytes'].get(k, 0) / 2**20:.0f} |"
            )
        w("")

    # --- ladder ---------------------------------------------------------------------------------------
    lsteps = [s for s in results["steps"] if s["scenario"].startswith("ladder")]
    if lsteps:
        c = lsteps[0]["concurrency"]
        w(f"## The ladder (concurrency {c})\n")
        w(
            "Each rung adds work: the provider alone, a health check, an authenticated list, a chat call with the "
            "full path (auth + admission + metering for Tollway), and the same with redaction.\n"
        )
        w(
            "| rung | target | req/s | p50 ms | p99 ms | errors | gateway CPU/call ms | stack CPU/call ms | "
            "provider CPU/call ms | wrk CPU/call ms | machine busy cores |"
        )
        w("|---|---|---|---|---|---|---|---|---|---|---|")
        for s in lsteps:
            r = s["wrk"]
            w(
                f"| {s['scenario'].removeprefix('ladder: ')} `{s['path']}` | {s['target']} | {_f(r['rps'])} | "
                f"{_f(r['p50_ms'], 2)} | {_f(r['p99_ms'], 2)} | {_errors_cell(s)} | "
                f"{_f(cpu_ms_per_call(s, gateway_group(s['target'])), 3)} | {_f(stack_cpu_ms_per_call(s), 3)} | "
                f"{_f(cpu_ms_per_call(s, 'provider'), 3)} | {_f(loadgen_cpu_ms_per_call(s), 3)} | "
                f"{s['machine_busy_cores']:.2f} |"
            )
        red_t = next((t for t in results["targets"] if t["name"] == "tollway+redaction"), None)
        if red_t and red_t.get("redaction_applied") is False:
            w(
                "| | | ⚠ tollway+redaction: the provider received the prompt unredacted; redaction is not on the "
                "edge's path yet, so that row measures the path without redaction work. |||||||||"
            )
        for n in ("tollway+redaction",):
            if n not in names:
                w(f"| chat+redaction | {n} | {_unavailable_note(results, n)} |||||||||")
        for n in ("litellm", "litellm-metered", "portkey", "tollway"):
            if n not in names:
                w(f"| all rungs | {n} | {_unavailable_note(results, n)} |||||||||")
        w("")
        chat = {s["target"]: s for s in lsteps if s["scenario"] in ("ladder: chat",)}
        if "tollway" in chat:
            w("Tollway ÷ peer on the chat rung:\n")
            w("| peer | req/s | gateway CPU per call | p50 |\n|---|---|---|---|")
            for p in PEERS:
                if p in chat:
                    a, b = chat["tollway"], chat[p]
                    w(
                        f"| {p} | {_ratio(a['wrk']['rps'], b['wrk']['rps'])} | "
                        f"{_ratio(cpu_ms_per_call(a, 'edge'), cpu_ms_per_call(b, 'gateway'))} | "
                        f"{_ratio(a['wrk']['p50_ms'], b['wrk']['p50_ms'])} |"
                    )
            w("")
            a = chat["tollway"]
            w("Where Tollway's CPU goes on the chat rung (ms per call):\n")
            w(
                "| "
                + " | ".join(g for g in (*STACK_GROUPS, "provider") if g in a["cpu_s"])
                + " | stack total | wrk |"
            )
            w("|" + "---|" * (sum(1 for g in (*STACK_GROUPS, "provider") if g in a["cpu_s"]) + 2))
            w(
                "| "
                + " | ".join(
                    _f(cpu_ms_per_call(a, g), 3) for g in (*STACK_GROUPS, "provider") if g in a["cpu_s"]
                )
                + f" | {_f(stack_cpu_ms_per_call(a), 3)} | {_f(loadgen_cpu_ms_per_call(a), 3)} |"
            )
            w("")
            vpc = valkey_per_call(a)
            if vpc is not None:
                w(
                    f"Valkey commands per call during this step (all clients): {vpc:.2f}"
                    + (
                        " — below one per call, so admission (one script call per request) is **not on the edge's "
                        "path yet**; the full-path goals are then measured without it."
                        if vpc < 0.9
                        else "."
                    )
                    + "\n"
                )

    # --- sweep ----------------------------------------------------------------------------------------
    if cs:
        cols = [n for n in ORDER if n in sweep] + [n for n in sweep if n not in ORDER]
        peers_in = [p for p in PEERS if p in sweep]
        ratio_cols = [p for p in peers_in if "tollway" in sweep]
        w("## Concurrency sweep (chat, non-stream)\n")
        missing = [n for n in ("tollway", *PEERS) if n not in sweep]
        for n in missing:
            w(f"- {n}: {_unavailable_note(results, n)}")
        if missing:
            w("")

        def table(title: str, cell, ratio_fn=None, ratio_label: str = "") -> None:
            w(f"**{title}**\n")
            hdr = ["c", *cols] + [f"tollway ÷ {p}" for p in ratio_cols] if ratio_fn else ["c", *cols]
            w("| " + " | ".join(hdr) + " |")
            w("|" + "---|" * len(hdr))
            for c in cs:
                row = [str(c)] + [cell(sweep[n].get(c)) if sweep[n].get(c) else "–" for n in cols]
                if ratio_fn:
                    row += [ratio_fn(sweep["tollway"].get(c), sweep[p].get(c)) for p in ratio_cols]
                w("| " + " | ".join(row) + " |")
            w("")

        table(
            "Requests per second (successful)",
            lambda s: _f(s["wrk"]["rps"]),
            lambda a, b: _ratio(a and a["wrk"]["rps"], b and b["wrk"]["rps"]),
        )
        table(
            "Latency p50 / p95 / p99 (ms)",
            lambda s: (
                f"{_f(s['wrk']['p50_ms'], 2)} / {_f(s['wrk']['p95_ms'], 2)} / {_f(s['wrk']['p99_ms'], 2)}"
            ),
        )
        table("Errors (socket errors, timeouts, HTTP ≥ 400)", _errors_cell)
        table(
            "Gateway CPU per call (ms)",
            lambda s: _f(cpu_ms_per_call(s, gateway_group(s["target"])), 3),
            lambda a, b: _ratio(a and cpu_ms_per_call(a, "edge"), b and cpu_ms_per_call(b, "gateway")),
        )
        table(
            "Stack CPU per call (ms) · load generator CPU per call (ms)",
            lambda s: f"{_f(stack_cpu_ms_per_call(s), 3)} · {_f(loadgen_cpu_ms_per_call(s), 3)}",
        )
        w("**Knee and peak** (knee = the smallest concurrency reaching 90% of the peak req/s)\n")
        w("| target | knee | peak req/s | p99 at knee (ms) |\n|---|---|---|---|")
        for n in cols:
            k = knee(sweep[n])
            w(
                f"| {n} | {k or '–'} | {_f(peak_rps(sweep[n]))} | {_f(sweep[n][k]['wrk']['p99_ms'], 2) if k else '–'} |"
            )
        w("")

        # --- added latency at c=1 ---------------------------------------------------------------------
        d1 = sweep.get("direct", {}).get(1)
        if d1:
            w("## Added latency at concurrency 1 (against the provider direct)\n")
            w("| target | p50 ms | p99 ms | added p50 ms | added p99 ms | tollway's added p50 ÷ this |")
            w("|---|---|---|---|---|---|")
            t1 = sweep.get("tollway", {}).get(1)
            t_add = (
                (t1["wrk"]["p50_ms"] - d1["wrk"]["p50_ms"])
                if t1 and t1["wrk"]["p50_ms"] is not None
                else None
            )
            for n in cols:
                s = sweep[n].get(1)
                if not s or s["wrk"]["p50_ms"] is None:
                    continue
                a50 = s["wrk"]["p50_ms"] - d1["wrk"]["p50_ms"]
                a99 = s["wrk"]["p99_ms"] - d1["wrk"]["p99_ms"]
                w(
                    f"| {n} | {_f(s['wrk']['p50_ms'], 3)} | {_f(s['wrk']['p99_ms'], 3)} | "
                    f"{'–' if n == 'direct' else _f(a50, 3)} | {'–' if n == 'direct' else _f(a99, 3)} | "
                    f"{_ratio(t_add, a50) if n in PEERS else '–'} |"
                )
            w("")

    # --- streams --------------------------------------------------------------------------------------
    scen_names = list(dict.fromkeys(s["scenario"] for s in results["steps"] if "stream" in s))
    if scen_names:
        w("## Streaming\n")
        w(
            "The fake provider reads how to stream from the requested model name (`fake-stream-c<chunks>-"
            "i<interval ms>-t<ttft ms>`, the same for every target; Tollway's catalogue routes it to the same "
            "upstream name, LiteLLM and Portkey pass it through), so no gateway needs to forward client headers. "
            "A provider that did not apply the shape shows in the *events* column (the chunks plus 4: role, "
            "finish, usage, `[DONE]`). Time to first chunk is measured by the client from sending the request "
            "to the first body bytes.\n"
        )
        for scen in scen_names:
            steps = {s["target"]: s for s in results["steps"] if s["scenario"] == scen}
            d = steps.get("direct")
            w(f"**{scen}**\n")
            w(
                "| target | completed | failures | events/stream p50 | first chunk p50 / p95 ms | Δ vs direct p50 / p95 ms | "
                "gateway CPU per stream ms | gateway peak RSS MiB | client CPU s | tollway ÷ this: CPU per stream |"
            )
            w("|---|---|---|---|---|---|---|---|---|---|")
            tws = steps.get("tollway")
            for n in [x for x in ORDER if x in steps]:
                s = steps[n]
                r = s["stream"]
                dp = "–"
                if (
                    d
                    and n != "direct"
                    and r["ttfc_p50_ms"] is not None
                    and d["stream"]["ttfc_p50_ms"] is not None
                ):
                    dp = f"{r['ttfc_p50_ms'] - d['stream']['ttfc_p50_ms']:+.1f} / {r['ttfc_p95_ms'] - d['stream']['ttfc_p95_ms']:+.1f}"
                g = gateway_group(n)
                rss = s["peak_rss_bytes"].get(g)
                ratio = (
                    _ratio(cpu_ms_per_call(tws, "edge"), cpu_ms_per_call(s, "gateway"))
                    if tws and n in (*PEERS, "portkey-patched")
                    else "–"
                )
                fails = ", ".join(f"{k}: {v}" for k, v in r["failures"].items()) or "0"
                if r.get("failure"):
                    fails += f" ({r['failure']})"
                ev = _f(r["events_p50"], 0) + ("" if shape_applied(s) else " ⚠ shape not applied")
                w(
                    f"| {n} | {r['completed']}/{r['streams']} | {fails} | {ev} | "
                    f"{_f(r['ttfc_p50_ms'], 1)} / {_f(r['ttfc_p95_ms'], 1)} | {dp} | "
                    f"{_f(cpu_ms_per_call(s, g), 2)} | {_f(rss / 2**20 if rss else None, 0)} | "
                    f"{r['loadgen_cpu_s']:.2f} | {ratio} |"
                )
            for n in ("tollway", "litellm", "portkey", "portkey-patched"):  # litellm-metered: chat only
                if n not in steps:
                    w(f"| {n} | {_unavailable_note(results, n)} |||||||||")
            w("")

    # --- translated streaming (generated from relay_cpu.py, else kept) ------------------------------------
    tsec = translated_section(results) or kept.get("Translated streaming")
    if tsec:
        w(tsec)

    # --- memory ---------------------------------------------------------------------------------------
    w("## Memory (all processes of each gateway)\n")
    workers = edge_worker_rss(results)
    if workers:
        w(
            "Per process, idle: the edge's workers (processes listening on its port) "
            + ", ".join(f"pid {p['pid']} {p['rss_bytes'] / 2**20:.0f} MiB" for p in workers)
            + "; the group's other processes: "
            + (
                ", ".join(
                    f"{p['comm']} {p['rss_bytes'] / 2**20:.0f} MiB"
                    for p in results["idle"]["per_process"]["tollway/edge"]
                    if not p["worker"]
                )
                or "none"
            )
            + ".\n"
        )
    w("| target | idle RSS MiB | peak RSS MiB (any step) | processes |\n|---|---|---|---|")
    for n in names:
        g = gateway_group(n)
        key = f"{n}/{g}"
        idle_rss = idle["rss_bytes"].get(key) if idle else None
        peaks = [s["peak_rss_bytes"].get(g, 0) for s in results["steps"] if s["target"] == n]
        procs = max((s["processes"].get(g, 0) for s in results["steps"] if s["target"] == n), default=0)
        w(
            f"| {n} ({g}) | {_f(idle_rss / 2**20 if idle_rss else None, 0)} | "
            f"{_f(max(peaks) / 2**20 if peaks else None, 0)} | {procs} |"
        )
    w("")

    # --- profile --------------------------------------------------------------------------------------
    prof = results.get("profile") or {"skipped": "this run had --no-profile (or --quick)"}
    if prof:
        w("## Where the edge's time goes (py-spy)\n")
        if "skipped" in prof:
            w(f"Not profiled: {prof['skipped']}\n")
        else:
            w(
                f"`py-spy {prof['command']}` on edge pid {prof['pid']} under chat load at c=16 "
                f"({_f(prof.get('load_rps'))} req/s); {prof['samples']} samples; raw stacks in `{prof['file']}`.\n"
            )
            w("| self: function | share | inclusive: function | share |\n|---|---|---|---|")
            for a, b in zip(
                prof["self"], prof["inclusive"], strict=False
            ):  # the two top lists may differ in length
                w(
                    f"| `{a['function']}` | {a['share'] * 100:.1f}% | `{b['function']}` | {b['share'] * 100:.1f}% |"
                )
            w("")
            if prof.get("by_package"):
                w(
                    "Self time by package (file of the innermost frame): "
                    + ", ".join(f"`{p['function']}` {p['share'] * 100:.1f}%" for p in prof["by_package"])
                    + ".\n"
                )

    # --- sections other harnesses fill (kept from the previous page) -----------------------------------
    for k in KEPT_SECTIONS[1:]:
        if k in kept:
            w(kept[k])

    # --- noise ------------------------------------------------------------------------------------------
    w("## Noise\n")
    w(
        "Each step records how many cores the whole machine was busy (all users). Busy cores well above the sum "
        "of the measured groups mean another engineer's work competed for the CPU during that step.\n"
    )
    steps = results["steps"]
    for s in steps:
        if s.get("note"):
            w(f"- {s['scenario']} · {s['target']} · c={s['concurrency']}: {s['note']}")
    if any(s.get("note") for s in steps):
        w("")
    if steps:
        busy = [s["machine_busy_cores"] for s in steps]
        w(
            f"Machine busy cores per step: min {min(busy):.2f}, median {sorted(busy)[len(busy) // 2]:.2f}, "
            f"max {max(busy):.2f} (of {m['cpus']}).\n"
        )
    return "\n".join(out) + "\n"


def main() -> None:  # pragma: no cover - re-render without re-running: python -m bench.report
    import json
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "docs"
    results: dict[str, Any] = json.loads((root / "benchmarks/results.json").read_text())
    md = root / "benchmarks.md"
    md.write_text(render(results, md.read_text() if md.exists() else None))
    print(f"wrote {root / 'benchmarks.md'}", file=sys.stderr)


if __name__ == "__main__":
    main()
