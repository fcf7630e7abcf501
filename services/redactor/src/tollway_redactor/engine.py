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

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""  # before presidio: see module doc

import spacy  # noqa: E402
from presidio_analyzer import AnalyzerEngine, Pattern, PatternRecognizer, RecognizerRegistry  # noqa: E402
from presidio_analyzer.nlp_engine import NerModelConfiguration, NlpArtifacts, SpacyNlpEngine  # noqa: E402
from presidio_analyzer.predefined_recognizers import IbanRecognizer, PhoneRecognizer  # noqa: E402

from tollway_redactor.detection import Span, resolve_overlaps  # noqa: E402
from tollway_redactor.names import CUE_SCORE, cue_names, extend_person, ner_segments, plausible_person  # noqa: E402

LANGUAGE = "en"

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
_EXCLUDED_PIPES = ("parser", "tagger", "attribute_ruler", "lemmatizer", "senter")

# Fewest digits a text must hold for a type's recognizers to be able to match
# (the phone recognizer, the slowest, runs one matcher per region).
_MIN_DIGITS = {
    "PHONE_NUMBER": 7,
    "CREDIT_CARD": 12,
    "IBAN_CODE": 8,
    "US_SSN": 9,
    "US_BANK_NUMBER": 8,
    "US_ITIN": 9,
    "STREET_ADDRESS": 1,
    "IP_ADDRESS": 1,
}
_DIGIT = re.compile(r"\d")

# Tollway's own recognizers. Street addresses: house number + capitalised
# street name + a street suffix (US/UK style), or a German/Dutch-style
# "<Name>straße 12"; an optional unit ("Apt 4B") and "City, ST 12345" or a
# postcode may follow. Capitalisation is enforced with (?-i:...) because
# Presidio matches case-insensitively.
_SUFFIX = (
    r"(?-i:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|"
    r"Terrace|Close|Square|Sq|Parkway|Pkwy|Highway|Hwy|Crescent|Gardens|Row|Mews|Circle|Cir|Trail)"
)
_NAME_WORD = r"(?:(?-i:[A-Z][a-z'\-]+|[A-Z]\.?)|\d{1,3}(?:st|nd|rd|th))"
_DIRECTION = r"(?:\s+(?-i:N|S|E|W|NE|NW|SE|SW)\b\.?)?"
_UNIT = r"(?:,?\s+(?-i:(?:Apt|Apartment|Suite|Ste|Unit|Flat|Fl)\.?)\s*#?\w{1,5})?"
_CITY = r"(?-i:[A-Z][a-z]+(?:\s[A-Z][a-z]+)?)"
_US_ZIP = rf"(?:,\s*{_CITY},?\s+(?-i:[A-Z]{{2}})\s+\d{{5}}(?:-\d{{4}})?)"
_UK_POSTCODE = rf"(?:,\s*{_CITY},?\s+(?-i:[A-Z]{{1,2}}\d[A-Z\d]?\s?\d[A-Z]{{2}}))"
_US_TAIL = rf"{_DIRECTION}{_UNIT}(?:{_US_ZIP}|{_UK_POSTCODE})?"
_STREET_US = rf"\b\d{{1,5}}[A-Za-z]?\s+(?:{_NAME_WORD}\s+){{0,4}}{_SUFFIX}\b\.?{_US_TAIL}"
_STREET_EU = r"\b(?-i:[A-Z][a-zäöüß]+(?:straße|strasse|str\.|weg|gasse|platz|allee|laan|straat|gracht|plein))\s+\d{1,4}[a-z]?\b(?:,\s*\d{4,5}\s+(?-i:[A-Z][a-zäöüß]+))?"

BUILTIN_RECOGNIZERS = [
    {
        "name": "tollway_street_address",
        "entity_type": "STREET_ADDRESS",
        "patterns": [
            # 0.85 = spaCy's NER score: on a tie the longer span (the whole
            # address) wins over a city or street name tagged PERSON.
            {"name": "street_number_first", "regex": _STREET_US, "score": 0.85},
            {"name": "street_number_last", "regex": _STREET_EU, "score": 0.85},
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
        ],
    }
]


class LeanSpacyNlpEngine(SpacyNlpEngine):
    """Presidio's spaCy engine loading only ``tok2vec`` + ``ner`` of an installed model.

    Raises (from ``load``):
        OSError: the model package is not installed (never downloads).
    """

    def __init__(self, model_name: str) -> None:
        super().__init__(
            models=[{"lang_code": LANGUAGE, "model_name": model_name}],
            ner_model_configuration=NerModelConfiguration(
                model_to_presidio_entity_mapping=dict(NER_MAPPING),
                labels_to_ignore=list(NER_LABELS_TO_IGNORE),
                low_score_entity_names=[],
            ),
        )
        self.model_name = model_name

    def load(self) -> None:  # noqa: D102 - documented on the class
        nlp = spacy.load(self.model_name, exclude=list(_EXCLUDED_PIPES))
        self.nlp = {LANGUAGE: nlp}

    def artifacts(self, texts: Sequence[str], ner: bool, prefilter: bool = True) -> list[NlpArtifacts]:
        """NLP artifacts per text; with ``ner=False`` only the tokenizer runs.

        With ``prefilter``, NER runs only on the sentences that
        :func:`tollway_redactor.names.ner_segments` selects (those with a
        capitalised word that is not a common sentence opener); the
        entities are mapped back onto a tokenizer-only Doc of the full text.
        """
        nlp = self.nlp[LANGUAGE]
        if not ner:
            docs = [nlp.make_doc(t) for t in texts]
        elif not prefilter:
            docs = list(nlp.pipe(texts, batch_size=64))
        else:
            docs = [nlp.make_doc(t) for t in texts]
            jobs = [(i, start, end) for i, t in enumerate(texts) for start, end in ner_segments(t)]
            seg_docs = nlp.pipe((texts[i][a:b] for i, a, b in jobs), batch_size=64)
            ents: dict[int, list] = {}
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

    def _doc_to_nlp_artifact(self, doc, language: str) -> NlpArtifacts:  # noqa: ANN001
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
_PHONE_MARGIN = 2  # characters kept on each side so the matcher sees the same boundaries


