"""Per-language word lists for the rule-based sentence splitter.

An abbreviation is written with its periods and without inner spaces ("z.B.",
"p.ex."); the splitter joins spaced forms ("z. B.") before looking them up.
Entries in lower case also match with a capital first letter ("Ca." at the start
of a sentence). Three kinds matter to the splitter:

- NON_FINAL: abbreviations that practically never end a sentence (titles,
  "z.B.", "ca.", "Nr.", months before a day or year): never a boundary.
- FINAL: abbreviations that often end a sentence ("etc.", "usw.", "u.a.",
  "e.V."): a boundary when the next word is capitalised, in German only when it
  is one of the SENTENCE_STARTERS (German capitalises every noun). Unknown
  dotted abbreviations ("U.S.") need a sentence starter in every language.
- ORDINAL_CONTEXT / ORDINAL_HEADS (German): words before / after which "3." is an
  ordinal ("am 3.", "der 2. Weltkrieg"), and MONTHS, before which "3." is a day.
"""

from typing import Dict, FrozenSet, Iterable, Set


def _forms(words: Iterable[str]) -> FrozenSet[str]:
    """Each entry, plus its capitalised form for entries written in lower case."""
    out: Set[str] = set()
    for word in words:
        word = "".join(word.split())
        out.add(word)
        if word[:1].islower():
            out.add(word[:1].upper() + word[1:])
    return frozenset(out)


_MONTH_ABBREVIATIONS = {
    "de": "jan. feb. febr. mär. märz. apr. jun. jul. aug. sep. sept. okt. nov. dez.",
    "nl": "jan. feb. febr. mrt. apr. jun. jul. aug. sep. sept. okt. nov. dec.",
    "fr": "janv. févr. fév. avr. juil. sept. oct. nov. déc.",
    "en": "",
}

MONTHS: Dict[str, FrozenSet[str]] = {
    "de": frozenset(
        "januar jänner februar märz april mai juni juli august september oktober november dezember".split()
    ),
    "nl": frozenset("januari februari maart april mei juni juli augustus september oktober november december".split()),
    "fr": frozenset("janvier février mars avril mai juin juillet août septembre octobre novembre décembre".split()),
    "en": frozenset("january february march april may june july august september october november december".split()),
}

_NON_FINAL = {
    "de": """
        Dr. Prof. Hr. Hrn. Fr. Frl. Dipl. Ing. Dipl.-Ing. Mag. St. Sr. Jr. Pfr. Abg.
        z.B. z.T. z.Zt. d.h. v.a. u.U. o.g. i.d.R. i.A. i.V. s.o. s.u. u.z. a.D. al.
        ca. bzw. vgl. sog. ggf. evtl. inkl. exkl. zzgl. abzgl. insb. bspw. allg. ehem. gem.
        Nr. Abs. Art. Bd. Bde. Kap. Tel. Hbf. max. min.
        geb. gest. verh. led. Jg. Jhd. Anm. Abb. Tab. Ziff. lt. zw. bzgl. hl. Dt. dt.
        Hg. Hrsg. Aufl. ff. f. S. Sp. Verf. Vors. Stellv. stellv. Gebr. Fa. Kfz. Pkw. Lkw.
    """,
    "nl": """
        dhr. mevr. mw. mr. dr. drs. ir. ing. prof. ds. St. st. mgr. jhr. jkvr.
        al. bijv. bv. b.v. d.w.z. o.a. m.b.t. t.a.v. t.o.v. i.p.v. i.v.m. z.g.a.n. n.a.v. m.u.v. a.u.b.
        ca. resp. vs. nr. tel. blz. p. art. lid. afb. fig. min. max. incl. excl. excl. zgn. zg. ong.
        vnl. mln. mld. mrd. o.m. c.q.
    """,
    "fr": """
        M. MM. Mme. Mmes. Mlle. Mlles. Me. Mgr. Dr. Pr. St. Ste. Sr.
        al. p.ex. c.-à-d. c.à.d. cf. env. n° no. nos. p. pp. vol. chap. art. al. fig. tél. av. bd. apr. av.J.-C.
        ex. éd. coll. dir. réf. min. max. hab. mln. mrd. sq. suiv.
    """,
    "en": """
        Mr. Mrs. Ms. Dr. Prof. Sr. Jr. St. Rev. Gen. Col. Capt. Lt. Sgt. Gov. Sen. Rep. Hon. Mt. Ft.
        al. e.g. i.e. cf. vs. viz. approx. ca. No. Nos. nos. no. vol. pp. p. fig. ch. art. sec. dept. est.
        Ave. Blvd. Rd.
    """,
}

_FINAL = {
    "de": "etc. usw. v.Chr. n.Chr. u.a. u.ä. u.Ä. u.v.m. u.s.w. e.V. Jh. Jhdt. d.J. v.J. Inc. Ltd. Corp. Co. o.ä. o.Ä. "
    "Mio. Mrd. Tsd. Std. Min. Sek. Str. Fax.",
    "nl": "enz. etc. e.d. e.a. o.a. jl. j.l. a.s. Inc. Ltd. N.V. B.V.",
    "fr": "etc. Inc. Ltd. S.A. av.J.-C. apr.J.-C. J.-C.",
    "en": "etc. a.m. p.m. Inc. Ltd. Co. Corp. Bros. Jan. Feb. Mar. Apr. Jun. Jul. Aug. Sep. Sept. Oct. Nov. Dec.",
}

