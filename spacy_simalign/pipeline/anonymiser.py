"""`simalign_anonymiser`: the component that finds what to anonymise before a corpus is published,
as the Amsterdam corpus was: names, organisations (except an allow-list of public bodies), street addresses with a
house number, phone numbers, e-mail addresses and web addresses become [NAME], [ORGANIZATION], [ADDRESS],
[NUMBER], [EMAIL], [URL]; a sentence flagged as sensitive becomes `xxx xxx xxx`: one naming a password,
a personal ID or a bank account (IBAN), or a special category of personal data (GDPR art. 9) said of
someone: a health condition ("HIV-positiv") or a party membership ("Mitglied der SPD").

Patterns for de/nl/fr/en work on `spacy.blank(lang)`; entities that earlier components
put in `doc.ents` (a trained NER, an EntityRuler) are used in addition. Found spans go in
the span group `doc.spans["anonymised"]` (plain data: it survives DocBin and to_disk);
`doc._.anonymised` is the text with the replacements."""

import re
from typing import Iterable, List, Sequence, Tuple

from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import filter_spans
from thinc.api import Config

SPAN_KEY = "anonymised"
SENSITIVE_TEXT = "xxx xxx xxx"
PLACEHOLDERS = {
    "NAME": "[NAME]",
    "ORGANIZATION": "[ORGANIZATION]",
    "ADDRESS": "[ADDRESS]",
    "NUMBER": "[NUMBER]",
    "EMAIL": "[EMAIL]",
    "URL": "[URL]",
}
NER_LABELS = {"PERSON": "NAME", "PER": "NAME", "ORG": "ORGANIZATION"}

DEFAULT_CONFIG_STR = """
[anonymiser]
allow_list = ["Gemeente Amsterdam","GGD","RIVM","Rijksoverheid","Gemeente","Tweede Kamer",
    "Bundesregierung","Robert Koch-Institut","Santé publique France","NHS"]
use_ner = true
patterns = true
sensitive_patterns = []
span_key = "anonymised"
"""
DEFAULT_CONFIG = Config().from_str(DEFAULT_CONFIG_STR)

# --- patterns -----------------------------------------------------------------------------
_CAP = r"[A-ZÀ-ÖØ-Þ][\w'’-]*"
_PARTICLES = r"(?:van|de|der|den|ter|ten|te|het|von|vom|zu|zur|du|des|le|la|da|di|del|mc|o')"
_NAME = (
    rf"(?:(?:[A-Z]\.\s?){{1,3}}\s*|{_CAP}\s+)?(?:{_PARTICLES}\s+){{0,3}}{_CAP}"
    rf"(?:-{_CAP})?"
)
_INITIALS_NAME = rf"\b(?!(?:I|V|X)\.)(?:[A-Z]\.\s?){{1,3}}\s?(?:{_PARTICLES}\s+){{0,3}}{_CAP}"

