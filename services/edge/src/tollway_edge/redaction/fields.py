"""Field tables of the body walk: per endpoint, what each field of the
request body is to redaction (issue 11, "Redaction without gaps").

A table maps a **field pattern** to a :data:`Rule`. Patterns name a place in
the body the way OpenAI's reference does: object keys joined with ``.``, a
list's items as ``[]``, the values of a free-keyed object as ``.*``
(``messages[].content[].text``, ``metadata.*``). The walk
(:mod:`tollway_edge.redaction.walk`) looks up every node's pattern:

- ``opaque`` — ids, model names, enum flags, image/audio data: the node and
  everything under it passes unscanned;
- ``text`` — strings here are scanned; lists and objects under it are
  walked on (``messages[].content`` is a string or a list of parts);
- ``arguments`` — a JSON-encoded string (a tool call's ``arguments``): its
  string leaves are scanned when it parses, else it is one text;
- ``schema`` — a JSON Schema (``tools[].function.parameters``): every
  string in it is scanned (descriptions, enum values, examples, defaults,
  titles, patterns) except the structural keywords of :data:`SCHEMA_OPAQUE_KEYS`;
- ``free`` — every string under it is scanned (``metadata`` values);
- ``unscannable`` — content redaction cannot read (``file`` parts): refused
  with 400 ``unscannable_content`` under a ``redact`` or ``block`` policy;
- ``values`` — an object whose keys are names (an Anthropic ``tool_use``
  block's ``input``, ``citations``): every string value under it is scanned,
  keys pass;
- ``source`` — an Anthropic content block's ``source``: ``text`` data is
  scanned, ``content`` blocks are scanned (``values``), base64 images and
  URLs pass like ``image_url``, base64 documents (PDF) and ``file``
  references are unscannable.

A string at a pattern no table names is an **unknown field**: scanned, or
the call refused, per the policy's ``unknown_fields`` (``scan`` by default);
so are the name of an unknown field and every key and string of an unknown
object. A number where text belongs (a token array) cannot be scanned and is
refused like a ``file`` part. Keys of ``metadata`` are scanned; other object
keys (property names of a JSON Schema or of tool-call ``arguments``) are
structure and pass. Fields holding only numbers or booleans are named too
(``opaque``), so that their names are known.

Sources: OpenAI's ``CreateChatCompletionRequest``, ``CreateCompletionRequest``,
``CreateEmbeddingRequest``, ``CreateModerationRequest`` and ``CreateResponse``
(``tollway_contracts.vendor.openai_openapi_path()``); the chat table is
checked against that spec by ``tests/unit/test_redaction_walk.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

Rule = Literal["opaque", "text", "arguments", "schema", "free", "unscannable", "values", "source"]
"""What a field is to redaction (module doc)."""

FieldTable = Mapping[str, Rule]
"""Field pattern -> :data:`Rule` for one endpoint's request body."""

OPAQUE: Final = "opaque"
TEXT: Final = "text"
ARGUMENTS: Final = "arguments"
SCHEMA: Final = "schema"
FREE: Final = "free"
UNSCANNABLE: Final = "unscannable"
VALUES: Final = "values"
SOURCE: Final = "source"

SCHEMA_OPAQUE_KEYS: Final = frozenset(
    {"type", "format", "$ref", "$schema", "$id", "$anchor", "$dynamicRef", "$dynamicAnchor", "required"}
)
"""JSON Schema keywords whose strings are structure (type names, references,
required property names, which are object keys elsewhere), not free text."""

_MESSAGE_PARTS: dict[str, Rule] = {
    "type": OPAQUE,
    "text": TEXT,
    "refusal": TEXT,
    "image_url": OPAQUE,
    "input_audio": OPAQUE,
    "file": UNSCANNABLE,
    "prompt_cache_breakpoint": OPAQUE,
}


def _numbers(*names: str) -> dict[str, Rule]:
    """Fields holding numbers or booleans: named so that their names are known."""
    return dict.fromkeys(names, OPAQUE)


