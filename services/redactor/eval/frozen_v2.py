"""The FROZEN held-out evaluation set **v2** (issue 11, second round).

Written and committed before any recognizer of this round changed, and never
used while tuning. The v1 frozen set (``frozen.py``, ``eval/frozen/``) is
*spent*: its results were known while round 2 was tuned, so it now counts as
tuning material.

Self-contained on purpose: imports nothing from ``generate.py``, ``tuning.py``
or ``frozen.py``, so growing the tuning set can never change these files. Its
templates and its value pools (names, e-mail domains, phone layouts and
national prefixes, streets, IBAN countries' values) are new; a unit test
(``tests/unit/test_eval_frozen.py``) checks the name and domain pools are
disjoint from every other generator's, that ``eval/frozen_v2/SHA256SUMS``
pins the committed files, and that this script reproduces them byte for byte.

Rules for whoever tunes the detector: ``evaluate.py --frozen`` reports on
these files; ``evaluate.py`` refuses ``--misses`` on them, so no individual
miss or false positive is read and fixed.

Files (JSONL, ``{"id", "lang", "text", "entities": [{"type", "start", "end",
"value"}]}``, code point offsets) in ``eval/frozen_v2/``:

- ``heldout-en.jsonl`` (300), ``heldout-fr.jsonl`` (150): the supported
  languages; ``heldout-es.jsonl`` (90): Spanish, an unsupported language
  (``patterns_only`` by default), for the pattern types.
- ``pii_free.jsonl`` (400): technical text with no personal data (ids,
  hashes, code, logs, timestamps, URLs, versions, config, product names in
  prose): any detection is a false positive.

Phone numbers are real numbering-plan layouts (assigned US/Canadian area
codes, UK/IE/NZ/ZA/SG/IN mobile and geographic prefixes, French, Belgian,
Swiss, Spanish, Mexican and Argentine layouts), not random digits: a number
no numbering plan issues is no phone number.

Usage: ``python services/redactor/eval/frozen_v2.py [--out DIR]`` (seed 260412).
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

SEED = 260412

NAMES = {
    "en": {
        "first": (
            "Priscilla Malcolm Yolanda Bartholomew Genevieve Thaddeus Ophelia Leopold Marisol "
            "Cornelius Henrietta Ezekiel Lavinia Percival Rosamund Augustin Delphine Fitzgerald "
            "Serafina Ignatius Wilhelmina Montgomery Philippa Reginald Chidinma Anantha Soo-jin "
            "Bogdan Kaveh Niamh"
        ).split(),
        "last": (
            "Abernathy Ferreira Okonkwo Stroud Castellano Nwosu Brannigan Kaminski Eriksen "
            "Adeyemi Vasquez Thornbury Osterberg Mahlangu Takahashi Pemberton Kowalczyk Obi "
            "Lundgren Rahman Sorensen Achterberg Ogunleye Haverford Venkataraman Fitzpatrick "
            "Dubrovsky Hollingsworth MacAllister Yilmaz"
        ).split(),
    },
    "fr": {
        "first": (
            "Bérénice Gaspard Solène Timothée Margaux Baptiste Ambre Quentin Anaïs Florian Salomé "
            "Romain Justine Adrien Apolline Valentin Capucine Étienne Héloïse Corentin Maëlys Loïc"
        ).split(),
        "last": (
            "Vasseur Lemaire Marchand Carpentier Guillot Renaud Charpentier Barbier Collin Brunet "
            "Gauthier Picard Masson Leclerc Huet Roche Fabre Meunier Lacroix Aubert Benoît Tessier"
        ).split(),
    },
    "es": {
        "first": (
            "Ainhoa Gonzalo Itziar Rodrigo Macarena Fernando Ximena Tomás Inmaculada Ramiro Begoña "
            "Esteban Remedios Joaquín Araceli Borja"
        ).split(),
        "last": (
            "Etxeberria Pastor Cabrera Vidal Soler Gil Crespo Prieto Bravo Fuentes Sanz Calvo "
            "Lorenzo Cano Rubio Márquez"
        ).split(),
    },
}
DOMAINS = {
    "en": ["icloud.com", "aol.com", "contoso.onmicrosoft.com", "it.fabrikam.local", "students.uwa.edu.au"],
    "fr": ["laposte.net", "sfr.fr", "free.fr", "wanadoo.fr", "mairie-annecy.fr"],
    "es": ["yahoo.es", "movistar.es", "ono.com", "ayto-bilbao.eus"],
}


def person(rng: random.Random, lang: str) -> str:
    """A first name alone (10 %) or first + last name, from ``lang``'s v2 pool."""
    pool = NAMES[lang]
    first, last = rng.choice(pool["first"]), rng.choice(pool["last"])
    return first if rng.random() < 0.1 else f"{first} {last}"


