"""Round-9 development material (issue 11): the miss classes of the spent v6.

Writes two tuning files (seed 90913, deterministic):

- ``eval/tuning/round9.jsonl``: labelled messages, one or more per rule class
  of round 9 — IBANs of a registry country whose BBAN holds letters where
  Presidio's pattern wants digits (Palestine, ``PS.. XXXX`` + 21
  alphanumerics, grouped and compact); phones under a key written without
  its accent (``"movil"``) and in a table or CSV column headed by a phone
  word (``| Teléfono |``, ``telefono``), bare runs included; Spanish streets
  with a Catalan ``l'`` (``Carrer de l'Hospital``) and Mexican state
  abbreviations after the city (``Jal.``, ``Ver.``); French addresses with
  a ``BP``/``CS`` line before the postcode and ``CEDEX``, Québec towns on
  the next line, a Belgian ``Cours ... bte`` and a Luxembourg ``L-`` postcode;
  English house names before the number (``Orchard Cottage, 14 ...``) and
  one town with a 4-digit postcode (``Napier 4110``, ``George\\n6529``);
  names an e-mail address of the text spells out (capitals, lower case,
  initial + surname in the local part), ``Surname, Given`` in records,
  lower-case names after strong cues (``my name is``, ``its``, ``emergency
  contact:``), ``[hh:mm] nick:`` handles, ``Given L.`` in attendee lists,
  an initial and a surname (``firma de R. Etxeberria``), quoted vocatives,
  a signature after the last sentence, a middle initial.
- ``eval/tuning/pii_free_round9.jsonl``: PII-free texts of the
  false-positive classes: npm's ``package@version``, organisations ending in
  a trade word (``Company: Larchfield Logistics``), table header rows,
  log lines with seconds (``[12:01:33] kubelet: ...``), everyday words
  after ``it's``/``this is``, a year after one town (``London 2012``).
Two known false positives stay, as on main (not round-9 classes): the city
``Palma`` (a listed first name) in a CSV ``ciudad`` column, and ``London``
before a year, which the English model tags as a person.

Usage::

    uv run python services/redactor/eval/round9.py

Written after reading the spent v6's misses (``evaluate.py --frozen-v6
--misses``, round 9), with new pools: no name, street, postcode or value is
copied from v6 (``test_eval_frozen.py`` checks the values and the name
tokens). The round-9 rules were tuned on this file, so it measures nothing
held out.
"""

from __future__ import annotations

import random

from tuning_rounds import parse_marked, write_tuning_files

SEED = 90913

# [[...|TYPE]] marks an entity; the text is the template without the marks.
LABELLED: list[tuple[str, str]] = [
    # IBANs: registry length and mod-97 decide ({PS1} etc. are generated)
    ("Para el alquiler usa la cuenta [[{PS1}|IBAN_CODE]], gracias.", "es"),
    ("Wire it to [[{PS2}|IBAN_CODE]] before Friday.", "en"),
    ("Virement sur [[{PS3}|IBAN_CODE]] stp.", "fr"),
    # phones: unaccented keys, table and CSV columns
    ('{"cliente": "ref-88", "movil": "[[+506 7012 4481|PHONE_NUMBER]]"}', "es"),
    ('{"celular": "[[+51 987 224 615|PHONE_NUMBER]]", "nota": "llamar tarde"}', "es"),
    ("| Cliente | Teléfono |\n|---|---|\n| ref-12 | [[654093117|PHONE_NUMBER]] |", "es"),
    ("codigo,telefono,ciudad\nA-7,[[971 33 82 17|PHONE_NUMBER]],Palma", "es"),
    # Spanish streets: Catalan l', Mexican state abbreviations
    ("Envíalo a [[Carrer de l'Hospital Vell, 41, 2º 1ª, 08001 Barcelona|STREET_ADDRESS]] por favor.", "es"),
    (
        "Dirección: [[Avenida Los Fresnos 118, Col. Ladrón de Guevara, 44600 Guadalajara, Jal.|STREET_ADDRESS]]",
        "es",
    ),
    ("Entrega en [[Calle Naranjos 27, 91000 Xalapa, Ver.|STREET_ADDRESS]] mañana.", "es"),
    # French: BP/CS lines, Québec next line, Belgian Cours + bte, Luxembourg L-
    ("Adresse : [[14 avenue des Tisserands\nBP 3127\n59043 Lille CEDEX|STREET_ADDRESS]]", "fr"),
    ("Envoyer à [[8 bis quai des Mariniers, CS 40217, 44002 Nantes Cedex 1|STREET_ADDRESS]].", "fr"),
    ("Livraison : [[3125, rue des Érables\nLaval (Québec)  H7N 2K4|STREET_ADDRESS]]", "fr"),
    ("Chez moi : [[Cours Saint-Michel 77 bte 12\n1040 Etterbeek|STREET_ADDRESS]]", "fr"),
    ("Siège : [[12, rue des Tanneurs\nL-2914 Luxembourg|STREET_ADDRESS]]", "fr"),
    # English: house names, one town and a 4-digit postcode
    ("Deliver to [[Orchard Cottage, 14 Beacon Hill Road, Kendal LA9 4QP|STREET_ADDRESS]] please.", "en"),
    ("Ship to:\n[[Wren House\n9 Saddler Street\nDurham\nDH1 3NP|STREET_ADDRESS]]", "en"),
    ("Post it to [[31 Marine Parade, Napier 4110|STREET_ADDRESS]] by Monday.", "en"),
    ("Address: [[72 Meade Street\nGeorge\n6529|STREET_ADDRESS]]", "en"),
    # names spelt out by an e-mail address
    (
        "Ship to:\n[[WAIRIMU KIPRONO|PERSON]]\nreceipt to [[wairimu.kiprono@fernbank.test|EMAIL_ADDRESS]]",
        "en",
    ),
    (
        "emergency contact: [[teodoro quispealaya|PERSON]] - [[teodoro.quispealaya@pampa.test|EMAIL_ADDRESS]]",
        "en",
    ),
    ("Reviewed-by: [[Anneliese Brzezinski|PERSON]] <[[abrzezinski@tollway.test|EMAIL_ADDRESS]]>", "en"),
    (
        "Lead: [[OLUWASEUN MAKINDE|PERSON]] | Tel [[+44 7700 900418|PHONE_NUMBER]] | "
        "[[makinde-oluwaseun@cargo.test|EMAIL_ADDRESS]]",
        "en",
    ),
    # Surname, Given in records
    ('"[[Brzezinski, Wairimu|PERSON]]";"[[wairimu_b@fernbank.test|EMAIL_ADDRESS]]"', "en"),
    ("Refund approved for [[Kiprono, Anneliese|PERSON]]; send it back to the card.", "en"),
    # lower case after strong cues, chat handles
    ("hi its [[wairimu|PERSON]] again, the link didnt work", "en"),
    ("please log it: my name is [[anneliese brzezinski|PERSON]] and the order never came", "en"),
    ("[09:12] [[teodoro|PERSON]]: is the parcel still in the depot?", "en"),
    ("[17:03] [[maëlle|PERSON]] : j'ai changé de numéro", "fr"),
    # initials: Given L., initial + surname, middle initial
    ("Attendees: [[Wairimu K.|PERSON]], [[Teodoro Q.|PERSON]] and the finance team.", "en"),
    ("Paquete entregado en portería, firma de [[R. Etxeberria|PERSON]].", "es"),
    ("Signed by [[Anneliese J. Brzezinski|PERSON]] on the second page.", "en"),
    # quoted vocatives and signatures
    ("Traduce: «[[Itziar|PERSON]], mañana no hay reparto»", "es"),
    ("Reformule : « [[Maëlle|PERSON]], ton colis est arrivé »", "fr"),
    ("Please update my card ending 4421 before the renewal. [[Wairimu Kiprono|PERSON]]", "en"),
]

