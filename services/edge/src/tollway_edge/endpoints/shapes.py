"""Shape checks of request bodies (pure): the JSON types of the fields the
edge relies on — above all the ones the redaction walk decides
(``tollway_edge.redaction.fields``) — so that a wrong type is a 400 naming
the param, never a body forwarded unscanned (issue 11).

A shape table maps a field pattern (the walk's syntax: ``messages[].content``,
``metadata.*``) to the JSON types allowed there (OpenAI's names: ``string``,
``object``, ``array``, ``integer``, ``number``, ``boolean``, ``null``), and
optionally to the keys an object there must have. Types follow OpenAI's
``CreateChatCompletionRequest``, ``CreateModerationRequest`` and
``CreateResponse`` (``tollway_contracts.vendor.openai_openapi_path()``);
fields not named are not checked here (the provider judges them). Checked
only after the body's depth is known to be ≤ 128 (``chat_body.load_json_object``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from tollway_edge.errors import bad_request


@dataclass(frozen=True, slots=True)
class Shape:
    """Allowed JSON types at one pattern, and the keys an object there needs.

    Attributes:
        types: OpenAI's JSON type names allowed (``integer`` also satisfies ``number``).
        required: keys an object value must hold (non-null).
    """

    types: frozenset[str]
    required: tuple[str, ...] = ()


def _s(*types: str, required: tuple[str, ...] = ()) -> Shape:
    return Shape(frozenset(types), required)


ShapeTable = Mapping[str, Shape]
"""Field pattern -> :class:`Shape`."""

_TYPE_NAMES: Final[dict[type, str]] = {
    str: "string",
    dict: "object",
    list: "array",
    bool: "boolean",
    int: "integer",
    float: "number",
    type(None): "null",
}

_PARTS: Final[dict[str, Shape]] = {
    "": _s("object", required=("type",)),
    ".type": _s("string"),
    ".text": _s("string"),
    ".refusal": _s("string"),
    ".image_url": _s("object", required=("url",)),
    ".image_url.url": _s("string"),
    ".input_audio": _s("object"),
    ".input_audio.data": _s("string"),
    ".file": _s("object"),
}

CHAT_SHAPES: Final[ShapeTable] = {
    "messages[].name": _s("string", "null"),
    "messages[].content": _s("string", "array", "null"),
    **{f"messages[].content[]{k}": v for k, v in _PARTS.items()},
    "messages[].refusal": _s("string", "null"),
    "messages[].tool_call_id": _s("string"),
    "messages[].tool_calls": _s("array", "null"),
    "messages[].tool_calls[]": _s("object"),
    "messages[].tool_calls[].id": _s("string"),
    "messages[].tool_calls[].type": _s("string"),
    "messages[].tool_calls[].function": _s("object", required=("name", "arguments")),
    "messages[].tool_calls[].function.name": _s("string"),
    "messages[].tool_calls[].function.arguments": _s("string"),
    "messages[].tool_calls[].custom": _s("object"),
    "messages[].tool_calls[].custom.input": _s("string"),
    "messages[].function_call": _s("object", "null", required=("name", "arguments")),
    "messages[].function_call.name": _s("string"),
    "messages[].function_call.arguments": _s("string"),
    "tools": _s("array", "null"),
    "tools[]": _s("object", required=("type",)),
    "tools[].type": _s("string"),
    "tools[].function": _s("object", required=("name",)),
    "tools[].function.name": _s("string"),
    "tools[].function.description": _s("string", "null"),
    "tools[].function.parameters": _s("object", "null"),
    "tools[].custom": _s("object", required=("name",)),
    "tools[].custom.description": _s("string", "null"),
    "functions": _s("array", "null"),
    "functions[]": _s("object", required=("name",)),
    "functions[].name": _s("string"),
    "functions[].description": _s("string", "null"),
    "functions[].parameters": _s("object", "null"),
    "tool_choice": _s("string", "object", "null"),
    "function_call": _s("string", "object", "null"),
    "response_format": _s("object", "null", required=("type",)),
    "response_format.type": _s("string"),
    "response_format.json_schema": _s("object", required=("name",)),
    "response_format.json_schema.name": _s("string"),
    "response_format.json_schema.description": _s("string", "null"),
    "response_format.json_schema.schema": _s("object", "null"),
    "prediction": _s("object", "null", required=("type", "content")),
    "prediction.content": _s("string", "array"),
    "prediction.content[]": _s("object", required=("type",)),
    "prediction.content[].type": _s("string"),
    "prediction.content[].text": _s("string"),
    "metadata": _s("object", "null"),
    "metadata.*": _s("string"),
    "user": _s("string", "null"),
    "safety_identifier": _s("string", "null"),
    "stop": _s("string", "array", "null"),
    "stop[]": _s("string"),
}
"""``POST /v1/chat/completions`` (``CreateChatCompletionRequest``); ``model``,
``messages[]``, ``messages[].role``, ``stream`` and the token limits are
checked by ``chat_body.check_chat_body``."""

MODERATIONS_SHAPES: Final[ShapeTable] = {
    "input[]": _s("string", "object"),
    "input[].type": _s("string"),
    "input[].text": _s("string"),
}
"""``POST /v1/moderations`` (``CreateModerationRequest``)."""

RESPONSES_SHAPES: Final[ShapeTable] = {
    "instructions": _s("string", "null"),
    "input[]": _s("object"),
    "input[].content": _s("string", "array", "null"),
    "input[].content[]": _s("object", required=("type",)),
    "input[].content[].type": _s("string"),
    "input[].content[].text": _s("string"),
    "input[].arguments": _s("string"),
    "tools": _s("array", "null"),
    "tools[]": _s("object", required=("type",)),
    "tools[].description": _s("string", "null"),
    "tools[].parameters": _s("object", "null"),
    "metadata": _s("object", "null"),
    "metadata.*": _s("string"),
    "user": _s("string", "null"),
}
"""``POST /v1/responses`` (``CreateResponse``): the common fields."""

COMMON_SHAPES: Final[ShapeTable] = {
    "user": _s("string", "null"),
    "suffix": _s("string", "null"),
}
"""``POST /v1/completions`` and ``/v1/embeddings`` beside their checked inputs."""


def _type_name(value: Any) -> str:
    return _TYPE_NAMES.get(type(value), "unknown")


def _allowed(value: Any, shape: Shape) -> bool:
    name = _type_name(value)
    return name in shape.types or (name == "integer" and "number" in shape.types)


def _article(types: frozenset[str]) -> str:
    names = sorted(t for t in types if t != "null")
    return " or ".join(f"an {n}" if n[0] in "aeiou" else f"a {n}" for n in names)


def _check(value: Any, pattern: str, param: str, table: ShapeTable, patterns: frozenset[str]) -> None:
    shape = table.get(pattern)
    if shape is not None:
        if not _allowed(value, shape):
            raise bad_request(f"'{param}' must be {_article(shape.types)}.", param, "invalid_type")
        if shape.required and type(value) is dict:
            for key in shape.required:
                if value.get(key) is None:
                    raise bad_request(
                        f"Missing required parameter: '{param}.{key}'.",
                        f"{param}.{key}",
                        "missing_required_parameter",
                    )
    if type(value) is dict:
        prefix = f"{pattern}." if pattern else ""
        if prefix + "*" in patterns:
            for k, v in value.items():
                _check(v, prefix + "*", f"{param}.{k}", table, patterns)
            return
        for k, v in value.items():
            sub = prefix + k
            if sub in patterns:
                _check(v, sub, f"{param}.{k}", table, patterns)
    elif type(value) is list:
        item = pattern + "[]"
        if item in patterns:
            for i, v in enumerate(value):
                _check(v, item, f"{param}[{i}]", table, patterns)


def _prefixes(table: ShapeTable) -> frozenset[str]:
    """Every pattern of ``table`` and every pattern leading to one."""
    out: set[str] = set()
    for pattern in table:
        out.add(pattern)
        for i, ch in enumerate(pattern):
            if ch == "." or (ch == "[" and pattern[i:].startswith("[]")):
                out.add(pattern[:i])
            if pattern[i:].startswith("[]"):
                out.add(pattern[: i + 2])
    return frozenset(out)


_PREFIXES: dict[int, tuple[ShapeTable, frozenset[str]]] = {}
"""id -> (table, prefixes); holding the table keeps its id from being reused."""


def check_shapes(body: Mapping[str, Any], table: ShapeTable) -> None:
    """Check ``body`` against ``table`` (module doc); ``null`` counts as absent
    only where the shape allows ``null``.

    Raises:
        tollway_edge.errors.EdgeError: 400 ``invalid_type`` naming the param
            OpenAI's way (``messages[0].content``), or 400
            ``missing_required_parameter`` for a required key.
    """
    cached = _PREFIXES.get(id(table))
    if cached is not None and cached[0] is table:
        patterns = cached[1]
    else:
        patterns = _prefixes(table)
        if len(_PREFIXES) < 16:  # the module's tables; any other is computed each time
            _PREFIXES[id(table)] = (table, patterns)
    for k, v in body.items():
        if k in patterns:
            _check(v, k, k, table, patterns)
