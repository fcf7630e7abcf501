"""Generate labelled chat-style samples for the redactor's evaluation.

Deterministic (seed 20261129 unless --seed): the same command always writes
the same file. Each JSONL line is
``{"id": "s0001", "text": "...", "entities": [{"type", "start", "end", "value"}]}``
with code point offsets.

The values are realistic rather than convenient: phone numbers in the usual
national and international layouts of several countries, Luhn-valid card
numbers (Visa, Mastercard, Amex) with spaces, dashes or none, IBANs with
valid check digits, compact or grouped, street addresses in US, UK and German
styles, names from many cultures (some as a first name only, some in lower
case as people type in chat). The templates were written as chat messages a
user sends to an assistant, not from the detector's patterns.

Usage: ``python services/redactor/eval/generate.py [--set main|heldout] [--n 420] [--seed S] [--out PATH]``
"""

from __future__ import annotations

import argparse
import json
import random
import re
import string
from pathlib import Path

FIRST = [
    "James",
    "Mary",
    "Robert",
    "Patricia",
    "Michael",
    "Jennifer",
    "David",
    "Linda",
    "Priya",
    "Arjun",
    "Wei",
    "Mei",
    "Hiroshi",
    "Yuki",
    "Mohammed",
    "Fatima",
    "Omar",
    "Aisha",
    "Carlos",
    "Sofia",
    "Mateo",
    "Lucia",
    "Hans",
    "Greta",
    "Lukas",
    "Anna",
    "Pierre",
    "Camille",
    "Giulia",
    "Marco",
    "Olga",
    "Dmitri",
    "Sean",
    "Siobhan",
    "Kwame",
    "Amara",
    "Chloe",
    "Ethan",
    "Noah",
    "Emma",
    "Oliver",
    "Ava",
    "Lars",
    "Ingrid",
    "Thabo",
    "Zanele",
    "Rafael",
    "Beatriz",
    "Ahmed",
    "Leila",
]
LAST = [
    "Smith",
    "Johnson",
    "Williams",
    "Brown",
    "Garcia",
    "Miller",
    "Davis",
    "Martinez",
    "Patel",
    "Sharma",
    "Chen",
    "Wang",
    "Tanaka",
    "Suzuki",
    "Hassan",
    "Khan",
    "Rossi",
    "Bianchi",
    "Müller",
    "Schmidt",
    "Schneider",
    "Dubois",
    "Moreau",
    "Kowalski",
    "Nowak",
    "Ivanova",
    "O'Brien",
    "Murphy",
    "Mensah",
    "Okafor",
    "Andersson",
    "Johansson",
    "Nguyen",
    "Kim",
    "Park",
    "Fernandez",
    "Lopez",
    "Gonzalez",
    "Silva",
    "Santos",
    "Taylor",
    "Wilson",
    "Anderson",
    "Thomas",
    "Moore",
    "Jackson",
    "White",
    "Harris",
    "Clark",
    "Lewis",
]
DOMAINS = [
    "gmail.com",
    "yahoo.com",
    "outlook.com",
    "example.com",
    "acme-corp.io",
    "protonmail.com",
    "uni-heidelberg.de",
    "company.co.uk",
    "mail.fr",
    "hotmail.com",
]
US_AREA = ["212", "415", "646", "312", "617", "206", "303", "512", "305", "702", "404", "213"]
US_STREETS = [
    "Oak",
    "Maple",
    "Main",
    "Elm",
    "Pine",
    "Cedar",
    "Washington",
    "Lake",
    "Hill",
    "Park",
    "Sunset",
    "Highland",
    "Lincoln",
    "Madison",
]
US_SUFFIX = [
    "Street",
    "St",
    "Avenue",
    "Ave",
    "Road",
    "Rd",
    "Boulevard",
    "Blvd",
    "Lane",
    "Drive",
    "Court",
    "Way",
    "Place",
]
US_CITIES = [
    ("Springfield", "IL", "62704"),
    ("Austin", "TX", "78701"),
    ("Seattle", "WA", "98101"),
    ("Denver", "CO", "80202"),
    ("Boston", "MA", "02108"),
    ("Portland", "OR", "97201"),
    ("Miami", "FL", "33101"),
]
UK_STREETS = [
    "Station Road",
    "High Street",
    "Church Lane",
    "Victoria Road",
    "Green Lane",
    "Manor Road",
    "Park Avenue",
    "Queens Road",
    "Baker Street",
    "King Street",
]
UK_CITIES = [
    ("London", "SW1A 2AA"),
    ("Manchester", "M1 1AE"),
    ("Leeds", "LS1 4AP"),
    ("Bristol", "BS1 5TR"),
    ("Edinburgh", "EH1 1YZ"),
    ("Cardiff", "CF10 1EP"),
]
DE_STREETS = [
    "Hauptstraße",
    "Bahnhofstraße",
    "Gartenweg",
    "Schillerstraße",
    "Lindenallee",
    "Goethestraße",
    "Marktplatz",
    "Kirchgasse",
]
DE_CITIES = [
    ("10115", "Berlin"),
    ("80331", "München"),
    ("50667", "Köln"),
    ("20095", "Hamburg"),
    ("60311", "Frankfurt"),
]