PII_FREE: list[tuple[str, str]] = [
    ("npm WARN deprecated left-pad@{V}: use String.prototype.padStart\nadded 12 packages", "en"),
    ("pnpm add lodash-es@{V} --save-exact", "en"),
    ("Company: Larchfield Logistics | Segment: B2B | Region: north", "en"),
    ("The invoice came from Saltmarsh Ceramics and the courier was Ferrow Freight.", "en"),
    ("| Requester | Assignee | Status |\n|---|---|---|\n| ops | infra | open |", "en"),
    ("| Nom | Courriel | Statut |\n|---|---|---|\n| n/a | n/a | actif |", "fr"),
    ("[12:01:33] kubelet: pod sandbox changed, it will be killed and re-created", "en"),
    ("it's raining again, so this is fine for the garden", "en"),
    ("Tickets for London 2012 sold out; Sydney 2000 was quieter.", "en"),
    ("¿Cuál es la capital de Jalisco? Creo que es Guadalajara.", "es"),
]


def _iban(rng: random.Random, country: str, letters: int, rest: int) -> str:
    """A checksum-valid IBAN of ``country``: ``letters`` capitals then ``rest`` alphanumerics."""
    caps, alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    bban = "".join(rng.choice(caps) for _ in range(letters)) + "".join(rng.choice(alnum) for _ in range(rest))
    moved = bban + country + "00"
    check = 98 - int("".join(str(int(c, 36)) for c in moved)) % 97
    return f"{country}{check:02d}{bban}"


def _grouped(iban: str) -> str:
    return " ".join(iban[i : i + 4] for i in range(0, len(iban), 4))


def build() -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """The labelled records and the PII-free records, in file order."""
    rng = random.Random(SEED)
    fills = {
        "PS1": _grouped(_iban(rng, "PS", 4, 21)),
        "PS2": _iban(rng, "PS", 4, 21),
        "PS3": "-".join(_grouped(_iban(rng, "PS", 4, 21)).split()),
    }
    labelled: list[dict[str, object]] = []
    for k, (marked, lang) in enumerate(LABELLED):
        marked = marked.replace("{PS1}", fills["PS1"]).replace("{PS2}", fills["PS2"])
        marked = marked.replace("{PS3}", fills["PS3"])
        text, entities = parse_marked(marked)
        labelled.append({"id": f"r9-{k}", "lang": lang, "text": text, "entities": entities})
    free: list[dict[str, object]] = []
    for k, (template, lang) in enumerate(PII_FREE):
        version = f"{rng.randrange(1, 20)}.{rng.randrange(0, 40)}.{rng.randrange(0, 60)}"
        free.append({"id": f"r9-free-{k}", "lang": lang, "text": template.format(V=version), "entities": []})
    return labelled, free


def main() -> None:
    """Write ``tuning/round9.jsonl`` and ``tuning/pii_free_round9.jsonl``."""
    labelled, free = build()
    write_tuning_files({"round9.jsonl": labelled, "pii_free_round9.jsonl": free})


if __name__ == "__main__":
    main()
