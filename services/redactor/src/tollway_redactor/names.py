"""Cheap PERSON heuristics around the small NER model (pure, no model).

``en_core_web_sm`` misses or truncates names that chat users type every day.
Three regex rules, applied only when the policy asks for PERSON:

- :func:`cue_names` — a capitalised name right after a strong cue word
  ("Dear", "Hi", "Thanks", "my name is", "attn", "beneficiary", "Mr", a
  sign-off like "love"/"regards"), score :data:`CUE_SCORE`.
- :func:`extend_person` — an NER PERSON span grows over one adjacent
  capitalised word that is not a function or greeting word ("Beatriz"
  + "Tanaka" when the model tagged only "Tanaka").
- :func:`plausible_person` — drop PERSON spans containing a digit or "@" (no
  personal name does; the small model tags "expiry 09/27" or a postcode).
- :func:`gazetteer_names` — a listed first name (Faker's per-country name
  lists, :mod:`tollway_redactor.name_lists`) with up to two capitalised
  words after it, score :data:`GAZETTEER_SCORE` (issue 11, round 3: the
  small English model found 0.73 of unfamiliar names).

These were written after reading the misses on the main evaluation set; the
held-out set (different templates) measures how far they generalise
(``docs/redaction-eval.md``).
"""

from __future__ import annotations

import re

from tollway_redactor.detection import Span
from tollway_redactor.name_lists import (
    EVERYDAY_FIRST_NAMES,
    ambiguous_first_names,
    common_words,
    fold,
    person_names,
    place_names,
    word_zipf,
    world_places,
)

CUE_SCORE = 0.6
GAZETTEER_SCORE = 0.5

# Latin-1 and Latin Extended-A letters (Polish, Czech, Turkish, Baltic: "Bogusław",
# "Dvořák", "Şahin"); that block mixes cases, so its letters count as either.
_NAME_WORD = (
    r"[A-ZÀ-ÖØ-ÞĀ-ž][a-zà-ÿßĀ-ž]+(?:[-'’](?![sS]\b)[A-ZÀ-ÖØ-ÞĀ-ž]?[a-zà-ÿßĀ-ž]+)*"  # not a possessive 's
)
STOP_WORDS = frozenset(
    """
    A An The And Or But If So Of In On At To For From With By About As Into Is Are Was Were Be
    I We You He She They It My Our Your His Her Their This That These Those There Here
    Dear Hi Hello Hey Thanks Thank Please Cheers Regards Best Love Sincerely Yours
    Mr Mrs Ms Miss Dr Prof Sir Madam Team All Everyone Guys Folks Again Also Attn Attention
    Madame Monsieur Mme Mlle Señor Señora Señorita Sr Sra Srta Mx Dra Profa Dña Lic Licda
    Call Ask Tell Email Mail Send Ship Write Draft Contact Customer Colleague Summarise Summarize
    Translate Fix Forward Transfer Wire Refund Parcel Order Log Good Morning Evening Afternoon
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June
    July August September October November December Street Road Avenue Lane Drive Court Way Place
    """.split()
)
# Abbreviations and field labels the small model tags as PERSON ("Tel.",
# "Fax", "Nr.") in letterheads and forms: never a name on their own, and
# never part of one (issue 11).
LABEL_WORDS = frozenset(
    """
    Tel Tél Tlf Telf Fax Mob Mobile Cell Phone Nr No Nº Str Ext Ref Attn Iban Bic Swift Email E-mail
    Mail Web Www Url Fon Telefon Teléfono Téléphone Tfno Móvil Portable Handy Bank Account Acct
    Visa Mastercard Amex Maestro Diners Discover Jcb Unionpay Carte Tarjeta Card
    Policyholder Insured Patient Beneficiary Tenant Assuré Assurée Locataire Titulaire Bénéficiaire
    Asegurado Asegurada Paciente Inquilino Inquilina Titular Beneficiario Beneficiaria Date Fecha Objet
    Asunto Subject Lic Licda Ing Arq Bât Appt Col Dña Dª
    Requester Requestor Reporter Assignee Approver Callback Courriel Correo
    Mon Tue Tues Wed Thu Thur Thurs Fri Lun Mié Jue Vie Sáb Dom Lu Ma Mer Jeu Ven Sam Dim
    """.split()
)
# Imperatives that open a prompt and that the small models tag as PERSON
# ("Summarise", French "Résume"): never a name on their own.
COMMAND_WORDS = frozenset(
    """
    Summarise Summarize Translate Draft Write Rewrite Explain Résume Résumez Rédige Rédigez Écris
    Écrivez Envoie Envoyez Traduis Traduisez Corrige Corrigez Explique Expliquez Resume Resuma Redacta
    Escribe Envía Traduce Explica Corrige Reescribe Appelez Appelle Appelle-moi Appelez-moi Llama Llámame
    Llámeme Peux Pouvez Puedes Restart Deploy Install Upgrade Run Build Update Enable Disable Configure
    Reset Rollback Revert Merge Rebase Ping Schedule Cancel Compare Review Proofread Format Convert Refactor
    Debug Reenvía Reenvoie Transmets Transmettez Envíame Reserva Réserve
    Propose Suggest Give List Calculate Create Generate Find Recommend Prepare Plan Describe Imagine
    Outline Brainstorm Compose Proposez Donne Donnez Fais Faites Dis Dites Montre Montrez Liste Listez
    Calcule Calculez Comparez Crée Créez Génère Générez Trouve Trouvez Aide Aidez Conseille Conseillez
    Recommande Recommandez Prépare Préparez Organise Organisez Vérifie Vérifiez Reformule Reformulez
    Simplifie Simplifiez Décris Décrivez Imagine Imaginez Cite Citez Planifie Planifiez Propón Dame Dime
    Haz Muestra Enumera Calcula Compara Crea Genera Busca Ayúdame Recomienda Prepara Organiza Revisa
    Reformula Simplifica Describe Imagina Sugiere Explícame Resúmeme
    Open Close Start Stop Save Load Move Copy Paste Delete Print Hide Set Get Put Push Pull Pick Sort
    Filter Join Split Turn Bring Fetch Parse Export Import Upload Download Archive
    Refactorise Refactorisez Refactorize Refactoriza Optimise Optimisez Optimiza Optimize Débogue Déboguez
    Depura Documente Documentez Documenta Renomme Renommez Renombra Migre Migrez Migra Teste Testez
    Classe Classez Clasifica Ordena Trie Triez Rank Résume Résumez Resume Resúmelo Recap
    """.split()
)
# Software a technical text names at a sentence start ("Kafka offset ..."):
# on their own never a person in a prompt (as part of a longer name they
# still are: "Mary Jenkins").
TECH_WORDS = frozenset(
    """
    Kafka Redis Valkey Postgres PostgreSQL MySQL SQLite MongoDB Mongo Cassandra Elastic Elasticsearch
    Kibana Grafana Prometheus Jenkins Ansible Terraform Docker Kubernetes Helm Nginx Apache Linux
    Ubuntu Debian Windows GitHub GitLab Jira Slack Python Django Flask Spark Hadoop Airflow React
    Angular Vue Node Rust Java Kotlin Scala Ruby Rails Perl Tollway Presidio Lingua Celery Gunicorn
    Uvicorn Pandas Numpy NumPy Spacy Tiktoken OpenAI Anthropic Claude Gemini Llama Mistral Copilot
    Gradle Maven Webpack Vite Babel Rollup Npm Yarn Pnpm Deno Bun Kibana Logstash Fluentd Loki Tempo
    Jaeger Zipkin Consul Vault Nomad Packer Vagrant Pulumi Puppet Chef Salt Argo Flux Istio Envoy
    Traefik Caddy HAProxy Varnish Memcached RabbitMQ ActiveMQ NATS Pulsar Flink Storm Hive Presto
    Trino Druid Pinot ClickHouse Snowflake BigQuery Redshift Databricks Superset Metabase Tableau
    Looker Sentry Datadog Splunk Nagios Zabbix Icinga Keycloak Okta Auth0 Bazel CMake Ninja Clang
    Rustc Cargo Pip Conda Poetry Pytest Jest Mocha Cypress Playwright Selenium Kotlin Swift Dart
    Flutter Laravel Symfony Spring Quarkus Micronaut Express Nest Nuxt Next Svelte Ember Backbone
    Jupyter Matplotlib Scipy SciPy Sklearn Keras Tensorflow TensorFlow Pytorch PyTorch Horovod Ray
    Dask Polars Arrow Parquet Avro Protobuf Thrift Grpc GraphQL Postman Insomnia Figma Notion Trello
    Asana Confluence Bitbucket Gitea Heroku Netlify Vercel Cloudflare Fastly Akamai Nextcloud Plex
    Zendesk ServiceNow PagerDuty Opsgenie Freshdesk Intercom HubSpot Salesforce Workday Jamf Intune
    """.split()
)
# Greetings, thanks and sign-offs of en/fr/es and neighbours: the small models
# tag "Merci Camille" or "Bonjour" as PERSON; never part of a name (round 6).
GREETING_WORDS = frozenset(
    """
    Hi Hello Hey Dear Thanks Thank Cheers Regards Greetings Merci Bonjour Bonsoir Salut Coucou Cordialement
    Bises Amitiés Hola Gracias Buenos Buenas Saludos Atentamente Abrazos Ciao Grazie Hallo Danke Obrigado
    Obrigada Adieu Adiós Bienvenue Bienvenido Bienvenida Welcome Congrats Congratulations Félicitations Felicidades
    """.split()
)
# Desks and departments that sign a letter or head a column ("Customer
# Services", "Atentamente,\nRecepción", a CSV's "Postcode"): never a person
# on their own (round 11).
DESK_WORDS = frozenset(
    """
    Services Service Support Helpdesk Reception Recepción Accueil Secretaría Secrétariat Billing Accounts
    Sales Administración Administration Facturación Facturation Postcode Postal Zipcode Zip
    """.split()
)
STOP_WORDS = STOP_WORDS | LABEL_WORDS | COMMAND_WORDS | GREETING_WORDS | DESK_WORDS
NOT_NAME_WORDS = LABEL_WORDS | COMMAND_WORDS | TECH_WORDS | GREETING_WORDS | DESK_WORDS

_CUE = re.compile(  # one or more cues: "Chère Madame Lefort", "Best Regards, Ana"
    r"(?:(?<=\W)|^)(?:(?i:dear|hi|hello|hey|thanks|thank\s+you|attn\.?|attention|beneficiary|"
    r"my\s+name\s+is|i\s+am|i'm|i’m|this\s+is|cardholder|card\s+holder|signed\s+for\s+by|"
    r"love|regards|cheers|best(?=[,!]|[ \t]*\n|[ \t]+(?i:regards|wishes))|sincerely|yours\s+truly|many\s+thanks|"
    r"congratulations|congrats|félicitations|felicidades|"
    r"bonjour|bonsoir|salut|cher|chère|merci|je\s+m['’]appelle|je\s+suis|"
    r"madame|monsieur|mme\.?|mlle\.?|cordialement|bien\s+à\s+vous|amitiés|bises|"
    r"hola|buenos\s+días|buenas\s+tardes|estimado|estimada|gracias|me\s+llamo|soy|oye|"
    r"señor|señora|señorita|don|doña|atentamente|saludos|un\s+saludo|un\s+abrazo)[,:]?\s+"
    # titles: capitalised and on the name's line ("0.8 ms\nExecution Time" is no "Ms X")
    r"|(?:Mr|Mrs|Ms|Mx|Dr|Dra|Prof|Profa|Pr|MR|MRS|MS|DR|DRA|Lic|Licda|Ing|Dña|Sr|Sra|Srta)\.?[ \t]+)+"
    rf"(?P<name>{_NAME_WORD}(?:[ \t]+{_NAME_WORD}){{0,2}})"  # a name never spans lines
)
_LEFT_WORD = re.compile(rf"(?:(?<=\s)|^)({_NAME_WORD}|[A-Z]\.)[ \t]+$")  # never across lines; an initial too
# Particles of surnames ("van der Berg", "de la Cruz", "al-Haddad") and a middle
# initial ("Harriet R. Ashworth"): part of the name after a found given name.
_PARTICLE = r"(?:van\s+der|van\s+den|van|von|der|de\s+la|de\s+las|de\s+los|del|de|da|di|du|dos|das|bin|ben|ibn|[A-Z]\.)"
_RIGHT_WORD = re.compile(rf"^[ \t]+((?:{_PARTICLE}[ \t]+)?(?:al-)?{_NAME_WORD})(?=\W|$)")
_NOT_NAME = re.compile(r"[\d@]")


_LOWER_AFTER = re.compile(r"[ \t]+[a-zà-ÿß]")
# a title right before the name: then a rare-ish word after it is a surname
# ("la Dra. Cienfuegos para...", round 8), not a team ("Best,\nOps team")
_TITLE_BEFORE = re.compile(
    r"(?<![\w.])(?:Mr|Mrs|Ms|Mx|Dr|Dra|Prof|Profa|Pr|Lic|Licda|Ing|Dña|Sr|Sra|Srta)\.?[ \t]+$"
)


def cue_names(text: str) -> list[Span]:
    """PERSON spans for capitalised words after a cue word; stop words end the name.
    A one-word name followed by a lower-case word that is an article (``Le``)
    or an unlisted everyday word (zipf >= 3: ``Ops team``) is no name; alone on
    its line (``Kind regards,\nBao``) it stays, and so does one after a title
    (``Dra. Cienfuegos para``, round 8)."""
    out: list[Span] = []
    for m in _CUE.finditer(text):
        base = m.start("name")
        end = None
        for w in re.finditer(r"\S+", m.group("name")):
            if w.group() in STOP_WORDS:
                break
            end = base + w.end()
        if end is None:
            continue
        name = text[base:end]
        titled = _TITLE_BEFORE.search(text, m.start(), base) is not None
        if (
            not titled
            and " " not in name
            and _LOWER_AFTER.match(text, end)
            and (name.lower() in ARTICLES or (not _listed(name) and word_zipf(name) >= EVERYDAY_ZIPF))
        ):
            continue  # "Best,\nOps team", "Cordialement,\nLe secrétariat": a team, not a person (round 6)
        out.append(Span("PERSON", base, end, CUE_SCORE))
    return out


def extend_person(text: str, span: Span) -> Span:
    """``span`` grown over one capitalised non-stop word (or an initial, ``M.``) on
    its left and one on its right, with a surname particle or middle initial
    before it (``Minh van der Tran``, ``Leila al-Haddad``, ``Harriet R. Ashworth``)."""
    start, end = span.start, span.end
    left = _LEFT_WORD.search(text[max(0, start - 40) : start])
    if left and left.group(1) not in STOP_WORDS:
        start -= len(left.group(0))
    right = _RIGHT_WORD.match(text[end : end + 40])
    if right and right.group(1).split()[-1].removeprefix("al-") not in STOP_WORDS:
        end += len(right.group(0))
    if (start, end) == (span.start, span.end):
        return span
    return Span(span.entity_type, start, end, span.score)