_FOLD = str.maketrans("éèêëàâçîïôöùûüñáíóúäß", "eeeeaaciioouuunaiouas")


def email(rng: random.Random, name: str, lang: str) -> str:
    """An address built from ``name`` on one of ``lang``'s v2 domains."""
    parts = re.findall(r"[a-z]+", name.lower().translate(_FOLD)) or ["info"]
    first, last = parts[0], parts[-1]
    local = rng.choice(
        [
            f"{first}.{last}",
            f"{first[0]}{last}",
            f"{first}_{last}{rng.randint(1, 99)}",
            f"{first}+{rng.choice(['news', 'billing', 'travel'])}",
            f"{first.capitalize()}.{last.capitalize()}",
            f"{last}.{first[0]}",
        ]
    )
    return f"{local}@{rng.choice(DOMAINS[lang])}"


def _digits(rng: random.Random, k: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(k))


_US_AREAS = ["480", "520", "602", "704", "612", "813", "614", "919", "971", "385", "608", "317", "604", "416"]


def _exchange(rng: random.Random) -> str:
    while True:
        x = rng.randint(201, 989)
        if x % 100 != 11 and x != 555:
            return str(x)


def phone(rng: random.Random, lang: str) -> str:
    """A phone number in one of ``lang``'s v2 layouts (real numbering-plan prefixes)."""
    d = lambda k: _digits(rng, k)  # noqa: E731
    area = lambda: rng.choice(_US_AREAS)  # noqa: E731
    layouts = {
        "en": [
            lambda: f"{area()}.{_exchange(rng)}.{d(4)}",
            lambda: f"({area()}) {_exchange(rng)} {d(4)}",
            lambda: f"+1-{area()}-{_exchange(rng)}-{d(4)}",
            lambda: f"{area()}-{_exchange(rng)}-{d(4)}",
            lambda: f"+44 (0)20 7{d(3)} {d(4)}",
            lambda: f"0117 {rng.choice('2349')}{d(2)} {d(4)}",
            lambda: f"07{rng.randint(700, 799)} {d(3)} {d(3)}",
            lambda: f"+353 8{rng.choice('5679')} {d(3)} {d(4)}",
            lambda: f"+64 21 {d(3)} {d(4)}",
            lambda: f"+27 8{rng.choice('234')} {d(3)} {d(4)}",
            lambda: f"+65 9{rng.randint(0, 8)}{d(2)} {d(4)}",
            lambda: f"+91 9{d(4)} {d(5)}",
        ],
        "fr": [
            lambda: f"+33 (0)6 {rng.randint(0, 8)}{d(1)} {d(2)} {d(2)} {d(2)}",
            lambda: f"06-{rng.randint(0, 8)}{d(1)}-{d(2)}-{d(2)}-{d(2)}",
            lambda: f"0033 7 {rng.randint(3, 9)}{d(1)} {d(2)} {d(2)} {d(2)}",
            lambda: f"0{rng.choice('12345')}{rng.randint(2, 9)}{d(7)}",
            lambda: f"+336{rng.randint(0, 8)}{d(7)}",
            lambda: f"+32 47{rng.randint(0, 9)} {d(2)} {d(2)} {d(2)}",
            lambda: f"+41 7{rng.choice('6789')} {d(3)} {d(2)} {d(2)}",
        ],
        "es": [
            lambda: f"+34 9{rng.randint(1, 8)}{d(1)} {d(2)} {d(2)} {d(2)}",
            lambda: f"6{d(2)}-{d(3)}-{d(3)}",
            lambda: f"(+34) 6{d(2)} {d(3)} {d(3)}",
            lambda: f"0034 6{d(8)}",
            lambda: f"+52 55 {d(4)} {d(4)}",
            lambda: f"+54 9 11 {d(4)}-{d(4)}",
        ],
    }
    return rng.choice(layouts[lang])()


