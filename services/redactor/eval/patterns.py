"""Tuning cases for round 6 (issue 11): phone and street-address *layouts*, and
PII-free technical text full of numbers that phones must not eat.

Written after frozen v3 was spent and read (its misses: French dotted phones
read as IPs, English ``Walk``/multi-line addresses, the Spanish floor and
door part); the layouts below are the ones people write, with values and
streets of their own (none of v3's). Tuning material, never frozen.

Writes ``eval/tuning/patterns.jsonl`` (same JSONL shape as the other tuning
files): per language, phone layouts in greetings and sign-offs, street
addresses with units, PO boxes, city lines on the next line, French and
Spanish types and floor/door parts, IBANs typed in lower case, and ``lang: en`` PII-free texts (order
ids, versions, dates, GUIDs, epochs, account numbers, dotted build numbers,
key:value pairs). Deterministic (seed 6006).

Usage: ``python services/redactor/eval/patterns.py``
"""

from __future__ import annotations

import json
import random
import string
import uuid
from collections.abc import Callable
from pathlib import Path

OUT = Path(__file__).with_name("tuning") / "patterns.jsonl"
SEED = 6006

Maker = Callable[[random.Random], str]


def _d(rng: random.Random, k: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(k))


def _pairs(rng: random.Random, n: int, sep: str) -> str:
    return sep.join(_d(rng, 2) for _ in range(n))


PHONES: dict[str, list[Maker]] = {
    "fr": [
        lambda r: f"+33 6.{_pairs(r, 4, '.')}",
        lambda r: f"+33 7.{_pairs(r, 4, '.')}",
        lambda r: f"06.{_pairs(r, 4, '.')}",
        lambda r: f"07-{_pairs(r, 4, '-')}",
        lambda r: f"+33 (0)6 {_pairs(r, 4, ' ')}",
        lambda r: f"+33 (0) 1 {_pairs(r, 4, ' ')}",
        lambda r: f"+33(0)6{_d(r, 8)}",
        lambda r: f"0033 6 {_pairs(r, 4, ' ')}",
        lambda r: f"0033 (0)7 {_pairs(r, 4, ' ')}",
        lambda r: f"+33 6{_d(r, 2)} {_d(r, 3)} {_d(r, 3)}",
        lambda r: f"04.{_pairs(r, 4, '.')}",
        lambda r: f"0692 {_pairs(r, 3, ' ')}",  # Réunion
        lambda r: f"+262 693 {_pairs(r, 3, ' ')}",
        lambda r: f"+590 690 {_pairs(r, 3, ' ')}",  # Guadeloupe
        lambda r: f"0696 {_pairs(r, 3, ' ')}",  # Martinique
        lambda r: f"+594 694 {_pairs(r, 3, ' ')}",  # Guyane
        lambda r: f"+32 47{r.randint(0, 9)} {_pairs(r, 3, ' ')}",  # Belgique
        lambda r: f"+41 7{r.choice('6789')} {_d(r, 3)} {_d(r, 2)} {_d(r, 2)}",  # Suisse
    ],
    "es": [
        lambda r: f"+34 6{_d(r, 2)}.{_d(r, 3)}.{_d(r, 3)}",
        lambda r: f"0034 6{_d(r, 2)} {_d(r, 3)} {_d(r, 3)}",
        lambda r: f"(+34) 9{r.choice('13')} {_d(r, 3)} {_d(r, 2)} {_d(r, 2)}",
        lambda r: f"6{_d(r, 2)}-{_d(r, 2)}-{_d(r, 2)}-{_d(r, 2)}",
        lambda r: f"+52 1 {r.choice(['55', '81', '33'])} {_d(r, 4)} {_d(r, 4)}",  # México, old mobile
        lambda r: f"+52 {r.choice(['55', '81'])} {_d(r, 4)} {_d(r, 4)}",
        lambda r: f"+54 9 11 {_d(r, 4)}-{_d(r, 4)}",  # Argentina
        lambda r: f"+56 9 {r.randint(5, 9)}{_d(r, 3)} {_d(r, 4)}",  # Chile
        lambda r: f"+57 31{r.randint(0, 9)} {_d(r, 3)} {_d(r, 4)}",  # Colombia
        lambda r: f"+51 9{_d(r, 2)} {_d(r, 3)} {_d(r, 3)}",  # Perú
    ],
    "en": [
        lambda r: f"+1 {r.choice(['206', '303', '617', '702'])}.{r.randint(201, 989)}.{_d(r, 4)}",
        lambda r: f"1-{r.choice(['206', '303', '617'])}-{r.randint(201, 989)}-{_d(r, 4)}",
        lambda r: f"+44 (0)7{r.randint(700, 999)} {_d(r, 6)}",
        lambda r: f"+44 (0)161 {_d(r, 3)} {_d(r, 4)}",
        lambda r: f"+61 4{r.randint(10, 99)} {_d(r, 3)} {_d(r, 3)}",
        lambda r: f"(03) 9{_d(r, 3)} {_d(r, 4)}",
        lambda r: f"+49 (0)89 {_d(r, 7)}",
        lambda r: f"+81 80-{r.randint(1000, 9999)}-{_d(r, 4)}",
        lambda r: f"+353 8{r.randint(3, 9)} {_d(r, 3)} {_d(r, 4)}",
        lambda r: f"+91 9{_d(r, 4)} {_d(r, 5)}",
    ],
}