class WindowedPhoneRecognizer(PhoneRecognizer):
    """Presidio's phone recognizer run only on digit-run windows of the text.

    ``phonenumbers.PhoneNumberMatcher`` scans the whole text once per
    supported region (8 by default): it was the largest cost after NER. The
    matcher can only match inside a run of digits and separators, so it is
    run on each run of at least 7 digits (plus 2 characters either side);
    results are shifted back to text offsets. Context words still raise the
    score: the analyzer's context enhancer works on the full text.
    """

    def analyze(self, text: str, entities, nlp_artifacts=None):  # noqa: ANN001, ANN201, D102
        results = []
        for m in _PHONE_CANDIDATE.finditer(text):
            if sum(c.isdigit() for c in m.group()) < 7:
                continue
            start = max(0, m.start() - _PHONE_MARGIN)
            end = min(len(text), m.end() + _PHONE_MARGIN)
            for r in super().analyze(text[start:end], entities, None):
                r.start += start
                r.end += start
                results.append(r)
        return results


def _pattern_recognizer(cfg: dict) -> PatternRecognizer:
    return PatternRecognizer(
        supported_entity=cfg["entity_type"],
        name=cfg["name"],
        supported_language=LANGUAGE,
        patterns=[
            Pattern(name=p["name"], regex=p["regex"], score=p["score"]) for p in cfg.get("patterns", [])
        ],
        context=cfg.get("context") or None,
    )


class Detector:
    """Finds entities in texts; one per worker process.

    Args:
        config: ``RedactorSettings.engine_config()`` (plain data).

    Raises:
        OSError: the spaCy model package is missing.
        re.error: a custom recognizer's regex does not compile.
    """

    def __init__(self, config: dict) -> None:
        self.ner_prefilter = bool(config.get("ner_prefilter", True))
        self.nlp_engine = LeanSpacyNlpEngine(config["spacy_model"])
        self.nlp_engine.load()
        registry = RecognizerRegistry(supported_languages=[LANGUAGE])
        registry.load_predefined_recognizers(languages=[LANGUAGE], nlp_engine=self.nlp_engine)
        # Presidio's IBAN recognizer, loaded by the registry with IGNORECASE,
        # lets its last 4-character group swallow a following word ("ES24...
        # belongs") and then fails validation of every candidate: IBANs are
        # upper case, so match case-sensitively.
        registry.remove_recognizer("IbanRecognizer")
        registry.add_recognizer(IbanRecognizer(regex_flags=re.DOTALL | re.MULTILINE))
        registry.remove_recognizer("PhoneRecognizer")
        registry.add_recognizer(WindowedPhoneRecognizer())
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
        self.analyzer = AnalyzerEngine(
            registry=registry, nlp_engine=self.nlp_engine, supported_languages=[LANGUAGE]
        )
        nlp = self.nlp_engine.nlp[LANGUAGE]
        fingerprint = hashlib.sha256(
            repr((sorted(config.items(), key=lambda kv: kv[0]), BUILTIN_RECOGNIZERS)).encode()
        ).hexdigest()[:12]
        self.model_version = (
            f"{nlp.meta.get('name', '?')}-{nlp.meta.get('version', '?')}"
            f"/presidio-{importlib.metadata.version('presidio-analyzer')}/cfg-{fingerprint}"
        )

    def analyze(
        self, texts: Sequence[str], entity_types: Sequence[str], score_threshold: float
    ) -> list[list[Span]]:
        """Detect ``entity_types`` at or above ``score_threshold`` in each text.

        Returns:
            Per text, non-overlapping spans sorted by start (code point offsets).
        """
        entity_types = sorted(set(entity_types))
        run_ner = any(e in NER_ENTITY_TYPES for e in entity_types)
        artifacts = self.nlp_engine.artifacts(texts, ner=run_ner, prefilter=self.ner_prefilter)
        out: list[list[Span]] = []
        for text, art in zip(texts, artifacts, strict=True):
            digits = len(_DIGIT.findall(text))
            wanted = [e for e in entity_types if digits >= _MIN_DIGITS.get(e, 0)]
            if "@" not in text:
                wanted = [e for e in wanted if e != "EMAIL_ADDRESS"]
            if not wanted or not text.strip():
                out.append([])
                continue
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
                spans = _person_rules(text, spans, score_threshold)
            out.append(resolve_overlaps(spans))
        return out


def _person_rules(text: str, spans: list[Span], score_threshold: float) -> list[Span]:
    """Apply the PERSON heuristics of ``names.py`` (see there for why)."""
    out = []
    for s in spans:
        if s.entity_type == "PERSON":
            if not plausible_person(text, s):
                continue
            s = extend_person(text, s)
        out.append(s)
    if score_threshold <= CUE_SCORE:
        out.extend(cue_names(text))
    return out
