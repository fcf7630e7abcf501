"""An OTLP/HTTP trace receiver for tests: an aiohttp server on 127.0.0.1 that
decodes ``POST /v1/traces`` (protobuf, ``application/x-protobuf``) with
``opentelemetry-proto`` and keeps every span, so a test can assert what a
service exported. Point a service at it with
``OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint`` (the pytest fixture
``otlp_receiver`` does that for in-process apps).

Spec: https://opentelemetry.io/docs/specs/otlp/#otlphttp (binary protobuf
encoding; a 200 with an empty ``ExportTraceServiceResponse`` is success).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from aiohttp import web
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span

__all__ = ["OtlpReceiver", "ReceivedSpan", "attribute_value"]


def attribute_value(value: AnyValue) -> object:
    """The Python value of an OTLP ``AnyValue`` (str, int, float, bool, bytes; None when empty)."""
    kind = value.WhichOneof("value")
    return getattr(value, kind) if kind else None


@dataclass(frozen=True, slots=True)
class ReceivedSpan:
    """One received span.

    Attributes:
        service: the resource's ``service.name``.
        span: the OTLP protobuf span (``trace_id``/``span_id`` are bytes).
        attributes: the span's attributes as a dict.
    """

    service: str
    span: Span

    @property
    def attributes(self) -> dict[str, object]:
        """The span's attributes, key -> Python value."""
        return {a.key: attribute_value(a.value) for a in self.span.attributes}

    @property
    def trace_id(self) -> str:
        """The trace id, 32 lowercase hex digits."""
        return self.span.trace_id.hex()

    @property
    def span_id(self) -> str:
        """The span id, 16 lowercase hex digits."""
        return self.span.span_id.hex()

    @property
    def parent_span_id(self) -> str:
        """The parent span id, 16 hex digits ('' for a root span)."""
        return self.span.parent_span_id.hex()


class OtlpReceiver:
    """Receives OTLP/HTTP trace exports; start with :meth:`start`, stop with :meth:`stop`.

    Attributes:
        spans: every span received, in arrival order.
        endpoint: ``http://127.0.0.1:<port>`` once started (the base
            ``OTEL_EXPORTER_OTLP_ENDPOINT``; the exporter appends ``/v1/traces``).
    """

    def __init__(self) -> None:
        self.spans: list[ReceivedSpan] = []
        self.endpoint = ""
        self._runner: web.AppRunner | None = None
        self._arrived = asyncio.Event()

    async def _traces(self, request: web.Request) -> web.Response:
        if request.content_type != "application/x-protobuf":
            return web.Response(status=415, text="protobuf only")
        body = ExportTraceServiceRequest()
        body.ParseFromString(await request.read())
        for rs in body.resource_spans:
            resource = {a.key: attribute_value(a.value) for a in rs.resource.attributes}
            for ss in rs.scope_spans:
                for span in ss.spans:
                    self.spans.append(ReceivedSpan(str(resource.get("service.name")), span))
        self._arrived.set()
        return web.Response(
            body=ExportTraceServiceResponse().SerializeToString(), content_type="application/x-protobuf"
        )

    async def start(self) -> None:
        """Listen on a free port of 127.0.0.1."""
        app = web.Application()
        app.router.add_post("/v1/traces", self._traces)
        self._runner = web.AppRunner(app, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.endpoint = f"http://127.0.0.1:{port}"

    async def stop(self) -> None:
        """Stop listening."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def trace(self, trace_id: str) -> list[ReceivedSpan]:
        """The spans received so far of trace ``trace_id`` (32 hex digits)."""
        return [s for s in self.spans if s.trace_id == trace_id]

    async def wait_for(self, predicate: object, within_s: float = 15.0) -> None:
        """Wait until ``predicate(self)`` is true (checked as exports arrive).

        Raises:
            AssertionError: not true within ``within_s`` seconds.
        """
        assert callable(predicate)
        deadline = time.monotonic() + within_s
        while not predicate(self):
            left = deadline - time.monotonic()
            assert left > 0, (
                f"not received within {within_s}s: {[(s.service, s.span.name) for s in self.spans]}"
            )
            self._arrived.clear()
            try:
                await asyncio.wait_for(self._arrived.wait(), timeout=min(left, 0.5))
            except TimeoutError:
                pass