PHONE_TEMPLATES = {
    "fr": [
        "Tu peux me rappeler au {PH} ce soir ?",
        "Bien à vous,\nService client\nTél. {PH}",
        "Nouveau numéro : {PH} (l'ancien ne marche plus).",
    ],
    "es": [
        "Puedes llamarme al {PH} esta tarde.",
        "Un saludo,\nAtención al cliente\nTel. {PH}",
        "Mi nuevo número es {PH}, apúntalo.",
    ],
    "en": [
        "Give me a ring on {PH} after lunch.",
        "Cheers,\nFront desk\nMobile: {PH}",
        "New number is {PH}, the old one is gone.",
    ],
}

_EN_STREETS = ["Thornbury", "Elmstead", "Copperfield", "Wexford", "Ashdown", "Pembroke"]
_EN_TYPES = ["Walk", "Grove", "Rise", "Quay", "Close", "Gardens", "Pkwy", "Blvd.", "Ct", "Terrace", "Hill"]
_US_CITIES = [", Tulsa, OK 74103", ", Omaha, NE 68102", ",\nDes Moines, IA 50309", " Fresno, CA 93721"]
_UK_CITIES = [", York YO1 7HH", "\nNorwich NR2 4TZ", ", Exeter\nEX4 3LS", ", Brighton BN1 1AA"]


def _en_address(r: random.Random) -> str:
    street = f"{r.choice(_EN_STREETS)} {r.choice(_EN_TYPES)}"
    kind = r.randrange(6)
    if kind == 0:
        return f"{r.randint(2, 480)} {street}"
    if kind == 1:
        return f"{r.randint(100, 9800)} {street}, {r.choice(['Apt', 'Suite', 'Unit'])} {r.randint(2, 40)}{r.choice(['', 'B'])}{r.choice(_US_CITIES)}"
    if kind == 2:
        return f"{r.choice(['Flat', 'Apt'])} {r.randint(1, 9)}, {r.randint(2, 200)} {street}{r.choice(_UK_CITIES)}"
    if kind == 3:
        return f"{r.choice(['PO Box', 'P.O. Box'])} {r.randint(10, 9999)}{r.choice(_US_CITIES)}"
    if kind == 4:
        n = r.randint(2, 99)
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10 if n % 100 not in (11, 12, 13) else 0, "th")
        return f"{r.randint(10, 900)} {r.choice(['E', 'W', 'N'])} {n}{suffix} St{r.choice(_US_CITIES)}"
    return f"{r.randint(2, 200)} {street}{r.choice(_UK_CITIES)}"


