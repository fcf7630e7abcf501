"""The chat field table against OpenAI's vendored spec, and a property test of
the walk (issue 11): every string field of ``CreateChatCompletionRequest`` is
classified, and no string of a generated body reaches the forwarded body
unscanned under a redacting policy."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from functools import cache
from typing import Any

import msgspec
import orjson
import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tollway_contracts.redaction import (
    RedactedText,
    RedactionCacheStats,
    RedactionPolicy,
    RedactionText,
    RedactResponse,
)
from tollway_contracts.vendor import openai_openapi_path
from tollway_edge.errors import EdgeError
from tollway_edge.redaction import TextRef, redact_request
from tollway_edge.redaction.fields import CHAT_FIELDS, FieldTable

pytestmark = pytest.mark.unit

SUBTREE_RULES = {"opaque", "schema", "free", "unscannable"}


@cache
def chat_request_fields() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(string field patterns, free-form object patterns, every field pattern) of
    ``CreateChatCompletionRequest`` in the vendored spec, ``$ref``/``allOf``/
    ``anyOf``/``oneOf`` resolved."""
    with open(openai_openapi_path(), encoding="utf-8") as f:
        spec = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    schemas = spec["components"]["schemas"]
    strings: set[str] = set()
    free_objects: set[str] = set()
    every: set[str] = set()

    def resolve(s: Any) -> Any:
        while isinstance(s, dict) and "$ref" in s:
            s = schemas[s["$ref"].rsplit("/", 1)[-1]]
        return s

    def walk(s: Any, path: str, seen: frozenset[tuple[int, str]]) -> None:
        s = resolve(s)
        if not isinstance(s, dict) or (id(s), path) in seen or path.count(".") > 12:
            return
        seen = seen | {(id(s), path)}
        every.add(path)
        for combinator in ("allOf", "anyOf", "oneOf"):
            for sub in s.get(combinator, []):
                walk(sub, path, seen)
        t = s.get("type")
        types = t if isinstance(t, list) else [t]
        if (
            "string" in types
            or isinstance(s.get("const"), str)
            or any(isinstance(e, str) for e in s.get("enum", []))
        ):
            strings.add(path)
        props = s.get("properties") or {}
        if "object" in types and not props and s.get("additionalProperties") in (None, True, {}):
            free_objects.add(path)
        for k, v in props.items():
            walk(v, f"{path}.{k}" if path else k, seen)
        if "items" in s:
            walk(s["items"], path + "[]", seen)
        extra = s.get("additionalProperties")
        if isinstance(extra, dict) and extra:
            walk(extra, path + ".*", seen)

    walk(schemas["CreateChatCompletionRequest"], "", frozenset())
    return frozenset(strings), frozenset(free_objects), frozenset(every)


def _prefixes(pattern: str) -> list[str]:
    """``a.b[].c`` -> ``["a", "a.b", "a.b[]", "a.b[].c"]``."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern[i] == ".":
            out.append(pattern[:i])
        elif pattern.startswith("[]", i):
            out.append(pattern[:i])
            i += 1
            out.append(pattern[: i + 1])
        i += 1
    out.append(pattern)
    return [p for j, p in enumerate(out) if p and p not in out[:j]]


def classification(table: FieldTable, pattern: str) -> str | None:
    """The rule deciding strings at ``pattern``: a subtree rule on a prefix,
    else the pattern's own rule, else None (an unknown field)."""
    for prefix in _prefixes(pattern)[:-1]:
        rule = table.get(prefix)
        if rule in SUBTREE_RULES:
            return rule
    rule = table.get(pattern)
    if rule is None and pattern.endswith("[]"):  # a list of strings under a text field
        rule = table.get(pattern[:-2])
    return rule


def test_prefixes() -> None:
    assert _prefixes("a.b[].c") == ["a", "a.b", "a.b[]", "a.b[].c"]
    assert _prefixes("a[][]") == ["a", "a[]", "a[][]"]


def test_every_string_field_of_the_chat_request_is_classified() -> None:
    strings, free_objects, _ = chat_request_fields()
    assert len(strings) > 50 and "messages[].content[].text" in strings  # the spec was read
    unclassified = sorted(p for p in strings if classification(CHAT_FIELDS, p) is None)
    assert unclassified == []
    # free-form objects (JSON Schemas, logit_bias...) are decided as a whole
    undecided = sorted(p for p in free_objects if classification(CHAT_FIELDS, p) not in SUBTREE_RULES)
    assert undecided == []


def test_the_issue_fields_are_text() -> None:
    for pattern in (
        "tools[].function.description",
        "response_format.json_schema.description",
        "user",
        "prediction.content",
        "messages[].name",
        "messages[].content[].text",
    ):
        assert classification(CHAT_FIELDS, pattern) == "text", pattern
    assert classification(CHAT_FIELDS, "tools[].function.parameters.properties") == "schema"
    assert classification(CHAT_FIELDS, "response_format.json_schema.schema") == "schema"
    assert classification(CHAT_FIELDS, "metadata.*") == "free"
    assert classification(CHAT_FIELDS, "messages[].content[].file.file_data") == "unscannable"


