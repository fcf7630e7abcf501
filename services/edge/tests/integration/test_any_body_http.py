"""No body makes the edge answer 500, or a retryable 503, on ``POST
/v1/chat/completions`` with a redacting key (issue 11, "Done when": no input
— any size, depth, encoding — makes the edge answer 500 or a retryable 503
for a request that can never succeed).

End to end over HTTP: a real edge (in process) with a key whose policy
redacts (and one that blocks), a real redactor process (1 worker, real
models) and the echo provider. Hypothesis draws the bodies: random JSON of
chat shapes (wrong types where strings belong, tool-call ``arguments`` that
are JSON, text or deeply nested), arbitrary bytes (invalid UTF-8, other
encodings, BOMs), plus fixed extremes (100,000-deep nesting, a body past the
redactor's maximum). A healthy redactor is behind the edge, so every answer
must be a 2xx or a 4xx: a 5xx here is the edge's or the redactor's fault,
and a 4xx never carries ``Retry-After``.

Hypothesis generates the inputs (a sync ``@given`` collects them); the async
test sends them to the one edge, so the model loads once per module.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest
import pytest_asyncio
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tollway_edge.settings import EdgeSettings

from .conftest import PEPPER, Edge, edge_catalogue, running_edge
from .principals_schema import create_principals_schema, upsert_key
from .redaction_support import RedactorProcess, closed_port_url, leased_valkey_db, set_policy, start_redactor

pytestmark = pytest.mark.integration


def examples(strategy: st.SearchStrategy[Any], n: int) -> list[Any]:
    """``n`` inputs drawn by hypothesis (generation phase only)."""
    out: list[Any] = []

    @settings(
        max_examples=n,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(value: Any) -> None:
        out.append(value)

    collect()
    return out


_KEYS = ["model", "messages", "role", "content", "text", "type", "tools", "tool_calls", "function",
         "arguments", "name", "metadata", "user", "response_format", "prediction", "stream", "x"]  # fmt: skip
_text = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["Hi, I'm Maria Garcia, call +1 415 555 0134", "card 4111 1111 1111 1111", "山田太郎"]),
)
_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), _text)
_json = st.recursive(
    _leaf,
    lambda c: st.one_of(
        st.lists(c, max_size=3), st.dictionaries(st.sampled_from(_KEYS), c, max_size=4), c.map(json.dumps)
    ),
    max_leaves=20,
)
_arguments = st.one_of(
    _text,
    _json.map(json.dumps),
    st.integers(1, 5000).map(lambda d: "[" * d + '"Maria Garcia"' + "]" * d),  # too deep to parse: one text
    st.integers(1, 5000).map(lambda d: "[" * d),  # not JSON at all
)
_content = st.one_of(
    _text,
    st.none(),
    _json,
    st.lists(
        st.fixed_dictionaries(
            {"type": st.sampled_from(["text", "input_text", "image_url", "refusal", "file", "x"])},
            optional={"text": _json, "image_url": _json, "file": _json},
        ),
        max_size=3,
    ),
)
_message = st.fixed_dictionaries(
    {"role": st.sampled_from(["system", "user", "assistant", "tool", "developer", "x"])},
    optional={
        "content": _content,
        "name": _json,
        "tool_call_id": _json,
        "tool_calls": st.one_of(
            _json,
            st.lists(
                st.fixed_dictionaries(
                    {
                        "id": _text,
                        "type": st.just("function"),
                        "function": st.fixed_dictionaries({"name": _text, "arguments": _arguments}),
                    }
                ),
                max_size=2,
            ),
        ),
    },
)
_chat_bodies = st.fixed_dictionaries(
    {
        "model": st.one_of(st.just("gpt-4o-mini"), _json),
        "messages": st.one_of(st.lists(_message, max_size=3), _json),
    },
    optional={"tools": _json, "metadata": _json, "user": _json, "response_format": _json, "stream": _json},
).map(lambda b: json.dumps(b).encode())
# Bodies OpenAI's schema accepts, so that they reach the redaction walk, the
# redactor and the provider: any text (control characters, any script, long
# repeats), tool-call arguments that are JSON, text or too deep to parse.
_any_text = st.one_of(
    _text,
    st.text(st.characters(codec="utf-8"), max_size=40),
    st.tuples(_text, st.integers(1, 20_000)).map(lambda tn: tn[0] * tn[1]),
)
_valid_message = st.one_of(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["system", "user", "developer"]), "content": _any_text},
        optional={"name": _text},
    ),
    st.fixed_dictionaries(
        {
            "role": st.just("user"),
            "content": st.lists(
                st.fixed_dictionaries({"type": st.just("text"), "text": _any_text}), min_size=1, max_size=3
            ),
        }
    ),
    st.fixed_dictionaries(
        {
            "role": st.just("assistant"),
            "content": st.one_of(st.none(), _any_text),
            "tool_calls": st.lists(
                st.fixed_dictionaries(
                    {
                        "id": st.text("abc123", min_size=1, max_size=8),
                        "type": st.just("function"),
                        "function": st.fixed_dictionaries(
                            {"name": st.just("lookup"), "arguments": _arguments}
                        ),
                    }
                ),
                min_size=1,
                max_size=2,
            ),
        }
    ),
    st.fixed_dictionaries({"role": st.just("tool"), "tool_call_id": st.just("c1"), "content": _any_text}),
)
_valid_bodies = st.fixed_dictionaries(
    {"model": st.just("gpt-4o-mini"), "messages": st.lists(_valid_message, min_size=1, max_size=3)},
    optional={
        "user": _any_text,
        "metadata": st.dictionaries(st.text("abcdef", min_size=1, max_size=5), _text, max_size=3),
    },
).map(lambda b: json.dumps(b).encode())
_encodings = st.sampled_from(["utf-16", "utf-16-le", "utf-32", "latin-1", "utf-8-sig", "cp1252"])
_raw_bodies = st.one_of(
    st.binary(max_size=200),  # mostly invalid UTF-8 / not JSON
    st.tuples(_chat_bodies, _encodings).map(
        lambda be: be[0].decode().encode(be[1], errors="replace")
    ),  # valid JSON, another encoding
    _chat_bodies.map(lambda b: b[:-1] + b"\xff\xfe}"),  # invalid UTF-8 inside the JSON
    st.text(max_size=50).map(
        lambda t: ('{"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "' + t + '"}]}').encode(
            "utf-8", "surrogatepass"
        )
    ),
)


@pytest_asyncio.fixture(scope="module")
async def redactor(
    valkey_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[RedactorProcess]:
    """One redactor process (1 worker, real models) in a leased Valkey db."""
    async with leased_valkey_db(valkey_url) as url:
        proc = await start_redactor(url, "test:any-body:", tmp_path_factory.mktemp("redactor"))
        try:
            yield proc
        finally:
            proc.stop()


@pytest_asyncio.fixture
async def edge(
    fresh_database: str,
    valkey_test_url: str,
    fresh_topic: Any,
    kafka_bootstrap_servers: str,
    fake_provider_factory: Any,
    redactor: RedactorProcess,
    tmp_path: Path,
) -> AsyncIterator[Edge]:
    """An in-process edge whose models route to an echo provider, behind the redactor."""
    from tollway_testing.fake_provider import FakeProviderConfig

    provider = fake_provider_factory(FakeProviderConfig(echo=True, access_log=False))
    await create_principals_schema(fresh_database)
    catalogue = edge_catalogue(provider.base_url, closed_port_url(), provider.base_url)
    path = tmp_path / "catalogue.yaml"
    path.write_text(yaml.safe_dump(catalogue))
    values: dict[str, Any] = {
        "postgres_dsn": fresh_database,
        "valkey_url": valkey_test_url,
        "kafka_bootstrap_servers": kafka_bootstrap_servers,
        "key_pepper": PEPPER,
        "catalogue_path": str(path),
        "usage_topic": await fresh_topic(partitions=1),
        "log_format": "console",
        "redactor_urls": redactor.url,
        "redaction_deadline_ms": 30_000,  # a shared 2-core machine: no deadline 503 for slow CI
        "journal_dir": str(tmp_path / "journal"),
        "quota_url": "",
    }
    async with running_edge(EdgeSettings(**values), catalogue) as running:
        yield running


async def _keys(edge: Edge) -> dict[str, str]:
    out = {}
    for mode in ("redact", "block"):
        full, key_id, _ = await upsert_key(edge.dsn, PEPPER.encode())
        await set_policy(edge.dsn, key_id, {"mode": mode})
        out[mode] = full
    await asyncio.sleep(1.0)  # the principals snapshot picks the policies up
    return out


async def _check(http: aiohttp.ClientSession, edge: Edge, key: str, raw: bytes) -> tuple[int, str]:
    async with http.post(
        f"{edge.base_url}/chat/completions",
        data=raw,
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    ) as r:
        body = await r.read()
        status = r.status
        assert status < 500, (status, body[:500], raw[:300])
        assert "Retry-After" not in r.headers or status == 429, (status, dict(r.headers), raw[:300])
        if status >= 400:
            error = orjson.loads(body)["error"]  # OpenAI's error format
            assert isinstance(error["message"], str) and error["type"], error
            return status, str(error.get("code"))
        return status, "ok"


async def test_no_body_is_answered_500_or_retryable_503(edge: Edge) -> None:
    keys = await _keys(edge)
    bodies = examples(_valid_bodies, 80) + examples(_chat_bodies, 40) + examples(_raw_bodies, 40)
    bodies += [
        b'{"model": "gpt-4o-mini", "messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        b'{"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "x"}], "metadata": '
        + b'{"a":' * 5_000
        + b"1"
        + b"}" * 5_000
        + b"}",
        b"",
        b"\xef\xbb\xbf{}",
        b"null",
    ]
    seen: dict[tuple[int, str], int] = {}
    async with aiohttp.ClientSession() as http:
        for i, raw in enumerate(bodies):
            key = keys["block" if i % 3 == 2 else "redact"]
            outcome = await _check(http, edge, key, raw)
            seen[outcome] = seen.get(outcome, 0) + 1
        # a prompt past the redactor's maximum (2 M characters) can never succeed: 413, not 503
        huge = orjson.dumps(
            {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "lorem " * 400_000}]}
        )
        status, code = await _check(http, edge, keys["redact"], huge)
        assert status == 413, code
    print("outcomes:", sorted(seen.items()))
    # the drawn bodies reached both sides of the edge: refused as invalid and served
    assert sum(n for (s, _), n in seen.items() if s == 200) >= 20, seen
    assert (400, "pii_detected") in seen, seen  # the blocking key refused planted values
    assert any(400 <= s < 500 for s, _ in seen), seen