def _luhn(body: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(body)):
        n = int(ch) * (2 if i % 2 == 0 else 1)
        total += n - 9 if n > 9 else n
    return body + str((10 - total % 10) % 10)


# (prefix generator, lengths): payment networks' issuer ranges (ISO/IEC 7812 IINs)
_CARD_RANGES = [
    (lambda r: "4", [16, 16, 13, 19]),  # Visa
    (lambda r: str(r.randint(51, 55)), [16]),  # Mastercard 5-series
    (lambda r: str(r.randint(2221, 2720)), [16]),  # Mastercard 2-series
    (lambda r: r.choice(["34", "37"]), [15]),  # Amex
    (lambda r: r.choice(["6011", "65", str(r.randint(644, 649))]), [16]),  # Discover
    (lambda r: str(r.randint(3528, 3589)), [16]),  # JCB
    (lambda r: "62", [16, 19]),  # UnionPay
    (lambda r: r.choice(["6759", "6763", "5018"]), [16, 19]),  # Maestro
    (lambda r: r.choice(["36", "38"]), [14]),  # Diners Club
]


def card(rng: random.Random) -> str:
    """A Luhn-valid card number of a real issuer range, grouped as printed on the card."""
    prefix_of, lengths = rng.choice(_CARD_RANGES)
    prefix = prefix_of(rng)
    length = rng.choice(lengths)
    number = _luhn(prefix + _digits(rng, length - len(prefix) - 1))
    sep = rng.choice([" ", " ", "-", "", "\u00a0"])
    if length in (14, 15):
        groups = [number[:4], number[4:10], number[10:]]
    else:
        groups = [number[i : i + 4] for i in range(0, length, 4)]
    return sep.join(groups)


_IBAN_BBAN = {
    "LU": lambda d, a: d(16),
    "DK": lambda d, a: d(14),
    "FI": lambda d, a: d(14),
    "SE": lambda d, a: d(20),
    "HR": lambda d, a: d(17),
    "CZ": lambda d, a: d(20),
    "GR": lambda d, a: d(23),
    "RO": lambda d, a: a(4) + d(16),
    "FR": lambda d, a: d(10) + a(1) + d(10) + d(2),
    "ES": lambda d, a: d(20),
    "BE": lambda d, a: d(12),
}


def iban(rng: random.Random, countries: list[str]) -> str:
    """A check-digit-valid IBAN of one of ``countries``, grouped by 4 or compact."""
    country = rng.choice(countries)
    d = lambda k: _digits(rng, k)  # noqa: E731
    a = lambda k: "".join(rng.choice(string.ascii_uppercase) for _ in range(k))  # noqa: E731
    bban = _IBAN_BBAN[country](d, a)
    numeric = "".join(str(int(c, 36)) for c in bban + country + "00")
    code = f"{country}{98 - int(numeric) % 97:02d}{bban}"
    return " ".join(code[i : i + 4] for i in range(0, len(code), 4)) if rng.random() < 0.6 else code


