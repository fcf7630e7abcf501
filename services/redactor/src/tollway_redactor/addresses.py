"""Street-address patterns (en, fr, es, de/nl): regex text for Presidio pattern recognizers.

No model and no Presidio here: ``engine.py`` registers these strings as the
patterns of the ``tollway_street_address`` recognizer. Presidio compiles
them with ``IGNORECASE | MULTILINE | DOTALL``; capitalisation that matters
(a street *name* starts with a capital) is enforced with ``(?-i:...)``.

Every pattern is anchored on a house number or a street-type keyword (cheap
on long text: the regex engine fails fast elsewhere). What a match covers
is what identifies a home, so the whole of it is redacted:

- **en** (US/UK/AU): ``[Apt 4B, ]220 W 42nd Street[, Suite 300][, New York,
  NY 10036]``; one to four capitalised or ordinal name words before a street
  type, written out or abbreviated (``Walk``, ``Grove``, ``Quay``, ``Pkwy``,
  ``Blvd.``); a unit before or after (``Apt``, ``Suite``, ``Unit``, ``Flat``,
  ``Floor``, ``#12``); then a city with a US state and ZIP or a UK postcode,
  on the same line after a comma or on the next line(s) (multi-line
  signatures). ``PO Box 1234`` / ``P.O. Box`` with the same tail.
- **fr**: ``12[ bis][,] rue|avenue|bd|allée|quai... [de la] Name[, Bât. B,
  appt 12][, 75002 Paris[ Cedex 08]]``; the street type in any case;
  ``BP 123, 75008 Paris Cedex``.
- **es**: ``Calle|C/|Avda.|Paseo|Carrer... [de la] Name[,] [nº] 12|s/n``,
  then the floor and door part people write after the number (``2º B``,
  ``3.º A``, ``3º dcha.``, ``4º izq.``, ``bajo``, ``ático``, ``pral. 1ª``,
  ``piso 3``, ``puerta 2``, ``esc. B``, ``portal 2``) and ``28013 Madrid``
  / ``15001 A Coruña`` / ``28400 Collado Villalba (Madrid)``. Round 5 found
  the street but let the floor and door part through (frozen v3: full-span
  recall 0.167).
- **de/nl**: ``Hauptstraße 12[, 10115 Berlin]``.

A bare ``12 Drive`` (no name word) or a lower-case name is no address: a
street name has at least one capitalised word.
"""

from __future__ import annotations

# --- English (US, UK, AU) ----------------------------------------------------

