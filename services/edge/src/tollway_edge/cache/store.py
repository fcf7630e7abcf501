"""The response cache's keys, entries and Valkey store (see the package doc):
:func:`directives`, :func:`cacheable`, :func:`cache_key`, :class:`CacheUse`,
:class:`Entry`, :class:`ResponseCache`."""

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
            self._client = valkey_client(self._url, max_connections=64, timeout=self._timeout, service="edge")
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
