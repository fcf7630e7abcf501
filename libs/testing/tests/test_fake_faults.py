"""The fake provider's faults: per deployment (URL) or model, set and cleared at run time."""

from __future__ import annotations

import asyncio
import time

import anthropic
import httpx
import orjson
import pytest
from openai import APIError, AsyncOpenAI

from tollway_testing.fake_provider import Fault, completion_words

pytestmark = pytest.mark.unit

MESSAGES = [{"role": "user", "content": "hello there"}]  # ceil(11 / 4) + 3 = 6 prompt tokens
CHAT = {"model": "m", "messages": MESSAGES}
STREAM = {**CHAT, "stream": True, "stream_options": {"include_usage": True}}


async def _post(http: httpx.AsyncClient, path: str, body: dict, **kw) -> httpx.Response:
    return await http.post(path, json=body, **kw)


async def test_control_api_status_per_deployment_and_recovery(fake_provider) -> None:
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        r = await http.post("/_fake/faults", json={"east": {"status": 503, "retry_after": 2}})
        assert r.status_code == 200
        assert r.json() == {"east": {"status": 503, "retry_after": 2}}
        east = await _post(http, "/d/east/v1/chat/completions", CHAT, headers={"x-request-id": "e1"})
        west = await _post(http, "/d/west/v1/chat/completions", CHAT)
        plain = await _post(http, "/v1/chat/completions", CHAT)
        assert (east.status_code, west.status_code, plain.status_code) == (503, 200, 200)
        assert east.headers["retry-after"] == "2"
        assert east.headers["x-request-id"] == "e1"
        assert set(east.json()["error"]) == {"message", "type", "param", "code"}
        assert (await http.get("/_fake/faults")).json() == {"east": {"status": 503, "retry_after": 2}}
        assert (await http.delete("/_fake/faults")).status_code == 204
        again = await _post(http, "/d/east/v1/chat/completions", CHAT)
        assert again.status_code == 200
    [rec] = fake_provider.requests("e1")
    assert rec["deployment"] == "east"
    assert (rec["status"], rec["billable"], rec["usage_reported"], rec["usage"]) == (503, False, False, None)
    assert rec["fault"] == {"status": 503, "retry_after": 2}
    assert [r["deployment"] for r in fake_provider.requests()] == ["east", "west", "default", "east"]
    assert [r["status"] for r in fake_provider.requests(deployment="east")] == [503, 200]


async def test_fail_next_k_then_recover(fake_provider) -> None:
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        await http.post("/_fake/faults", json={"east": {"status": 500, "times": 2}})
        codes = [(await _post(http, "/d/east/v1/chat/completions", CHAT)).status_code for _ in range(3)]
        assert codes == [500, 500, 200]
        assert (await http.get("/_fake/faults")).json() == {}


async def test_fault_by_model_name_and_wildcard(fake_provider) -> None:
    fake_provider.set_faults({"model:gpt-broken": {"status": 429}, "*": None})
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        broken = await _post(http, "/v1/chat/completions", {**CHAT, "model": "gpt-broken"})
        fine = await _post(http, "/v1/chat/completions", CHAT)
        assert (broken.status_code, fine.status_code) == (429, 200)
        fake_provider.set_faults({"*": Fault(status=502)})
        assert (await _post(http, "/d/any/v1/embeddings", {"input": "x"})).status_code == 502
        await http.delete("/_fake/faults/*")
        assert (await _post(http, "/d/any/v1/embeddings", {"input": "x"})).status_code == 200


@pytest.mark.parametrize(
    "body",
    [{"east": {"nope": 1}}, {"east": {"status": 200}}, {"east": {"times": 0}}, {"east": 5}, []],
)
async def test_control_api_refuses_bad_faults(fake_provider, body) -> None:
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        r = await http.post("/_fake/faults", json=body)
        assert r.status_code == 400
        assert (await http.get("/_fake/faults")).json() == {}


async def test_refuse_closes_the_connection(fake_provider) -> None:
    fake_provider.set_faults({"east": {"refuse": True}})
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        with pytest.raises(httpx.RemoteProtocolError):
            await _post(http, "/d/east/v1/chat/completions", CHAT, headers={"x-request-id": "refused"})
    [rec] = fake_provider.requests("refused")
    assert (rec["status"], rec["finish_reason"], rec["billable"]) == (0, "refused", False)


async def test_stall_before_headers(fake_provider) -> None:
    fake_provider.set_faults({"east": {"stall_before_headers_ms": 300}})
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        t0 = time.perf_counter()
        r = await _post(http, "/d/east/v1/chat/completions", CHAT)
        assert r.status_code == 200
        assert time.perf_counter() - t0 >= 0.29
        with pytest.raises(httpx.ReadTimeout):
            await _post(http, "/d/east/v1/chat/completions", STREAM, timeout=httpx.Timeout(5, read=0.1))