def address(rng: random.Random, lang: str) -> str:
    """A street address in ``lang``'s usual layout, from the v2 street pools."""
    if lang == "fr":
        street = rng.choice(
            [
                "chemin des Vignes",
                "allée des Tilleuls",
                "quai de la Fosse",
                "cours Mirabeau",
                "impasse Berthollet",
            ]
        )
        out = f"{rng.randint(1, 240)}{rng.choice(['', '', ' ter'])} {street}"
        if rng.random() < 0.7:
            out += f", {rng.choice(['44000 Nantes', '13100 Aix-en-Provence', '74000 Annecy', '67000 Strasbourg'])}"
        return out
    if lang == "es":
        street = rng.choice(
            [
                "Calle de Toledo",
                "Avenida Diagonal",
                "Ronda de Segovia",
                "Paseo de la Castellana",
                "Calle Larios",
            ]
        )
        out = f"{street} {rng.randint(1, 400)}{rng.choice(['', ', 2º B', ', 4º izq.'])}"
        if rng.random() < 0.7:
            out += f", {rng.choice(['29005 Málaga', '48001 Bilbao', '50001 Zaragoza', '28045 Madrid'])}"
        return out
    style = rng.random()
    if style < 0.5:
        out = f"{rng.randint(10, 9899)} {rng.choice(['Juniper', 'Sycamore', 'Cottonwood', 'Magnolia', 'Aspen'])} {rng.choice(['Street', 'Avenue', 'Drive', 'Boulevard', 'Court'])}"
        if rng.random() < 0.3:
            out += f", Suite {rng.randint(100, 990)}"
        if rng.random() < 0.7:
            out += rng.choice([", Tucson, AZ 85701", ", Raleigh, NC 27601", ", Madison, WI 53703"])
        return out
    out = f"{rng.randint(1, 180)} {rng.choice(['Wexford', 'Ashdown', 'Pembroke', 'Thistle', 'Laurel'])} {rng.choice(['Road', 'Gardens', 'Close', 'Street', 'Crescent'])}"
    if rng.random() < 0.7:
        out += rng.choice([", Bristol BS8 1TH", ", Norwich NR2 4PD", ", Belfast BT7 1NN"])
    return out


TEMPLATES = {
    "en": [
        "Can you turn these notes into a memo? Attendees: {P}, {P2} and me.",
        "{P} will cover my shifts next week, reach them on {PH} if anything breaks.",
        "Proofread this signature block:\n{P}\nSenior Analyst\n{PH} | {E}",
        "Refund it to my card {CC}, not to store credit.",
        "Landlord's bank details for the deposit: {IB} ({P}).",
        "Ship the replacement part to {A} and email tracking to {E}.",
        "I met {P} at the conference; write a short follow-up thanking them for the intro to {P2}.",
        "Format as CSV: name={P}; phone={PH}; email={E}",
        "Why does my payment with {CC} keep failing on your checkout page?",
        "hey, forward the minutes to {E} when you get a sec",
        "We're moving! New address from March: {A}. Write a friendly announcement.",
        "Translate to Spanish: 'Please contact {P} at {PH} for the keys.'",
        "Give me a packing list for a three-day conference in Toronto.",
        "How do I undo the last commit in git without losing my changes?",
        "Rewrite more formally: tell {P} the quote expires Friday.",
    ],
    "fr": [
        "Peux-tu rédiger un courriel de relance pour {P} au sujet du devis ?",
        "Mes coordonnées ont changé : {PH}, {E}.",
        "Le remboursement doit être fait sur le compte {IB}, au nom de {P}.",
        "Corrige les fautes : « {P} et {P2} vous invitent à leur mariage. »",
        "Livraison prévue au {A}, merci de prévenir {P} la veille.",
        "Ma carte {CC} a expiré, comment la mettre à jour sur le site ?",
        "Transmets le compte rendu à {E} et à {P2}.",
        "En cas d'absence, contactez {P} au {PH}.",
        "Quels documents faut-il pour renouveler un passeport ?",
        "Propose un menu de fête sans gluten pour huit personnes.",
    ],
    "es": [
        "Necesito que redactes un recordatorio para {P} sobre la factura pendiente.",
        "Mis nuevos datos: teléfono {PH}, correo {E}.",
        "Haz la devolución a la cuenta {IB}, titular {P}.",
        "¿Por qué me cobraron dos veces en la tarjeta {CC}?",
        "La mudanza es a {A}; avisa a {P2} por favor.",
        "Si no estoy, que llamen a {P} al {PH}.",
        "¿Qué es mejor para aprender a programar, Python o JavaScript?",
        "Escribe un brindis corto para una boda.",
    ],
}
_IBAN_COUNTRIES = {
    "en": ["LU", "DK", "FI", "SE", "HR", "CZ", "GR", "RO"],
    "fr": ["FR", "BE", "LU"],
    "es": ["ES"],
}
_SLOTS = re.compile(r"\{P2\}|\{PH\}|\{P\}|\{E\}|\{CC\}|\{IB\}|\{A\}")


