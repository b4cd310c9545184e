"""Publishing a sentence-pair corpus: JSONL, CSV, TSV, (with the optional `datasets` extra) a
Hugging Face `datasets` folder, and the parallel-corpus formats of MT and translation-memory tools
(Moses, TMX, bitext TSV: corpus.parallel), each with a data card (README.md: counts, licence, how the
pairs were aligned and cleaned, the files). An export writes all its files or none, into a folder
that holds no other export unless it is to be replaced (corpus.export_folder). The text comes from
the pair file; an alignment made from another version of a pair is refused (corpus.aligned_sentences)."""

import csv
import io
import json
import os
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence

from ..core.errors import InputError
from ..core.extras import require
from ..formats.alignments import read_alignments
from ..formats.jsonl import atomic_output, check_unicode, dump_line, read_jsonl
from ..formats.pair_jsonl import PairRecord, read_pairs
from .aligned_sentences import aligned_sentences
from .export_folder import staged_export
from .parallel import LanguagePair, moses_names, write_bitext, write_moses, write_tmx
from .sentence_pairs import CSV_COLUMNS, SentencePair, pairs_from_beads

FORMATS = ("jsonl", "csv", "tsv", "hf", "moses", "tmx", "bitext")
NEEDS_LANGUAGES = ("moses", "tmx")  # formats that name each side's language


@dataclass
class CardInfo:
    """What a data card says beyond the counts."""

    name: str = "simplification-corpus"
    license: str = "unknown"
    language: Sequence[str] = ("de",)
    aligned_with: str = "not stated"
    source: str = ""
    notes: List[str] = field(default_factory=list)
    tables: Dict[str, str] = field(default_factory=dict)


def _extra_columns(rows: Sequence[SentencePair]) -> List[str]:
    cols = []
    if any(r.score is not None for r in rows):
        cols.append("score")
    cols.append("origin")
    for row in rows:
        for key in row.extra:
            if key not in cols:
                cols.append(key)
    return cols