def first_line(text: str, span: Span) -> Span:
    """``span`` cut at its first line break: a name never spans lines (the small
    model tags "Hannah Kleinschmidt\\nHead" in a signature block)."""
    if text.find("\n", span.start, span.end) < 0:
        return span
    for m in re.finditer(r"[^\n]+", text[span.start : span.end]):
        if any(c.isalpha() for c in m.group()):  # the first line with a letter in it
            start = span.start + m.start() + len(m.group()) - len(m.group().lstrip())
            return Span(span.entity_type, start, span.start + len(m.group().rstrip()) + m.start(), span.score)
    return span


def plausible_person(text: str, span: Span) -> bool:
    """False for a PERSON span with a digit or '@' in it, or that is one word naming
    a place that is also a given name (``Austin``, ``Paris``:
    :func:`tollway_redactor.name_lists.place_names`: countries and US states too)."""
    value = text[span.start : span.end]
    return not _NOT_NAME.search(value) and value not in place_names()


_WORD = re.compile(r"[^\s.,:;]+[.]?")


def trim_labels(text: str, span: Span) -> Span | None:
    """``span`` without leading/trailing :data:`NOT_NAME_WORDS` ("Tel. Jane Roe" -> "Jane Roe").

    Returns None when nothing but label words (and punctuation) is left.
    """
    words = [
        (m.start() + span.start, m.end() + span.start) for m in _WORD.finditer(text[span.start : span.end])
    ]

    def is_label(w: tuple[int, int]) -> bool:
        return text[w[0] : w[1]].rstrip(".").strip("'’[](){}") in NOT_NAME_WORDS

    while words and is_label(words[0]):
        words.pop(0)
    while words and is_label(words[-1]):
        words.pop()
    if not words:
        return None
    start, end = words[0][0], words[-1][1]
    if (start, end) == (span.start, span.end):
        return span
    return Span(span.entity_type, start, end, span.score)


# Words that commonly open a sentence and are not names: a sentence whose only
# capitalised word is one of these (or "I") does not need NER.
OPENERS = STOP_WORDS | frozenset(
    """
    What How Why When Where Who Which Whose Could Would Should Can Will Do Does Did Have Has Had
    Yes No Ok Okay Sure Then Now Let Make Give Show Explain List Generate Create Keep Last Next
    First Second Finally Just Maybe Because Since While Although However After Before Also Not
    Is Are Was Were Be Been Am Any Some Every Each Other Another Many Much More Most One Two Three
    Its It's I'm I've I'll I'd Don't Can't Won't Isn't There's That's What's Let's Here's
    Use Add Remove Update Change Check Find Help Need Want Try Read See Look Note Remember Thanks
    """.split()
)
_SENTENCE = re.compile(r"[^\n]+?(?:[.!?]+(?=\s|$)|\n|$)")  # a dot inside an e-mail does not end it
_CAP_WORD = re.compile(r"(?<![\w@.])[A-ZÀ-ÖØ-ÞĀ-ž][a-zà-ÿßĀ-ž'’]+")


