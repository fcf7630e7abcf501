"""Round-6 development material (issue 11): names and false positives.

Writes two tuning files (seed 61206, deterministic):

- ``eval/tuning/pii_free_round6.jsonl``: PII-free texts of kinds no frozen set
  holds — technical text (MySQL/InnoDB errors in capitals, Swift/Kotlin/Go/
  Rust/TypeScript/Python declarations after type keywords, ``df``/``free``/
  ``top`` output with units, systemd and cron lines, GitHub Actions steps,
  GraphQL, ``.ini`` files, Terraform plans, ``npm audit``) and chat (trips
  between world cities, products after an article, sentence-opening nouns:
  "Landlord says", "Facture", Spanish imperatives before an article).
- ``eval/tuning/names_round6.jsonl``: chat messages with planted names of many
  origins in greetings, sign-offs, signatures, lists, possessives, initials,
  particles and lower case (labelled spans).

Usage::

    uv run python services/redactor/eval/round6.py

The pools here are new: no name, city or template of ``frozen*.py``,
``generate.py`` or ``tuning.py`` (checked by hand when written; the round-6
rules were tuned on these files, so they measure nothing held out).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).parent
SEED = 61206

# Given names and surnames by origin (first, last) — typed as their bearers write them.
NAMES: dict[str, tuple[list[str], list[str]]] = {
    "yoruba-igbo": (
        ["Adaeze", "Chinonso", "Olamide", "Temitope", "Ifeoma"],
        ["Okafor", "Adeyemi", "Eze", "Balogun"],
    ),
    "vietnamese": (["Thanh", "Linh", "Quang", "Minh"], ["Nguyen", "Tran", "Pham", "Hoang"]),
    "korean": (["Seo-yeon", "Min-jun", "Ha-eun", "Jae-won"], ["Kim", "Park", "Choi", "Jung"]),
    "japanese": (["Yui", "Ren", "Sota", "Hina", "Kaito"], ["Takahashi", "Yamamoto", "Kobayashi", "Saito"]),
    "chinese": (["Xiaoming", "Jiayi", "Zhiwei", "Meilin"], ["Zhang", "Liu", "Huang", "Zhou"]),
    "slavic": (
        ["Oksana", "Dmytro", "Yaroslav", "Natalia", "Bogusław"],
        ["Shevchenko", "Melnyk", "Wiśniewski", "Sokolova"],
    ),
    "arabic-turkish": (
        ["Youssef", "Leila", "Emre", "Zeynep", "Karim"],
        ["Haddad", "Yilmaz", "Demir", "Mansour"],
    ),
    "indian": (["Ananya", "Rohan", "Kavya", "Arjun"], ["Iyer", "Chatterjee", "Reddy", "Menon"]),
    "greek-nordic": (
        ["Eleni", "Dimitris", "Ingrid", "Sigurd"],
        ["Papadopoulos", "Lindqvist", "Haugen", "Karlsson"],
    ),
    "english": (
        ["Harriet", "Callum", "Imogen", "Rupert", "Maisie"],
        ["Ashworth", "Pemberton", "Hargreaves", "Whitlock"],
    ),
    "french": (["Clémence", "Baptiste", "Solène", "Gaëtan"], ["Lemaire", "Fontaine", "Chevallier", "Renaud"]),
    "spanish": (["Itziar", "Rocío", "Gonzalo", "Nerea"], ["Ibarra", "Quiroga", "Villalobos", "Arrieta"]),
}
PARTICLES = ["van der", "de la", "von", "al-", "ben", "da", "O'", "Mac"]

# (template, language); {p} is one person "First Last", {f} a given name, {l} a
# surname, {pl} a name with a particle, {i} "F. Last", {lc} a lower-case "first last".
NAME_TEMPLATES: list[tuple[str, str]] = [
    ("Morning {f}! Did the invoices go out?", "en"),
    ("Hey {p}, quick question about the rota.", "en"),
    ("Thanks again for everything,\n{f}", "en"),
    ("Speak soon,\n{p}\nHead of Operations | Northgate Freight", "en"),
    ("{p}\nSenior Buyer\nMarlow & Finch Ltd", "en"),
    ("Please add {p}, {p} and {p} to the offsite list.", "en"),
    ("Seating plan: {f}, {f}, {f} and me at table 4.", "en"),
    ("Can you move {f}'s one-to-one to Friday?", "en"),
    ("{p}'s flight lands at 6, who is picking her up?", "en"),
    ("The contract was signed by {i} on behalf of the buyer.", "en"),
    ("Forward the minutes to {pl} before noon.", "en"),
    ("ping {lc} about the badge request", "en"),
    ("Write a short bio for {p}, our new data lead.", "en"),
    ("Interview panel: {p} (chair), {p}, {p}.", "en"),
    ("Congratulations {f} on the promotion!", "en"),
    ("Bonjour {f}, le devis est prêt.", "fr"),
    ("Merci {f} pour ton aide hier.", "fr"),
    ("Peux-tu ajouter {p} et {p} au groupe ?", "fr"),
    ("Bien à vous,\n{p}\nResponsable achats", "fr"),
    ("Hola {f}, ¿te va bien el jueves?", "es"),
    ("Gracias {f}, ya lo tengo.", "es"),
    ("Invita a {p} y a {p} a la reunión del lunes.", "es"),
    ("Un saludo,\n{p}\nDepartamento de compras", "es"),
]

# PII-free chat: no person anywhere.
CITIES = ["Ljubljana", "Tbilisi", "Valletta", "Bruges", "Cusco", "Hanoi", "Kraków", "Tallinn", "Seville", "Porto Alegre",
          "Montréal", "Salzburg", "Bergen", "Cartagena", "Wellington", "Osaka", "Zanzibar", "Nairobi"]  # fmt: skip
PRODUCTS = ["Kindle Paperwhite", "Nintendo Switch", "Instant Pot", "Steam Deck", "Arduino Uno", "Apple Watch",
            "Roomba", "Fitbit Charge", "GoPro Hero", "Dyson Airwrap"]  # fmt: skip
CHAT_FREE: list[tuple[str, str]] = [
    ("Should I spend three days in {c} or {c}?", "en"),
    ("Is {c} or {c} cheaper in November?", "en"),
    ("What is the best way to get from {c} to {c} by train?", "en"),
    ("Is a {prod} worth it for a student?", "en"),
    ("My {prod} stopped charging, what should I try?", "en"),
    ("How do I reset a {prod} to factory settings?", "en"),
    ("Landlord says the boiler will be fixed next week, is that reasonable?", "en"),
    ("Tenant here: can the deposit be used for last month's rent?", "en"),
    ("Plumber quoted 400 for a new tap, is that fair?", "en"),
    ("Neighbour keeps parking across my drive, what are my options?", "en"),
    ("Manager wants the report by Friday, help me outline it.", "en"),
    ("PRIMARY KEY or UNIQUE index for an email column?", "en"),
    ("Compare {c} et {c} pour un week-end en famille.", "fr"),
    ("Facture reçue hier, elle est correcte ?", "fr"),
    ("Livreur passé ce matin, colis abîmé : que faire ?", "fr"),
    ("Merci, c'est parfait !", "fr"),
    ("¿Es mejor {c} o {c} en primavera?", "es"),
    ("Mira el presupuesto y dime si cuadra.", "es"),
    ("Pasa la factura al departamento de compras.", "es"),
    ("Deja la caja en recepción, por favor.", "es"),
    ("Lleva el portátil al servicio técnico mañana.", "es"),
]
TECH: list[str] = [
    "ERROR 1062 (23000): Duplicate entry '{n}' for key 'PRIMARY'",
    "ERROR 1451 (23000): Cannot delete or update a parent row: a FOREIGN KEY constraint fails (`shop`.`order_lines`)",
    "InnoDB: page_cleaner: 1000ms intended loop took {n}ms. The settings might not be optimal.",
    "ALTER TABLE invoices ADD CONSTRAINT fk_customer FOREIGN KEY (customer_id) REFERENCES customers(id) ON DELETE CASCADE;",
    "final class SessionStore implements Serializable {{ private static final long serialVersionUID = {n}L; }}",
    "class BillingService(private val repo: InvoiceRepo) : Closeable {{ override fun close() = repo.close() }}",
    "struct Ledger: Codable {{ let id: UUID; var balance: Decimal }}\nimport Foundation",
    "type Server struct {{ Addr string; Timeout time.Duration }}",
    'impl Display for Token {{ fn fmt(&self, f: &mut Formatter) -> Result {{ write!(f, "{{}}", self.0) }} }}',
    "interface Props {{ title: string; onClose: () => void }}\nexport default function Modal(props: Props) {{}}",
    "except TimeoutError:\n    raise Retry from None",
    "Filesystem      Size  Used Avail Use% Mounted on\n/dev/nvme0n1p2  {n}G  212G  {n}G  46% /",
    "              total        used        free      shared  buff/cache   available\nMem:           31Gi        12Gi       4.1Gi       1.2Gi        15Gi        17Gi",
    "top - 09:41:{s} up 12 days,  3:07,  2 users,  load average: 0.42, 0.51, 0.48\nTasks: 312 total,   1 running, 311 sleeping",
    "Dec 02 09:14:{s} web-1 systemd[1]: Started Daily apt upgrade and clean activities.",
    "*/15 * * * * /usr/local/bin/backup.sh --target s3://backups-{h}/nightly >> /var/log/backup.log 2>&1",
    "- name: Set up Python\n  uses: actions/setup-python@v5\n  with:\n    python-version: '3.11'",
    'query {{ order(id: "{h}") {{ status total lineItems {{ sku quantity }} }} }}',
    "[database]\nhost = db.internal\nport = 5432\npool_size = {s}\n[cache]\nttl_seconds = 300",
    '  # aws_s3_bucket.logs will be created\n  + resource "aws_s3_bucket" "logs" {{\n      + bucket = "logs-{h}"\n    }}',
    "found {s} vulnerabilities ({s} moderate, 1 high)\n  run `npm audit fix` to fix them",
    "Lighthouse: Performance {s}, Accessibility 98, Best Practices 100, SEO 92 (Moto G Power, Slow 4G)",
    "WARN  [HikariPool-1] Connection is not available, request timed out after {n}ms (total=20, active=20, idle=0)",
    "Build #{n} FAILED in 4m 12s: Gradle task :app:compileReleaseKotlin (exit 1)",
    "CPU 87%, RAM 6.2 GB of 8 GB, Disk IO 140 MB/s, NET 12 Mbps (node pool GPU, zone B)",
]


def _pick(rng: random.Random, pool: list[str]) -> str:
    return pool[rng.randrange(len(pool))]


def _name(rng: random.Random, kind: str) -> str:
    first, last = NAMES[_pick(rng, sorted(NAMES))]
    f, sur = _pick(rng, first), _pick(rng, last)
    if kind == "f":
        return f
    if kind == "l":
        return sur
    if kind == "i":
        return f"{f[0]}. {sur}"
    if kind == "pl":
        part = _pick(rng, PARTICLES)
        return f"{f} {part}{sur}" if part.endswith(("-", "'")) or part == "Mac" else f"{f} {part} {sur}"
    if kind == "lc":
        return f"{f} {sur}".lower()
    return f"{f} {sur}"


def _fill(rng: random.Random, template: str) -> tuple[str, list[dict[str, object]]]:
    out, entities, i = [], [], 0
    pos = 0
    while i < len(template):
        j = template.find("{", i)
        if j < 0:
            out.append(template[i:])
            break
        k = template.index("}", j)
        out.append(template[i:j])
        pos = sum(len(x) for x in out)
        value = _name(rng, template[j + 1 : k])
        entities.append({"type": "PERSON", "start": pos, "end": pos + len(value), "value": value})
        out.append(value)
        i = k + 1
    return "".join(out), entities


def generate() -> dict[str, list[dict[str, object]]]:
    """The two files' records, by file name."""
    rng = random.Random(SEED)
    names: list[dict[str, object]] = []
    for rep in range(6):
        for ti, (template, lang) in enumerate(NAME_TEMPLATES):
            text, entities = _fill(rng, template)
            names.append({"id": f"n6-{ti:02d}-{rep}", "lang": lang, "text": text, "entities": entities})
    free: list[dict[str, object]] = []
    for rep in range(5):
        for ti, (template, lang) in enumerate(CHAT_FREE):
            text = template
            while "{c}" in text:
                text = text.replace("{c}", _pick(rng, CITIES), 1)
            text = text.replace("{prod}", _pick(rng, PRODUCTS))
            free.append({"id": f"f6-chat-{ti:02d}-{rep}", "lang": lang, "text": text, "entities": []})
        for ti, template in enumerate(TECH):
            text = template.format(
                n=rng.randrange(1000, 999_999), s=rng.randrange(10, 59), h=f"{rng.getrandbits(32):08x}"
            )
            free.append({"id": f"f6-tech-{ti:02d}-{rep}", "lang": "en", "text": text, "entities": []})
    return {"names_round6.jsonl": names, "pii_free_round6.jsonl": free}


def main() -> None:
    for name, records in generate().items():
        with (HERE / "tuning" / name).open("w", encoding="utf-8") as fh:
            for record in records:
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        print(f"{name}: {len(records)} records")


if __name__ == "__main__":
    main()