def luhn_complete(prefix_digits: str, length: int, rng: random.Random) -> str:
    """A Luhn-valid number of ``length`` digits starting with ``prefix_digits``."""
    body = prefix_digits + "".join(rng.choice(string.digits) for _ in range(length - len(prefix_digits) - 1))
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return body + str((10 - total % 10) % 10)


def credit_card(rng: random.Random) -> str:
    kind = rng.choice(["visa", "visa", "mc", "amex"])
    if kind == "amex":
        n = luhn_complete(rng.choice(["34", "37"]), 15, rng)
        groups = [n[:4], n[4:10], n[10:]]
    else:
        n = luhn_complete("4" if kind == "visa" else str(rng.randint(51, 55)), 16, rng)
        groups = [n[i : i + 4] for i in range(0, 16, 4)]
    sep = rng.choice([" ", " ", "-", ""])
    return sep.join(groups)


IBAN_COUNTRIES = ["DE", "GB", "FR", "ES", "NL", "IT"]


def iban(rng: random.Random) -> str:
    country = rng.choice(IBAN_COUNTRIES)
    digits = lambda k: "".join(rng.choice(string.digits) for _ in range(k))  # noqa: E731
    letters = lambda k: "".join(rng.choice(string.ascii_uppercase) for _ in range(k))  # noqa: E731
    bban = {
        "DE": lambda: digits(18),
        "GB": lambda: letters(4) + digits(14),
        "FR": lambda: digits(23),
        "ES": lambda: digits(20),
        "NL": lambda: letters(4) + digits(10),
        "IT": lambda: letters(1) + digits(10) + letters(1) + digits(11),
    }[country]()
    rearranged = bban + country + "00"
    numeric = "".join(str(int(c, 36)) for c in rearranged)
    check = 98 - int(numeric) % 97
    code = f"{country}{check:02d}{bban}"
    if rng.random() < 0.6:
        return " ".join(code[i : i + 4] for i in range(0, len(code), 4))
    return code


def phone(rng: random.Random) -> str:
    style = rng.choice(["us1", "us2", "us3", "us4", "uk1", "uk2", "de", "in", "fr"])
    d = lambda k: "".join(rng.choice(string.digits) for _ in range(k))  # noqa: E731
    if style.startswith("us"):
        area, exch, line = rng.choice(US_AREA), str(rng.randint(200, 989)), d(4)
        return {
            "us1": f"({area}) {exch}-{line}",
            "us2": f"{area}-{exch}-{line}",
            "us3": f"+1 {area} {exch} {line}",
            "us4": f"{area}.{exch}.{line}",
        }[style]
    if style == "uk1":
        return f"+44 20 7{d(3)} {d(4)}"
    if style == "uk2":
        return f"07{rng.randint(400, 999)} {d(6)}"
    if style == "de":
        return f"+49 {rng.choice(['30', '89', '40', '221'])} {d(7)}"
    if style == "in":
        return f"+91 {rng.randint(70, 99)}{d(3)} {d(5)}"
    return f"+33 6 {d(2)} {d(2)} {d(2)} {d(2)}"