def ner_segments(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the sentences of ``text`` that may hold a name.

    A sentence qualifies when it has a capitalised word (``[A-Z][a-z]+``,
    not inside an e-mail or identifier) that is not in :data:`OPENERS`.
    Text with no such word (lower-case chat, code, numbers) skips NER: the
    small model finds almost no names there (measured in
    ``docs/redaction-eval.md``).
    """
    out: list[tuple[int, int]] = []
    for m in _SENTENCE.finditer(text):
        if any(w.group() not in OPENERS for w in _CAP_WORD.finditer(m.group())):
            if out and out[-1][1] == m.start():
                out[-1] = (out[-1][0], m.end())  # merge neighbours: fewer, longer NER calls
            else:
                out.append((m.start(), m.end()))
    return out


# A capitalised word standing alone: not inside an e-mail, path, identifier,
# CamelCase or snake_case token.
_CAP_TOKEN = re.compile(rf"(?<![\w@./\\#$%&=:_-]){_NAME_WORD}(?![\w@/\\_=(]|[.:-]\w)")


# Month names and their abbreviations: beside a number they are a date ("17 Jan
# 2026", "ETA 19 Sep"), never a person ("Jan" is a Dutch and Polish name).
MONTH_WORDS = frozenset(
    """
    Jan Feb Mar Apr May Jun Jul Aug Sep Sept Oct Nov Dec January February March April June July
    August September October November December Janv Févr Avr Juil Sept Déc Ene Abr Ago Dic
    """.split()
)
_DATE_BEFORE = re.compile(r"\d[\s,./-]{0,2}$")
_DATE_AFTER = re.compile(r"^[\s,./-]{0,2}\d")
# Characters a name never holds but code does: calls, pointers, paths,
# assignments, generics, snake_case, attribute access ("main.(*Server).handle",
# "LedgerRepository(BaseModel)", "Object.keys"), and digits.
_CODE_TOKEN = re.compile(r"[()\[\]{}<>*_/\\=|$#@\d]|\w{2,}\.\w|::|->")
# An upper-case letter right after a lower-case one inside a word is CamelCase
# ("OrderProcessor") unless a surname prefix explains it (McKenzie, DeShawn).
_CAMEL = re.compile(r"[a-zà-ÿß][A-ZÀ-ÖØ-Þ]")
_NAME_PREFIX = re.compile(r"^(?:Mc|Mac|O['’]|De|Di|Da|Du|La|Le|Van|Von|Fitz)[A-ZÀ-ÖØ-Þ]")
_EDGE = "\"'«»“”‘’`,;:.!?()[]{}*_~"  # markdown emphasis too: **Jane Doe**
_KEY_VALUE = "=;,\"'"  # "name=Jane Doe;", '"name": "Jane Doe"': the value is no code
_ASSIGNED = re.compile(r"^\s*(?:=(?!=)|:=|\+=)")


def code_or_date(text: str, span: Span) -> bool:
    """True when ``span`` is code or a date, not a person's name.

    Code: a word of the span sits in a whitespace-delimited token (surrounding
    quotes, brackets and sentence punctuation stripped) that holds a code
    character, a digit or an attribute access (``main.(*Server).handle``,
    ``LedgerRepository(BaseModel)``), or is CamelCase (``OrderProcessor``;
    not ``McKenzie``), or the span is assigned to (``max = 5``). Date: the
    span is one month word (``Jan``, ``Sep``, ``Oct``) with a number beside it.
    Names in parentheses (``(Marisol Brannigan).``) and values of key-value
    pairs (``name=Jane Doe;``) are not code.
    """
    value = text[span.start : span.end]
    if value in MONTH_WORDS and (
        _DATE_BEFORE.search(text[max(0, span.start - 4) : span.start])
        or _DATE_AFTER.match(text[span.end : span.end + 4])
    ):
        return True
    if _ASSIGNED.match(text[span.end : span.end + 4]):
        return True
    start, end = span.start, span.end
    while start > 0 and not text[start - 1].isspace() and text[start - 1] not in _KEY_VALUE:
        start -= 1
    while end < len(text) and not text[end].isspace() and text[end] not in _KEY_VALUE:
        if text[end] == "\\" and text[end + 1 : end + 2] == '"':
            break  # an escaped quote closes a value in JSON inside a JSON string (round 10)
        end += 1
    for token in text[start:end].split():
        core = token.strip(_EDGE)
        if _CODE_TOKEN.search(core):
            return True
        if _CAMEL.search(core) and not _NAME_PREFIX.match(core):
            return True
    return False


# Verbs and nouns whose object is a person, not a product or a company ("cc X",
# "remind X", "attendees: X", "avisa a X"; not "ask", "tell", "contact" or
# "call": "Ask Google Assistant", "contact Microsoft Support"): a weaker cue
# than a greeting.
_PERSON_CONTEXT = re.compile(
    r"(?:(?<=\W)|^)(?i:cc|bcc|met|remind|invite|thank|thanking|"
    r"under\s+the\s+name|attendees?:|referees?:|guests?:|intro\s+to|introduce|customer|client|patient|"
    r"prévenir|préviens|invite[rz]?|remercie[rz]?|"
    r"avisa\s+a|avise\s+a|invita\s+a|dile\s+a)\s+"
    rf"(?P<name>{_NAME_WORD}(?: {_NAME_WORD})?)(?![\w@/\\_=(-]|\.\w)"
)


_COMPOUND = re.compile(r"-(?:based|born|style|like|free|friendly|only|wide|related|specific|compatible)$")


def context_names(text: str) -> list[Span]:
    """PERSON spans for one or two capitalised words right after a verb or noun that
    takes a person (``intro to Soo-jin Stroud``, ``cc Rosamund``, ``avisa a
    Ainhoa Fuentes``), score :data:`GAZETTEER_SCORE`.

    Every word must be a possible name: no stop, label, command or software
    word, no everyday word of a supported or nearby language, no ambiguous
    first name and no place (:mod:`tollway_redactor.name_lists`); the first
    word that is not ends the name.
    """
    common = common_words()
    ambiguous = ambiguous_first_names()
    places = place_names()
    _, last = person_names()
    never = NOT_NAME_WORDS | OPENERS | MONTH_WORDS
    out: list[Span] = []
    for m in _PERSON_CONTEXT.finditer(text):
        base = m.start("name")
        end = None
        for w in re.finditer(r"\S+", m.group("name")):
            word = w.group()
            if word in never or word in places or _COMPOUND.search(word):
                break
            if (word in ambiguous or word.lower() in common) and (end is None or word not in last):
                break  # an everyday word, unless it is the surname after a name ("Soo-jin Park")
            end = base + w.end()
        if end is not None:
            out.append(Span("PERSON", base, end, GAZETTEER_SCORE))
    return out


def everyday_word(text: str, span: Span) -> bool:
    """True when ``span`` is one word that is an everyday or stop word of en, fr, es,
    de, it, nl or pt (:func:`tollway_redactor.name_lists.common_words`) and no
    listed first name or surname: the small models tag a sentence-initial noun
    or question word as PERSON (French ``Livraison``, Spanish ``Qué``)."""
    value = text[span.start : span.end]
    if " " in value or value.lower() not in common_words():
        return False
    first, last = person_names()
    return value not in first and value not in last


# An initial before a surname: "signed by M. Pham" (not "U.S. Steel": the
# initial stands alone).
_INITIAL_SURNAME = re.compile(rf"(?<![\w.])[A-Z]\.[ \t]+({_NAME_WORD})(?![\w@/\\_=(-]|\.\w)")


def gazetteer_names(text: str) -> list[Span]:
    """PERSON spans for listed first names, with up to two capitalised words after them.

    A capitalised word that is a listed first name starts a name; the next
    one or two capitalised words joined to it by one space join it
    (``Imogen Farrow``, ``Soo-jin Park``); an initial before a listed surname
    (``M. Pham``) is one too. A first name that is also an
    everyday word, place, software name or stop word
    (:func:`tollway_redactor.name_lists.ambiguous_first_names`: ``Will``,
    ``Grace``, ``Paris``) counts only when a listed surname follows it.
    Label, command, stop and software words (:data:`NOT_NAME_WORDS`,
    :data:`STOP_WORDS`, :data:`OPENERS`) never start or join a name. The
    NER model's label does not veto a name: the small English model tags
    "Keisha Mbeki" GPE, "Imogen Farrow" ORG and "Jasper" alone GPE; places
    that are given names are in the ambiguous list instead. Score :data:`GAZETTEER_SCORE`.
    """
    first, last = person_names()
    ambiguous = ambiguous_first_names()
    words = list(_CAP_TOKEN.finditer(text))
    never = NOT_NAME_WORDS | OPENERS
    out: list[Span] = [
        Span("PERSON", m.start(), m.end(), GAZETTEER_SCORE)
        for m in _INITIAL_SURNAME.finditer(text)
        if _plain_surname(m.group(1), last, never)
    ]
    i = 0
    while i < len(words):
        name = words[i].group()
        if name not in first or name in never:
            if (
                i + 1 < len(words)
                and name not in never
                and name not in last
                and text[words[i].end() : words[i + 1].start()] == " "
                and _plain_surname(words[i + 1].group(), last, never)
                and name.lower() not in common_words()
                and name not in place_names()
            ):
                # an unlisted given name before a listed surname ("Soo-jin Pemberton")
                out.append(Span("PERSON", words[i].start(), words[i + 1].end(), GAZETTEER_SCORE))
                i += 2
                continue
            i += 1
            continue
        j = i
        while (
            j + 1 < len(words)
            and j - i < 2
            and text[words[j].end() : words[j + 1].start()] == " "
            and words[j + 1].group() not in never
        ):
            j += 1
        if name in ambiguous and (j == i or words[i + 1].group() not in last):
            i += 1
            continue
        start, end = words[i].start(), words[j].end()
        # a first name we do not list before it ("Tamsin" of "Tamsin Vance")
        out.append(extend_person(text, Span("PERSON", start, end, GAZETTEER_SCORE)))
        i = j + 1
    return out


def _plain_surname(word: str, last: frozenset[str], never: frozenset[str]) -> bool:
    """A listed surname that is no everyday word, stop word, place or label."""
    return (
        word in last
        and word not in never
        and word.lower() not in common_words()
        and word not in place_names()
    )


_LOWER_WORD = re.compile(r"(?<![\w@./\\#$%&=:_-])[a-zà-ÿßĀ-ž]{2,}(?:-[a-zà-ÿßĀ-ž]+)?(?![\w@/\\_=(]|[.:-]\w)")


def _capitalise(word: str) -> str:
    return "-".join(p[:1].upper() + p[1:] if i == 0 else p for i, p in enumerate(word.split("-")))


def lowercase_names(text: str) -> list[Span]:
    """PERSON spans for a listed first name and a listed surname typed in lower case
    ("remind priya raman about the standup").

    Both words must be listed (:func:`tollway_redactor.name_lists.person_names`)
    and neither may be an everyday or stop word of a supported or nearby
    language, a place, a label/command/software word or an ambiguous first
    name (``will``, ``mark``), so ordinary lower-case prose never matches.
    Score :data:`GAZETTEER_SCORE`.
    """
    first, last = person_names()
    ambiguous = ambiguous_first_names()
    common = common_words()
    places = place_names()
    words = list(_LOWER_WORD.finditer(text))
    out: list[Span] = []
    for a, b in zip(words, words[1:], strict=False):
        if text[a.end() : b.start()] != " " or a.group() in common or b.group() in common:
            continue
        given, family = _capitalise(a.group()), _capitalise(b.group())
        if given not in first or given in ambiguous or family not in last:
            continue
        if {given, family} & NOT_NAME_WORDS or family in places:
            continue
        out.append(Span("PERSON", a.start(), b.end(), GAZETTEER_SCORE))
    return out


# --- Round 6 (issue 11): why a model or list span is not a person -------------

# Articles and determiners: "a Raspberry Pi", "la Corse", "the Landlord". A
# person's name does not follow one, unless it is a listed name ("the Johnson
# account", "la Dupont").
ARTICLES = frozenset(
    "a an the this that these those un une le la les el los las una unos unas des du ce cette ces al au aux".split()
)
_WORD_BEFORE = re.compile(r"(?:^|(?<=\s))([^\W\d_]+)[ \t]+$")
_WORD_AFTER = re.compile(r"^[ \t]+([^\W\d_]+)")
# Keywords after which a capitalised word is a type or module ("implements
# Runnable", "extends Base", "raise Timeout", "import Foundation").
CODE_KEYWORDS = frozenset(
    "implements extends class interface instanceof throws struct enum trait impl def fn func import "
    "raise catch except typeof namespace".split()
)
# Determiners and object pronouns that follow an imperative verb, never a
# sentence-opening name ("Manda el presupuesto", "Envoie le devis", "Mark the box").
_AFTER_VERB = frozenset(
    "the a an this that my your our el la los las un una le les ce cette mon ma mes ton ta tes notre votre "
    "mi tu su nuestro me te nos lo".split()
)
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n)[\s\"'«“(\-*•]*$")
EVERYDAY_ZIPF = 3.0
"""A capitalised sentence-opening word used at least this often (zipf: once per
million words) in the text's language, and listed as no name, is the word."""
EVERYDAY_NAME_ZIPF = 4.0
"""A listed name this frequent as a word (``Manda``: Spanish "sends", 4.4) is the
word when it opens a sentence and a determiner follows it."""


def _listed(word: str) -> bool:
    first, last = person_names()
    return word in first or word in last


_LEADING_ARTICLE = re.compile(r"^([^\W\d_]+)[ \t]+")


def trim_article(text: str, span: Span) -> Span:
    """``span`` without a leading lower-case article (the model's ``a Raspberry
    Pi`` -> ``Raspberry Pi``, which :func:`after_article` then judges)."""
    m = _LEADING_ARTICLE.match(text[span.start : span.end])
    if m is None or m.group(1) not in ARTICLES or m.end() >= span.length:
        return span
    return Span(span.entity_type, span.start + m.end(), span.end, span.score)


def after_article(text: str, span: Span, lang: str | None = "en") -> bool:
    """True when the word before ``span`` (same line) is an article or determiner
    (:data:`ARTICLES`) and the span's first word is no listed name: ``a Raspberry
    Pi``, ``la Corse``, ``the Landlord`` (not ``the Johnson account``). ``a`` is
    an article only in English text (``lang`` "en"): Spanish puts it before a
    person (``llamen a Ainhoa Vidal``), French writes "has" so."""
    m = _WORD_BEFORE.search(text[max(0, span.start - 30) : span.start])
    if m is None or m.group(1).lower() not in ARTICLES or (m.group(1) == "a" and lang != "en"):
        return False
    words = text[span.start : span.end].split()
    return not words or not _listed(words[0])


def shouted_word(text: str, span: Span) -> bool:
    """True when ``span`` is one word in capitals (``PRIMARY``, ``GB``, ``UTC``)
    that is not a listed first name in capitals (``JOHN``)."""
    value = text[span.start : span.end]
    if " " in value or not value.isupper() or len(value) < 2:
        return False
    first, _ = person_names()
    return value.capitalize() not in first or value.capitalize() in ambiguous_first_names()


def after_code_keyword(text: str, span: Span) -> bool:
    """True when ``span`` follows a type or module keyword (:data:`CODE_KEYWORDS`):
    ``implements Runnable``, ``class Foo``."""
    m = _WORD_BEFORE.search(text[max(0, span.start - 30) : span.start])
    return m is not None and m.group(1) in CODE_KEYWORDS


def is_place(text: str, span: Span) -> bool:
    """True when ``span`` is a city of 15,000 people or more, a country, a
    continent or a US state (:func:`tollway_redactor.name_lists.world_places`:
    ``Marrakesh``, ``Reykjavik``, ``Edinburgh``) and no word of it is a listed
    first name or surname (``Florence``, ``Porto`` and ``Jackson`` stay names here;
    see :func:`coordinated_places`)."""
    value = text[span.start : span.end]
    if _SAINT_PLACE.match(value) and (value in world_places() or _PLACE_LINK.search(value)):
        # "San Sebastián", "Santa Marta", "San Cristóbal de La Laguna": the saint names the place (round 8)
        return True
    return value in world_places() and not any(_listed(w) for w in value.split())


# A saint's title before a given name names a town, not a person ("San
# Sebastián", "Santa Marta", "Saint-Étienne"): taken when the whole span is a
# listed place or a link word joins a second part ("San Cristóbal de La
# Laguna", "Santiago de Compostela" is no saint) (:func:`is_place`).
_SAINT_PLACE = re.compile(r"^(?:San|Santa|Santo|São|Sant|Saint|Sainte)[ \t\-][A-ZÀ-ÖØ-Þ]")
_PLACE_LINK = re.compile(r"[ \t](?:de|del|do|da|dos|das|de[ \t]+la|de[ \t]+las|de[ \t]+los)[ \t]")


def sentence_opening_word(text: str, span: Span, lang: str | None) -> bool:
    """True when ``span`` is one word opening a sentence that is an everyday word
    of ``lang`` (any of en/fr/es when None): capitals carry no signal there.

    An unlisted word needs a zipf frequency of :data:`EVERYDAY_ZIPF`
    (``Landlord``, ``Livraison``); a listed name :data:`EVERYDAY_NAME_ZIPF`
    and a determiner or object pronoun after it (``Manda el presupuesto``, not
    ``Rosa dice``), or a conjunction and a lower-case word (two imperatives:
    ``Elige y argumenta``, not ``Rosa y Juan``; round 8).
    """
    value = text[span.start : span.end]
    if not value.isalpha() or not _SENTENCE_START.search(text[max(0, span.start - 8) : span.start]):
        return False
    if not _listed(value):
        return word_zipf(value, lang) >= EVERYDAY_ZIPF
    after = _WORD_AFTER.match(text[span.end : span.end + 20])
    if after is None or word_zipf(value, lang) < EVERYDAY_NAME_ZIPF:
        return False
    if after.group(1) in _AFTER_VERB:
        return True
    then = _WORD_AFTER.match(text[span.end + after.end() : span.end + after.end() + 20])
    return after.group(1) in _CONJUNCTIONS and then is not None and then.group(1).islower()


_CONJUNCTIONS = frozenset("y e o u et ou and or".split())


_CODE_MARKS = re.compile(r"[{};]|=>|->|::|:=|==|!=|&&|\|\||\(\)")
_COMMENT = re.compile(r"//|#\s|/\*|--\s")


def in_code_line(text: str, span: Span) -> bool:
    """True when ``span`` sits in a line of code, outside string literals and
    comments: the line holds two or more code marks (``{``, ``}``, ``;``,
    ``=>``, ``->``, ``::``, ``:=``, ``==``, ``()``...), not only semicolons,
    and the span is not inside quotes (``{"name": "Jane Doe"}`` and
    ``User(name="Jane")`` keep their names), after a comment marker, or the
    value of a key (``name=Jane Doe;``). ``type Server struct { Addr
    string; ... }``, ``class BillingService(...) : Closeable { ... }``."""
    line_start = text.rfind("\n", 0, span.start) + 1
    line_end = text.find("\n", span.end)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    marks = _CODE_MARKS.findall(line)
    if len(marks) < 2 or all(m == ";" for m in marks):
        return False  # "name=Jane Doe; phone=...; email=...": data, not code
    before = text[line_start : span.start]
    if _COMMENT.search(before) or before.rstrip().endswith(("=", ":")):
        return False  # a comment, or the value of a key ("name: Jane Doe")
    return before.count('"') % 2 == 0 and before.count("'") % 2 == 0 and before.count("`") % 2 == 0


def everyday_anywhere(text: str, span: Span, lang: str | None) -> bool:
    """True when ``span`` is one word, listed as no name, that is a common word
    of ``lang`` (zipf >= :data:`EVERYDAY_NAME_ZIPF`: ``Practices``, ``Server``
    in prose) wherever it stands. Famous single surnames (``Obama``) are
    words by this measure and go too; a name with its given name stays."""
    value = text[span.start : span.end]
    return value.isalpha() and not _listed(value) and word_zipf(value, lang) >= EVERYDAY_NAME_ZIPF


_LOWER_WORD_IN_SPAN = re.compile(r"(?<=\s)[a-zà-ÿß][\w'’-]*")
_PARTICLES = frozenset("van der den von de la las los del da di du dos das le bin ben ibn y e".split())


def cut_at_lowercase(text: str, span: Span) -> Span | None:
    """``span`` cut before its first lower-case word that is no surname particle
    (the model's ``Departamento de compras`` -> ``Departamento``, ``Jane said``
    -> ``Jane``), trailing particles dropped; None when nothing is left."""
    value = text[span.start : span.end]
    cut = None
    for m in _LOWER_WORD_IN_SPAN.finditer(value):
        if m.group() not in _PARTICLES:
            cut = m.start()
            break
    if cut is None:
        return span
    words = value[:cut].split()
    while words and words[-1] in _PARTICLES:
        words.pop()
    if not words:
        return None
    end = span.start + value.index(words[-1], len(" ".join(words[:-1]))) + len(words[-1])
    return Span(span.entity_type, span.start, end, span.score)


def not_a_person(text: str, span: Span, lang: str | None = None) -> str | None:
    """Why ``span`` (found by the model or the name lists) is no person's name, or
    None: ``"layout"`` (runs of spaces: table columns), ``"article"``
    (:func:`after_article`), ``"capitals"`` (:func:`shouted_word`), ``"code"``
    (:func:`after_code_keyword`, :func:`in_code_line`), ``"place"``
    (:func:`is_place`), ``"everyday"`` (:func:`sentence_opening_word`,
    :func:`everyday_anywhere`). Issue 11, round 6; cue spans ("Dear X") and
    deny-listed words skip it."""
    if "  " in text[span.start : span.end] or "\t" in text[span.start : span.end]:
        return "layout"
    if after_article(text, span, lang):
        return "article"
    if shouted_word(text, span):
        return "capitals"
    if after_code_keyword(text, span) or in_code_line(text, span):
        return "code"
    if is_place(text, span):
        return "place"
    if sentence_opening_word(text, span, lang) or everyday_anywhere(text, span, lang):
        return "everyday"
    if everyday_words_only(text, span, lang) or label_before_number(text, span):
        return "everyday"
    if summarised_title(text, span):
        return "title"
    return None


_SUMMARY_VERBS = frozenset(
    "Summarise Summarize Recap Résume Résumez Resume Resúmeme Resumir Reseña Critique Analyse Analyze".split()
)


def summarised_title(text: str, span: Span) -> bool:
    """True when ``span`` is one unlisted word right after a summary verb (``Résume
    Arcane sans...``, ``Summarise Dune``) and not a possessive (``Summarise
    Tamsin's notes``): the object of a summary is a work, not a person."""
    value = text[span.start : span.end]
    if " " in value or _listed(value) or text.startswith(("'s", "’s"), span.end):
        return False
    m = _WORD_BEFORE.search(text[max(0, span.start - 20) : span.start])
    return m is not None and m.group(1) in _SUMMARY_VERBS


_TITLE_ARTICLES = frozenset("The Le La Les El Los Las L".split())


def everyday_words_only(text: str, span: Span, lang: str | None) -> bool:
    """True when ``span`` has two or more words, none a listed name, and each an
    everyday word of ``lang`` (zipf >= :data:`EVERYDAY_ZIPF`: ``Execution
    Time``, ``Blade Runner``, ``Spirited Away``), or opens with a capitalised
    article followed by an everyday word (``Le Petit Prince``, ``Le Chant du
    loup``; not ``Le Goff``): a title or a label, not a person (round 7)."""
    words = re.findall(r"[^\W\d_]+(?:['’-][^\W\d_]+)*", text[span.start : span.end])
    if len(words) < 2:
        return False
    if words[0] in _TITLE_ARTICLES:
        zipf = word_zipf(words[1], lang)  # "Petit" is a surname too, and a word first
        return zipf >= EVERYDAY_NAME_ZIPF or (not _listed(words[1]) and zipf >= EVERYDAY_ZIPF)
    return all(not _listed(w) and word_zipf(w, lang) >= EVERYDAY_ZIPF for w in words)


_NUMBER_AFTER_LABEL = re.compile(r"[ \t]*:[ \t]*[-+]?\d")


def label_before_number(text: str, span: Span) -> bool:
    """True when ``span`` is followed by a colon and a number (``Planning Time:
    0.8 ms``, ``Total Cost: 12``) and no word of it is a listed first name:
    a field label of a report or log (round 7)."""
    if _NUMBER_AFTER_LABEL.match(text, span.end) is None:
        return False
    first, _ = person_names()
    return not any(w in first for w in text[span.start : span.end].split())


_CONJUNCTION = r"(?:\s*,\s*(?:and\s+|et\s+|y\s+|or\s+|ou\s+|o\s+)?|\s+(?:and|or|&|et|ou|y(?:\s+a)?|o|e|und|vs\.?|versus)\s+)"
_CONJ_AFTER = re.compile(rf"^{_CONJUNCTION}$")


_PLACE_WORDS = rf"{_NAME_WORD}(?:[ \t]+{_NAME_WORD})?"
_PLACE_NEIGHBOUR_AFTER = re.compile(rf"^(?:{_CONJUNCTION}|\s+to\s+)(?P<w>{_PLACE_WORDS})")
_PLACE_NEIGHBOUR_BEFORE = re.compile(rf"(?:(?<=\s)|^)(?P<w>{_PLACE_WORDS})(?:{_CONJUNCTION}|\s+to\s+)$")
_PLACE_PREPOSITION = re.compile(
    r"(?:^|\s)(?i:in|near|via|visit|visiting|around|across|outside|à|en|desde|hasta|hacia)[ \t]+$"
)


def _sure_place(words: str) -> bool:
    """One or two words naming a place and no listed name (``Tallinn``, ``Kraków``)."""
    if words in world_places() and (" " in words or not _listed(words)):
        return True  # "Porto Alegre": a city of two words is no person
    first = words.split()[0]
    return first in world_places() and not _listed(first)


def coordinated_places(text: str, spans: list[Span], places: list[Span]) -> list[Span]:
    """``spans`` without the PERSON spans naming a place (listed name or not) that
    stand beside another place or after a place preposition:
    ``Is Lisbon or Porto better`` (``Porto`` is a listed surname, but beside
    Lisbon it is the city), ``from Porto Alegre to Kraków``, ``three days in
    Wellington``. ``places``: spans already judged places."""
    out = []
    for s in spans:
        value = text[s.start : s.end]
        if s.entity_type == "PERSON" and value in world_places() and not text.startswith(("'s", "’s"), s.end):
            if any(
                _CONJ_AFTER.match(text[p.end : s.start] if p.end <= s.start else text[s.end : p.start])
                for p in places
            ):
                continue
            after = _PLACE_NEIGHBOUR_AFTER.match(text[s.end : s.end + 60])
            before = _PLACE_NEIGHBOUR_BEFORE.search(text[max(0, s.start - 60) : s.start])
            if (after and _sure_place(after.group("w"))) or (before and _sure_place(before.group("w"))):
                continue
            if _PLACE_PREPOSITION.search(text[max(0, s.start - 20) : s.start]):
                continue
        out.append(s)
    return out


def _everyday_in_english(word: str) -> bool:
    """An English word or a place as well as a given name (``Will``, ``Grace``, ``Florence``)."""
    return (
        word in EVERYDAY_FIRST_NAMES
        or word in world_places()
        or word in place_names()
        or word_zipf(word, "en") >= EVERYDAY_NAME_ZIPF
    )


def _possible_name_word(word: str, after_name: bool) -> bool:
    """A capitalised word that may be (part of) a name beside a known name."""
    if word in NOT_NAME_WORDS or word in OPENERS or word in MONTH_WORDS or word in STOP_WORDS:
        return False
    first, last = person_names()
    if word in first and (word not in ambiguous_first_names() or not _everyday_in_english(word)):
        return True  # "Sean and Mary Patel": ambiguous only as a Spanish word
    if after_name and (word in last or (word in world_places() and word.lower() not in common_words())):
        return word_zipf(word) < EVERYDAY_NAME_ZIPF  # "Nkechi Blackwood" (a town too), not "Nkechi London"
    if word in world_places() or word in place_names() or word.lower() in common_words():
        return False
    return word_zipf(word) < EVERYDAY_ZIPF


_NAME_PAIR = rf"{_NAME_WORD}(?:[ \t]+{_NAME_WORD})?"
_COORD_RIGHT = re.compile(rf"^{_CONJUNCTION}(?P<name>{_NAME_PAIR})(?![\w@/\\_=(-]|\.\w)")
_COORD_LEFT = re.compile(rf"(?:(?<=\s)|^)(?P<name>{_NAME_PAIR}){_CONJUNCTION}$")


_ME = re.compile(r"(?:\s(?:and|&|et|y)\s+)(me|myself|moi|yo)\b")


def coordinated_names(text: str, spans: list[Span]) -> list[Span]:
    """PERSON spans for one or two capitalised words listed beside a found name:
    ``Rania Kuznetsov and Nkechi Hashemi``, ``Noémie Benali et Émeline``,
    ``Bogdan Stroud, Soo-jin Kaminski``, ``Ananya, Olamide and me``. Each word
    must be a possible name (no
    stop, label, command, software or month word, no place, no everyday word
    unless a listed name); the first word that is not ends the name. Repeated
    over new names (a list of three). Score :data:`GAZETTEER_SCORE`.
    """
    seeds = [s for s in spans if s.entity_type == "PERSON"]
    # "Ananya, Olamide and me", "Paul et moi": the speaker is a person too
    seeds += [Span("PERSON", m.start(1), m.end(1), 0.0) for m in _ME.finditer(text)]
    seen = {(s.start, s.end) for s in seeds}
    out: list[Span] = []
    for _ in range(4):
        new: list[Span] = []
        for s in seeds:
            right = _COORD_RIGHT.match(text[s.end : s.end + 80])
            if right:
                base = s.end + right.start("name")
                end = None
                for i, w in enumerate(re.finditer(r"\S+", right.group("name"))):
                    if not _possible_name_word(w.group(), after_name=i > 0):
                        break
                    end = base + w.end()
                if end is not None and (base, end) not in seen:
                    new.append(Span("PERSON", base, end, GAZETTEER_SCORE))
            left = _COORD_LEFT.search(text[max(0, s.start - 80) : s.start])
            if left:
                base = max(0, s.start - 80) + left.start("name")
                words = list(re.finditer(r"\S+", left.group("name")))
                if all(_possible_name_word(w.group(), after_name=i > 0) for i, w in enumerate(words)):
                    start, end = base, base + words[-1].end()
                    if (start, end) not in seen:
                        new.append(Span("PERSON", start, end, GAZETTEER_SCORE))
        new = [n for n in new if not any(n.start < o.end and o.start < n.end for o in out)]
        if not new:
            break
        seen |= {(n.start, n.end) for n in new}
        out.extend(new)
        seeds = new
    return out


_LOWER_CONTEXT = re.compile(
    r"(?:(?<=\W)|^)(?i:cc|bcc|remind|invite|thank|ping|tell|ask|email|message|text|call|meet|met|with|for|to|from|by|"
    r"dear|hi|hello|hey|i['’]m|i\s+am|name\s+is|under\s+the\s+name|customer|client|attn:?|"
    r"rappelle\s+à|préviens|invite[rz]?|avisa\s+a|recuerda\s+a|invita\s+a|dile\s+a)\s+"
    r"(?=(?P<a>[a-zà-ÿßĀ-ž]{2,}(?:-[a-zà-ÿßĀ-ž]+)?) (?P<b>[a-zà-ÿßĀ-ž]{2,}(?:-[a-zà-ÿßĀ-ž]+)?)(?![\w@/\\_=(-]|\.\w))"  # a lookahead: "to ask zanele smith" tries "ask" too
)


# A plural ending on an unlisted lower-case word: "-es", or "-s" after a
# letter other than s, u, i, a, o ("yolks", "edges"; not "thomas", "ramos").
_PLURAL_NOUN = re.compile(r"(?:[^suiao]s|[^s]es)$")


def lowercase_context_names(text: str) -> list[Span]:
    """PERSON spans for two lower-case words after a verb, preposition or cue that
    takes a person (``remind horace whitcombe about``, ``cc marguerite
    moreau-finch``, ``Dear chloe jackson``, ``for ava kowalski``) when the first
    is a listed first name (not an ambiguous one) or the second a listed
    surname, each word is a listed name or a rare word (zipf below
    :data:`EVERYDAY_ZIPF`), and neither is a stop, label, command, software
    word or (the first) a place, and an unlisted second word has no plural
    ending (``for runny yolks``; round 11). Score :data:`GAZETTEER_SCORE`."""
    first, last = person_names()
    ambiguous = ambiguous_first_names()
    common = common_words()
    out: list[Span] = []
    for m in _LOWER_CONTEXT.finditer(text):
        a, b = m.group("a"), m.group("b")
        given, family = _capitalise(a), _capitalise(b)
        if a in common or b in common or {given, family} & (NOT_NAME_WORDS | OPENERS | MONTH_WORDS):
            continue
        if not ((given in first and given not in ambiguous) or family in last):
            continue
        if given in ambiguous or given in world_places():
            continue
        # each word a listed name or a rare word ("zanele smith", not "for loop detection")
        if not ((given in first and given not in ambiguous) or word_zipf(a) < EVERYDAY_ZIPF):
            continue
        if not (family in last or word_zipf(b) < EVERYDAY_ZIPF):
            continue
        if family not in last and _PLURAL_NOUN.search(b):
            # an unlisted second word with a plural ending is a noun phrase
            # ("for runny yolks", "with crispy edges"), no surname (round 11)
            continue
        out.append(Span("PERSON", m.start("a"), m.end("b"), GAZETTEER_SCORE))
    return out


# --- Round 7 (issue 11): names in records, tables, capitals, particles --------

# Keys whose value is a person's name, in forms, JSON/YAML/CSV records and
# headers (en, fr, es): ``Name: ``, ``"holder": "``, ``full_name: ``,
# ``PATIENT: ``, ``Assuré : ``, ``Reportado por: ``. A bare ``name`` only as a
# key of its own (``"name":``, ``Name:``), never inside prose.
_NAME_KEYS = (
    r"name|full[ _]?name|first[ _]?name|last[ _]?name|given[ _]?name|family[ _]?name|surname|"
    r"display[ _]?name|contact[ _]?name|customer[ _]?name|client[ _]?name|account[ _]?holder|"
    r"card[ _]?holder|holder|cardholder|patient|policy[ _]?holder|insured|beneficiary|payee|tenant|"
    r"lodger|guest|passenger|employee|candidate|applicant|recipient|sender|approver|approved[ _]by|"
    r"reported[ _]by|requested[ _]by|submitted[ _]by|signed[ _]by|prepared[ _]by|assignee|"
    r"emergency[ _]contact|next[ _]of[ _]kin|referring[ _]physician|physician|doctor|attendees?|"
    r"participants?|speakers?|co-authored-by|reviewed-by|signed-off-by|author|from|to|cc|owner|lead|"
    r"requester|requestor|reporter|"
    r"nom|prénom|nom[ _]complet|titulaire|assurée?|bénéficiaire|locataire|client|cliente|"
    r"contact[ _]d['’]urgence|signalé[ _]par|approuvé[ _]par|valid[ée][ _]par|médecin[ _]adressant|"
    r"intervenants|destinataire|expéditeur|de|à|"
    r"nombre|nombre[ _]completo|apellidos?|titular|paciente|asegurad[oa]|beneficiari[oa]|inquilin[oa]|"
    r"contacto[ _]de[ _]emergencia|reportado[ _]por|aprobado[ _]por|aprueba|asistentes|"
    r"médico[ _]remitente|destinatari[oa]|remitente|para|ponentes|"
    # round 9: payers, debtors and tutors (``"pagador": "Chambi Carrasquilla, Tonatiuh"``)
    r"payer|payeur|pagador|debtor|débiteur|deudor|tutor|tutora|mentor|tuteur|tutrice|"
    # round 10: an onboarding buddy / godparent ("- buddy: Cerys", "- parrain : Foulques")
    r"buddy|parrain|marraine|padrino|madrina"
)
_FIELD = re.compile(
    # quotes escaped too: a tool call's arguments are JSON inside a JSON string
    # ('"{\\"guest\\": \\"Zhenyu Ofori-Atta\\"}"'; round 10)
    rf"(?:^|(?<=[\n{{,])|(?<=[.!?;] ))[ \t\-*•]*(?:\\?[\"'])?(?P<key>(?i:{_NAME_KEYS}))(?:\\?[\"'])?[ \t]*[:=][ \t]*"
    r"(?:\\?[\"'])?(?P<value>[^\n\"\\<>(){}\[\]|;]{1,120})",
    re.MULTILINE,
)
# One name word: capitalised or in capitals, hyphens and apostrophes inside
# (``Abara-Hughes``, ``O'Sullivan``, ``N'Diaye``, ``SHU-FEN``); an initial
# (``A.``, ``A.-L.``, ``S.-F.``); a particle (``van der``, ``de la``, ``al-``).
_CAPS_WORD = r"(?:[A-Z]['’])?[A-ZÀ-ÖØ-ÞĀ-ž]{2,}(?:[-'’][A-ZÀ-ÖØ-ÞĀ-ž]+)*"
_NAMEISH = rf"(?:{_NAME_WORD}|(?:O|D|N|d|Mc)['’]{_NAME_WORD}|{_CAPS_WORD}|[A-Z]\.(?:-[A-Z]\.)?)"
_FIELD_PARTICLE = (
    r"(?i:van\s+der|van\s+den|van|von|der|den|de\s+la|de\s+las|de\s+los|del|de|da|di|du|dos|das|"
    r"le|la|bin|ben|ibn|al|el|te|ter|ten|y)"
)
_FIELD_NAME = re.compile(
    rf"(?:{_FIELD_PARTICLE}[ \t]+)*{_NAMEISH}(?:[ \t]+(?:{_FIELD_PARTICLE}[ \t]+)*{_NAMEISH}){{0,4}}"
)


_MORE_PARTICLES = frozenset("al el te ter ten".split())


def _name_like(value: str, key_given: bool) -> bool:
    """Whether ``value`` (one candidate name, no separators) can be a person's name:
    no stop, label, command, software, month or opener word, no place alone, and
    each unlisted word is rare (zipf below :data:`EVERYDAY_ZIPF`); words in
    capitals are judged title-cased. One word needs ``key_given`` or a list."""
    words = [w for w in re.split(r"[ \t]+", value) if w and w.lower() not in _PARTICLES | _MORE_PARTICLES]
    if not words:
        return False
    never = NOT_NAME_WORDS | OPENERS | MONTH_WORDS | STOP_WORDS
    rare = 0
    for w in words:
        if re.fullmatch(r"[A-Z]\.(?:-[A-Z]\.)?", w):
            continue  # an initial
        title = w if not w.isupper() else _title(w)
        title = re.sub(r"^(O|D|N|d)['’](\w)", lambda m: m.group(2).upper(), title)
        if title in never or title.rstrip(".") in never:
            return False
        if _listed(title) or _listed(title.split("-")[0]):
            rare += 1
            continue
        if title.lower() in common_words():
            return False
        # one word must be rare; beside other name words a surname that is also a
        # place or a known word ("Cienfuegos", 3.2) is still a name
        if word_zipf(title) >= (EVERYDAY_NAME_ZIPF if len(words) > 1 else EVERYDAY_ZIPF):
            return False
        rare += 1
    if len(words) == 1:
        _, last = person_names()
        place = words[0] in place_names() or words[0] in world_places()
        return key_given and rare == 1 and (not place or words[0] in last)  # "under Matsumoto"
    return rare >= 1


# Keys that name things as often as people (``name``, ``from``, ``client``): one
# word after them must be a listed name ("- name: Lint", "client: Jedis",
# "| Name | Version |" rows are software).
_GENERIC_KEYS = frozenset(
    "name from to cc de à para client cliente author contact customer owner person persona personne nom nombre".split()
)


def _one_word_ok(key: str, word: str) -> bool:
    """Whether one ``word`` may be a name after ``key``: always after a key that
    names a person only (``Approver``, ``PATIENT``), a listed name after a
    generic one (:data:`_GENERIC_KEYS`)."""
    if key.strip(" *_").lower() not in _GENERIC_KEYS:
        return True
    title = _title(word) if word.isupper() else word
    return _listed(title)


def field_names(text: str) -> list[Span]:
    """PERSON spans for the value of a key that names a person (:data:`_NAME_KEYS`):
    ``Name: Priyanka Jayasuriya``, ``"holder": "Sipho Tuilagi"``, ``full_name:
    Haruka Matsumoto``, ``PATIENT: OKSANA AL-MASRI``, ``Asegurado: JORDI
    SEPÚLVEDA``, ``Attendees: A B, C D``, ``From: Njeri McAllister <...>``,
    ``Approver: Priyanka.``; each comma-separated part of the value that is a
    name (:func:`_name_like`) is one span; ``Last, First`` (two one-word parts
    after a single-name key) is one. Score :data:`CUE_SCORE`."""
    out: list[Span] = []
    for m in _FIELD.finditer(text):
        key = m.group("key")
        if (
            key.lower() in ("de", "à", "para", "to", "from", "cc")
            and m.group(0).lstrip(" \t-*•\"'")[0].islower()
        ):
            continue  # "de: x" in prose: only the header form "De: ", "Para: "
        value, base = m.group("value"), m.start("value")
        parts = [(p.start() + base, p.group()) for p in re.finditer(r"[^,]+", value)]
        found: list[Span] = []
        for start, part in parts:
            lead = len(part) - len(part.lstrip())
            nm = _FIELD_NAME.match(part, lead)
            if nm is None:
                found.append(Span("PERSON", -1, -1, 0.0))
                continue
            rest = part[nm.end() :]
            if rest.strip() and not re.match(r"^[ \t]*(?:[-–—:.!?'’]|$)", rest):
                # "Name: John from accounts": the name, then prose
                if not re.match(r"^[ \t]+[a-zà-ÿ]", rest):
                    found.append(Span("PERSON", -1, -1, 0.0))
                    continue
            name = nm.group().rstrip()
            if " " not in name and len(parts) != 2 and not _one_word_ok(key, name):
                found.append(Span("PERSON", -1, -1, 0.0))  # "- name: Lint", "client: Jedis"
                continue
            if _name_like(name, key_given=True):
                found.append(Span("PERSON", start + lead, start + lead + len(name), CUE_SCORE))
            else:
                found.append(Span("PERSON", -1, -1, 0.0))
        good = [s for s in found if s.start >= 0]
        if (
            len(found) == 2
            and len(good) == 2
            and " " not in text[good[0].start : good[0].end]
            and " " not in text[good[1].start : good[1].end]
            and text[good[0].end : good[1].start].strip() == ","
            and not re.match(
                r"(?i)attendees?|participants?|speakers?|intervenants|asistentes|ponentes|cc|to", key
            )
        ):
            good = [Span("PERSON", good[0].start, good[1].end, CUE_SCORE)]  # "Last, First"
        out.extend(good)
    return out


_TABLE_ROW = re.compile(r"^[ \t]*\|(.*)\|[ \t]*$", re.MULTILINE)
_NAME_HEADER = re.compile(
    rf"(?i)^[ \t*_]*(?:{_NAME_KEYS}|contact|customer|client|owner|person|persona|personne|"
    # round 14: a CSV's given-name and family-name columns ("id,given,family,mobile")
    r"given|family|forenames?)[ \t*_]*$"
)
_CSV_SEPARATORS = (",", ";", "\t")


_LAST_COMMA_FIRST = re.compile(rf"(?P<last>{_NAMEISH}),[ \t]*(?P<first>{_NAMEISH})")


def table_names(text: str) -> list[Span]:
    """PERSON spans for the cells of a name column of a markdown table or a CSV
    block (a header row whose column is ``Name``, ``Full name``, ``Nom``,
    ``Nombre``, ``holder``...): ``| Lindiwe | Site lead |``,
    ``name,email\\nEero Jeong,eero@...``. A cell counts when it is a name
    (:func:`_name_like`). Score :data:`CUE_SCORE`."""
    out: list[Span] = []
    lines = [(m.start(), m.group()) for m in re.finditer(r"[^\n]*", text) if m.group()]
    i = 0
    while i < len(lines):
        start, line = lines[i]
        sep = "|" if line.lstrip().startswith("|") else next((c for c in _CSV_SEPARATORS if c in line), None)
        if sep is None:
            i += 1
            continue
        cells = _cells(line, sep)
        cols = [k for k, (_, _, c) in enumerate(cells) if _NAME_HEADER.match(c)]
        # round 14: "family" names a person's column only beside another name column
        # ("id,given,family"), not alone ("family,members": botany, products)
        if [cells[k][2].strip(" \t*_").lower() for k in cols] == ["family"]:
            cols = []
        if not cols or len(cells) < 2:
            i += 1
            continue
        j = i + 1
        while j < len(lines):
            row_start, row = lines[j]
            if sep == "|" and not row.lstrip().startswith("|"):
                break
            if sep != "|" and row.count(sep) < len(cells) - 1:
                break
            row_cells = _cells(row, sep)
            for k in cols:
                if k < len(row_cells):
                    a, b, cell = row_cells[k]
                    nm = _FIELD_NAME.fullmatch(cell)
                    inverted = _LAST_COMMA_FIRST.fullmatch(cell) if sep != "," else None
                    if nm is None and inverted is not None:
                        # round 14: "| Igwe, Soyeon | driver |", "Szymanski, Gráinne\tCASE/1607/Z"
                        if _name_like(f"{inverted['first']} {inverted['last']}", key_given=True):
                            out.append(Span("PERSON", row_start + a, row_start + b, CUE_SCORE))
                        continue
                    if nm is not None and " " not in cell and not _one_word_ok(cells[k][2], cell):
                        continue  # "| Name | Version |\n| Tokio | 1.2 |"
                    if nm is not None and _name_like(cell, key_given=True):
                        out.append(Span("PERSON", row_start + a, row_start + b, CUE_SCORE))
            j += 1
        i = j
    return out


def _cells(line: str, sep: str) -> list[tuple[int, int, str]]:
    """``(start, end, stripped text)`` of each cell of ``line`` split at ``sep``
    (a markdown row's outer bars dropped); offsets relative to ``line``."""
    out: list[tuple[int, int, str]] = []
    pos = 0
    pieces = line.split(sep)
    if sep == "|":
        pos = len(pieces[0]) + 1
        pieces = pieces[1:-1]
    for piece in pieces:
        stripped = piece.strip()
        lead = len(piece) - len(piece.lstrip())
        out.append((pos + lead, pos + lead + len(stripped), stripped))
        pos += len(piece) + 1
    return out


_CAPS_NAME = re.compile(
    rf"(?<![\w@./\\#$%&=:_-]){_CAPS_WORD}(?:[ \t]+(?:DE[ \t]+LA|DEL|DE|VAN[ \t]+DER|VAN|LE|DU|AL)?[ \t]*{_CAPS_WORD}){{1,2}}(?![\w@/\\_=(-])"
)


def _title(word: str) -> str:
    """``word`` in capitals title-cased part by part: ``O'SULLIVAN`` -> ``O'Sullivan``,
    ``SHU-FEN`` -> ``Shu-Fen``."""
    return re.sub(r"[^\W\d_]+", lambda m: m.group().capitalize(), word)


def capitals_names(text: str) -> list[Span]:
    """PERSON spans for a name written in capitals in running text or a header
    (``HOLLIS OWUSU from accounts``): two or three words in capitals whose
    title-cased first word is a listed first name (not an ambiguous one) or
    another word a listed surname, and every word a listed name or a rare
    word (``FOLAKE NDLOVU``, ``BRIONY O'SULLIVAN``). Score
    :data:`GAZETTEER_SCORE`."""
    first, last = person_names()
    ambiguous = ambiguous_first_names()
    out: list[Span] = []
    for m in _CAPS_NAME.finditer(text):
        words = [w for w in m.group().split() if w not in ("DE", "LA", "DEL", "VAN", "DER", "LE", "DU", "AL")]
        titled = [_title(w) for w in words]
        given = titled[0]
        if given in ambiguous or set(titled) & (NOT_NAME_WORDS | OPENERS | MONTH_WORDS):
            continue
        if not (given in first or any(t in last for t in titled[1:])):
            continue
        if all(
            t in first or t in last or (t.lower() not in common_words() and word_zipf(t) < EVERYDAY_ZIPF)
            for t in titled
        ):
            out.append(Span("PERSON", m.start(), m.end(), GAZETTEER_SCORE))
    return out


_CAPS_SURNAME_GIVEN = re.compile(
    r"(?<![\w@./\\#$%&=:_-])(?P<sur>[A-ZÀ-ÖØ-Þ][A-ZÀ-ÖØ-Þ'’\-]{2,}(?:[ \t]+[A-ZÀ-ÖØ-Þ][A-ZÀ-ÖØ-Þ'’\-]{2,})?)"
    r"[ \t]+(?P<given>[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿĀ-ž'’]+(?:-[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿĀ-ž'’]+)?)(?![\w@/\\_=(]|[.:-]\w)"
)
# Where the administrative order stands by itself: alone on its line (a
# shipping label's or a letter's addressee block) or after "from" / "de" (round 10)
_ALONE_BEFORE = re.compile(r"(?:^|\n)[ \t]*$|(?:^|\s)(?i:from|de|by|par|por)[ \t]+$")
_ALONE_AFTER = re.compile(r"^[ \t]*(?:\n|$)|^[ \t]+(?:but|mais|pero|and|et|y)\b")


def caps_surname_given_names(text: str) -> list[Span]:
    """PERSON spans for the administrative ``SURNAME Given`` order (``SANDBERG Bich``,
    ``ARANBURU TICONA Oriol``; round 8): one or two words in capitals, then one
    capitalised word; the given name a listed first name (not an ambiguous one)
    or a capitals word a listed surname, and every word a listed name or a
    rare word (so ``ERROR Connection``, ``HTTP Request`` stay). Score
    :data:`GAZETTEER_SCORE`."""
    first, last = person_names()
    ambiguous = ambiguous_first_names()
    never = NOT_NAME_WORDS | OPENERS | MONTH_WORDS
    out: list[Span] = []
    for m in _CAPS_SURNAME_GIVEN.finditer(text):
        given = m.group("given")
        surnames = [_title(w) for w in m.group("sur").split()]
        if given in ambiguous or given in never or set(surnames) & never:
            continue
        alone = (
            _ALONE_BEFORE.search(text[max(0, m.start() - 12) : m.start()]) is not None
            and _ALONE_AFTER.match(text[m.end() : m.end() + 8]) is not None
            and all(len(t.replace("-", "")) >= 4 for t in surnames)
        )
        if not (given in first or any(t in last for t in surnames) or alone):
            continue
        if all(
            t in first or t in last or (t.lower() not in common_words() and word_zipf(t) < EVERYDAY_ZIPF)
            for t in (*surnames, given)
        ):
            out.append(Span("PERSON", m.start(), m.end(), GAZETTEER_SCORE))
    return out


_LAST_FIRST = re.compile(
    rf"(?<![\w,])(?P<last>(?:(?i:de|del|van|von|le|da|di|du)[ \t]+)?{_NAME_WORD}(?:[ \t]+{_NAME_WORD})?),[ \t]+"
    rf"(?P<first>{_NAME_WORD})(?![\w@]|,[ \t]*[A-ZÀ-ÖØ-Þ]|[ \t]+(?:and|et|y|&)\b)"
)


def last_first_names(text: str) -> list[Span]:
    """PERSON spans for ``Surname, Given`` (``Khumalo, Babatunde``, ``de Kervéguen,
    Quitterie``) outside a list: every surname word a listed surname (or after
    a particle) and no listed first name, the given name listed or a rare
    word (zipf below :data:`EVERYDAY_ZIPF`), and no third
    name after another comma. Score :data:`GAZETTEER_SCORE`."""
    first, last = person_names()
    ambiguous = ambiguous_first_names()
    out: list[Span] = []
    for m in _LAST_FIRST.finditer(text):
        given = m.group("first")
        words = [w for w in m.group("last").split() if w.lower() not in _PARTICLES]
        particle = len(words) < len(m.group("last").split())
        if given in ambiguous or given in NOT_NAME_WORDS or given.lower() in common_words():
            continue
        if not all(
            (w in last or particle) and w not in first and w.lower() not in common_words() for w in words
        ):
            continue
        if given not in first and word_zipf(given) >= EVERYDAY_ZIPF:
            continue  # an unlisted given name must at least be a rare word ("Khumalo, Babatunde")
        out.append(Span("PERSON", m.start(), m.end(), GAZETTEER_SCORE))
    return out


# Particles of surnames without the Spanish "y" (a conjunction between two
# names far more often than inside one).
_JOIN_PARTICLE = (
    r"(?i:van\s+der|van\s+den|van|von|der|den|de\s+la|de\s+las|de\s+los|del|de|da|di|du|dos|das|"
    r"le|la|bin|ben|ibn|al|el|te|ter|ten)"
)
# A particle alone before a surname ("de Vries", "van Dijk"), with no given name before it
_LONE_PARTICLE = r"(?i:van\s+der|van\s+den|van|von|de\s+la|de\s+los|de\s+las|del|te|ter|ten)"
_PARTICLE_LEFT = re.compile(
    rf"(?:(?<=\s)|^)(?:(?:{_NAME_WORD}|[A-Z]\.(?:-[A-Z]\.)?)[ \t]+(?:{_JOIN_PARTICLE}[ \t]+)+"
    rf"|{_LONE_PARTICLE}[ \t]+)$"
    r"|(?<![\w'’])(?:O|D|N|d)['’]$|(?<![\w.])(?:[A-Z]\.-)?[A-Z]\.[ \t]+$|(?<![\w.])[A-Z]\.-$"
)
_PARTICLE_RIGHT = re.compile(rf"^(?:[ \t]+{_JOIN_PARTICLE})+[ \t]+{_NAME_WORD}")


_NEXT_SURNAME = re.compile(rf"[ \t]+({_NAME_WORD})(?![\w@/\\_=(]|[.:-]\w)")
_PREFIXED_RIGHT = re.compile(
    rf"[ \t]+(?:Mc|Mac|O['’]|D['’]|N['’]|d['’])[A-ZÀ-ÖØ-Þ][a-zà-ÿß]+(?:-{_NAME_WORD})?"
)


def _rare_name_word(word: str) -> bool:
    """A listed surname, or a rare word (zipf below :data:`EVERYDAY_ZIPF`) that is no
    stop, label, command, software, month or opener word and no place."""
    never = NOT_NAME_WORDS | OPENERS | MONTH_WORDS | STOP_WORDS
    if word in never or word in place_names() or word in world_places():
        return False
    _, last = person_names()
    return word in last or (word.lower() not in common_words() and word_zipf(word) < EVERYDAY_ZIPF)


def complete_names(text: str, spans: list[Span]) -> list[Span]:
    """PERSON spans grown over the parts of a name the model or a rule left out:
    surname particles and the given name before them (``Alistair van der`` +
    ``Merwe``, ``de`` + ``Vries``), an apostrophe prefix (``O'`` + ``Sullivan``,
    ``d'`` + ``Aubigny``), an initial (``A.-L.`` + ``Traoré``), and particles
    with a surname after the span (``Zainab van`` + ``den Heuvel``).
    A span of two or more words also grows over one more rare capitalised word
    (a second surname: ``Brais Huamán`` + ``Lezcano``). Overlapping PERSON
    spans, and PERSON spans one space apart, are then joined (the highest
    score kept)."""
    grown: list[Span] = []
    for s in spans:
        if s.entity_type != "PERSON" or s.score >= 1.0:
            grown.append(s)
            continue
        start, end = s.start, s.end
        left = _PARTICLE_LEFT.search(text[max(0, start - 40) : start])
        if left is not None and left.group():
            head = left.group().split()
            if not head or head[0] not in STOP_WORDS | NOT_NAME_WORDS | OPENERS:
                start -= len(left.group())
        value = text[start:end]
        if value.split()[-1].lower() in _PARTICLES - {"y", "e"} or value.split()[-1].lower() in ("al", "te"):
            right = re.match(rf"^(?:[ \t]+{_JOIN_PARTICLE})*[ \t]+{_NAME_WORD}", text[end : end + 40])
        else:
            right = _PARTICLE_RIGHT.match(text[end : end + 40])
        if right is not None:
            end += right.end()
        else:
            more = _NEXT_SURNAME.match(text, end)
            if more is not None and len(text[start:end].split()) >= 2 and _rare_name_word(more.group(1)):
                end = (
                    more.end()
                )  # a second surname ("Itxaso Valdivia" + "Sepúlveda", "Brais Huamán" + "Lezcano")
            elif (prefixed := _PREFIXED_RIGHT.match(text, end)) is not None:
                end = prefixed.end()  # "Katarzyna" + "McAllister", "Fergus" + "O'Sullivan"
        grown.append(Span(s.entity_type, start, end, s.score) if (start, end) != (s.start, s.end) else s)
    persons = sorted((s for s in grown if s.entity_type == "PERSON"), key=lambda s: s.start)
    merged: list[Span] = []
    for s in persons:
        if merged and (s.start < merged[-1].end or text[merged[-1].end : s.start] == " "):
            last = merged[-1]
            merged[-1] = Span("PERSON", last.start, max(last.end, s.end), max(last.score, s.score))
        else:
            merged.append(s)
    return [s for s in grown if s.entity_type != "PERSON"] + merged


# Keys of a JSON array whose items are people (round 14): ``"watchers": [...]``,
# ``"copia": [...]``, ``"en_copie": [...]``; the plural forms of the name keys too.
_LIST_KEYS = re.compile(
    r"(?i)(?:en[ _]?)?(?:cc|bcc|cci|copia|copie|con[ _]?copia|watchers?|followers?|subscribers?|members?|"
    r"reviewers?|assignees?|owners?|approvers?|attendees?|participants?|invitees?|recipients?|"
    r"observadores|seguidores|miembros|revisores|participantes|asistentes|invitados|destinatarios|"
    r"responsables|observateurs|abonnés|membres|relecteurs|invités|destinataires|intervenants)"
)
_JSON_ARRAY = re.compile(
    r'(?P<q>\\?)"(?P<key>[^"\n\\]{1,40})(?P=q)"[ \t]*:[ \t]*\[(?P<items>[^\[\]\n]{1,400})\]'
)
_JSON_ITEM = re.compile(r'\\?"(?P<v>[^"\n\\]{1,80})\\?"')
_LOWER_NAME = re.compile(r"[a-zà-ÿßĀ-ž][a-zà-ÿßĀ-ž'’]+(?:-[a-zà-ÿßĀ-ž]+)?")


def json_list_names(text: str, spans: list[Span]) -> list[Span]:
    """PERSON spans for the items of a JSON array of people (round 14): the
    array's key names people (:data:`_LIST_KEYS`, :data:`_NAME_KEYS`:
    ``"watchers": ["Soyeon W.", "paramjit wetherell"]``, ``"copia": [...]``)
    or one of its items is a found PERSON. Each item that is a whole string of
    name words (capitalised, in capitals, an initial, or two to four lower-case
    words judged title-cased) and :func:`_name_like` is one span; an array
    with any item that is no name shape (digits, a code, a sentence) gives
    nothing. Score :data:`GAZETTEER_SCORE`."""
    found = [(s.start, s.end) for s in spans if s.entity_type == "PERSON"]
    out: list[Span] = []
    for m in _JSON_ARRAY.finditer(text):
        items = [
            (i.start("v") + m.start("items"), i.group("v")) for i in _JSON_ITEM.finditer(m.group("items"))
        ]
        if len(items) < 1 or re.sub(r'[\s,"\\]', "", _JSON_ITEM.sub("", m.group("items"))):
            continue  # numbers, objects or bare words in the array: no list of names
        key = m.group("key").strip()
        named = _LIST_KEYS.fullmatch(key) is not None or re.fullmatch(f"(?i:{_NAME_KEYS})", key) is not None
        if not named and not any(
            any(a <= start and start + len(v) <= b for a, b in found) for start, v in items
        ):
            continue
        spans_here: list[Span] = []
        for start, v in items:
            value = v.strip()
            lead = len(v) - len(v.lstrip())
            if _FIELD_NAME.fullmatch(value):
                judged = value
            elif all(_LOWER_NAME.fullmatch(w) for w in value.split()) and 2 <= len(value.split()) <= 4:
                judged = " ".join(w[0].upper() + w[1:] for w in value.split())
            else:
                spans_here = []
                break  # one item is no name: the array is something else
            if not _name_like(judged, key_given=named):
                continue
            spans_here.append(Span("PERSON", start + lead, start + lead + len(value), GAZETTEER_SCORE))
        out.extend(spans_here)
    return out


def repeated_names(text: str, spans: list[Span]) -> list[Span]:
    """PERSON spans for the given name or surname of a found full name used again
    on its own (``Attendees: Seo-yeon Adebisi ... Actions: Seo-yeon to
    chase``): each word of a PERSON span of two or more words that is no
    particle, stop, label, command, software or month word, and no everyday
    word, found elsewhere as a whole word with the same capitalisation.
    Score :data:`GAZETTEER_SCORE`."""
    never = NOT_NAME_WORDS | OPENERS | MONTH_WORDS | STOP_WORDS
    words: set[str] = set()
    for s in spans:
        if s.entity_type != "PERSON" or s.score >= 1.0:
            continue
        parts = re.findall(rf"{_NAME_WORD}", text[s.start : s.end])
        if len(parts) < 2:
            continue
        for w in parts:
            if (
                len(w) >= 3
                and w not in never
                and w.lower() not in common_words()
                and w.lower() not in _PARTICLES
            ):
                words.add(w)
    if not words:
        return []
    taken = [(s.start, s.end) for s in spans if s.entity_type == "PERSON"]
    pattern = re.compile(
        rf"(?<![\w@./\\#$%&=:_-])(?:{'|'.join(map(re.escape, sorted(words, key=len, reverse=True)))})(?![\w@/\\_=(-]|[.:-]\w)"
    )
    out: list[Span] = []
    for m in pattern.finditer(text):
        if not any(a < m.end() and m.start() < b for a, b in taken):
            out.append(Span("PERSON", m.start(), m.end(), GAZETTEER_SCORE))
    return out


_NAME_CONTEXT_R7 = re.compile(
    r"(?:(?<=\W)|^)(?:(?i:para|pour|a\s+nombre\s+de|au\s+nom\s+de|(?:reservation|booking|booked|table)\s+under|"
    r"reserved\s+under|dña\.?|doña|lic\.|licda\.|ing\.)|M\.|Mme|Mlle)[ \t]+"
    rf"(?P<name>{_FIELD_NAME.pattern})"
)


def preposition_names(text: str) -> list[Span]:
    """PERSON spans for a name after a word that introduces a person: Spanish
    ``para`` and French ``pour`` (``El paquete para Nahia Lezcano``, ``para
    Xiana de la Fuente Zapata``), ``a nombre de``/``au nom de``/``under``
    of a booking (``Reserva a nombre de del Río``), and titles (``M. Caradec``,
    ``Dña. Uxía Lezcano``, ``Lic. Eneko del Río Araya``). The name may hold
    particles and be one word; it must pass :func:`_name_like` (no everyday
    word, place, software or label: ``para Windows``, ``pour Noël`` are no
    names). Score :data:`GAZETTEER_SCORE`."""
    out: list[Span] = []
    for m in _NAME_CONTEXT_R7.finditer(text):
        words = m.group("name").split()
        while words and not re.fullmatch(_NAMEISH, words[-1]):
            words.pop()  # a trailing particle ("para Ana y")
        if not words:
            continue
        name = " ".join(words)
        if text[m.start("name") : m.start("name") + len(name)] != name:
            continue
        if len(words) == 1 and word_zipf(name) >= EVERYDAY_NAME_ZIPF:
            continue  # "pour Noël", "para Navidad": a listed name that is a common word too
        if _name_like(name, key_given=True):
            out.append(Span("PERSON", m.start("name"), m.start("name") + len(name), GAZETTEER_SCORE))
    return out


_LIST_HEADER = re.compile(
    r"(?im)^[^\n]*\b(?:attendees|participants|speakers|panel|shortlist|guests|invitees|candidates|"
    r"team\s+members|intervenants|invités|participantes|ponentes|asistentes|invitados|candidatos|"
    r"candidats|orateurs)\b[^\n]*:[ \t]*\n"
)
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*•]|\d{1,2}[.)])[ \t]+")


