"""The body walk (pure): every string of a request body decided by the
endpoint's field table (:mod:`tollway_edge.redaction.fields`) (issue 11).

- :func:`walk_body` — the texts to scan, the unknown fields and the
  unscannable content of a body;
- the anonymised texts are put back by ``redaction.apply``
  (:func:`~tollway_edge.redaction.apply.apply_texts`, copy-on-write);
- :func:`nesting_depth` — a body's JSON nesting depth, without recursion.

Text ids are JSON pointers into the body (``/messages/0/content``; ``#`` in
a key is escaped as ``~2``); a string leaf of a tool call's ``arguments`` is ``<pointer of arguments>#<JSON
pointer inside the parsed arguments>``. ``arguments`` that are not valid
JSON, are not an object or array, or are nested deeper than
:data:`MAX_DEPTH`, are one text (models emit such text and clients send it
back): never an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from tollway_edge.redaction.fields import (
    ANTHROPIC_MESSAGES_FIELDS,
    CHAT_FIELDS,
    COMPLETIONS_FIELDS,
    EMBEDDINGS_FIELDS,
    MODERATIONS_FIELDS,
    RESPONSES_FIELDS,
    SCHEMA_OPAQUE_KEYS,
    FieldTable,
)
from tollway_edge.redaction.texts import TextRef

KEY_PREFIX: Final = "key:"
"""Id prefix of an object key sent as text (``key:/metadata/<key>``): keys of
``metadata`` and of objects no table names are scanned and, in ``redact``
mode, renamed. Keys elsewhere (property names of a JSON Schema, of tool-call
``arguments``, of known objects) are structure and pass."""

MAX_DEPTH: Final = 128
"""Deepest JSON nesting the edge accepts in a body (400 ``nesting_too_deep``)
and walks inside a tool call's ``arguments`` (deeper: one text), levels."""


@dataclass(slots=True)
class BodyWalk:
    """What :func:`walk_body` found.

    Attributes:
        texts: every string to scan, in body order (empty strings skipped).
        unknown: pointers of strings in fields the table does not name (they
            are in ``texts`` too; a policy with ``unknown_fields: refuse``
            refuses the call instead).
        unscannable: pointers of content redaction cannot read (``file``
            parts, token arrays); refused under ``redact`` and ``block``.
    """

    texts: list[TextRef] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    unscannable: list[str] = field(default_factory=list)


def escape_pointer(token: str) -> str:
    """One reference token of a text id: RFC 6901 (``~`` → ``~0``, ``/`` →
    ``~1``) plus ``#`` → ``~2``, so that the one raw ``#`` of an id separates
    a tool call's ``arguments`` from the pointer inside them."""
    return token.replace("~", "~0").replace("/", "~1").replace("#", "~2")


def unescape_pointer(token: str) -> str:
    """The inverse of :func:`escape_pointer`."""
    return token.replace("~1", "/").replace("~2", "#").replace("~0", "~")


def may_nest_past(raw: bytes | str, limit: int) -> bool:
    """False when the JSON text ``raw`` cannot nest deeper than ``limit`` levels:
    every level opens with a ``{`` or ``[``, so fewer than ``limit`` + 1 of them
    (counted anywhere, strings included: an over-count only) bound the depth.
    Two C-speed scans, so :func:`nesting_depth`'s walk of the decoded value is
    needed only for a body holding more than ``limit`` brackets."""
    if isinstance(raw, str):
        return raw.count("{") + raw.count("[") > limit
    return raw.count(b"{") + raw.count(b"[") > limit


def nesting_depth(value: Any) -> int:
    """Nesting depth of a decoded JSON value: 0 for a scalar, 1 for ``[]``
    or ``{}``, one more per level (iterative: safe at any depth)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if type(node) is dict:
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in node.values() if type(v) is dict or type(v) is list)
        elif type(node) is list:
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in node if type(v) is dict or type(v) is list)
    return deepest


def parse_arguments(arguments: str) -> Any | None:
    """A tool call's ``arguments`` parsed, when they are a JSON object or
    array nested at most :data:`MAX_DEPTH` levels; else None (one text)."""
    try:
        parsed = orjson.loads(arguments)
    except orjson.JSONDecodeError:  # invalid, or past orjson's own depth limit
        return None
    if type(parsed) is not dict and type(parsed) is not list:
        return None
    if may_nest_past(arguments, MAX_DEPTH) and nesting_depth(parsed) > MAX_DEPTH:
        return None
    return parsed


def _leaves(value: Any, pointer: str, out: list[tuple[str, str]]) -> None:
    """(pointer, string) of every non-empty string leaf; depth ≤ MAX_DEPTH by contract."""
    if type(value) is str:
        if value:
            out.append((pointer, value))
    elif type(value) is dict:
        for k, v in value.items():
            _leaves(v, f"{pointer}/{escape_pointer(k)}", out)
    elif type(value) is list:
        for i, v in enumerate(value):
            _leaves(v, f"{pointer}/{i}", out)


def _schema_strings(value: Any, pointer: str, out: BodyWalk) -> None:
    """Every string of a JSON Schema except structural keywords' values."""
    if type(value) is str:
        if value:
            out.texts.append(TextRef(pointer, value))
    elif type(value) is dict:
        for k, v in value.items():
            if k not in SCHEMA_OPAQUE_KEYS:
                _schema_strings(v, f"{pointer}/{escape_pointer(k)}", out)
    elif type(value) is list:
        for i, v in enumerate(value):
            _schema_strings(v, f"{pointer}/{i}", out)