# Street types, written out and as the post office abbreviates them.
_EN_TYPE_WORD = (
    r"(?-i:Street|Avenue|Road|Boulevard|Lane|Drive|Court|Way|Place|Terrace|Close|Square|Parkway|Highway|"
    r"Crescent|Gardens|Row|Mews|Circle|Trail|Walk|Grove|Rise|Quay|Wharf|Green|Hill|Vale|View|Gate|Park|"
    r"Yard|Alley|Ridge|Heights|Plaza|Expressway|Freeway|Turnpike|Pike|Causeway|Esplanade|Parade|"
    r"Promenade|Embankment|Chase|Croft|Glen|Landing|Cove|Crossing|Hollow|Meadows|Wynd|Broadway|Drove)"
)
# Abbreviations, with their full stop when written ("Blvd.", "Ct.").
_EN_TYPE_ABBR = (
    r"(?-i:St|Ave|Av|Rd|Blvd|Ln|Dr|Ct|Wy|Pl|Ter|Terr|Cl|Sq|Pkwy|Hwy|Cres|Gdns|Cir|Trl|Gr|Hts|Expy|Fwy|"
    r"Tpke|Pde)"
)
_EN_TYPE = rf"(?:{_EN_TYPE_WORD}\b|{_EN_TYPE_ABBR}\b\.?)"
_EN_NAME = r"(?:(?-i:[A-Z][a-z'’\-]+|[A-Z]\.?|Mc[A-Z][a-z]+)|\d{1,3}(?-i:st|nd|rd|th))"
_EN_DIRECTION = r"(?:\s+(?-i:N|S|E|W|NE|NW|SE|SW|North|South|East|West)\b\.?)?"
_EN_UNIT_WORD = r"(?-i:Apt|Apartment|Suite|Ste|Unit|Flat|Fl|Floor|Room|Rm|Bldg|Building|Dept|Lot)"
# whole words: "Ste" (suite) is no unit inside "Stellenbosch" (round 9); a
# number may follow the unit word directly ("Apt103C")
_EN_UNIT = rf"{_EN_UNIT_WORD}(?![a-z])\.?\s?#?\s?\w{{1,5}}\b"
_EN_UNITS_AFTER = rf"(?:,?[ \t]+(?:{_EN_UNIT}|#\s?\w{{1,5}})){{0,2}}"
# New Zealand's rural delivery number after the street ("893 Pohutukawa Rise, RD 7,
# Te Awamutu 3800", "RD 3" on its own line; round 10)
_NZ_RURAL_DELIVERY = r"(?:(?:,[ \t]*|[ \t]*\n[ \t]*)(?-i:RD)[ \t]+\d{1,2}\b)?"
# "Apt 4B, 220 ...", "Unit 4/91 Banksia Street" (Australian unit/number),
# "Flat 15\n48 Heron Point" (the unit on the line above)
# A house name before the number, on its line or the line above ("Rose
# Cottage, 95 Cobbler's Row", "Ivy Cottage\n78 Fernhollow Avenue"; round 9)
_EN_HOUSE = (
    r"(?-i:[A-Z][a-z'’]+[ \t]+(?:Cottage|House|Farm|Farmhouse|Lodge|Barn|Villa|Manor|Hall|Grange|Cabin|"
    r"Chalet|Bungalow|Rectory|Vicarage|Mansions))"
)
_EN_UNIT_BEFORE = rf"(?:\b(?:{_EN_UNIT}|{_EN_HOUSE})(?:,?[ \t]+|/|,?[ \t]*\n[ \t]*))?"
# A town: capitalised words, lower-case links inside ("Truth or Consequences",
# "Carrick-on-Shannon"), or in capitals as UK mail writes it ("LEDBURY"; round 10)
_EN_CITY = (
    r"(?-i:(?:St\.?\s)?(?:[A-Z][a-z'’]+(?:(?:[ \-](?:on|upon|or|under|le|by|in|de|la)[ \-]|[ \-])[A-Z][a-z'’]+){0,2}"
    r"|[A-Z][A-Z'’]{2,}(?:[ \-][A-Z][A-Z'’]{2,})?))"
)
_US_STATE_ZIP = r"(?-i:[A-Z]{2})(?:\s+\d{5}(?:-\d{4})?)?\b"
_US_STATE_ZIP_REQ = r"(?-i:[A-Z]{2})\s+\d{5}(?:-\d{4})?\b"
_UK_POSTCODE = r"(?-i:[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2})\b"
_AU_STATE_POSTCODE = r"(?-i:NSW|VIC|QLD|SA|WA|TAS|NT|ACT)\s+\d{4}\b"
# Ireland: "[, Co. Cork] P31 HT43" (Eircode: routing key, unique identifier)
_IE_EIRCODE = r"(?:(?-i:Co\.?[ \t]+[A-Z][a-z]+)(?:,?[ \t]+|[ \t]*\n[ \t]*))?(?-i:[AC-FHKNPRTV-Y]\d[\dW]\s?[AC-FHKNPRTV-Y\d]{4})\b"
_CA_PROVINCE_POSTCODE = r"(?-i:[A-Z]{2}\s+[A-Z]\d[A-Z]\s?\d[A-Z]\d)\b"
# ", City, ST 12345" / ", City ST 12345" / ", City, ST" / ", City LS6 2AB" / "\nCity\nLS6 2AB"
_EN_SEP = r"(?:,[ \t]*\n?[ \t]*|[ \t]*\n[ \t]*)"
_EN_TAIL = (
    rf"(?:{_EN_SEP}{_EN_CITY}(?:,[ \t]*{_EN_CITY}(?:[ \t]+\d{{1,2}})?)?(?:(?:,?[ \t]+|[ \t]*\n[ \t]*)"
    rf"(?:{_CA_PROVINCE_POSTCODE}|{_US_STATE_ZIP_REQ}|{_UK_POSTCODE}|{_AU_STATE_POSTCODE}|{_IE_EIRCODE})"
    rf"|,[ \t]*{_US_STATE_ZIP})"
    # no comma after the street: only with a state and ZIP ("PO Box 12 Fresno, CA 93721")
    rf"|[ \t]+{_EN_CITY},?[ \t]+{_US_STATE_ZIP_REQ}"
    # South Africa / New Zealand: suburb, city and a 4-digit postcode ("Brooklyn,
    # Pretoria, 0181", "Ponsonby, Auckland 1011", "Karori\nWellington 6012"); both
    # places required, so a year after one city ("London 2012") is never taken
    rf"|{_EN_SEP}{_EN_CITY}{_EN_SEP}{_EN_CITY}(?:,[ \t]*|[ \t]+|[ \t]*\n[ \t]*)\d{{4}}\b"
    # one town and a 4-digit postcode that is no year 1900-2099 ("Whanganui
    # 4500", "Stellenbosch\n7600"; round 9): "London 2012" is still never taken
    rf"|{_EN_SEP}{_EN_CITY}(?:,[ \t]*|[ \t]+|[ \t]*\n[ \t]*)(?!(?:19|20)\d\d\b)\d{{4}}\b)?"
)
# The same tail, required: after a weak street type.
_EN_TAIL_REQ = (
    rf"(?:{_EN_SEP}{_EN_CITY}(?:,?[ \t]+|[ \t]*\n[ \t]*)"
    rf"(?:{_CA_PROVINCE_POSTCODE}|{_US_STATE_ZIP_REQ}|{_UK_POSTCODE}|{_AU_STATE_POSTCODE}|{_IE_EIRCODE}))"
)
# Street types that are everyday words too ("Heron Point", "Wattle Creek",
# "Sycamore Bend"): a street only with a city and a postcode after it.
_EN_WEAK_TYPE = (
    r"(?-i:Point|Creek|Bend|Brook|Crest|Field|Fields|Run|Loop|Pass|Path|Spur|Knoll|Manor|Mill|Orchard|"
    r"Oval|Reach|Shore|Summit|Trace|Vista|Dale|Heath|End|Hythe|Common|Chine|Bank|Side|Fold)\b"
)
STREET_EN_WEAK = rf"{_EN_UNIT_BEFORE}\b\d{{1,5}}[A-Za-z]?\s+(?:{_EN_NAME}\s+){{1,3}}{_EN_WEAK_TYPE}{_EN_UNITS_AFTER}{_EN_TAIL_REQ}"
STREET_EN = (
    rf"{_EN_UNIT_BEFORE}\b\d{{1,5}}[A-Za-z]?(?:-\d{{1,4}})?\s+(?:{_EN_NAME}\s+){{1,4}}{_EN_TYPE}"
    rf"{_EN_DIRECTION}{_EN_UNITS_AFTER}{_NZ_RURAL_DELIVERY}{_EN_TAIL}"
)
# A house name or a unit then a street without a house number ("Rose Cottage,
# Spruce Ridge Road, Wymondham NR18 4RH", "Apt 16, Tamarisk Crescent\nDungarvan,
# Co. Waterford\nX35 W8N9"): the town and its postcode required (round 11)
STREET_EN_UNNUMBERED = (
    rf"\b(?:{_EN_HOUSE}|{_EN_UNIT})(?:,[ \t]*|[ \t]*\n[ \t]*)(?:{_EN_NAME}[ \t]+){{1,3}}{_EN_TYPE}"
    rf"{_EN_TAIL_REQ}"
)
PO_BOX = rf"\b(?-i:P\.?\s?O\.?\s?Box|PO\s?Box|POB|Post\s+Office\s+Box)\s+\d{{1,6}}\b{_EN_TAIL}"
# Rural routes: the US "RR 3 Box 10" / "HC 2 Box 5" and Canada's "RR 1 Site 15 Comp 45",
# then the town with its state and ZIP or province and postcode (required; round 10)
RURAL_ROUTE = (
    r"\b(?-i:RR|R\.R\.|Rural[ \t]+Route|HC|Star[ \t]+Route)[ \t]+\d{1,3}"
    r"(?:[ \t]+(?-i:Box)[ \t]+\d{1,5}|[ \t]+(?-i:Site)[ \t]+\d{1,3}[ \t]+(?-i:Comp)[ \t]+\d{1,3})"
    rf"{_EN_TAIL_REQ}"
)