def test_table_names_only_fields_of_the_spec() -> None:
    """A typo in the table would leave the real field unknown: every pattern
    is a field (or prefix of one) of the spec."""
    _, _, every = chat_request_fields()
    known = {p for s in every for p in _prefixes(s)}
    assert sorted(p for p in CHAT_FIELDS if p not in known) == []


# --- property: nothing escapes the walk -------------------------------------

PII = "Jane Roe"


class EverythingRedactor:
    """Replaces ``PII`` in every text it is sent, like a perfect redactor."""

    async def redact(
        self, policy: RedactionPolicy, texts: Sequence[TextRef | RedactionText], deadline_ms: float
    ) -> RedactResponse:
        return RedactResponse(
            results=[
                RedactedText(id=t.id, detections=[], anonymized_text=t.text.replace(PII, "<PERSON_1>"))
                for t in texts
            ],
            cache=RedactionCacheStats(hits=0, misses=len(texts)),
            model_version="t",
        )


_KEYS = sorted(
    {tok for p in CHAT_FIELDS for tok in p.replace("[]", "").split(".")}
    | {"x_extra", "notes", PII, "a#b", "c/d", "e~f", "#", ""}
)
_strings = st.one_of(
    st.sampled_from(["", "hi", PII, f"call {PII} now", "text", "function"]),
    st.text(max_size=8).map(lambda s: s + PII),
)


def _json_text(value: Any) -> str:
    return json.dumps(value)


_scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), _strings)
_json = st.recursive(
    _scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(st.sampled_from(_KEYS), children, max_size=4),
        children.map(_json_text),  # JSON inside a string (tool-call arguments)
    ),
    max_leaves=25,
)
_message = st.dictionaries(st.sampled_from(_KEYS), _json, max_size=5)
_body = st.fixed_dictionaries(
    {"model": st.just("gpt-4o-mini"), "messages": st.lists(_message, min_size=1, max_size=3)},
    optional={
        k: _json for k in ("tools", "metadata", "user", "prediction", "response_format", "stop", "x_extra")
    },
)


def _schema_leaks(value: Any, under_keyword: bool = False) -> list[str]:
    """Strings of a forwarded JSON Schema still holding PII outside structural keywords."""
    from tollway_edge.redaction.fields import SCHEMA_OPAQUE_KEYS

    if type(value) is str:
        return [value] if PII in value and not under_keyword else []
    if type(value) is dict:
        return [
            s for k, v in value.items() for s in _schema_leaks(v, under_keyword or k in SCHEMA_OPAQUE_KEYS)
        ]
    if type(value) is list:
        return [s for v in value for s in _schema_leaks(v, under_keyword)]
    return []


def _leaks(value: Any, pattern: str) -> list[str]:
    """Strings of the forwarded body holding PII where the table does not allow it."""
    rule = CHAT_FIELDS.get(pattern)
    if rule == "opaque":
        return []
    if rule == "schema":
        return _schema_leaks(value)
    if rule == "arguments" and type(value) is str:
        try:  # keys of parsed arguments are structure (tool parameter names); values must be clean
            return _schema_leaks(orjson.loads(value))
        except orjson.JSONDecodeError:
            pass
    if type(value) is str:
        return [value] if PII in value else []
    if type(value) is dict:
        keys = [k for k in value if PII in k]
        return keys + [s for k, v in value.items() for s in _leaks(v, f"{pattern}.{k}" if pattern else k)]
    if type(value) is list:
        return [s for v in value for s in _leaks(v, pattern + "[]")]
    return []


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=_body)
def test_no_string_escapes_the_walk(body: dict[str, Any]) -> None:
    before = orjson.dumps(body)
    try:
        outcome = asyncio.run(
            redact_request(body, RedactionPolicy(mode="redact"), EverythingRedactor(), 1000.0)
        )
    except EdgeError as err:  # refused before anything is sent: nothing escapes
        assert err.code == "unscannable_content"
        event("refused: unscannable")
        return
    event("forwarded")
    assert orjson.dumps(body) == before  # the client's body is untouched
    assert _leaks(outcome.body, "") == []
    if PII not in before.decode():
        assert outcome.body == body


def _body_at(pattern: str, value: Any) -> dict[str, Any]:
    """A body holding ``value`` at ``pattern`` (``a[].b.*`` -> ``{"a": [{"b": {"k": value}}]}``)."""
    tokens: list[str] = []
    for part in pattern.split("."):
        name, _, rest = part.partition("[]")
        tokens.append(name)
        tokens.extend(["[]"] * (1 + rest.count("[]")) if _ else [])
    node: Any = value
    for tok in reversed(tokens):
        node = [node] if tok == "[]" else {("k" if tok == "*" else tok): node}
    return node  # type: ignore[no-any-return]


def test_body_at() -> None:
    assert _body_at("a[].b.*", 1) == {"a": [{"b": {"k": 1}}]}
    assert _body_at("stop[]", 1) == {"stop": [1]}
    assert _body_at("a[][]", 1) == {"a": [[1]]}


