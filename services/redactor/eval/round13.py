"""Round-13 development material (issue 11): the miss classes of the spent v10.

Writes two tuning files (deterministic):

- ``eval/tuning/round13.jsonl``: labelled messages of the round-13 recall
  classes — card numbers of issuer ranges the detector did not know or not
  at every length (UnionPay 81 at 17-19 digits; GPN 1946, BORICA 2205,
  China T-Union 31, UzCard 8600, Humo 9860, DinaCard 9891), in en/fr/es,
  bare or grouped 4-4-4-4-3, after a card word or none; and PERSON: a given
  name and a surname no name list or small model knows, with no cue word
  (two rare capitalised words, a particle between them allowed), and names
  in lower case after a chat greeting (``hi x y here``, ``salut c'est x y``,
  ``soy x y``, ``lol x y``).
- ``eval/tuning/pii_free_round13.jsonl``: PII-free texts the round-13 rules
  must leave alone: 17-digit numbers starting 81 that fail Luhn, a
  Luhn-valid 17-digit number starting 82 (RuPay issues 16 digits only), and
  rare capitalised pairs that are no person (after an article or a
  preposition of place, inside a longer capitalised run: products, towns,
  firms).

Usage::

    uv run python services/redactor/eval/round13.py

Written after reading the spent v10's misses (and v7-v9's PERSON misses)
(``evaluate.py --frozen-v10 --misses``, round 13), with new strings: no
name, number or sentence is copied from v10. The round-13 rules were tuned
on this file, so it measures nothing held out.
"""

from __future__ import annotations

from tuning_rounds import parse_marked, write_tuning_files

# [[...|TYPE]] marks an entity; the text is the template without the marks.
LABELLED: list[tuple[str, str]] = [
    # cards: UnionPay 81 issues 16-19 digits (Luhn-valid), bare or 4-4-4-4-3
    ("[customer] it's [[81527309461852070|CREDIT_CARD]], the long one", "en"),
    ("Paid by UnionPay [[8109 3627 4185 0396 27|CREDIT_CARD]] yesterday.", "en"),
    ("Carte : [[8107-6239-5148-2073-612|CREDIT_CARD]]. Merci.", "fr"),
    ("Cargo con la tarjeta [[8107623951482073612|CREDIT_CARD]] en la tienda.", "es"),
    # national schemes (16 digits; T-Union 19)
    ("GPN card [[1946 3820 7516 4928|CREDIT_CARD]] blocked", "en"),
    ("karta BORICA [[2205 7192 8364 0518|CREDIT_CARD]] - please refund", "en"),
    ("T-Union [[3190472816359042748|CREDIT_CARD]] topped up", "en"),
    ("la carte UzCard [[8600 4927 1835 6047|CREDIT_CARD]] est expirée", "fr"),
    ("tarjeta Humo [[9860-1273-9456-2012|CREDIT_CARD]] rechazada", "es"),
    ("DinaCard [[9891.4072.5816.3906|CREDIT_CARD]] on file", "en"),
    # PERSON: a given name and a surname no list or small model knows, no cue word
    # (two rare capitalised words, a particle between them allowed)
    ("Please add [[Ysolde Penhallow|PERSON]] to the rota for next week.", "en"),
    ("The signed lease came back from [[Ikaika Rautaki|PERSON]] this morning.", "en"),
    ("hemos hablado con [[Maialen Etxeberri|PERSON]] sobre la entrega.", "es"),
    ("la llave se queda en casa de [[Xabier Olazabal|PERSON]] hasta el lunes.", "es"),
    ("J'ai transmis le dossier à [[Gwenaëlle Kerhervé|PERSON]] ce matin.", "fr"),
    ("Rendez-vous confirmé avec [[Soazig Le Bihan|PERSON]] demain.", "fr"),
    # PERSON in lower case after a chat greeting or interjection: "hi x y here",
    # "salut c'est x y", "soy x y" (a given name that is a word too, then a surname),
    # "lol x y" with an unlisted given name
    ("hi [[tavita fonoti|PERSON]] here, the refund never arrived", "en"),
    ("lol [[kaimana pomaikai|PERSON]] finally sent the photos", "en"),
    ("coucou c'est [[maëlwenn quiniou|PERSON]], tu me rappelles ?", "fr"),
    ("hola soy [[rocío urquiola|PERSON]], no me llega el código", "es"),
]

PII_FREE: list[tuple[str, str]] = [
    # 81... failing Luhn; 82... Luhn-valid at a length RuPay does not issue
    ("Shipment 81527309461852071 left the depot at 06:10.", "en"),
    ("Lote 8107623951482073613 retirado del almacén.", "es"),
    ("Ticket 82640193752846151 merged into the release notes.", "en"),
    # rare capitalised pairs that are no person: after an article or a preposition
    # of place, inside a longer capitalised run, a product or a town
    ("Is a Suunto Vertical worth it for trail running?", "en"),
    ("Three days in Chiang Rai, what should we see first?", "en"),
    ("Northwind Tallow Ltd shipped the pallets on time.", "en"),
    ("¿Merece la pena un Xiaomi Redmi para el trabajo?", "es"),
    ("On part une semaine à Chiang Mai en mars.", "fr"),
    # greetings and interjections before everyday words
    ("hi team quick question here about the build", "en"),
    ("salut c'est bon pour demain, on se voit au marché", "fr"),
    ("hola soy nuevo aquí, ¿dónde está la cocina?", "es"),
    ("lol that was a close one", "en"),
]


def build() -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """The labelled records and the PII-free records, in file order."""
    labelled: list[dict[str, object]] = []
    for k, (marked, lang) in enumerate(LABELLED):
        text, entities = parse_marked(marked)
        labelled.append({"id": f"r13-{k}", "lang": lang, "text": text, "entities": entities})
    free = [
        {"id": f"r13-free-{k}", "lang": lang, "text": text, "entities": []}
        for k, (text, lang) in enumerate(PII_FREE)
    ]
    return labelled, free


def main() -> None:
    """Write ``tuning/round13.jsonl`` and ``tuning/pii_free_round13.jsonl``."""
    labelled, free = build()
    write_tuning_files({"round13.jsonl": labelled, "pii_free_round13.jsonl": free})


if __name__ == "__main__":
    main()