CHAT_FIELDS: Final[FieldTable] = {
    **_numbers(
        "frequency_penalty",
        "logprobs",
        "max_completion_tokens",
        "max_tokens",
        "n",
        "parallel_tool_calls",
        "presence_penalty",
        "seed",
        "store",
        "stream",
        "temperature",
        "top_logprobs",
        "top_p",
        "tools[].function.strict",
        "response_format.json_schema.strict",
    ),
    "model": OPAQUE,
    "messages[].role": OPAQUE,
    "messages[].name": TEXT,
    "messages[].content": TEXT,
    **{f"messages[].content[].{k}": v for k, v in _MESSAGE_PARTS.items()},
    "messages[].refusal": TEXT,
    "messages[].audio": OPAQUE,
    "messages[].tool_call_id": OPAQUE,
    "messages[].tool_calls[].id": OPAQUE,
    "messages[].tool_calls[].type": OPAQUE,
    "messages[].tool_calls[].function.name": OPAQUE,
    "messages[].tool_calls[].function.arguments": ARGUMENTS,
    "messages[].tool_calls[].custom.name": OPAQUE,
    "messages[].tool_calls[].custom.input": TEXT,
    "messages[].function_call.name": OPAQUE,
    "messages[].function_call.arguments": ARGUMENTS,
    "tools[].type": OPAQUE,
    "tools[].function.name": OPAQUE,
    "tools[].function.description": TEXT,
    "tools[].function.parameters": SCHEMA,
    "tools[].custom.name": OPAQUE,
    "tools[].custom.description": TEXT,
    "tools[].custom.format.type": OPAQUE,
    "tools[].custom.format.grammar.syntax": OPAQUE,
    "tools[].custom.format.grammar.definition": TEXT,
    "functions[].name": OPAQUE,
    "functions[].description": TEXT,
    "functions[].parameters": SCHEMA,
    "tool_choice": OPAQUE,
    "function_call": OPAQUE,
    "response_format.type": OPAQUE,
    "response_format.json_schema.name": OPAQUE,
    "response_format.json_schema.description": TEXT,
    "response_format.json_schema.schema": SCHEMA,
    "prediction.type": OPAQUE,
    "prediction.content": TEXT,
    "prediction.content[].type": OPAQUE,
    "prediction.content[].text": TEXT,
    "prediction.content[].prompt_cache_breakpoint": OPAQUE,
    "metadata": FREE,
    "user": TEXT,
    "safety_identifier": TEXT,
    "prompt_cache_key": TEXT,  # OpenAI suggests a user id here: it may be an e-mail address
    "prompt_cache_options": OPAQUE,
    "prompt_cache_retention": OPAQUE,
    "stop": TEXT,
    "stop[]": TEXT,
    "modalities": OPAQUE,
    "audio": OPAQUE,
    "moderation": OPAQUE,
    "reasoning_effort": OPAQUE,
    "service_tier": OPAQUE,
    "verbosity": OPAQUE,
    "logit_bias": OPAQUE,
    "stream_options": OPAQUE,
    "web_search_options.search_context_size": OPAQUE,
    "web_search_options.user_location.type": OPAQUE,
    "web_search_options.user_location.approximate": FREE,
}
"""``POST /v1/chat/completions`` (``CreateChatCompletionRequest``)."""

COMPLETIONS_FIELDS: Final[FieldTable] = {
    **_numbers(
        "best_of",
        "echo",
        "frequency_penalty",
        "logprobs",
        "max_tokens",
        "n",
        "presence_penalty",
        "seed",
        "stream",
        "temperature",
        "top_p",
    ),
    "model": OPAQUE,
    "prompt": TEXT,
    "prompt[]": TEXT,
    "prompt[][]": TEXT,  # token arrays: numbers where text belongs, refused
    "suffix": TEXT,
    "stop": TEXT,
    "stop[]": TEXT,
    "user": TEXT,
    "logit_bias": OPAQUE,
    "stream_options": OPAQUE,
}
"""``POST /v1/completions`` (``CreateCompletionRequest``)."""

EMBEDDINGS_FIELDS: Final[FieldTable] = {
    **_numbers("dimensions"),
    "model": OPAQUE,
    "input": TEXT,
    "input[]": TEXT,
    "input[][]": TEXT,  # token arrays: refused
    "encoding_format": OPAQUE,
    "user": TEXT,
}
"""``POST /v1/embeddings`` (``CreateEmbeddingRequest``)."""

MODERATIONS_FIELDS: Final[FieldTable] = {
    "model": OPAQUE,
    "input": TEXT,
    "input[].type": OPAQUE,
    "input[].text": TEXT,
    "input[].image_url": OPAQUE,
}
"""``POST /v1/moderations`` (``CreateModerationRequest``)."""

_RESPONSE_PARTS: dict[str, Rule] = {
    "type": OPAQUE,
    "text": TEXT,
    "refusal": TEXT,
    "image_url": OPAQUE,
    "detail": OPAQUE,
    "file_id": UNSCANNABLE,
    "file_data": UNSCANNABLE,
    "file_url": UNSCANNABLE,
    "filename": TEXT,
    "annotations": OPAQUE,
    "logprobs": OPAQUE,
    "prompt_cache_breakpoint": OPAQUE,
}