def _scanned_patterns() -> list[str]:
    strings, _, _ = chat_request_fields()
    return sorted(p for p in strings if classification(CHAT_FIELDS, p) not in ("opaque", "unscannable"))


@pytest.mark.parametrize("pattern", _scanned_patterns())
async def test_pii_at_every_scanned_string_field_of_the_spec(pattern: str) -> None:
    """Issue 11's "done when", at the walk: PII planted at each string field of
    CreateChatCompletionRequest that is not opaque leaves under redact and blocks under block."""
    body = _body_at(pattern, f"{PII} here")
    outcome = await redact_request(body, RedactionPolicy(mode="redact"), EverythingRedactor(), 1000.0)
    assert PII not in orjson.dumps(outcome.body).decode()
    outcome = await redact_request(body, RedactionPolicy(mode="block"), _Detecting(), 1000.0)
    assert outcome.blocked is not None


class _Detecting(EverythingRedactor):
    """Reports a PERSON wherever ``PII`` occurs."""

    async def redact(
        self, policy: RedactionPolicy, texts: Sequence[TextRef | RedactionText], deadline_ms: float
    ) -> RedactResponse:
        from tollway_contracts.redaction import Detection

        answer = await super().redact(policy, texts, deadline_ms)
        results = [
            msgspec.structs.replace(
                r,
                detections=[
                    Detection(
                        entity_type="PERSON", start=0, end=len(PII), score=0.9, placeholder="<PERSON_1>"
                    )
                ]
                if PII in t.text
                else [],
            )
            for r, t in zip(answer.results, texts, strict=True)
        ]
        return msgspec.structs.replace(answer, results=results)


@cache
def chat_request_types() -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """pattern -> (JSON types the spec allows there, keys it requires there) in
    ``CreateChatCompletionRequest`` (unions over ``anyOf``/``oneOf``; ``any``
    when a branch names no type)."""
    with open(openai_openapi_path(), encoding="utf-8") as f:
        spec = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    schemas = spec["components"]["schemas"]
    types: dict[str, set[str]] = {}
    required: dict[str, set[str]] = {}

    def resolve(s: Any) -> Any:
        while isinstance(s, dict) and "$ref" in s:
            s = schemas[s["$ref"].rsplit("/", 1)[-1]]
        return s

    def own_types(s: dict[str, Any]) -> set[str]:
        t = s.get("type")
        if t is not None:
            return set(t) if isinstance(t, list) else {t}
        values = s.get("enum", []) + ([s["const"]] if "const" in s else [])
        if values:
            return {"string" if isinstance(v, str) else "null" if v is None else "other" for v in values}
        if "properties" in s:
            return {"object"}
        return set()

    def walk(s: Any, path: str, seen: frozenset[tuple[int, str]], branch: bool = False) -> None:
        s = resolve(s)
        if not isinstance(s, dict) or (id(s), path) in seen or path.count(".") > 12:
            return
        seen = seen | {(id(s), path)}
        subs = [x for c in ("anyOf", "oneOf") for x in s.get(c, [])]
        mine = own_types(s)
        if subs:
            for sub in subs:
                walk(sub, path, seen, branch=True)
        elif mine:
            types.setdefault(path, set()).update(mine)
        elif not s.get("allOf"):
            types.setdefault(path, set()).add("any")
        for sub in s.get("allOf", []):
            walk(sub, path, seen, branch=branch)
        if s.get("required") and not branch:
            required.setdefault(path, set()).update(s["required"])
        elif s.get("required"):
            required.setdefault(path, set())  # branches differ: only keys all branches need count
        for k, v in (s.get("properties") or {}).items():
            walk(v, f"{path}.{k}" if path else k, seen)
        if "items" in s:
            walk(s["items"], path + "[]", seen)
        extra = s.get("additionalProperties")
        if isinstance(extra, dict) and extra:
            walk(extra, path + ".*", seen)

    walk(schemas["CreateChatCompletionRequest"], "", frozenset())
    return {p: (frozenset(t), frozenset(required.get(p, set()))) for p, t in types.items()}


def test_chat_shapes_never_refuse_what_the_spec_allows() -> None:
    """Every type the spec allows at a checked field is allowed by CHAT_SHAPES
    (null counts as absent), so validation only refuses bodies OpenAI refuses."""
    from tollway_edge.endpoints.shapes import CHAT_SHAPES

    spec = chat_request_types()
    assert "messages[].content" in spec
    stricter = []
    for pattern, shape in CHAT_SHAPES.items():
        allowed, _ = spec.get(pattern, (frozenset({"any"}), frozenset()))
        if "any" in allowed:
            continue
        allowed = allowed | ({"number"} if "integer" in allowed else set())
        missing = allowed - shape.types - {"null", "other"}
        if missing:
            stricter.append((pattern, sorted(missing)))
    assert stricter == []
    assert sorted(p for p in CHAT_SHAPES if p not in spec) == []  # no typo, no invented field
    # a required key we check is one the spec requires (where no anyOf/oneOf branch differs)
    too_required = [
        (p, k)
        for p, shape in CHAT_SHAPES.items()
        for k in shape.required
        if spec[p][1] and k not in spec[p][1]
    ]
    assert too_required == []
