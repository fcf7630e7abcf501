"""Streams and the response cache (see the package doc): a hit replayed as a
stream (:func:`replay_stream`), a streamed miss assembled for storing
(:class:`StreamCollector`)."""

from __future__ import annotations

from typing import Any

import orjson

from tollway_edge.usage import Tokens


def replay_stream(answer: dict[str, Any], wants_usage: bool) -> bytes:
    """A cached chat completion as the server-sent events of a stream, as OpenAI
    sends them (``chat.completion.chunk``): per choice, one chunk with the role
    and the whole content, one with the ``finish_reason``; the usage chunk
    (empty ``choices``) when the client asked for it; then ``data: [DONE]``."""
    base = {
        "id": answer.get("id"),
        "object": "chat.completion.chunk",
        "created": answer.get("created"),
        "model": answer.get("model"),
    }
    if answer.get("system_fingerprint") is not None:
        base["system_fingerprint"] = answer["system_fingerprint"]
    events: list[bytes] = []

    def event(obj: dict[str, Any]) -> None:
        events.append(b"data: " + orjson.dumps(obj) + b"\n\n")

    choices = answer.get("choices")
    for i, choice in enumerate(choices if type(choices) is list else []):
        if type(choice) is not dict:
            continue
        index = choice.get("index", i)
        message = choice.get("message")
        delta = {k: v for k, v in message.items() if v is not None} if type(message) is dict else {}
        event(
            {**base, "choices": [{"index": index, "delta": delta, "logprobs": None, "finish_reason": None}]}
        )
        finish = choice.get("finish_reason")
        event({**base, "choices": [{"index": index, "delta": {}, "logprobs": None, "finish_reason": finish}]})
    if wants_usage and answer.get("usage") is not None:
        event({**base, "choices": [], "usage": answer["usage"]})
    events.append(b"data: [DONE]\n\n")
    return b"".join(events)


class StreamCollector:
    """Wraps a stream's reader (``streaming.readers.StreamReader``) and assembles the
    client-format chat completion chunks it passes into one answer, so a streamed
    miss can be stored too. It sees the events before restoration: the answer it
    builds holds placeholders, never a value the redaction policy removed. A
    chunk with ``tool_calls`` or ``function_call`` makes the answer unstorable.

    Args:
        inner: the reader of the stream's format.
    """

    __slots__ = ("_inner", "_head", "_choices", "_usage", "_storable")

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._head: dict[str, Any] = {}
        self._choices: dict[int, dict[str, Any]] = {}
        self._usage: dict[str, Any] | None = None
        self._storable = True

    @property
    def done(self) -> bool:
        """The inner reader's ``done``."""
        return bool(self._inner.done)

    @done.setter
    def done(self, value: bool) -> None:
        self._inner.done = value

    def filter(self, events: list[Any]) -> list[Any]:
        """The inner reader's events, read for the answer on the way through."""
        out = self._inner.filter(events)
        self._collect(out)
        return list(out)

    def close(self) -> list[Any]:
        """The inner reader's closing events, read too."""
        out = self._inner.close()
        self._collect(out)
        return list(out)

    def tokens(self) -> Tokens | None:
        """The inner reader's tokens."""
        tokens: Tokens | None = self._inner.tokens()
        return tokens

    def _collect(self, events: list[Any]) -> None:
        if not self._storable:
            return
        for event in events:
            obj = event.json()
            if type(obj) is not dict:
                continue
            for field in ("id", "created", "model", "system_fingerprint"):
                if field not in self._head and obj.get(field) is not None:
                    self._head[field] = obj[field]
            if type(obj.get("usage")) is dict:
                self._usage = obj["usage"]
            choices = obj.get("choices")
            for choice in choices if type(choices) is list else []:
                if type(choice) is not dict:
                    continue
                delta = choice.get("delta")
                if type(delta) is dict:
                    if delta.get("tool_calls") or delta.get("function_call"):
                        self._storable = False
                        return
                    index = choice.get("index", 0)
                    into = self._choices.setdefault(index if type(index) is int else 0, {"content": []})
                    if type(delta.get("role")) is str:
                        into["role"] = delta["role"]
                    if type(delta.get("content")) is str:
                        into["content"].append(delta["content"])
                    if type(delta.get("refusal")) is str:
                        into.setdefault("refusal", []).append(delta["refusal"])
                if choice.get("finish_reason") is not None:
                    self._choices.setdefault(choice.get("index", 0), {"content": []})["finish_reason"] = (
                        choice["finish_reason"]
                    )

    def answer(self, tokens: Tokens) -> dict[str, Any] | None:
        """The assembled ``chat.completion`` (``usage`` from ``tokens`` when the
        client's stream carried none), or None when it cannot be stored."""
        if not self._storable or not self._choices:
            return None
        choices = []
        for index in sorted(self._choices):
            c = self._choices[index]
            message: dict[str, Any] = {"role": c.get("role", "assistant"), "content": "".join(c["content"])}
            if "refusal" in c:
                message["refusal"] = "".join(c["refusal"])
            choices.append({"index": index, "message": message, "finish_reason": c.get("finish_reason")})
        usage = self._usage or {
            "prompt_tokens": tokens.prompt_tokens,
            "completion_tokens": tokens.completion_tokens,
            "total_tokens": tokens.total_tokens,
        }
        return {**self._head, "object": "chat.completion", "choices": choices, "usage": usage}
