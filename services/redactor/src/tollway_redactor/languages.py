"""Which language a text is in, and which parts of it no configured model covers.

Two signals, both offline and in-process:

- **Script runs** (:func:`foreign_script_runs`, pure): letters of a script
  other than Latin (Han, Hiragana, Katakana, Hangul, Cyrillic, Arabic,
  Devanagari, Greek...) — every configured spaCy model is for a
  Latin-script language, so such runs (山田太郎 in an English prompt) get
  no NER. Runs of fewer than 2 letters (``μs``, ``Δ``) are ignored.
- **Language of the Latin text** (:class:`LanguageDetector`): Lingua
  (``lingua-language-detector``, models inside the wheel, no network) over
  the text's words (letters only: ids, hashes and numbers carry no
  language), at most :data:`SAMPLE_CHARS` characters. Lingua's fast
  low-accuracy mode decides when it is sure the text is in the default
  language; otherwise its high-accuracy mode decides (low accuracy alone
  called 11 % of the English tuning texts Norwegian, Italian or Welsh; the
  two together 0.6 %, all English prompts quoting a German address).
  About 0.3 ms for a confident English message, ~1 ms otherwise.
- **Cues for short text** (:func:`cue_language`, pure): when Lingua cannot
  tell (fewer than :data:`MIN_WORDS` words or :data:`MIN_LETTERS` letters, or
  no language above :data:`MIN_CONFIDENCE`), words and letters that belong to
  one of en/fr/es decide ("Je suis Jean Martin." is French); with no cue or a
  tie the text stays undetermined (read as English).

The policy for what no model covers (``block``, ``patterns_only``,
``pass``) is applied by the engine; this module only reports.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

SAMPLE_CHARS = 2_000
"""At most this many characters (the start and the end of the text) are
given to the detector: the language of a long text is clear from a sample,
and the cost stays bounded."""

MIN_CONFIDENCE = 0.5
"""Below this the detector's answer is "undetermined" (short or mixed text)."""

MIN_LETTERS = 20
"""Texts whose words hold fewer letters are "undetermined" (``ok``, ``v1.2``)."""

MIN_WORDS = 4
"""Texts with fewer words are "undetermined"."""

SURE_DEFAULT = 0.9
"""Low-accuracy confidence at which the default language is accepted at once."""

KEEP_DEFAULT = 0.25
"""High-accuracy confidence of the default language at which it is kept even
when another language scores higher (English prompts quoting a French name or
a German street stay English)."""

# a word: 2+ letters, not part of an identifier, e-mail, path or key=value
_WORD = re.compile(r"(?<![\w@./=-])[^\W\d_]{2,}(?![\w@/=-])")

# Latin-script languages Lingua is asked to tell apart: the configured ones
# are among them; the others exist so that, e.g., German is reported as
# German (unsupported) rather than as the nearest supported language. Each
# costs memory in every worker (Lingua's high-accuracy models, ru_maxrss: ~740 MB
# for 31 languages, ~354 MB for 12, ~240 MB for these 7), so the list is short.
CANDIDATES = "en fr es de it pt nl".split()


@dataclass(frozen=True, slots=True)
class ScriptRun:
    """``[start, end)`` code points of text in a non-Latin script, e.g. ``"Han"``."""

    start: int
    end: int
    script: str


def _script(ch: str) -> str | None:
    """Coarse script of a letter from its Unicode name; None for Latin and non-letters."""
    if not ch.isalpha():
        return None
    if ch.isascii():
        return None
    try:
        name = unicodedata.name(ch)
    except ValueError:
        return "Unknown"
    head = name.split(" ", 1)[0]
    if head == "LATIN":
        return None
    if head == "CJK":
        return "Han"
    return head.title()  # HIRAGANA, KATAKANA, HANGUL, CYRILLIC, ARABIC, GREEK, DEVANAGARI...


def foreign_script_runs(text: str, min_letters: int = 2) -> list[ScriptRun]:
    """Runs of non-Latin letters in ``text`` (spaces/punctuation inside a run join it).

    A run ends at a Latin letter or a digit; a run with fewer than
    ``min_letters`` letters is dropped. Runs of different non-Latin scripts
    next to each other (Kanji + Kana) are merged and named after the first.
    """
    runs: list[ScriptRun] = []
    start = end = -1
    script = ""
    letters = 0
    for i, ch in enumerate(text):
        s = _script(ch)
        if s is not None:
            if start < 0:
                start, script, letters = i, s, 0
            end = i + 1
            letters += 1
        elif start >= 0 and (ch.isalnum()):
            if letters >= min_letters:
                runs.append(ScriptRun(start, end, script))
            start = -1
    if start >= 0 and letters >= min_letters:
        runs.append(ScriptRun(start, end, script))
    return runs