def list_item_names(text: str) -> list[Span]:
    """PERSON spans for the name that opens each bullet item under a header naming
    people (``Shortlist for the panel:``, ``Liste des intervenants :``, ``Lista de
    ponentes:``): ``- Uxía Lezcano (presidenta)``, ``- C. Wiśniewska``. The
    name must pass :func:`_name_like`. Score :data:`CUE_SCORE`."""
    out: list[Span] = []
    for h in _LIST_HEADER.finditer(text):
        pos = h.end()
        while pos < len(text):
            item = _LIST_ITEM.match(text, pos)
            if item is None:
                break
            line_end = text.find("\n", pos)
            line_end = len(text) if line_end < 0 else line_end
            nm = _FIELD_NAME.match(text, item.end(), line_end)
            if nm is not None:
                name = nm.group().rstrip()
                if _name_like(name, key_given=True):
                    out.append(Span("PERSON", nm.start(), nm.start() + len(name), CUE_SCORE))
            pos = line_end + 1
    return out


# chat verbs and interjections before a name typed in lower case ("pls add
# zuzana van der merwe to", "añade a nahia al hilo", "lol aino just", "mdr
# évelyne tréguier vient")
_LOWER_CHAT = re.compile(
    r"(?:(?<=\W)|^)(?i:add|añade\s+a|agrega\s+a|ajoute|lol|lmao|haha+|jaja+|mdr|ptdr)[ \t]+"
    r"(?P<name>[a-zà-ÿßĀ-ž][a-zà-ÿßĀ-ž'’\-]+(?:[ \t]+[a-zà-ÿßĀ-ž][a-zà-ÿßĀ-ž'’\-]+){0,4})"
)


