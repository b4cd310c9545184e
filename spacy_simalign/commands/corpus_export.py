"""`export OUT_DIR (--pairs P.jsonl --alignments A.jsonl | --rows R.jsonl|R.csv)`: publish an
aligned corpus as JSONL, CSV, TSV, (with the `datasets` extra) a Hugging Face folder, and the
Moses, TMX and bitext files of MT and translation-memory tools, with a data card."""

from typing import Dict, Iterable, Sequence, Set

from ..core.errors import InputError
from ..core.output_paths import Paths, check_paths
from ..core.setting_checks import Options, check_settings
from ..core.terminal_text import say
from ..corpus.export import (
    FORMATS,
    CardInfo,
    above_score,
    export_corpus,
    export_files,
    pair_languages,
    pair_records,
    read_rows,
    record_language_pairs,
    row_language_pairs,
    row_languages,
    rows_from_alignment_file,
)
from ..corpus.parallel import LanguagePair
from ..corpus.sentence_pairs import SentencePair

NAME = "export"
HELP = "Export an aligned corpus to JSONL/CSV/TSV/Hugging Face datasets/Moses/TMX/bitext with a data card."
OPTIONS = Options()  # --min-score: any finite number (the shared check refuses nan and inf)


def add_arguments(parser):
    parser.add_argument("output", help="folder to write into")
    parser.add_argument("--pairs", help="pair JSONL the alignments were made on")
    parser.add_argument("--alignments", help="alignment JSONL written by `align` for --pairs")
    parser.add_argument("--rows", help="sentence-pair rows instead: a CSV 'Document ID,Complex,Simple' or rows JSONL")
    parser.add_argument(
        "--split-simple", action="store_true", help="one row per simple sentence of a bead instead of one row per bead"
    )
    parser.add_argument("--formats", default="jsonl,csv,tsv", help=f"comma-separated, of {', '.join(FORMATS)}")
    parser.add_argument(
        "--min-score",
        type=float,
        default=None,
        metavar="X",
        help="leave out beads scored below X (rows without a score are kept)",
    )
    parser.add_argument("--name", default="simplification-corpus")
    parser.add_argument("--license", default="unknown")
    parser.add_argument(
        "--lang",
        default=None,
        help="language(s) for the card, comma-separated (default: those of the data); with --rows, also the "
        "languages of rows without a 'lang' column (LANG, or LANG,LANG_SIMPLE for a translation)",
    )
    parser.add_argument("--aligned-with", default=None, help="how the pairs were aligned (card text)")
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the export already in the output folder (the files its data card lists; others are kept)",
    )


def paths(args, language_pairs: Iterable[LanguagePair] = ()) -> Paths:
    """The inputs and outputs; the Moses files' names, which depend on the data's languages, once
    `language_pairs` are known."""
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    return Paths(
        inputs=[args.pairs, args.alignments, args.rows],
        outputs=export_files(args.output, formats, language_pairs),
        folders=[args.output],
    )


def corpus_language_pairs(
    languages: Dict[str, LanguagePair], rows: Sequence[SentencePair], given: Sequence[str]
) -> Set[LanguagePair]:
    """The language pairs that name the Moses files: those of the documents with rows before
    --min-score leaves some out (so that the names do not depend on it); without any row, those of
    every document of --pairs, else those of --lang."""
    found = {languages[row.doc_id] for row in rows if row.doc_id in languages} or set(languages.values())
    if not found and len(given) in (1, 2):
        found.add(LanguagePair(given[0], given[-1]))
    return found


def run(args) -> int:
    check_settings(OPTIONS, {"min_score": args.min_score}, flags=True)
    given = [x.strip() for x in args.lang.split(",") if x.strip()] if args.lang else []
    if args.rows:
        rows = read_rows(args.rows)
        source, langs = args.rows, row_languages(rows)
        languages = row_language_pairs(rows, given)
    elif args.pairs and args.alignments:
        records = pair_records(args.pairs)
        rows = rows_from_alignment_file(args.pairs, args.alignments, args.split_simple, records)
        source, langs = f"{args.pairs} aligned in {args.alignments}", pair_languages(records.values())
        languages = record_language_pairs(records.values())
    else:
        raise InputError("give --rows FILE, or --pairs FILE and --alignments FILE")
    if given:
        langs = given
    if not langs:
        raise InputError("the rows do not say their language: give it with --lang (e.g. --lang nl)", args.rows)
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    info = CardInfo(
        args.name,
        args.license,
        langs,
        args.aligned_with or "not stated by the exporter",
        source,
    )
    language_pairs = sorted(corpus_language_pairs(languages, rows, given), key=lambda p: (p.complex, p.simple))
    if args.min_score is not None:
        rows = above_score(rows, args.min_score)
        info.notes.append(f"beads scored below {args.min_score} are left out (rows without a score are kept)")
    check_paths(paths(args, language_pairs))
    inputs = [path for path in (args.pairs, args.alignments, args.rows) if path]
    written = export_corpus(rows, args.output, formats, info, languages, language_pairs, args.overwrite, inputs)
    say(f"{len(rows)} pairs from {len({r.doc_id for r in rows})} documents; wrote " + ", ".join(written))
    return 0
