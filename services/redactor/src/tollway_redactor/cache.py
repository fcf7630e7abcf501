"""The shared detection cache in Valkey.

Key: ``<prefix>det:<scope>:<sha256(text)>`` where ``scope`` is a hash of the
effective policy (sorted entity types + score threshold) and the detector's
model version (which covers the recognizer configuration). Two policies never
share an entry; a new model or configuration starts a fresh key space.

Value: the detections as JSON ``{"s": [[entity_type, start, end, score],
...], "l": language, "p": language policy}`` — offsets, types, scores, an ISO
639-1 code and a policy name, never any text. Entries expire after the
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

from tollway_redactor.detection import Span, TextAnalysis

log = structlog.get_logger("tollway_redactor.cache")


def cache_scope(
    entity_types: Sequence[str], score_threshold: float, model_version: str, language_policy: str = ""
) -> str:
    """16-hex-digit hash of what determines the detections besides the text."""
    material = orjson.dumps(
        [sorted(set(entity_types)), round(float(score_threshold), 6), model_version, language_policy]
    )
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


def encode_analysis(analysis: TextAnalysis) -> bytes:
    """Cache value for one text's analysis (spans, language, applied policy)."""
    return orjson.dumps(
        {
            "s": [[s.entity_type, s.start, s.end, s.score] for s in analysis.spans],
            "l": analysis.language,
            "p": analysis.language_policy,
        }
    )


def decode_analysis(raw: bytes) -> TextAnalysis:
    """Inverse of :func:`encode_analysis`.

    Raises:
        ValueError, TypeError, KeyError: malformed value.
    """
    value = orjson.loads(raw)
    spans = [Span(str(t), int(a), int(b), float(c)) for t, a, b, c in value["s"]]
    language = value["l"]
    return TextAnalysis(spans, None if language is None else str(language), str(value["p"]))


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

    async def get_many(self, scope: str, texts: Sequence[str]) -> list[TextAnalysis | None]:
        """Cached detections per text (None = miss); all misses on a Valkey error."""
        if not texts:
            return []
        try:
            raws = await self._client.mget([self.key(scope, t) for t in texts])
        except (RedisError, OSError) as exc:
            log.warning("cache_read_failed", error=type(exc).__name__)
            return [None] * len(texts)
        out: list[TextAnalysis | None] = []
        for raw in raws:
            if raw is None:
                out.append(None)
                continue
            try:
                out.append(decode_analysis(raw if isinstance(raw, bytes) else raw.encode()))
            except (ValueError, TypeError, KeyError):
                out.append(None)
        return out

    async def put_many(self, scope: str, items: Sequence[tuple[str, TextAnalysis]]) -> None:
        """Store the analysis of each ``(text, analysis)``; errors are logged, not raised."""
        if not items:
            return
        try:
            async with self._client.pipeline(transaction=False) as pipe:
                for text, analysis in items:
                    pipe.set(self.key(scope, text), encode_analysis(analysis), ex=self._ttl)
                await pipe.execute()
        except (RedisError, OSError) as exc:
            log.warning("cache_write_failed", error=type(exc).__name__)

    async def ping(self) -> bool:
        """True when Valkey answers."""
        try:
            return bool(await self._client.ping())
        except (RedisError, OSError):
            return False
