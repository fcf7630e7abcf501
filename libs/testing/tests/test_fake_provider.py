"""The fake provider: OpenAI shapes, deterministic counts, controls, recording."""

from __future__ import annotations

import asyncio
import time

import httpx
import orjson
import pytest
from openai import AsyncOpenAI, OpenAI

from tollway_testing.fake_provider import (
    FakeProviderConfig,
    ModelShape,
    RequestLog,
    completion_words,
    count_embedding_tokens,
    count_prompt_tokens,
    parse_model_shape,
)

pytestmark = pytest.mark.unit

MESSAGES = [
    {"role": "system", "content": "You are terse."},  # 14 bytes
    {"role": "user", "content": [{"type": "text", "text": "héllo"}]},  # 6 bytes
]


def test_prompt_token_rule() -> None:
    # ceil((14 + 6) / 4) + 3 * 2
    assert count_prompt_tokens(MESSAGES) == 5 + 6
    assert count_prompt_tokens([{"role": "user", "content": None}]) == 3
    assert count_embedding_tokens(["abcde", [1, 2, 3]]) == 2 + 3


def test_request_log_is_bounded() -> None:
    log = RequestLog(max_records=3)
    for i in range(5):
        log.append({"request_id": str(i)})
    assert [r["request_id"] for r in log.all()] == ["2", "3", "4"]
    assert log.all("3") == [{"request_id": "3"}]


def test_non_stream_with_openai_client(fake_provider) -> None:
    client = OpenAI(base_url=fake_provider.base_url, api_key="sk-test")
    resp = client.chat.completions.create(model="fake-model", messages=MESSAGES)
    assert resp.object == "chat.completion"
    assert resp.choices[0].finish_reason == "stop"
    assert resp.choices[0].message.content == " ".join(completion_words(20))
    assert resp.usage.prompt_tokens == 11
    assert resp.usage.completion_tokens == 20
    assert resp.usage.total_tokens == 31
    [rec] = fake_provider.requests()
    assert rec["path"] == "/v1/chat/completions"
    assert rec["body"]["messages"] == MESSAGES
    assert rec["headers"]["Authorization"] == "Bearer sk-test"
    assert (rec["prompt_tokens"], rec["completion_tokens"], rec["status"]) == (11, 20, 200)


async def test_stream_with_usage_and_max_tokens(fake_provider) -> None:
    client = AsyncOpenAI(base_url=fake_provider.base_url, api_key="sk-test")
    stream = await client.chat.completions.create(
        model="fake-model",
        messages=MESSAGES,
        stream=True,
        stream_options={"include_usage": True},
        max_tokens=5,
    )
    chunks = [c async for c in stream]
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == " ".join(completion_words(5))
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finishes == ["length"]
    assert chunks[-1].choices == []
    assert chunks[-1].usage.completion_tokens == 5
    assert chunks[-1].usage.prompt_tokens == 11
    # role chunk + 5 content chunks + finish chunk + usage chunk
    assert len(chunks) == 8


async def test_stream_wire_format(fake_provider) -> None:
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        r = await http.post(
            "/v1/chat/completions",
            json={"model": "fake-tokens-4", "messages": MESSAGES, "stream": True},
            headers={"x-request-id": "req-wire", "x-fake-chunks": "2"},
        )
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/event-stream")
    assert r.headers["x-request-id"] == "req-wire"
    events = [e for e in r.text.split("\n\n") if e]
    assert all(e.startswith("data: ") for e in events)
    assert events[-1] == "data: [DONE]"
    payloads = [orjson.loads(e[6:]) for e in events[:-1]]
    # no include_usage: no usage field, no usage chunk
    assert all("usage" not in p for p in payloads)
    contents = [p["choices"][0]["delta"].get("content") for p in payloads[1:-1]]
    assert contents == ["alpha bravo", " charlie delta"]  # model name asks for 4 tokens, 2 chunks
    assert payloads[-1]["choices"][0]["finish_reason"] == "stop"
    assert fake_provider.requests("req-wire")[0]["completion_tokens"] == 4


async def test_completion_tokens_header_and_max_completion_tokens(fake_provider) -> None:
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        r = await http.post(
            "/v1/chat/completions",
            json={"model": "m", "messages": MESSAGES, "max_completion_tokens": 50},
            headers={"x-fake-completion-tokens": "7"},
        )
    body = r.json()
    assert body["usage"]["completion_tokens"] == 7
    assert body["choices"][0]["finish_reason"] == "stop"


@pytest.mark.parametrize("status", [429, 500, 503])
async def test_forced_status(fake_provider, status: int) -> None:
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        r = await http.post(
            "/v1/chat/completions",
            json={"model": "m", "messages": MESSAGES, "stream": True},
            headers={"x-fake-status": str(status)},
        )
    assert r.status_code == status
    assert set(r.json()["error"]) == {"message", "type", "param", "code"}
    assert ("retry-after" in r.headers) == (status == 429)
    assert fake_provider.requests()[0]["status"] == status