def lowercase_chat_names(text: str) -> list[Span]:
    """PERSON spans for a name in lower case after a chat verb or interjection
    (``add``, ``añade a``, ``ajoute``, ``lol``, ``jajaja``, ``mdr``): the first
    word a listed, unambiguous first name and no everyday word; then surname
    particles and words that are listed surnames or rare (zipf below
    :data:`EVERYDAY_ZIPF`), capitalised for the lists. Score :data:`GAZETTEER_SCORE`."""
    first, last = person_names()
    ambiguous = ambiguous_first_names()
    common = common_words()
    never = NOT_NAME_WORDS | OPENERS | MONTH_WORDS | STOP_WORDS
    out: list[Span] = []
    for m in _LOWER_CHAT.finditer(text):
        words = list(re.finditer(r"\S+", m.group("name")))
        given = _title(words[0].group())
        if given not in first or given in ambiguous or given in never or words[0].group() in common:
            # round 13: "lol yindi harcourt": an unlisted given name counts when it
            # and the next word are rare words (no dictionary knows them)
            if not (len(words) > 1 and _rare_lower(words[0].group()) and _seldom_lower(words[1].group())):
                continue
        end = words[0].end()
        pending = None
        for w in words[1:]:
            word = w.group()
            if word in _PARTICLES - {"y", "e"}:
                pending = pending if pending is not None else w
                continue
            title = _title(word)
            if word in common or title in never or (title not in last and word_zipf(title) >= EVERYDAY_ZIPF):
                break
            end, pending = w.end(), None
        base = m.start("name")
        out.append(Span("PERSON", base, base + end, GAZETTEER_SCORE))
    return out


