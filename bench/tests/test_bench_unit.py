"""The harness's pure parts: /proc parsing, the wrk script, percentiles, the profile summary, the report."""

from __future__ import annotations

import copy
import os

import pytest

from bench import report
from bench.edge_profile import summarise
from bench.load import percentile, wrk_script
from bench.procs import descendants, read_stat

pytestmark = pytest.mark.unit


def test_read_stat_of_this_process() -> None:
    st = read_stat(os.getpid())
    assert st is not None
    assert st.pid == os.getpid() and st.ppid == os.getppid()
    assert st.ticks >= 0 and st.rss_bytes > 0
    assert os.getpid() in descendants([os.getpid()])


def test_read_stat_of_a_gone_process_is_none() -> None:
    assert read_stat(2**22 + 12345) is None


def test_wrk_script_quotes_body_and_headers_as_long_strings() -> None:
    body = b'{"a": "]=]", "b": "x"}'
    s = wrk_script("POST", body, {"authorization": "Bearer k", "x-portkey-custom-host": "http://h/v1"})
    assert 'wrk.method = "POST"' in s
    assert 'wrk.body = [==[{"a": "]=]", "b": "x"}]==]' in s  # the body holds ]=], so one level deeper
    # `wrk.headers[[` would open a Lua long string: there must be a space after the bracket
    assert "wrk.headers[ [=[authorization]=] ] = [=[Bearer k]=]" in s
    assert "BENCHJSON" in s


def test_percentile_nearest_rank() -> None:
    assert percentile([], 50) is None
    assert percentile([5.0], 99) == 5.0
    values = [float(i) for i in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 95) == 95.0
    assert percentile(values, 100) == 100.0


def test_profile_summary_shares() -> None:
    raw = (
        "thread (0x1);main (app/x.py:1);handle (tollway_edge/handlers.py:10);dumps (orjson/__init__.py:3) 3\n"
        "thread (0x1);main (app/x.py:1);handle (tollway_edge/handlers.py:12) 1\n"
    )
    s = summarise(raw)
    assert s["samples"] == 4
    assert s["self"][0] == {"function": "dumps (orjson/__init__.py)", "share": 0.75}
    incl = {d["function"]: d["share"] for d in s["inclusive"]}
    assert incl["handle (tollway_edge/handlers.py)"] == 1.0
    assert {d["function"] for d in s["by_package"]} == {"orjson", "tollway_edge"}


def _wrk_step(
    target: str, c: int, rps: float, p50: float, cpu: dict[str, float], ok: int, scenario: str = "sweep"
) -> dict:
    return {
        "scenario": scenario,
        "target": target,
        "path": "/v1/chat/completions",
        "concurrency": c,
        "wrk": {
            "concurrency": c,
            "duration_s": 5,
            "requests": ok,
            "ok": ok,
            "errors": 0,
            "error_kinds": {},
            "rps": rps,
            "p50_ms": p50,
            "p90_ms": p50 * 2,
            "p95_ms": p50 * 2,
            "p99_ms": p50 * 3,
            "mean_ms": p50,
            "max_ms": p50 * 4,
            "loadgen_cpu_s": 0.1,
            "failure": None,
        },
        "cpu_s": cpu,
        "peak_rss_bytes": {k: 50 * 2**20 for k in cpu},
        "processes": {k: 1 for k in cpu},
        "wall_s": 5.5,
        "machine_busy_cores": 1.5,
        "note": None,
    }