def fill(template: str, rng: random.Random, lang: str) -> tuple[str, list[dict]]:
    """``template`` with its slots filled and the gold entities (code point offsets)."""
    p1 = person(rng, lang)
    p2 = person(rng, lang)
    while p2.split()[0] == p1.split()[0]:
        p2 = person(rng, lang)
    values = {
        "{P}": ("PERSON", p1),
        "{P2}": ("PERSON", p2),
        "{E}": ("EMAIL_ADDRESS", email(rng, p1, lang)),
        "{PH}": ("PHONE_NUMBER", phone(rng, lang)),
        "{CC}": ("CREDIT_CARD", card(rng)),
        "{IB}": ("IBAN_CODE", iban(rng, _IBAN_COUNTRIES[lang])),
        "{A}": ("STREET_ADDRESS", address(rng, lang)),
    }
    out: list[str] = []
    entities: list[dict] = []
    pos = length = 0
    for m in _SLOTS.finditer(template):
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


def _b64(rng: random.Random, k: int) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits + "-_") for _ in range(k))


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


_DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
_PRODUCTS = [
    "Grafana", "Prometheus", "Terraform", "Jenkins", "Airflow", "Cassandra", "Elasticsearch",
    "Kubernetes", "Nginx", "RabbitMQ", "Celery", "Django", "Webpack", "Gradle", "Ansible",
]  # fmt: skip


def _semver(r: random.Random) -> str:
    return f"{r.randint(0, 12)}.{r.randint(0, 40)}.{r.randint(0, 30)}"