NAME_TRIGGERS = {
    "nl": r"(?i:de\s+heer|mevrouw|meneer|mevr\.|mw\.|dhr\.|dr\.|drs\.|mr\.|ir\.|ing\.|prof\.|wethouder|burgemeester|"
    r"gemeentesecretaris|stadsdeelvoorzitter|psycholoog|pedagoog|sportpedagoog|trainer|"
    r"hockeytrainer|projectleider|contactpersoon|collega)",
    "de": r"(?:Herrn?|Frau|Dr\.|Prof\.|(?:Ober)?[Bb]ürgermeister(?:in)?|Stadtr(?:at|ätin)|Senator(?:in)?|"
    r"Ansprechpartner(?:in)?:?|Kolleg(?:e|in))",
    "fr": r"(?:M\.|Mme|Mlle|Monsieur|Madame|Mademoiselle|Dr|Docteur|[Mm]aire|[Aa]djointe?|[Pp]réfète?)",
    "en": r"(?:Mr\.?|Mrs\.?|Ms\.?|Miss|Dr\.?|Prof\.?|Mayor|Councillor|Councilor|Sir|Dame|[Cc]olleague)",
}
ORG_PREFIXES = {
    "nl": r"(?:Stichting|Vereniging|Coöperatie|Woningcorporatie|Woonstichting|Adviesbureau)",
    "de": r"(?:Stiftung|Verein|Genossenschaft|Firma|Ingenieurbüro|Agentur)",
    "fr": r"(?:Association|Fondation|Société|Cabinet|Agence|Entreprise)",
    "en": r"(?:Foundation|Association|Trust|Agency)",
}
ORG_SUFFIXES = {"en": r"(?:Foundation|Association|Trust|Society|Partners|Group|Company|Consultancy)"}
_LEGAL_FORMS = (
    r"(?:B\.V\.|BV|N\.V\.|NV|V\.O\.F\.|GmbH|gGmbH|AG|e\.\s?V\.|KG|S\.A\.|SA|SARL|SAS|"
    r"Ltd\.?|Inc\.?|LLC|plc|Corp\.?)"
)
_STREET_SUFFIX = {
    "nl": r"(?:straat|laan|weg|plein|gracht|kade|dijk|singel|pad|dreef|hof|park|markt|steeg|plantsoen|boulevard|"
    r"baan|burgwal|wal|kwartier|veld|haven|eiland)",
    "de": r"(?:straße|strasse|str\.|weg|platz|allee|gasse|ring|damm|ufer|chaussee|steig|pfad|markt|graben)",
}
_HOUSE_NO = r"\d{1,4}(?:\s?[a-zA-Z](?!\w))?(?:\s?[-–/]\s?\d{1,4}(?:[a-zA-Z](?!\w))?)?"
ADDRESS = {
    "nl": rf"(?:(?:{_CAP}|van|de|der|den|het|'t)\s+){{0,3}}{_CAP}{_STREET_SUFFIX['nl']}\s+{_HOUSE_NO}"
    rf"(?:,?\s+\d{{4}}\s?[A-Z]{{2}}(?:\s+{_CAP})?)?",
    "de": rf"(?:(?:{_CAP}|am|an|der|den)\s+){{0,2}}{_CAP}{_STREET_SUFFIX['de']}\s+{_HOUSE_NO}(?:,?\s+\d{{5}}\s+{_CAP})?"
    rf"|(?:{_CAP}[\s-]){{1,3}}(?:Straße|Strasse|Weg|Platz|Allee|Gasse|Ring|Damm)\s+{_HOUSE_NO}"
    rf"(?:,?\s+\d{{5}}\s+{_CAP})?",
    "fr": r"\b\d{1,4}(?:\s?(?:bis|ter))?,?\s+(?:rue|avenue|av\.|boulevard|bd|place|chemin|impasse|allée|quai|route|"
    r"cours|passage|square)\s+(?:(?:de|du|des|la|le|l'|d')\s*)*"
    + _CAP
    + r"(?:[\s-]+(?:(?:de|du|des|la|le|l'|d')\s*)*"
    + _CAP
    + r")*(?:,?\s+\d{5}\s+"
    + _CAP
    + r")?",
    "en": r"\b\d{1,5}[A-Za-z]?\s+(?:" + _CAP + r"\s+){1,3}(?:Street|St\.|Road|Rd\.?|Avenue|Ave\.?|Lane|Ln\.?|Drive|"
    r"Boulevard|Blvd\.?|Way|Square|Place|Court|Crescent|Terrace|Close|Gardens)(?!\w)",
}
_PHONE_SEP = r"[\s./-]?"
PHONE = [
    # international: +31 20 555 5202, 0049 30 1234567, +33 (0)1 23 45 67 89
    re.compile(
        r"(?<![\w+])(?:\+|00)\d{1,3}" + _PHONE_SEP + r"(?:\(0\)\s?)?\d{1,4}(?:" + _PHONE_SEP + r"\d{2,5}){1,4}(?!\w)"
    ),
    # national, trunk prefix 0: 020-55 55 202, 06-12345678, 030 1234567, 01 23 45 67 89, (020) 555 5202
    re.compile(r"(?<![\w+])(?:\(0\d{1,4}\)|0\d{1,4})(?:" + _PHONE_SEP + r"\d{2,8}){1,4}(?!\w)"),
    # North American: (555) 123-4567, 555-123-4567
    re.compile(r"(?<!\w)(?:\(\d{3}\)\s?|\d{3}[-.\s])\d{3}[-.\s]\d{4}(?!\w)"),
]
SENSITIVE = {
    "nl": r"(?i:wachtwoord|inlogcode|pincode|burgerservicenummer|\bBSN\b)",
    "de": r"(?i:passwort|kennwort|\bPIN\b|steuer-?id|sozialversicherungsnummer)",
    "fr": r"(?i:mot de passe|code secret|numéro de sécurité sociale|\bNIR\b)",
    "en": r"(?i:password|passcode|\bPIN\b|social security number|\bSSN\b)",
}
IBAN = r"\b[A-Z]{2}\d{2}\s?(?:[A-Z0-9]{4}\s?){3,7}[A-Z0-9]{1,4}\b"
EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[^\W\d_]{2,}(?![\w-])")
# with a scheme or www.; trailing punctuation of the sentence is not part of it
URL = re.compile(r"(?<![\w@])(?:https?://|www\.)[^\s<>\"'«»]+?(?=[.,;:!?)\]'\"»]*(?:\s|$))")

