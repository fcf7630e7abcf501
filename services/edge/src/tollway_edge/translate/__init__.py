"""Translation between OpenAI's Chat Completions and Anthropic's Messages API (pure).

No I/O: the edge's provider adapters call these with parsed JSON bodies and,
for streams, the events of the edge's SSE splitter (anything with ``event``
and ``data``, :class:`SSEEvent`). Requests, non-stream answers and streams
translate both ways; tokens keep OpenAI's meaning (:class:`TokenUsage`).
Anything one API cannot express in the other is a :class:`TranslationError`
(400 for a client's request, naming the field; 502 for a provider's answer).
The mapping tables are in ``services/edge/README.md`` ("Translation").
"""

from tollway_edge.translate.errors import TranslationError
from tollway_edge.translate.request_to_anthropic import documented_max_tokens, openai_to_anthropic_request
from tollway_edge.translate.request_to_openai import anthropic_to_openai_request
from tollway_edge.translate.response import anthropic_to_openai_response, openai_to_anthropic_response
from tollway_edge.translate.sse import Event, SSEEvent
from tollway_edge.translate.stream_to_anthropic import OpenAIToAnthropicStream
from tollway_edge.translate.stream_to_openai import AnthropicToOpenAIStream
from tollway_edge.translate.usage import TokenUsage, finish_reason_of, stop_reason_of

__all__ = [
    "AnthropicToOpenAIStream",
    "Event",
    "OpenAIToAnthropicStream",
    "SSEEvent",
    "TokenUsage",
    "TranslationError",
    "anthropic_to_openai_request",
    "anthropic_to_openai_response",
    "documented_max_tokens",
    "finish_reason_of",
    "openai_to_anthropic_request",
    "openai_to_anthropic_response",
    "stop_reason_of",
]
