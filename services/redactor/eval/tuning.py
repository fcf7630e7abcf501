"""Tuning cases for issue 11: the reported misses and false positives, cards over
every issuer range, French and Spanish chat, and PII-free technical text.

These are the files the recognizers of issue 11 were tuned on (read with
``evaluate.py --misses``); the frozen held-out set (``frozen.py``) has other
templates and values and is only measured. Deterministic (seed 1111).

Files written to ``eval/tuning/`` (same JSONL shape as ``samples.jsonl``,
plus ``lang``): ``cases.jsonl`` (hand-written cases from the issue),
``cards.jsonl``, ``samples-fr.jsonl``, ``samples-es.jsonl``,
``pii_free.jsonl``.

Usage: ``python services/redactor/eval/tuning.py``
"""

from __future__ import annotations

import json
import random
import re
import string
import uuid
from pathlib import Path

OUT = Path(__file__).with_name("tuning")
SEED = 1111

# Hand-written cases: (text, [(type, value), ...]); values are located by search.
CASES: list[tuple[str, list[tuple[str, str]]] | tuple[str, list[tuple[str, str]], str]] = [
    ("New card: 2221 0000 0000 0009, please update billing.", [("CREDIT_CARD", "2221 0000 0000 0009")]),
    ("card 2221000000000009 exp 11/29", [("CREDIT_CARD", "2221000000000009")]),
    ("Visa 19 digits: 4000000000000000006 was declined", [("CREDIT_CARD", "4000000000000000006")]),
    ("UnionPay 6200000000000000000 for the Shanghai office", [("CREDIT_CARD", "6200000000000000000")]),
    ("Maestro 6759 6498 2643 8453 on file", [("CREDIT_CARD", "6759 6498 2643 8453")]),
    ("amex 3782-822463-10005 expires soon", [("CREDIT_CARD", "3782-822463-10005")]),
    ("Discover 6011.1111.1111.1117 (test)", [("CREDIT_CARD", "6011.1111.1111.1117")]),
    ("JCB 3530 1113 3330 0000", [("CREDIT_CARD", "3530 1113 3330 0000")]),
    ("Diners 3056 930902 5904 please", [("CREDIT_CARD", "3056 930902 5904")]),
    ("Maestro 12 digits 501800000009 ok", [("CREDIT_CARD", "501800000009")]),
    ("Your order ORD-2024-000123 has shipped.", []),
    (
        "Reference ORD-2024-000123, call +1 415 555 0134 with questions.",
        [("PHONE_NUMBER", "+1 415 555 0134")],
    ),
    ("Tel. +44 20 7946 0958", [("PHONE_NUMBER", "+44 20 7946 0958")]),
    ("Tel.: 030 1234567 (Mo-Fr)", [("PHONE_NUMBER", "030 1234567")]),
    (
        "Tel. 415-555-0134, Fax 415-555-0135",
        [("PHONE_NUMBER", "415-555-0134"), ("PHONE_NUMBER", "415-555-0135")],
    ),
    ("Upgrade from 3.11.4 to 3.12.0 and pin 2.2.366.", []),
    ("Released 2024-05-03 12:30:45, build 20240503.1230.", []),
    ("request id 3f2b8a1c-9d4e-4f6a-8b7c-1d2e3f4a5b6c failed", []),
    ("GUID 123e4567-e89b-12d3-a456-426614174000 not found", []),
    ("Order #2024-000123-77 was split into two parcels.", []),
    ("Version 10.0.19045.3803 of Windows", []),
    ("meeting on 2024/11/30 at 14:30, room 3.12", []),
    ("Call me on 07911 123456 tomorrow", [("PHONE_NUMBER", "07911 123456")]),
    ("My number is (212) 555-0199.", [("PHONE_NUMBER", "(212) 555-0199")]),
    ("Mon numéro : 06 12 34 56 78", [("PHONE_NUMBER", "06 12 34 56 78")]),
    ("Mi teléfono es +34 612 345 678", [("PHONE_NUMBER", "+34 612 345 678")]),
    ("Tel. and fax are on the letterhead.", []),
    ("Please send the Tel. details to Jane Roe.", [("PERSON", "Jane Roe")]),
    ("Str. and Nr. are abbreviations.", []),
    ("Please ask Mr. Yamada about it.", [("PERSON", "Yamada")]),
    # round 2 (after the first frozen measurement; see docs/redaction-eval.md)
    (
        "Escalate to ops@corp.internal and jane@acme.example today",
        [("EMAIL_ADDRESS", "ops@corp.internal"), ("EMAIL_ADDRESS", "jane@acme.example")],
    ),
    ("Mobile: +61 412 345 678 (Sydney office)", [("PHONE_NUMBER", "+61 412 345 678")]),
    (
        "Llámame al 612 34 56 78 o al 91 123 45 67",
        [("PHONE_NUMBER", "612 34 56 78"), ("PHONE_NUMBER", "91 123 45 67")],
    ),
    ("Chiamami al 347 123 4567 domani", [("PHONE_NUMBER", "347 123 4567")]),
    (
        "Bel me op 06 12345678 of 020 123 4567",
        [("PHONE_NUMBER", "06 12345678"), ("PHONE_NUMBER", "020 123 4567")],
    ),
    # round 3 (v1 frozen set spent and read as tuning material; v2 frozen before these)
    ("flaky test fails on seed 3674819907", []),
    ("The checksum of block 4804216 is 1256754860 (crc32c)", []),
    ("p99 6280.21 ms over 16906793 requests", []),
    ("bitrate 81406 kbps, 4930598 frames", []),
    ("her mobile is 1-449-724-3010, call after six", [("PHONE_NUMBER", "1-449-724-3010")]),
    ("ring +1 (536) 794-8329 on arrival", [("PHONE_NUMBER", "+1 (536) 794-8329")]),
    ("reachable at +44 7674 926734 all week", [("PHONE_NUMBER", "+44 7674 926734")]),
    ("text me at 4155550134 when you land", [("PHONE_NUMBER", "4155550134")]),
    ("Mon portable : 0612345678", [("PHONE_NUMBER", "0612345678")]),
    # round 3, names: first names from the name lists, alone and with unfamiliar surnames
    (
        "Please cc Imogen Farrow and Keisha Mbeki on the reply.",
        [("PERSON", "Imogen Farrow"), ("PERSON", "Keisha Mbeki")],
    ),
    ("Ask for Jasper at the front desk.", [("PERSON", "Jasper")]),
    ("Grace Kelly starred in that film.", [("PERSON", "Grace Kelly")]),
    ("Translate to German: the parcel is late.", []),
    ("Will you check the May invoice before Friday?", []),
    ("Our Paris and Austin offices close early in August.", []),
    ("Restart Cassandra and Jenkins after the Django upgrade.", []),
    ("Grace period ends on Monday; Summer Sale starts in June.", []),
    ("Mark the ticket as done and ping the Release channel.", []),
    ("Quels sont les horaires du Louvre en juillet ?", [], "fr"),
    ("Peux-tu comparer Lyon et Nancy pour un week-end ?", [], "fr"),
    ("Envoie le dossier à Clotilde Lemoine avant midi.", [("PERSON", "Clotilde Lemoine")], "fr"),
    ("¿Qué tiempo hace en Valencia en marzo?", [], "es"),
    ("Recomiéndame libros sobre la historia de Sevilla y Granada.", [], "es"),
    ("Reenvía la factura a Maite Iturbe, por favor.", [("PERSON", "Maite Iturbe")], "es"),
    # round 4 (after the v2 measurement: contaminated, see docs/redaction-eval.md)
    ("Diners card 3852 000002 3237 on file", [("CREDIT_CARD", "3852 000002 3237")]),
    ("Propose un itinéraire de trois jours en Provence.", [], "fr"),
    ("Donne-moi une recette de crêpes sans lait.", [], "fr"),
    ("Propón tres ideas para un cumpleaños infantil.", [], "es"),
    ("Restart Maven after upgrading Kibana; see the runbook.", []),
    ("Vault on node-7 reports 3 sealed shards.", []),
    ("What is the capital of France?", []),  # France, Chad, Georgia: countries that are given names
    ("Compare the weather in Georgia and Texas in May.", []),
    # round 5 (v3 frozen first; these are new cases, none of v3's)
    ("pls ask maria gonzalez to send the deck before noon", [("PERSON", "maria gonzalez")]),
    ("remind james wilson that the car is due for its service", [("PERSON", "james wilson")]),
    ("Best regards,\nHannah Kleinschmidt\nHead of Finance", [("PERSON", "Hannah Kleinschmidt")]),
    ("Cordialement,\nFrançoise Dumont", [("PERSON", "Françoise Dumont")], "fr"),
    ("Un saludo,\nBeatriz Lozano", [("PERSON", "Beatriz Lozano")], "es"),
    ("Chère Madame Lefort, merci pour votre message.", [("PERSON", "Lefort")], "fr"),
    ("Estimada señora Quiroga, le escribo por la factura.", [("PERSON", "Quiroga")], "es"),
    ("Please cc Wanjiru Kamau on the thread.", [("PERSON", "Wanjiru Kamau")]),
    ("Tell Alexa to play the news and ping Cloudflare DNS.", []),
    ("Can you invite Thuy Linh Pham to the kickoff?", [("PERSON", "Thuy Linh")]),
    ("Tell Ask Jeeves it is 1999 again.", []),
    ("Ask Google Assistant to set a timer for ten minutes.", []),
    ("How do I contact Microsoft Support about a billing error?", []),
    ("Is Lisbon or Porto better for a weekend in October?", []),
    ("what's the best way to store basil and mint in the fridge", []),
    ("Explain the difference between Visual Studio and Visual Studio Code.", []),
    ("Peux-tu comparer Marseille et Toulouse pour un week-end ?", [], "fr"),
    ("¿Es mejor Sevilla o Granada para una escapada en marzo?", [], "es"),
    ("The deploy on 14 Oct failed; retry on Nov 3.", []),
    ("retryPolicy = RetryPolicy(max = 3, backoff = 2.0)", []),
    ("class InvoiceMapper(BaseMapper): pass", []),
]

