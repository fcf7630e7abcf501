"""OpenTelemetry tracing: setup from the standard ``OTEL_*`` variables, W3C
trace context over HTTP (aiohttp servers) and Kafka record headers, and the
consumers' batch spans.

Off by default. :func:`setup_tracing` turns it on only when an OTLP endpoint
is configured (``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` or
``OTEL_EXPORTER_OTLP_ENDPOINT``), ``OTEL_SDK_DISABLED`` is not ``true`` and
``OTEL_TRACES_EXPORTER`` is not ``none``; otherwise its tracer is
OpenTelemetry's no-op tracer (a span costs a function call and an object, no
export, no lock). When on: an SDK ``TracerProvider`` (resource
``service.name`` = the service, merged with ``OTEL_SERVICE_NAME`` /
``OTEL_RESOURCE_ATTRIBUTES``; sampler from ``OTEL_TRACES_SAMPLER``, default
parent-based always-on), a ``BatchSpanProcessor`` (``OTEL_BSP_*``) and the
OTLP/HTTP protobuf exporter (``OTEL_EXPORTER_OTLP_*``: endpoint, headers,
timeout, compression). These variables are the OpenTelemetry SDK's own
(https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/),
which is why they are read here and not through a settings class.

The provider is NOT installed as the process-global one: each service's
composition root keeps the :class:`Tracing` it built and passes its tracer to
what makes spans (tests build many apps in one process). Spans never carry
prompt or completion text: only identifiers, sizes, statuses and names.

Propagation is W3C Trace Context (``traceparent``, ``tracestate``):
:func:`tracing_middleware` for aiohttp servers, :func:`inject_kafka_headers` on
produce and :func:`kafka_links` / :func:`consumer_batch_span` on consume
(OpenTelemetry messaging semantic conventions: a batch span of kind
CONSUMER, linked to each message's trace).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware
from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace import Link, Span, SpanContext, SpanKind, Tracer
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

__all__ = [
    "KafkaHeaders",
    "Tracing",
    "consumer_batch_span",
    "extract_kafka_context",
    "inject_kafka_headers",
    "kafka_links",
    "setup_tracing",
    "trace_id_hex",
    "tracing_middleware",
]

KafkaHeaders = Sequence[tuple[str, bytes]]
"""Kafka record headers as aiokafka gives and takes them: (key, value bytes) pairs."""

_PROPAGATOR = TraceContextTextMapPropagator()
_TRACE_HEADERS = ("traceparent", "tracestate")


class Tracing:
    """What :func:`setup_tracing` built.

    Attributes:
        tracer: the tracer to make spans with (OpenTelemetry's no-op tracer
            when tracing is off).
        enabled: whether spans are recorded and exported.
        provider: the SDK ``TracerProvider`` (None when off).
    """

    def __init__(self, tracer: Tracer, provider: Any = None) -> None:
        self.tracer = tracer
        self.provider = provider
        self.enabled = provider is not None

    def shutdown(self) -> None:
        """Flush the spans in hand (``OTEL_BSP_EXPORT_TIMEOUT``) and stop the
        exporter; a no-op when off. Call it at the end of the service's shutdown."""
        if self.provider is not None:
            self.provider.shutdown()


def _on(environ: Mapping[str, str]) -> bool:
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if environ.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower() == "none":
        return False
    return bool(
        environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
    )


def setup_tracing(service_name: str, environ: Mapping[str, str] | None = None) -> Tracing:
    """Build this service's tracing from the standard ``OTEL_*`` variables.

    Args:
        service_name: ``service.name`` of the resource (``tollway-ledger``,
            ...); ``OTEL_SERVICE_NAME`` overrides it, as the SDK specifies.
        environ: the variables (default ``os.environ``; the SDK's exporter
            and processor read ``os.environ`` themselves).

    Returns:
        A :class:`Tracing`: off (no-op tracer) unless an OTLP endpoint is set
        and neither ``OTEL_SDK_DISABLED=true`` nor ``OTEL_TRACES_EXPORTER=none``.
    """
    env = os.environ if environ is None else environ
    if not _on(env):
        return Tracing(trace.NoOpTracer())
    # Imported only when on: the SDK and the exporter cost start time and memory.
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create({SERVICE_NAME: env.get("OTEL_SERVICE_NAME") or service_name})
    provider = TracerProvider(resource=resource)
    endpoint = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    if endpoint is None:
        base = env["OTEL_EXPORTER_OTLP_ENDPOINT"].rstrip("/")
        endpoint = f"{base}/v1/traces"
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    return Tracing(provider.get_tracer("tollway_runtime.tracing"), provider)


def trace_id_hex(span: Span | None = None) -> str | None:
    """The W3C trace id (32 lowercase hex digits) of ``span`` (default: the
    current span), or None without a valid trace (tracing off, no parent).
    The value the usage event's ``trace_id`` carries."""
    ctx = (span if span is not None else trace.get_current_span()).get_span_context()
    return trace.format_trace_id(ctx.trace_id) if ctx.is_valid else None


