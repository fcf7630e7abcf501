"""The detector: Presidio's analyzer over a lean spaCy pipeline, fully offline.

Built once per worker process (``pool.py``) and called with batches of texts.

Offline traps handled here (PLATFORM-NOTES "Presidio and spaCy offline"):

- ``tldextract`` would fetch the Public Suffix List on the first e-mail
  match; ``TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS`` must be empty *before*
  presidio is imported, so this module sets it before its presidio imports.
- ``AnalyzerEngine()`` without an NLP engine downloads ``en_core_web_lg``; we
  always pass our own engine that loads the configured model package and
  never calls ``spacy.cli.download``, with Presidio's default NER mapping
  (ORGANIZATION ignored: else "Visa" and "IBAN" come back as organisations).

Speed: only ``tok2vec`` and ``ner`` run (parser, tagger, attribute ruler and
lemmatizer are excluded; the context enhancer gets lower-cased tokens as
lemmas), NER runs only when the policy asks for an NER entity type, texts go
through ``nlp.pipe`` in one batch, and a cheap per-text pre-filter drops
recognizers that cannot match (no digit: no phone, card, IBAN, SSN, address;
no ``@``: no e-mail).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""  # before presidio: see module doc

import phonenumbers  # noqa: E402
import spacy  # noqa: E402
from presidio_analyzer import (  # noqa: E402
    AnalysisExplanation,
    AnalyzerEngine,
    EntityRecognizer,
    Pattern,
    PatternRecognizer,
    RecognizerRegistry,
    RecognizerResult,
)
from presidio_analyzer.nlp_engine import NerModelConfiguration, NlpArtifacts, SpacyNlpEngine  # noqa: E402
from presidio_analyzer.predefined_recognizers import (  # noqa: E402
    EmailRecognizer,
    IbanRecognizer,
    IpRecognizer,
    PhoneRecognizer,
)
from spacy.language import Language  # noqa: E402
from spacy.tokens import Doc  # noqa: E402
from spacy.tokens import Span as Span_  # noqa: E402

from tollway_redactor.addresses import PATTERNS as ADDRESS_PATTERNS  # noqa: E402
from tollway_redactor.detection import Span, TextAnalysis, resolve_overlaps  # noqa: E402
from tollway_redactor.languages import LanguageDetector, foreign_script_runs  # noqa: E402
from tollway_redactor.name_lists import ambiguous_first_names, word_zipf, world_places  # noqa: E402
from tollway_redactor.names import (  # noqa: E402
    CUE_SCORE,
    GAZETTEER_SCORE,
    answered_name_names,
    capitalised_cue_names,
    capitals_names,
    caps_surname_given_names,
    chat_handle_names,
    code_or_date,
    complete_names,
    context_names,
    coordinated_names,
    coordinated_places,
    cue_names,
    cut_at_lowercase,
    email_names,
    everyday_word,
    extend_person,
    field_names,
    first_line,
    gazetteer_names,
    given_initial_names,
    grow_initials,
    in_code_line,
    in_table_header,
    initial_possessive_names,
    initial_surname_names,
    is_place,
    join_surname_comma_given,
    json_list_names,
    last_first_names,
    list_item_names,
    lowercase_chat_names,
    lowercase_context_names,
    lowercase_cue_names,
    lowercase_names,
    ner_segments,
    not_a_person,
    organisation_name,
    plausible_person,
    preposition_names,
    rare_pair_names,
    repeated_names,
    surname_comma_given_names,
    table_names,
    trim_article,
    trim_labels,
    vocative_and_signature_names,
)
from tollway_redactor.number_rules import (  # noqa: E402
    bare_run_ok,
    dotted_quad_not_ip,
    find_cards,
    find_extra_ibans,
    phone_candidate_ok,
    possible_phone_ok,
    uppercase_ibans,
)
from tollway_redactor.windows import plan_windows  # noqa: E402

LANGUAGE = "en"
"""Presidio's recognizers are registered once, for ``en``; every text is
analysed through them whatever its language (patterns do not depend on it),
with NLP artifacts from the model of the text's own language."""

UNSUPPORTED_ENTITY = "UNSUPPORTED_LANGUAGE"
"""Entity type covering text that no configured model covers, under the
``block`` language policy: an edge that blocks on any detection refuses the
call, one that redacts replaces the text with ``<UNSUPPORTED_LANGUAGE_n>``."""

LanguagePolicy = Literal["block", "patterns_only", "pass"]