_INITIAL_POSSESSIVE = re.compile(
    rf"(?<![\w.])(?:[A-Z]\.-)?[A-Z]\.[ \t]+(?:{_JOIN_PARTICLE}[ \t]+)?{_NAME_WORD}(?=['’]s\b)"
)


# A transcript's answer line ("12:05 customer: zhenyu ouyang") to a question
# about a name on the line before ("can I confirm the name on the account?",
# "¿a nombre de quién...?"; round 10)
_NAME_QUESTION = re.compile(r"(?i)\b(?:name|nombre|nom)\b[^\n]*\?[ \t]*\n")
_ANSWER_LINE = re.compile(
    r"^[^\n]{0,30}?(?i:customer|client|cliente|caller|user|usuario|utilisateur|patient|paciente)[ \t]*:[ \t]*"
    r"(?P<name>[a-zà-ÿßĀ-ž][a-zà-ÿßĀ-ž'’\-]+(?:[ \t]+[a-zà-ÿßĀ-ž][a-zà-ÿßĀ-ž'’\-]+){1,3})[ \t]*$",
    re.MULTILINE,
)


def answered_name_names(text: str) -> list[Span]:
    """PERSON spans for a name typed in lower case as the answer to a question
    about a name (``agent: can I confirm the name on the account?`` then
    ``customer: zhenyu ouyang``): two to four words, none a stop word or an
    everyday word (zipf below :data:`EVERYDAY_ZIPF`). Score :data:`GAZETTEER_SCORE`."""
    out: list[Span] = []
    if "?" not in text:
        return out
    never = NOT_NAME_WORDS | OPENERS | MONTH_WORDS | STOP_WORDS
    common = common_words()
    for q in _NAME_QUESTION.finditer(text):
        m = _ANSWER_LINE.match(text, q.end())
        if m is None:
            continue
        words = m.group("name").split()
        if any(
            w in common
            or _title(w) in never
            or (w not in _PARTICLES and word_zipf(_title(w)) >= EVERYDAY_ZIPF)
            for w in words
        ):
            continue
        out.append(Span("PERSON", m.start("name"), m.end("name"), GAZETTEER_SCORE))
    return out


def initial_possessive_names(text: str) -> list[Span]:
    """PERSON spans for an initial, optional particles and a capitalised word before
    a possessive ``'s`` (``Reply to M. Jayasuriya's comment``, ``D. de Vries's``,
    ``A. Te Rangi's``), unless the word is a stop, label or software word.
    Score :data:`GAZETTEER_SCORE`."""
    never = NOT_NAME_WORDS | OPENERS | MONTH_WORDS | STOP_WORDS
    out: list[Span] = []
    for m in _INITIAL_POSSESSIVE.finditer(text):
        if m.group().split()[-1] not in never:
            out.append(Span("PERSON", m.start(), m.end(), GAZETTEER_SCORE))
    return out


# --- Round 9 (issue 11): names without cue words ------------------------------

_EMAIL = re.compile(r"(?<![\w.+-])([\w.+-]+)@[\w-]+(?:\.[\w-]+)+")
# How far from an address its owner's name is looked for (characters): the
# record, signature or header line it belongs to
_EMAIL_BEFORE, _EMAIL_AFTER = 300, 150
_LETTERS = re.compile(r"[^\W\d_]+")
_ANY_CASE_WORD = re.compile(
    r"(?<![\w@./\\#$%&=:_+-])[^\W\d_][^\W\d_'’-]*(?:[-'’][^\W\d_]+)*(?![\w@/\\_=(+]|[.:-]\w)"
)
# Role addresses: their local part names a function, not a person.
_ROLE_LOCALS = frozenset(
    """
    info support billing sales contact admin noreply no-reply team hello office hr jobs accounts
    help service services careers press media marketing orders returns abuse postmaster webmaster
    security privacy legal finance invoices facturation factures compta contacto ventas soporte
    atencion reception bonjour hola notifications alerts ops devops root test
    """.split()
)


def _fold_letters(word: str) -> str:
    if word.isascii():
        return word.lower() if word.isalpha() else "".join(c for c in word.lower() if c.isalpha())
    return "".join(_LETTERS.findall(fold(word).lower()))