# special categories of personal data (GDPR art. 9) said of someone: the sentence is blanked.
# health: a condition or diagnosis of a person; politics: membership of a party (a party named
# in the news is no personal data, "member of" it is)
_PARTIES = {
    "de": r"SPD|CDU|CSU|FDP|AfD|Grünen|Grüne|Linken?|Linkspartei|BSW|ÖVP|FPÖ|SPÖ|NPD",
    "nl": r"PvdA|VVD|CDA|D66|PVV|GroenLinks|SP|ChristenUnie|SGP|BBB|JA21|FvD|Forum voor Democratie|Partij voor de Dieren",
    "fr": r"PS|LR|RN|LFI|Rassemblement national|Front national|Parti socialiste|Les Républicains|"
    r"La France insoumise|Renaissance|EELV|PCF|Parti communiste",
    "en": r"Labour|Conservatives?|Tory|Tories|Liberal Democrats|Lib Dems|SNP|Green Party|Reform UK|UKIP|"
    r"Democratic Party|Republican Party|Democrats|Republicans",
}
_MEMBER = {
    "de": r"(?i:mitglied|parteimitglied|mitgliedschaft|eingetreten|parteibuch|gehört\s+der)",
    "nl": r"(?i:lid\s+van|partijlid|lidmaatschap|aangesloten\s+bij|lid\s+geworden)",
    "fr": r"(?i:membre|adhérente?|militante?|encartée?|adhésion|carte\s+du)",
    "en": r"(?i:member|membership|joined|card-carrying|belongs\s+to)",
}
SENSITIVE_CATEGORIES = {
    "health": {
        "de": r"(?i:hiv-positiv|hiv-infiziert|aids-krank|\w*krebs\w*\s+erkrankt|erkrankt\s+an|ist\s+an\s+[\w\s-]{2,40}"
        r"erkrankt|leidet\s+an|diagnose|diagnostiziert|depressionen?\b|psychisch\s+krank|in\s+psychiatrischer|"
        r"chemotherapie|dialyse|schwerbehindert|suchtkrank|alkoholkrank|drogenabhängig|schwanger)",
        "nl": r"(?i:hiv-positief|seropositief|aids\b|lijdt\s+aan|ziek\s+van|diagnose|gediagnosticeerd|depressie|"
        r"psychisch\s+ziek|psychiatrische|chemotherapie|chemo\b|dialyse|verslaafd|verslaving|zwanger|kanker\s+heeft|"
        r"heeft\s+kanker|heeft\s+diabetes|heeft\s+aids)",
        "fr": r"(?i:séropositi(?:f|ve)|vih\b|sida\b|atteinte?\s+d[e'’]|souffre\s+d[e'’]|diagnostiquée?|"
        r"diagnostic\s+de|dépression|maladie\s+mentale|psychiatrique|chimiothérapie|dialyse|toxicomane|alcoolique|"
        r"enceinte|cancer\s+d[ue]|a\s+un\s+cancer)",
        "en": r"(?i:hiv-positive|hiv\s+positive|has\s+aids|suffers\s+from|diagnosed\s+with|diagnosis\s+of|"
        r"depression|mental\s+illness|psychiatric|chemotherapy|dialysis|addicted|addiction|alcoholic|pregnant|"
        r"has\s+cancer|has\s+diabetes)",
    },
    "politics": {
        lang: rf"{_MEMBER[lang]}.{{0,60}}(?<!\w)(?:{_PARTIES[lang]})(?!\w)|(?<!\w)(?:{_PARTIES[lang]})(?!\w)"
        rf"[-\s]?{_MEMBER[lang]}"
        for lang in _PARTIES
    },
}


def _digits(text: str) -> int:
    return sum(ch.isdigit() for ch in text)


