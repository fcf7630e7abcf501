"""Parse and check a chat-completions body (pure; no I/O).

Only the fields the edge uses are checked by hand (no pydantic on the hot
path); everything else passes through to the provider untouched. Rules follow
OpenAI's ``CreateChatCompletionRequest`` for those fields; ``null`` counts as
absent, as in OpenAI's API.
"""

from __future__ import annotations

from typing import Any

import orjson

from tollway_edge.endpoints.shapes import CHAT_SHAPES, check_shapes
from tollway_edge.errors import bad_request, nesting_too_deep
from tollway_edge.redaction.walk import MAX_DEPTH, may_nest_past, nesting_depth

_INT_FIELDS = ("max_tokens", "max_completion_tokens")


def parse_chat_body(raw: bytes) -> dict[str, Any]:
    """Decode and check a ``POST /v1/chat/completions`` body
    (:func:`load_json_object` then :func:`check_chat_body`).

    Args:
        raw: the request body bytes (already size-limited by the caller).

    Returns:
        The decoded JSON object, unchanged.

    Raises:
        tollway_edge.errors.EdgeError: 400 with ``param`` naming the field
            (see both functions).
    """
    return check_chat_body(load_json_object(raw))


def load_json_object(raw: bytes) -> dict[str, Any]:
    """Decode a request body that must be one JSON object (the body's only parse).

    Raises:
        tollway_edge.errors.EdgeError: 400 ``invalid_utf8``, ``invalid_json``,
            ``invalid_body`` (not an object) or ``nesting_too_deep`` (deeper
            than :data:`~tollway_edge.redaction.walk.MAX_DEPTH` levels, so
            that every later walk of the body is bounded).
    """
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if "depth limit" in str(exc):  # orjson's own limit (1024) is past ours
            raise nesting_too_deep(MAX_DEPTH) from None
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            raise bad_request("The request body is not valid UTF-8.", None, "invalid_utf8") from None
        raise bad_request("The request body is not valid JSON.", None, "invalid_json") from None
    if type(body) is not dict:
        raise bad_request("The request body must be a JSON object.", None, "invalid_body")
    if may_nest_past(raw, MAX_DEPTH) and nesting_depth(body) > MAX_DEPTH:  # the walk only past 128 brackets
        raise nesting_too_deep(MAX_DEPTH)
    return body


def check_chat_body(body: dict[str, Any]) -> dict[str, Any]:
    """Check the fields the edge uses (OpenAI's ``CreateChatCompletionRequest``).

    Returns:
        ``body``, unchanged.

    Raises:
        tollway_edge.errors.EdgeError: 400 with ``param`` naming the field:
            ``model`` not a string, ``messages`` not a non-empty list of
            objects each with a string ``role``, ``stream`` not a bool,
            ``max_tokens``/``max_completion_tokens`` not an int ≥ 1,
            ``stream_options`` not an object; and the shapes the redaction
            walk relies on (:data:`~tollway_edge.endpoints.shapes.CHAT_SHAPES`:
            ``content`` as an object, ``tools`` as a string, a malformed
            ``tool_calls``...).
    """
    model = body.get("model")
    if model is None:
        raise bad_request("Missing required parameter: 'model'.", "model", "missing_required_parameter")
    if type(model) is not str or not model:
        raise bad_request("'model' must be a non-empty string.", "model", "invalid_type")

    messages = body.get("messages")
    if messages is None:
        raise bad_request("Missing required parameter: 'messages'.", "messages", "missing_required_parameter")
    if type(messages) is not list or not messages:
        raise bad_request("'messages' must be a non-empty array.", "messages", "invalid_type")
    for i, message in enumerate(messages):
        if type(message) is not dict:
            raise bad_request(f"'messages[{i}]' must be an object.", f"messages[{i}]", "invalid_type")
        role = message.get("role")
        if type(role) is not str:
            raise bad_request(
                f"'messages[{i}].role' must be a string.", f"messages[{i}].role", "invalid_type"
            )

    stream = body.get("stream")
    if stream is not None and type(stream) is not bool:
        raise bad_request("'stream' must be a boolean.", "stream", "invalid_type")

    for name in _INT_FIELDS:
        value = body.get(name)
        if value is not None and (type(value) is not int or value < 1):
            raise bad_request(f"'{name}' must be an integer >= 1.", name, "invalid_type")

    options = body.get("stream_options")
    if options is not None and type(options) is not dict:
        raise bad_request("'stream_options' must be an object.", "stream_options", "invalid_type")
    check_shapes(body, CHAT_SHAPES)
    return body


def wants_usage(body: dict[str, Any]) -> bool:
    """True when the client itself asked for the usage chunk of a stream."""
    options = body.get("stream_options")
    return type(options) is dict and options.get("include_usage") is True