# a cell a spreadsheet would read as a formula (OWASP, CSV injection): = + - @, tab, carriage return
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value):
    """A text cell starting like a formula gets a leading ' (OWASP's advice: the spreadsheet
    shows the text, not a formula's result); numbers and other text are unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def delimited_text(rows: Sequence[SentencePair], delimiter: str = ",") -> str:
    """CSV (or TSV) text with the Amsterdam columns `Document ID,Complex,Simple` first. Both are
    quoted the same way (a cell with the delimiter, a quote or a newline in double quotes, a quote
    doubled), so a CSV reader gives back the texts of JSONL, but for the ' before a cell that
    starts like a formula (spreadsheet_safe)."""
    buffer = io.StringIO()
    extra = _extra_columns(rows)
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(list(CSV_COLUMNS) + extra)
    for row in rows:
        obj = row.to_json()
        values = [row.doc_id, row.complex, row.simple] + ["" if obj.get(c) is None else obj.get(c) for c in extra]
        writer.writerow([spreadsheet_safe(v) for v in values])
    return buffer.getvalue()


def write_jsonl(rows: Iterable[SentencePair], path: str) -> None:
    with atomic_output(path) as handle:
        for row in rows:
            handle.write(dump_line(row.to_json()))


def write_delimited(rows: Sequence[SentencePair], path: str, delimiter: str = ",") -> None:
    with atomic_output(path) as handle:
        handle.write(delimited_text(rows, delimiter))


def datasets_available() -> bool:
    try:
        import datasets  # noqa: F401
    except ImportError:
        return False
    return True


def write_hf_dataset(rows: Sequence[SentencePair], folder: str) -> None:
    """A `datasets.Dataset.save_to_disk` folder (needs the `datasets` extra); written to a
    temporary folder first and moved into place, so a failure leaves nothing behind."""
    datasets = require("datasets", "datasets", "the 'hf' export format")

    datasets.disable_progress_bars()
    records = [row.to_json() for row in rows]
    columns: Dict[str, List[object]] = {"doc_id": [], "complex": [], "simple": [], "score": [], "origin": []}
    for rec in records:
        for key in columns:
            columns[key].append(rec.get(key))
    features = datasets.Features(
        {
            "doc_id": datasets.Value("string"),
            "complex": datasets.Value("string"),
            "simple": datasets.Value("string"),
            "score": datasets.Value("float32"),
            "origin": datasets.Value("string"),
        }
    )
    dataset = datasets.Dataset.from_dict(columns, features=features)
    parent = os.path.dirname(os.path.abspath(folder)) or "."
    tmp = tempfile.mkdtemp(prefix=".tmp-hf-", dir=parent)
    try:
        dataset.save_to_disk(tmp)
        if os.path.isdir(folder):
            shutil.rmtree(folder)
        os.replace(tmp, folder)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def corpus_counts(rows: Sequence[SentencePair]) -> Dict[str, Any]:
    return {
        "pairs": len(rows),
        "documents": len({r.doc_id for r in rows}),
        "by_origin": dict(Counter(r.origin for r in rows)),
    }


def data_card(rows: Sequence[SentencePair], info: CardInfo, files: Sequence[str]) -> str:
    """README.md text with a YAML header (licence, languages, size) and the counts."""
    counts = corpus_counts(rows)
    langs = "\n".join(f"- {lang}" for lang in info.language)
    n = len(rows)
    size = "n<1K" if n < 1000 else "1K<n<10K" if n < 10_000 else "10K<n<100K" if n < 100_000 else "n>100K"
    out = [
        "---",
        f"license: {info.license}",
        f"language:\n{langs}",
        "task_categories:\n- text2text-generation",
        f"size_categories:\n- {size}",
        f"pretty_name: {info.name}",
        "---",
        "",
        f"# {info.name}",
        "",
        "Complex/simple sentence pairs exported by spacy-simalign.",
        "",
        "## Counts",
        "",
        f"- sentence pairs: {counts['pairs']}",
        f"- documents: {counts['documents']}",
    ]
    out += [f"- rows made by '{k}': {v}" for k, v in sorted(counts["by_origin"].items())]
    out += ["", "## How it was aligned", "", info.aligned_with, ""]
    if info.source:
        out += ["## Source", "", info.source, ""]
    for title, table in info.tables.items():
        out += [f"## {title}", "", "```", table, "```", ""]
    if info.notes:
        out += ["## Notes", ""] + [f"- {n}" for n in info.notes] + [""]
    out += (
        [
            "## Licence",
            "",
            f"{info.license} (the licence of the source documents applies to the pairs).",
            "",
            "## Files",
            "",
        ]
        + [f"- `{f}`" for f in files]
        + [""]
    )
    return "\n".join(out)


FILE_NAMES = {
    "jsonl": "pairs.jsonl",
    "csv": "pairs.csv",
    "tsv": "pairs.tsv",
    "tmx": "pairs.tmx",
    "bitext": "pairs.bitext.tsv",
}


def export_files(out_dir: str, formats: Iterable[str], language_pairs: Iterable[LanguagePair] = ()) -> List[str]:
    """The files export_corpus writes under `out_dir` for these formats (the `hf` folder aside;
    Moses files for the `language_pairs` given), for the commands to check before any work."""
    names: List[str] = []
    for fmt in dict.fromkeys(formats):
        if fmt in FILE_NAMES:
            names.append(FILE_NAMES[fmt])
        elif fmt == "moses":
            names.extend(name for pair in moses_names(language_pairs).values() for name in pair)
    return [os.path.join(out_dir, name) for name in names + ["README.md"]]


def above_score(rows: Sequence[SentencePair], min_score: Optional[float]) -> List[SentencePair]:
    """The rows scored `min_score` or more, and those without a score."""
    return [row for row in rows if min_score is None or row.score is None or row.score >= min_score]


def check_languages(rows: Sequence[SentencePair], languages: Mapping[str, LanguagePair]) -> None:
    """Every row's document has its languages (the Moses and TMX writers need them)."""
    missing = next((row.doc_id for row in rows if row.doc_id not in languages), None)
    if missing is not None:
        raise InputError(
            f"the moses and tmx formats need each side's language, and document '{missing}' has none: "
            "give --lang LANG (LANG,LANG_SIMPLE for a translation) or a 'lang' column"
        )


def write_format(
    fmt: str,
    rows: Sequence[SentencePair],
    out_dir: str,
    languages: Optional[Mapping[str, LanguagePair]],
    language_pairs: Iterable[LanguagePair] = (),
) -> List[str]:
    """Write the rows in one format under `out_dir`; the paths written. `language_pairs`: the
    corpus's, each with its Moses files whether rows of it are left or not."""
    if fmt in ("jsonl", "csv", "tsv"):
        path = os.path.join(out_dir, FILE_NAMES[fmt])
        if fmt == "jsonl":
            write_jsonl(rows, path)
        else:
            write_delimited(rows, path, "," if fmt == "csv" else "\t")
        return [path]
    if fmt == "bitext":
        path = os.path.join(out_dir, FILE_NAMES[fmt])
        write_bitext(rows, path)
        return [path]
    if fmt in NEEDS_LANGUAGES:
        known = languages or {}
        check_languages(rows, known)
        if fmt == "moses":
            return write_moses(rows, known, out_dir, language_pairs)
        path = os.path.join(out_dir, FILE_NAMES[fmt])
        write_tmx(rows, known, path)
        return [path]
    path = os.path.join(out_dir, "hf_dataset")
    write_hf_dataset(rows, path)
    return [path]