# --- German / Dutch ----------------------------------------------------------

STREET_DE = (
    r"\b(?-i:[A-Z][a-zäöüß]+(?:straße|strasse|str\.|weg|gasse|platz|allee|laan|straat|gracht|plein))"
    r"\s+\d{1,4}[a-z]?\b(?:,\s*\d{4,5}\s+(?-i:[A-Z][a-zäöüß]+))?"
)

# --- French --------------------------------------------------------------------

_CAP = r"(?-i:[A-ZÀ-ÖØ-Þ][\w'’\-]+)"
_FR_TYPE = (
    r"(?:rue|avenue|av\.|boulevard|bd|place|pl\.|chemin|allée|impasse|quai|route|cours|square|passage|"
    r"esplanade|promenade|chaussée|rond-point|sentier|voie|cité|résidence|hameau|faubourg|lieu-dit|"
    r"parvis|ruelle|villa|montée|traverse|sq\.)"
)
_FR_LINK = r"(?:(?:de\s+la|de\s+l['’]|du|des|de|d['’])\s*)?"
_FR_UNIT_WORD = r"(?:bâtiment|bât\.?|escalier|esc\.?|étage|ét\.|appartement|appt\.?|app\.?|apt\.?|porte|lot)"
_FR_UNIT = (
    r"(?:,?\s+(?:bâtiment|bât\.?|escalier|esc\.?|étage|ét\.|appartement|appt\.?|app\.?|apt\.?|porte|lot)"
    r"[ \t]*[\w°]{1,4}\b){0,3}"
)
_FR_COMMUNE = (
    rf"{_CAP}(?:[ \t\-](?!(?-i:CEDEX|Cedex)\b){_CAP}){{0,2}}(?:[ \t]+(?-i:CEDEX|Cedex)(?:[ \t]+\d{{1,2}})?)?"
)
# "75002 Paris", or Québec's "Gatineau (Québec) J8X 3X2"
_CA_POSTCODE = r"(?-i:[A-Z]\d[A-Z][ \t]?\d[A-Z]\d)\b"
# A French post-office box between the street and the postcode ("BP 642\n33076
# Bordeaux CEDEX", "BP 611, 31106 Toulouse Cedex 1"; round 9), and a country
# letter before the postcode ("L-1835 Howald")
_FR_BOX = r"(?:,?\s*(?-i:BP|CS|Boîte[ \t]+postale)[ \t]?\d{1,5})?"
_FR_CITY = (
    rf"(?:{_FR_BOX},?\s*(?:(?-i:L|B|CH|F)-\d{{4,5}}|\d{{5}})\s+{_FR_COMMUNE}"
    rf"|,?\s*{_FR_COMMUNE}(?:[ \t]+\({_CAP}\))?[ \t]+{_CA_POSTCODE})?"
)
# A unit, building or residence before the number: "Appt 14, ", "Bât. A, esc. 2\n",
# "Résidence les Mimosas, "
_FR_BEFORE_ITEM = rf"(?:{_FR_UNIT_WORD}[ \t]*[\w°]{{1,4}}\b|(?-i:Résidence)[ \t]+(?:les|le|la|l['’])?[ \t]*{_CAP}(?:[ \t]+{_CAP}){{0,2}})"
_FR_UNIT_BEFORE = rf"(?:\b{_FR_BEFORE_ITEM}(?:,[ \t]*{_FR_BEFORE_ITEM})*(?:,[ \t]*|[ \t]*\n[ \t]*))?"
# The street's name never runs onto the next line: there stand the town
# ("...des Fauvettes\nMontréal (Québec)  H2X 9B5") or a box ("\nBP 642"; round 9).
STREET_FR = (
    rf"{_FR_UNIT_BEFORE}\b\d{{1,4}}(?:\s?(?:bis|ter|quater|[A-D]\b))?,?\s+{_FR_TYPE}\s+{_FR_LINK}{_CAP}"
    rf"(?:[ \t]+{_FR_LINK}{_CAP}){{0,3}}{_FR_UNIT}{_FR_CITY}"
)
# Belgium and Switzerland write the number last: "Chaussée de Louvain 165/B3, 5000
# Namur", "Chemin des Crêts 19\n1218 Le Grand-Saconnex" (a 4-digit postcode required)
_FR_TYPE_CAP = (
    r"(?-i:Rue|Avenue|Boulevard|Place|Chemin|Allée|Impasse|Quai|Route|Chaussée|Square|Passage|Drève|"
    r"Clos|Sentier|Ruelle|Promenade|Esplanade|Galerie|Cours|Cour|Parvis|Venelle|Rond-[Pp]oint|Voie)"
)
STREET_FR_NUMBER_LAST = (
    rf"\b{_FR_TYPE_CAP}\s+{_FR_LINK}{_CAP}(?:\s+{_FR_LINK}{_CAP}){{0,3}}[ \t]+\d{{1,4}}[a-z]?"
    rf"(?:[ \t]*/[ \t]*\w{{1,4}}|[ \t]+(?:bte|boîte|bus)[ \t]*\w{{1,4}})?"
    rf"(?:,[ \t]*|[ \t]*\n[ \t]*)\d{{4}}[ \t]+{_FR_COMMUNE}"
)
# A rural place without a number: "Lieu-dit Les Grandes Ouches, 29270 Carhaix-Plouguer"
# (the postcode required; round 10)
LIEU_DIT = (
    rf"\b(?-i:Lieu-dit|Lieudit|Lieu[ \t]+dit)[ \t]+{_CAP}(?:[ \t]+{_FR_LINK}{_CAP}){{0,3}}"
    rf"(?:,[ \t]*|[ \t]*\n[ \t]*)\d{{5}}[ \t]+{_FR_COMMUNE}"
)
BOITE_POSTALE = rf"\b(?-i:BP|CS)\s?\d{{1,5}},?\s*\d{{5}}\s+{_FR_COMMUNE}"