FIRST_FR = ["Camille", "Louis", "Chloé", "Gabriel", "Léa", "Arthur", "Jade", "Raphaël", "Louise", "Jules"]
LAST_FR = ["Martin", "Bernard", "Dubois", "Thomas", "Robert", "Richard", "Petit", "Durand", "Leroy", "Moreau"]
FIRST_ES = ["María", "Hugo", "Sofía", "Martín", "Lucía", "Mateo", "Paula", "Daniel", "Valeria", "Adrián"]
LAST_ES = [
    "García",
    "Rodríguez",
    "González",
    "López",
    "Sánchez",
    "Pérez",
    "Gómez",
    "Díaz",
    "Torres",
    "Ramírez",
]

TEMPLATES_FR = [
    "Bonjour {P}, votre rendez-vous est confirmé pour mardi.",
    "Peux-tu écrire un courriel à {P} ({E}) pour reporter la réunion ?",
    "Appelez-moi au {PH} après 18 heures.",
    "Envoyez le devis à {P}, {A}.",
    "Le virement doit partir sur l'IBAN {IB} au nom de {P}.",
    "Ma carte bancaire {CC} a été volée, que faire ?",
    "Résume ce message de {P} : la livraison est retardée.",
    "Comment fonctionne une pompe à chaleur ?",
]
TEMPLATES_ES = [
    "Buenos días {P}, tu pedido ya está en camino.",
    "Escribe un correo a {P} ({E}) para aplazar la reunión.",
    "Llámame al {PH} por la tarde.",
    "Envía el presupuesto a {P}, {A}.",
    "El pago debe ir a la cuenta {IB} a nombre de {P}.",
    "Me robaron la tarjeta {CC}, ¿qué hago?",
    "Resume el mensaje de {P}: la entrega se retrasa.",
    "¿Cómo funciona una bomba de calor?",
]


