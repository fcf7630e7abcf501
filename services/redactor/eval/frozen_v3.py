"""The FROZEN held-out evaluation set **v3** (issue 11, third held-out round).

Written and committed before any recognizer of this round changed, and never
used while tuning. v1 (``frozen.py``) and v2 (``frozen_v2.py``) are *spent*:
their results were known while later rounds were tuned, so they count as
tuning material now.

Self-contained on purpose: imports nothing from ``generate.py``,
``tuning.py``, ``frozen.py`` or ``frozen_v2.py``, so growing the tuning set can
never change these files. Its templates and value pools (names, e-mail
domains, phone layouts and area codes, IBAN countries, streets, PII-free
texts) are new; ``tests/unit/test_eval_frozen.py`` checks the pools are
disjoint from every other generator's, that ``eval/frozen_v3/SHA256SUMS``
pins the committed files, and that this script reproduces them byte for byte.

Rules for whoever tunes the detector: ``evaluate.py --frozen-v3`` reports on
these files; ``evaluate.py`` refuses ``--misses`` on them, so no individual
miss or false positive is read and fixed.

Files (JSONL, ``{"id", "lang", "text", "entities": [{"type", "start", "end",
"value"}]}``, code point offsets) in ``eval/frozen_v3/``:

- ``heldout-en.jsonl`` (360 messages with PII + 120 PII-free chat messages),
  ``heldout-fr.jsonl`` and ``heldout-es.jsonl`` (220 + 100 each): chat
  messages with planted PII (names alone, in greetings and signatures, in
  lower case, of many origins; e-mails, phones, cards, IBANs, street
  addresses) and PII-free chat, short and long, that mentions places,
  products, months and dishes but no person.
- ``pii_free.jsonl`` (440): technical text with no personal data (logs, stack
  traces, SQL, k8s, JSON, hashes, UUIDs, versions, timestamps, order, invoice
  and ticket ids, code identifiers in CamelCase and snake_case): any
  detection is a false positive. No IP or MAC addresses: ``IP_ADDRESS`` is a
  default entity type and a client's address is personal data.

Usage: ``python services/redactor/eval/frozen_v3.py [--out DIR]`` (seed 731905).
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

SEED = 731905

NAMES = {
    "en": {
        "first": (
            "Margot Ulysses Beatrix Cedric Rowena Lionel Solveig Ambrose Tallulah Horace Odette Silas "
            "Clementine Everett Marguerite Lachlan Oluwaseun Thandiwe Aigerim Tariq Yusuf Meera "
            "Haruto Ji-ho Siddharth Ekow Ifeoma Yaroslav Nkechi Rania Bao Tenzin Mireille Sunniva"
        ).split(),
        "last": (
            "Blackwood Oyelowo Trinh Lindberg Castellanos Ramaswamy Adebayo Whitcombe Zielinski "
            "Haddad Fairweather Kuznetsov Mwangi Bhattacharya Gallagher Petrakis Nwachukwu Thorne "
            "Ashworth Iyer Mendelsohn Kovalenko Abubakar Tremblay Hashemi Sundqvist Moreau-Finch "
            "Dunmore Chukwu Ebrahimi"
        ).split(),
    },
    "fr": {
        "first": (
            "Bertille Fabien Ségolène Grégoire Amandine Ludovic Noémie Thibault Mélanie Sébastien "
            "Ophélie Bastien Laetitia Yannick Sandrine Aurélien Émeline Cyril Rachida Karim Pierre-Yves "
            "Marie-Claire"
        ).split(),
        "last": (
            "Rivière Lebrun Delmas Poirier Jourdan Courtois Marchal Besnard Prévost Ferrand Hamon "
            "Tanguy Royer Boyer Lecomte Bouvier Chauvin Giraud Maillard Pelletier Benali Diallo"
        ).split(),
    },
    "es": {
        "first": (
            "Nerea Unai Yaiza Jacinto Montserrat Guillermo Consuelo Marcelo Amparo Ignacio Leire "
            "Federico Lorena Emilio Edurne Rubén Catalina Agustín Xabier Mercedes"
        ).split(),
        "last": (
            "Echeverría Salazar Cordero Castro Domínguez Villanueva Gallego Beltrán Blanco Quintana Morales "
            "Suárez Ortiz Marín Peña Carrasco Garrido Aguilar Méndez Arrieta"
        ).split(),
    },
}
DOMAINS = {
    "en": ["mailbox.org", "zoho.com", "btinternet.com", "cs.stanford.edu", "northshore-health.org", "me.com"],
    "fr": ["neuf.fr", "bbox.fr", "univ-lyon2.fr", "cegetel.net", "numericable.fr"],
    "es": ["hotmail.es", "terra.es", "euskaltel.net", "us.es", "gva.es"],
}


def person(rng: random.Random, lang: str) -> str:
    """A first name alone (10 %), first + last, or (Spanish, 40 %) first + two surnames."""
    pool = NAMES[lang]
    first, last = rng.choice(pool["first"]), rng.choice(pool["last"])
    if rng.random() < 0.1:
        return first
    if lang == "es" and rng.random() < 0.4:
        return f"{first} {last} {rng.choice([n for n in pool['last'] if n != last])}"
    return f"{first} {last}"


_FOLD = str.maketrans("éèêëàâçîïôöùûüñáíóúäß", "eeeeaaciioouuunaiouas")


def email(rng: random.Random, name: str, lang: str) -> str:
    """An address built from ``name`` on one of ``lang``'s v3 domains."""
    parts = re.findall(r"[a-z]+", name.lower().translate(_FOLD)) or ["contact"]
    first, last = parts[0], parts[-1]
    local = rng.choice(
        [
            f"{first}{last}",
            f"{first}.{last[0]}",
            f"{first}-{last}",
            f"{last}{rng.randint(70, 99)}",
            f"{first[0]}.{last}",
            f"{first}.{last}.{rng.randint(1, 9)}",
        ]
    )
    return f"{local}@{rng.choice(DOMAINS[lang])}"


