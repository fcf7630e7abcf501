"""The redaction use case: cache lookup -> analysis of the misses -> anonymisation.

``Redactor.redact`` is what ``POST /v1/redact`` runs; it has no HTTP in it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Protocol

import structlog

from tollway_contracts.redaction import (
    Detection,
    RedactedText,
    RedactionCacheStats,
    RedactRequest,
    RedactResponse,
)
from tollway_redactor.cache import DetectionCache, cache_scope
from tollway_redactor.detection import TextAnalysis, anonymise_all


class UnknownEntityTypes(ValueError):
    """The policy asks for entity types no recognizer of this redactor emits.

    Attributes:
        entity_types: the unknown types, sorted.
    """

    def __init__(self, entity_types: Sequence[str]) -> None:
        self.entity_types = sorted(entity_types)
        super().__init__(f"unknown entity types: {', '.join(self.entity_types)}")


class Analyzer(Protocol):
    """What the use case needs from the detector (the worker pool, or a Detector in-process)."""

    model_version: str | None
    languages: list[str]
    entity_types: list[str]

    async def analyze(
        self,
        texts: Sequence[str],
        entity_types: Sequence[str],
        threshold: float,
        language_policy: str | None = None,
    ) -> list[TextAnalysis]:
        """Spans, language and applied language policy per text."""
        ...


class Redactor:
    """Answers redaction requests.

    Args:
        analyzer: the detector (``AnalyzerPool`` in the service).
        cache: the shared detection cache, or None to analyse everything.
        default_entity_types / default_score_threshold /
            default_language_policy: used where the policy leaves them null.
    """

    def __init__(
        self,
        analyzer: Analyzer,
        cache: DetectionCache | None,
        default_entity_types: Sequence[str],
        default_score_threshold: float,
        default_language_policy: str = "patterns_only",
    ) -> None:
        self.analyzer = analyzer
        self.cache = cache
        self.default_entity_types = list(default_entity_types)
        self.default_score_threshold = default_score_threshold
        self.default_language_policy = default_language_policy

    async def redact(self, request: RedactRequest) -> RedactResponse:
        """Detections and anonymised text for every text of ``request``.

        Raises:
            tollway_redactor.pool.AnalyzerUnavailable: the workers cannot answer.
            UnknownEntityTypes: the policy names a type no recognizer emits
                (a silent "nothing found" would let that data through).
        """
        started = time.perf_counter()
        policy = request.policy
        entity_types = (
            list(policy.entity_types) if policy.entity_types is not None else self.default_entity_types
        )
        threshold = (
            policy.score_threshold if policy.score_threshold is not None else self.default_score_threshold
        )
        unknown = set(entity_types) - set(self.analyzer.entity_types)
        if unknown and self.analyzer.entity_types:
            raise UnknownEntityTypes(list(unknown))
        language_policy = policy.unsupported_language or self.default_language_policy
        texts = [t.text for t in request.texts]
        unique = list(dict.fromkeys(texts))  # repeated texts are looked up and analysed once
        model_version = self.analyzer.model_version or "unknown"
        scope = cache_scope(entity_types, threshold, model_version, language_policy)

        found: dict[str, TextAnalysis] = {}
        from_cache: set[str] = set()
        t_cache = time.perf_counter()
        if self.cache is not None and entity_types:
            for text, cached in zip(unique, await self.cache.get_many(scope, unique), strict=True):
                if cached is not None:
                    found[text] = cached
                    from_cache.add(text)
        misses = [t for t in unique if t not in found]
        t_analyze = time.perf_counter()
        if misses and entity_types:
            analysed = await self.analyzer.analyze(misses, entity_types, threshold, language_policy)
            found.update(zip(misses, analysed, strict=True))
            t_store = time.perf_counter()
            if self.cache is not None:
                await self.cache.put_many(scope, list(zip(misses, analysed, strict=True)))
        else:
            t_store = time.perf_counter()
        t_anon = time.perf_counter()
        for t in misses:
            found.setdefault(t, TextAnalysis(language_policy=""))  # no entity types asked: not analysed

        anonymised = anonymise_all(texts, [found[t].spans for t in texts])
        results = [
            RedactedText(
                id=item.id,
                anonymized_text=anon,
                cached=item.text in from_cache,
                language=found[item.text].language,
                language_policy=found[item.text].language_policy or None,  # type: ignore[arg-type]  # one of the contract's names, set by the detector
                detections=[
                    Detection(
                        entity_type=r.span.entity_type,
                        start=r.span.start,
                        end=r.span.end,
                        score=r.span.score,
                        placeholder=r.placeholder,
                    )
                    for r in replacements
                ],
            )
            for item, (anon, replacements) in zip(request.texts, anonymised, strict=True)
        ]
        # breakdown for the handler's canonical log line (ms)
        structlog.contextvars.bind_contextvars(
            cache_read_ms=round((t_analyze - t_cache) * 1000, 2),
            analyze_ms=round((t_store - t_analyze) * 1000, 2),
            cache_write_ms=round((t_anon - t_store) * 1000, 2),
            anonymise_ms=round((time.perf_counter() - t_anon) * 1000, 2),
        )
        hits = sum(1 for t in texts if t in from_cache)
        stats = RedactionCacheStats(
            hits=hits,
            misses=len(texts) - hits,
            cached_chars=sum(len(t) for t in texts if t in from_cache),
            total_chars=sum(len(t) for t in texts),
        )
        return RedactResponse(
            results=results,
            cache=stats,
            model_version=model_version,
            analysis_ms=round((time.perf_counter() - started) * 1000, 3),
            supported_languages=list(self.analyzer.languages),
        )
