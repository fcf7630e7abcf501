"""The chat endpoint's adapter: one parse, one encoding serving the prompt
bound and every fallback attempt; the stream terminator's two endings."""

from __future__ import annotations

import httpx
import openai
import orjson
import pytest

from tollway_edge.admission.bounds import prompt_token_bound
from tollway_edge.call import Call
from tollway_edge.endpoints.chat import CHAT
from tollway_edge.errors import EdgeError
from tollway_edge.streaming.sse import SSEEvent
from tollway_edge.streaming.terminator import OpenAITerminator

pytestmark = pytest.mark.unit

BODY = {
    "model": "gpt-4o-mini",
    "messages": [{"role": "user", "content": "héllo 日本"}],
    "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}],
    "temperature": 0.2,
    "stream": True,
}


def test_prompt_bound_from_the_one_encoding_equals_the_rule() -> None:
    req = CHAT.parse(orjson.dumps(BODY), Call())
    assert req.prompt_bound() == prompt_token_bound(BODY)
    plain = {"model": "m", "messages": BODY["messages"], "tools": []}
    assert CHAT.parse(orjson.dumps(plain), Call()).prompt_bound() == prompt_token_bound(plain)


def test_encoded_body_names_the_upstream_model_and_keeps_every_field() -> None:
    req = CHAT.parse(orjson.dumps(BODY), Call())
    sent = orjson.loads(req.encoded("upstream-x"))
    assert sent == {**BODY, "model": "upstream-x", "stream_options": {"include_usage": True}}
    assert req.encoded("upstream-x") is req.encoded("upstream-x")  # encoded once per model
    req.replace_body({**req.body, "messages": [{"role": "user", "content": "<PERSON_1>"}]})
    assert orjson.loads(req.encoded("upstream-x"))["messages"][0]["content"] == "<PERSON_1>"
    minimal = CHAT.parse(b'{"model":"m","messages":[{"role":"user","content":"x"}]}', Call())
    assert orjson.loads(minimal.encoded("u")) == {
        "model": "u",
        "messages": [{"role": "user", "content": "x"}],
    }


def test_the_model_is_known_even_when_a_later_check_fails() -> None:
    call = Call()
    with pytest.raises(EdgeError) as err:
        CHAT.parse(b'{"model":"gpt-4o-mini","stream":true,"messages":[]}', call)
    assert err.value.code == "invalid_type"
    assert call.model == "gpt-4o-mini" and call.stream


def _sdk_read(stream_bytes: bytes) -> list[object]:
    """What the openai SDK makes of a streamed answer (chat completions)."""

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=stream_bytes, headers={"content-type": "text/event-stream"})

    client = openai.OpenAI(
        api_key="x",
        base_url="http://edge/v1",
        http_client=httpx.Client(transport=httpx.MockTransport(answer)),
    )
    stream = client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "x"}], stream=True
    )
    return list(stream)


FIRST = SSEEvent(
    b'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"up",'
    b'"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\n'
)


def test_clean_end_is_a_length_finish_usage_and_done() -> None:
    t = OpenAITerminator("chatcmpl-fallback", "m")
    t.observe(FIRST)
    tail = t.clean_end(prompt_tokens=5, completion_tokens=1, include_usage=True)
    chunks = _sdk_read(FIRST.raw + tail)
    assert chunks[1].choices[0].finish_reason == "length" and chunks[1].id == "chatcmpl-1"
    assert chunks[2].usage.completion_tokens == 1 and chunks[2].usage.total_tokens == 6


def test_error_end_makes_the_openai_sdk_raise() -> None:
    t = OpenAITerminator("chatcmpl-fallback", "m")
    t.observe(FIRST)
    with pytest.raises(openai.APIError, match="ended the stream"):
        _sdk_read(FIRST.raw + t.error_end("The provider ended the stream early.", "upstream_stream_error"))