def _digits(rng: random.Random, k: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(k))


_US_AREAS = ["214", "469", "503", "651", "720", "801", "860", "925", "267", "412", "443", "613", "778"]


def _exchange(rng: random.Random) -> str:
    while True:
        x = rng.randint(202, 987)
        if x % 100 != 11 and x != 555:
            return str(x)


def phone(rng: random.Random, lang: str) -> str:
    """A phone number in one of ``lang``'s v3 layouts (real numbering-plan prefixes)."""
    d = lambda k: _digits(rng, k)  # noqa: E731
    area = lambda: rng.choice(_US_AREAS)  # noqa: E731
    layouts = {
        "en": [
            lambda: f"{area()} {_exchange(rng)} {d(4)}",
            lambda: f"({area()}){_exchange(rng)}-{d(4)}",
            lambda: f"+1 {area()}.{_exchange(rng)}.{d(4)}",
            lambda: f"1 ({area()}) {_exchange(rng)}-{d(4)}",
            lambda: f"+44 7{rng.randint(400, 599)} {d(3)}{d(3)}",
            lambda: f"020 3{d(3)} {d(4)}",
            lambda: f"+61 (0)4{rng.choice('0123')}{d(1)} {d(3)} {d(3)}",
            lambda: f"(02) 9{d(3)} {d(4)}",
            lambda: f"+49 15{rng.choice('12579')} {d(8)}",
            lambda: f"+49 (0)30 {d(7)}",
            lambda: f"+81 90-{rng.randint(1, 9)}{d(3)}-{d(4)}",
        ],
        "fr": [
            lambda: f"07 {rng.randint(50, 89)} {d(2)} {d(2)} {d(2)}",
            lambda: f"+33 6.{rng.randint(40, 89)}.{d(2)}.{d(2)}.{d(2)}",
            lambda: f"01-{rng.randint(40, 79)}-{d(2)}-{d(2)}-{d(2)}",
            lambda: f"+33 (0) 9 {rng.randint(50, 79)} {d(2)} {d(2)} {d(2)}",
            lambda: f"+352 621 {d(3)} {d(3)}",
            lambda: f"+1 514 {_exchange(rng)}-{d(4)}",
            lambda: f"+212 6{rng.choice('0123456')}{d(1)}-{d(6)}",
        ],
        "es": [
            lambda: f"+34 6{d(2)} {d(2)} {d(2)} {d(2)}",
            lambda: f"91 {d(3)} {d(2)} {d(2)}",
            lambda: f"7{rng.randint(10, 49)}.{d(3)}.{d(3)}",
            lambda: f"+56 9 {rng.randint(2, 5)}{d(3)} {d(4)}",
            lambda: (
                f"+57 3{rng.choice(['00', '01', '02', '04', '05', '10', '12', '15', '20', '21'])} {d(3)} {d(4)}"
            ),
            lambda: f"+51 9{d(2)} {d(3)} {d(3)}",
            lambda: f"(+52) 33 {d(4)} {d(4)}",
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
    (lambda r: "4", [16, 16, 16, 13]),  # Visa
    (lambda r: str(r.randint(51, 55)), [16]),  # Mastercard 5-series
    (lambda r: str(r.randint(2221, 2720)), [16]),  # Mastercard 2-series
    (lambda r: r.choice(["34", "37"]), [15]),  # Amex
    (lambda r: r.choice(["6011", "65"]), [16, 19]),  # Discover
    (lambda r: str(r.randint(3528, 3589)), [16, 19]),  # JCB
    (lambda r: "62", [16, 19]),  # UnionPay
    (lambda r: r.choice(["6304", "6761", "5020"]), [12, 16, 19]),  # Maestro
    (lambda r: r.choice(["36", "39", "300", "305"]), [14]),  # Diners Club
]


def card(rng: random.Random) -> str:
    """A Luhn-valid card number of a real issuer range, grouped as printed or typed."""
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
    "NO": lambda d, a: d(11),
    "EE": lambda d, a: d(16),
    "LT": lambda d, a: d(16),
    "SK": lambda d, a: d(20),
    "SI": lambda d, a: d(15),
    "HU": lambda d, a: d(24),
    "BG": lambda d, a: a(4) + d(14),
    "IS": lambda d, a: d(22),
    "MC": lambda d, a: d(10) + a(1) + d(10) + d(2),
    "CH": lambda d, a: d(17),
    "AD": lambda d, a: d(20),
    "PT": lambda d, a: d(21),
}