RESPONSES_FIELDS: Final[FieldTable] = {
    **_numbers(
        "background",
        "max_output_tokens",
        "max_tool_calls",
        "parallel_tool_calls",
        "store",
        "stream",
        "temperature",
        "top_logprobs",
        "top_p",
    ),
    "model": OPAQUE,
    "instructions": TEXT,
    "input": TEXT,
    "input[].type": OPAQUE,
    "input[].role": OPAQUE,
    "input[].id": OPAQUE,
    "input[].status": OPAQUE,
    "input[].phase": OPAQUE,
    "input[].call_id": OPAQUE,
    "input[].name": OPAQUE,
    "input[].namespace": OPAQUE,
    "input[].encrypted_content": OPAQUE,
    "input[].content": TEXT,
    **{f"input[].content[].{k}": v for k, v in _RESPONSE_PARTS.items()},
    "input[].arguments": ARGUMENTS,
    "input[].input": TEXT,
    "input[].output": TEXT,
    **{f"input[].output[].{k}": v for k, v in _RESPONSE_PARTS.items()},
    "input[].summary[].type": OPAQUE,
    "input[].summary[].text": TEXT,
    "tools[].type": OPAQUE,
    "tools[].name": OPAQUE,
    "tools[].description": TEXT,
    "tools[].parameters": SCHEMA,
    "tools[].strict": OPAQUE,
    "tool_choice": OPAQUE,
    "text.format.type": OPAQUE,
    "text.format.name": OPAQUE,
    "text.format.description": TEXT,
    "text.format.schema": SCHEMA,
    "text.verbosity": OPAQUE,
    "reasoning": OPAQUE,
    "metadata": FREE,
    "user": TEXT,
    "safety_identifier": TEXT,
    "previous_response_id": OPAQUE,
    "conversation": OPAQUE,
    "prompt_cache_key": TEXT,  # OpenAI suggests a user id here: it may be an e-mail address
    "prompt_cache_retention": OPAQUE,
    "include": OPAQUE,
    "service_tier": OPAQUE,
    "truncation": OPAQUE,
    "stream_options": OPAQUE,
    "context_management": OPAQUE,
}
"""``POST /v1/responses`` (``CreateResponse``): the common fields; the many
built-in tool and item shapes not named here are unknown fields (scanned, or
refused under ``unknown_fields: refuse``)."""


def _anthropic_blocks(prefix: str) -> dict[str, Rule]:
    """Content blocks of Anthropic's Messages API at ``prefix`` (``messages[].content[]``)."""
    return {
        f"{prefix}.type": OPAQUE,
        f"{prefix}.text": TEXT,
        f"{prefix}.cache_control": OPAQUE,
        f"{prefix}.citations": VALUES,
        f"{prefix}.source": SOURCE,
        f"{prefix}.title": TEXT,
        f"{prefix}.context": TEXT,
        f"{prefix}.id": OPAQUE,
        f"{prefix}.name": OPAQUE,
        f"{prefix}.input": VALUES,
        f"{prefix}.tool_use_id": OPAQUE,
        f"{prefix}.is_error": OPAQUE,
        f"{prefix}.thinking": TEXT,
        f"{prefix}.signature": OPAQUE,
        f"{prefix}.data": OPAQUE,  # redacted_thinking: encrypted by the provider
    }


ANTHROPIC_MESSAGES_FIELDS: Final[FieldTable] = {
    **_numbers("max_tokens", "temperature", "top_p", "top_k", "stream"),
    "model": OPAQUE,
    "system": TEXT,
    **_anthropic_blocks("system[]"),
    "messages[].role": OPAQUE,
    "messages[].content": TEXT,
    **_anthropic_blocks("messages[].content[]"),
    "messages[].content[].content": TEXT,  # tool_result: a string or blocks
    **_anthropic_blocks("messages[].content[].content[]"),
    "stop_sequences": TEXT,
    "stop_sequences[]": TEXT,
    "metadata": FREE,
    "tools[].type": OPAQUE,
    "tools[].name": OPAQUE,
    "tools[].description": TEXT,
    "tools[].input_schema": SCHEMA,
    "tools[].cache_control": OPAQUE,
    "tool_choice": OPAQUE,
    "thinking": OPAQUE,
    "service_tier": OPAQUE,
}
"""``POST /v1/messages`` (Anthropic's Messages API): text, image, document,
tool_use, tool_result, thinking and redacted_thinking blocks; other blocks
and server tools' fields are unknown fields."""
