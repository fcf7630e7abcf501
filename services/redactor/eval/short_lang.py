"""Short chat lines in French, Spanish and English (issue 11, "language
detection per text"): greetings, introductions and one-line requests of
2-10 words, the texts a detector trained on long text gets wrong.

Hand-written (no randomness); values are located by search. Writes
``eval/tuning/short-lang.jsonl`` (the cues of ``languages.cue_language`` were
tuned on it) and ``eval/short-lang-heldout.jsonl`` (other texts, written after
that tuning and only measured), same shape as the tuning files, with ``lang``
the language a reader would name. Measure with
``python services/redactor/eval/evaluate.py --samples services/redactor/eval/tuning/short-lang.jsonl``
(its "language detected" line).

Usage: ``python services/redactor/eval/short_lang.py``
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).with_name("tuning") / "short-lang.jsonl"

P, E, T = "PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER"

CASES: dict[str, list[tuple[str, list[tuple[str, str]]]]] = {
    "fr": [
        ("Bonjour, je m'appelle Camille Dubois", [(P, "Camille Dubois")]),
        ("Je suis Jean Martin.", [(P, "Jean Martin")]),
        ("Bonjour Hélène", [(P, "Hélène")]),
        ("Merci beaucoup Julien !", [(P, "Julien")]),
        ("Salut, c'est Léa Bernard", [(P, "Léa Bernard")]),
        ("Écris à paul.roux@exemple.fr", [(E, "paul.roux@exemple.fr")]),
        ("Mon numéro : 06 12 34 56 78", [(T, "06 12 34 56 78")]),
        ("Appelle Marc Lefèvre demain", [(P, "Marc Lefèvre")]),
        ("Résume ce texte pour moi", []),
        ("Peux-tu traduire ça ?", []),
        ("Envoie le devis à Sophie Laurent", [(P, "Sophie Laurent")]),
        ("Oui, c'est bon", []),
        ("Je m'appelle Thomas Petit", [(P, "Thomas Petit")]),
        ("Mon mail est luc.moreau@exemple.fr", [(E, "luc.moreau@exemple.fr")]),
        ("Rappelle-moi au 07 98 76 54 32", [(T, "07 98 76 54 32")]),
        ("Bonsoir, ici Claire Fontaine", [(P, "Claire Fontaine")]),
        ("Dis bonjour à Manon", [(P, "Manon")]),
        ("Où est le bureau de Pierre Garnier ?", [(P, "Pierre Garnier")]),
        ("Merci pour ton aide", []),
        ("Corrige les fautes, s'il te plaît", []),
        ("Contacte Nathalie Girard", [(P, "Nathalie Girard")]),
        ("C'est urgent", []),
        ("Réponds à Antoine Mercier", [(P, "Antoine Mercier")]),
        ("Voici mon adresse : inès.faure@exemple.fr", [(E, "inès.faure@exemple.fr")]),
        ("Je suis Émilie Caron, cliente", [(P, "Émilie Caron")]),
        ("Pas de souci", []),
        ("Bonjour, ça va ?", []),
        ("Qui est Hugo Lambert ?", [(P, "Hugo Lambert")]),
        ("Fais un résumé très court", []),
        ("Mon collègue Olivier Roche", [(P, "Olivier Roche")]),
    ],
    "es": [
        (
            "Hola, soy María García, mi correo es maria.garcia@correo.es",
            [(P, "María García"), (E, "maria.garcia@correo.es")],
        ),
        ("Me llamo Pedro Ruiz.", [(P, "Pedro Ruiz")]),
        ("Hola María", [(P, "María")]),
        ("Gracias, Lucía", [(P, "Lucía")]),
        ("Soy Javier Moreno", [(P, "Javier Moreno")]),
        ("Escribe a ana.lopez@correo.es", [(E, "ana.lopez@correo.es")]),
        ("Mi teléfono: 612 345 678", [(T, "612 345 678")]),
        ("Llama a Carmen Díaz mañana", [(P, "Carmen Díaz")]),
        ("Resume este texto, por favor.", []),
        ("¿Puedes traducir esto?", []),
        ("Envía la factura a Sergio Navarro", [(P, "Sergio Navarro")]),
        ("Sí, está bien", []),
        ("Mi nombre es Laura Jiménez", [(P, "Laura Jiménez")]),
        ("Mi correo es pablo.ruiz@correo.es", [(E, "pablo.ruiz@correo.es")]),
        ("Llámame al 699 123 456", [(T, "699 123 456")]),
        ("Buenas tardes, habla Elena Torres", [(P, "Elena Torres")]),
        ("Saluda a Andrés de mi parte", [(P, "Andrés")]),
        ("¿Dónde está la oficina de Raúl Castro?", [(P, "Raúl Castro")]),
        ("Muchas gracias por tu ayuda", []),
        ("Corrige la ortografía, por favor", []),
        ("Contacta con Beatriz Romero", [(P, "Beatriz Romero")]),
        ("Es urgente", []),
        ("Responde a Diego Herrera", [(P, "Diego Herrera")]),
        ("Esta es mi dirección: jose.vega@correo.es", [(E, "jose.vega@correo.es")]),
        ("Soy Marta Gil, clienta", [(P, "Marta Gil")]),
        ("No pasa nada", []),
        ("Hola, ¿qué tal?", []),
        ("¿Quién es Alberto Ortiz?", [(P, "Alberto Ortiz")]),
        ("Haz un resumen muy corto", []),
        ("Mi compañero Rubén Molina", [(P, "Rubén Molina")]),
    ],
    "en": [
        ("My name is Camille Dubois", [(P, "Camille Dubois")]),
        ("I am Jean Martin.", [(P, "Jean Martin")]),
        ("Hi María", [(P, "María")]),
        ("Thanks a lot, Julien!", [(P, "Julien")]),
        ("Email paul.roux@exemple.fr", [(E, "paul.roux@exemple.fr")]),
        ("Call Carmen Díaz tomorrow", [(P, "Carmen Díaz")]),
        ("Summarise this text", []),
        ("Can you translate this?", []),
        ("Send the invoice to Sergio Navarro", [(P, "Sergio Navarro")]),
        ("Yes, that's fine", []),
        ("Where is Raúl Castro's office?", [(P, "Raúl Castro")]),
        ("Ok thanks", []),
        ("Reply to Antoine Mercier", [(P, "Antoine Mercier")]),
        ("Who is Hugo Lambert?", [(P, "Hugo Lambert")]),
        ("Fix the typos please", []),
        ("Bonjour is French for hello", []),
        ("Translate 'gracias' to English", []),
        ("Contact Nathalie Girard", [(P, "Nathalie Girard")]),
        ("It's urgent", []),
        ("Write a very short summary", []),
    ],
}


HELDOUT_OUT = Path(__file__).with_name("short-lang-heldout.jsonl")

# Written after the cues were tuned on CASES and measured once (never tuned on).
HELDOUT: dict[str, list[tuple[str, list[tuple[str, str]]]]] = {
    "fr": [
        ("Coucou, moi c'est Zoé Martin", [(P, "Zoé Martin")]),
        ("Tu peux relire mon CV ?", []),
        ("Je voudrais parler à Benoît Leroy", [(P, "Benoît Leroy")]),
        ("Mon fils s'appelle Lucas", [(P, "Lucas")]),
        ("Bien reçu, merci", []),
        ("Il faut rappeler Mme Chevalier", [(P, "Chevalier")]),
        ("Envoyez la facture à Gérard Dupont", [(P, "Gérard Dupont")]),
        ("Quelle heure est-il ?", []),
        ("Mon courriel : a.blanc@exemple.fr", [(E, "a.blanc@exemple.fr")]),
        ("Tu connais Agnès Varda ?", [(P, "Agnès Varda")]),
        ("Traduis en anglais", []),
        ("À demain, Florence", [(P, "Florence")]),
        ("Annule ma commande", []),
        ("Le client s'appelle René Colin", [(P, "René Colin")]),
        ("J'ai besoin d'aide", []),
    ],
    "es": [
        ("Buenos días, soy Inés Ramos", [(P, "Inés Ramos")]),
        ("¿Me ayudas con mi currículum?", []),
        ("Quiero hablar con Gonzalo Prieto", [(P, "Gonzalo Prieto")]),
        ("Mi hija se llama Sofía", [(P, "Sofía")]),
        ("Recibido, gracias", []),
        ("Hay que llamar a la señora Vidal", [(P, "Vidal")]),
        ("Manda la factura a Óscar Medina", [(P, "Óscar Medina")]),
        ("¿Qué hora es?", []),
        ("Mi email: c.soto@correo.es", [(E, "c.soto@correo.es")]),
        ("¿Conoces a Pilar Serrano?", [(P, "Pilar Serrano")]),
        ("Traduce al inglés", []),
        ("Hasta mañana, Nuria", [(P, "Nuria")]),
        ("Cancela mi pedido", []),
        ("El cliente se llama Tomás Peña", [(P, "Tomás Peña")]),
        ("Necesito ayuda", []),
    ],
    "en": [
        ("Hey, this is Zoé Martin", [(P, "Zoé Martin")]),
        ("Can you review my CV?", []),
        ("I'd like to talk to Benoît Leroy", [(P, "Benoît Leroy")]),
        ("My son is called Lucas", [(P, "Lucas")]),
        ("Got it, merci", []),
        ("Ring Mrs Chevalier back", [(P, "Chevalier")]),
        ("Send the bill to Óscar Medina", [(P, "Óscar Medina")]),
        ("What time is it?", []),
        ("Do you know Pilar Serrano?", [(P, "Pilar Serrano")]),
        ("Translate to Spanish", []),
        ("See you tomorrow, Nuria", [(P, "Nuria")]),
        ("Cancel my order", []),
        ("The customer is René Colin", [(P, "René Colin")]),
        ("I need help", []),
        ("Adiós means goodbye", []),
    ],
}


def _write(path: Path, cases: dict[str, list[tuple[str, list[tuple[str, str]]]]], prefix: str) -> None:
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        for lang, items in cases.items():
            for text, gold in items:
                entities, cursor = [], 0
                for etype, value in gold:
                    start = text.index(value, cursor)
                    entities.append(
                        {"type": etype, "start": start, "end": start + len(value), "value": value}
                    )
                    cursor = start + len(value)
                n += 1
                record = {"id": f"{prefix}{lang}{n:04d}", "lang": lang, "text": text, "entities": entities}
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(f"wrote {n} records to {path}")


def main() -> None:
    """Write :data:`OUT` (tuning) and :data:`HELDOUT_OUT` (measured only)."""
    _write(OUT, CASES, "ts")
    _write(HELDOUT_OUT, HELDOUT, "th")


if __name__ == "__main__":
    main()