async def test_bad_requests(fake_provider) -> None:
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        r1 = await http.post("/v1/chat/completions", content=b"{nope")
        r2 = await http.post("/v1/chat/completions", json={"model": "m", "messages": []})
    assert r1.status_code == r2.status_code == 400
    assert r2.json()["error"]["type"] == "invalid_request_error"


async def test_latency_controls(fake_provider) -> None:
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        t0 = time.perf_counter()
        async with http.stream(
            "POST",
            "/v1/chat/completions",
            json={"model": "m", "messages": MESSAGES, "stream": True},
            headers={
                "x-fake-ttft-ms": "100",
                "x-fake-chunk-interval-ms": "20",
                "x-fake-completion-tokens": "5",
            },
        ) as r:
            first_at = None
            async for line in r.aiter_lines():
                if first_at is None and line.startswith("data: "):
                    first_at = time.perf_counter() - t0
            total = time.perf_counter() - t0
    assert 0.09 <= first_at < 2.0  # generous upper bound: the box is shared
    assert total >= 0.1 + 4 * 0.02 * 0.9


async def test_disconnect_mid_stream(fake_provider) -> None:
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        with pytest.raises(httpx.HTTPError):
            async with http.stream(
                "POST",
                "/v1/chat/completions",
                json={"model": "m", "messages": MESSAGES, "stream": True},
                headers={"x-fake-disconnect-after-chunks": "2", "x-fake-chunk-interval-ms": "5"},
            ) as r:
                async for _ in r.aiter_bytes():
                    pass

    [rec] = fake_provider.requests()
    assert (rec["status"], rec["finish_reason"], rec["completion_tokens"]) == (200, "disconnect", 2)


async def test_client_going_away_is_recorded(fake_provider) -> None:
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        async with http.stream(
            "POST",
            "/v1/chat/completions",
            json={"model": "m", "messages": MESSAGES, "stream": True},
            headers={"x-fake-chunk-interval-ms": "30", "x-request-id": "gone"},
        ) as r:
            async for _ in r.aiter_bytes():
                break
    for _ in range(100):
        if fake_provider.requests("gone"):
            break
        await asyncio.sleep(0.05)
    [rec] = fake_provider.requests("gone")
    assert rec["status"] == 499
    assert rec["finish_reason"] == "client_disconnected"


async def test_embeddings_and_models(fake_provider) -> None:
    client = AsyncOpenAI(base_url=fake_provider.base_url, api_key="sk-test")
    emb = await client.embeddings.create(model="fake-embedding", input=["hello world", "abc"])
    assert [d.index for d in emb.data] == [0, 1]
    assert len(emb.data[0].embedding) == 8
    assert emb.usage.prompt_tokens == 3 + 1
    again = await client.embeddings.create(model="fake-embedding", input="hello world", dimensions=8)
    assert again.data[0].embedding == pytest.approx(emb.data[0].embedding)
    models = await client.models.list()
    assert "fake-model" in [m.id for m in models.data]


async def test_requests_endpoint(fake_provider) -> None:
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        for rid in ("a", "b"):
            await http.post(
                "/v1/chat/completions",
                json={"model": "m", "messages": MESSAGES},
                headers={"x-request-id": rid},
            )
        listed = (await http.get("/_fake/requests", params={"request_id": "b"})).json()
        assert [r["request_id"] for r in listed] == ["b"]
        assert (await http.delete("/_fake/requests")).status_code == 204
        assert (await http.get("/_fake/requests")).json() == []


async def test_factory_config(fake_provider_factory) -> None:
    provider = fake_provider_factory(FakeProviderConfig(completion_tokens=3, access_log=False))
    async with httpx.AsyncClient(base_url=provider.url) as http:
        r = await http.post("/v1/chat/completions", json={"model": "m", "messages": MESSAGES})
    assert r.json()["usage"]["completion_tokens"] == 3
    assert provider.port != 9000


# --- the stream shape in the model name (gateway-neutral) -----------------------------------------


@pytest.mark.parametrize(
    ("model", "shape"),
    [
        ("fake-stream-c200-i25-t400", ModelShape(200, 25, 400, 200)),
        ("fake-stream-t400-c60-i50", ModelShape(60, 50, 400, 60)),  # any order
        ("openai/fake-stream-c60-i50", ModelShape(60, 50, None, 60)),  # a gateway's provider prefix
        ("fake-stream-c10-n40", ModelShape(10, None, None, 40)),
        ("fake-stream-n7", ModelShape(None, None, None, 7)),
        ("fake-stream", ModelShape()),
        ("fake-stream-c200-i25-t0", ModelShape(200, 25, 0, 200)),
    ],
)
def test_model_shape_grammar(model: str, shape: ModelShape) -> None:
    assert parse_model_shape(model) == shape


@pytest.mark.parametrize("model", ["gpt-4o-mini", "fake-model", "fake-tokens-100", "my-fake-stream-c5"])
def test_other_model_names_carry_no_shape(model: str) -> None:
    assert parse_model_shape(model) is None