# --- Spanish -------------------------------------------------------------------

# Lower case too for the types people write in running text ("vivo en la calle
# Mayor 12"); the rest are everyday words in lower case ("cuesta", "ronda").
_ES_TYPE = (
    r"(?-i:[Cc]alle|[Cc]/|Cl\.|[Aa]venida|[Aa]vda\.?|Av\.|[Pp]laza|Pza\.|Pl\.|[Pp]aseo|Pº|[Cc]amino|"
    r"[Cc]arretera|Ctra\.|Ronda|Travesía|Rambla|Gran[ \t]+V[íi]a|Vía|Glorieta|Pasaje|Pje\.|Callejón|Bulevar|"
    r"Bvar\.|Blvr\.|Urbanización|Urb\.|Calzada|Calz\.|Jirón|Jr\.|[Cc]arrer|[Aa]vinguda|[Pp]asseig|[Pp]laça|"
    r"Rúa|Diagonal|Transversal)"
)
# Links inside street names: Spanish, Catalan ("de les Corts", "dels Àngels",
# "Sant Bartomeu de l'Erm": round 9)
# and Galician ("Rúa do Vilar", "Rúa da Raíña"); a road named by the towns it
# joins ("Carretera de Colmenar a Torrelodones", "Camino de Ayna al Molino",
# "Calle de Fernando y Pilar"; round 12).
_ES_LINK = (
    r"(?:(?:de\s+la|de\s+los|de\s+las|de\s+les|de\s+l['’]|del|de|dels|d['’]|l['’]|do|da|dos|das)\s*"
    r"|(?-i:a\s+la|al|a|y|i)\s+)?"
)
# a house number, "s/n", or a road's kilometre point ("Carretera de Cehegín, km 18,3"; round 10)
_ES_NUMBER = (
    r"(?:(?:n\.?º|nº|núm\.?|no\.)\s*)?(?:\d{1,4}(?-i:[A-Z])?\b|s/n|km\.?[ \t]?\d{1,3}(?:[,.]\d{1,3})?\b)"
)
# The floor and door part: "2º B", "3.º A", "3º dcha.", "1º izq.", "4ª planta",
# "bajo B", "ático", "pral. 1ª", "piso 3", "puerta 2", "esc. B", "portal 2".
_ES_ORDINAL = (
    r"\d{1,2}\.?[ \t]?[ºª°](?:[ \t]?(?:dcha|dch|der|izq|izda|ctro|centro)\b\.?|[ \t]?(?-i:[A-Z])\b"
    r"|[ \t]?\d{1,2}\.?[ \t]?[ºª°])?"
)
_ES_FLOOR_WORD = (
    r"(?:bajo|ático|entresuelo|entlo\.|pral\.|principal|sótano|planta|piso|puerta|pta\.|portal|esc\.|"
    r"escalera|bloque|blq\.|local|dcha\.?|izq(?:da)?\.?|izda\.?|int\.|interior|depto\.|dpto\.|departamento|"
    r"apto\.|apartamento|of\.|oficina|casa|dto\.|dpto|depto)(?:[ \t]?(?:\d{1,4}\b[ \t]?[ºª°]?|(?-i:[A-Z])\b))?"
)
# floor-door as digits ("escalera B, 8-2"; round 10)
_ES_FLOOR = rf"(?:,?\s*(?:{_ES_ORDINAL}|{_ES_FLOOR_WORD}|\d{{1,2}}-\d{{1,2}}\b(?!-))){{0,4}}"
_ES_CITY_WORD = r"(?-i:[A-ZÀ-ÖØ-Þ][\w'’\-]*)"
# Mexico's colonia ("Col. Del Valle") before the postcode
_ES_COLONIA = rf"(?:,?\s*(?:Col\.|Colonia)[ \t]+{_ES_CITY_WORD}(?:[ \t]+(?:(?:de|del|de\s+la|la|el)[ \t]+)?{_ES_CITY_WORD}){{0,3}})?"
# 5 digits (Spain, Mexico...), Chile's 7, Argentina's "C1406" / "C1406ABC"
_ES_POSTCODE = r"(?:\d{7}|\d{5}|(?-i:[A-Z])\d{4}(?-i:[A-Z]{3})?)"
# A locality: "Barcelona", "Santiago de Compostela", "Cercado de Lima", "Bogotá D.C."
# (an initial inside it too: "Gustavo A. Madero")
_ES_PLACE = (
    rf"{_ES_CITY_WORD}(?:[ \t]+(?:(?:de|del|de\s+la|de\s+los|de\s+las|la|el|los|las|i)[ \t]+)?"
    rf"(?:(?-i:[A-Z])\.|{_ES_CITY_WORD})){{0,3}}(?:[ \t]+(?-i:D\.C\.))?"
)
_ES_SEP = r"(?:,[ \t]*|[ \t]*\n[ \t]*)"
# A region abbreviated with its dot after the postcode's city ("44160
# Guadalajara, Jal.", "91000 Xalapa, Ver.", "Q. Roo"; round 9)
_ES_STATE_ABBR = r"(?-i:[A-Z][a-zé]{1,3}\.(?:[ \t]?[A-Z][a-zé]{1,3}\.?)?)(?!\w)"
# The tail: "08015 Barcelona[, CDMX]" (postcode first), or, without a postcode
# first, two localities ("Providencia, Santiago", "Cercado de Lima, Lima 15001",
# "Medellín, Antioquia"; the second on the next line only with a postcode:
# "Cercado de Lima\nLima 15001") or a capital district ("Bogotá D.C."). One bare
# capitalised word after the number is never taken (it may be a name: "Calle
# Mayor 12, Juan dijo...").
_ES_CITY = (
    rf"{_ES_COLONIA}(?:,?\s*{_ES_POSTCODE}\s+{_ES_PLACE}(?:\s*\({_ES_CITY_WORD}(?:\s{_ES_CITY_WORD})?\))?"
    rf"(?:,[ \t]*(?:{_ES_STATE_ABBR}|{_ES_PLACE}))?"
    rf"|{_ES_SEP}{_ES_PLACE}(?:,[ \t]*{_ES_PLACE}(?:[ \t]+{_ES_POSTCODE})?"
    # "Cercado de Lima 15001, Lima" (the postcode after the district; round 10)
    rf"|[ \t]+{_ES_POSTCODE}(?:,[ \t]*{_ES_PLACE})?"
    rf"|[ \t]*\n[ \t]*{_ES_PLACE}[ \t]+{_ES_POSTCODE})"
    rf"|{_ES_SEP}{_ES_CITY_WORD}(?:[ \t]+{_ES_CITY_WORD})?[ \t]+(?-i:D\.C\.))?"
)
# Colombia's grid addresses: "Calle 45 # 12-30", "Diagonal 40A # 89-68",
# "Carrera 7 No. 71-21", "Cra. 15 Bis # 93-47"
_ES_GRID_TYPE = (
    r"(?-i:Calle|Cl\.|Carrera|Cra\.|Kr\.|Kra\.|Diagonal|Dg\.|Transversal|Tv\.|Avenida|Av\.|Autopista)"
)
STREET_ES_GRID = (
    rf"(?<!\w){_ES_GRID_TYPE}[ \t]+\d{{1,3}}(?-i:[A-Z])?(?:[ \t]+(?-i:Bis|Sur|Este))?[ \t]*"
    rf"(?:#|(?-i:No|N[º°])\.?)[ \t]*\d{{1,3}}(?-i:[A-Z])?[ \t]*-[ \t]*\d{{1,3}}\b"
    rf"{_ES_FLOOR}{_ES_CITY}"
)
STREET_ES = (
    rf"(?<!\w){_ES_TYPE}\s*{_ES_LINK}{_CAP}(?:\s+{_ES_LINK}{_CAP}){{0,3}},?\s*{_ES_NUMBER}"
    rf"{_ES_FLOOR}{_ES_CITY}"
)