DETECTOR_REVISION = "2026-12-03.issue11-r17"
"""Bumped whenever recognizer *code* changes what is detected (the card, phone,
e-mail and name rules here and in ``number_rules``/``names``): it is part of
``model_version``, hence of the cache key, so a deploy never serves
detections cached by the previous rules."""

# Presidio's default mapping (conf/default.yaml), copied so a Presidio upgrade
# cannot silently change what the small model's labels mean.
NER_MAPPING = {
    "PER": "PERSON",
    "PERSON": "PERSON",
    "NORP": "NRP",
    "FAC": "LOCATION",
    "LOC": "LOCATION",
    "GPE": "LOCATION",
    "LOCATION": "LOCATION",
    "ORG": "ORGANIZATION",
    "ORGANIZATION": "ORGANIZATION",
    "DATE": "DATE_TIME",
    "TIME": "DATE_TIME",
}
NER_LABELS_TO_IGNORE = [
    "ORGANIZATION",
    "CARDINAL",
    "EVENT",
    "LANGUAGE",
    "LAW",
    "MONEY",
    "ORDINAL",
    "PERCENT",
    "PRODUCT",
    "QUANTITY",
    "WORK_OF_ART",
]
NER_ENTITY_TYPES = frozenset({"PERSON", "LOCATION", "NRP", "DATE_TIME"})
_EXCLUDED_PIPES = ("parser", "tagger", "attribute_ruler", "lemmatizer", "senter", "morphologizer")

# Fewest digits a text must hold for a type's recognizers to be able to match
# (the phone recognizer, the slowest, runs one matcher per region).
_MIN_DIGITS = {
    "PHONE_NUMBER": 7,
    "CREDIT_CARD": 12,
    # the two check digits: a registry BBAN may hold letters only ("PS..": 4
    # letters and 21 alphanumerics; round 9)
    "IBAN_CODE": 2,
    "US_SSN": 9,
    "US_BANK_NUMBER": 8,
    "US_ITIN": 9,
    "STREET_ADDRESS": 1,
    "IP_ADDRESS": 1,
}
_DIGIT = re.compile(r"\d")
# An IBAN's head (country code and check digits, any case): without one the
# IBAN recognizers are not run (round 9: they run on texts of 2+ digits now)
_IBAN_HEAD = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}")

# Tollway's own recognizers: street addresses (``addresses.py`` holds the
# patterns and the layouts they cover).
BUILTIN_RECOGNIZERS = [
    {
        "name": "tollway_street_address",
        "entity_type": "STREET_ADDRESS",
        "patterns": [
            # 0.85 = spaCy's NER score: on a tie the longer span (the whole
            # address) wins over a city or street name tagged PERSON.
            {"name": name, "regex": regex, "score": 0.85}
            for name, regex in ADDRESS_PATTERNS
        ],
        "context": [
            "address",
            "live",
            "lives",
            "street",
            "ship",
            "deliver",
            "mail",
            "send",
            "located",
            "home",
            "adresse",
            "livraison",
            "dirección",
            "domicilio",
        ],
    }
]


_LONG_RUN = re.compile(r"\S{65,}")
_NON_WORD = re.compile(r"\W")


def tokenizer_safe(text: str) -> str:
    """``text`` as spaCy may tokenize it in linear time: in every run of more
    than 64 non-space characters, each non-word character becomes a space.

    spaCy's tokenizer strips affixes from a whitespace-free run one at a
    time, searching the rest of the run each time: quadratic in the run's
    length (issue 11: tool-call ``arguments`` nested 5,000 deep, 30 k
    characters of ``{"a":``, took minutes and timed the edge out). The
    result has the same length, so every offset stays valid; only the NLP
    pipeline (tokens, NER) reads it — pattern recognizers read the original.
    """
    if len(text) <= 64 or _LONG_RUN.search(text) is None:
        return text
    return _LONG_RUN.sub(lambda m: _NON_WORD.sub(" ", m.group()), text)