@pytest.mark.parametrize(
    "model",
    [
        "fake-stream-c",
        "fake-stream-x5",
        "fake-stream-c5-c6",
        "fake-stream-c5-",
        "fake-streamc5",
        "fake-stream--c5",
        "fake-stream-c-5",
        "fake-stream-c5i25",
    ],
)
def test_malformed_shape_names_are_errors(model: str) -> None:
    with pytest.raises(ValueError):
        parse_model_shape(model)


def _sse_contents(text: str) -> tuple[list[str], list[dict]]:
    events = [e for e in text.split("\n\n") if e]
    assert events[-1] == "data: [DONE]"
    payloads = [orjson.loads(e[6:]) for e in events[:-1]]
    contents = [
        p["choices"][0]["delta"]["content"]
        for p in payloads
        if p["choices"] and p["choices"][0]["delta"].get("content")
    ]
    return contents, payloads


async def test_stream_shape_from_model_name(fake_provider) -> None:
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        t0 = time.perf_counter()
        r = await http.post(
            "/v1/chat/completions",
            json={
                "model": "fake-stream-c6-i20-t100",
                "messages": MESSAGES,
                "stream": True,
                "stream_options": {"include_usage": True},
            },
            headers={"x-request-id": "shape"},
        )
        total = time.perf_counter() - t0
    assert r.status_code == 200
    contents, payloads = _sse_contents(r.text)
    assert len(contents) == 6  # one word per chunk: completion tokens default to the chunk count
    assert "".join(contents) == " ".join(completion_words(6))
    assert payloads[-1]["usage"]["completion_tokens"] == 6
    assert payloads[0]["model"] == "fake-stream-c6-i20-t100"  # echoed as asked
    assert total >= 0.1 + 5 * 0.02 * 0.9
    [rec] = fake_provider.requests("shape")
    assert (rec["status"], rec["completion_tokens"]) == (200, 6)


async def test_model_name_tokens_and_fewer_chunks(fake_provider) -> None:
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        r = await http.post(
            "/v1/chat/completions",
            json={"model": "fake-stream-c2-n4", "messages": MESSAGES, "stream": True},
        )
        non_stream = await http.post(
            "/v1/chat/completions", json={"model": "openai/fake-stream-c3-i1", "messages": MESSAGES}
        )
    contents, _ = _sse_contents(r.text)
    assert contents == ["alpha bravo", " charlie delta"]
    assert non_stream.json()["usage"]["completion_tokens"] == 3


async def test_headers_override_the_model_name(fake_provider) -> None:
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        r = await http.post(
            "/v1/chat/completions",
            json={"model": "fake-stream-c6", "messages": MESSAGES, "stream": True},
            headers={"x-fake-chunks": "3", "x-fake-completion-tokens": "9"},
        )
    contents, _ = _sse_contents(r.text)
    assert len(contents) == 3
    assert " ".join(contents).split() == completion_words(9)


async def test_malformed_shape_name_is_refused(fake_provider) -> None:
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        r = await http.post(
            "/v1/chat/completions",
            json={"model": "fake-stream-c200-x5", "messages": MESSAGES, "stream": True},
        )
    assert r.status_code == 400
    assert r.json()["error"]["type"] == "invalid_request_error"
    assert r.json()["error"]["param"] == "model"


async def test_echo_answers_the_last_user_message(fake_provider, fake_provider_factory) -> None:
    messages = [
        {"role": "user", "content": "first question"},
        {"role": "assistant", "content": "an answer"},
        {"role": "user", "content": [{"type": "text", "text": "Hi, I'm <PERSON_1> at <EMAIL_ADDRESS_1>."}]},
    ]
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        r = await http.post(
            "/v1/chat/completions",
            json={"model": "fake-model", "messages": messages},
            headers={"x-fake-echo": "1"},
        )
        assert r.json()["choices"][0]["message"]["content"] == "Hi, I'm <PERSON_1> at <EMAIL_ADDRESS_1>."
        assert r.json()["usage"]["completion_tokens"] == 5
        r = await http.post(
            "/v1/chat/completions",
            json={"model": "fake-model", "messages": messages, "stream": True},
            headers={"x-fake-echo": "1"},
        )
    payloads = [orjson.loads(e[6:]) for e in r.text.split("\n\n") if e and e != "data: [DONE]"]
    contents = [p["choices"][0]["delta"].get("content") for p in payloads[1:-1]]
    assert contents == ["Hi,", " I'm", " <PERSON_1>", " at", " <EMAIL_ADDRESS_1>."]  # word by word
    provider = fake_provider_factory(FakeProviderConfig(echo=True, access_log=False))
    async with httpx.AsyncClient(base_url=provider.url) as http:
        r = await http.post("/v1/chat/completions", json={"model": "m", "messages": messages[:1]})
    assert r.json()["choices"][0]["message"]["content"] == "first question"
