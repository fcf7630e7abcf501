"""The redactor's answer applied (pure): :func:`apply_texts` puts each
anonymised text of a :func:`~tollway_edge.redaction.walk.walk_body` back in
its place copy-on-write — only the containers on a changed path are copied
(images and untouched messages are shared with the original, which is never
modified); a text inside a tool call's ``arguments`` is set in the parsed
arguments, re-serialised once; a renamed key keeps its place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from tollway_contracts.redaction import RedactResponse
from tollway_edge.redaction.texts import TextRef, check_answer
from tollway_edge.redaction.walk import KEY_PREFIX, unescape_pointer


def _tokens(pointer: str) -> list[str]:
    return [unescape_pointer(t) for t in pointer.split("/")[1:]]


def _get(node: Any, tokens: list[str]) -> Any:
    for tok in tokens:
        node = node[int(tok)] if type(node) is list else node[tok]
    return node


def _set_copying(root: Any, tokens: list[str], value: Any, copied: set[int]) -> None:
    """Set ``value`` at ``tokens`` under ``root`` (already a copy), copying
    each container on the way that is still shared with the original."""
    node = root
    for tok in tokens[:-1]:
        key: Any = int(tok) if type(node) is list else tok
        child = node[key]
        if id(child) not in copied:
            child = list(child) if type(child) is list else dict(child)
            node[key] = child
            copied.add(id(child))
        node = child
    last = tokens[-1]
    node[int(last) if type(node) is list else last] = value


def _set_in_place(node: Any, tokens: list[str], value: str) -> None:
    for tok in tokens[:-1]:
        node = node[int(tok)] if type(node) is list else node[tok]
    node[int(tokens[-1]) if type(node) is list else tokens[-1]] = value


def apply_texts(
    body: Mapping[str, Any], replacements: Mapping[str, str], texts: list[TextRef]
) -> dict[str, Any]:
    """``body`` with each text whose anonymised version differs replaced.

    Args:
        body: the original body (never modified).
        replacements: text id -> anonymised text (every id of ``texts``).
        texts: what :func:`walk_body` returned for ``body``.

    Returns:
        A new top-level dict; only containers on a changed path are copies.
        ``arguments`` split into leaves are re-serialised only when a leaf
        changed (else kept byte for byte).
    """
    out = dict(body)
    copied = {id(out)}
    edited_args: dict[str, Any] = {}
    renames: list[tuple[list[str], str]] = []
    for ref in texts:
        new = replacements[ref.id]
        if new == ref.text:
            continue
        if ref.id.startswith(KEY_PREFIX):
            renames.append((_tokens(ref.id[len(KEY_PREFIX) :]), new))
            continue
        if "#" in ref.id:
            args_pointer, leaf = ref.id.split("#", 1)
            parsed = edited_args.get(args_pointer)
            if parsed is None:
                parsed = edited_args[args_pointer] = orjson.loads(_get(body, _tokens(args_pointer)))
            _set_in_place(parsed, _tokens(leaf), new)
            continue
        _set_copying(out, _tokens(ref.id), new, copied)
    for args_pointer, parsed in edited_args.items():
        _set_copying(out, _tokens(args_pointer), orjson.dumps(parsed).decode(), copied)
    for tokens, new in sorted(renames, key=lambda r: -len(r[0])):  # deepest first: paths stay valid
        _rename_key(out, tokens, new, copied)
    return out


def _rename_key(root: dict[str, Any], tokens: list[str], new: str, copied: set[int]) -> None:
    """Rename the object key at ``tokens`` to ``new``, keeping the keys' order.
    Every container down to the parent is copied first (never the client's).
    Two keys anonymised to the same placeholder keep the later value."""
    node: Any = root
    for tok in tokens[:-1]:
        key: Any = int(tok) if type(node) is list else tok
        child = node[key]
        if id(child) not in copied:
            child = list(child) if type(child) is list else dict(child)
            node[key] = child
            copied.add(id(child))
        node = child
    old = tokens[-1]
    items = [(new if k == old else k, v) for k, v in node.items()]
    node.clear()
    node.update(items)


def apply_redaction(body: Mapping[str, Any], texts: list[TextRef], answer: RedactResponse) -> dict[str, Any]:
    """:func:`apply_texts` with the redactor's answer.

    Raises:
        RedactionUnavailable: the answer lacks one of ``texts`` (fail closed).
    """
    return apply_texts(body, check_answer(texts, answer), texts)
