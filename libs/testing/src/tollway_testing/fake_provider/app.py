"""The composition root (routes, URL forms, control endpoints) and the command line.

URL forms: every API path is served plain (``/v1/...``, deployment
``default``) and under ``/d/<deployment>/`` (a base URL
``http://127.0.0.1:9000/d/<deployment>/v1`` routes to that deployment);
Azure's ``/openai/deployments/<deployment>/...`` names its deployment itself.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
import structlog
from aiohttp import web

from tollway_testing.fake_provider import chat, completions, embeddings, messages, responses
from tollway_testing.fake_provider.core import (
    CONFIG_KEY,
    RECORDER,
    FakeProviderConfig,
    RequestLog,
    error_body,
    reject_middleware,
)
from tollway_testing.fake_provider.faults import FAULTS, FaultTable, add_fault_routes

Api = Callable[[Any, web.Request], Awaitable[web.StreamResponse]]
_BOOLEAN_FILTERS = ("billable", "usage_reported", "stream")


class Handlers:
    """What every API handler reads: the configuration, the request log, the stored responses."""

    def __init__(self, config: FakeProviderConfig, recorder: RequestLog) -> None:
        self.config = config
        self.recorder = recorder
        self.log = structlog.get_logger("tollway.fake_provider")
        self.responses = responses.ResponseStore(config.max_records)

    async def models(self, request: web.Request) -> web.Response:
        """``GET /v1/models``: the configured models."""
        data = [
            {"id": m, "object": "model", "created": 1700000000, "owned_by": "tollway-fake"}
            for m in self.config.models
        ]
        return web.Response(
            body=orjson.dumps({"object": "list", "data": data}),
            content_type="application/json",
            headers={"x-request-id": request.headers.get("x-request-id") or str(uuid.uuid4())},
        )

    async def health(self, request: web.Request) -> web.Response:
        """``/healthz`` and ``/readyz``."""
        return web.Response(body=b'{"status":"ok"}', content_type="application/json")

    async def list_requests(self, request: web.Request) -> web.Response:
        """``GET /_fake/requests[?request_id=&deployment=&api=&status=&billable=&limit=]``."""
        q = request.query
        match: dict[str, Any] = {}
        for key in ("deployment", "api"):
            if key in q:
                match[key] = q[key]
        if "status" in q:
            match["status"] = int(q["status"])
        for key in _BOOLEAN_FILTERS:
            if key in q:
                match[key] = q[key].lower() in ("1", "true", "yes")
        records = self.recorder.all(q.get("request_id"), **match)
        if "limit" in q:
            records = records[-int(q["limit"]) :]
        return web.Response(body=orjson.dumps(records), content_type="application/json")

    async def clear_requests(self, request: web.Request) -> web.Response:
        """``DELETE /_fake/requests``."""
        self.recorder.clear()
        return web.Response(status=204)


def _azure(api: Api) -> Api:
    """Azure's rules before the API: ``api-version`` query and ``api-key`` (or Bearer) header."""

    async def handler(h: Any, request: web.Request) -> web.StreamResponse:
        rid = {"x-request-id": request.headers.get("x-request-id") or str(uuid.uuid4())}
        if "api-key" not in request.headers and "Authorization" not in request.headers:
            body = error_body("Access denied due to missing subscription key.", "authentication_error", 401)
            return web.Response(body=body, status=401, content_type="application/json", headers=rid)
        if "api-version" not in request.query:
            body = error_body("Missing required query parameter 'api-version'.", None, 400)
            return web.Response(body=body, status=400, content_type="application/json", headers=rid)
        return await api(h, request)

    return handler


