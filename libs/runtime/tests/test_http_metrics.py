"""The shared aiohttp middleware: requests counted and timed by route template,
method and status, read back from ``/metrics`` after real calls."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from prometheus_client.parser import text_string_to_metric_families

from tollway_runtime.metrics import add_metrics_route, http_metrics_middleware

pytestmark = pytest.mark.unit


def _samples(text: str, service: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.labels.get("service") == service:
                labels = tuple(sorted((k, v) for k, v in s.labels.items() if k != "service"))
                out[(s.name, labels)] = s.value
    return out


async def test_counts_and_durations_by_route_template_and_status() -> None:
    service = f"svc-{uuid.uuid4().hex[:8]}"

    async def item(request: web.Request) -> web.Response:
        if request.match_info["id"] == "missing":
            raise web.HTTPNotFound()
        await asyncio.sleep(0.02)
        return web.json_response({"id": request.match_info["id"]})

    async def boom(_: web.Request) -> web.Response:
        raise RuntimeError("boom")

    app = web.Application(middlewares=[http_metrics_middleware(service)])
    app.router.add_get("/items/{id}", item)
    app.router.add_post("/boom", boom)
    add_metrics_route(app)
    async with TestClient(TestServer(app)) as client:
        for i in range(3):
            assert (await client.get(f"/items/{i}")).status == 200
        assert (await client.get("/items/missing")).status == 404
        assert (await client.post("/boom")).status == 500
        assert (await client.get("/nowhere")).status == 404
        text = await (await client.get("/metrics")).text()
    got = _samples(text, service)
    ok = (("method", "GET"), ("route", "/items/{id}"), ("status", "200"))
    assert got[("tollway_http_requests_total", ok)] == 3
    assert got[("tollway_http_request_duration_seconds_count", ok)] == 3
    assert got[("tollway_http_request_duration_seconds_sum", ok)] >= 0.06
    assert (
        got[("tollway_http_requests_total", (("method", "GET"), ("route", "/items/{id}"), ("status", "404")))]
        == 1
    )
    assert (
        got[("tollway_http_requests_total", (("method", "POST"), ("route", "/boom"), ("status", "500")))] == 1
    )
    assert (
        got[("tollway_http_requests_total", (("method", "GET"), ("route", "unmatched"), ("status", "404")))]
        == 1
    )
    assert not any(labels and ("route", "/metrics") in labels for _, labels in got)