def export_corpus(
    rows: Sequence[SentencePair],
    out_dir: str,
    formats: Iterable[str] = ("jsonl", "csv"),
    info: Optional[CardInfo] = None,
    languages: Optional[Mapping[str, LanguagePair]] = None,
    language_pairs: Optional[Iterable[LanguagePair]] = None,
    overwrite: bool = True,
    inputs: Sequence[str] = (),
) -> List[str]:
    """Write the rows in each format under `out_dir` plus README.md, all of them or none; returns
    the paths written. `languages`: each document's language pair, by id (needed by `moses` and
    `tmx`); `language_pairs`: the corpus's (default: those of `languages`), which name the Moses
    files. A folder holding another export is refused unless `overwrite`; the earlier export's
    files are then replaced or removed, but for the `inputs` this export read (export_folder)."""
    formats = list(dict.fromkeys(formats))
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise InputError(f"unknown export format(s) {', '.join(unknown)} (formats: {', '.join(FORMATS)})")
    if "hf" in formats:
        require("datasets", "datasets", "the 'hf' export format")
    if any(fmt in NEEDS_LANGUAGES for fmt in formats):
        check_languages(rows, languages or {})
    info = info or CardInfo()
    corpus_pairs = list(dict.fromkeys(language_pairs if language_pairs is not None else (languages or {}).values()))
    names = [os.path.basename(p) for p in export_files(out_dir, formats, corpus_pairs)]
    names += ["hf_dataset"] if "hf" in formats else []
    with staged_export(out_dir, names, overwrite, inputs) as stage:
        written: List[str] = []
        for fmt in formats:
            written.extend(write_format(fmt, rows, stage, languages, corpus_pairs))
        card = os.path.join(stage, "README.md")
        with atomic_output(card) as handle:
            handle.write(data_card(rows, info, [os.path.basename(p) for p in written]))
        written.append(card)
    return [os.path.join(out_dir, os.path.basename(p)) for p in written]


def pair_records(pairs_path: str) -> Dict[str, PairRecord]:
    """A pair file's records by id, read once for both the rows and the languages; every string
    must be writable as UTF-8 (a JSON escape can hold a lone surrogate)."""
    records: Dict[str, PairRecord] = {}
    for record in read_pairs(pairs_path):
        check_unicode(record.raw, pairs_path, record.line)
        records[record.id] = record
    return records


def pair_languages(records: Iterable[PairRecord]) -> List[str]:
    """The languages of the pair records' sides, in order of first use (the data card's)."""
    langs: Dict[str, None] = {}
    for record in records:
        langs.update(dict.fromkeys((record.lang, record.lang_simple)))
    return list(langs)


def row_languages(rows: Sequence[SentencePair]) -> List[str]:
    """The languages rows state (a `lang` column or key), in order of first use."""
    return list(dict.fromkeys(str(r.extra["lang"]) for r in rows if r.extra.get("lang")))


def record_language_pairs(records: Iterable[PairRecord]) -> Dict[str, LanguagePair]:
    """Each pair's languages, by id (for the formats that name them)."""
    return {record.id: LanguagePair(record.lang, record.lang_simple) for record in records}


def row_language_pairs(rows: Sequence[SentencePair], given: Sequence[str]) -> Dict[str, LanguagePair]:
    """Each document's languages, by id: its rows' `lang` (and `lang_simple`) columns, else the
    languages `given` (one for a simplification, two for a translation, complex first)."""
    fallback = None
    if len(given) in (1, 2):
        fallback = LanguagePair(given[0], given[-1])
    out: Dict[str, LanguagePair] = {}
    for row in rows:
        lang = row.extra.get("lang")
        if lang:
            out.setdefault(row.doc_id, LanguagePair(str(lang), str(row.extra.get("lang_simple") or lang)))
        elif fallback is not None:
            out.setdefault(row.doc_id, fallback)
    return out


def rows_from_alignment_file(
    pairs_path: str, alignments_path: str, split_simple: bool = False, records: Optional[Dict[str, PairRecord]] = None
) -> List[SentencePair]:
    """Sentence-pair rows of any aligned corpus: pair JSONL (the documents, the source of the
    text) plus the alignment JSONL an aligner wrote for it (FORMATS.md), each line checked to be
    made from its pair's text (aligned_sentences). One row per bead unless `split_simple`;
    deletions and additions give no row. `records`: the pair file already read (pair_records)."""
    records = pair_records(pairs_path) if records is None else records
    rows: List[SentencePair] = []
    for line in read_alignments(alignments_path):
        check_unicode(line.raw, alignments_path, line.line)
        if line.id not in records:
            raise InputError(f"alignment for unknown pair id {json.dumps(line.id)}", alignments_path, line.line)
        complex_sents, simple_sents = aligned_sentences(records[line.id], line, pairs_path)
        line.check_sizes((len(complex_sents), len(simple_sents)))
        rows.extend(pairs_from_beads(line.id, complex_sents, simple_sents, line.beads, split_simple))
    return rows


def read_rows(path: str) -> List[SentencePair]:
    """Sentence-pair rows from a CSV (`Document ID,Complex,Simple`) or a rows JSONL file."""
    from .sentence_pairs import read_amsterdam_csv

    if path.endswith((".csv", ".CSV")):
        return read_amsterdam_csv(path)
    rows = []
    for number, obj in read_jsonl(path):
        check_unicode(obj, path, number)
        rows.append(SentencePair.from_json(obj, path, number))
    return rows