# Short-text cues (:func:`cue_language`): words that are common in one of the
# languages with a model or a named policy and not a word of the others
# (``la``, ``de``, ``en``, ``que``, ``un``, ``tu``, ``me``, ``le``, ``no``, ``son``
# are left out: shared), and letters only one of them writes.
CUE_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset(
        "the is am are my name to and of for with please thanks thank hi hello this that you your "
        "can could what who where when it its send call email reply contact fix write summarise "
        "summarize translate yes tomorrow today from about how".split()
    ),
    "fr": frozenset(
        "je suis est sont les des du une et avec pour dans sur mon ma mes ton ta tes votre vos vous "
        "nous il elle ils bonjour bonsoir merci salut appelle oui pas ne au aux chez très ce cet "
        "cette ces qui quoi mais où ça moi toi voici voilà ici fais dis peux écris envoie appelez "
        "réponds contacte rappelle corrige résume plaît souci bon bonne beaucoup aide demain".split()
    ),
    "es": frozenset(
        "yo soy eres es está están estoy el los las del una con para por mi mis su sus hola "
        "gracias llamo llama llámame correo buenos buenas días tardes noches señor señora como "
        "cómo qué quién dónde cuándo muy pero favor sí esto este esta estos eso ese nombre mañana "
        "hoy ayuda escribe envía responde contacta haz puedes quiero necesito habla saluda nada".split()
    ),
}
CUE_LETTERS: dict[str, frozenset[str]] = {
    "fr": frozenset("èêàçùûôîïœëâé"),
    "es": frozenset("ñáíóú¿¡"),
}
"""A word holding one of these counts half a cue word (names carry them too)."""


def cue_language(text: str) -> str | None:
    """The language a short text's cues point to (the policy for text too short
    for the statistical detector), or None.

    Each cue word (:data:`CUE_WORDS`, case-insensitive) counts 1, each other
    word holding a letter of :data:`CUE_LETTERS` 0.5, and ``¿``/``¡`` 1 for
    Spanish. The best language must score at least 1 and strictly more than
    every other: ``Je suis Jean Martin.`` → ``fr``, ``Hola María`` → ``es``,
    ``Bonjour is French for hello`` → ``en``, ``Merci`` (one word) → ``fr``,
    ``Camille Dubois`` → None.
    """
    scores = dict.fromkeys(CUE_WORDS, 0.0)
    for word in _WORD.findall(text):
        low = word.lower()
        hit = [lang for lang, words in CUE_WORDS.items() if low in words]
        if hit:
            for lang in hit:
                scores[lang] += 1.0
            continue
        for lang, letters in CUE_LETTERS.items():
            if any(ch in letters for ch in low):
                scores[lang] += 0.5
    if "¿" in text or "¡" in text:
        scores["es"] += 1.0
    ranked = sorted(scores.items(), key=lambda kv: kv[1], reverse=True)
    best, score = ranked[0]
    if score < 1.0 or score <= ranked[1][1]:
        return None
    return best


class LanguageDetector:
    """ISO 639-1 code of a text's (Latin-script) language, or None when undetermined.

    Args:
        candidates: ISO 639-1 codes Lingua chooses among (default
            :data:`CANDIDATES`); codes Lingua does not know are ignored.

    Raises:
        ImportError: ``lingua-language-detector`` is not installed.
    """

    def __init__(self, candidates: tuple[str, ...] | list[str] = CANDIDATES, default: str = "en") -> None:
        from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

        languages = []
        for code in candidates:
            iso = getattr(IsoCode639_1, code.upper(), None)
            if iso is not None:
                languages.append(Language.from_iso_code_639_1(iso))
        # preloaded: the ~3 s of model loading happen at worker start, not on a request
        builder = LanguageDetectorBuilder.from_languages(*languages).with_preloaded_language_models()
        self._fast = builder.with_low_accuracy_mode().build()
        self._accurate = (
            LanguageDetectorBuilder.from_languages(*languages).with_preloaded_language_models().build()
        )
        self._default = Language.from_iso_code_639_1(getattr(IsoCode639_1, default.upper()))
        self._codes = frozenset(candidates)
        self.default = default

    def detect(self, text: str) -> str | None:
        """The language of ``text`` (lower-case ISO 639-1), None when too short or unclear."""
        if len(text) > SAMPLE_CHARS:
            half = SAMPLE_CHARS // 2
            text = text[:half] + "\n" + text[-half:]
        words = [w for w in _WORD.findall(text) if _script(w[0]) is None]
        if len(words) < MIN_WORDS or sum(len(w) for w in words) < MIN_LETTERS:
            return self._by_cues(text)
        sample = " ".join(words)
        fast = self._fast.compute_language_confidence_values(sample)
        if fast and fast[0].language == self._default and fast[0].value >= SURE_DEFAULT:
            return self.default
        values = self._accurate.compute_language_confidence_values(sample)
        if not values:
            return None
        if any(v.language == self._default and v.value >= KEEP_DEFAULT for v in values):
            return self.default
        if values[0].value < MIN_CONFIDENCE:
            return self._by_cues(text)
        return str(values[0].language.iso_code_639_1.name).lower()

    def _by_cues(self, text: str) -> str | None:
        """Undetermined by Lingua: :func:`cue_language`, among the candidates (the
        default language's own answer is returned as such)."""
        lang = cue_language(text)
        return lang if lang is not None and lang in self._codes else None
