"""Deterministic counting: prompt and completion tokens, words, vectors, stream shapes, tool inputs.

Every API of the fake provider counts with these rules, so a test can compute
what the provider will report (the rules are listed in libs/testing/README.md).
"""

from __future__ import annotations

import hashlib
import math
import re
import struct
from dataclasses import dataclass
from typing import Any

import orjson

WORDS = (
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliett",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
)
MODEL_TOKENS_RE = re.compile(r"tokens-?(\d+)$")
_SHAPE_PREFIX = "fake-stream"
_SHAPE_FIELD_RE = re.compile(r"([citn])(\d+)")
_SHAPE_FIELDS = {"c": "chunks", "i": "chunk_interval_ms", "t": "ttft_ms", "n": "completion_tokens"}
_CACHE_MARKER_RE = re.compile(rb"fake-cache-(read|write)-(\d+)")
TOOL_ARGUMENT_FRAGMENT = 8
"""Characters of a tool call's JSON arguments per stream fragment (and per completion token)."""


@dataclass(frozen=True, slots=True)
class ModelShape:
    """The stream shape encoded in a model name; None = not given (header or configuration applies).

    Attributes:
        chunks: stream content chunks (c<N>).
        chunk_interval_ms: delay between content chunks, ms (i<MS>).
        ttft_ms: delay before the first byte of the answer, ms (t<MS>).
        completion_tokens: completion length, tokens (n<N>; defaults to ``chunks``).
    """

    chunks: int | None = None
    chunk_interval_ms: int | None = None
    ttft_ms: int | None = None
    completion_tokens: int | None = None


def parse_model_shape(model: str) -> ModelShape | None:
    """Read the stream shape from a model name (grammar in libs/testing/README.md).

    ``"fake-stream-c200-i25-t400"`` → ``ModelShape(200, 25, 400, 200)``;
    ``"gpt-4o-mini"`` → None (not a shape name).

    Raises:
        ValueError: the name starts with ``fake-stream`` but does not follow the
            grammar (unknown or repeated field, missing digits, trailing text).
    """
    name = model.rsplit("/", 1)[-1]
    if not name.startswith(_SHAPE_PREFIX):
        return None
    rest = name[len(_SHAPE_PREFIX) :]
    if rest and not rest.startswith("-"):
        raise ValueError(f"model {model!r}: expected 'fake-stream' or 'fake-stream-<fields>'")
    values: dict[str, int] = {}
    for part in rest.split("-")[1:]:
        m = _SHAPE_FIELD_RE.fullmatch(part)
        if m is None:
            raise ValueError(
                f"model {model!r}: field {part!r} is not one of c<chunks>, i<interval ms>, t<ttft ms>, n<tokens>"
            )
        key = _SHAPE_FIELDS[m.group(1)]
        if key in values:
            raise ValueError(f"model {model!r}: field {m.group(1)!r} given twice")
        values[key] = int(m.group(2))
    if "completion_tokens" not in values and "chunks" in values:
        values["completion_tokens"] = values["chunks"]
    return ModelShape(**values)