def pattern_spans(text: str, lang: str) -> List[Tuple[int, int, str]]:
    """(start, end, label) character spans found by the language's patterns; no model needed.
    Phone candidates need 9 to 15 digits, so dates, times and short service numbers stay."""
    out: List[Tuple[int, int, str]] = []
    for label, regex in (("EMAIL", EMAIL), ("URL", URL)):
        out += [(m.start(), m.end(), label) for m in regex.finditer(text)]
    for regex in PHONE:
        for m in regex.finditer(text):
            if 9 <= _digits(m.group()) <= 15:
                out.append((m.start(), m.end(), "NUMBER"))
    if lang in ADDRESS:
        for m in re.finditer(ADDRESS[lang], text):
            out.append((m.start(), m.end(), "ADDRESS"))
    if lang in NAME_TRIGGERS:
        name = _NAME
        if lang in ORG_PREFIXES:  # 'mevrouw Jansen van Stichting X': the name stops before the organisation
            name = name.replace(f"{{0,3}}{_CAP}", f"{{0,3}}(?!{ORG_PREFIXES[lang]}\\b){_CAP}", 1)
        for m in re.finditer(rf"(?<!\w)(?:{NAME_TRIGGERS[lang]}\s+)+(?P<name>{name})", text):
            out.append((m.start("name"), m.end("name"), "NAME"))
    for m in re.finditer(_INITIALS_NAME, text):
        if lang in NAME_TRIGGERS and re.match(NAME_TRIGGERS[lang] + r"\s", m.group()):
            continue  # 'M. Girard' in French: a title, found above with the full name
        out.append((m.start(), m.end(), "NAME"))
    if lang in ORG_PREFIXES:
        for m in re.finditer(
            rf"\b{ORG_PREFIXES[lang]}\s+(?:{_PARTICLES}\s+)?{_CAP}(?:\s+(?:{_PARTICLES}\s+)?{_CAP})*", text
        ):
            out.append((m.start(), m.end(), "ORGANIZATION"))
    if lang in ORG_SUFFIXES:
        for m in re.finditer(rf"(?:{_CAP}\s+){{1,3}}{ORG_SUFFIXES[lang]}\b", text):
            out.append((m.start(), m.end(), "ORGANIZATION"))
    for m in re.finditer(rf"(?:{_CAP}[\s&]+){{0,3}}{_CAP}\s+{_LEGAL_FORMS}(?!\w)", text):
        out.append((m.start(), m.end(), "ORGANIZATION"))
    out = [(s, e, label) for s, e, label in out if not (label == "NAME" and text[s:e].isupper())]  # acronyms
    return [_trim(text, start, end, label) for start, end, label in out]


_LEADING_LOWER = re.compile(r"(?:[a-zà-ÿ'’]+|Op|In|Aan|Bij|Naar|Voor|Vanaf|Bei|Im|Auf|Nach|Zur|Zum|At|On|To|From)\s+")
_LEADING_DET = re.compile(r"(?i:de|het|der|die|das|den|dem|the|la|le|les|l'|een|ein|eine)\s+")


def _trim(text: str, start: int, end: int, label: str) -> Tuple[int, int, str]:
    """Drop leading lower-case words from an address ('de Eerste Van Swindenstraat 12') and a
    leading article from an organisation ('Die Müller GmbH'): they are not part of the name."""
    regex = _LEADING_LOWER if label == "ADDRESS" else _LEADING_DET if label == "ORGANIZATION" else None
    while regex is not None:
        m = regex.match(text, start, end)
        if not m or m.end() >= end:
            break
        start = m.end()
    return start, end, label


def is_sensitive(text: str, lang: str, extra: Sequence[str] = ()) -> bool:
    """A sentence is sensitive when it names a password, personal ID, bank account (IBAN),
    a special category of personal data (sensitive_category), or matches one of the `extra`
    regular expressions."""
    if lang in SENSITIVE and re.search(SENSITIVE[lang], text):
        return True
    if re.search(IBAN, text) or sensitive_category(text, lang):
        return True
    return any(re.search(p, text) for p in extra)


def sensitive_category(text: str, lang: str):
    """The special category of personal data the sentence states ("health", "politics"), or None."""
    for category, patterns in SENSITIVE_CATEGORIES.items():
        if lang in patterns and re.search(patterns[lang], text):
            return category
    return None


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().casefold())