# "Apartado de Correos 2388, 47080 Valladolid", "Apdo. 12\n28080 Madrid"
APARTADO = rf"\b(?-i:Apartado(?:[ \t]+de[ \t]+Correos)?|Apdo\.)[ \t]+\d{{1,6}}(?:,[ \t]*|[ \t]*\n[ \t]*)\d{{5}}[ \t]+{_ES_CITY_WORD}(?:[ \t]+{_ES_CITY_WORD}){{0,2}}"

PATTERNS: tuple[tuple[str, str], ...] = (
    ("street_number_first", STREET_EN),
    ("street_number_first_weak", STREET_EN_WEAK),
    ("street_unnumbered", STREET_EN_UNNUMBERED),
    ("po_box", PO_BOX),
    ("rural_route", RURAL_ROUTE),
    ("street_number_last", STREET_DE),
    ("street_fr", STREET_FR),
    ("street_fr_number_last", STREET_FR_NUMBER_LAST),
    ("boite_postale", BOITE_POSTALE),
    ("lieu_dit", LIEU_DIT),
    ("street_es", STREET_ES),
    ("street_es_grid", STREET_ES_GRID),
    ("apartado", APARTADO),
)
"""``(pattern name, regex)`` of the ``tollway_street_address`` recognizer, in order."""