def create_app(config: FakeProviderConfig | None = None) -> web.Application:
    """The composition root: an aiohttp app; ``app[RECORDER]`` holds the received requests and
    ``app[FAULTS]`` the run-time faults."""
    config = config or FakeProviderConfig()
    recorder = RequestLog(config.max_records)
    app = web.Application(client_max_size=64 * 1024 * 1024, middlewares=[reject_middleware])
    app[CONFIG_KEY] = config
    app[RECORDER] = recorder
    app[FAULTS] = FaultTable()
    h = Handlers(config, recorder)

    def bind(api: Api) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def handler(request: web.Request) -> web.StreamResponse:
            return await api(h, request)

        return handler

    openai_apis: list[tuple[str, str, Api]] = [
        ("POST", "/v1/chat/completions", chat.chat_completions),
        ("POST", "/v1/completions", completions.completions),
        ("POST", "/v1/embeddings", embeddings.embeddings),
        ("POST", "/v1/moderations", embeddings.moderations),
        ("POST", "/v1/responses", responses.create),
        ("GET", "/v1/responses/{response_id}", responses.retrieve),
        ("DELETE", "/v1/responses/{response_id}", responses.delete),
        ("GET", "/v1/responses/{response_id}/input_items", responses.input_items),
        ("POST", "/v1/messages", messages.messages),
        ("POST", "/v1/messages/count_tokens", messages.count_tokens),
    ]
    azure_apis: list[tuple[str, Api]] = [
        ("chat/completions", chat.chat_completions),
        ("completions", completions.completions),
        ("embeddings", embeddings.embeddings),
    ]
    for prefix in ("", "/d/{deployment}"):
        for method, path, api in openai_apis:
            app.router.add_route(method, prefix + path, bind(api))
        for path, api in azure_apis:
            app.router.add_post(f"{prefix}/openai/deployments/{{azure_deployment}}/{path}", bind(_azure(api)))
        # Azure's Responses API names the deployment in the body's model, not the path.
        app.router.add_post(prefix + "/openai/responses", bind(_azure(responses.create)))
        app.router.add_get(prefix + "/openai/responses/{response_id}", bind(_azure(responses.retrieve)))
        app.router.add_delete(prefix + "/openai/responses/{response_id}", bind(_azure(responses.delete)))
        app.router.add_get(
            prefix + "/openai/responses/{response_id}/input_items", bind(_azure(responses.input_items))
        )
        app.router.add_get(prefix + "/v1/models", h.models)
    app.router.add_get("/healthz", h.health)
    app.router.add_get("/readyz", h.health)
    app.router.add_get("/_fake/requests", h.list_requests)
    app.router.add_delete("/_fake/requests", h.clear_requests)
    add_fault_routes(app)
    return app


def configure_logging() -> None:
    """JSON lines to stdout (pretty on a TTY), cheap enough for the benchmark floor."""
    if sys.stdout.isatty():
        renderer: Any = structlog.dev.ConsoleRenderer()
        factory: Any = structlog.PrintLoggerFactory()
    else:
        renderer = structlog.processors.JSONRenderer(serializer=orjson.dumps)
        factory = structlog.BytesLoggerFactory()
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        logger_factory=factory,
        cache_logger_on_first_use=True,
    )


def parse_args(argv: list[str] | None = None) -> FakeProviderConfig:
    """The command line → a :class:`FakeProviderConfig`."""
    p = argparse.ArgumentParser(
        prog="python -m tollway_testing.fake_provider",
        description="An OpenAI-, Azure- and Anthropic-compatible fake LLM provider: deterministic, fast, inspectable.",
    )
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=9000)
    p.add_argument("--ttft-ms", type=float, default=0.0, help="delay before the first byte (default 0)")
    p.add_argument(
        "--chunk-interval-ms", type=float, default=0.0, help="delay between stream chunks (default 0)"
    )
    p.add_argument("--completion-tokens", type=int, default=20, help="default completion length (default 20)")
    p.add_argument("--max-records", type=int, default=10_000, help="requests kept in memory (default 10000)")
    p.add_argument("--no-access-log", action="store_true", help="no log line per request (benchmarks)")
    p.add_argument(
        "--backlog", type=int, default=4096, help="listen backlog (default 4096; aiohttp's own is 128)"
    )
    a = p.parse_args(argv)
    return FakeProviderConfig(
        host=a.host,
        port=a.port,
        ttft_ms=a.ttft_ms,
        chunk_interval_ms=a.chunk_interval_ms,
        completion_tokens=a.completion_tokens,
        max_records=a.max_records,
        access_log=not a.no_access_log,
        backlog=a.backlog,
    )


def main(argv: list[str] | None = None) -> None:
    """Run the fake provider until interrupted (``python -m tollway_testing.fake_provider``)."""
    config = parse_args(argv)
    configure_logging()
    try:
        import uvloop

        loop: asyncio.AbstractEventLoop = uvloop.new_event_loop()
    except ImportError:  # pragma: no cover - uvloop is a dependency, but stay runnable without it
        loop = asyncio.new_event_loop()
    structlog.get_logger("tollway.fake_provider").info("starting", host=config.host, port=config.port)
    app = create_app(config)
    # what importing and building left out of the collector's walks: its full collections
    # were 26-60 ms pauses in the provider's (and so in every target's) latency tail
    gc.collect()
    gc.freeze()
    web.run_app(
        app,
        host=config.host,
        port=config.port,
        access_log=None,
        print=None,
        loop=loop,
        backlog=config.backlog,
    )