def _d(rng: random.Random, k: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(k))


def _luhn(body: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(body)):
        n = int(ch) * (2 if i % 2 == 0 else 1)
        total += n - 9 if n > 9 else n
    return body + str((10 - total % 10) % 10)


def _card(rng: random.Random) -> str:
    prefix, length = rng.choice(
        [("4", 16), ("4", 19), ("4", 13), ("2720", 16), ("2300", 16), ("53", 16), ("62", 19), ("6304", 18),
         ("3566", 16), ("644", 16), ("37", 15), ("36", 14)]
    )  # fmt: skip
    n = _luhn(prefix + _d(rng, length - len(prefix) - 1))
    sep = rng.choice(["", " ", "-", " - ", "."])
    return sep.join(n[i : i + 4] for i in range(0, length, 4))


def _iban(rng: random.Random, country: str) -> str:
    bban = _d(rng, {"FR": 23, "ES": 20}[country])
    numeric = "".join(str(int(c, 36)) for c in bban + country + "00")
    return f"{country}{98 - int(numeric) % 97:02d}{bban}"


def _fill(template: str, values: dict[str, tuple[str, str]]) -> tuple[str, list[dict]]:
    out, entities, pos, length = [], [], 0, 0
    for m in re.finditer(r"\{PH\}|\{P\}|\{E\}|\{CC\}|\{IB\}|\{A\}", template):
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