_FR_STREETS = [
    "rue des Lilas",
    "Rue Pasteur",
    "avenue de la Gare",
    "bd Gambetta",
    "allée des Peupliers",
    "quai Saint-Vincent",
    "chemin du Lavoir",
    "place du Marché",
]
_FR_CITIES = ["44000 Nantes", "21000 Dijon", "76000 Rouen", "59800 Lille", "97400 Saint-Denis"]


def _fr_address(r: random.Random) -> str:
    out = f"{r.randint(1, 160)}{r.choice(['', '', ' bis', ' ter'])}{r.choice(['', ','])} {r.choice(_FR_STREETS)}"
    if r.random() < 0.4:
        out += r.choice([", Bât. C", ", appt 14", ", Bât. A, appt 3", ", escalier 2"])
    if r.random() < 0.7:
        out += r.choice([", ", " ", "\n"]) + r.choice(_FR_CITIES)
        if r.random() < 0.15:
            out += " Cedex"
    return out


_ES_STREETS = [
    "Calle Alfonso XII",
    "C/ San Bernardo",
    "C/Princesa",
    "Avda. de Andalucía",
    "Avenida del Puerto",
    "Paseo de la Alameda",
    "Carrer de Mallorca",
    "Plaza de España",
]
_ES_FLOORS = [", 2º B", ", 3.º A", ", 1º izq.", ", 4º dcha.", ", bajo", ", bajo A", ", ático", ", piso 3, puerta 2", ", 5ª planta", ", esc. B, 2º 1ª", ", pral. 2ª"]  # fmt: skip
_ES_CITIES = ["29001 Málaga", "50001 Zaragoza", "36201 Vigo", "03001 Alicante", "15001 A Coruña", "38001 Santa Cruz de Tenerife"]  # fmt: skip


def _es_address(r: random.Random) -> str:
    out = f"{r.choice(_ES_STREETS)}{r.choice([' ', ', ', ', nº '])}{r.randint(1, 240)}"
    if r.random() < 0.8:
        out += r.choice(_ES_FLOORS)
    if r.random() < 0.6:
        out += r.choice([", ", "\n"]) + r.choice(_ES_CITIES)
    return out


ADDRESSES: dict[str, Maker] = {"en": _en_address, "fr": _fr_address, "es": _es_address}
ADDRESS_TEMPLATES = {
    "en": [
        "Please post the spare keys to {A}.",
        "Best,\nOps team\n{A}",
        "Delivery address:\n{A}\nLeave it with the neighbour.",
    ],
    "fr": [
        "Tu peux envoyer le colis au {A} ?",
        "Adresse de facturation : {A}.",
        "Cordialement,\nLe secrétariat\n{A}",
    ],
    "es": [
        "Mándalo a {A}, por favor.",
        "Dirección de entrega: {A}.",
        "Atentamente,\nLa administración\n{A}",
    ],
}


_IBAN_BBAN = {"FR": 23, "ES": 20, "DE": 18, "IT": 23, "NL": 14, "BE": 12}


def _iban(r: random.Random) -> str:
    """A check-digit-valid IBAN (NL with a bank code, IT with its CIN letter) in a layout people type."""
    country = r.choice(sorted(_IBAN_BBAN))
    bban = _d(r, _IBAN_BBAN[country])
    if country == "NL":
        bban = "ABNA" + _d(r, 10)
    elif country == "IT":
        bban = r.choice(string.ascii_uppercase) + _d(r, 22)  # CIN letter first
    numeric = "".join(str(int(c, 36)) for c in bban + country + "00")
    code = f"{country}{98 - int(numeric) % 97:02d}{bban}"
    layout = r.randrange(4)
    if layout == 0:
        return " ".join(code[i : i + 4] for i in range(0, len(code), 4)).lower()
    if layout == 1:
        return code.lower()
    if layout == 2:
        return "-".join(code[i : i + 4] for i in range(0, len(code), 4))
    return code[:2] + code[2:].lower() if country == "NL" else code.lower().capitalize()


IBAN_TEMPLATES = {
    "en": "my iban is {IB} thanks",
    "fr": "mon iban : {IB} pour le virement",
    "es": "mi iban es {IB} gracias",
}