RESULTS = {
    "started_at": "2026-11-29T00:00:00+00:00",
    "elapsed_s": 1.0,
    "preliminary": True,
    "command": "x",
    "git": "abc",
    "loadavg_at_end": [0, 0, 0],
    "notes": [],
    "machine": {
        "cpus": 2,
        "cpu_model": "cpu",
        "memory_gib": 1,
        "os": "os",
        "kernel": "k",
        "python": "3.11",
        "node": "v20",
        "wrk": "wrk",
        "loadavg_at_start": [0, 0, 0],
        "nofile": 1024,
    },
    "settings": {
        "duration_s": 5,
        "warmup_s": 2,
        "settle_s": 0.5,
        "stream_clients": 2,
        "stream_ramp_s": 1,
        "chat_body": "{}",
    },
    "targets": [
        {
            "name": "direct",
            "kind": "floor",
            "version": "",
            "workers": 1,
            "command": "",
            "unavailable": None,
            "notes": [],
        },
        {
            "name": "tollway",
            "kind": "tollway",
            "version": "",
            "workers": 1,
            "command": "",
            "unavailable": None,
            "notes": [],
        },
        {
            "name": "litellm",
            "kind": "peer",
            "version": "",
            "workers": 1,
            "command": "",
            "unavailable": None,
            "notes": [],
        },
        {
            "name": "portkey",
            "kind": "peer",
            "version": "",
            "workers": 1,
            "command": "",
            "unavailable": "Portkey npm install failed: E404",
            "notes": [],
        },
    ],
    "steps": [
        _wrk_step("direct", 1, 2000, 0.3, {"provider": 1.0}, 10000),
        _wrk_step("tollway", 1, 1000, 0.8, {"edge": 2.0, "valkey": 0.5, "provider": 1.0}, 5000),
        _wrk_step("litellm", 1, 20, 50.0, {"gateway": 5.0, "provider": 0.02}, 100),
        _wrk_step("direct", 16, 4000, 4.0, {"provider": 2.0}, 20000),
        _wrk_step("tollway", 16, 1500, 10.0, {"edge": 2.25, "valkey": 0.5, "provider": 1.0}, 7500),
        _wrk_step("litellm", 16, 25, 600.0, {"gateway": 6.0, "provider": 0.02}, 125),
    ],
}


def test_report_shows_every_target_ratios_and_goals() -> None:
    md = report.render(copy.deepcopy(RESULTS))
    assert "PRELIMINARY" in md
    # peak 1500 vs 25 req/s = 60x, the goal is 20x
    assert "| peak req/s vs litellm, full path, equal workers | ≥ 20× | 1,500 ÷ 25 = 60.00× | yes |" in md
    # a peer that failed to install is reported with its error, never dropped
    assert "Portkey npm install failed: E404" in md
    # edge CPU per call at c=1: 2.0 s / 5000 calls = 0.4 ms; added p50 = 0.8 - 0.3 = 0.5 ms
    assert "| 1 | 0.100 | 0.400 | 50.000 |" in md
    assert "| added p50 at concurrency 1 | ≤ 1.0 ms | 0.50 ms | yes |" in md
    assert "tollway ÷ litellm" in md


def test_knee_is_first_concurrency_at_90_percent_of_peak() -> None:
    series = {c: {"wrk": {"rps": r}} for c, r in {1: 100, 2: 180, 4: 300, 8: 320, 16: 310}.items()}
    assert report.knee(series) == 4
    assert report.peak_rps(series) == 320


# --- the stream shape travels in the model name, the same for every target --------------------------


def test_stream_models_encode_each_scenario_shape() -> None:
    from bench import targets
    from tollway_testing.fake_provider import ModelShape, parse_model_shape

    for _, chunks, interval, ttft in targets.STREAM_SCENARIOS.values():
        name = targets.stream_model(chunks, interval, ttft)
        assert parse_model_shape(name) == ModelShape(chunks, interval, ttft, chunks)


def test_catalogue_routes_every_stream_model_to_the_same_upstream_name() -> None:
    from bench import targets
    from tollway_contracts.catalogue import load_catalogue

    cat = load_catalogue(targets.REPO / "infra" / "catalogue.yaml")
    for name in targets.STREAM_MODELS:
        assert name in cat.models, f"{name} missing from infra/catalogue.yaml"
        assert [r.upstream_model for r in cat.models[name].routes] == [name]


def test_litellm_config_passes_every_bench_model_through() -> None:
    import yaml

    from bench import targets

    cfg = yaml.safe_load(targets.litellm_config("http://127.0.0.1:9000"))
    routes = {m["model_name"]: m["litellm_params"] for m in cfg["model_list"]}
    assert set(routes) == {targets.MODEL, *targets.STREAM_MODELS}
    for name, params in routes.items():
        assert params["model"] == f"openai/{name}"
        assert params["api_base"] == "http://127.0.0.1:9000/v1"


def test_stream_body_carries_the_shape_in_the_model() -> None:
    import orjson

    from bench.__main__ import stream_body

    body = orjson.loads(stream_body(60, 50, 400))
    assert body["model"] == "fake-stream-c60-i50-t400"
    assert body["stream"] is True