def content_text(content: Any) -> str:
    """The text of a message content: a string, or the joined ``text`` of its parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


def text_tokens(text: str) -> int:
    """ceil(UTF-8 bytes / 4)."""
    return math.ceil(len(text.encode()) / 4)


def count_prompt_tokens(messages: list[dict[str, Any]]) -> int:
    """ceil(total UTF-8 bytes of all message texts / 4) + 3 per message."""
    total_bytes = sum(len(content_text(m.get("content")).encode()) for m in messages if isinstance(m, dict))
    return math.ceil(total_bytes / 4) + 3 * len(messages)


def count_embedding_tokens(inputs: list[Any]) -> int:
    """Σ ceil(UTF-8 bytes / 4) per text input; one token per id for token-id inputs."""
    total = 0
    for item in inputs:
        if isinstance(item, str):
            total += text_tokens(item)
        elif isinstance(item, list):
            total += len(item)
    return total


def last_user_text(messages: list[Any]) -> str:
    """The text of the last ``user`` message (string content or joined text parts), or ""."""
    for m in reversed(messages):
        if isinstance(m, dict) and m.get("role") == "user":
            return content_text(m.get("content"))
    return ""


def completion_words(n: int) -> list[str]:
    """The completion text as words, one per token."""
    return [WORDS[i % len(WORDS)] for i in range(n)]


def group_words(words: list[str], n_chunks: int) -> list[str]:
    """Split ``words`` into ``n_chunks`` nearly equal groups, in order; each group after the first
    starts with a space, so the groups concatenate to ``" ".join(words)``."""
    groups: list[str] = []
    if n_chunks <= 0 or not words:
        return groups
    q, r = divmod(len(words), n_chunks)
    i = 0
    for c in range(n_chunks):
        size = q + (1 if c < r else 0)
        text = " ".join(words[i : i + size])
        groups.append(text if i == 0 else " " + text)
        i += size
    return groups


def embedding_vector(text: str, dims: int) -> list[float]:
    """A unit vector of ``dims`` floats, a deterministic function of ``text``."""
    out: list[float] = []
    counter = 0
    while len(out) < dims:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        for i in range(0, len(digest), 4):
            if len(out) == dims:
                break
            (v,) = struct.unpack_from("<I", digest, i)
            out.append(round(v / 0xFFFFFFFF * 2 - 1, 6))
        counter += 1
    norm = math.sqrt(sum(x * x for x in out)) or 1.0
    return [x / norm for x in out]


def cache_markers(raw_body: bytes) -> tuple[int, int]:
    """(read, write) cache tokens asked for by ``fake-cache-read-<N>`` / ``fake-cache-write-<N>``
    anywhere in the request body (the last marker of each kind wins); (0, 0) when absent."""
    if b"fake-cache-" not in raw_body:
        return 0, 0
    found = {"read": 0, "write": 0}
    for m in _CACHE_MARKER_RE.finditer(raw_body):
        found[m.group(1).decode()] = int(m.group(2))
    return found["read"], found["write"]


def split_cache(total: int, read: int, write: int) -> tuple[int, int]:
    """Clamp asked cache tokens into a prompt of ``total`` tokens: read first, then write."""
    read = max(0, min(read, total))
    write = max(0, min(write, total - read))
    return read, write


def example_value(schema: Any) -> Any:
    """A deterministic value satisfying a simple JSON Schema (the tool-call arguments rule).

    object → each property (the required ones, or all when none are required);
    string → its first ``enum`` value or ``"alpha"``; integer/number → 1; boolean → true;
    array → one example item; anything else → null.
    """
    if not isinstance(schema, dict):
        return None
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind == "object" or (kind is None and "properties" in schema):
        props = schema.get("properties") or {}
        required = [k for k in schema.get("required") or [] if k in props]
        keys = required or list(props)
        return {k: example_value(props[k]) for k in keys}
    if kind == "string":
        return "alpha"
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return True
    if kind == "array":
        return [example_value(schema.get("items"))]
    return None


def tool_arguments(schema: Any) -> str:
    """The compact JSON arguments of a tool call for a tool with input schema ``schema``."""
    value = example_value(schema)
    if not isinstance(value, dict):
        value = {}
    return orjson.dumps(value).decode()


def argument_fragments(arguments: str) -> list[str]:
    """A tool call's arguments as stream fragments of ``TOOL_ARGUMENT_FRAGMENT`` characters."""
    return [
        arguments[i : i + TOOL_ARGUMENT_FRAGMENT] for i in range(0, len(arguments), TOOL_ARGUMENT_FRAGMENT)
    ]


def tool_call_tokens(arguments: str) -> int:
    """Completion tokens of one tool call: 1 for the name + one per arguments fragment."""
    return 1 + len(argument_fragments(arguments))