def iban(rng: random.Random, countries: list[str]) -> str:
    """A check-digit-valid IBAN of one of ``countries``, grouped by 4 or compact."""
    country = rng.choice(countries)
    d = lambda k: _digits(rng, k)  # noqa: E731
    a = lambda k: "".join(rng.choice(string.ascii_uppercase) for _ in range(k))  # noqa: E731
    bban = _IBAN_BBAN[country](d, a)
    numeric = "".join(str(int(c, 36)) for c in bban + country + "00")
    code = f"{country}{98 - int(numeric) % 97:02d}{bban}"
    return " ".join(code[i : i + 4] for i in range(0, len(code), 4)) if rng.random() < 0.5 else code


def address(rng: random.Random, lang: str) -> str:
    """A street address in ``lang``'s usual layout, from the v3 street pools."""
    if lang == "fr":
        street = rng.choice(
            [
                "boulevard Voltaire",
                "avenue Jean-Jaurès",
                "place des Terreaux",
                "rue de la République",
                "route de Lyon",
            ]
        )
        out = f"{rng.randint(1, 180)}{rng.choice(['', '', ' bis'])} {street}"
        if rng.random() < 0.7:
            out += f", {rng.choice(['69002 Lyon', '31000 Toulouse', '35000 Rennes', '33000 Bordeaux'])}"
        return out
    if lang == "es":
        street = rng.choice(
            [
                "Calle Mayor",
                "Avenida de la Constitución",
                "Plaza del Pilar",
                "Calle Sierpes",
                "Camino de Ronda",
            ]
        )
        out = f"{street}, {rng.randint(1, 300)}{rng.choice(['', ', 3º dcha.', ', bajo'])}"
        if rng.random() < 0.7:
            out += f", {rng.choice(['41004 Sevilla', '46002 Valencia', '18009 Granada', '15001 A Coruña'])}"
        return out
    if rng.random() < 0.6:
        out = f"{rng.randint(100, 9899)} {rng.choice(['Birchwood', 'Hawthorne', 'Larkspur', 'Chestnut', 'Briarcliff'])} {rng.choice(['Lane', 'Way', 'Terrace', 'Parkway', 'Place'])}"
        if rng.random() < 0.3:
            out += f", Apt {rng.randint(1, 40)}{rng.choice('ABCD')}"
        if rng.random() < 0.7:
            out += rng.choice([", Boise, ID 83702", ", Albany, NY 12207", ", Savannah, GA 31401"])
        return out
    out = f"{rng.randint(1, 220)} {rng.choice(['Kingfisher', 'Rosebery', 'Alderney', 'Foxglove', 'Marlowe'])} {rng.choice(['Lane', 'Mews', 'Avenue', 'Row', 'Walk'])}"
    if rng.random() < 0.7:
        out += rng.choice([", Leeds LS6 2AB", ", Cardiff CF10 3AT", ", Glasgow G12 8QQ"])
    return out


