"""Round-7 development material (issue 11): the miss classes of the spent v4.

Writes two tuning files (seed 71207, deterministic):

- ``eval/tuning/round7.jsonl``: labelled messages, one template per rule class
  of round 7 — names as the value of a record key (``Name:``, JSON
  ``"holder"``, YAML ``full_name:``, ``PACIENTE:``, ``Assuré :``), in a
  markdown table or CSV name column, in capitals, as ``Surname, Given``, with
  particles, apostrophe prefixes and initials (``van der``, ``O'``, ``A.-L.``),
  after ``para``/``pour``/``a nombre de``/``under``/``M.``/``Dña.``/``Lic.``,
  under a list header (``Lista de ponentes:``) and repeated alone after a full
  name; North American numbers written with dots (``1.415.209.3377``); IBANs
  of registry countries Presidio lacks (SV, NI, HN, RU...); addresses with a
  weak street type and a postcode (``Heron Point``-type), an Australian
  ``Unit 4/91``, the unit on the line above, Irish Eircodes, Belgian/Swiss
  number-last streets, French units and residences before the number, Québec
  tails, Spanish ``bajo izda.``, Mexican ``int.``/``Col.``, Argentine
  ``depto.``/``C1354 CABA`` and ``Apartado de Correos``.
- ``eval/tuning/pii_free_round7.jsonl``: PII-free texts of the false-positive
  classes: Postgres ``EXPLAIN ANALYZE`` footers (``Execution Time: 12 ms``),
  ticket tools (``Zendesk``, ``PagerDuty``), Apache error-log dates (``[Thu
  Jan 05 ...]``), EAN/GTIN barcodes, French/Spanish refactoring imperatives,
  titles of films and books (``Blade Runner``, ``Le Petit Prince``), Spanish
  ``al Black Friday``, form labels alone, and prose near the new rules
  (``para Windows``, ``pour Noël``, ``Name: Build and test``).

Usage::

    uv run python services/redactor/eval/round7.py

Written after reading the spent v4's misses (``evaluate.py --frozen-v4
--misses``, round 7), with new pools: no name, street, postcode or value is
copied from v4 (its non-name values are checked by ``test_eval_frozen.py``).
The round-7 rules were tuned on this file, so it measures nothing held out.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).parent
SEED = 71207

# (given names, surnames) per language; unlisted names of many origins on purpose
NAMES: dict[str, tuple[list[str], list[str]]] = {
    "en": (
        ["Tamsin", "Oluwaseun", "Jae-hyun", "Siobhán", "Radhika", "Tendai", "Mei-Ling", "Ruairí"],
        ["Oyelaran", "Harrowgate", "Venkataraman", "Mbatha", "Quennell", "Fairweather", "Tshabalala"],
    ),
    "fr": (
        ["Maëlys", "Gwendal", "Anne-Sophie", "Yannick", "Aïssatou", "Corentin", "Thi-Lan"],
        ["Kerhervé", "Le Bras", "Lemoal", "Diallo", "Quintin", "Abgrall", "Ouédraogo"],
    ),
    "es": (
        ["Ainhoa", "Iratxe", "Xoán", "Maitane", "Yolanda", "Anxo", "Begoña"],
        ["Etxeberria", "Arrieta", "Lamas", "Ocampo", "Larrañaga", "Cienfuegos", "Ugarte"],
    ),
}
PARTICLE_SURNAMES = {
    "en": ["van der Westhuizen", "van den Berghe", "de Klerk", "O'Donoghue", "McFadden", "Al-Rashid"],
    "fr": ["de Villepreux", "d'Arvieux", "N'Goran", "du Pontavice", "Le Floch"],
    "es": ["de la Vega", "del Castillo", "de los Santos", "Ruiz de Alda", "de las Heras"],
}


def _pick(rng: random.Random, pool: list[str]) -> str:
    return pool[rng.randrange(len(pool))]


def _iban(rng: random.Random, country: str, length: int, letters: int) -> str:
    """A valid IBAN (mod 97) of ``country``: ``letters`` bank letters, then digits."""
    bban = "".join(chr(65 + rng.randrange(26)) for _ in range(letters))
    bban += "".join(str(rng.randrange(10)) for _ in range(length - 4 - letters))
    moved = bban + country + "00"
    check = 98 - int("".join(str(int(c, 36)) for c in moved)) % 97
    return f"{country}{check:02d}{bban}"


def _grouped(code: str) -> str:
    return " ".join(code[i : i + 4] for i in range(0, len(code), 4))


def _value(rng: random.Random, kind: str, lang: str) -> tuple[str, str]:
    """``(entity type, value)`` for a placeholder kind."""
    first, last = NAMES[lang]
    g, s = _pick(rng, first), _pick(rng, last)
    if kind == "P":
        return "PERSON", f"{g} {s}"
    if kind == "G":
        return "PERSON", g
    if kind == "S":
        return "PERSON", s
    if kind == "PC":
        return "PERSON", f"{g} {s}".upper()
    if kind == "LF":
        return "PERSON", f"{s}, {g}"
    if kind == "PP":
        return "PERSON", f"{g} {_pick(rng, PARTICLE_SURNAMES[lang])}"
    if kind == "PI":
        return "PERSON", f"{g[0]}. {s}"
    if kind == "PHD":
        area = _pick(rng, ["272", "341", "458", "564", "659", "726", "838", "930"])
        return (
            "PHONE_NUMBER",
            f"{_pick(rng, ['1', '+1'])}.{area}.{rng.randrange(201, 989)}.{rng.randrange(10000):04d}",
        )
    if kind == "IBX":
        country, length, letters = _pick(
            rng, [("SV", 28, 4), ("NI", 28, 4), ("HN", 28, 4), ("RU", 33, 0), ("MN", 20, 0), ("OM", 23, 3)]
        )
        code = _iban(rng, country, length, letters)
        return "IBAN_CODE", code if rng.random() < 0.4 else _grouped(code)
    raise KeyError(kind)


# (template, lang): {KIND} placeholders; [ADDR text] marks a literal address span
TEMPLATES: list[tuple[str, str]] = [
    # names in records
    ('Check this record:\n{{"user": {{"name": "{P}", "plan": "pro"}}}}', "en"),
    ('Webhook body: {{"event": "refund", "holder": "{P}", "amount": 12.5}}', "en"),
    ("Turn this YAML into JSON:\nowner:\n  full_name: {P}\n  role: admin", "en"),
    ("INSURED: {PC}\nClaim: broken window\nSummarise it.", "en"),
    ("Approved by: {P}. Please archive the report.", "en"),
    ("Lookup: {LF} - subscriber since 2018.", "en"),
    ("Fix this table:\n| Name | Team |\n|---|---|\n| {G} | Billing |\n| {P} | Support |", "en"),
    ("Tidy these rows:\nname,city\n{P},Leeds\n{P},Cork", "en"),
    ("Panel shortlist:\n- {P} (chair)\n- {PI}\n- {PP}", "en"),
    ("Attendees: {P}, {P}\nActions: send the minutes.", "en"),
    ("Reply to {PI}'s review and thank her.", "en"),
    ("Table booked under {S}, 6 people, Friday.", "en"),
    ("Hi team, {PC} from payroll again: the payslip is wrong.", "en"),
    ("Dossier : {P}\nAssurée : {PC}\nRésume le dossier.", "fr"),
    ('{{"client": {{"nom": "{PP}", "ville": "Rennes"}}}}', "fr"),
    ("Réservation au nom de {S}, 4 personnes.", "fr"),
    ("Écris à M. {S} pour confirmer le rendez-vous.", "fr"),
    ("Liste des intervenants :\n- {P}\n- {PI}", "fr"),
    ("Résultat : {LF} - client depuis 2020.", "fr"),
    ("Paciente: {PC}\nMotivo: control anual", "es"),
    ("Escribe una nota de agradecimiento para {PP}, nuestra tesorera.", "es"),
    ("Reserva a nombre de {S}, 3 personas, domingo.", "es"),
    ("Beneficiario: Dña. {P}, transferencia pendiente.", "es"),
    ("Un saludo,\nLic. {P}\nContabilidad", "es"),
    ("Lista de ponentes:\n- {P}\n- {PP}", "es"),
    ("Asistentes: {P}, {P}\nTareas: revisar el contrato.", "es"),
    # numbers
    ("Her cell is {PHD}, text before calling.", "en"),
    ("Signature:\nTel: {PHD} | front desk", "en"),
    ("Ring the depot ({PHD}) after 5pm.", "en"),
    ("Is this IBAN valid? {IBX}", "en"),
    ("Cuenta para el reembolso: {IBX}. Confirma la recepción.", "es"),
    ("Coordonnées bancaires : {IBX}", "fr"),
]
# (text with [[address]] markers, lang): literal addresses of the round-7 layouts
ADDRESS_TEXTS: list[tuple[str, str]] = [
    ("Send it to [[12 Kestrel Point, Leeds LS6 2AB]] please.", "en"),
    ("Label reads:\n[[Flat 3\n41 Alder Creek\nYork YO1 7HH]]\nWhat is wrong?", "en"),
    ("New place: [[Unit 7/22 Jacaranda Street, Fremantle WA 6160]]", "en"),
    ("Ship to [[9 Hazel Bend, Carrigaline, Co. Cork P43 YX11]] today.", "en"),
    ("Write a letter to [[Apt 5, 301 Maple Walk\nBoise, ID 83702]].", "en"),
    ("Adresse : [[Avenue de Tervueren 88/2, 1040 Etterbeek]]", "fr"),
    ("Envoie le colis à :\n[[Route de Chêne 54\n1208 Genève]]", "fr"),
    ("Chez nous : [[Appt 3, 18 rue des Lilas, 35000 Rennes]].", "fr"),
    ("Adresse :\n[[Bât. B, esc. 1\n7 impasse des Ormes\n69003 Lyon]]", "fr"),
    ("Adresse : [[4120, rue Sainte-Catherine, app. 9, Montréal (Québec) H3Z 1A1]]", "fr"),
    ("Résidence : [[Résidence le Clos Fleuri, 3 allée des Pins, 33000 Bordeaux]]", "fr"),
    ("Dirección: [[Calle del Olmo, 14, bajo izda., 46001 Valencia]]", "es"),
    ("Envíalo a [[Av. Reforma 222, int. 4, Col. Juárez, 06600 Ciudad de México]].", "es"),
    ("Mi casa: [[Av. Santa Fe 1840, piso 3, depto. B, C1123 CABA]]", "es"),
    ("Correo a [[Apartado de Correos 410, 15080 A Coruña]], gracias.", "es"),
]
# PII-free texts of the false-positive classes (and prose near the new rules)
PII_FREE: list[tuple[str, str]] = [
    (
        "Seq Scan on invoices  (cost=0.00..{n}.00 rows={n})\nPlanning Time: 0.{s} ms\nExecution Time: {n}.2 ms",
        "en",
    ),
    ("Total Cost: {n}\nActual Rows: {n}\nWhy is the estimate so far off?", "en"),
    ("OPS-{n} linked to Zendesk #{n} and PagerDuty incident P{s}X", "en"),
    ("[Mon Feb 03 11:{s}:07.1 2025] [core:error] [pid {n}] AH00124: Request exceeded the limit", "en"),
    ("GTIN 4006381333931 x 12\nEAN 5901234123457 x 3", "en"),
    ("Rank these for a quiet evening: Blade Runner, Spirited Away, or a walk.", "en"),
    ("Name: Build and test\non: push\njobs:\n  lint:\n    runs-on: ubuntu-latest", "en"),
    ("Refactorise cette fonction pour enlever la duplication :\ndef total(xs):\n    return sum(xs)", "fr"),
    ("Résume Le Petit Prince en trois phrases.", "fr"),
    ("Quels cadeaux pour Noël ? Une idée pour Paris en décembre ?", "fr"),
    ("Date : lun. 3 nov. 2025 à 09:{s}\nObjet : réunion d'équipe", "fr"),
    ("¿Compro el portátil ahora o espero al Black Friday?", "es"),
    ("Necesito una guía para Windows y otra para Linux, por favor.", "es"),
    ("Refactoriza este bucle para que sea más legible.", "es"),
    ("Fecha: 4 de marzo de 2025\nAsunto: inventario trimestral", "es"),
]


def _fill(rng: random.Random, template: str, lang: str) -> tuple[str, list[dict[str, object]]]:
    parts: list[str] = []
    entities: list[dict[str, object]] = []
    i = 0
    while i < len(template):
        j = template.find("{", i)
        if j < 0:
            parts.append(template[i:].replace("}}", "}"))
            break
        if template.startswith("{{", j):
            parts.append(template[i:j].replace("}}", "}") + "{")
            i = j + 2
            continue
        k = template.index("}", j)
        parts.append(template[i:j].replace("}}", "}"))
        pos = sum(len(x) for x in parts)
        kind, value = _value(rng, template[j + 1 : k], lang)
        entities.append({"type": kind, "start": pos, "end": pos + len(value), "value": value})
        parts.append(value)
        i = k + 1
    return "".join(parts), entities


def _addresses(text: str) -> tuple[str, list[dict[str, object]]]:
    out, entities = "", []
    while "[[" in text:
        a = text.index("[[")
        b = text.index("]]", a)
        out += text[:a]
        value = text[a + 2 : b]
        entities.append(
            {"type": "STREET_ADDRESS", "start": len(out), "end": len(out) + len(value), "value": value}
        )
        out += value
        text = text[b + 2 :]
    return out + text, entities


def generate() -> dict[str, list[dict[str, object]]]:
    """The two files' records, by file name."""
    rng = random.Random(SEED)
    labelled: list[dict[str, object]] = []
    for rep in range(4):
        for ti, (template, lang) in enumerate(TEMPLATES):
            text, entities = _fill(rng, template, lang)
            labelled.append({"id": f"r7-{ti:02d}-{rep}", "lang": lang, "text": text, "entities": entities})
    for ti, (template, lang) in enumerate(ADDRESS_TEXTS):
        text, entities = _addresses(template)
        labelled.append({"id": f"r7-addr-{ti:02d}", "lang": lang, "text": text, "entities": entities})
    free: list[dict[str, object]] = []
    for rep in range(3):
        for ti, (template, lang) in enumerate(PII_FREE):
            text = template
            while "{n}" in text:
                text = text.replace("{n}", str(rng.randrange(100, 99_999)), 1)
            text = text.replace("{s}", f"{rng.randrange(10, 59)}")
            free.append({"id": f"f7-{ti:02d}-{rep}", "lang": lang, "text": text, "entities": []})
    return {"round7.jsonl": labelled, "pii_free_round7.jsonl": free}


def main() -> None:
    for name, records in generate().items():
        with (HERE / "tuning" / name).open("w", encoding="utf-8") as fh:
            for record in records:
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        print(f"{name}: {len(records)} records")


if __name__ == "__main__":
    main()
