"""Redaction, pure part one: the texts of a chat request and the redactor's
answer applied to them (DESIGN "Request path" step 4, contract
``tollway_contracts.redaction``).

- :func:`extract_texts` — every free text of a chat completion request body
  that the provider would see, with stable JSON-pointer-like ids;
- :func:`apply_redaction` — the redactor's answer applied to a copy of the body.

Ids: ``/messages/<i>/content`` (string content), ``/messages/<i>/content/<j>/text``
(text parts), ``/messages/<i>/refusal``,
``/messages/<i>/tool_calls/<k>/function/arguments`` and
``/messages/<i>/function_call/arguments`` (legacy). Arguments that parse as
JSON are split into their string leaves, each with the id
``<arguments id>#<JSON pointer of the leaf>`` (keys are not free text and the
arguments stay valid JSON); arguments that do not parse are one text.
``name`` fields, roles, ids, images and audio parts are not free text and are
not sent.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tollway_contracts.redaction import RedactionText, RedactResponse


@dataclass(frozen=True, slots=True)
class TextRef:
    """One text of the request body.

    Attributes:
        id: JSON-pointer-like id (see module doc), stable for a given body.
        text: the text as the provider would see it.
    """

    id: str
    text: str


def _escape_pointer(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _unescape_pointer(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _json_leaves(value: Any, pointer: str = "") -> Iterable[tuple[str, str]]:
    """(pointer, string) for every string leaf of a parsed JSON value."""
    if isinstance(value, str):
        yield pointer, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _json_leaves(v, f"{pointer}/{_escape_pointer(str(k))}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _json_leaves(v, f"{pointer}/{i}")


def _parse_arguments(arguments: str) -> Any | None:
    """Parsed JSON arguments when they are a JSON object or array, else None."""
    try:
        parsed = json.loads(arguments)
    except (ValueError, TypeError):
        return None
    return parsed if isinstance(parsed, dict | list) else None


def _argument_texts(base: str, arguments: Any) -> list[TextRef]:
    if not isinstance(arguments, str) or not arguments:
        return []
    parsed = _parse_arguments(arguments)
    if parsed is None:
        return [TextRef(base, arguments)]
    return [TextRef(f"{base}#{ptr}", s) for ptr, s in _json_leaves(parsed) if s]


def extract_texts(body: Mapping[str, Any]) -> list[TextRef]:
    """Every free text a provider would see in a chat completion request.

    Args:
        body: the parsed JSON body of ``POST /v1/chat/completions``.

    Returns:
        Texts in message order (empty strings skipped). Unknown shapes are
        ignored rather than guessed at; a message whose ``content`` is
        neither a string nor a list yields nothing.
    """
    out: list[TextRef] = []
    messages = body.get("messages")
    if not isinstance(messages, list):
        return out
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict):
            continue
        base = f"/messages/{i}"
        content = msg.get("content")
        if isinstance(content, str):
            if content:
                out.append(TextRef(f"{base}/content", content))
        elif isinstance(content, list):
            for j, part in enumerate(content):
                if (
                    isinstance(part, dict)
                    and part.get("type") == "text"
                    and isinstance(part.get("text"), str)
                ):
                    if part["text"]:
                        out.append(TextRef(f"{base}/content/{j}/text", part["text"]))
        refusal = msg.get("refusal")
        if isinstance(refusal, str) and refusal:
            out.append(TextRef(f"{base}/refusal", refusal))
        tool_calls = msg.get("tool_calls")
        if isinstance(tool_calls, list):
            for k, call in enumerate(tool_calls):
                fn = call.get("function") if isinstance(call, dict) else None
                if isinstance(fn, dict):
                    out.extend(
                        _argument_texts(f"{base}/tool_calls/{k}/function/arguments", fn.get("arguments"))
                    )
        fcall = msg.get("function_call")
        if isinstance(fcall, dict):
            out.extend(_argument_texts(f"{base}/function_call/arguments", fcall.get("arguments")))
    return out


# --- (b) applying the answer ------------------------------------------------


class RedactionUnavailable(Exception):
    """The redactor could not give a complete answer in time: connection error,
    timeout past the deadline, non-200, malformed body, or a missing text.

    The edge answers 503 and sends nothing to the provider (fail closed).
    """


def check_answer(texts: Sequence[TextRef | RedactionText], answer: RedactResponse) -> dict[str, str]:
    """Map id -> anonymised text.

    Raises:
        RedactionUnavailable: the answer lacks one of ``texts`` (fail closed).
    """
    by_id = {r.id: r.anonymized_text for r in answer.results}
    missing = [t.id for t in texts if t.id not in by_id]
    if missing:
        raise RedactionUnavailable(f"redactor answer lacks {len(missing)} text(s)")
    return by_id


def _set_path(body: Any, path: str, value: str) -> None:
    tokens = [_unescape_pointer(t) for t in path.split("/")[1:]]
    node = body
    for tok in tokens[:-1]:
        node = node[int(tok)] if isinstance(node, list) else node[tok]
    last = tokens[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value


def _get_path(body: Any, path: str) -> Any:
    node = body
    for tok in (_unescape_pointer(t) for t in path.split("/")[1:]):
        node = node[int(tok)] if isinstance(node, list) else node[tok]
    return node


def apply_redaction(
    body: Mapping[str, Any], texts: Sequence[TextRef], answer: RedactResponse
) -> dict[str, Any]:
    """A deep copy of ``body`` with every extracted text replaced by its
    anonymised version.

    Args:
        body: the original request body (not modified).
        texts: what :func:`extract_texts` returned for ``body``.
        answer: the redactor's answer for ``texts``.

    Returns:
        The body to forward. Arguments that were split into JSON leaves are
        re-serialised only if a leaf changed (else kept byte for byte).

    Raises:
        RedactionUnavailable: the answer lacks one of the texts (fail closed).
    """
    by_id = check_answer(texts, answer)
    out = copy.deepcopy(dict(body))
    parsed_args: dict[str, Any] = {}  # arguments path -> parsed JSON being edited
    changed_args: set[str] = set()
    for ref in texts:
        new = by_id[ref.id]
        if new == ref.text:
            continue
        if "#" in ref.id:
            args_path, leaf = ref.id.split("#", 1)
            if args_path not in parsed_args:
                parsed_args[args_path] = _parse_arguments(_get_path(out, args_path))
            _set_path(parsed_args[args_path], leaf, new)
            changed_args.add(args_path)
        else:
            _set_path(out, ref.id, new)
    for args_path in sorted(changed_args):
        _set_path(out, args_path, json.dumps(parsed_args[args_path], ensure_ascii=False))
    return out