TEMPLATES = {
    "en": [
        "Hi {F}, thanks for sending the slides over. Could you also share the budget sheet?",
        "Draft a reply to {P} saying we can do Thursday at 3 instead.",
        "Thanks,\n{P}\nProcurement | {PH}",
        "can you remind {p} about the standup tmrw, she keeps missing it",
        "Dear Dr. {L}, I am writing to ask about my test results from last week.",
        "Summarise this thread between {P} and {P2} in three bullet points.",
        "My card {CC} got declined twice at the airport, what should I ask the bank?",
        "Send the contract to {E} and cc {P2}.",
        "Can you check this IBAN before I pay the invoice: {IB}",
        "Our new office is at {A}. Update the footer of the newsletter.",
        "Cheers, {F}",
        "Write a LinkedIn recommendation for {P}, who managed our data migration.",
        "The courier needs a number: {PH}. And the drop-off is {A}.",
        "Who should I contact about the refund? I emailed {E} but no answer yet.",
        "Quick q: is {PH} a UK mobile or a landline?",
        "Add {P} to the guest list and send her the invite at {E}.",
        "Please pay the deposit into {IB} (account name {P}) by Monday.",
        "Make this message friendlier: '{F}, the report is late again.'",
        "Kind regards,\n{P}\n{A}",
        "my new card is {CC}, exp 09/28 - can you fill the form for me",
        "Book a table for four under the name {L}, and text confirmation to {PH}.",
        "{P} and {P2} are the two referees on my application; format their details: {E}, {PH}.",
    ],
    "fr": [
        "Bonjour {F}, merci pour le dossier. Peux-tu m'envoyer la version signée ?",
        "Rédige une réponse à {P} pour décaler la réunion à jeudi.",
        "Cordialement,\n{P}\nService achats – {PH}",
        "Mon numéro a changé, c'est désormais le {PH}.",
        "Ajoute {P} et {P2} à la liste de diffusion.",
        "Le paiement a été refusé avec la carte {CC}, que faire ?",
        "Envoie la facture à {E}, s'il te plaît.",
        "Vérifie cet IBAN avant le virement : {IB}",
        "Nous avons déménagé au {A}. Mets à jour la signature.",
        "Chère Madame {L}, je vous remercie pour votre retour rapide.",
        "Écris un mot de remerciement pour {P}, qui part à la retraite.",
        "Bien à vous,\n{P}\n{E}",
    ],
    "es": [
        "Hola {F}, gracias por el informe. ¿Me mandas también las cifras de marzo?",
        "Escribe una respuesta a {P} para cambiar la cita al jueves.",
        "Un saludo,\n{P}\nDepartamento de compras – {PH}",
        "Mi número nuevo es el {PH}.",
        "Añade a {P} y a {P2} a la lista de invitados.",
        "Me rechazaron la tarjeta {CC} en la gasolinera, ¿qué hago?",
        "Manda el presupuesto a {E}, por favor.",
        "Comprueba este IBAN antes de la transferencia: {IB}",
        "Nos mudamos a {A}. Actualiza la firma del correo.",
        "Estimado señor {L}, le agradezco su pronta respuesta.",
        "Redacta una nota de despedida para {P}, que se jubila este mes.",
        "Atentamente,\n{P}\n{E}",
    ],
}
_IBAN_COUNTRIES = {
    "en": ["NO", "EE", "LT", "SK", "SI", "HU", "BG", "IS"],
    "fr": ["MC", "CH"],
    "es": ["AD", "PT"],
}
_SLOTS = re.compile(r"\{P2\}|\{PH\}|\{P\}|\{p\}|\{F\}|\{L\}|\{E\}|\{CC\}|\{IB\}|\{A\}")