def _name_word_ok(word: str, zipf_max: float = EVERYDAY_ZIPF) -> bool:
    """A word that may be part of a name: no stop, label, command, software,
    month or everyday word (zipf below ``zipf_max``, not a common word)."""
    title = _title(word)
    if title in NOT_NAME_WORDS | OPENERS | MONTH_WORDS | STOP_WORDS:
        return False
    if word.lower() in common_words() or word.lower() in _PARTICLES:
        return False
    first, last = person_names()
    if title in first or title in last:
        return title not in ambiguous_first_names()
    return word_zipf(word) < zipf_max


def email_names(text: str) -> list[Span]:
    """PERSON spans for the words of a text that its e-mail addresses spell out
    (round 9): people's addresses hold their names (``Babajide Hwang
    <babajide_hwang72@...>``, ``marisela nasrallah - ... marisela.nasrallah@``,
    ``SHIORI MACLENNAN ... maclennan-shiori@``, ``Chandni Onyekachi
    <conyekachi@...>``). A word of 3+ letters, in any case, outside the
    addresses, matches when, accents and separators folded, it equals a part
    of a local part (split at digits, ``.``, ``_``, ``-``, ``+``), or has 4+
    letters and begins or ends one (``onyekachi`` of ``conyekachi``,
    ``giolla`` of ``macgiollaphadraig``). Role addresses (``support@``,
    ``facturation@``) and everyday, stop, label and software words never
    count, nor does a matched word of zipf 4 or more. A matched word grows over
    one neighbour on its line written in the same case that may be a name
    (listed, or rare). Only words within 300 characters before and 150 after
    an address are read (its record or signature; the cost stays flat on
    long texts). Score :data:`GAZETTEER_SCORE`."""
    if "@" not in text:
        return []
    parts: set[str] = set()
    masked = list(text)
    windows: list[tuple[int, int]] = []
    for m in _EMAIL.finditer(text):
        masked[m.start() : m.end()] = " " * (m.end() - m.start())  # no word inside an address
        local = m.group(1).lower()
        if local.split("+")[0] in _ROLE_LOCALS:
            continue
        parts.update(p for p in (_fold_letters(x) for x in re.split(r"[\d._+\-]+", local)) if len(p) >= 3)
        windows.append((max(0, m.start() - _EMAIL_BEFORE), min(len(text), m.end() + _EMAIL_AFTER)))
    if not parts:
        return []
    plain = "".join(masked)
    merged: list[list[int]] = []
    for lo, hi in windows:  # in text order; whole words at the edges
        lo = plain.rfind(" ", 0, lo) + 1 if lo > 0 else 0
        hi = plain.find(" ", hi) if plain.find(" ", hi) >= 0 else len(plain)
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    # the 4+ letter beginnings and ends of the parts ("onyekachi" of "conyekachi")
    affixes = {p[:k] for p in parts for k in range(4, len(p))} | {
        p[-k:] for p in parts for k in range(4, len(p))
    }
    words = [w for lo, hi in merged for w in _ANY_CASE_WORD.finditer(plain, lo, hi)]

    def matches(word: str) -> bool:
        f = _fold_letters(word)
        return len(f) >= 3 and (f in parts or (len(f) >= 4 and f in affixes))

    def style(word: str) -> str:
        return "upper" if word.isupper() else "lower" if word.islower() else "title"

    # the address vouches for the word: a surname that is a known word too
    # ("Coulibaly", zipf 3.2) counts, an everyday one (zipf 4+) never
    hit = [matches(w.group()) and _name_word_ok(w.group(), EVERYDAY_NAME_ZIPF) for w in words]
    out: list[Span] = []
    for i, w in enumerate(words):
        if not hit[i]:
            continue
        start, end = w.start(), w.end()
        for j in (i - 1, i + 1):  # one neighbour each side, same line, one space apart
            if not 0 <= j < len(words):
                continue
            n = words[j]
            gap = text[n.end() : start] if j < i else text[end : n.start()]
            if gap != " " or style(n.group()) != style(w.group()):
                continue
            if hit[j] or _name_word_ok(n.group()):
                start, end = min(start, n.start()), max(end, n.end())
        out.append(Span("PERSON", start, end, GAZETTEER_SCORE))
    return out


_SURNAME_COMMA_GIVEN = re.compile(
    rf"(?<![\w,])(?P<last>(?:(?i:de|del|van[ \t]+der|van|von|le|da|di|du|bin|mac)[ \t]+)*{_NAME_WORD}"
    rf"(?:[ \t]+{_NAME_WORD})?),[ \t]+(?P<first>{_NAME_WORD})"
    r"(?=[ \t]*(?:[\"';)(<\n|]|$)|[ \t]+(?:wrote|a\s+écrit|escribió)\b)"
)


def surname_comma_given_names(text: str, spans: list[Span]) -> list[Span]:
    """PERSON spans for ``Surname, Given`` in a record or before a quote (round 9):
    ``"Seong, Farai";``, ``for Hwang, Farai;``, ``Obiora, Chandni (chandni.obiora@…)
    wrote:`` — the pair followed by a quote, ``;``, a bracket, a line end or
    ``wrote``, never by another ``, Name`` (a list); one side already a PERSON
    span or a listed name, and every word a possible name
    (:func:`_name_word_ok`). Score :data:`GAZETTEER_SCORE`."""
    first, last = person_names()
    persons = [(s.start, s.end) for s in spans if s.entity_type == "PERSON"]
    out: list[Span] = []
    for m in _SURNAME_COMMA_GIVEN.finditer(text):
        words = [w for w in m.group("last").split() if w.lower() not in _PARTICLES | {"mac"}]
        given = m.group("first")
        if not all(_name_word_ok(w) for w in (*words, given)):
            continue
        known = given in first or any(w in last for w in words)
        found = any(a < m.end() and m.start() < b for a, b in persons)
        if known or found:
            out.append(Span("PERSON", m.start(), m.end(), GAZETTEER_SCORE))
    return out


# Strong cues before a name typed in lower case: "my name is rudo mutasa",
# "hi its kainoa again", "emergency contact: xiomara nasrallah -"
_LOWER_STRONG_CUE = re.compile(
    r"(?:(?<=\W)|^)(?i:my\s+name\s+is|name['’]s|i['’]m|i\s+am|this\s+is|it['’]?s|"
    r"je\s+m['’]appelle|me\s+llamo|soy|(?:emergency\s+)?contact(?:o)?\s*:|next\s+of\s+kin\s*:|"
    r"(?:salut|coucou|bonjour|allo|allô|hello|hi)[ \t,!]*c['’]est)[ \t]+"
    r"(?P<a>[a-zà-ÿßĀ-ž]{3,}(?:-[a-zà-ÿßĀ-ž]+)?)(?:[ \t]+(?P<b>(?:(?:bin|van\s+der|de|del|da|du|o['’])[ \t]*)?"
    r"[a-zà-ÿßĀ-ž]{3,}(?:-[a-zà-ÿßĀ-ž]+)?))?(?![\w@/\\_=(]|\.\w)"
)
_RARE_ZIPF = 2.5


def _rare_lower(word: str) -> bool:
    title = _title(word)
    if title in NOT_NAME_WORDS | OPENERS | MONTH_WORDS | STOP_WORDS or title in TECH_WORDS:
        return False
    if word in common_words():
        return False
    first, last = person_names()
    if (title in first or title in last) and title not in ambiguous_first_names():
        return True
    return word_zipf(word) < _RARE_ZIPF


# The same strong cues before a capitalised name ("Hey, it's Ziyad.", "this is
# Thibaud-Armand"; round 10): one or two capitalised words, each rare as a word
_CAP_STRONG_CUE = re.compile(
    r"(?:(?<=\W)|^)(?i:my\s+name\s+is|name['’]s|i['’]m|this\s+is|it['’]s|"
    r"je\s+m['’]appelle|me\s+llamo|soy)[ \t]+"
    r"(?P<a>(?-i:[A-ZÀ-ÖØ-Þ][a-zà-ÿßĀ-ž]{2,}(?:-[A-ZÀ-ÖØ-Þ][a-zà-ÿßĀ-ž]+)?))"
    r"(?:[ \t]+(?P<b>(?-i:[A-ZÀ-ÖØ-Þ][a-zà-ÿßĀ-ž]{2,}(?:-[A-ZÀ-ÖØ-Þ][a-zà-ÿßĀ-ž]+)?)))?"
    r"(?=[ \t]*(?:[.,!;:]|\n|$|[ \t]+(?:again|here|from|de|del|aquí|ici)\b))"
)


def capitalised_cue_names(text: str) -> list[Span]:
    """PERSON spans for a capitalised name after a strong self-introduction cue
    (``it's Ziyad.``, ``this is Thibaud-Armand,``, ``soy Eudes.``), the name
    ending at punctuation, a line end or ``again``/``here``/``from``: every
    hyphen part a listed name or a rare word (:func:`_rare_lower`). Score
    :data:`GAZETTEER_SCORE`."""
    out: list[Span] = []
    for m in _CAP_STRONG_CUE.finditer(text):
        words = [m.group("a")] + ([m.group("b")] if m.group("b") else [])
        if all(_rare_lower(part.lower()) for w in words for part in w.split("-")):
            out.append(Span("PERSON", m.start("a"), m.end(), GAZETTEER_SCORE))
    return out


# A greeting, then a name in lower case, then "here" ("hi kaveri vainikolo here,";
# round 13): the chat form of "this is"
_LOWER_HERE = re.compile(
    r"(?:(?<=\W)|^)(?i:hi|hey|hello|hiya|morning|evening)[ \t,!]+"
    r"(?P<a>[a-zà-ÿßĀ-ž]{3,}(?:-[a-zà-ÿßĀ-ž]+)?)[ \t]+(?P<b>[a-zà-ÿßĀ-ž]{3,}(?:-[a-zà-ÿßĀ-ž]+)?)"
    r"[ \t]+here\b"
)


def _seldom_lower(word: str) -> bool:
    """A lower-case word that may be a surname: rare (:func:`_rare_lower`), or no
    everyday or stop word and seldom used (zipf below :data:`EVERYDAY_NAME_ZIPF`:
    ``harcourt``)."""
    if _rare_lower(word):
        return True
    title = _title(word)
    return (
        word not in common_words()
        and title not in NOT_NAME_WORDS | OPENERS | MONTH_WORDS | STOP_WORDS
        and word_zipf(word) < EVERYDAY_NAME_ZIPF
    )


def _listed_surname(word: str) -> bool:
    """A lower-case word whose capitalised form is a listed surname that is no
    everyday word, place or stop word (``ochoa``)."""
    _, last = person_names()
    title = _title(word)
    never = NOT_NAME_WORDS | OPENERS | MONTH_WORDS | STOP_WORDS
    return title in last and title not in never and word not in common_words() and title not in place_names()


def lowercase_cue_names(text: str) -> list[Span]:
    """PERSON spans for one or two lower-case words after a strong cue (round 9):
    ``my name is rudo mutasa``, ``hi its kainoa again``, ``emergency contact:
    marisela nasrallah``, ``me llamo ...``; each word a listed name or a rare
    word (zipf below 2.5) and no stop, label or software word; the second
    word only when it is one too. Score :data:`GAZETTEER_SCORE`."""
    out: list[Span] = []
    for m in _LOWER_STRONG_CUE.finditer(text):
        b = m.group("b")
        b_word = b.split()[-1].split("'")[-1].split("’")[-1] if b is not None else None
        if not _rare_lower(m.group("a")):
            # round 13: "soy sagrario ochoa", "c'est amadou wattebled": a given name
            # seldom used as a word, then a listed surname or a rare word: the
            # surname vouches for it
            a = m.group("a")
            if (
                b_word is None
                or not (_listed_surname(b_word) or _rare_lower(b_word))
                or a in common_words()
                or _title(a) in STOP_WORDS | NOT_NAME_WORDS
                or word_zipf(a) >= EVERYDAY_NAME_ZIPF
            ):
                continue
            out.append(Span("PERSON", m.start("a"), m.end("b"), GAZETTEER_SCORE))
            continue
        end = m.end("a")
        if b_word is not None and _rare_lower(b_word):
            end = m.end("b")
        out.append(Span("PERSON", m.start("a"), end, GAZETTEER_SCORE))
    # round 13: "hi kaveri vainikolo here": both words rare or listed names
    for m in _LOWER_HERE.finditer(text):
        if _rare_lower(m.group("a")) and (_rare_lower(m.group("b")) or _listed_surname(m.group("b"))):
            out.append(Span("PERSON", m.start("a"), m.end("b"), GAZETTEER_SCORE))
    return out


# A chat line "[15:46] chidiebere: can you ..." (hours and minutes, no seconds:
# a log line has seconds)
_CHAT_HANDLE = re.compile(r"(?m)^[ \t]*\[\d{1,2}:\d{2}\][ \t]+(?P<nick>[a-zà-ÿßĀ-ž]{3,})[ \t]?:[ \t]")


def chat_handle_names(text: str) -> list[Span]:
    """PERSON spans for a lower-case chat handle after a ``[hh:mm]`` time
    (``[15:46] chidiebere: ...``, ``[14:44] domitille : ...``; round 9) that is a listed name or a rare
    word (:func:`_rare_lower`). Score :data:`GAZETTEER_SCORE`."""
    return [
        Span("PERSON", m.start("nick"), m.end("nick"), GAZETTEER_SCORE)
        for m in _CHAT_HANDLE.finditer(text)
        if _rare_lower(m.group("nick"))
    ]


_GIVEN_INITIAL = re.compile(
    rf"(?<![\w.@])(?P<name>{_NAME_WORD})[ \t]+[A-Z]\.(?=[,;)]|[ \t]*$|[ \t]+[a-z])", re.M
)


def given_initial_names(text: str) -> list[Span]:
    """PERSON spans for a given name and a surname's initial (``Themba B.,``,
    ``Haoran F.``; round 9): a capitalised word that may be a name
    (:func:`_name_word_ok`) then one capital and a dot before a comma, a
    bracket, a line end or a lower-case word. Score :data:`GAZETTEER_SCORE`."""
    return [
        Span("PERSON", m.start(), m.end(), GAZETTEER_SCORE)
        for m in _GIVEN_INITIAL.finditer(text)
        if _name_word_ok(m.group("name"))
    ]


_MIDDLE_INITIAL_RIGHT = re.compile(rf"^[ \t]+[A-Z]\.[ \t]+({_NAME_WORD})(?![\w@/\\_=(]|[.:-]\w)")
_MIDDLE_INITIAL_LEFT = re.compile(rf"(?:(?<=\s)|^)({_NAME_WORD})[ \t]+$")


def grow_initials(text: str, spans: list[Span]) -> list[Span]:
    """PERSON spans grown over a middle initial and the word past it (``Ryota`` +
    `` P. Mutasa``), or over the given name before an initial that opens the
    span (``Phuong`` + ``T. Chaudhuri``), when that word may be a name
    (:func:`_name_word_ok`; round 9)."""
    out: list[Span] = []
    for s in spans:
        if s.entity_type != "PERSON" or s.score >= 1.0:
            out.append(s)
            continue
        start, end = s.start, s.end
        right = _MIDDLE_INITIAL_RIGHT.match(text[end : end + 60])
        if right is not None and _name_word_ok(right.group(1)):
            end += right.end()
        if re.match(r"[A-Z]\.[ \t]", text[start : start + 3]):
            left = _MIDDLE_INITIAL_LEFT.search(text[max(0, start - 40) : start])
            if left is not None and _name_word_ok(left.group(1)):
                start -= len(left.group())
        out.append(s if (start, end) == (s.start, s.end) else Span("PERSON", start, end, s.score))
    return out