class LeanSpacyNlpEngine(SpacyNlpEngine):
    """Presidio's spaCy engine loading only ``tok2vec`` + ``ner`` of an installed model.

    Raises (from ``load``):
        OSError: the model package is not installed (never downloads).
    """

    def __init__(self, model_name: str, extra_models: dict[str, str] | None = None) -> None:
        self.model_names = {LANGUAGE: model_name, **(extra_models or {})}
        super().__init__(
            models=[{"lang_code": lang, "model_name": name} for lang, name in self.model_names.items()],
            ner_model_configuration=NerModelConfiguration(
                model_to_presidio_entity_mapping=dict(NER_MAPPING),
                labels_to_ignore=list(NER_LABELS_TO_IGNORE),
                low_score_entity_names=[],
            ),
        )
        self.model_name = model_name

    def load(self) -> None:  # noqa: D102 - documented on the class
        self.pipelines: dict[str, Language] = {
            lang: spacy.load(name, exclude=list(_EXCLUDED_PIPES)) for lang, name in self.model_names.items()
        }
        self.nlp = self.pipelines  # type: ignore[assignment]  # Presidio's __init__ sets None unannotated: mypy infers None

    def artifacts(
        self, texts: Sequence[str], ner: bool, prefilter: bool = True, lang: str = LANGUAGE
    ) -> list[NlpArtifacts]:
        """NLP artifacts per text from ``lang``'s model; with ``ner=False`` only the tokenizer runs.

        Texts must be shorter than the model's ``max_length`` (the detector
        windows long text first). Long whitespace-free runs are tokenized
        through :func:`tokenizer_safe` (same offsets).

        With ``prefilter``, NER runs only on the sentences that
        :func:`tollway_redactor.names.ner_segments` selects (those with a
        capitalised word that is not a common sentence opener); the
        entities are mapped back onto a tokenizer-only Doc of the full text.
        """
        nlp = self.pipelines[lang]
        texts = [tokenizer_safe(t) for t in texts]
        if not ner:
            docs = [nlp.make_doc(t) for t in texts]
        elif not prefilter:
            docs = list(nlp.pipe(texts, batch_size=64))
        else:
            docs = [nlp.make_doc(t) for t in texts]
            jobs = [(i, start, end) for i, t in enumerate(texts) for start, end in ner_segments(t)]
            seg_docs = nlp.pipe((texts[i][a:b] for i, a, b in jobs), batch_size=64)
            ents: dict[int, list[Span_]] = {}
            for (i, start, _), seg in zip(jobs, seg_docs, strict=True):
                for ent in seg.ents:
                    span = docs[i].char_span(
                        start + ent.start_char,
                        start + ent.end_char,
                        label=ent.label_,
                        alignment_mode="expand",
                    )
                    if span is not None:
                        ents.setdefault(i, []).append(span)
            for i, spans in ents.items():
                docs[i].ents = spacy.util.filter_spans(spans)
        return [self._doc_to_nlp_artifact(doc, LANGUAGE) for doc in docs]

    def _doc_to_nlp_artifact(self, doc: Doc, language: str) -> NlpArtifacts:
        entities, scores = self._get_updated_entities(
            self._get_entities(doc), self._get_scores_for_entities(doc)
        )
        return NlpArtifacts(
            entities=entities,
            tokens=doc,
            tokens_indices=[t.idx for t in doc],
            lemmas=[t.lemma_ or t.lower_ for t in doc],  # no lemmatizer: lower-cased text
            nlp_engine=self,
            language=language,
            scores=scores,
        )


# A run of digits and the separators phone numbers use, with >= 7 digits.
_PHONE_CANDIDATE = re.compile(r"[+(]?\d[\d \t().\-/~–—‐]*\d")
_COUNTRY_CODE = re.compile(r"\+\d{1,3}[ \t.\-]?\(?$")
_PHONE_MARGIN = 2  # characters kept on each side so the matcher sees the same boundaries