# --- HTTP servers (aiohttp) ---------------------------------------------------------


def tracing_middleware(tracer: Tracer) -> Middleware:
    """An aiohttp middleware: one SERVER span per request, child of the
    client's W3C ``traceparent``/``tracestate`` when sent (else a new trace),
    current while the handler runs (so client calls and produced records
    inherit it).

    Span name ``"{method} {route}"``; attributes (HTTP semantic conventions):
    ``http.request.method``, ``http.route`` (the resource's template, never
    the raw path or query), ``http.response.status_code``; an exception or a
    5xx sets the span status to error. ``/metrics``, ``/healthz`` and
    ``/readyz`` are not traced.

    Adopt with one line: ``middlewares=[http_metrics_middleware("edge"),
    tracing_middleware(tracing.tracer), ...]``.
    """
    skipped = frozenset({"/metrics", "/healthz", "/readyz"})

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        resource = request.match_info.route.resource
        route = resource.canonical if resource is not None else "unmatched"
        if route in skipped:
            return await handler(request)
        parent = _PROPAGATOR.extract(request.headers)
        with tracer.start_as_current_span(
            f"{request.method} {route}",
            context=parent,
            kind=SpanKind.SERVER,
            attributes={"http.request.method": request.method, "http.route": route},
        ) as span:
            try:
                response = await handler(request)
            except web.HTTPException as exc:
                span.set_attribute("http.response.status_code", exc.status)
                raise
            span.set_attribute("http.response.status_code", response.status)
            if response.status >= 500:
                span.set_status(trace.StatusCode.ERROR)
            return response

    return middleware


# --- Kafka record headers -------------------------------------------------------------


def inject_kafka_headers(
    headers: KafkaHeaders | None = None, context: Context | None = None
) -> list[tuple[str, bytes]]:
    """Headers for a produced record: ``headers`` (any earlier ``traceparent``
    / ``tracestate`` replaced) plus the W3C trace context of ``context``
    (default: the current one). Nothing is added without a valid span.

    Returns:
        A new list of (key, value bytes) pairs for ``AIOKafkaProducer.send(headers=...)``.
    """
    carrier: dict[str, str] = {}
    _PROPAGATOR.inject(carrier, context=context)
    out = [(k, v) for k, v in (headers or ()) if k not in _TRACE_HEADERS]
    out.extend((k, v.encode("ascii")) for k, v in carrier.items())
    return out


def extract_kafka_context(headers: KafkaHeaders | None) -> Context:
    """The trace context carried by a consumed record's headers (an empty
    context when none or malformed)."""
    carrier = {k: v.decode("ascii", "replace") for k, v in (headers or ()) if k in _TRACE_HEADERS}
    return _PROPAGATOR.extract(carrier)


def _span_context(headers: KafkaHeaders | None) -> SpanContext | None:
    if not headers:
        return None
    ctx = trace.get_current_span(extract_kafka_context(headers)).get_span_context()
    return ctx if ctx.is_valid else None


def kafka_links(records: Iterable[Any]) -> list[Link]:
    """One span link per record that carries a valid ``traceparent`` header
    (``ConsumerRecord.headers``), in record order; records without one are
    skipped. The SDK keeps at most ``OTEL_SPAN_LINK_COUNT_LIMIT`` (128) links
    per span."""
    links = []
    for record in records:
        ctx = _span_context(getattr(record, "headers", None))
        if ctx is not None:
            links.append(Link(ctx))
    return links


@contextmanager
def consumer_batch_span(
    tracer: Tracer,
    *,
    topic: str,
    records: Sequence[Any],
    consumer_group: str | None = None,
) -> Iterator[Span]:
    """A CONSUMER span around the processing of one fetched batch, linked to
    each message's trace (OpenTelemetry messaging semantic conventions:
    https://opentelemetry.io/docs/specs/semconv/messaging/kafka/).

    Name ``"process {topic}"``; attributes ``messaging.system=kafka``,
    ``messaging.destination.name``, ``messaging.operation.name=process``,
    ``messaging.operation.type=process``, ``messaging.batch.message_count``
    and ``messaging.consumer.group.name`` when given. The span is a new root
    (a batch has many parents): the links carry the relation. An exception
    is recorded and re-raised.
    """
    attributes: dict[str, str | int] = {
        "messaging.system": "kafka",
        "messaging.destination.name": topic,
        "messaging.operation.name": "process",
        "messaging.operation.type": "process",
        "messaging.batch.message_count": len(records),
    }
    if consumer_group is not None:
        attributes["messaging.consumer.group.name"] = consumer_group
    links = [] if isinstance(tracer, trace.NoOpTracer) else kafka_links(records)
    with tracer.start_as_current_span(
        f"process {topic}",
        context=Context(),
        kind=SpanKind.CONSUMER,
        attributes=attributes,
        links=links,
    ) as span:
        yield span