# Words that end the name of a business or trade ("Brightmoor Freight", "Helix
# Kitchens", "Quayside Print Ltd"): a capitalised name ending in one is an
# organisation, not a person.
ORGANISATION_WORDS = frozenset(
    """
    Ltd Limited Inc Incorporated LLC LLP Plc PLC GmbH AG SA SAS SARL SL SRL BV NV Co Corp Corporation
    Company Group Holdings Partners Associates Logistics Freight Shipping Transport Haulage Couriers
    Express Labs Laboratories Systems Solutions Services Consulting Consultants Studio Studios Foods
    Motors Bank Insurance Dental Pharma Pharmacy Media Films Software Technologies Technology Tech
    Analytics Capital Ventures Industries Manufacturing Construction Builders Plumbing Electrical
    Roofing Landscaping Cleaning Catering Bakery Brewing Brewery Coffee Textiles Furniture Interiors
    Designs Supplies Supply Traders Trading Imports Exports Airlines Energy Solar Telecom Networks
    Realty Properties Estates Hotels Resorts Travel Tours Clinic Academy Institute Foundation Trust
    Print Printing Printers Kitchens Ceramics Tiling Flooring Glass Joinery Metals Plastics Paper
    Packaging Outfitters Apparel Fashion Cosmetics Garage Auto Autos Marine Aviation Robotics
    Biotech Health Healthcare Care Legal Law Accounting Finance Financial Mortgage Lending Credit
    Centre Center Warehouse Depot Store Stores Shop Market Markets Mart Wholesale Retail Distribution
    """.split()
)


def organisation_name(text: str, span: Span) -> bool:
    """True when ``span`` of two or more capitalised words ends in a business or
    trade word (:data:`ORGANISATION_WORDS`, with ``Ltd`` and the like after it
    too) and its first word is no listed first name (``Brightmoor Freight``,
    ``Helix Kitchens``; ``Kofi Baker`` stays; round 9)."""
    words = text[span.start : span.end].split()
    if len(words) < 2:
        return False
    after = re.match(r"[ \t]+([A-Z][\w.]*)", text[span.end : span.end + 20])
    tail = [*words[1:], after.group(1).rstrip(".")] if after is not None else words[1:]
    if not any(w.rstrip(".,") in ORGANISATION_WORDS for w in tail):
        return False
    first, _ = person_names()
    return _title(words[0]) not in first or words[0] in ambiguous_first_names()


_TABLE_RULE_LINE = re.compile(r"^[ \t]*\|?[ \t]*:?-{3,}")


def in_table_header(text: str, span: Span) -> bool:
    """True when ``span`` stands in the header row of a markdown table (the line
    right above a ``|---|`` rule): column names (``Courriel``) are no names (round 9)."""
    line_start = text.rfind("\n", 0, span.start) + 1
    line_end = text.find("\n", span.start)
    if line_end < 0 or "|" not in text[line_start:line_end]:
        return False
    next_end = text.find("\n", line_end + 1)
    rule = text[line_end + 1 : next_end if next_end >= 0 else len(text)]
    return _TABLE_RULE_LINE.match(rule) is not None and "|" in rule


_INITIAL_NAME = re.compile(
    rf"(?<![\w.@-])[A-Z]\.[ \t]+(?P<words>(?:{_JOIN_PARTICLE}[ \t]+)*{_NAME_WORD}"
    rf"(?:[ \t]+(?:{_JOIN_PARTICLE}[ \t]+)*{_NAME_WORD}){{0,2}})(?![\w@/\\_=(]|[.:-]\w)"
)


def initial_surname_names(text: str) -> list[Span]:
    """PERSON spans for an initial and one to three name words (``firma de C.
    Arrizabalaga.``, ``L. Santisteban de los Ríos``, ``U. Agirre``; round 9):
    every word (particles aside) one that may be a name
    (:func:`_name_word_ok`), none a place alone. Score :data:`GAZETTEER_SCORE`."""
    out: list[Span] = []
    for m in _INITIAL_NAME.finditer(text):
        words = [w for w in m.group("words").split() if w.lower() not in _PARTICLES]
        kept = 0
        for w in words:
            if not _name_word_ok(w):
                break
            kept += 1
        if kept == 0 or (kept == 1 and (words[0] in place_names() or words[0] in world_places())):
            continue
        end = m.start("words") + m.group("words").index(words[kept - 1]) + len(words[kept - 1])
        out.append(Span("PERSON", m.start(), end, GAZETTEER_SCORE))
    return out


# A vocative opening a quoted message: «Gorka, todavía...», "'Keerthana you still..."
_QUOTED_VOCATIVE = re.compile(rf"[«\"“'‘][ \t]*(?P<name>{_NAME_WORD})(?=,|[ \t]+you\b)")
# A signature: the name alone after the text's last sentence (". Asier Villca Valdivieso")
_END_SIGNATURE = re.compile(rf"(?:[.!?]|\n)[ \t]*(?P<name>{_NAME_WORD}(?:[ \t]+{_NAME_WORD}){{0,3}})[ \t.]*$")


def vocative_and_signature_names(text: str) -> list[Span]:
    """PERSON spans for a name opening a quoted message before a comma or
    ``you`` (``«Gorka, todavía no has pagado»``, ``'Keerthana you still
    haven't paid'``) and for a name alone after the text's last sentence (a
    signature: ``... (cad. 10/30). Asier Villca Valdivieso``); every word one
    that may be a name (:func:`_name_word_ok`; round 9). Score :data:`GAZETTEER_SCORE`."""
    out: list[Span] = []
    for m in _QUOTED_VOCATIVE.finditer(text):
        if _name_word_ok(m.group("name")):
            out.append(Span("PERSON", m.start("name"), m.end("name"), GAZETTEER_SCORE))
    end = _END_SIGNATURE.search(text)
    if end is not None and all(_name_word_ok(w) for w in end.group("name").split()):
        out.append(Span("PERSON", end.start("name"), end.end("name"), GAZETTEER_SCORE))
    return out


_PAIR_GAP = re.compile(r",[ \t]+")
_PAIR_LIST_AFTER = re.compile(
    rf"^[ \t]*(?:,[ \t]*|[ \t]+(?i:and|or|et|ou|y|e|o|&)[ \t]+){_NAME_WORD}|^[ \t]*(?:,[ \t]*)?[A-Z]\.(?=\s)"
)
_PAIR_WORD_BEFORE = re.compile(r"(\w+)[ \t]*[,!]?[ \t]+$")
_PAIR_VERBS = frozenset(
    "ask tell thank thanks thx cc with and or ping remind call email hi hey hello dear cheers "
    "merci bonjour salut avec et gracias hola con y".split()
)


def _addressing(word: str) -> bool:
    """A greeting, command or verb that puts two people side by side after it."""
    return word.lower() in _PAIR_VERBS or word.title() in GREETING_WORDS | COMMAND_WORDS


_PAIR_LIST_BEFORE = re.compile(rf"(?:{_NAME_WORD}|[A-Z]\.)[ \t]*,[ \t]*$")


def join_surname_comma_given(text: str, spans: list[Span]) -> list[Span]:
    """``spans`` with each ``Surname, Given`` pair of one-word PERSON spans joined
    into one span (round 12): ``recipient Loxley, Cuthbert signed``, ``Name:
    Pillay, Duc`` — the rules find both words but the pair is one person.

    Both spans one name word (:data:`_NAME_WORD`), only ``, `` between them;
    never inside a list (another ``, Name``, ``and Name`` or an initial after
    the pair, or a ``Name, `` before it), and never when the first word is a
    listed first name, nor after a greeting or a verb that addresses people
    (``Thanks Tamsin, Benedikt``, ``ask Signe, Ailsa``: two people).
    The joined span keeps the higher score and replaces every PERSON span
    inside it; other spans pass unchanged.
    """
    first, last = person_names()
    one_word = re.compile(rf"{_NAME_WORD}")
    persons = sorted(
        (s for s in spans if s.entity_type == "PERSON" and one_word.fullmatch(text[s.start : s.end])),
        key=lambda s: s.start,
    )
    by_start = {s.start: s for s in persons}
    joined: list[Span] = []
    used: set[Span] = set()
    for a in persons:
        gap = _PAIR_GAP.match(text, a.end)
        if gap is None or a in used:
            continue
        b = by_start.get(gap.end())
        if b is None or b in used:
            continue
        surname = text[a.start : a.end]
        before = _PAIR_WORD_BEFORE.search(text[max(0, a.start - 30) : a.start])
        if surname in first or (before is not None and _addressing(before.group(1))):
            continue  # "Thanks Tamsin, Benedikt", "ask Signe, Ailsa": two people
        if _PAIR_LIST_AFTER.match(text[b.end : b.end + 40]) or _PAIR_LIST_BEFORE.search(
            text[max(0, a.start - 40) : a.start]
        ):
            continue
        used.update((a, b))
        joined.append(Span("PERSON", a.start, b.end, max(a.score, b.score)))
    if not joined:
        return spans
    inside = [(j.start, j.end) for j in joined]
    kept = [
        s
        for s in spans
        if s.entity_type != "PERSON" or not any(a <= s.start and s.end <= b for a, b in inside)
    ]
    return kept + joined


# --- Round 13 (issue 11): names the small models miss, with no cue word ------------


def _rare_cap(word: str) -> bool:
    """A capitalised word that no dictionary of the frequency languages knows:
    every hyphen part has zipf below :data:`_RARE_ZIPF`, is no everyday or
    stop word, no label, command, software, month or organisation word, and
    the word is no place (``Ermengarde``, ``Ihaia-Nikau``; not ``Tanyard``
    when a town, not ``Grafana``-like words the lists name)."""
    never = NOT_NAME_WORDS | OPENERS | MONTH_WORDS | STOP_WORDS | TECH_WORDS | ORGANISATION_WORDS
    if word in never or word in world_places() or word in place_names():
        return False
    return all(
        p.lower() not in common_words() and word_zipf(p) < _RARE_ZIPF and p.capitalize() not in never
        for p in re.split(r"[-'’]", word)
        if p
    )


def _surname_like(word: str) -> bool:
    """A capitalised word that may end a name after a rare given name: a rare word,
    a listed surname no everyday word, or a word seldom used (zipf below
    :data:`EVERYDAY_NAME_ZIPF`) that is no everyday word, place or stop word
    (``Harcourt``, ``Strickland``)."""
    if _rare_cap(word):
        return True
    never = NOT_NAME_WORDS | OPENERS | MONTH_WORDS | STOP_WORDS | TECH_WORDS | ORGANISATION_WORDS
    if word in never or word in world_places() or word in place_names():
        return False
    if any(p.lower() in common_words() for p in re.split(r"[-'’]", word) if p):
        return False
    return word_zipf(word) < EVERYDAY_NAME_ZIPF


_RARE_PAIR = re.compile(
    rf"(?<![\w@./\\#$%&=:_-])(?P<a>{_NAME_WORD})[ ](?P<p>(?:(?i:de\s+la|del|de|da|du|van|von|te|le|la)[ ]))?"
    rf"(?P<b>{_NAME_WORD})(?![\w@/\\_=(]|[.:-]\w)"
)


_PAIR_BEFORE_NOT = re.compile(
    r"(?:(?:^|[^\w])(?i:an|the|in|into|at|near|un|une|el|le|la|los|las|les|des|dans|du|del|en|à|"
    r"calle|avenida|paseo|plaza|camino|carretera|rue|avenue|chemin|impasse|allée|boulevard|place)"
    r"|\d)[ \t]+$"
)
_CAP_BEFORE = re.compile(r"(?:^|[^\w])([A-ZÀ-ÖØ-Þ][\w'’-]*)[ \t]+$")
# English "a" before a capitalised pair is an article ("a Garmin Forerunner");
# Spanish "a" marks a person ("conocimos a Covadonga Recuero")
_PAIR_AFTER_A = re.compile(r"(?:^|[^\w])(?i:a)[ \t]+$")
_PAIR_AFTER_NOT = re.compile(r"^[ \t]+[A-ZÀ-ÖØ-Þ]")


def _in_capitalised_run(text: str, start: int) -> bool:
    """True when a capitalised word that is no everyday or stop word stands right
    before ``start`` (``Tamarack Bluff`` of ``Old Tamarack Bluff``; not
    ``Could`` of ``Could Sakshi Ironside``)."""
    m = _CAP_BEFORE.search(text[max(0, start - 40) : start])
    if m is None:
        return False
    word = m.group(1)
    return word.lower() not in common_words() and word not in STOP_WORDS | OPENERS


def rare_pair_names(text: str, spans: list[Span] | None = None, lang: str | None = None) -> list[Span]:
    """PERSON spans for a given name and a surname the name lists and the small
    NER models miss, with no cue word (round 13: ``Please update payroll:
    Gethin Harcourt moved``, ``conocimos a Covadonga Recuero``, ``Grizel Te
    Whare``): two capitalised words one space apart, optionally a particle
    between them (``de``, ``del``, ``Te``), the first a rare word
    (:func:`_rare_cap`: no dictionary word, place, stop, label or software
    word in any frequency language) and the second a rare word too or a
    seldom-used word that is no everyday word or place
    (:func:`_surname_like`). Never a pair inside a longer run of capitalised
    words (``Tamarack Bluff Drive``, ``Northwind Fixings Ltd``), after a
    number, an article or a preposition of place (``a Garmin Forerunner``,
    ``in Luang Prabang``, ``calle Alfareros de Triana``; ``a`` only when
    ``lang`` is not ``es``: Spanish ``a`` marks a person), or overlapping
    another entity of ``spans`` (an address). Code, dates, organisations and
    table headers are filtered later like every other name. Score
    :data:`GAZETTEER_SCORE`."""
    taken = [(s.start, s.end) for s in spans or [] if s.entity_type != "PERSON"]
    out: list[Span] = []
    pos = 0
    while True:
        m = _RARE_PAIR.search(text, pos)
        if m is None:
            return out
        if (
            _rare_cap(m.group("a"))
            and _surname_like(m.group("b"))
            and not _PAIR_BEFORE_NOT.search(text[max(0, m.start() - 40) : m.start()])
            and (lang == "es" or not _PAIR_AFTER_A.search(text[max(0, m.start() - 10) : m.start()]))
            and not _in_capitalised_run(text, m.start())
            and not _PAIR_AFTER_NOT.match(text[m.end() : m.end() + 3])
            and not any(a < m.end() and m.start() < b for a, b in taken)
        ):
            out.append(Span("PERSON", m.start("a"), m.end("b"), GAZETTEER_SCORE))
            pos = m.end()
        else:
            pos = m.start("a") + len(m.group("a")) + 1  # the second word may start the next pair
