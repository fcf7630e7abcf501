"""The shared detection cache in Valkey.

Key: ``<prefix>det:<scope>:<sha256(text)>`` where ``scope`` is a hash of the
effective policy (sorted entity types + score threshold) and the detector's
model version (which covers the recognizer configuration). Two policies never
share an entry; a new model or configuration starts a fresh key space.

Value: the detections as JSON ``[[entity_type, start, end, score], ...]`` —
offsets, types and scores only, never any text. Entries expire after the
configured TTL.

A cache that errors is treated as empty (every text is analysed; nothing is
ever skipped): the cache is an optimisation, never part of the privacy
guarantee.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import orjson
import redis.asyncio as aioredis
import structlog
from redis.exceptions import RedisError

from tollway_redactor.detection import Span

log = structlog.get_logger("tollway_redactor.cache")


def cache_scope(entity_types: Sequence[str], score_threshold: float, model_version: str) -> str:
    """16-hex-digit hash of what determines the detections besides the text."""
    material = orjson.dumps([sorted(set(entity_types)), round(float(score_threshold), 6), model_version])
    return hashlib.sha256(material).hexdigest()[:16]


def text_digest(text: str) -> str:
    """sha256 hex digest of the UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def encode_spans(spans: Sequence[Span]) -> bytes:
    """Cache value for ``spans`` (types, offsets, scores)."""
    return orjson.dumps([[s.entity_type, s.start, s.end, s.score] for s in spans])


def decode_spans(raw: bytes) -> list[Span]:
    """Inverse of :func:`encode_spans`.

    Raises:
        ValueError: malformed value.
    """
    return [Span(str(t), int(a), int(b), float(c)) for t, a, b, c in orjson.loads(raw)]


class DetectionCache:
    """Valkey-backed detection cache.

    Args:
        client: a ``redis.asyncio.Redis`` (decode_responses=False).
        prefix: key prefix, e.g. ``tollway:redactor:``.
        ttl_seconds: expiry of each entry.
    """

    def __init__(self, client: aioredis.Redis, prefix: str, ttl_seconds: int) -> None:
        self._client = client
        self._prefix = prefix
        self._ttl = ttl_seconds

    def key(self, scope: str, text: str) -> str:
        """The key of ``text`` under ``scope``."""
        return f"{self._prefix}det:{scope}:{text_digest(text)}"

    async def get_many(self, scope: str, texts: Sequence[str]) -> list[list[Span] | None]:
        """Cached detections per text (None = miss); all misses on a Valkey error."""
        if not texts:
            return []
        try:
            raws = await self._client.mget([self.key(scope, t) for t in texts])
        except (RedisError, OSError) as exc:
            log.warning("cache_read_failed", error=type(exc).__name__)
            return [None] * len(texts)
        out: list[list[Span] | None] = []
        for raw in raws:
            if raw is None:
                out.append(None)
                continue
            try:
                out.append(decode_spans(raw))
            except (ValueError, TypeError):
                out.append(None)
        return out

    async def put_many(self, scope: str, items: Sequence[tuple[str, Sequence[Span]]]) -> None:
        """Store detections for each ``(text, spans)``; errors are logged, not raised."""
        if not items:
            return
        try:
            async with self._client.pipeline(transaction=False) as pipe:
                for text, spans in items:
                    pipe.set(self.key(scope, text), encode_spans(spans), ex=self._ttl)
                await pipe.execute()
        except (RedisError, OSError) as exc:
            log.warning("cache_write_failed", error=type(exc).__name__)

    async def ping(self) -> bool:
        """True when Valkey answers."""
        try:
            return bool(await self._client.ping())
        except (RedisError, OSError):
            return False
