"""Edge-side redaction: what the provider sees never carries personal data
unless the caller's policy allows it (DESIGN "Request path" step 4).

- ``fields`` — per endpoint, what each field of the body is to redaction;
- ``walk`` — pure: every string of a body decided by its field table;
- ``apply`` — pure: the redactor's answer applied copy-on-write;
- ``texts`` — pure: the text unit and the check of the redactor's answer;
- ``restore`` — pure: reversible mode, plain answers and the core of streamed ones;
  ``restore_stream`` (the splitter's events, OpenAI chunks) and
  ``restore_anthropic`` (Anthropic's content-block deltas) per wire format;
- ``client`` — ``POST /v1/redact`` with a deadline, failover over several
  redactors;
- ``request`` — a body through the redactor (pure over a client:
  :func:`redact_request`);
- ``step`` — the step of the request path (:class:`EdgeRedaction`).
"""

from tollway_edge.redaction.apply import apply_redaction, apply_texts
from tollway_edge.redaction.client import RedactionRejected, RedactorClient, RedactorPool, RedactorServerError
from tollway_edge.redaction.request import (
    RedactionOutcome,
    block_error,
    entity_counts,
    language_blocked,
    redact_request,
    rejection_error,
    summarize,
)
from tollway_edge.redaction.restore import StreamRestorer, build_mapping, restore_response, restore_text
from tollway_edge.redaction.restore_anthropic import AnthropicRestorer
from tollway_edge.redaction.restore_stream import ChunkRestorer, SSERestorer
from tollway_edge.redaction.step import EdgeRedaction
from tollway_edge.redaction.texts import RedactionUnavailable, TextRef
from tollway_edge.redaction.walk import BodyWalk, extract_texts, walk_body

__all__ = [
    "AnthropicRestorer",
    "BodyWalk",
    "apply_texts",
    "walk_body",
    "ChunkRestorer",
    "EdgeRedaction",
    "RedactionOutcome",
    "RedactionRejected",
    "RedactionUnavailable",
    "RedactorClient",
    "RedactorPool",
    "RedactorServerError",
    "SSERestorer",
    "StreamRestorer",
    "TextRef",
    "apply_redaction",
    "block_error",
    "build_mapping",
    "entity_counts",
    "extract_texts",
    "language_blocked",
    "redact_request",
    "rejection_error",
    "restore_response",
    "restore_text",
    "summarize",
]
