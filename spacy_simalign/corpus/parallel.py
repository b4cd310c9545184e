"""The formats MT and translation-memory tools read: Moses (two line-aligned files, named as OPUS
names them), TMX 1.4b, and the bitext TSV (complex, simple, score, document id; no header). Text is
written verbatim, with no spreadsheet escaping; what a format cannot hold is mapped, and only that:
in Moses and bitext a run of tabs and line breaks (LINE_BREAKS) is one space, since a line is a
record; in TMX a character XML 1.0 cannot hold (NOT_XML) is U+FFFD."""

import os
import re
import sys
from dataclasses import dataclass
from typing import Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple
from xml.sax.saxutils import escape, quoteattr

from ..formats.jsonl import atomic_output
from .sentence_pairs import SentencePair

# tab, the line ends of str.splitlines (\n \r \v \f, the file/group/record separators, NEL) and U+2028/U+2029
LINE_BREAKS = re.compile("[\t\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]+")
# everything outside XML 1.0's Char production (control characters but tab, LF and CR; surrogates; U+FFFE/U+FFFF)
NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
TOOL = "spacy-simalign"


def tool_version() -> str:
    """The package's version (its __init__, always loaded before this module, is of a higher layer)."""
    return str(getattr(sys.modules["spacy_simalign"], "__version__", "unknown"))


@dataclass(frozen=True)
class LanguagePair:
    """The languages of a document's two sides; equal for a simplification."""

    complex: str
    simple: str

    @property
    def translation(self) -> bool:
        return self.complex != self.simple


def one_line(text: str) -> str:
    """`text` as one line of a Moses or bitext file (see the module docstring)."""
    return LINE_BREAKS.sub(" ", text)


def xml_text(text: str) -> str:
    """`text` as XML character data: U+FFFD for what XML cannot hold, &, <, > escaped, and a
    carriage return as &#13; (a parser would read a raw one as a line feed)."""
    return escape(NOT_XML.sub("\ufffd", text), {"\r": "&#13;"})


def xml_attribute(text: str) -> str:
    return quoteattr(NOT_XML.sub("\ufffd", text), {"\r": "&#13;", "\n": "&#10;", "\t": "&#9;"})


def score_text(score: Optional[float]) -> str:
    """A score as the JSONL rows write it (4 decimals), or "" when the row has none."""
    return "" if score is None else repr(round(float(score), 4))


# what stands for the languages of a corpus that names none (no document): its Moses files are
# those of a simplification, `pairs.complex` and `pairs.simple`, and empty
NO_LANGUAGES = LanguagePair("", "")


def moses_names(language_pairs: Iterable[LanguagePair]) -> Dict[LanguagePair, Tuple[str, str]]:
    """The two file names per language pair, as OPUS names them: `pairs.de-fr.de` and
    `pairs.de-fr.fr` for a translation; `pairs.complex` and `pairs.simple` for a simplification,
    with its language (`pairs.de.complex`) when the corpus holds more than one language pair.
    Without any language pair, NO_LANGUAGES's two files: a requested format is always written."""
    distinct = list(dict.fromkeys(language_pairs)) or [NO_LANGUAGES]
    names: Dict[LanguagePair, Tuple[str, str]] = {}
    for pair in distinct:
        if pair.translation:
            stem = f"pairs.{pair.complex}-{pair.simple}"
            names[pair] = (f"{stem}.{pair.complex}", f"{stem}.{pair.simple}")
        else:
            stem = "pairs" if len(distinct) == 1 else f"pairs.{pair.complex}"
            names[pair] = (f"{stem}.complex", f"{stem}.simple")
    return names


def write_moses(
    rows: Sequence[SentencePair],
    languages: Mapping[str, LanguagePair],
    out_dir: str,
    language_pairs: Iterable[LanguagePair] = (),
) -> List[str]:
    """Two line-aligned files per language pair (moses_names), rows in their order; the paths
    written. `language_pairs`: the corpus's, whose files are written even when no row is left
    of them (by --min-score); the rows' own are added."""
    names = moses_names([*language_pairs, *(languages[row.doc_id] for row in rows)])
    written = []
    for pair, (complex_name, simple_name) in names.items():
        chosen = [row for row in rows if languages[row.doc_id] == pair]
        for name, side in ((complex_name, "complex"), (simple_name, "simple")):
            path = os.path.join(out_dir, name)
            with atomic_output(path) as handle:
                for row in chosen:
                    handle.write(one_line(getattr(row, side)) + "\n")
            written.append(path)
    return written


def tmx_lines(rows: Sequence[SentencePair], languages: Mapping[str, LanguagePair]) -> Iterator[str]:
    """The lines of a TMX 1.4b document: one <tu> per row, a <tuv> per side, complex first."""
    complex_langs = {languages[row.doc_id].complex for row in rows}
    srclang = complex_langs.pop() if len(complex_langs) == 1 else "*all*"
    header = {
        "creationtool": TOOL,
        "creationtoolversion": tool_version(),
        "datatype": "plaintext",
        "segtype": "sentence",
        "adminlang": "en",
        "srclang": srclang,
        "o-tmf": TOOL,
    }
    yield '<?xml version="1.0" encoding="UTF-8"?>\n'
    yield '<tmx version="1.4">\n'
    yield "  <header " + " ".join(f"{key}={xml_attribute(value)}" for key, value in header.items()) + "/>\n"
    yield "  <body>\n"
    for number, row in enumerate(rows, start=1):
        pair = languages[row.doc_id]
        yield f'    <tu tuid="{number}">\n'
        yield f'      <prop type="x-document-id">{xml_text(row.doc_id)}</prop>\n'
        if row.score is not None:
            yield f'      <prop type="x-score">{score_text(row.score)}</prop>\n'
        for side, lang, text in (("complex", pair.complex, row.complex), ("simple", pair.simple, row.simple)):
            prop = "" if pair.translation else f'<prop type="x-side">{side}</prop>'
            yield f"      <tuv xml:lang={xml_attribute(lang)}>{prop}<seg>{xml_text(text)}</seg></tuv>\n"
        yield "    </tu>\n"
    yield "  </body>\n"
    yield "</tmx>\n"


def write_tmx(rows: Sequence[SentencePair], languages: Mapping[str, LanguagePair], path: str) -> None:
    with atomic_output(path) as handle:
        handle.writelines(tmx_lines(rows, languages))


def write_bitext(rows: Sequence[SentencePair], path: str) -> None:
    """Tab-separated complex, simple, score, document id; no header, no quoting."""
    with atomic_output(path) as handle:
        for row in rows:
            cells = (row.complex, row.simple, score_text(row.score), row.doc_id)
            handle.write("\t".join(one_line(cell) for cell in cells) + "\n")
