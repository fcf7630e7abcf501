"""Bad input: schemathesis against a private edge, from OpenAI's own OpenAPI
description (vendored: ``tollway_contracts.vendor.openai_openapi_path()``), for
every OpenAI endpoint the edge serves.

For every generated request (valid and not): no 500, no 503 (nothing is
unavailable here: a 503 would tell a client to retry a request that can never
succeed), and every error in OpenAI's format (a JSON ``{"error": {"message",
"type", ...}}``). Afterwards the oracle finds nothing billed for a call the
provider did not answer billably (``phantom``) and every answered call billed.

Driven through ``schema.get_all_operations()`` and hypothesis ``@given`` (the
pytest integration of schemathesis does not work with this pytest:
``'Function' object has no attribute '_nodeid'``).
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass, field
from typing import Any

import pytest
import requests
import schemathesis
import yaml
from hypothesis import HealthCheck, given, settings

from tollway_contracts.vendor import openai_openapi_path

from .rig import rig, write_result

pytestmark = pytest.mark.integration

SERVED = {
    ("POST", "/chat/completions"),
    ("POST", "/completions"),
    ("POST", "/embeddings"),
    ("POST", "/moderations"),
    ("POST", "/responses"),
    ("GET", "/responses/{response_id}"),
    ("DELETE", "/responses/{response_id}"),
    ("GET", "/responses/{response_id}/input_items"),
    ("GET", "/models"),
}
MODEL_OF = {"/embeddings": "text-embedding-3-small", "/moderations": "omni-moderation-latest"}
EXAMPLES = int(os.environ.get("TOLLWAY_FUZZ_EXAMPLES", "25"))
"""Generated requests per operation (each mode: valid and invalid)."""


def _schema(base_url: str) -> Any:
    raw = yaml.load(openai_openapi_path().read_text(), Loader=yaml.CSafeLoader)
    raw["paths"] = {
        path: {m: op for m, op in ops.items() if (m.upper(), path) in SERVED}
        for path, ops in raw["paths"].items()
        if any((m.upper(), path) in SERVED for m in ops)
    }
    raw["servers"] = [{"url": base_url}]
    return schemathesis.openapi.from_dict(raw)


def _problem(op: str, resp: requests.Response) -> str | None:
    """Why this answer breaks the contract, or None."""
    if resp.status_code >= 500 and resp.status_code != 502:
        return f"{op}: {resp.status_code} {resp.text[:300]}"
    if resp.status_code < 400:
        return None
    try:
        body = resp.json()
    except ValueError:
        return f"{op}: {resp.status_code} error not JSON: {resp.text[:200]}"
    err = body.get("error") if isinstance(body, dict) else None
    if not (
        isinstance(err, dict) and isinstance(err.get("message"), str) and isinstance(err.get("type"), str)
    ):
        return f"{op}: {resp.status_code} error not in OpenAI's format: {resp.text[:200]}"
    return None


@dataclass
class Tally:
    """Requests sent, statuses seen, contract breaches found."""

    sent: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _fuzz_operation(op: Any, base_url: str, key: str, session: requests.Session, tally: Tally) -> None:
    """Send ``EXAMPLES`` generated requests of each mode (valid, invalid) for ``op``."""
    name = f"{op.method.upper()} {op.path}"
    for mode in (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE):
        _run_mode(op, mode, name, base_url, key, session, tally)


def _run_mode(op: Any, mode: Any, name: str, base_url: str, key: str, session: Any, tally: Tally) -> None:
    positive = mode == schemathesis.GenerationMode.POSITIVE
    if True:

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
        )
        @given(case=op.as_strategy(generation_mode=mode))
        def run(case: Any) -> None:
            if positive and isinstance(case.body, dict) and "model" in case.body:
                case.body["model"] = MODEL_OF.get(
                    op.path, "gpt-4o-mini"
                )  # served: the call reaches the provider
            headers = {**(case.headers or {}), "Authorization": f"Bearer {key}"}
            t0 = time.monotonic()
            resp = case.call(base_url=base_url, session=session, headers=headers, timeout=30)
            if time.monotonic() - t0 > 2:
                print("SLOW", name, round(time.monotonic() - t0, 1), resp.status_code, str(case.body)[:300])
            tally.sent += 1
            tally.statuses[resp.status_code] = tally.statuses.get(resp.status_code, 0) + 1
            problem = _problem(name, resp)
            if problem:
                tally.problems.append(problem)

        run()


def _fuzz(schema: Any, base_url: str, key: str) -> Tally:
    """Run every served operation's strategies."""
    tally = Tally()
    session = requests.Session()
    ops = [r.ok() for r in schema.get_all_operations()]
    assert {(o.method.upper(), o.path) for o in ops} == SERVED
    for op in ops:
        _fuzz_operation(op, base_url, key, session, tally)
    return tally


async def test_openai_schema_fuzz_against_the_edge(rig_args: dict[str, Any]) -> None:
    async with rig(**rig_args) as r:
        schema = _schema(f"{r.edge_url}/v1")
        tally = await asyncio.to_thread(_fuzz, schema, f"{r.edge_url}/v1", r.key)
        report, _ = await r.settle_and_check(within_s=30)
    write_result(
        rig_args["basetemp"],
        {
            "fault": "schemathesis (bad input)",
            "requests": tally.sent,
            "statuses": {str(k): v for k, v in sorted(tally.statuses.items())},
            **report.summary(),
        },
    )
    assert not tally.problems, "\n".join(sorted(set(tally.problems))[:20])
    assert report.phantom == 0 and report.lost == 0 and report.null_cost == 0, report.problems()[:5]
