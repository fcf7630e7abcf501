"""Redaction policy, and the edge <-> redactor HTTP contract.

A policy is set per API key or per team through the quota admin API; the
effective one (key's, else team's, else off) reaches the edge in the
``redaction_policy`` column of ``catalog.edge_principals``.

Every model here is a frozen ``msgspec.Struct`` (the edge's workers never
import pydantic). The constructors check nothing: data from outside goes
through :func:`parse_policy`, :func:`request_from`, :func:`decode_response`
(types and bounds checked; ``msgspec.ValidationError``, a ``ValueError``, on a
mismatch), and out through :func:`encode`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal

import msgspec

_Unit = Annotated[float, msgspec.Meta(ge=0.0, le=1.0)]
_NonNegInt = Annotated[int, msgspec.Meta(ge=0)]
_NonNegFloat = Annotated[
    float, msgspec.Meta(ge=0)
]  # ge=0, as events.NonNegFloat: typing caches equal Annotated forms

RedactionMode = Literal["off", "detect", "redact", "block"]

UnsupportedLanguagePolicy = Literal["block", "patterns_only", "pass"]
"""What the redactor does with text that no configured language model covers
(a language it has no model for, or a run of a non-Latin script such as
山田太郎 inside an English prompt):

- ``block``: the uncovered text becomes one detection of entity type
  :data:`UNSUPPORTED_LANGUAGE_ENTITY` (score 1.0), so it is refused in
  ``block`` mode and replaced (``<UNSUPPORTED_LANGUAGE_1>``) in ``redact``
  mode. The edge should refuse the whole call when any text reports
  ``language_policy == "block"``.
- ``patterns_only``: pattern recognizers (e-mail, phone, card, IBAN, SSN,
  IP, address, custom patterns) run over it; no name recognition.
- ``pass``: an unsupported-language text is not analysed; a foreign-script
  run inside a supported text is left as it is. Recorded, never silent.
"""

UnknownFieldsPolicy = Literal["scan", "refuse"]
"""What the edge does with strings in request fields it does not know (issue 11)."""

AnswerPolicy = Literal["off", "redact", "block"]
"""What the edge does with personal data in the provider's answer (issue 11,
"Answers too"), stream and not:

- ``off``: the answer is relayed as the provider wrote it (default);
- ``redact``: each detected value is replaced with a typed, numbered
  placeholder (``<PERSON_3>``) numbered after the prompt's placeholders, so a
  reversible policy's restoration never confuses the two;
- ``block``: an answer holding any detection is not delivered: a non-streamed
  answer becomes a 502 ``answer_blocked`` (``x-should-retry: false``), a stream
  ends with the terminator's error event. Billed for what the provider produced.
"""

AppliedLanguagePolicy = Literal["supported", "block", "patterns_only", "pass"]
"""Per text: ``supported`` when a configured model covered all of it, else the
:data:`UnsupportedLanguagePolicy` that was applied."""

_LANGUAGE_POLICY_RANK: dict[str, int] = {"supported": 0, "pass": 1, "patterns_only": 2, "block": 3}


def strictest_language_policy(
    policies: Iterable[AppliedLanguagePolicy | None],
) -> AppliedLanguagePolicy | None:
    """The strictest applied language policy of a call's texts, for the usage
    event's ``redaction_language_policy``: ``block`` > ``patterns_only`` >
    ``pass`` > ``supported``; None when no text reported one (nothing
    analysed, or an older redactor).

    ``pass`` ranks above ``supported`` because it says some text was left
    unanalysed, which is what a reader of the event must see.
    """
    best: AppliedLanguagePolicy | None = None
    for p in policies:
        if p is not None and (best is None or _LANGUAGE_POLICY_RANK[p] > _LANGUAGE_POLICY_RANK[best]):
            best = p
    return best


UNSUPPORTED_LANGUAGE_ENTITY = "UNSUPPORTED_LANGUAGE"
"""Entity type of text covered by no model under the ``block`` language policy."""

REDACTION_TOO_LARGE_CODE = "redaction_request_too_large"
"""``error.code`` of the redactor's 413: more texts, characters or bytes than
its configured maximum. Not retryable: the same request always fails."""


class RedactionPolicy(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What the edge does with personal data in a call's texts.

    Attributes:
        mode: ``off`` (nothing), ``detect`` (analyse, record counts only),
            ``redact`` (replace with typed numbered placeholders such as
            ``<PERSON_1>``), ``block`` (refuse with a 400 naming the entity
            types found, never the values).
        entity_types: Presidio entity types to act on; null = the redactor's
            configured default set.
        score_threshold: minimum recognizer score, 0..1; null = the
            redactor's configured default.
        reversible: in ``redact`` mode, restore the original values in the
            answer (the mapping stays in the edge's memory for the call).
        unsupported_language: the :data:`UnsupportedLanguagePolicy` for
            text no configured model covers; null = the redactor's
            configured default (``patterns_only`` unless configured).
        unknown_fields: what the edge does, in ``redact`` and ``block``
            mode, with a string in a request field its field tables do not
            name (``tollway_edge.redaction.fields``): ``scan`` it like any
            text (default), or ``refuse`` the call (400 ``unknown_field``).
        answers: the :data:`AnswerPolicy` for the provider's answer,
            independent of ``mode`` (``mode: off`` with ``answers: redact``
            scans answers only). A value restored by ``reversible`` is the
            caller's own and is never re-redacted: the answer is scanned as
            the provider wrote it, before restoration.
    """

    mode: RedactionMode = "off"
    entity_types: list[str] | None = None
    score_threshold: _Unit | None = None
    reversible: bool = False
    unsupported_language: UnsupportedLanguagePolicy | None = None
    unknown_fields: UnknownFieldsPolicy = "scan"
    answers: AnswerPolicy = "off"