def fill(template: str, rng: random.Random, lang: str) -> tuple[str, list[dict]]:
    """``template`` with its slots filled and the gold entities (code point offsets)."""
    p1 = person(rng, lang)
    p2 = person(rng, lang)
    while p2.split()[0] == p1.split()[0]:
        p2 = person(rng, lang)
    values = {
        "{P}": ("PERSON", p1),
        "{P2}": ("PERSON", p2),
        "{p}": ("PERSON", p1.lower()),
        "{F}": ("PERSON", p1.split()[0]),
        "{L}": ("PERSON", rng.choice(NAMES[lang]["last"])),
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


# --- PII-free chat -----------------------------------------------------------

_CHAT_FILL = {
    "en": {
        "{PLACE}": [
            "Lisbon",
            "Kyoto",
            "Vancouver",
            "Marrakesh",
            "Edinburgh",
            "Oaxaca",
            "Tasmania",
            "Reykjavik",
        ],
        "{THING}": [
            "sourdough",
            "a gas boiler",
            "a Raspberry Pi",
            "tomato seedlings",
            "a standing desk",
            "oat milk",
        ],
        "{TOPIC}": [
            "compound interest",
            "TCP handshakes",
            "photosynthesis",
            "the French Revolution",
            "monads",
            "jet lag",
        ],
        "{MONTH}": ["January", "April", "June", "September", "November"],
    },
    "fr": {
        "{PLACE}": ["Biarritz", "Colmar", "Montréal", "Dakar", "Bruges", "la Corse", "Annecy", "Genève"],
        "{THING}": [
            "une pâte brisée",
            "un lave-vaisselle",
            "des tomates cerises",
            "un vélo électrique",
            "du pain au levain",
        ],
        "{TOPIC}": [
            "les intérêts composés",
            "la photosynthèse",
            "le protocole HTTPS",
            "la Révolution française",
            "l'inflation",
        ],
        "{MONTH}": ["janvier", "avril", "juin", "septembre", "novembre"],
    },
    "es": {
        "{PLACE}": [
            "Cádiz",
            "Oporto",
            "Cusco",
            "Mallorca",
            "Cartagena",
            "Salamanca",
            "Buenos Aires",
            "Tenerife",
        ],
        "{THING}": [
            "una tortilla de patatas",
            "una lavadora",
            "tomates cherry",
            "una bici eléctrica",
            "pan de masa madre",
        ],
        "{TOPIC}": [
            "el interés compuesto",
            "la fotosíntesis",
            "el protocolo HTTPS",
            "la Guerra Civil",
            "la inflación",
        ],
        "{MONTH}": ["enero", "abril", "junio", "septiembre", "noviembre"],
    },
}
CHAT_FREE = {
    "en": [
        "thanks!",
        "ok that works",
        "Explain {TOPIC} like I'm ten.",
        "Is {MONTH} a good time to visit {PLACE}?",
        "How do I look after {THING}?",
        "What's the difference between a list and a tuple in Python?",
        "shorter please",
        "Give me five dinner ideas that use {THING}.",
        "I'm flying to {PLACE} in {MONTH} with two kids and a lot of luggage. What should I pack, how early should "
        "we get to the airport, and is it worth paying for seats together? Keep it practical.",
        "Write a haiku about {TOPIC}.",
        "Could you rewrite the paragraph above so it sounds less formal and fits in a tweet?",
        "We're a small team rolling out a new expense policy next {MONTH}. Draft an announcement that explains the "
        "receipts rule, the new approval limit and where to ask questions, in a warm but clear tone.",
        "Compare {PLACE} and {PLACE2} for a long weekend on a budget.",
        "what does 'idempotent' mean",
        "Translate 'see you next week' into Portuguese and Italian.",
    ],
    "fr": [
        "merci !",
        "ok, ça marche",
        "Explique-moi {TOPIC} simplement.",
        "Est-ce que {MONTH} est une bonne période pour visiter {PLACE} ?",
        "Comment réussir {THING} ?",
        "Quelle est la différence entre une liste et un tuple en Python ?",
        "plus court stp",
        "Donne-moi cinq idées de dîner avec {THING}.",
        "Je pars à {PLACE} en {MONTH} avec deux enfants et beaucoup de bagages. Que faut-il prévoir, à quelle heure "
        "arriver à l'aéroport, et vaut-il la peine de payer pour être assis ensemble ? Reste concret.",
        "Écris un petit poème sur {TOPIC}.",
        "Peux-tu reformuler le paragraphe ci-dessus sur un ton moins formel ?",
        "Nous lançons une nouvelle politique de notes de frais en {MONTH}. Rédige une annonce qui explique la règle "
        "des justificatifs, le nouveau plafond et à qui poser les questions, sur un ton chaleureux mais clair.",
        "Compare {PLACE} et {PLACE2} pour un long week-end pas cher.",
        "ça veut dire quoi « idempotent » ?",
    ],
    "es": [
        "¡gracias!",
        "vale, perfecto",
        "Explícame {TOPIC} de forma sencilla.",
        "¿Es {MONTH} buena época para visitar {PLACE}?",
        "¿Cómo me sale bien {THING}?",
        "¿Qué diferencia hay entre una lista y una tupla en Python?",
        "más corto, porfa",
        "Dame cinco ideas de cena con {THING}.",
        "Me voy a {PLACE} en {MONTH} con dos niños y mucho equipaje. ¿Qué debo llevar, con cuánta antelación llego "
        "al aeropuerto y merece la pena pagar por sentarnos juntos? Sé práctico.",
        "Escribe un poema corto sobre {TOPIC}.",
        "¿Puedes reescribir el párrafo anterior con un tono menos formal?",
        "Lanzamos una nueva política de gastos en {MONTH}. Redacta un anuncio que explique la norma de los tickets, "
        "el nuevo límite de aprobación y a quién preguntar, con un tono cercano pero claro.",
        "Compara {PLACE} y {PLACE2} para un fin de semana largo y barato.",
        "¿qué significa «idempotente»?",
    ],
}


def chat_free(rng: random.Random, template: str, lang: str) -> str:
    """A PII-free chat message: ``template`` with places, months, things and topics filled."""
    fills = _CHAT_FILL[lang]
    place = rng.choice(fills["{PLACE}"])
    out = template.replace("{PLACE2}", rng.choice([p for p in fills["{PLACE}"] if p != place]))
    out = out.replace("{PLACE}", place)
    for slot in ("{THING}", "{TOPIC}", "{MONTH}"):
        out = out.replace(slot, rng.choice(fills[slot]))
    return out


# --- PII-free technical text -------------------------------------------------


def _hex(rng: random.Random, k: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(k))


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _iso(r: random.Random) -> str:
    return (
        f"{r.randint(2019, 2027)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}T"
        f"{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}.{_digits(r, 3)}Z"
    )


def _ver(r: random.Random) -> str:
    return f"{r.randint(0, 9)}.{r.randint(0, 30)}.{r.randint(0, 20)}"


_SVC = ["billing", "checkout", "inventory", "notifier", "search-api", "auth-gateway", "ledger"]
_CLASSES = [
    "InvoiceLineMapper", "RetryPolicyFactory", "OrderSettlementJob", "HttpClientPool", "CacheWarmupTask",
    "PaymentIntentResolver", "TenantScopedRepository", "EventEnvelopeCodec",
]  # fmt: skip
_SNAKE = [
    "parse_invoice_lines",
    "reconcile_ledger",
    "fetch_exchange_rates",
    "rebuild_search_index",
    "flush_dead_letters",
]
_LEVELS = ["INFO", "WARN", "ERROR", "DEBUG"]

PII_FREE = [
    lambda r: (
        f"{_iso(r)} {r.choice(_LEVELS)} [{r.choice(_SVC)}] {r.choice(_CLASSES)}: processed {r.randint(1, 5000)} "
        f"records in {r.randint(3, 9000)} ms (batch={_uuid(r)})"
    ),
    lambda r: (
        f'Exception in thread "pool-{r.randint(1, 9)}-thread-{r.randint(1, 40)}" java.lang.IllegalStateException: '
        f"ledger closed\n\tat com.acme.{r.choice(_SVC).replace('-', '')}.{r.choice(_CLASSES)}.apply({r.choice(_CLASSES)}.java:{r.randint(20, 900)})"
    ),
    lambda r: (
        f'Traceback (most recent call last):\n  File "/srv/app/{r.choice(_SNAKE)}.py", line {r.randint(5, 700)}, '
        f"in {r.choice(_SNAKE)}\nKeyError: '{r.choice(['tenant_id', 'currency', 'sku'])}'"
    ),
    lambda r: (
        f"TypeError: Cannot read properties of undefined (reading '{r.choice(['map', 'length', 'id'])}')\n"
        f"    at {r.choice(_CLASSES)}.render (webpack:///./src/components/{r.choice(_CLASSES)}.tsx:{r.randint(1, 400)}:{r.randint(1, 80)})"
    ),
    lambda r: (
        f"UPDATE invoices SET status = 'paid', paid_at = '{r.randint(2020, 2027)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}' "
        f"WHERE invoice_no = 'INV-{r.randint(2020, 2027)}-{_digits(r, 6)}';"
    ),
    lambda r: (
        f"NAME                               READY   STATUS    RESTARTS   AGE\n{r.choice(_SVC)}-{_hex(r, 9)}-{_b36(r, 5)}   "
        f"{r.randint(0, 2)}/2     Running   {r.randint(0, 12)}          {r.randint(1, 30)}d{r.randint(0, 23)}h"
    ),
    lambda r: (
        f'{{"order_id": "ORD-{r.randint(2019, 2027)}-{_digits(r, 6)}", "amount_minor": {r.randint(100, 10**6)}, '
        f'"currency": "{r.choice(["EUR", "USD", "GBP"])}", "created": "{_iso(r)}"}}'
    ),
    lambda r: f"sha256:{_hex(r, 64)}",
    lambda r: f"commit {_hex(r, 40)}\nDate:   {_iso(r)}\n\n    fix({r.choice(_SVC)}): retry on 429",
    lambda r: f"Request {_uuid(r)} failed after {r.randint(1, 5)} attempts; correlation {_uuid(r)}",
    lambda r: (
        f"Upgrade {r.choice(['numpy', 'fastapi', 'sqlalchemy', 'react-dom'])} from {_ver(r)} to {_ver(r)}-rc.{r.randint(1, 5)} "
        f"(build {r.randint(2020, 2027)}{r.randint(1, 12):02d}{r.randint(1, 28):02d}.{r.randint(1, 30)})"
    ),
    lambda r: (
        f"epoch {r.randint(1_500_000_000, 1_900_000_000)} -> {_iso(r)} (offset +{r.randint(0, 14):02d}:00)"
    ),
    lambda r: (
        f"Order #{_digits(r, 3)}-{_digits(r, 7)}-{_digits(r, 7)} shipped; tracking 1Z{_b36(r, 6).upper()}{_digits(r, 10)}"
    ),
    lambda r: (
        f"Ticket {r.choice(['OPS', 'PLAT', 'SEC', 'DATA'])}-{r.randint(100, 99999)} reopened: flaky test in {r.choice(_SNAKE)}"
    ),
    lambda r: (
        f"Invoice INV/{r.randint(2020, 2027)}/{_digits(r, 5)} due {r.randint(1, 28):02d}.{r.randint(1, 12):02d}.{r.randint(2020, 2027)}, "
        f"total {r.randint(10, 99999)}.{_digits(r, 2)} EUR, PO {_digits(r, 10)}"
    ),
    lambda r: (
        f"def {r.choice(_SNAKE)}(batch_size: int = {r.randint(10, 5000)}, *, dry_run: bool = False) -> None:"
    ),
    lambda r: (
        f"public final class {r.choice(_CLASSES)} implements {r.choice(['Runnable', 'Closeable', 'Supplier<Order>'])} {{ "
        f"private static final long serialVersionUID = {r.randint(10**15, 10**18)}L; }}"
    ),
    lambda r: (
        f"{r.choice(_SVC)}-lb - - [{r.randint(1, 28):02d}/"
        f"{r.choice(['Jan', 'Mar', 'Jul', 'Oct'])}/{r.randint(2020, 2027)}:{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d} +0000] "
        f'"GET /api/v{r.randint(1, 3)}/orders/{r.randint(10**5, 10**9)} HTTP/1.1" {r.choice([200, 304, 404])} {r.randint(0, 99999)}'
    ),
    lambda r: (
        f"kubectl rollout undo deployment/{r.choice(_SVC)} --to-revision={r.randint(1, 80)} -n prod-{r.choice(['eu', 'us'])}"
    ),
    lambda r: (
        f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {r.choice(_SVC)}\nspec:\n  replicas: {r.randint(1, 30)}\n"
        f"  template:\n    spec:\n      containers:\n        - image: registry.local/{r.choice(_SVC)}@sha256:{_hex(r, 64)}"
    ),
    lambda r: (
        f"dhcp pool {_hex(r, 8)}: {r.randint(10, 250)} of 254 addresses leased, renew every {r.randint(60, 86400)}s"
    ),
    lambda r: (
        f"crontab: {r.randint(0, 59)} {r.randint(0, 23)} * * {r.randint(0, 6)} /usr/local/bin/{r.choice(_SNAKE)} --since {r.randint(1, 72)}h"
    ),
    lambda r: (
        f"Benchmark{r.choice(_CLASSES)}-8   {r.randint(1000, 10**7)}   {r.randint(10, 99999)} ns/op   {r.randint(0, 4096)} B/op   {r.randint(0, 40)} allocs/op"
    ),
    lambda r: (
        f"const {r.choice(['maxRetryCount', 'defaultPageSize', 'idleTimeoutMs'])} = {r.randint(1, 60000)}; // see {r.choice(_CLASSES)}"
    ),
    lambda r: (
        f"git checkout -b feature/{r.choice(['PLAT', 'OPS'])}-{r.randint(100, 9999)}-{r.choice(_SNAKE).replace('_', '-')}"
    ),
    lambda r: (
        f"ERROR 1213 (40001): Deadlock found when trying to get lock; try restarting transaction (txn {r.randint(10**6, 10**9)}, "
        f"table order_items, index PRIMARY)"
    ),
    lambda r: (
        f"pip install '{r.choice(['httpx', 'pydantic', 'orjson'])}>={_ver(r)},<{r.randint(1, 9)}.0' --hash=sha256:{_hex(r, 64)}"
    ),
    lambda r: (
        f"Build #{r.randint(100, 99999)} ({_hex(r, 7)}) passed in {r.randint(1, 59)}m {r.randint(0, 59)}s on runner linux-x64-{r.randint(1, 32)}"
    ),
    lambda r: (
        f"RMA-{_digits(r, 8)}: return approved for SKU {_b36(r, 3).upper()}-{_digits(r, 4)}, refund ref RF{_digits(r, 12)}"
    ),
    lambda r: (
        f'{{"level":"{r.choice(_LEVELS).lower()}","ts":{r.randint(10**12, 2 * 10**12)},"caller":"{r.choice(_SNAKE)}.go:{r.randint(1, 500)}","msg":"lease renewed","lease_id":"{_hex(r, 16)}"}}'
    ),
    lambda r: (
        f"Table {r.choice(['orders', 'ledger_entries', 'sessions'])}: {r.randint(10**5, 10**9)} rows, {r.randint(1, 900)} GB, "
        f"last vacuum {_iso(r)}, xid age {r.randint(10**6, 2 * 10**9)}"
    ),
    lambda r: (
        f"Disk /dev/nvme{r.randint(0, 3)}n1: {r.randint(256, 4096)} GiB, {r.randint(10**8, 10**10)} sectors, model SAMSUNG MZ{_b36(r, 7).upper()}"
    ),
    lambda r: (
        f"gpg: Signature made {_iso(r)} using RSA key {_hex(r, 40).upper()}\ngpg: Good signature from release-bot"
    ),
    lambda r: (
        f"x = np.linspace({r.randint(0, 10)}, {r.randint(11, 1000)}, num={r.randint(10, 10**5)}); y = np.fft.rfft(x)[:{r.randint(2, 512)}]"
    ),
    lambda r: (
        f"{r.choice(_CLASSES)}.{r.choice(['onCreate', 'handleMessage', 'toJson'])}() took {r.randint(1, 900)}.{_digits(r, 3)} ms ({r.randint(1, 99)}% of frame)"
    ),
    lambda r: (
        f"CVE-{r.randint(2018, 2026)}-{r.randint(1000, 49999)} fixed in {r.choice(['openssl', 'libxml2', 'curl'])} {_ver(r)} (CVSS {r.randint(1, 9)}.{r.randint(0, 9)})"
    ),
    lambda r: (
        f"Lat/long {r.uniform(-80, 80):.6f},{r.uniform(-170, 170):.6f} tile z{r.randint(1, 18)}/{r.randint(0, 2**17)}/{r.randint(0, 2**17)}.png"
    ),
    lambda r: (
        f"redis> HINCRBY rate:{_hex(r, 12)} window:{r.randint(10**9, 2 * 10**9)} 1\n(integer) {r.randint(1, 500)}"
    ),
    lambda r: (
        f"Meeting room B{r.randint(1, 6)}-{r.randint(100, 450)} booked {r.randint(8, 17)}:00-{r.randint(9, 18)}:30 for the {r.choice(_SVC)} retro"
    ),
    lambda r: (
        f"WARNING: {r.choice(_SNAKE)} is deprecated since {_ver(r)} and will be removed in {_ver(r)}; use {r.choice(_CLASSES)} instead."
    ),
    lambda r: (
        f"{r.choice(['AWS', 'GCP', 'Azure'])} bill {r.randint(2020, 2027)}-{r.randint(1, 12):02d}: {r.randint(100, 99999)}.{_digits(r, 2)} USD, account {_digits(r, 12)}"
    ),
]


def _b36(r: random.Random, k: int) -> str:
    return "".join(r.choice(string.ascii_lowercase + string.digits) for _ in range(k))


def generate(rng_seed: int = SEED) -> dict[str, list[dict]]:
    """The v3 frozen files' records, keyed by file name."""
    out: dict[str, list[dict]] = {}
    sizes = {"en": (360, 120), "fr": (220, 100), "es": (220, 100)}
    for offset, (lang, (n_pii, n_free)) in enumerate(sizes.items()):
        rng = random.Random(rng_seed + offset)
        templates, free = TEMPLATES[lang], CHAT_FREE[lang]
        records = []
        for i in range(n_pii):
            text, entities = fill(templates[i % len(templates)], rng, lang)
            records.append({"id": f"v3{lang}{i + 1:04d}", "lang": lang, "text": text, "entities": entities})
        for i in range(n_free):
            text = chat_free(rng, free[i % len(free)], lang)
            records.append({"id": f"v3{lang}f{i + 1:04d}", "lang": lang, "text": text, "entities": []})
        out[f"heldout-{lang}.jsonl"] = records
    rng = random.Random(rng_seed + 100)
    out["pii_free.jsonl"] = [
        {"id": f"v3t{i + 1:04d}", "lang": "en", "text": PII_FREE[i % len(PII_FREE)](rng), "entities": []}
        for i in range(440)
    ]
    return out


def render(records: list[dict]) -> bytes:
    """The JSONL bytes of ``records`` (one object a line, UTF-8, no ASCII escaping)."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("frozen_v3"))
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
