"""The FROZEN held-out evaluation set (issue 11): written and committed before any
recognizer of issue 11 was changed, never used while tuning.

Self-contained on purpose: it imports nothing from ``generate.py`` (the tuning
generator), so growing the tuning set can never change these files. Its
templates, name pools, domains, streets and number layouts are all different
from the tuning set's. ``eval/frozen/SHA256SUMS`` pins the output and a unit
test (``tests/unit/test_eval_frozen.py``) fails if a file drifts or this
script no longer reproduces it byte for byte.

Rules for whoever tunes the detector: evaluate on these files only for the
report (``evaluate.py --frozen``); ``evaluate.py`` refuses ``--misses`` on
them, so no individual miss is read and fixed.

Files (JSONL, ``{"id", "lang", "text", "entities": [{"type", "start",
"end", "value"}]}``, code point offsets):

- ``heldout-en.jsonl``, ``heldout-fr.jsonl``, ``heldout-es.jsonl``: chat
  messages with planted personal data, per language.
- ``pii_free.jsonl``: technical text with no personal data (ids, hashes,
  code, logs, timestamps, GUIDs, versions, order numbers): any detection is
  a false positive.

Usage: ``python services/redactor/eval/frozen.py [--out DIR]`` (seed 7812).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import string
import uuid
from pathlib import Path

SEED = 7812

NAMES = {
    "en": (
        "Harriet Osei Tobias Lindqvist Naomi Whitfield Declan Farrow Imogen Achebe Rupert Vance "
        "Keisha Romero Callum Draper Esther Nakamura Ibrahim Coleman Felicity Ward Gideon Pike "
        "Rosalind Mbeki Desmond Hale Winifred Cho Barnaby Quinn Tamsin Oyelaran Jasper Holloway"
    ).split(),
    "fr": (
        "Élodie Lefèvre Mathis Garnier Inès Rousseau Théo Fontaine Camélia Bertrand Hugo Chevalier "
        "Manon Girard Lucas Mercier Océane Lambert Nathan Faure Aurélie Bonnet Maxime Perrin "
        "Clémence Roux Julien Blanchard Gaëlle Morel Antoine Dupuis"
    ).split(),
    "es": (
        "José Martínez Lucía Fernández Javier Ruiz Carmen Ortega Alejandro Navarro Marta Delgado "
        "Pablo Castillo Elena Romero Sergio Vázquez Nuria Iglesias Álvaro Molina Rocío Serrano "
        "Diego Herrera Pilar Medina Íñigo Aguirre Beatriz Cortés"
    ).split(),
}
DOMAINS = ["fastmail.com", "posteo.de", "orange.fr", "telefonica.es", "northwind.example", "gmx.net"]


def _pairs(lang: str) -> list[tuple[str, str]]:
    words = NAMES[lang]
    return [(words[i], words[i + 1]) for i in range(0, len(words) - 1, 2)]


def person(rng: random.Random, lang: str) -> str:
    first, _ = rng.choice(_pairs(lang))
    _, last = rng.choice(_pairs(lang))
    return first if rng.random() < 0.1 else f"{first} {last}"


def email(rng: random.Random, name: str) -> str:
    ascii_name = name.lower().translate(str.maketrans("éèêëàâçîïôöùûüñáíóúäß", "eeeeaaciioouuunaiouas"))
    parts = re.findall(r"[a-z]+", ascii_name) or ["contact"]
    local = rng.choice(
        [".".join(parts), parts[0] + str(rng.randint(10, 9999)), parts[-1] + "_" + parts[0][0]]
    )
    return f"{local}@{rng.choice(DOMAINS)}"


def _digits(rng: random.Random, k: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(k))


def phone(rng: random.Random, lang: str) -> str:
    d = lambda k: _digits(rng, k)  # noqa: E731
    layouts = {
        "en": [
            lambda: f"+1 ({rng.randint(201, 989)}) {rng.randint(200, 989)}-{d(4)}",
            lambda: f"1-{rng.randint(201, 989)}-{rng.randint(200, 989)}-{d(4)}",
            lambda: f"+44 7{rng.randint(400, 999)} {d(6)}",
            lambda: f"0161 {d(3)} {d(4)}",
            lambda: f"+61 4{d(2)} {d(3)} {d(3)}",
        ],
        "fr": [
            lambda: f"0{rng.randint(1, 7)} {d(2)} {d(2)} {d(2)} {d(2)}",
            lambda: f"+33 {rng.randint(1, 7)} {d(2)} {d(2)} {d(2)} {d(2)}",
            lambda: f"0{rng.choice('67')}.{d(2)}.{d(2)}.{d(2)}.{d(2)}",
        ],
        "es": [
            lambda: f"+34 6{d(2)} {d(3)} {d(3)}",
            lambda: f"9{d(2)} {d(3)} {d(3)}",
            lambda: f"6{d(2)} {d(2)} {d(2)} {d(2)}",
        ],
    }
    return rng.choice(layouts[lang])()


def _luhn(body: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(body)):
        n = int(ch)
        if i % 2 == 0:
            n *= 2
            if n > 9:
                n -= 9
        total += n
    return body + str((10 - total % 10) % 10)


# (prefix generator, lengths): payment networks under ISO/IEC 7812 issuer ranges
_CARD_RANGES = [
    (lambda r: "4", [13, 16, 19]),  # Visa
    (lambda r: str(r.randint(51, 55)), [16]),  # Mastercard 5-series
    (lambda r: str(r.randint(2221, 2720)), [16]),  # Mastercard 2-series
    (lambda r: r.choice(["34", "37"]), [15]),  # Amex
    (lambda r: r.choice(["6011", "65", str(r.randint(644, 649))]), [16, 19]),  # Discover
    (lambda r: str(r.randint(3528, 3589)), [16, 19]),  # JCB
    (lambda r: "62", [16, 17, 18, 19]),  # UnionPay
    (lambda r: r.choice(["5018", "5020", "6304", "6759", "6761"]), [12, 13, 15, 19]),  # Maestro
    (lambda r: r.choice(["36", "300", "305"]), [14]),  # Diners Club
]


def card(rng: random.Random) -> str:
    prefix_of, lengths = rng.choice(_CARD_RANGES)
    prefix = prefix_of(rng)
    length = rng.choice(lengths)
    number = _luhn(prefix + _digits(rng, length - len(prefix) - 1))
    sep = rng.choice([" ", " ", "-", "", ".", "\u00a0"])
    if length == 15 and prefix in ("34", "37"):
        groups = [number[:4], number[4:10], number[10:]]
    elif length == 14:
        groups = [number[:4], number[4:10], number[10:]]
    else:
        groups = [number[i : i + 4] for i in range(0, length, 4)]
    return sep.join(groups)


_IBAN_BBAN = {
    "BE": lambda d, a: d(12),
    "AT": lambda d, a: d(16),
    "CH": lambda d, a: d(17),
    "PL": lambda d, a: d(24),
    "PT": lambda d, a: d(21),
    "FR": lambda d, a: d(10) + a(1) + d(10) + d(2),
    "ES": lambda d, a: d(20),
    "IE": lambda d, a: a(4) + d(14),
}


def iban(rng: random.Random, country: str | None = None) -> str:
    country = country or rng.choice(sorted(_IBAN_BBAN))
    d = lambda k: _digits(rng, k)  # noqa: E731
    a = lambda k: "".join(rng.choice(string.ascii_uppercase) for _ in range(k))  # noqa: E731
    bban = _IBAN_BBAN[country](d, a)
    numeric = "".join(str(int(c, 36)) for c in bban + country + "00")
    code = f"{country}{98 - int(numeric) % 97:02d}{bban}"
    return " ".join(code[i : i + 4] for i in range(0, len(code), 4)) if rng.random() < 0.5 else code


def address(rng: random.Random, lang: str) -> str:
    if lang == "fr":
        street = rng.choice(
            ["rue des Lilas", "avenue Jean Jaurès", "boulevard Voltaire", "rue du Moulin", "place Bellecour"]
        )
        out = f"{rng.randint(1, 180)}{rng.choice(['', '', ' bis'])} {street}"
        if rng.random() < 0.7:
            out += f", {rng.choice(['69002 Lyon', '33000 Bordeaux', '75011 Paris', '13001 Marseille'])}"
        return out
    if lang == "es":
        street = rng.choice(
            [
                "Calle de Alcalá",
                "Avenida de la Constitución",
                "Calle Mayor",
                "Paseo de Gracia",
                "Plaza de España",
            ]
        )
        out = f"{street}, {rng.randint(1, 250)}"
        if rng.random() < 0.7:
            out += f", {rng.choice(['28014 Madrid', '08007 Barcelona', '41004 Sevilla', '46002 Valencia'])}"
        return out
    out = f"{rng.randint(2, 4999)} {rng.choice(['Birchwood', 'Kingsley', 'Riverside', 'Harbour', 'Fairview', 'Orchard'])} {rng.choice(['Road', 'Avenue', 'Lane', 'Terrace', 'Close', 'Drive', 'Crescent'])}"
    if rng.random() < 0.6:
        out += rng.choice(
            [", Leicester LE1 6RP", ", Nashville, TN 37203", ", Albany, NY 12207", ", York YO1 7HH"]
        )
    return out


TEMPLATES = {
    "en": [
        "Quick one: {P} asked me to move her dentist appointment, her mobile is {PH}.",
        "Reconcile this statement line: card {CC} charged twice by the gym on the 3rd.",
        "Please draft a tenancy reference for {P}, formerly of {A}.",
        "Wire details for the supplier: IBAN {IB}, account holder {P}.",
        "I need to cancel the subscription tied to {E}; the card on file is {CC}.",
        "Emergency contact: {P2}, reachable at {PH} or {E}.",
        "Write a thank-you card from {P} and {P2} to the neighbours.",
        "Courier note — deliver to {A}, ring {PH} on arrival, ask for {P}.",
        "Can you check if this card number is valid? {CC}",
        "Send the signed contract back to {E} by Thursday, cc {P}.",
        "Explain the difference between a mutex and a semaphore.",
        "What should I pack for a week of hiking in the Lake District?",
    ],
    "fr": [
        "Bonjour, je m'appelle {P} et je voudrais résilier mon abonnement.",
        "Merci d'envoyer la facture à {E} avant vendredi.",
        "Pouvez-vous rappeler {P} au {PH} concernant sa commande ?",
        "Mon nouveau RIB : {IB}, titulaire {P}.",
        "Le colis doit être livré au {A}, à l'attention de {P2}.",
        "J'ai été débité deux fois sur ma carte {CC}, aidez-moi à rédiger une réclamation.",
        "Rédige un mot d'accueil pour {P} qui rejoint l'équipe lundi.",
        "Coordonnées du locataire : {P}, {PH}, {E}.",
        "Explique-moi la différence entre un prêt à taux fixe et un prêt à taux variable.",
        "Quelle est la meilleure saison pour visiter la Bretagne ?",
    ],
    "es": [
        "Hola, soy {P} y quiero cambiar la dirección de envío a {A}.",
        "Por favor, llama a {P} al {PH} para confirmar la cita.",
        "Transfiere 300 euros a la cuenta {IB} a nombre de {P}.",
        "Mi tarjeta {CC} fue rechazada, ¿qué puedo hacer?",
        "Envía el informe a {E} y pon en copia a {P2}.",
        "Redacta una carta de recomendación para {P}, que trabajó conmigo cinco años.",
        "Datos del cliente: {P}, teléfono {PH}, correo {E}.",
        "El paquete para {P2} debe llegar a {A} antes del lunes.",
        "¿Cómo se calcula el interés compuesto de un préstamo?",
        "Dame tres ideas para una cena vegetariana.",
    ],
}


def fill(template: str, rng: random.Random, lang: str) -> tuple[str, list[dict]]:
    p1 = person(rng, lang)
    p2 = person(rng, lang)
    while p2 == p1:
        p2 = person(rng, lang)
    values = {
        "{P}": ("PERSON", p1),
        "{P2}": ("PERSON", p2),
        "{E}": ("EMAIL_ADDRESS", email(rng, p1)),
        "{PH}": ("PHONE_NUMBER", phone(rng, lang)),
        "{CC}": ("CREDIT_CARD", card(rng)),
        "{IB}": ("IBAN_CODE", iban(rng, {"fr": "FR", "es": "ES"}.get(lang))),
        "{A}": ("STREET_ADDRESS", address(rng, lang)),
    }
    out: list[str] = []
    entities: list[dict] = []
    pos = length = 0
    for m in re.finditer(r"\{P2\}|\{PH\}|\{P\}|\{E\}|\{CC\}|\{IB\}|\{A\}", template):
        literal = template[pos : m.start()]
        out.append(literal)
        length += len(literal)
        etype, value = values[m.group()]
        entities.append({"type": etype, "start": length, "end": length + len(value), "value": value})
        out.append(value)
        length += len(value)
        pos = m.end()
    out.append(template[pos:])
    return "".join(out), entities


# --- PII-free technical text -------------------------------------------------


def _hex(rng: random.Random, k: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(k))


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _ts(rng: random.Random) -> str:
    return (
        f"20{rng.randint(19, 27)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T"
        f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}.{_digits(rng, 6)}Z"
    )


PII_FREE = [
    lambda r: (
        f"{_ts(r)} INFO worker-{r.randint(1, 16)} processed batch {r.randint(100000, 9999999)} in {r.randint(1, 999)} ms"
    ),
    lambda r: (
        f"ERROR request_id={_uuid(r)} upstream timeout after {r.randint(1000, 60000)}ms (attempt {r.randint(1, 5)}/5)"
    ),
    lambda r: (
        f"commit {_hex(r, 40)}\nMerge: {_hex(r, 7)} {_hex(r, 7)}\n\n    bump deps to {r.randint(1, 9)}.{r.randint(0, 40)}.{r.randint(0, 20)}"
    ),
    lambda r: f"sha256:{_hex(r, 64)}  dist/app-{r.randint(1, 4)}.{r.randint(0, 30)}.{r.randint(0, 9)}.tar.gz",
    lambda r: (
        f"Your order ORD-{r.randint(2019, 2027)}-{_digits(r, 6)} has shipped; tracking 1Z{_hex(r, 6).upper()}{_digits(r, 10)}."
    ),
    lambda r: (
        f"Invoice INV-{r.randint(2019, 2027)}{r.randint(1, 12):02d}{r.randint(1, 28):02d}-{_digits(r, 4)} is due on {r.randint(2019, 2027)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}."
    ),
    lambda r: (
        f"pip install numpy=={r.randint(1, 2)}.{r.randint(0, 26)}.{r.randint(0, 9)} scipy=={r.randint(1, 2)}.{r.randint(0, 14)}.{r.randint(0, 9)}"
    ),
    lambda r: (
        f'Traceback (most recent call last):\n  File "/srv/app/handlers.py", line {r.randint(10, 2000)}, in handle\n    raise TimeoutError({r.randint(100, 9999)})'
    ),
    lambda r: (
        f"SELECT * FROM events WHERE ts BETWEEN {r.randint(1600000000, 1800000000)} AND {r.randint(1600000000, 1800000000)} LIMIT {r.randint(10, 5000)};"
    ),
    lambda r: (
        f"kubectl rollout status deploy/api-{_hex(r, 5)} --timeout={r.randint(30, 600)}s  # revision {r.randint(1, 400)}"
    ),
    lambda r: (
        f"const RETRY_DELAYS_MS = [{r.randint(50, 200)}, {r.randint(200, 900)}, {r.randint(1000, 5000)}, {r.randint(10000, 30000)}];"
    ),
    lambda r: (
        f"Build #{r.randint(1000, 99999)} finished at {r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d} — {r.randint(100, 9999)} tests, {r.randint(0, 9)} skipped, took {r.randint(1, 59)}m{r.randint(0, 59)}s"
    ),
    lambda r: (
        f"epoch_ms={r.randint(1600000000000, 1800000000000)} seq={r.randint(0, 10**9)} offset={r.randint(0, 10**12)} partition={r.randint(0, 11)}"
    ),
    lambda r: f"GUID {{{_uuid(r).upper()}}} maps to object 0x{_hex(r, 12)} (refcount {r.randint(1, 64)})",
    lambda r: (
        f"Version {r.randint(1, 30)}.{r.randint(0, 99)}.{r.randint(0, 9999)}.{r.randint(0, 99999)} released {r.randint(1, 28):02d}/{r.randint(1, 12):02d}/{r.randint(2019, 2027)}"
    ),
    lambda r: (
        f"The checksum of block {r.randint(10**11, 10**14)} is {r.randint(10**9, 10**10)} (crc32c), size {r.randint(4096, 10**9)} bytes."
    ),
    lambda r: (
        f"docker run -p {r.randint(1024, 65535)}:{r.randint(1024, 65535)} -e WORKERS={r.randint(1, 32)} registry.local/api@sha256:{_hex(r, 64)}"
    ),
    lambda r: (
        f"Average latency {r.randint(1, 999)}.{_digits(r, 3)} ms, p99 {r.randint(1000, 9999)}.{_digits(r, 2)} ms over {r.randint(10**5, 10**8)} requests."
    ),
    lambda r: (
        f"ISBN 978-{r.randint(0, 9)}-{_digits(r, 3)}-{_digits(r, 5)}-{r.randint(0, 9)}, pages {r.randint(100, 900)}–{r.randint(901, 1200)}"
    ),
    lambda r: (
        f"Ticket JIRA-{r.randint(100, 99999)}: flaky test test_{_hex(r, 6)} fails on seed {r.randint(0, 2**32)}"
    ),
]


def generate(rng_seed: int = SEED) -> dict[str, list[dict]]:
    """The frozen files' records, keyed by file name."""
    out: dict[str, list[dict]] = {}
    sizes = {"en": 240, "fr": 120, "es": 120}
    for offset, (lang, n) in enumerate(sizes.items()):
        rng = random.Random(rng_seed + offset)
        templates = TEMPLATES[lang]
        records = []
        for i in range(n):
            text, entities = fill(templates[i % len(templates)], rng, lang)
            records.append({"id": f"h{lang}{i + 1:04d}", "lang": lang, "text": text, "entities": entities})
        out[f"heldout-{lang}.jsonl"] = records
    rng = random.Random(rng_seed + 100)
    out["pii_free.jsonl"] = [
        {"id": f"hf{i + 1:04d}", "lang": "en", "text": PII_FREE[i % len(PII_FREE)](rng), "entities": []}
        for i in range(300)
    ]
    return out


def render(records: list[dict]) -> bytes:
    """The JSONL bytes of ``records`` (one object a line, UTF-8, no ASCII escaping)."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("frozen"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    sums = []
    for name, records in sorted(generate().items()):
        data = render(records)
        (args.out / name).write_bytes(data)
        sums.append(f"{hashlib.sha256(data).hexdigest()}  {name}\n")
        print(f"wrote {len(records)} records to {args.out / name}")
    (args.out / "SHA256SUMS").write_text("".join(sums), encoding="utf-8")


if __name__ == "__main__":
    main()