class Anonymiser:
    """Finds what to anonymise in a Doc and records it as the span group `span_key`."""

    def __init__(
        self,
        nlp: Language,
        name: str = "simalign_anonymiser",
        allow_list: Iterable[str] = (),
        use_ner: bool = True,
        patterns: bool = True,
        sensitive_patterns: Iterable[str] = (),
        span_key: str = SPAN_KEY,
    ):
        self.name = name
        self.lang = nlp.lang or ""  # the patterns are looked up by language code: none for no code
        self.allow_list = [_normalise(a) for a in allow_list]
        self.use_ner, self.patterns, self.span_key = use_ner, patterns, span_key
        self.sensitive_patterns = list(sensitive_patterns)
        for pattern in self.sensitive_patterns:
            try:
                re.compile(pattern)
            except re.error as err:
                raise ValueError(f"invalid sensitive pattern {pattern!r}: {err}") from None
        install_extensions()

    def allowed(self, text: str) -> bool:
        """An organisation on the allow-list (exactly, or followed by more words, as 'GGD Amsterdam')."""
        norm = re.sub(r"^(?:de|het|the|die|der|la|le|l')\s+", "", _normalise(text))
        return any(norm == a or norm.startswith(a + " ") for a in self.allow_list)

    def _candidate_spans(self, doc: Doc) -> List[Span]:
        """Spans by token, with their exact character offsets (a pattern may end inside a
        token, as '1234567' in '1234567.')."""
        found: List[Tuple[int, int, str]] = []
        if self.use_ner:
            found += [(e.start_char, e.end_char, NER_LABELS[e.label_]) for e in doc.ents if e.label_ in NER_LABELS]
        if self.patterns:
            found += pattern_spans(doc.text, self.lang)
        spans = []
        for start, end, label in found:
            if label == "ORGANIZATION" and self.allowed(doc.text[start:end]):
                continue
            span = doc.char_span(start, end, label=label, alignment_mode="expand")
            if span is not None:
                span.id_ = f"{start}:{end}"
                spans.append(span)
        return spans

    def __call__(self, doc: Doc) -> Doc:
        sents = list(doc.sents) if doc.has_annotation("SENT_START") else [doc[:]]
        sensitive = [
            Span(doc, s.start, s.end, label="SENSITIVE")
            for s in sents
            if len(s) and is_sensitive(s.text, self.lang, self.sensitive_patterns)
        ]
        covered = {i for s in sensitive for i in range(s.start, s.end)}
        spans = [s for s in self._candidate_spans(doc) if not covered.intersection(range(s.start, s.end))]
        kept = sorted(filter_spans(spans) + sensitive, key=lambda s: s.start)
        doc.spans[self.span_key] = kept
        doc._.anonymised_chars = [_char_offsets(s) + [s.label_] for s in kept]
        return doc


def _char_offsets(span: Span) -> List[int]:
    if span.id_ and ":" in span.id_:
        start, end = span.id_.split(":")
        return [int(start), int(end)]
    return [span.start_char, span.end_char]


def anonymised_text(doc: Doc, span_key: str = SPAN_KEY) -> str:
    """The Doc's text with each recorded span replaced by its placeholder (a sensitive
    sentence by `xxx xxx xxx`, keeping the whitespace after it)."""
    chars = doc._.anonymised_chars
    if chars is None:
        if span_key not in doc.spans:
            return doc.text
        chars = [_char_offsets(s) + [s.label_] for s in doc.spans[span_key]]
    out, pos = [], 0
    for start, end, label in sorted(chars):
        if start < pos:
            continue
        out.append(doc.text[pos:start])
        if label == "SENSITIVE":
            end = start + len(doc.text[start:end].rstrip())
            out.append(SENSITIVE_TEXT)
        else:
            out.append(PLACEHOLDERS.get(label, f"[{label}]"))
        pos = end
    out.append(doc.text[pos:])
    return "".join(out)


def install_extensions() -> None:
    """`doc._.anonymised_chars`: exact [start, end, label] of each replacement (plain data);
    `doc._.anonymised`: the replaced text."""
    if not Doc.has_extension("anonymised_chars"):
        Doc.set_extension("anonymised_chars", default=None)
    if not Doc.has_extension("anonymised"):
        Doc.set_extension("anonymised", getter=anonymised_text)


@Language.factory("simalign_anonymiser", default_config=DEFAULT_CONFIG["anonymiser"])
def make_anonymiser(
    nlp: Language,
    name: str,
    allow_list: List[str],
    use_ner: bool,
    patterns: bool,
    sensitive_patterns: List[str],
    span_key: str,
) -> Anonymiser:
    return Anonymiser(nlp, name, allow_list, use_ner, patterns, sensitive_patterns, span_key)