def person(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.15:
        return rng.choice(FIRST)
    name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
    if r > 0.95:
        return name.lower()
    return name


def email(rng: random.Random, name: str | None = None) -> str:
    first, last = (
        (name.split(" ", 1) + [rng.choice(LAST)])[:2] if name else (rng.choice(FIRST), rng.choice(LAST))
    )
    first = re.sub(r"[^a-z]", "", first.lower().replace("ü", "ue")) or "user"
    last = re.sub(r"[^a-z]", "", last.lower().replace("ü", "ue")) or "name"
    local = rng.choice(
        [f"{first}.{last}", f"{first[0]}{last}", f"{first}{rng.randint(1, 99)}", f"{first}_{last}"]
    )
    return f"{local}@{rng.choice(DOMAINS)}"


def address(rng: random.Random) -> str:
    style = rng.choice(["us", "us", "uk", "de"])
    if style == "us":
        street = f"{rng.randint(1, 9999)} {rng.choice(US_STREETS)} {rng.choice(US_SUFFIX)}"
        if rng.random() < 0.3:
            street += f", Apt {rng.randint(1, 40)}{rng.choice('ABCD')}"
        if rng.random() < 0.6:
            city, st, zipc = rng.choice(US_CITIES)
            street += f", {city}, {st} {zipc}"
        return street
    if style == "uk":
        street = f"{rng.randint(1, 250)} {rng.choice(UK_STREETS)}"
        if rng.random() < 0.6:
            city, pc = rng.choice(UK_CITIES)
            street += f", {city} {pc}"
        return street
    street = f"{rng.choice(DE_STREETS)} {rng.randint(1, 120)}"
    if rng.random() < 0.6:
        pc, city = rng.choice(DE_CITIES)
        street += f", {pc} {city}"
    return street


# Templates: {P} person, {P2} second person, {E} email, {PH} phone, {CC} card,
# {IB} IBAN, {A} address. A template may use the same slot twice.
TEMPLATES = [
    "Hi, I'm {P}. Can you draft a short email to my landlord about the broken heater?",
    "Please write a polite reminder to {P} that the invoice is overdue.",
    "My colleague {P} ({E}) will join the call tomorrow, can you add them to the invite text?",
    "Summarise this: From: {P} <{E}> Subject: Q3 numbers. Hi team, numbers attached.",
    "can u send the report to {E} thx",
    "Call me back on {PH} after 5pm please.",
    "My number changed, it's now {PH}. Update the contact card for {P}.",
    "The customer {P} called from {PH} complaining about a double charge.",
    "Please update the billing card to {CC}, expiry 09/27.",
    "I was charged twice on my card {CC}, help me write a dispute letter.",
    "Here is the card for the hotel booking: {CC} (name on card: {P})",
    "Transfer 250 EUR to IBAN {IB}, beneficiary {P}.",
    "My IBAN is {IB} — can you format a payment request for rent?",
    "Write a rental application cover letter. I live at {A}.",
    "Ship the replacement part to {A}, attention {P}.",
    "Our new office is at {A}. Draft an announcement for the team.",
    "{P} and {P2} are organising the offsite; write a welcome note from both of them.",
    "Translate to German: Dear {P}, thank you for your order. We will deliver to {A}.",
    "Contact details for the contract: {P}, {E}, {PH}, {A}.",
    "Fix the grammar: me and {P} was going to the store yesterday when {P2} called.",
    '{"recipient": "{E}", "name": "{P}", "phone": "{PH}"}',
    "Log entry: user {E} failed to pay with card {CC} at 14:02.",
    "Please check whether IBAN {IB} belongs to {P} or to {P2}.",
    "thanks {P}! also pls ping {P2} about the deadline",
    "Can you explain compound interest with a simple example?",
    "What is the capital of Australia and why isn't it Sydney?",
    "Rewrite this paragraph in a friendlier tone: The meeting is moved to Thursday 3pm in room 4.",
    "Generate 5 names for a coffee shop near the river.",
    "Order #48213 shipped on 2024-05-03 with 3 items totalling 129.90 USD.",
    "Remind me: standup at 9:30, review PR 1142, then lunch.",
]


# Held-out templates, written before any detector tuning and never used to
# tune it: evaluate with --set heldout to see how far the tuning generalises.
HELDOUT_TEMPLATES = [
    "Good morning! {P} here, I need help rewording my resignation letter.",
    "Could you book a table for two under the name {P} and text the confirmation to {PH}?",
    "Forward the minutes to {E} and {P2}, they missed the meeting.",
    "Refund request: order paid with {CC}, customer {P}, contact {E}.",
    "Wire the deposit (IBAN {IB}) before Friday, my accountant {P} will confirm.",
    "We moved! New address: {A}. Please update your records, love {P}.",
    "Is it rude to ask {P} for the money back? We agreed last month.",
    "Please translate 'my phone number is {PH}' into Spanish.",
    "Draft a LinkedIn recommendation for {P}, who worked with me for three years.",
    "Parcel for {P}, {A}, tel. {PH}",
    "How do I convert a CSV file to JSON in Python?",
    "List three pros and cons of remote work.",
]


def fill(template: str, rng: random.Random) -> tuple[str, list[dict]]:
    p1 = person(rng)
    p2 = person(rng)
    while p2 == p1:
        p2 = person(rng)
    values = {
        "{P}": ("PERSON", p1),
        "{P2}": ("PERSON", p2),
        "{E}": ("EMAIL_ADDRESS", email(rng, p1)),
        "{PH}": ("PHONE_NUMBER", phone(rng)),
        "{CC}": ("CREDIT_CARD", credit_card(rng)),
        "{IB}": ("IBAN_CODE", iban(rng)),
        "{A}": ("STREET_ADDRESS", address(rng)),
    }
    out: list[str] = []
    entities: list[dict] = []
    pos = 0
    pattern = re.compile(r"\{P2\}|\{PH\}|\{P\}|\{E\}|\{CC\}|\{IB\}|\{A\}")
    length = 0
    for m in pattern.finditer(template):
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


def generate(n: int, seed: int, templates: list[str] = TEMPLATES) -> list[dict]:
    """``n`` samples; template i % len(templates) so every template is used evenly."""
    rng = random.Random(seed)
    samples = []
    for i in range(n):
        text, entities = fill(templates[i % len(templates)], rng)
        samples.append({"id": f"s{i + 1:04d}", "text": text, "entities": entities})
    return samples


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=420)
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--set", choices=["main", "heldout"], default="main")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    if args.out is None:
        args.out = Path(__file__).with_name("samples.jsonl" if args.set == "main" else "heldout.jsonl")
    templates = TEMPLATES if args.set == "main" else HELDOUT_TEMPLATES
    samples = generate(args.n, args.seed if args.set == "main" else args.seed + 1, templates)
    with args.out.open("w", encoding="utf-8") as fh:
        for s in samples:
            fh.write(json.dumps(s, ensure_ascii=False) + "\n")
    counts: dict[str, int] = {}
    for s in samples:
        for e in s["entities"]:
            counts[e["type"]] = counts.get(e["type"], 0) + 1
    print(f"wrote {len(samples)} samples to {args.out}: {dict(sorted(counts.items()))}")


if __name__ == "__main__":
    main()