def _pii_free(r: random.Random) -> str:
    makers: list[Callable[[], str]] = [
        lambda: f"Order ORD-{r.randint(2019, 2026)}-{_d(r, 6)} shipped from warehouse {r.randint(2, 40)}",
        lambda: (
            f"Upgrade from {r.randint(1, 9)}.{r.randint(0, 30)}.{r.randint(0, 9)} to {r.randint(1, 9)}.{r.randint(0, 30)}.{r.randint(0, 9)} fixed it"
        ),
        lambda: (
            f"Firmware version {r.randint(1, 9)}.{r.randint(10, 99)}.{r.randint(10, 99)}.{r.randint(10, 99)} is rolling out"
        ),
        lambda: (
            f"build {r.randint(1, 9)}.{r.randint(0, 9)}.{r.randint(10, 99)}.{r.randint(100, 999)} passed all checks"
        ),
        lambda: (
            f"GCP invoice {r.randint(2020, 2026)}-0{r.randint(1, 9)}: {r.randint(100, 99999)}.{_d(r, 2)} EUR, account {_d(r, 12)}"
        ),
        lambda: f"customer {_d(r, 10)} upgraded to the annual plan",
        lambda: f"redis> INCRBY quota:{_d(r, 6)} bucket:{r.randint(1_600_000_000, 1_899_999_999)} 1",
        lambda: f"cache.set(key, value, ts:{r.randint(1_600_000_000, 1_899_999_999)} 30)",
        lambda: f"trace {uuid.UUID(int=r.getrandbits(128))} took {r.randint(20, 900)} ms",
        lambda: (
            f"released {r.randint(2020, 2026)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d} {r.randint(0, 23):02d}:{r.randint(0, 59):02d}"
        ),
        lambda: f"policy number {_d(r, 10)} renewed for {r.randint(1, 3)} years",
        lambda: (
            f"see section {r.randint(1, 9)}.{r.randint(1, 9)}.{r.randint(1, 9)}.{r.randint(1, 9)}.{r.randint(1, 9)} of the spec"
        ),
        lambda: f"parcel {_d(r, 12)} left the sorting centre",
        lambda: (
            f"metrics: p50={r.randint(1, 99)}.{_d(r, 2)} p99={r.randint(100, 999)}.{_d(r, 3)} n={_d(r, 7)}"
        ),
        lambda: f"Run {r.randint(2, 9)} Data Path checks before merging",
        lambda: f"Ticket JIRA-{r.randint(100, 9999)} moved to Done after {r.randint(2, 9)} Review Rounds",
    ]
    return r.choice(makers)()


def _record(rid: str, lang: str, template: str, key: str, etype: str, value: str) -> dict:
    text = template.replace(key, value)
    start = template.index(key)
    return {
        "id": rid,
        "lang": lang,
        "text": text,
        "entities": [{"type": etype, "start": start, "end": start + len(value), "value": value}],
    }


def generate() -> list[dict]:
    """Every record of ``patterns.jsonl``, in file order."""
    r = random.Random(SEED)
    out: list[dict] = []
    for lang, layouts in PHONES.items():
        for i, layout in enumerate(layouts):
            for j, template in enumerate(PHONE_TEMPLATES[lang]):
                out.append(
                    _record(f"pp-{lang}-{i:02d}-{j}", lang, template, "{PH}", "PHONE_NUMBER", layout(r))
                )
    for lang, make in ADDRESSES.items():
        for i in range(30):
            template = ADDRESS_TEMPLATES[lang][i % 3]
            out.append(_record(f"pa-{lang}-{i:02d}", lang, template, "{A}", "STREET_ADDRESS", make(r)))
    for lang, template in IBAN_TEMPLATES.items():
        for i in range(10):
            out.append(_record(f"pi-{lang}-{i:02d}", lang, template, "{IB}", "IBAN_CODE", _iban(r)))
    for i in range(120):
        out.append({"id": f"pf-{i:03d}", "lang": "en", "text": _pii_free(r), "entities": []})
    return out


def main() -> None:
    records = generate()
    with OUT.open("w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    print(f"wrote {len(records)} records to {OUT}")


if __name__ == "__main__":
    main()