@pytest.mark.parametrize("stream", [True, False])
async def test_stall_after_headers(fake_provider, stream: bool) -> None:
    fake_provider.set_faults({"east": {"stall_after_headers_ms": 400}})
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        t0 = time.perf_counter()
        body = STREAM if stream else CHAT
        rid = {"x-request-id": f"stall-after-{stream}"}
        async with http.stream("POST", "/d/east/v1/chat/completions", json=body, headers=rid) as r:
            headers_at = time.perf_counter() - t0
            assert r.status_code == 200
            first = None
            async for _ in r.aiter_bytes():
                first = first or time.perf_counter() - t0
    assert headers_at < 0.3
    assert first is not None and first >= 0.39
    [rec] = fake_provider.requests(f"stall-after-{stream}")
    assert (rec["status"], rec["usage_reported"], rec["completion_tokens"]) == (200, True, 20)


async def test_client_leaving_a_stall_is_recorded_at_once(fake_provider) -> None:
    fake_provider.set_faults({"east": {"stall_after_headers_ms": 30_000}})
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        async with http.stream(
            "POST", "/d/east/v1/chat/completions", json=STREAM, headers={"x-request-id": "left"}
        ) as r:
            assert r.status_code == 200
    for _ in range(40):
        if fake_provider.requests("left"):
            break
        await asyncio.sleep(0.05)
    [rec] = fake_provider.requests("left")
    assert (rec["status"], rec["finish_reason"], rec["chunks_sent"]) == (499, "client_disconnected", 0)
    assert (rec["prompt_tokens"], rec["completion_tokens"], rec["billable"]) == (6, 0, True)


async def test_stall_mid_stream_then_go_on(fake_provider) -> None:
    fake_provider.set_faults({"east": {"stall_after_chunks": 2, "stall_ms": 300}})
    client = AsyncOpenAI(base_url=fake_provider.deployment_url("east"), api_key="k")
    t0 = time.perf_counter()
    stream = await client.chat.completions.create(**STREAM)
    stamps = []
    async for c in stream:
        if c.choices and c.choices[0].delta.content:
            stamps.append(time.perf_counter() - t0)
    assert len(stamps) == 20
    assert stamps[2] - stamps[1] >= 0.25  # client-side stamps: some slack


async def test_cut_mid_stream_records_what_was_sent(fake_provider) -> None:
    fake_provider.set_faults({"east": {"cut_after_chunks": 3}})
    client = AsyncOpenAI(base_url=fake_provider.deployment_url("east"), api_key="k", max_retries=0)
    texts = []
    with pytest.raises((APIError, httpx.HTTPError)):
        stream = await client.chat.completions.create(**STREAM, extra_headers={"x-request-id": "cut"})
        async for c in stream:
            if c.choices and c.choices[0].delta.content:
                texts.append(c.choices[0].delta.content)
    assert "".join(texts) == " ".join(completion_words(3))
    [rec] = fake_provider.requests("cut")
    assert (rec["status"], rec["finish_reason"], rec["chunks_sent"]) == (200, "disconnect", 3)
    assert (rec["prompt_tokens"], rec["completion_tokens"]) == (6, 3)
    assert (rec["billable"], rec["usage_reported"], rec["usage"]) == (True, False, None)


async def test_cut_before_usage(fake_provider) -> None:
    fake_provider.set_faults({"east": {"cut_before_usage": True}})
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        seen = b""
        with pytest.raises(httpx.HTTPError):
            async with http.stream("POST", "/d/east/v1/chat/completions", json=STREAM) as r:
                async for b in r.aiter_bytes():
                    seen += b
    assert b'"finish_reason":"stop"' in seen
    assert b'"usage":{' not in seen and b"[DONE]" not in seen
    [rec] = fake_provider.requests()
    assert (rec["completion_tokens"], rec["usage_reported"], rec["chunks_sent"]) == (20, False, 20)


@pytest.mark.parametrize("body", [STREAM, CHAT])
async def test_cut_after_headers_sends_no_byte(fake_provider, body) -> None:
    fake_provider.set_faults({"east": {"stall_after_headers_ms": 100, "cut_after_headers": True}})
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        seen = b""
        with pytest.raises(httpx.HTTPError):
            async with http.stream("POST", "/d/east/v1/chat/completions", json=body) as r:
                assert r.status_code == 200
                async for b in r.aiter_bytes():
                    seen += b
    assert seen == b""
    [rec] = fake_provider.requests()
    assert (rec["status"], rec["finish_reason"], rec["completion_tokens"], rec["usage_reported"]) == (
        200,
        "disconnect",
        0 if body is STREAM else 20,
        False,
    )


async def test_non_stream_cut_after_headers(fake_provider) -> None:
    fake_provider.set_faults({"east": {"cut_after_chunks": 0}})
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        with pytest.raises(httpx.HTTPError):
            await _post(http, "/d/east/v1/chat/completions", CHAT)
    [rec] = fake_provider.requests()
    assert (rec["status"], rec["billable"], rec["usage_reported"]) == (200, True, False)


async def test_slow_chunks(fake_provider) -> None:
    fake_provider.set_faults({"model:slow": {"chunk_interval_ms": 40}})
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        t0 = time.perf_counter()
        r = await _post(http, "/v1/chat/completions", {**STREAM, "model": "slow", "max_tokens": 5})
        assert r.status_code == 200
        assert time.perf_counter() - t0 >= 5 * 0.04 * 0.9
    [rec] = fake_provider.requests()
    assert rec["fault"] == {"chunk_interval_ms": 40}