PII_FREE = [
    lambda r: (
        f"{r.choice(_DAYS)}, {r.randint(1, 28):02d} {r.choice(_MONTHS)} {r.randint(2020, 2027)} "
        f"{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d} +0000 "
        f"cron[{r.randint(100, 99999)}]: job {r.choice(['rotate-logs', 'vacuum', 'backup'])} exited {r.randint(0, 2)}"
    ),
    lambda r: (
        f"https://cdn.example.net/assets/{_hex(r, 8)}/bundle.{_hex(r, 10)}.js?v={_semver(r)}&t={r.randint(10**12, 2 * 10**12)}"
    ),
    lambda r: (
        f'"dependencies": {{"react": "^{_semver(r)}", "lodash": "~{_semver(r)}", "zod": "{_semver(r)}"}}'
    ),
    lambda r: (
        f"goroutine {r.randint(1, 9999)} [running]:\nmain.(*Server).handle(0xc000{_hex(r, 6)}, 0x{_hex(r, 4)})\n"
        f"\t/build/server.go:{r.randint(10, 900)} +0x{_hex(r, 3)}"
    ),
    lambda r: (
        f"{r.randint(2020, 2027)}/{r.randint(1, 12):02d}/{r.randint(1, 28):02d} {r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d} "
        f"[error] {r.randint(1000, 99999)}#{r.randint(0, 99)}: *{r.randint(1, 10**7)} upstream timed out (110: Connection timed out) while reading response header"
    ),
    lambda r: (
        f"X-Request-Id: {_uuid(r)}\nX-Trace: {_hex(r, 32)}-{_hex(r, 16)}-01\nContent-Length: {r.randint(0, 10**6)}"
    ),
    lambda r: f"Authorization: Bearer eyJ{_b64(r, 30)}.eyJ{_b64(r, 60)}.{_b64(r, 43)}",
    lambda r: (
        f"arn:aws:lambda:{r.choice(['eu-west-1', 'us-east-2', 'ap-south-1'])}:{r.randint(10**11, 10**12 - 1)}:function:ingest-{_hex(r, 6)}"
    ),
    lambda r: (
        f"s3://data-lake-prod/raw/dt={r.randint(2020, 2027)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}/part-{r.randint(0, 99999):05d}-{_uuid(r)}.parquet"
    ),
    lambda r: (
        f"image: ghcr.io/acme/worker:{_semver(r)}-{_hex(r, 7)}\nreplicas: {r.randint(1, 40)}\nmemory: {r.randint(128, 8192)}Mi"
    ),
    lambda r: (
        f'http_requests_total{{code="{r.choice([200, 404, 503])}",handler="/api/v{r.randint(1, 3)}"}} {r.randint(0, 10**9)} {r.randint(10**12, 2 * 10**12)}'
    ),
    lambda r: (
        f"{r.randint(2020, 2027)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d},{r.randint(0, 9999)}.{_digits(r, 2)},{r.randint(0, 999)},{r.randint(10**5, 10**7)},{r.uniform(0, 1):.4f}"
    ),
    lambda r: (
        f"class {r.choice(['Order', 'Invoice', 'Shipment', 'Ledger'])}{r.choice(['Repository', 'Service', 'Handler'])}(BaseModel):\n"
        f"    max_retries: int = {r.randint(1, 9)}\n    timeout_ms: int = {r.randint(100, 30000)}"
    ),
    lambda r: (
        f"fn checksum(buf: &[u8]) -> u32 {{ buf.iter().fold(0x{_hex(r, 8)}, |a, b| a.wrapping_mul({r.randint(3, 99999)}) ^ *b as u32) }}"
    ),
    lambda r: (
        f"Restart {r.choice(_PRODUCTS)} after upgrading {r.choice(_PRODUCTS)} to {_semver(r)}; see runbook step {r.randint(1, 30)}."
    ),
    lambda r: (
        f"{r.choice(_PRODUCTS)} {_semver(r)} on node-{r.randint(1, 64)} reports {r.randint(0, 999)} pending tasks and {r.randint(1, 99)}% disk."
    ),
    lambda r: (
        f'resource "aws_instance" "web_{r.randint(1, 9)}" {{ ami = "ami-{_hex(r, 17)}" instance_type = "t3.{r.choice(["micro", "large"])}" }}'
    ),
    lambda r: (
        f"wheel: torch-{r.randint(1, 2)}.{r.randint(0, 9)}.{r.randint(0, 3)}+cu{r.randint(110, 128)}-cp3{r.randint(9, 13)}-cp3{r.randint(9, 13)}-linux_x86_64.whl"
    ),
    lambda r: (
        f"Shipment SHP{_digits(r, 9)} left hub {r.choice(['LHR', 'CDG', 'FRA'])}-{r.randint(1, 9)} at {r.randint(0, 23):02d}:{r.randint(0, 59):02d}, ETA {r.randint(1, 28):02d} {r.choice(_MONTHS)}, parcel {r.randint(1, 9)}/{r.randint(9, 12)}."
    ),
    lambda r: (
        f"PR #{r.randint(100, 20000)} by @{r.choice(['dependabot', 'renovate-bot', 'ci-runner'])}: bump {r.choice(['urllib3', 'pydantic', 'tokio'])} from {_semver(r)} to {_semver(r)}"
    ),
    lambda r: (
        f"md5 ({r.choice(['release', 'backup', 'dump'])}.tar.zst) = {_hex(r, 32)}, crc {r.randint(0, 2**32 - 1)}"
    ),
    lambda r: (
        f"TIMESTAMP {r.randint(10**9, 2 * 10**9)}.{_digits(r, 6)} LEVEL WARN gc pause {r.randint(1, 900)}ms heap {r.randint(100, 32000)}MB/{r.randint(32000, 64000)}MB"
    ),
    lambda r: (
        f"SKU {r.choice('ABCDEFGH')}{r.randint(10, 99)}-{_digits(r, 5)}-{r.choice(['XS', 'M', 'XL'])}: {r.randint(0, 500)} in stock, bin {r.randint(1, 40)}-{r.randint(1, 12)}-{r.randint(1, 6)}"
    ),
    lambda r: (
        f"Serial No. {r.choice(string.ascii_uppercase)}{r.choice(string.ascii_uppercase)}{_digits(r, 10)} firmware {r.randint(1, 9)}.{r.randint(0, 99)}.{_digits(r, 4)} build {r.randint(10**7, 10**8)}"
    ),
    lambda r: (
        f"ulimit -n {r.choice([1024, 65535, 1048576])}; sysctl -w net.core.somaxconn={r.randint(128, 65535)}; taskset -c 0-{r.randint(1, 63)} ./bench --iters {r.randint(10**3, 10**7)}"
    ),
    lambda r: (
        f"Deploy window {r.randint(2020, 2027)}-W{r.randint(1, 52):02d}: canary {r.randint(1, 10)}%, then {r.randint(20, 60)}%, rollback if p95 > {r.randint(100, 900)} ms."
    ),
    lambda r: (
        f"SELECT order_id, SUM(amount_cents) FROM payments WHERE created_at > now() - interval '{r.randint(1, 90)} days' GROUP BY 1 HAVING COUNT(*) > {r.randint(2, 50)};"
    ),
    lambda r: (
        f"Decimal({r.randint(0, 10**6)}.{_digits(r, 4)}).quantize(Decimal('0.01')) -> {r.randint(0, 10**6)}.{_digits(r, 2)} EUR"
    ),
    lambda r: f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{_b64(r, 43)} deploy@ci-{r.randint(1, 20)}",
    lambda r: (
        f"Step {r.randint(1, 12)}/{r.randint(12, 20)} : RUN apt-get install -y libpq-dev={r.randint(12, 16)}.{r.randint(0, 9)}-{r.randint(0, 3)}.pgdg{r.randint(20, 24)}04+1"
    ),
]


def _pii_free_chat(lang: str) -> list[str]:
    return [t for t in TEMPLATES[lang] if not _SLOTS.search(t)]


def generate(rng_seed: int = SEED) -> dict[str, list[dict]]:
    """The v2 frozen files' records, keyed by file name."""
    out: dict[str, list[dict]] = {}
    sizes = {"en": 300, "fr": 150, "es": 90}
    for offset, (lang, n) in enumerate(sizes.items()):
        rng = random.Random(rng_seed + offset)
        templates = TEMPLATES[lang]
        records = []
        for i in range(n):
            text, entities = fill(templates[i % len(templates)], rng, lang)
            records.append({"id": f"v2{lang}{i + 1:04d}", "lang": lang, "text": text, "entities": entities})
        out[f"heldout-{lang}.jsonl"] = records
    rng = random.Random(rng_seed + 100)
    out["pii_free.jsonl"] = [
        {"id": f"v2f{i + 1:04d}", "lang": "en", "text": PII_FREE[i % len(PII_FREE)](rng), "entities": []}
        for i in range(400)
    ]
    return out


def render(records: list[dict]) -> bytes:
    """The JSONL bytes of ``records`` (one object a line, UTF-8, no ASCII escaping)."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("frozen_v2"))
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
