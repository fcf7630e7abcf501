"""The one request pipeline every endpoint shares (DESIGN.md "The request
path"; CONVENTIONS habit 18):

authenticate from the headers (401, no event) → read ≤ ``max_body_bytes``
and parse once (the endpoint's adapter; 400/413) → catalogue model (404) →
allow-list (403) → admit (429/503) → redact (400/413/502/503) → forward with
fallback (502) → relay the stream or return the answer → the terminal event.

A refusal after authentication emits one ``failed`` event and no
``started``; admission's concurrency slot is released when the response ends.
An endpoint is an :class:`Endpoint` (``endpoints/``): it parses its body and
reads its answers; a new endpoint adds a file, not branches here. A route
whose provider kind does not serve the endpoint natively is served through
the endpoint's :class:`Translation` for that kind, if it has one
(``endpoints/translated.py``: OpenAI chat <-> Anthropic Messages): the body
is translated after redaction and before the provider hears of the call (a
body the other API cannot express is a 400 with no ``started``), the answer
or stream is translated back, and tokens keep OpenAI's meaning.

Modules, along the call's way: ``protocols`` (the endpoint contract),
``flow`` (:func:`handle`, the path itself), ``routes`` (plan, targets,
translation and reader of the answering provider), ``cached`` (the response
cache's hit and store), ``answer`` (a non-streamed answer; provider errors).
"""

from tollway_edge.pipeline.answer import provider_error_body
from tollway_edge.pipeline.flow import handle, read_body
from tollway_edge.pipeline.protocols import Endpoint, ParsedRequest, Translation

__all__ = ["Endpoint", "ParsedRequest", "Translation", "handle", "provider_error_body", "read_body"]