async def test_fault_header_for_direct_tests(fake_provider) -> None:
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        r = await _post(
            http,
            "/v1/chat/completions",
            STREAM,
            headers={"x-fake-fault": orjson.dumps({"status": 504}).decode()},
        )
        assert r.status_code == 504
        bad = await _post(http, "/v1/chat/completions", CHAT, headers={"x-fake-fault": "{nope"})
        assert bad.status_code == 400


async def test_anthropic_fault_uses_anthropic_errors(fake_provider) -> None:
    fake_provider.set_faults({"claude": {"status": 529}})
    client = anthropic.AsyncAnthropic(base_url=fake_provider.url + "/d/claude", api_key="k", max_retries=0)
    with pytest.raises(anthropic.APIStatusError) as info:
        await client.messages.create(model="claude-x", max_tokens=10, messages=MESSAGES)
    assert info.value.status_code == 529
    assert info.value.body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "fake provider: forced status 529"},
    }


def test_fixture_clears_faults_between_tests(fake_provider) -> None:
    assert fake_provider.faults.snapshot() == {}


def test_command_line_serves_deployments_and_faults(tmp_path) -> None:
    """What infra/up.sh starts: ``python -m tollway_testing.fake_provider --port N``."""
    import socket
    import subprocess
    import sys

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = (tmp_path / "fake.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tollway_testing.fake_provider", "--port", str(port)], stdout=log, stderr=log
    )
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(200):
            try:
                if httpx.get(url + "/readyz").status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
        assert httpx.post(url + "/_fake/faults", json={"east": {"refuse": True}}).status_code == 200
        with pytest.raises(httpx.HTTPError):
            httpx.post(url + "/d/east/v1/chat/completions", json=CHAT)
        assert httpx.post(url + "/d/west/v1/chat/completions", json=CHAT).status_code == 200
        records = httpx.get(url + "/_fake/requests").json()
        assert [(r["deployment"], r["status"]) for r in records] == [("east", 0), ("west", 200)]
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()
    lines = (tmp_path / "fake.log").read_bytes().splitlines()
    events = [orjson.loads(line)["event"] for line in lines]
    assert events == ["starting", "request", "request"]  # no traceback for the refused connection


async def test_client_leaving_a_mid_stream_stall(fake_provider) -> None:
    fake_provider.set_faults({"east": {"stall_after_chunks": 4}})  # stall_ms: 60 s by default
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        async with http.stream(
            "POST", "/d/east/v1/chat/completions", json=STREAM, headers={"x-request-id": "idle"}
        ) as r:
            seen = b""
            async for b in r.aiter_bytes():
                seen += b
                if seen.count(b'"content":"') >= 5:  # the role chunk's "" + 4 content chunks
                    break
    for _ in range(40):
        if fake_provider.requests("idle"):
            break
        await asyncio.sleep(0.05)
    [rec] = fake_provider.requests("idle")
    assert (rec["status"], rec["chunks_sent"], rec["completion_tokens"], rec["usage_reported"]) == (
        499,
        4,
        4,
        False,
    )


async def test_put_replaces_the_table(fake_provider) -> None:
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        await http.post("/_fake/faults", json={"a": {"status": 500}, "b": {"status": 502}})
        r = await http.put("/_fake/faults", json={"c": {"refuse": True}})
        assert r.json() == {"c": {"refuse": True}}
        r = await http.post("/_fake/faults", json={"c": None, "d": {"chunk_interval_ms": 5}})
        assert r.json() == {"d": {"chunk_interval_ms": 5}}


async def test_anthropic_stream_cut_before_usage(fake_provider) -> None:
    fake_provider.set_faults({"claude": {"cut_before_usage": True}})
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        seen = b""
        with pytest.raises(httpx.HTTPError):
            async with http.stream(
                "POST",
                "/d/claude/v1/messages",
                json={"model": "m", "max_tokens": 50, "messages": MESSAGES, "stream": True},
                headers={"x-api-key": "k", "anthropic-version": "2023-06-01"},
            ) as r:
                async for b in r.aiter_bytes():
                    seen += b
    assert b"event: content_block_stop" in seen and b"event: message_delta" not in seen
    [rec] = fake_provider.requests()
    assert (rec["api"], rec["completion_tokens"], rec["usage_reported"], rec["billable"]) == (
        "messages",
        20,
        False,
        True,
    )


async def test_responses_stream_cut_mid_answer(fake_provider) -> None:
    fake_provider.set_faults({"model:resp-cut": {"cut_after_chunks": 2}})
    async with httpx.AsyncClient(base_url=fake_provider.url) as http:
        with pytest.raises(httpx.HTTPError):
            async with http.stream(
                "POST", "/v1/responses", json={"model": "resp-cut", "input": "hi", "stream": True}
            ) as r:
                async for _ in r.aiter_bytes():
                    pass
    [rec] = fake_provider.requests()
    assert (rec["chunks_sent"], rec["completion_tokens"], rec["usage_reported"]) == (2, 2, False)
