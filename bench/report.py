"""Render results.json as docs/benchmarks.md: every table shows every target, with Tollway ÷ peer ratios."""

from __future__ import annotations

from typing import Any

GOAL_RPS_VS_LITELLM = 20.0
GOAL_RPS_VS_PORTKEY = 2.0
GOAL_EDGE_CPU_MS = 0.4
GOAL_ADDED_P50_MS = 1.0
GOAL_TTFC_DELTA_MS = 100.0

PEERS = ("litellm", "portkey")
ORDER = ("direct", "tollway", "tollway+redaction", "litellm", "portkey", "portkey-patched")
STACK_GROUPS = ("edge", "quota", "ledger", "redactor", "valkey", "kafka", "postgres")


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
    """All of the target's own processes (Tollway: edge and its dependencies; peers: the gateway)."""
    n = ok_calls(step)
    if not n:
        return None
    if step["target"].startswith("tollway"):
        total = sum(v for k, v in step["cpu_s"].items() if k in STACK_GROUPS)
    elif step["target"] == "direct":
        total = step["cpu_s"].get("provider", 0.0)
    else:
        total = step["cpu_s"].get("gateway", 0.0)
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


def render(results: dict) -> str:
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
        "redactor, Valkey, Kafka and Postgres (all shared with other users of the machine, so they carry noise).\n"
    )

    # --- goals --------------------------------------------------------------------------------------
    w("## Goals\n")
    w(
        "Why the missed goals are missed, with profiles and what was tried: "
        "[`edge-performance.md`](edge-performance.md).\n"
    )
    w("| goal | target | measured | met |\n|---|---|---|---|")
    cs, sweep = sweep_table(results)
    tw = sweep.get("tollway", {})
    for peer, goal in (("litellm", GOAL_RPS_VS_LITELLM), ("portkey", GOAL_RPS_VS_PORTKEY)):
        a, b = peak_rps(tw), peak_rps(sweep.get(peer, {}))
        if "tollway" not in names:
            w(
                f"| peak req/s vs {peer}, full path, equal workers | ≥ {goal:g}× | {_unavailable_note(results, 'tollway')} | – |"
            )
        elif b is None:
            w(f"| peak req/s vs {peer} | ≥ {goal:g}× | {peer}: {_unavailable_note(results, peer)} | – |")
        else:
            r = a / b if b else None
            met = "yes" if r is not None and r >= goal else f"**no** (short by {goal - (r or 0):.1f}×)"
            w(
                f"| peak req/s vs {peer}, full path, equal workers | ≥ {goal:g}× | {_f(a, 0)} ÷ {_f(b, 0)} = {_ratio(a, b)} | {met} |"
            )
    lad = _find(results, "ladder: chat", "tollway")
    if lad:
        v = cpu_ms_per_call(lad, "edge")
        met = (
            "yes"
            if v is not None and v <= GOAL_EDGE_CPU_MS
            else f"**no** (+{(v or 0) - GOAL_EDGE_CPU_MS:.3f} ms)"
        )
        vpc = valkey_per_call(lad)
        if vpc is not None and vpc < 0.9:
            met += f" ⚠ admission not on the path ({vpc:.2f} Valkey commands per call)"
        w(
            f"| edge CPU per call, full path (ladder chat, c={lad['concurrency']}) | ≤ {GOAL_EDGE_CPU_MS} ms | {_f(v, 3, ' ms')} | {met} |"
        )
    else:
        w(f"| edge CPU per call | ≤ {GOAL_EDGE_CPU_MS} ms | {_unavailable_note(results, 'tollway')} | – |")
    d1, t1 = sweep.get("direct", {}).get(1), tw.get(1)
    if d1 and t1 and t1["wrk"]["p50_ms"] is not None:
        added = t1["wrk"]["p50_ms"] - d1["wrk"]["p50_ms"]
        met = "yes" if added <= GOAL_ADDED_P50_MS else f"**no** (+{added - GOAL_ADDED_P50_MS:.2f} ms)"
        w(f"| added p50 at concurrency 1 | ≤ {GOAL_ADDED_P50_MS} ms | {_f(added, 2, ' ms')} | {met} |")
    else:
        w(
            f"| added p50 at concurrency 1 | ≤ {GOAL_ADDED_P50_MS} ms | {_unavailable_note(results, 'tollway') or 'not measured'} | – |"
        )
    for scen in dict.fromkeys(s["scenario"] for s in results["steps"] if "stream" in s):
        d, t = _find(results, scen, "direct"), _find(results, scen, "tollway")
        if not t:
            w(
                f"| {scen}: all complete, first chunk within {GOAL_TTFC_DELTA_MS:g} ms of direct | | "
                f"{_unavailable_note(results, 'tollway')} | – |"
            )
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
        good = (
            ts["completed"] == ts["streams"]
            and dp50 is not None
            and dp95 is not None
            and max(dp50, dp95) <= GOAL_TTFC_DELTA_MS
        )
        verdict = "yes" if good else "**no**"
        if not shape_applied(t):
            verdict = (
                "not comparable: the provider did not stream the asked shape "
                f"({_f(ts['events_p50'], 0)} events per stream, {t['chunks']} chunks asked"
                f"{' by model ' + t['model'] if t.get('model') else ''})"
            )
        w(
            f"| {scen}: all complete, first chunk within {GOAL_TTFC_DELTA_MS:g} ms of direct | {ts['streams']} done, Δ ≤ 100 ms | "
            f"{ts['completed']}/{ts['streams']} done; Δp50 {_f(dp50, 1, ' ms')}, Δp95 {_f(dp95, 1, ' ms')} | "
            f"{verdict} |"
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
        for n in ("litellm", "portkey", "tollway"):
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
            for n in ("tollway", *PEERS, "portkey-patched"):
                if n not in steps:
                    w(f"| {n} | {_unavailable_note(results, n)} |||||||||")
            w("")

    # --- memory ---------------------------------------------------------------------------------------
    w("## Memory (all processes of each gateway)\n")
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
    prof = results.get("profile")
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
    (root / "benchmarks.md").write_text(render(results))
    print(f"wrote {root / 'benchmarks.md'}", file=sys.stderr)


if __name__ == "__main__":
    main()