# Words that often start sentences: after a German abbreviation that may end a
# sentence ("u. a.", "usw.") or an unknown dotted one ("U.S."), a capitalised word is
# a boundary only if it is one of these; otherwise it is more likely a (German)
# noun or a name ("the U.S. Capitol").
SENTENCE_STARTERS: Dict[str, FrozenSet[str]] = {
    "de": frozenset(
        """
        Der Die Das Den Dem Des Ein Eine Einen Einem Einer Eines Kein Keine
        Ich Du Er Sie Es Wir Ihr Man Mein Meine Sein Seine Ihre Unser Unsere Dieser Diese Dieses Jeder Jede
        Dies Das Dann Da Dort Hier Heute Jetzt Nun So Auch Aber Doch Denn Und Oder Sondern Trotzdem Deshalb
        Daher Darum Dabei Damit Danach Davor Dafür Dazu Deswegen Außerdem Zudem Allerdings Also Immer Oft
        Viele Manche Einige Alle Mehr Wer Was Wie Wo Wann Warum Weshalb Welche Welcher Welches Wenn Als Weil
        Obwohl Während Nachdem Bevor Seit Ob Im Am Zum Zur Vom Beim Ins In An Auf Aus Bei Mit Nach Von Vor Für
        Um Über Unter Zwischen Gegen Durch Ohne Bis Nicht Nur Noch Schon Erst Bereits Sogar Vielleicht
        Natürlich Zum Insgesamt Zunächst Schließlich Später Früher Inzwischen Mittlerweile Gleichzeitig
    """.split()
    ),
    "nl": frozenset(
        """
        De Het Een Dit Dat Deze Die Er Hier Daar Toen Nu Ook Maar En Of Want Dus Daarom Bovendien Zo
        Ik Je Jij U Hij Zij Ze Wij We Jullie Men Wie Wat Waar Wanneer Waarom Hoe Als Omdat In Op Met Voor
        Na Bij Van Aan Door Om Tijdens Sinds Niet Alle Veel Sommige
    """.split()
    ),
    "fr": frozenset(
        """
        Le La Les L Un Une Des Ce Cette Ces Cet Il Elle Ils Elles On Je Tu Nous Vous Ils C Ceci Cela Ça
        Mais Et Ou Donc Or Car Puis Alors Ensuite Enfin Ainsi Aussi Pourtant Cependant En Au Aux Dans Pour
        Par Sur Avec Sans Depuis Pendant Après Avant Si Quand Comme Qui Que Quoi Où Pourquoi Comment Tous
        Toutes Plusieurs Certains Aujourd
    """.split()
    ),
    "en": frozenset(
        """
        The A An This That These Those There Here It He She They We I You Its His Her Their Our My
        But And Or So Then Yet Still However Also Thus Therefore Moreover Meanwhile Now Today In On At
        For With By From To After Before When While If As Since Because Although Though What Who Where
        Why How Which All Many Some Most No Not Such Each Every One Two
    """.split()
    ),
}

# German words after which "3." is an ordinal, not the end of a sentence.
ORDINAL_CONTEXT: Dict[str, FrozenSet[str]] = {
    "de": frozenset(
        """
        am im zum vom beim der die das den dem des ein eine einen einem einer eines
        sein seine seinen seinem seiner ihr ihre ihren ihrem ihrer unser unsere unseren unserem
        mein meine meinen meinem dein deine jeder jede jeden jedem jedes dieser diese diesen diesem dieses
        ab bis seit vom zur ins zum jährlich erst
    """.split()
    ),
}

# German nouns that follow an ordinal ("im 19. Jahrhundert", "zum 100. Geburtstag").
ORDINAL_HEADS: Dict[str, FrozenSet[str]] = {
    "de": frozenset(
        """
        Jahrhundert Jahrhunderts Jahrhunderten Jahrtausend Jahrtausends Geburtstag Geburtstags Todestag
        Jahrestag Jubiläum Weltkrieg Weltkriegs Weltkrieges Bundesliga Liga Klasse Stock Stockwerk Etage
        Platz Stelle Bezirk Satz Sitzung Ausgabe Jahrgang Legislaturperiode Rang Mal Auflage
        Kapitel Band Sinfonie Symphonie Lebensjahr Semester Schuljahr Tag Woche
        Runde Spieltag Staffel Folge Generation Grades Grad Ordnung Hälfte Quartal Halbjahr Advent
    """.split()
    ),
}

# Verbs that introduce direct speech: a colon after them does not end a sentence.
SPEECH_VERBS: Dict[str, FrozenSet[str]] = {
    "de": frozenset(
        """
        sagt sagte sagten sagst sagen sprach sprachen spricht sprichst fragt fragte fragten fragst
        antwortet antwortete antworteten ruft rief riefen
    """.split()
    ),
}

ROMAN_NUMERAL = r"(?:X{0,3})(?:IX|IV|V?I{0,3})"


def non_final(lang: str) -> FrozenSet[str]:
    """Abbreviations that never end a sentence in `lang` (with month abbreviations)."""
    return _forms(_NON_FINAL.get(lang, "").split() + _MONTH_ABBREVIATIONS.get(lang, "").split())


def month_abbreviations(lang: str) -> FrozenSet[str]:
    """Abbreviated month names of `lang` in lower case ("okt.")."""
    return frozenset(_MONTH_ABBREVIATIONS.get(lang, "").split())


def final(lang: str) -> FrozenSet[str]:
    """Abbreviations that may end a sentence in `lang`."""
    return _forms(_FINAL.get(lang, "").split())


def normalise(abbreviation: str) -> str:
    """An abbreviation as the splitter looks it up: no inner spaces, final period."""
    word = "".join(abbreviation.split())
    return word if word.endswith(".") else word + "."