# --- Edge -> redactor HTTP contract: POST /v1/redact ------------------------

REDACT_PATH = "/v1/redact"
"""The redactor's analysis endpoint (JSON in, JSON out, port 8081)."""


class RedactionText(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One text the provider would see, with a stable id.

    Attributes:
        id: stable within the call, e.g. a JSON-pointer-like path
            (``/messages/2/content/0/text``); echoed back in the answer.
        text: the text as it would be sent. Offsets in the answer are
            Unicode code point indices into this string (Python ``str``).
    """

    id: Annotated[str, msgspec.Meta(min_length=1)]
    text: str


class RedactRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /v1/redact``: the policy and ALL the texts of one call.

    Sending every text of the call in one request is what makes placeholder
    numbering consistent across the call (``<PERSON_1>`` is the same person
    in every message).
    """

    policy: RedactionPolicy
    texts: list[RedactionText]


class Detection(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One detected entity (never its value).

    Attributes:
        entity_type: Presidio entity type, e.g. ``PERSON``, ``EMAIL_ADDRESS``.
        start: first code point of the entity in the text (inclusive).
        end: code point after the entity (exclusive).
        score: recognizer score, 0..1.
        placeholder: the typed, numbered placeholder that replaced it in
            ``anonymized_text``, e.g. ``<PERSON_1>``; the same value gets the
            same placeholder in every text of the request.
    """

    entity_type: str
    start: _NonNegInt
    end: _NonNegInt
    score: _Unit
    placeholder: str


class RedactedText(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The redactor's answer for one text.

    Attributes:
        id: the request's text id.
        detections: non-overlapping, sorted by ``start``.
        anonymized_text: the text with each detection replaced by its
            placeholder; text between detections is untouched.
        cached: True when the detections came from the shared cache.
        language: ISO 639-1 code (lower case) detected for the text; null
            when undetermined (too short or no words: analysed as English)
            or not analysed (no entity types asked).
        language_policy: ``supported`` when a configured model covered the
            whole text, else the :data:`UnsupportedLanguagePolicy` applied
            to it; null when the text was not analysed (no entity types
            asked). For the usage event's ``redaction_language_policy``.
    """

    id: str
    detections: list[Detection] = msgspec.field(default_factory=list)
    anonymized_text: str
    cached: bool = False
    language: str | None = None
    language_policy: AppliedLanguagePolicy | None = None


class RedactionCacheStats(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How much of the request the detection cache served.

    Attributes:
        hits: texts whose detections came from the cache.
        misses: texts analysed now.
        cached_chars: characters of the texts served from the cache.
        total_chars: characters of all texts.
    """

    hits: _NonNegInt = 0
    misses: _NonNegInt = 0
    cached_chars: _NonNegInt = 0
    total_chars: _NonNegInt = 0


class RedactResponse(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of the 200 answer to ``POST /v1/redact``.

    Attributes:
        results: one per request text, in request order.
        cache: detection cache statistics for this request.
        model_version: identifies the detector (spaCy model, Presidio
            version, recognizer configuration); part of the cache key.
        analysis_ms: wall time the redactor spent on the request, ms.
        supported_languages: ISO 639-1 codes that have a model (NER) in
            this redactor, e.g. ``["en", "fr"]``; empty from older redactors.
    """

    results: list[RedactedText]
    cache: RedactionCacheStats
    model_version: str
    analysis_ms: _NonNegFloat = 0.0
    supported_languages: list[str] = msgspec.field(default_factory=list)


def parse_policy(data: Any) -> RedactionPolicy:
    """Validate a JSON-shaped policy (a dict, or a :class:`RedactionPolicy`).

    Raises:
        msgspec.ValidationError (a ``ValueError``): an unknown field, a
            wrong type or value.
    """
    if isinstance(data, RedactionPolicy):
        return data
    return msgspec.convert(data, RedactionPolicy, strict=False)


_RESPONSE_DECODER = msgspec.json.Decoder(RedactResponse, strict=False)
_ENCODER = msgspec.json.Encoder()


def request_from(data: Any) -> RedactRequest:
    """Validate the JSON-shaped body of ``POST /v1/redact`` (lax: ``"0.5"`` for
    ``0.5``, as the redactor always accepted).

    Raises:
        msgspec.ValidationError (a ``ValueError``): not a :class:`RedactRequest`.
    """
    return msgspec.convert(data, RedactRequest, strict=False)


def decode_response(raw: bytes) -> RedactResponse:
    """Parse and validate the redactor's 200 body.

    Raises:
        msgspec.DecodeError, msgspec.ValidationError (both ``ValueError``).
    """
    return _RESPONSE_DECODER.decode(raw)


def encode(value: msgspec.Struct) -> bytes:
    """One of this module's contracts as JSON bytes (every field written)."""
    return _ENCODER.encode(value)
