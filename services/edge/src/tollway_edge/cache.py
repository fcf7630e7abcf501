"""The exact response cache (issue 13): a provider's answer kept in Valkey and
served again for the same request of the same tenant.

Opt-in: only a key whose effective policy sets ``response_cache_ttl_seconds``
(the key's, else its team's: quota migration 0005) uses it; every other call
touches no cache and costs no Valkey round trip. Per request,
``Cache-Control: no-cache`` skips the lookup (the fresh answer is still
stored) and ``no-store`` does not store the answer.

What is cached (:func:`cacheable`): chat completions asking for one choice
(``n`` absent or 1) and offering no tools or functions (a tool call acts on
the world; replaying it is not the caller's intent). Sampling settings are
part of the key, not a reason to skip: a tenant opting in accepts that the
same request gets the same answer for the TTL.

Key: ``tw:rc:v1:{tenant}:{sha256}`` where the hash covers the tenant id,
the endpoint path and the normalised body (sorted keys; ``stream`` and
``stream_options`` removed, so a streamed and a non-streamed request share
an entry) *after redaction*: the entry holds the provider's answer to the
redacted body, before the call's own values are restored, so it holds no
text a redaction policy removed; a hit is restored with the hitting call's
own mapping. Never shared across tenants: the tenant is in the key and in
the hash.

Residency: the entry names the regions of the deployment that answered; a
hit whose regions are not all within the caller's ``allowed_regions`` is
not served (a miss). Valkey errors and timeouts are misses (logged): the
cache never fails a call.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass
from typing import Any

import orjson
import structlog
from multidict import CIMultiDictProxy

from tollway_admission.urls import valkey_client
from tollway_edge.metrics import RESPONSE_CACHE
from tollway_edge.usage import Tokens

log = structlog.get_logger("tollway_edge.cache")

KEY_PREFIX = "tw:rc:v1:"
_NOT_KEYED = ("stream", "stream_options")


@dataclass(frozen=True, slots=True)
class CacheDirectives:
    """The request's ``Cache-Control`` as the cache reads it.

    Attributes:
        lookup: False for ``no-cache`` (answer from the provider).
        store: False for ``no-store`` (keep nothing of this call).
    """

    lookup: bool = True
    store: bool = True


def directives(headers: CIMultiDictProxy[str]) -> CacheDirectives:
    """Parse ``Cache-Control`` (RFC 9111 request directives; others ignored)."""
    values = {
        part.strip().split("=", 1)[0].lower()
        for header in headers.getall("Cache-Control", ())
        for part in header.split(",")
    }
    return CacheDirectives(lookup="no-cache" not in values, store="no-store" not in values)


def cacheable(body: dict[str, Any]) -> bool:
    """True when a chat completion body may be cached (module doc): one choice, no tools."""
    n = body.get("n")
    if n is not None and n != 1:
        return False
    return not any(body.get(k) for k in ("tools", "functions", "tool_choice", "function_call"))


def cache_key(tenant_id: str, path: str, body: dict[str, Any]) -> str:
    """The Valkey key of a (redacted) request body for ``tenant_id`` (module doc)."""
    normalised = {k: v for k, v in body.items() if k not in _NOT_KEYED}
    digest = hashlib.sha256()
    digest.update(tenant_id.encode())
    digest.update(b"\x00")
    digest.update(path.encode())
    digest.update(b"\x00")
    digest.update(orjson.dumps(normalised, option=orjson.OPT_SORT_KEYS))
    return f"{KEY_PREFIX}{tenant_id}:{digest.hexdigest()}"


@dataclass(slots=True)
class CacheUse:
    """One call's use of the cache.

    Attributes:
        key: the entry's Valkey key (:func:`cache_key`).
        ttl_seconds: the key's policy TTL, seconds.
        directives: the request's ``Cache-Control``.
        pending: an encoded entry to store once the answer is sent, else None.
    """

    key: str
    ttl_seconds: int
    directives: CacheDirectives
    pending: bytes | None = None


@dataclass(frozen=True, slots=True)
class Entry:
    """A cached answer.

    Attributes:
        answer: the client-format JSON answer (OpenAI chat completion) as the
            provider gave it for the redacted body.
        tokens: the original call's tokens (a hit is metered with them, at cost 0).
        provider, upstream_model, deployment: who answered the original call.
        regions: that deployment's region tags (residency check on a hit).
    """

    answer: dict[str, Any]
    tokens: Tokens
    provider: str | None
    upstream_model: str | None
    deployment: str | None
    regions: frozenset[str]

    def encode(self) -> bytes:
        """The entry as stored (JSON)."""
        t = self.tokens
        return orjson.dumps(
            {
                "answer": self.answer,
                "tokens": [
                    t.prompt_tokens,
                    t.completion_tokens,
                    t.cached_tokens,
                    t.reasoning_tokens,
                    t.total_tokens,
                    t.cache_write_tokens,
                ],
                "provider": self.provider,
                "upstream_model": self.upstream_model,
                "deployment": self.deployment,
                "regions": sorted(self.regions),
            }
        )

    @classmethod
    def decode(cls, raw: bytes) -> Entry:
        """Read a stored entry.

        Raises:
            ValueError, KeyError, TypeError: not an entry of this version.
        """
        obj = orjson.loads(raw)
        p, c, cached, reasoning, total, write = obj["tokens"]
        answer = obj["answer"]
        if type(answer) is not dict:
            raise TypeError("answer is not an object")
        return cls(
            answer=answer,
            tokens=Tokens(int(p), int(c), int(cached), int(reasoning), int(total), int(write)),
            provider=obj["provider"],
            upstream_model=obj["upstream_model"],
            deployment=obj["deployment"],
            regions=frozenset(obj["regions"]),
        )

    def admitted_by(self, allowed_regions: frozenset[str] | None) -> bool:
        """True when a caller with this residency policy may be served this entry
        (the rule of ``Deployment.regions``: tagged, and every tag allowed)."""
        if allowed_regions is None:
            return True
        return bool(self.regions) and self.regions <= allowed_regions


class ResponseCache:
    """The Valkey side of the cache: one GET per lookup, one SET (with EX) per store.

    Args:
        valkey_url: the Valkey URL (``tollway_admission.urls`` forms).
        timeout_seconds: bound on each round trip; beyond it the call goes on
            as a miss (lookup) or without storing.
        max_entry_bytes: answers larger than this are not stored, bytes.
    """

    def __init__(
        self, valkey_url: str, *, timeout_seconds: float = 0.2, max_entry_bytes: int = 1 << 20
    ) -> None:
        self._url = valkey_url
        self._timeout = timeout_seconds
        self._max_entry_bytes = max_entry_bytes
        self._client: Any = None

    def _valkey(self) -> Any:
        if self._client is None:  # created on first use: a deployment where nobody opts in opens nothing
            self._client = valkey_client(self._url, max_connections=64, timeout=self._timeout)
        return self._client

    async def get(self, key: str) -> Entry | None:
        """The entry at ``key``, or None (absent, unreadable, Valkey error or timeout)."""
        try:
            raw = await asyncio.wait_for(self._valkey().get(key), self._timeout)
        except Exception as err:  # noqa: BLE001 - redis errors of any kind are a miss, never a failed call
            RESPONSE_CACHE.labels("error").inc()
            log.warning("response_cache_unavailable", op="get", error=type(err).__name__)
            return None
        if raw is None:
            return None
        try:
            return Entry.decode(raw)
        except (ValueError, KeyError, TypeError):
            log.warning("response_cache_entry_unreadable")
            return None

    async def put(self, key: str, raw: bytes, ttl_seconds: int) -> bool:
        """Store an encoded entry (:meth:`Entry.encode`) at ``key`` for
        ``ttl_seconds``; False when not stored (too large, Valkey error)."""
        if len(raw) > self._max_entry_bytes:
            return False
        try:
            await asyncio.wait_for(self._valkey().set(key, raw, ex=ttl_seconds), self._timeout)
        except Exception as err:  # noqa: BLE001 - a failed store only costs a later miss
            RESPONSE_CACHE.labels("error").inc()
            log.warning("response_cache_unavailable", op="set", error=type(err).__name__)
            return False
        RESPONSE_CACHE.labels("stored").inc()
        return True

    async def close(self) -> None:
        """Close the Valkey client, if one was opened."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None


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