def _lang_samples(lang: str, rng: random.Random, n: int) -> list[dict]:
    first, last, templates = (
        (FIRST_FR, LAST_FR, TEMPLATES_FR) if lang == "fr" else (FIRST_ES, LAST_ES, TEMPLATES_ES)
    )
    out = []
    for i in range(n):
        name = f"{rng.choice(first)} {rng.choice(last)}"
        local = re.sub(r"[^a-z]", "", name.split()[0].lower().translate(str.maketrans("éèáíóú", "eeaiou")))
        phone = (
            f"0{rng.randint(1, 7)} {_d(rng, 2)} {_d(rng, 2)} {_d(rng, 2)} {_d(rng, 2)}"
            if lang == "fr"
            else f"+34 6{_d(rng, 2)} {_d(rng, 3)} {_d(rng, 3)}"
        )
        addr = (
            f"{rng.randint(1, 99)} rue de la République, {rng.choice(['69001 Lyon', '31000 Toulouse'])}"
            if lang == "fr"
            else f"Calle de Serrano, {rng.randint(1, 99)}, 28001 Madrid"
        )
        values = {
            "{P}": ("PERSON", name),
            "{E}": (
                "EMAIL_ADDRESS",
                f"{local}{rng.randint(1, 99)}@{'correo.es' if lang == 'es' else 'exemple.fr'}",
            ),
            "{PH}": ("PHONE_NUMBER", phone),
            "{CC}": ("CREDIT_CARD", _card(rng)),
            "{IB}": ("IBAN_CODE", _iban(rng, lang.upper())),
            "{A}": ("STREET_ADDRESS", addr),
        }
        text, entities = _fill(templates[i % len(templates)], values)
        out.append({"id": f"t{lang}{i + 1:04d}", "lang": lang, "text": text, "entities": entities})
    return out


