"""No body makes the edge's parse or redaction walk fail with anything but a
4xx (issue 11: "no input — any size, depth, encoding — makes the edge answer
500"): hypothesis drives bytes and JSON through parse, shape checks, the walk
and the application of a redactor's answer, for every endpoint."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tollway_contracts.redaction import (
    RedactedText,
    RedactionCacheStats,
    RedactionPolicy,
    RedactionText,
    RedactResponse,
)
from tollway_edge.call import Call
from tollway_edge.endpoints.chat import CHAT
from tollway_edge.endpoints.completions import COMPLETIONS
from tollway_edge.endpoints.embeddings import EMBEDDINGS
from tollway_edge.endpoints.moderations import MODERATIONS
from tollway_edge.endpoints.responses import RESPONSES
from tollway_edge.errors import EdgeError
from tollway_edge.redaction import TextRef, redact_request
from tollway_edge.redaction.fields import CHAT_FIELDS

pytestmark = pytest.mark.unit

ENDPOINTS = [CHAT, COMPLETIONS, EMBEDDINGS, MODERATIONS, RESPONSES]


class Rewriter:
    """A redactor that rewrites every text (so every text is applied back)."""

    async def redact(
        self, policy: RedactionPolicy, texts: Sequence[TextRef | RedactionText], deadline_ms: float
    ) -> RedactResponse:
        return RedactResponse(
            results=[RedactedText(id=t.id, detections=[], anonymized_text=f"<{len(t.text)}>") for t in texts],
            cache=RedactionCacheStats(hits=0, misses=len(texts)),
            model_version="t",
        )


_KEYS = sorted(
    {tok for p in CHAT_FIELDS for tok in p.replace("[]", "").split(".")} | {"input", "prompt", "x"}
)
_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=10))
_json = st.recursive(
    _leaf,
    lambda c: st.one_of(
        st.lists(c, max_size=3), st.dictionaries(st.sampled_from(_KEYS), c, max_size=4), c.map(json.dumps)
    ),
    max_leaves=30,
)
_text = st.text(max_size=10)
_content = st.one_of(
    _text,
    st.none(),
    st.lists(
        st.fixed_dictionaries(
            {"type": st.sampled_from(["text", "input_text", "image_url", "refusal", "file"])},
            optional={
                "text": _text,
                "refusal": _text,
                "image_url": st.fixed_dictionaries({"url": _text}),
                "file": st.fixed_dictionaries({}, optional={"file_data": _text}),
                "x": _json,
            },
        ),
        max_size=3,
    ),
    _json,
)
_tool_calls = st.lists(
    st.fixed_dictionaries(
        {
            "id": _text,
            "type": st.just("function"),
            "function": st.fixed_dictionaries(
                {"name": _text, "arguments": st.one_of(_text, _json.map(json.dumps))}
            ),
        }
    ),
    max_size=2,
)
_OPTIONAL_MESSAGE = {
    "content": _content,
    "name": _text,
    "tool_calls": _tool_calls,
    "refusal": _text,
    "x": _json,
}
_bodies = st.one_of(
    st.dictionaries(st.sampled_from(_KEYS), _json, max_size=6),
    st.fixed_dictionaries(
        {
            "model": st.just("m"),
            "messages": st.lists(
                st.fixed_dictionaries(
                    {"role": st.sampled_from(["user", "assistant", "tool"])}, optional=_OPTIONAL_MESSAGE
                ),
                min_size=1,
                max_size=3,
            ),
        },
        optional={"tools": _json, "input": _json, "prompt": _json, "metadata": _json, "user": _text},
    ),
)


def _call() -> Call:
    return Call()


def _run(endpoint: Any, raw: bytes, record: bool = True) -> None:
    try:
        parsed = endpoint.parse(raw, _call())
    except EdgeError as err:
        assert 400 <= err.status < 500 and err.type == "invalid_request_error"
        if record:
            event(f"{type(endpoint).__name__}: 400 at parse")
        return
    if record:
        event(f"{type(endpoint).__name__}: walked")
    for mode in ("redact", "block", "detect"):
        try:
            asyncio.run(
                redact_request(
                    parsed.body, RedactionPolicy(mode=mode), Rewriter(), 1000.0, endpoint.redaction_fields
                )  # type: ignore[arg-type]
            )
        except EdgeError as err:
            assert err.status == 400 and err.code in ("unscannable_content", "pii_detected")


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=_bodies, endpoint=st.sampled_from(ENDPOINTS))
def test_any_json_body_is_a_4xx_or_walked(body: dict[str, Any], endpoint: Any) -> None:
    _run(endpoint, json.dumps(body).encode())  # json: big integers too (orjson refuses to encode them)


@settings(max_examples=150, deadline=None)
@given(raw=st.binary(max_size=64), endpoint=st.sampled_from(ENDPOINTS))
def test_any_bytes_are_a_4xx_or_walked(raw: bytes, endpoint: Any) -> None:
    _run(endpoint, raw)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("depth", [128, 129, 1023, 1025, 100_000])
def test_any_depth(endpoint: Any, depth: int) -> None:
    _run(
        endpoint,
        b'{"model": "m", "messages": [], "input": ' + b"[" * depth + b"]" * depth + b"}",
        record=False,
    )