class WindowedPhoneRecognizer(PhoneRecognizer):
    """Presidio's phone recognizer run only on digit-run windows of the text.

    ``phonenumbers.PhoneNumberMatcher`` scans the whole text once per
    supported region (8 by default): it was the largest cost after NER. The
    matcher can only match inside a run of digits and separators, so it is
    run on each run of at least 7 digits (plus 2 characters either side);
    results are shifted back to text offsets. Context words still raise the
    score: the analyzer's context enhancer works on the full text. Runs that
    are part of an identifier, a date, a version or a GUID are skipped
    (:func:`tollway_redactor.number_rules.phone_candidate_ok`).
    """

    CONTEXT = [
        *PhoneRecognizer.CONTEXT,
        "tel",
        "tél",
        "téléphone",
        "portable",
        "appeler",
        "teléfono",
        "móvil",
        "llamar",
        "llámame",
    ]

    # Presidio's default regions plus the layouts of the supported and most
    # common unsupported European languages and Australia; each region is
    # one more matcher per digit-run window.
    REGIONS = ("US", "GB", "DE", "FR", "IL", "IN", "CA", "BR", "ES", "IT", "NL", "AU")

    def __init__(self) -> None:
        super().__init__(context=self.CONTEXT, supported_regions=self.REGIONS)

    def analyze(  # noqa: D102 - documented on the class
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        results = []
        for m in _PHONE_CANDIDATE.finditer(text):
            if sum(c.isdigit() for c in m.group()) < 7:
                continue
            if not phone_candidate_ok(text, m.start(), m.end()):
                continue  # an order id, date, version or GUID part (issue 11)
            start = max(0, m.start() - _PHONE_MARGIN)
            end = min(len(text), m.end() + _PHONE_MARGIN)
            found = super().analyze(text[start:end], entities, None)  # type: ignore[arg-type]  # Presidio's phone recognizer never reads nlp_artifacts
            if not found and possible_phone_ok(text, m.start(), m.end()):
                found = self._possible(text[start:end])
            for r in found:
                r.start += start
                r.end += start
                # the matcher may take a part of the run ("041710" of "18.041710")
                whole = (r.start, r.end) == (m.start(), m.end())
                if (whole or phone_candidate_ok(text, r.start, r.end)) and bare_run_ok(text, r.start, r.end):
                    # the matcher may leave the country code out ("+1 (671) 873-3149")
                    code = _COUNTRY_CODE.search(text, m.start(), r.start)
                    if code is not None:
                        r.start = code.start()
                    elif _international_prefix(text, m.start(), r.start):
                        r.start = m.start()  # "+52 1 55 1234 5678": the matcher kept "1234 5678"
                    results.append(r)
        return results

    def _possible(self, window: str) -> list[RecognizerResult]:
        """Phone-shaped numbers in ``window`` that no numbering plan validates
        (``+1 (536) 794-8329``), by libphonenumber's POSSIBLE leniency (length only)."""
        results = []
        for region in self.REGIONS:
            for match in phonenumbers.PhoneNumberMatcher(
                window, region, leniency=phonenumbers.Leniency.POSSIBLE
            ):
                results.append(self._get_recognizer_result(match, window, region, None))  # type: ignore[no-untyped-call]  # Presidio helper, untyped
        return EntityRecognizer.remove_duplicates(results)


def _international_prefix(text: str, run_start: int, match_start: int) -> bool:
    """True when the digit run starts with ``+``/``00`` and the matcher left out at
    most 5 digits of it before ``match_start`` (a country code and a trunk or
    area part: ``+52 1 55`` of ``+52 1 55 1234 5678``), which then belong to the number."""
    if match_start <= run_start or not text.startswith(("+", "00", "(+"), run_start):
        return False
    return sum(c.isdigit() for c in text[run_start:match_start]) <= 5


class AnyCaseIbanRecognizer(IbanRecognizer):
    """Presidio's IBAN recognizer (matched case-sensitively, see ``Detector``) that also
    finds IBANs typed in lower case (``fr76 3000 6000 0112 3456 7890 189``): those
    that pass the mod-97 check are upper-cased in place first
    (:func:`tollway_redactor.number_rules.uppercase_ibans`; offsets unchanged), and
    IBANs of the registry countries Presidio does not list (``SV``, ``NI``, ``RU``...:
    :func:`tollway_redactor.number_rules.find_extra_ibans`), score 1.0."""

    def analyze(  # noqa: D102 - documented on the class
        self,
        text: str,
        entities: list[str],
        nlp_artifacts: NlpArtifacts | None = None,
        regex_flags: int | None = None,
    ) -> list[RecognizerResult]:
        upper = uppercase_ibans(text)
        found = super().analyze(upper, entities)  # reads neither artifacts nor flags
        for m in find_extra_ibans(upper):
            if any(r.start <= m.start and m.end <= r.end for r in found):
                continue  # Presidio's pattern has it whole: one result each (each costs a context pass)
            why = AnalysisExplanation(
                recognizer=type(self).__name__, original_score=1.0, textual_explanation="IBAN registry"
            )
            found.append(RecognizerResult("IBAN_CODE", m.start, m.end, 1.0, analysis_explanation=why))
        return found


class DottedIpRecognizer(IpRecognizer):
    """Presidio's IP recognizer without the dotted quads that are no address.

    A French number written with dots (``+33 6.65.87.82.76``) holds an
    IPv4-shaped ``6.65.87.82``, which scored 0.6 and beat the phone (0.4):
    the phone was lost and its last group leaked (frozen v3, round 5). A
    quad inside a longer dotted run of digits, after a country code or
    after a version word is dropped
    (:func:`tollway_redactor.number_rules.dotted_quad_not_ip`).
    """

    def analyze(  # noqa: D102 - documented on the class
        self,
        text: str,
        entities: list[str],
        nlp_artifacts: NlpArtifacts | None = None,
        regex_flags: int | None = None,
    ) -> list[RecognizerResult]:
        found = super().analyze(text, entities, nlp_artifacts, regex_flags)
        return [r for r in found if not dotted_quad_not_ip(text, r.start, r.end)]


class AnyDomainEmailRecognizer(EmailRecognizer):
    """Presidio's e-mail recognizer without rejecting unknown top-level domains.

    Presidio validates the domain against the Public Suffix List, so
    ``jane@corp.internal`` or ``ops@northwind.example`` scored 0 and passed
    unredacted; an address on an internal or reserved domain is personal
    data all the same. A listed domain still scores 1.0, any other keeps
    the pattern's score (0.5, above the default threshold 0.35). A domain
    whose last label holds no letter is no mail domain but a version
    (``some-widget@3.5.27`` in npm's output, ``pkg@1.2.3``; round 9): rejected.
    """

    def validate_result(self, pattern_text: str) -> bool | None:  # noqa: D102 - documented on the class
        top = pattern_text.rsplit("@", 1)[-1].rsplit(".", 1)[-1]
        if not any(c.isalpha() for c in top):
            return False
        return True if super().validate_result(pattern_text) else None


class CardRecognizer(EntityRecognizer):
    """``CREDIT_CARD`` by Luhn over every payment-network issuer range, 12-19 digits,
    any separators (:func:`tollway_redactor.number_rules.find_cards`); score 1.0.

    Replaces Presidio's ``CreditCardRecognizer`` (13-16 digits, five
    networks' prefixes: it missed Mastercard's 2-series and 19-digit cards).
    """

    def __init__(self) -> None:
        super().__init__(supported_entities=["CREDIT_CARD"], name="tollway_card", supported_language=LANGUAGE)

    def load(self) -> None:  # noqa: D102 - nothing to load
        return None

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:  # noqa: D102
        return [RecognizerResult("CREDIT_CARD", m.start, m.end, 1.0) for m in find_cards(text)]


def _pattern_recognizer(cfg: dict[str, Any]) -> PatternRecognizer:
    return PatternRecognizer(
        supported_entity=cfg["entity_type"],
        name=cfg["name"],
        supported_language=LANGUAGE,
        patterns=[
            Pattern(name=p["name"], regex=p["regex"], score=p["score"]) for p in cfg.get("patterns", [])
        ],
        context=list(cfg.get("context") or []),
    )


class Detector:
    """Finds entities in texts; one per worker process.

    Args:
        config: ``RedactorSettings.engine_config()`` (plain data).

    Raises:
        OSError: the spaCy model package is missing.
        re.error: a custom recognizer's regex does not compile.
    """

    def __init__(self, config: dict[str, Any]) -> None:
        self.ner_prefilter = bool(config.get("ner_prefilter", True))
        self.nlp_engine = LeanSpacyNlpEngine(config["spacy_model"], dict(config.get("language_models", {})))
        self.nlp_engine.load()
        registry = RecognizerRegistry(supported_languages=[LANGUAGE])
        registry.load_predefined_recognizers(languages=[LANGUAGE], nlp_engine=self.nlp_engine)
        # Presidio's IBAN recognizer, loaded by the registry with IGNORECASE,
        # lets its last 4-character group swallow a following word ("ES24...
        # belongs") and then fails validation of every candidate: IBANs are
        # upper case, so match case-sensitively.
        registry.remove_recognizer("IbanRecognizer")
        registry.add_recognizer(AnyCaseIbanRecognizer(regex_flags=re.DOTALL | re.MULTILINE))
        registry.remove_recognizer("PhoneRecognizer")
        registry.add_recognizer(WindowedPhoneRecognizer())
        registry.remove_recognizer("CreditCardRecognizer")
        registry.add_recognizer(CardRecognizer())
        registry.remove_recognizer("IpRecognizer")
        registry.add_recognizer(DottedIpRecognizer())
        registry.remove_recognizer("EmailRecognizer")
        registry.add_recognizer(AnyDomainEmailRecognizer())
        customs = list(BUILTIN_RECOGNIZERS) if config.get("builtin_recognizers", True) else []
        customs += list(config.get("custom_recognizers", []))
        for cfg in customs:
            registry.add_recognizer(_pattern_recognizer(cfg))
        for entity_type, words in sorted(config.get("deny_lists", {}).items()):
            if words:
                registry.add_recognizer(
                    PatternRecognizer(
                        supported_entity=entity_type,
                        name=f"deny_list_{entity_type}",
                        supported_language=LANGUAGE,
                        deny_list=list(words),
                    )
                )
        ambiguous_first_names()  # load the name lists now, not on the first request
        world_places()
        word_zipf("warm-up")
        self.analyzer = AnalyzerEngine(
            registry=registry, nlp_engine=self.nlp_engine, supported_languages=[LANGUAGE]
        )
        nlp = self.nlp_engine.pipelines[LANGUAGE]
        fingerprint = hashlib.sha256(
            repr(
                (
                    sorted(config.items(), key=lambda kv: kv[0]),
                    BUILTIN_RECOGNIZERS,
                    DETECTOR_REVISION,
                    importlib.metadata.version("faker"),  # the name lists (name_lists.py)
                )
            ).encode()
        ).hexdigest()[:12]
        langs = "+".join(
            f"{lang}:{m.meta.get('name', '?')}-{m.meta.get('version', '?')}"
            for lang, m in sorted(self.nlp_engine.pipelines.items())
        )
        self.model_version = (
            f"{nlp.meta.get('name', '?')}-{nlp.meta.get('version', '?')}"
            f"/presidio-{importlib.metadata.version('presidio-analyzer')}/cfg-{fingerprint}/{langs}"
        )
        self.languages = sorted(self.nlp_engine.pipelines)
        self.entity_types = sorted(set(self.analyzer.get_supported_entities(LANGUAGE)) | {UNSUPPORTED_ENTITY})
        self._known = frozenset(self.entity_types)
        self.default_policy: LanguagePolicy = config.get("unsupported_language_policy", "patterns_only")
        self.window_chars = int(config.get("window_chars", 20_000))
        self.window_overlap = int(config.get("window_overlap_chars", 1_000))
        self.language_detector = LanguageDetector() if config.get("detect_language", True) else None

    def analyze(
        self, texts: Sequence[str], entity_types: Sequence[str], score_threshold: float
    ) -> list[list[Span]]:
        """Detect ``entity_types`` at or above ``score_threshold`` in each text.

        Same as :meth:`analyze_texts` with the configured language policy,
        spans only.

        Returns:
            Per text, non-overlapping spans sorted by start (code point offsets).
        """
        return [a.spans for a in self.analyze_texts(texts, entity_types, score_threshold)]

    def analyze_texts(
        self,
        texts: Sequence[str],
        entity_types: Sequence[str],
        score_threshold: float,
        language_policy: LanguagePolicy | None = None,
    ) -> list[TextAnalysis]:
        """Detections, language and applied language policy for each text.

        Each text is cut into overlapping windows of at most ``window_chars``
        (:mod:`tollway_redactor.windows`); each window's language is
        detected and it is analysed with its language's model. Text no model
        covers (an unsupported language, or a run of a non-Latin script)
        is handled per ``language_policy`` (None = the configured default):

        - ``patterns_only``: pattern recognizers only (no NER) for an
          unsupported language; a foreign-script run inside supported text
          gets the pattern recognizers like the rest, and no NER.
        - ``block``: the uncovered text is one :data:`UNSUPPORTED_ENTITY`
          detection (score 1.0) — the whole window for an unsupported
          language, each run for foreign-script runs.
        - ``pass``: an unsupported-language window is not analysed at all;
          foreign-script runs in supported text are left as they are.

        Returns:
            One :class:`TextAnalysis` per text, in order.
        """
        policy: LanguagePolicy = language_policy or self.default_policy
        entity_types = sorted(set(entity_types))
        units: list[_Unit] = []
        for ti, text in enumerate(texts):
            for w in plan_windows(len(text), self.window_chars, self.window_overlap, text):
                units.append(self._plan_unit(ti, text, w.start, w.end, w.own_start, w.own_end, policy))
        # one nlp.pipe batch per (model language, NER on/off)
        run_ner = any(e in NER_ENTITY_TYPES for e in entity_types)
        groups: dict[tuple[str, bool], list[_Unit]] = {}
        for u in units:
            if u.analyse:
                groups.setdefault((u.model_lang, run_ner and u.ner), []).append(u)
        for (lang, ner), members in groups.items():
            arts = self.nlp_engine.artifacts(
                [u.text for u in members], ner=ner, prefilter=self.ner_prefilter, lang=lang
            )
            for u, art in zip(members, arts, strict=True):
                u.spans.extend(self._analyze_one(u.text, art, entity_types, score_threshold, u.language))
        out = [TextAnalysis() for _ in texts]
        rank = {"supported": 0, "pass": 1, "patterns_only": 2, "block": 3}
        weight: list[dict[str | None, int]] = [{} for _ in texts]
        for u in units:
            res = out[u.text_index]
            for sp in u.spans:
                start = sp.start + u.offset
                if u.own_start <= start < u.own_end:
                    res.spans.append(Span(sp.entity_type, start, sp.end + u.offset, sp.score))
            if rank[u.policy] > rank[res.language_policy]:
                res.language_policy = u.policy
            weight[u.text_index][u.language] = weight[u.text_index].get(u.language, 0) + len(u.text)
        for res, weights in zip(out, weight, strict=True):
            res.spans = resolve_overlaps(res.spans)
            known = {k: v for k, v in weights.items() if k is not None}
            res.language = max(sorted(known), key=lambda k: known[k]) if known else None
        return out

    def _plan_unit(
        self, ti: int, text: str, start: int, end: int, own_start: int, own_end: int, policy: LanguagePolicy
    ) -> _Unit:
        piece = text[start:end]
        language = self.language_detector.detect(piece) if self.language_detector else None
        unit = _Unit(ti, piece, start, own_start, own_end, language=language)
        if language is not None and language not in self.nlp_engine.pipelines:
            # a language no configured model covers
            unit.policy = policy
            unit.model_lang = LANGUAGE
            unit.ner = False
            if policy == "block":
                unit.analyse = False
                if piece.strip():
                    unit.spans.append(Span(UNSUPPORTED_ENTITY, 0, len(piece), 1.0))
            elif policy == "pass":
                unit.analyse = False
            return unit
        unit.model_lang = language or LANGUAGE
        runs = foreign_script_runs(piece)
        if runs:
            unit.policy = policy
            if policy == "block":
                unit.spans.extend(Span(UNSUPPORTED_ENTITY, r.start, r.end, 1.0) for r in runs)
        return unit

    def _analyze_one(
        self,
        text: str,
        art: NlpArtifacts,
        entity_types: list[str],
        score_threshold: float,
        lang: str | None = None,
    ) -> list[Span]:
        digits = len(_DIGIT.findall(text))
        # a type no recognizer emits would make Presidio raise: never asked for
        wanted = [e for e in entity_types if digits >= _MIN_DIGITS.get(e, 0) and e in self._known]
        if "@" not in text:
            wanted = [e for e in wanted if e != "EMAIL_ADDRESS"]
        if "IBAN_CODE" in wanted and _IBAN_HEAD.search(text) is None:
            wanted.remove("IBAN_CODE")  # no country code and check digits anywhere: no IBAN
        if not wanted or not text.strip():
            return []
        results = self.analyzer.analyze(
            text=text,
            language=LANGUAGE,
            entities=wanted,
            score_threshold=score_threshold,
            nlp_artifacts=art,
        )
        spans = [
            Span(r.entity_type, r.start, r.end, round(float(r.score), 4))
            for r in results
            if r.entity_type in wanted
        ]
        if "PERSON" in wanted:
            spans = _person_rules(text, spans, score_threshold, lang)
        return resolve_overlaps(spans)


@dataclass
class _Unit:
    """One window of one text, and how it is analysed."""

    text_index: int
    text: str
    offset: int
    own_start: int
    own_end: int
    language: str | None = None
    model_lang: str = LANGUAGE
    ner: bool = True
    analyse: bool = True
    policy: str = "supported"
    spans: list[Span] = field(default_factory=list)


def _person_rules(
    text: str, spans: list[Span], score_threshold: float, lang: str | None = None
) -> list[Span]:
    """Apply the PERSON heuristics of ``names.py`` (see there for why); ``lang`` is
    the text's detected language (None: undetermined)."""
    out = []
    for s in spans:
        if s.entity_type == "PERSON":
            trimmed = trim_labels(text, first_line(text, s))
            if trimmed is None or not plausible_person(text, trimmed):
                continue  # a digit anywhere in the model's span: no name ("Chiamami al 347")
            # deny-listed words (score 1.0) are the operator's word: never cut
            cut = trimmed if s.score >= 1.0 else cut_at_lowercase(text, trim_article(text, trimmed))
            if cut is None:
                continue
            s = extend_person(text, cut)
            if s.score < 1.0 and text[s.start : s.end] in ambiguous_first_names():
                continue  # one everyday word, place or product alone ("Atlas migration"): the gazetteer's rule
        out.append(s)
    cues: list[Span] = []
    if score_threshold <= CUE_SCORE:
        # round 7: names in records (key: value, JSON, YAML) and in table/CSV name columns
        cues = cue_names(text) + field_names(text) + table_names(text) + list_item_names(text)
    if score_threshold <= GAZETTEER_SCORE:
        out.extend(gazetteer_names(text))
        out.extend(rare_pair_names(text, spans, lang))  # round 13: "Gethin Harcourt moved", no cue word
    # articles, capitals, type keywords, places and sentence-opening everyday
    # words (issue 11, round 6): the model's and the name lists' spans; a cue
    # ("Dear X") or a verb that takes a person ("under the name X") outweighs them
    places = [s for s in out if s.entity_type == "PERSON" and s.score < 1.0 and is_place(text, s)]
    out = [
        s for s in out if s.entity_type != "PERSON" or s.score >= 1.0 or not_a_person(text, s, lang) is None
    ]
    out = coordinated_places(text, out, places)
    out.extend(cues)
    if score_threshold <= GAZETTEER_SCORE:
        out.extend(context_names(text))
        # round 7: "HOLLIS OWUSU", "Khumalo, Babatunde", "para Nahia Lezcano", "M. Caradec"
        out.extend(capitals_names(text) + last_first_names(text) + preposition_names(text))
        out.extend(caps_surname_given_names(text))  # round 8: "SANDBERG Bich - passport renewal"
        out.extend(initial_possessive_names(text))
        # round 9: "attendees: Themba B., ...", "firma de C. Arrizabalaga", «Gorka, ...», signatures
        out.extend(given_initial_names(text) + initial_surname_names(text))
        out.extend(vocative_and_signature_names(text))
        out.extend(coordinated_names(text, out))
    # code and dates are never names, whoever found them (issue 11, round 5);
    # deny-listed words (score 1.0) are the operator's word and always stay
    out = [s for s in out if s.entity_type != "PERSON" or s.score >= 1.0 or not _not_a_name(text, s)]
    if score_threshold <= GAZETTEER_SCORE:
        lower = lowercase_names(text) + lowercase_context_names(text) + lowercase_chat_names(text)
        # round 9: names an e-mail address of the text spells out, lower case after
        # strong cues ("my name is", "its", "contact:"), chat handles "[15:46] nick:"
        lower += email_names(text) + lowercase_cue_names(text) + chat_handle_names(text)
        lower += answered_name_names(text)  # round 10: "customer: zhenyu ouyang" after a name question
        lower += capitalised_cue_names(text)  # round 10: "Hey, it's Ziyad."
        out.extend(s for s in lower if not in_code_line(text, s))  # "private val repo: InvoiceRepo"
        out.extend(surname_comma_given_names(text, out))  # round 9: '"Seong, Farai";'
        out.extend(repeated_names(text, out))  # round 7: "Actions: Seo-yeon to chase"
        out.extend(json_list_names(text, out))  # round 14: '"watchers": ["Soyeon W.", "pania igwe"]'
    # round 7: particles, apostrophe prefixes and initials the rules left out; overlaps
    # joined; round 9: middle initials ("Ryota" + " P. Mutasa")
    out = complete_names(text, grow_initials(text, out))
    out = join_surname_comma_given(text, out)  # round 12: "recipient Loxley, Cuthbert signed"
    # round 9: organisations ("Brightmoor Freight") and a table's column names are no persons
    out = [
        s
        for s in out
        if s.entity_type != "PERSON"
        or s.score >= 1.0
        or not (organisation_name(text, s) or in_table_header(text, s))
    ]
    return [_unquoted(text, s) for s in out]


_QUOTES = '"“”«»\\'


def _unquoted(text: str, span: Span) -> Span:
    """A PERSON span without the double quotes (and escaping backslashes) at its
    edges (round 14: the model's ``Ezinne K."`` in a JSON array is ``Ezinne K.``);
    other types and deny-listed words (score 1.0) as they are."""
    if span.entity_type != "PERSON" or span.score >= 1.0:
        return span
    start, end = span.start, span.end
    while start < end and text[start] in _QUOTES:
        start += 1
    while end > start and text[end - 1] in _QUOTES:
        end -= 1
    if (start, end) == (span.start, span.end) or start == end:
        return span
    return Span(span.entity_type, start, end, span.score)


def _not_a_name(text: str, span: Span) -> bool:
    """Code, a date, one everyday word, or all lower case: ``max``, ``para aprender``."""
    return (
        code_or_date(text, span)
        or everyday_word(text, span)
        or not any(c.isupper() for c in text[span.start : span.end])
    )