def _pii_free(rng: random.Random, n: int) -> list[dict]:
    makers = [
        lambda: f"order ORD-{rng.randint(2019, 2027)}-{_d(rng, 6)} created",
        lambda: f"uuid={uuid.UUID(int=rng.getrandbits(128))} status=ok",
        lambda: (
            f"released v{rng.randint(0, 9)}.{rng.randint(0, 99)}.{rng.randint(0, 999)} on {rng.randint(2019, 2027)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        ),
        lambda: (
            f"[{rng.randint(2019, 2027)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d},{_d(rng, 3)}] WARN pool size {rng.randint(1, 64)}"
        ),
        lambda: f"git checkout {''.join(rng.choice('0123456789abcdef') for _ in range(12))}",
        lambda: f"ts={rng.randint(1_600_000_000, 1_800_000_000)}{_d(rng, 3)} id={_d(rng, 18)}",
        lambda: f"for i in range({rng.randint(1, 10**6)}): total += i * {rng.randint(2, 999)}",
        lambda: f"Tracking number {_d(rng, 12)} for shipment #{rng.randint(1000, 9999)}",
        lambda: f"PO {_d(rng, 10)}-{_d(rng, 4)} approved by Finance",
        lambda: f"Kafka offset {_d(rng, 13)} on partition {rng.randint(0, 11)} of tollway.usage.v1",
        lambda: (
            f"build {rng.randint(2019, 2027)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}.{rng.randint(1, 9999)} failed at step {rng.randint(1, 40)}"
        ),
        lambda: f"Tel. and e-mail fields are optional in form v{rng.randint(1, 9)}.{rng.randint(0, 9)}",
        # round 2: more kinds of technical text
        lambda: (
            f'{{"user_id": {_d(rng, 9)}, "amount": {rng.randint(1, 99999)}.{_d(rng, 2)}, "created": {rng.randint(1_600_000_000, 1_800_000_000)}}}'
        ),
        lambda: (
            f'gateway - - [{rng.randint(1, 28):02d}/Nov/{rng.randint(2019, 2027)}:{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d} +0000] "GET /api/v{rng.randint(1, 3)}/items/{_d(rng, 7)} HTTP/1.1" 200 {rng.randint(100, 99999)} {rng.randint(1, 999)}ms'
        ),
        lambda: (
            f"git describe: v{rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}-{rng.randint(1, 300)}-g{''.join(rng.choice('0123456789abcdef') for _ in range(7))}"
        ),
        lambda: (
            f"resize to {rng.choice([1920, 1280, 3840])}x{rng.choice([1080, 720, 2160])}, bitrate {rng.randint(1000, 99999)} kbps, {rng.randint(1, 9_999_999)} frames"
        ),
        lambda: (
            f"coordinates {rng.uniform(-90, 90):.6f}, {rng.uniform(-180, 180):.6f} accuracy {rng.randint(1, 99)} m"
        ),
        lambda: (
            f"Total: {rng.randint(1, 999)},{_d(rng, 3)},{_d(rng, 3)}.{_d(rng, 2)} across {rng.randint(2, 99)} accounts"
        ),
        lambda: (
            f"  at com.example.Service.handle(Service.java:{rng.randint(10, 9999)})\n  at java.base/java.lang.Thread.run(Thread.java:{rng.randint(100, 999)})"
        ),
        lambda: (
            f"cron: {rng.randint(0, 59)} {rng.randint(0, 23)} * * {rng.randint(0, 6)}  # job {_d(rng, 8)}"
        ),
        lambda: (
            f"port range {rng.randint(1000, 30000)}-{rng.randint(30001, 65535)}, pids {_d(rng, 5)} {_d(rng, 5)} {_d(rng, 5)}"
        ),
        lambda: (
            f"sha1 {''.join(rng.choice('0123456789abcdef') for _ in range(40))} size {_d(rng, 10)} mtime {rng.randint(1_600_000_000, 1_800_000_000)}"
        ),
        lambda: (
            f"Invoice number {_d(rng, 10)} dated {rng.randint(1, 28):02d}.{rng.randint(1, 12):02d}.{rng.randint(2019, 2027)}"
        ),
        lambda: (
            f"Model gpt-{rng.randint(3, 5)}o-{rng.randint(2023, 2026)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} used {rng.randint(100, 999999)} tokens"
        ),
    ]
    return [
        {"id": f"tf{i + 1:04d}", "lang": "en", "text": makers[i % len(makers)](), "entities": []}
        for i in range(n)
    ]


def _pii_free_round5(rng: random.Random, n: int) -> list[dict]:
    """Round 5: more technical text (stack traces of five languages, SQL DDL, k8s
    events, payment-provider ids, test output, code identifiers that carry a
    person's name: ``Dijkstra``, ``BloomFilter``, ``JacksonObjectMapper``)."""
    h = lambda k: "".join(rng.choice("0123456789abcdef") for _ in range(k))  # noqa: E731
    a = lambda k: "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(k))  # noqa: E731
    day = lambda: f"{rng.randint(2019, 2027)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"  # noqa: E731
    hms = lambda: f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"  # noqa: E731
    makers = [
        lambda: (
            f"{day()} {hms()}.{_d(rng, 3)}  INFO {rng.randint(1000, 99999)} --- [           main] o.s.b.w.e.tomcat.TomcatWebServer         : Tomcat started on port(s): {rng.choice([8080, 8443, 9090])} (http)"
        ),
        lambda: (
            f'INFO:     uvicorn.access worker-{rng.randint(1, 16)} - "POST /v1/chat/completions HTTP/1.1" {rng.choice([200, 429, 500])} OK'
        ),
        lambda: (
            f"thread 'main' panicked at src/parser.rs:{rng.randint(1, 900)}:{rng.randint(1, 80)}:\ncalled `Option::unwrap()` on a `None` value"
        ),
        lambda: (
            f"    at Object.<anonymous> (/app/dist/index.js:{rng.randint(1, 500)}:{rng.randint(1, 80)})\n    at Module._compile (node:internal/modules/cjs/loader:{rng.randint(1000, 1400)}:{rng.randint(1, 40)})"
        ),
        lambda: (
            f"   at Contoso.Orders.OrderProcessor.Process(Order order) in C:\\src\\OrderProcessor.cs:line {rng.randint(10, 900)}"
        ),
        lambda: (
            f"CREATE INDEX CONCURRENTLY idx_orders_customer_{rng.randint(1, 9)} ON orders (customer_id) WHERE deleted_at IS NULL; -- {rng.randint(1, 900)} ms"
        ),
        lambda: (
            f"SELECT p.sku, COUNT(*) FROM line_items li JOIN products p ON p.id = li.product_id GROUP BY p.sku ORDER BY 2 DESC LIMIT {rng.randint(5, 100)};"
        ),
        lambda: (
            f"Warning  BackOff  {rng.randint(1, 59)}m (x{rng.randint(2, 40)} over {rng.randint(5, 90)}m)  kubelet  Back-off restarting failed container worker in pod etl-{h(9)}-{h(5)}"
        ),
        lambda: (
            f"helm upgrade --install ingress-nginx ingress-nginx/ingress-nginx --version {rng.randint(3, 4)}.{rng.randint(0, 12)}.{rng.randint(0, 9)} -n ingress --atomic"
        ),
        lambda: (
            f'{{"type": "invoice.paid", "data": {{"id": "in_{a(24)}", "customer": "cus_{a(14)}", "amount_due": {rng.randint(100, 99999)}}}}}'
        ),
        lambda: f"charge ch_{a(24)} refunded via re_{a(24)} ({rng.randint(1, 999)}.{_d(rng, 2)} EUR)",
        lambda: (
            f'{h(12)}   postgres:{rng.randint(12, 17)}-alpine   "docker-entrypoint.s…"   {rng.randint(2, 23)} hours ago   Up {rng.randint(2, 23)} hours   5432/tcp   db-{rng.randint(1, 9)}'
        ),
        lambda: (
            f"--- FAIL: TestLedgerBalance (0.{_d(rng, 2)}s)\n    ledger_test.go:{rng.randint(10, 300)}: got {rng.randint(100, 9999)}, want {rng.randint(100, 9999)}"
        ),
        lambda: (
            f"FAILED tests/test_refunds.py::test_partial_refund_rounds_half_even - AssertionError: assert {rng.randint(100, 9999)} == {rng.randint(100, 9999)}"
        ),
        lambda: (
            f"Release {rng.randint(2023, 2027)}.{rng.randint(1, 12)}.0 (LTS) is supported until {day()}; {rng.randint(1, 40)} fixes, {rng.randint(0, 9)} breaking changes."
        ),
        lambda: (
            f"PAY-{rng.randint(100, 9999)} blocked by INFRA-{rng.randint(10, 999)}; moved to sprint {rng.randint(2024, 2027)}-S{rng.randint(1, 26):02d}"
        ),
        lambda: (
            f"Ticket #{_d(rng, 7)} merged into #{_d(rng, 7)} (priority: {rng.choice(['low', 'high', 'urgent'])})"
        ),
        lambda: (
            f"Invoice no. {rng.randint(2020, 2027)}/{_d(rng, 4)}-FR, VAT 20 %, net {rng.randint(1, 9)} {_d(rng, 3)},{_d(rng, 2)} €"
        ),
        lambda: (
            f"Your order {_d(rng, 3)}-{_d(rng, 7)}-{_d(rng, 7)} has shipped and arrives {rng.choice(['Tuesday', 'Friday'])}."
        ),
        lambda: f"git rev-parse HEAD -> {h(40)}",
        lambda: f'"integrity": "sha512-{a(86)}=="',
        lambda: (
            f"GET /v2/tenants/{uuid.UUID(int=rng.getrandbits(128))}/invoices?page={rng.randint(1, 40)}&per_page=50 -> {rng.choice([200, 404])}"
        ),
        lambda: (
            f"Last-Modified: {rng.choice(['Mon', 'Wed', 'Sat'])}, {rng.randint(1, 28):02d} {rng.choice(['Jan', 'Mar', 'Jun', 'Aug', 'Sep', 'Dec'])} {rng.randint(2015, 2027)} {hms()} GMT"
        ),
        lambda: (
            f"{rng.choice(['Jan', 'Feb', 'Mar', 'Apr', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'])} {rng.randint(1, 28):2d} {hms()} web-{rng.randint(1, 9)} systemd[1]: Started Daily apt upgrade and clean activities."
        ),
        lambda: (
            f"val retryBackoff = ExponentialBackoff(initial = {rng.randint(50, 900)}.millis, max = {rng.randint(5, 60)}.seconds)"
        ),
        lambda: f"let userAgent = req.headers['user-agent'] ?? 'unknown'; // {rng.randint(1, 99)} % of calls",
        lambda: (
            f"# aws_s3_bucket.logs_{rng.randint(1, 9)} will be updated in-place\n  ~ versioning {{ enabled = false -> true }}"
        ),
        lambda: (
            f"id,created_at,status,amount\n{_d(rng, 5)},{day()}T{hms()}Z,settled,{rng.randint(1, 999)}.{_d(rng, 2)}"
        ),
        lambda: (
            f"[FIRING:{rng.randint(1, 9)}] KubePodCrashLooping (prod-eu worker-{h(3)} kube-system critical)"
        ),
        lambda: (
            f" src/ledger/balance.rs | {rng.randint(1, 300)} +++++++++-----\n {rng.randint(1, 20)} files changed, {rng.randint(1, 900)} insertions(+), {rng.randint(1, 900)} deletions(-)"
        ),
        lambda: (
            f"Get:{rng.randint(1, 60)} http://deb.debian.org/debian bookworm/main amd64 libssl3 amd64 3.0.{rng.randint(1, 15)}-1~deb12u{rng.randint(1, 4)} [{rng.randint(1, 3)},{_d(rng, 3)} kB]"
        ),
        lambda: f"DATABASE_URL=postgres://app@db:5432/ledger?sslmode=require&pool={rng.randint(2, 40)}",
        lambda: (
            f"BloomFilter<String> seen = new BloomFilter<>(1 << {rng.randint(10, 24)}, 0.0{rng.randint(1, 9)});"
        ),
        lambda: (
            f"Dijkstra over {rng.randint(100, 99999)} nodes took {rng.randint(1, 900)} ms; A* took {rng.randint(1, 900)} ms"
        ),
        lambda: f"from scipy.stats import pearsonr, spearmanr  # r = {rng.uniform(-1, 1):.3f}",
        lambda: (
            f"ObjectMapper mapper = JacksonObjectMapperFactory.create(); // v{rng.randint(2, 3)}.{rng.randint(0, 17)}"
        ),
        lambda: (
            f"GaussianBlur(sigma={rng.randint(1, 9)}.{rng.randint(0, 9)}) applied to frame {rng.randint(1, 99999)} of {rng.randint(100000, 999999)}"
        ),
        lambda: (
            f"export const selectInvoiceTotals = createSelector([selectLines], (lines) => sum(lines, {rng.randint(0, 4)}));"
        ),
        lambda: (
            f"impl From<LedgerError> for ApiError {{ fn from(e: LedgerError) -> Self {{ ApiError::Internal({rng.randint(500, 599)}) }} }}"
        ),
        lambda: (
            f"Caused by: org.hibernate.exception.ConstraintViolationException: could not execute statement [uk_invoice_number_{rng.randint(1, 9)}]"
        ),
        lambda: (
            f"WARN  [HikariPool-{rng.randint(1, 4)} housekeeper] com.zaxxer.hikari.pool.HikariPool - Thread starvation or clock leap detected (housekeeper delta={rng.randint(1, 59)}s{rng.randint(1, 999)}ms)."
        ),
        lambda: f"Marshal.load failed at offset 0x{h(6)}: unexpected tag {rng.randint(0, 255)}",
        lambda: (
            f"Sprint review {day()}: Carousel v{rng.randint(1, 5)} shipped, Checkout {rng.randint(2, 9)} in QA, Atlas migration at {rng.randint(10, 99)} %."
        ),
        lambda: (
            f"nvidia-smi: GPU {rng.randint(0, 7)} A100-SXM4-80GB {rng.randint(30, 85)}C P0 {rng.randint(60, 400)}W / 400W | {rng.randint(1000, 80000)}MiB / 81920MiB"
        ),
    ]
    return [
        {"id": f"tg{i + 1:04d}", "lang": "en", "text": makers[i % len(makers)](), "entities": []}
        for i in range(n)
    ]


def _cases() -> list[dict]:
    out = []
    for i, case in enumerate(CASES):
        text, gold, lang = case if len(case) == 3 else (*case, "en")
        entities, cursor = [], 0
        for etype, value in gold:
            start = text.index(value, cursor)
            entities.append({"type": etype, "start": start, "end": start + len(value), "value": value})
            cursor = start + len(value)
        out.append({"id": f"tc{i + 1:04d}", "lang": lang, "text": text, "entities": entities})
    return out


def _cards(rng: random.Random, n: int) -> list[dict]:
    out = []
    for i in range(n):
        value = _card(rng)
        text = rng.choice(["Charge {} please", "card number: {}", "{} is my card", "use {}, thanks"]).format(
            value
        )
        start = text.index(value)
        out.append(
            {
                "id": f"tk{i + 1:04d}",
                "lang": "en",
                "text": text,
                "entities": [
                    {"type": "CREDIT_CARD", "start": start, "end": start + len(value), "value": value}
                ],
            }
        )
    return out


def main() -> None:
    rng = random.Random(SEED)
    OUT.mkdir(exist_ok=True)
    files = {
        "cases.jsonl": _cases(),
        "cards.jsonl": _cards(rng, 120),
        "samples-fr.jsonl": _lang_samples("fr", rng, 80),
        "samples-es.jsonl": _lang_samples("es", rng, 80),
        "pii_free.jsonl": _pii_free(rng, 480),
        # round 5: its own generator so the files above stay byte for byte
        "pii_free_round5.jsonl": _pii_free_round5(random.Random(SEED + 5), 440),
    }
    for name, records in files.items():
        with (OUT / name).open("w", encoding="utf-8") as fh:
            for r in records:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
        print(f"wrote {len(records)} records to {OUT / name}")


if __name__ == "__main__":
    main()
