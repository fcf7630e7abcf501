"""The edge's spans (OpenTelemetry; setup and propagation in ``tollway_runtime.tracing``).

When tracing is on (``OTEL_*`` variables name an OTLP endpoint), each ``/v1/``
call has:

- the SERVER span of ``tollway_runtime.tracing.tracing_middleware``, child of
  the client's W3C ``traceparent``/``tracestate`` (else a new trace), with
  OpenTelemetry's GenAI semantic-convention attributes
  (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/):
  ``gen_ai.operation.name``, ``gen_ai.request.model``,
  ``gen_ai.usage.input_tokens``/``output_tokens``, ``error.type``, plus
  ``tollway.*`` identifiers (request id, tenant, key id, provider, attempts,
  cost in micro-USD). Never prompt or completion text;
- one CLIENT span per provider attempt (``{operation} {upstream model}``,
  ``gen_ai.provider.name`` = the provider kind, ``server.address``,
  ``http.response.status_code``), its ``traceparent`` sent to the provider.
  A relayed stream's span ends when the relay ends (``pipeline.handle``);
- one CLIENT span per redactor request (``redaction/client.py``), its
  ``traceparent`` sent to the redactor, whose own SERVER span continues it.

The call's trace id goes in the usage event (``trace_id``) and on the
canonical request line; its trace context rides the usage journal
(``journal.format``) into the Kafka record's ``traceparent`` header, which
the ledger's and quota's batch spans link to.

When off, ``Call.span`` is None and nothing here runs: no span, no header,
no attribute (the edge's cost per call is unchanged).
"""

from __future__ import annotations

from collections.abc import MutableMapping

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Tracer
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from tollway_edge.journal import format as journal_format

_PROPAGATOR = TraceContextTextMapPropagator()

OPERATIONS = {
    "/chat/completions": "chat",
    "/completions": "text_completion",
    "/embeddings": "embeddings",
    "/responses": "chat",
    "/moderations": "moderations",
}
"""Provider API path -> ``gen_ai.operation.name`` (``moderations`` is not in the
convention's list; it is named as OpenAI names the API)."""


def adopt_server_span() -> tuple[Span, str, bytes] | None:
    """The current (server) span, its trace id (32 hex digits) and its W3C
    trace context for the journal (``journal.format.trace_context``); None
    without a valid span."""
    span = trace.get_current_span()
    ctx = span.get_span_context()
    if not ctx.is_valid:
        return None
    carrier: dict[str, str] = {}
    _PROPAGATOR.inject(carrier)
    context = journal_format.trace_context(carrier["traceparent"], carrier.get("tracestate"))
    return span, trace.format_trace_id(ctx.trace_id), context


def client_span(tracer: Tracer, name: str, attributes: dict[str, str | int]) -> Span:
    """Start a CLIENT span, child of the current span (end it yourself)."""
    return tracer.start_span(name, kind=SpanKind.CLIENT, attributes=attributes)


def inject(span: Span, headers: MutableMapping[str, str]) -> None:
    """Add ``span``'s W3C ``traceparent`` (and ``tracestate``) to outgoing ``headers``."""
    _PROPAGATOR.inject(headers, context=trace.set_span_in_context(span))


def end_client_span(span: Span, status: int | None, error_type: str | None = None) -> None:
    """End a CLIENT span with the HTTP status (None: no answer) and, on failure,
    ``error.type`` and an error status."""
    if status is not None:
        span.set_attribute("http.response.status_code", status)
    if error_type is not None or status is None or status >= 400:
        span.set_attribute("error.type", error_type or str(status))
        span.set_status(trace.StatusCode.ERROR)
    span.end()
