"""Round-8 development material (issue 11): the miss classes of the spent v5.

Writes two tuning files (seed 80812, deterministic):

- ``eval/tuning/round8.jsonl``: labelled messages, one template per rule class
  of round 8 — payment cards written with double spaces between the groups
  (4-4-4-4, 4-6-5, 4-5-6, 4-4-4-4-3), as the 6-digit issuer number then the
  rest (``6-13``, with a space or a hyphen), Diners Club ``3095`` cards;
  Spanish-language address layouts: Galician and Catalan links (``Rúa da``,
  ``Gran Via de les``), Peru's ``Jr.``, Uruguay's ``Bvar.``, Mexico's
  ``Calz.`` with a colonia, Colombia's grid (``Carrera 11 # 93-45``), units
  ``apto.``/``of.`` with 4-digit numbers, ordinals ``2.º 1.ª`` and tails
  without a postcode first (``Miraflores, Lima 15074``, ``Las Condes,
  Santiago``, ``Bogotá D.C.``, ``04100 Coyoacán, CDMX``); names in the
  ``SURNAME Given`` order and after ``Dra.``/``Mx.``; South African and New
  Zealand tails (``Claremont, Cape Town, 7708``, ``Kelburn\nWellington 6012``).
- ``eval/tuning/pii_free_round8.jsonl``: PII-free texts of the
  false-positive classes: hex dumps with their offset column, GS1-128
  application identifiers, towns named after a saint (``San Cristóbal``,
  ``Santa Cruz``), a Spanish/French imperative opening a sentence before a
  conjunction and a second verb (``Elige y argumenta``), and prose near the
  new rules (``La Carrera 7 está cerrada``); in the labelled file, a street
  and number followed by a name or a verb is taken without them
  (``Calle Mayor 12``, not ``Calle Mayor 12, dijo``).

Usage::

    uv run python services/redactor/eval/round8.py

Written after reading the spent v5's misses (``evaluate.py --frozen-v5
--misses``, round 8), with new pools: no name, street, postcode or value is
copied from v5 (its non-name values are checked by ``test_eval_frozen.py``).
The round-8 rules were tuned on this file, so it measures nothing held out.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).parent
SEED = 80812

NAMES = {
    "en": ["Oyelaran", "Priya Fairweather", "Tendai Mbatha"],
    "fr": ["Gwendal Abgrall", "Maëlys Quintin"],
    "es": ["Ainhoa Ugarte", "Anxo Lamas", "Begoña Cienfuegos"],
}
# issuer prefixes and lengths of the round-8 card classes
CARD_KINDS: list[tuple[str, int, tuple[int, ...]]] = [
    ("4", 16, (4, 4, 4, 4)),  # Visa, double spaces
    ("51", 16, (4, 4, 4, 4)),  # Mastercard
    ("2204", 19, (4, 4, 4, 4, 3)),  # Mir 19
    ("37", 15, (4, 6, 5)),  # Amex
    ("1", 15, (4, 5, 6)),  # UATP
    ("6011", 16, (4, 4, 4, 4)),  # Discover
    ("62", 19, (6, 13)),  # UnionPay, BIN then the rest
    ("4", 19, (6, 13)),  # Visa 19, BIN then the rest
    ("3095", 14, (4, 6, 4)),  # Diners Club International
    ("81", 16, (4, 4, 4, 4)),  # RuPay
]
CARD_TEMPLATES: list[tuple[str, str]] = [
    ("Card on file: {C}. Can you confirm the expiry?", "en"),
    ('payload={{"pan": "{C}", "amount": 1200}} - which field leaks?', "en"),
    ("It says {C} on the front, is that the full number?", "en"),
    ("Mi tarjeta {C} no pasa en la gasolinera.", "es"),
    ("Pago con la tarjeta {C}, ¿es seguro?", "es"),
    ("Ma carte {C} est refusée en ligne.", "fr"),
    ("Carte bancaire : {C}\nMerci de la bloquer.", "fr"),
]
ADDRESS_TEXTS: list[tuple[str, str]] = [
    ("Dirección: [[Rúa da Raíña 27, 2.º D, 27001 Lugo]]", "es"),
    ("Envíalo a [[Gran Via de les Glòries, n.º 31, esc. B, 2.º 1.ª, 08018 Barcelona]].", "es"),
    ("Domicilio: [[Jr. Ucayali 512, dpto. 2104, Miraflores, Lima 15074]]", "es"),
    ("Mi casa: [[Bvar. España 2143, apto. 1802\n11200 Montevideo]]", "es"),
    ("Entregar en [[Calz. Ignacio Zaragoza 3110, Col. Agrícola Oriental, 08500 Iztacalco, CDMX]] hoy.", "es"),
    ("Oficina:\n[[Calzada de los Misterios 84\nCol. Industrial\n07800 Gustavo A. Madero, CDMX]]", "es"),
    ("Vivo en [[Carrera 11 # 93-45, apto. 1203, Bogotá D.C.]] desde marzo.", "es"),
    ("Dirección de envío: [[Calle 10 Sur # 43A-21, Medellín, Antioquia]]", "es"),
    ("Recoger en [[Av. Apoquindo 4501, of. 1204, Las Condes, Santiago]] a las 9.", "es"),
    ("Entrega: [[Transversal 6 No. 27-10, Cartagena, Bolívar]]", "es"),
    ("Hay obras en [[Calle Mayor 12]], dijo el portero ayer.", "es"),
    ("Lo dejé en [[Rúa do Franco 5]], Xurxo lo recoge.", "es"),
    ("Courier to [[14 Protea Road, Claremont, Cape Town, 7708]] before noon.", "en"),
    ("Ship to:\n[[9 Rimu Street\nKelburn\nWellington 6012]]\nThanks!", "en"),
    ("We met at [[12 Main Street]], London 2012 was the year.", "en"),
]
# names of the round-8 classes: "SURNAME Given" and feminine/neutral titles
NAME_TEXTS: list[tuple[str, str]] = [
    ("[[HARROWGATE Tendai]] - dentist appointment, send a reminder.", "en"),
    ("Invite [[Mx. Fairweather]] to the panel.", "en"),
    ("Escribe a la [[Dra. Cienfuegos]] para mover la cita.", "es"),
    ("Paciente: [[UGARTE Ainhoa]], habitación 12", "es"),
    ("Dossier de [[ABGRALL Gwendal]] - renouvellement du passeport.", "fr"),
]
PII_FREE: list[tuple[str, str]] = [
    ("{HEX}\nWhat file type is this hexdump?", "en"),
    ("(01) 0{D13}\n(17) 270131\n(10) LOT{N}\nDecode these GS1 application identifiers.", "en"),
    ("Label: (00) 3{D17} (02) 1{D13} (37) {N}", "en"),
    ("Escribe un poema sobre San Cristóbal de La Laguna en invierno.", "es"),
    ("¿Qué ver en Santa Cruz de Tenerife en dos días?", "es"),
    ("Un itinéraire pour Saint-Malo et Saint-Brieuc en trois jours ?", "fr"),
    ("¿Mejor la serie o la película? Elige y argumenta.", "es"),
    ("Compara ambos planes. Elige y justifica tu respuesta.", "es"),
    ("Lee el texto. Resume y comenta las ideas principales.", "es"),
    ("La Carrera 7 está cerrada por la ciclovía del domingo.", "es"),
    ("ERROR Connection refused on port 5432, retrying.", "en"),
    ("WARN Payment gateway slow; HTTP Request took 2.1 s.", "en"),
]


def _luhn_complete(rng: random.Random, prefix: str, length: int) -> str:
    body = prefix + "".join(str(rng.randrange(10)) for _ in range(length - len(prefix) - 1))
    total = 0
    for i, ch in enumerate(reversed(body)):
        n = int(ch)
        if i % 2 == 0:
            n *= 2
            if n > 9:
                n -= 9
        total += n
    return body + str((10 - total % 10) % 10)


def _card(rng: random.Random, i: int) -> str:
    prefix, length, groups = CARD_KINDS[i % len(CARD_KINDS)]
    digits = _luhn_complete(rng, prefix, length)
    parts, at = [], 0
    for g in groups:
        parts.append(digits[at : at + g])
        at += g
    sep = "-" if groups == (6, 13) and i % 2 else ("  " if groups != (6, 13) or i % 3 else " ")
    return sep.join(parts)


def _hexdump(rng: random.Random) -> str:
    lines = []
    for row in range(3):
        words = " ".join(f"{rng.randrange(65536):04x}" for _ in range(8))
        lines.append(f"{row * 16:08x}: {words}  ................")
    return "\n".join(lines)


def build() -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """``(labelled records, PII-free records)`` of round 8, deterministic (:data:`SEED`)."""
    rng = random.Random(SEED)
    labelled: list[dict[str, object]] = []
    n = 0
    for i in range(len(CARD_KINDS) * 2):
        template, lang = CARD_TEMPLATES[i % len(CARD_TEMPLATES)]
        card = _card(rng, i)
        text = template.format(C=card)
        start = text.index(card)
        labelled.append(
            {
                "id": f"r8-card-{n}",
                "lang": lang,
                "text": text,
                "entities": [
                    {"type": "CREDIT_CARD", "start": start, "end": start + len(card), "value": card}
                ],
            }
        )
        n += 1
    for kind, entity, pool in (("addr", "STREET_ADDRESS", ADDRESS_TEXTS), ("name", "PERSON", NAME_TEXTS)):
        for k, (marked, lang) in enumerate(pool):
            start = marked.index("[[")
            end = marked.index("]]") - 2
            text = marked.replace("[[", "").replace("]]", "")
            value = text[start:end]
            if entity == "PERSON" and ". " in value:
                start += value.index(". ") + 2  # the title is no part of the name
                value = text[start:end]
            labelled.append(
                {
                    "id": f"r8-{kind}-{k}",
                    "lang": lang,
                    "text": text,
                    "entities": [{"type": entity, "start": start, "end": end, "value": value}],
                }
            )
    free: list[dict[str, object]] = []
    for k, (template, lang) in enumerate(PII_FREE):
        for r in range(2 if "{" in template else 1):
            text = template.format(
                HEX=_hexdump(rng),
                D13="".join(str(rng.randrange(10)) for _ in range(13)),
                D17="".join(str(rng.randrange(10)) for _ in range(17)),
                N=rng.randrange(10, 999),
            )
            free.append({"id": f"r8-free-{k}-{r}", "lang": lang, "text": text, "entities": []})
    return labelled, free


def main() -> None:
    """Write ``tuning/round8.jsonl`` and ``tuning/pii_free_round8.jsonl``."""
    labelled, free = build()
    for name, records in (("round8.jsonl", labelled), ("pii_free_round8.jsonl", free)):
        with (HERE / "tuning" / name).open("w", encoding="utf-8") as f:
            for record in records:
                f.write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