def _free_strings(value: Any, pointer: str, out: BodyWalk) -> None:
    """Every string under ``value``, object keys included (``metadata``, unknown objects)."""
    if type(value) is str:
        if value:
            out.texts.append(TextRef(pointer, value))
    elif type(value) is dict:
        for k, v in value.items():
            child = f"{pointer}/{escape_pointer(k)}"
            if k:
                out.texts.append(TextRef(KEY_PREFIX + child, k))
            _free_strings(v, child, out)
    elif type(value) is list:
        for i, v in enumerate(value):
            _free_strings(v, f"{pointer}/{i}", out)


def _prefixes_of(table: FieldTable) -> frozenset[str]:
    out: set[str] = set()
    for pattern in table:
        for i, ch in enumerate(pattern):
            if ch == "." or ch == "[":
                out.add(pattern[:i])
            if pattern.startswith("[]", i):
                out.add(pattern[: i + 2])
        out.add(pattern)
    return frozenset(out)


_TABLES = (
    CHAT_FIELDS,
    COMPLETIONS_FIELDS,
    EMBEDDINGS_FIELDS,
    MODERATIONS_FIELDS,
    RESPONSES_FIELDS,
    ANTHROPIC_MESSAGES_FIELDS,
)
_PREFIXES: dict[int, tuple[FieldTable, frozenset[str]]] = {id(t): (t, _prefixes_of(t)) for t in _TABLES}


def _known_prefixes(table: FieldTable) -> frozenset[str]:
    """Every pattern of ``table`` and every pattern leading to one
    (``messages[]``...): precomputed for the endpoints' tables, computed
    afresh for any other (the cache holds each table, so an id is never reused)."""
    cached = _PREFIXES.get(id(table))
    if cached is not None and cached[0] is table:
        return cached[1]
    return _prefixes_of(table)


def _source(value: Any, pointer: str, out: BodyWalk) -> None:
    """An Anthropic block's ``source`` (``fields`` module doc, rule ``source``)."""
    if type(value) is not dict:
        _free_strings(value, pointer, out)
        return
    kind = value.get("type")
    if kind == "text":
        data = value.get("data")
        if type(data) is str and data:
            out.texts.append(TextRef(f"{pointer}/data", data))
    elif kind == "content":
        leaves: list[tuple[str, str]] = []
        _leaves(value.get("content"), f"{pointer}/content", leaves)
        out.texts.extend(TextRef(p, s) for p, s in leaves)
    elif kind == "url" or (kind == "base64" and str(value.get("media_type", "")).startswith("image/")):
        return  # like image_url: passes
    else:  # base64 documents (PDF), file references, anything else
        out.unscannable.append(pointer)


def _walk(value: Any, pattern: str, pointer: str, table: FieldTable, out: BodyWalk) -> None:
    rule = table.get(pattern)
    if rule == "opaque":
        return
    if rule == "unscannable":
        if value is not None:
            out.unscannable.append(pointer)
        return
    if rule == "schema":
        _schema_strings(value, pointer, out)
        return
    if rule == "free":
        _free_strings(value, pointer, out)
        return
    if rule == "values":
        leaves: list[tuple[str, str]] = []
        _leaves(value, pointer, leaves)
        out.texts.extend(TextRef(p, s) for p, s in leaves)
        return
    if rule == "source":
        _source(value, pointer, out)
        return
    if rule is None and type(value) is dict and pattern not in _known_prefixes(table):
        out.unknown.append(pointer)
        _free_strings(value, pointer, out)  # an object Tollway does not know: keys are text too
        return
    if type(value) is str:
        if rule == "arguments":
            parsed = parse_arguments(value)
            if parsed is not None:
                arg_leaves: list[tuple[str, str]] = []
                _leaves(parsed, "", arg_leaves)
                out.texts.extend(TextRef(f"{pointer}#{p}", s) for p, s in arg_leaves)
                return
        if rule is None:
            out.unknown.append(pointer)
        if value:
            out.texts.append(TextRef(pointer, value))
    elif type(value) is dict:
        _walk_object(value, pattern, pointer, table, out)
    elif type(value) is list:
        item = pattern + "[]"
        for i, v in enumerate(value):
            _walk(v, item, f"{pointer}/{i}", table, out)
    elif rule == "text" and (type(value) is int or type(value) is float):
        out.unscannable.append(pointer)  # a token id: text redaction cannot read


def _walk_object(
    value: Mapping[str, Any], pattern: str, pointer: str, table: FieldTable, out: BodyWalk
) -> None:
    """The fields of a known object; the name of a field no table knows is text too."""
    prefix = f"{pattern}." if pattern else ""
    known = _known_prefixes(table)
    for k, v in value.items():
        # a key spelling pattern syntax ("web_search_options.search_context_size") must not
        # match a table entry: it becomes a pattern no table names (an unknown field)
        sub = prefix + (k if "." not in k and "[" not in k and "*" not in k else "\x00" + k)
        child = f"{pointer}/{escape_pointer(k)}"
        if sub not in known and k:
            out.texts.append(TextRef(KEY_PREFIX + child, k))
        _walk(v, sub, child, table, out)


def walk_body(body: Mapping[str, Any], table: FieldTable) -> BodyWalk:
    """Decide every string of ``body`` by ``table`` (module doc).

    Args:
        body: a decoded request body nested at most :data:`MAX_DEPTH` levels
            (the endpoint's parse checks it: 400 ``nesting_too_deep``).
        table: the endpoint's field table.

    Returns:
        The texts to scan, unknown-field pointers, unscannable pointers.
    """
    out = BodyWalk()
    _walk_object(body, "", "", table, out)
    return out


def extract_texts(body: Mapping[str, Any]) -> list[TextRef]:
    """The texts of a chat completion request (:data:`~tollway_edge.redaction.fields.CHAT_FIELDS`)."""
    return walk_body(body, CHAT_FIELDS).texts
