"""`amsterdam PAIRS.jsonl OUT_DIR`: build a sentence-pair corpus the way the Amsterdam
municipal corpus was built (candidates by paragraph-then-sentence best match, or any
aligner's output, then the four post-processing rules), print the counts, export it."""

import sys

from ..core.errors import InputError
from ..core.output_paths import Paths
from ..core.terminal_text import say
from ..corpus.amsterdam import RULE_NAMES, RULES, build_corpus, format_counts
from ..corpus.amsterdam_candidates import CandidateSettings
from ..corpus.export import (
    FORMATS,
    CardInfo,
    export_corpus,
    export_files,
    record_language_pairs,
    rows_from_alignment_file,
)
from ..formats.pair_jsonl import lang_warning, overrides_lang, read_pairs

NAME = "amsterdam"
HELP = "Build a clean sentence-pair corpus from pair JSONL with the Amsterdam post-processing rules."


def add_arguments(parser):
    parser.add_argument("input", help="pair JSONL (FORMATS.md): original and final versions of each document")
    parser.add_argument("output", help="folder to write pairs.jsonl / pairs.csv / ... and README.md into")
    parser.add_argument(
        "--alignments", default=None, help="alignment JSONL from `align` to take the candidates from (any aligner)"
    )
    parser.add_argument(
        "--method",
        default=None,
        help="sentence method of this plugin for candidates (tfidf, massalign, cats-c3g, crf); "
        "default: TF-IDF best match in aligned paragraphs, both directions",
    )
    parser.add_argument(
        "--similarity", default="tfidf", help="backend of the default best match (tfidf, c3g, use, ...)"
    )
    parser.add_argument("--paragraph-threshold", type=float, default=CandidateSettings.paragraph_threshold)
    parser.add_argument("--sentence-threshold", type=float, default=CandidateSettings.sentence_threshold)
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=RULE_NAMES,
        help="switch a rule off (repeatable): " + "; ".join(f"{r.name}: {r.description}" for r in RULES),
    )
    parser.add_argument(
        "--trivial-mode",
        default="combined",
        choices=("combined", "either", "case", "punctuation"),
        help="what counts as a trivial edit (default: case and punctuation together)",
    )
    parser.add_argument("--formats", default="jsonl,csv", help=f"comma-separated, of {', '.join(FORMATS)}")
    parser.add_argument("--license", default="unknown", help="licence field of the data card")
    parser.add_argument("--name", default="amsterdam-style-corpus", help="corpus name in the data card")
    parser.add_argument("--anonymise", action="store_true", help="run the simalign_anonymiser on both sides first")
    parser.add_argument("--lang", default=None, help="language of pairs that have no 'lang' field")
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the export already in the output folder (the files its data card lists; others are kept)",
    )


def paths(args) -> Paths:
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    return Paths(
        inputs=[args.input, args.alignments], outputs=export_files(args.output, formats), folders=[args.output]
    )


def run(args) -> int:
    from catalogue import RegistryError

    from ..aligners.crf.encoders import similarity_from_spec

    records = list(read_pairs(args.input, default_lang=args.lang))
    if args.lang:
        differ = [r for r in records if overrides_lang(r, args.lang)]
        warning = lang_warning(differ[0] if differ else None, len(differ), args.lang, args.input)
        if warning:
            print(warning, file=sys.stderr)
    # an alignment file is checked against its pairs (indices in range, the aligner's own
    # sentences when it wrote them) by the same reader that `export` uses
    candidates = rows_from_alignment_file(args.input, args.alignments, split_simple=True) if args.alignments else None
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    settings = CandidateSettings(args.paragraph_threshold, args.sentence_threshold)
    try:
        similarity = similarity_from_spec(args.similarity)
    except RegistryError as err:  # only a name that is not registered: a missing extra keeps its own message
        raise InputError(f"unknown similarity '{args.similarity}': {err}") from None
    except TypeError as err:  # a registered backend that takes settings: a config gives them, not a name
        raise InputError(f"similarity '{args.similarity}' cannot be built from its name alone ({err})") from None
    rows, report = build_corpus(
        records, similarity, settings, args.skip, args.trivial_mode, None, args.method, candidates
    )
    if args.anonymise:
        from ..corpus.anonymise import anonymise_rows

        rows = anonymise_rows(rows, records[0].lang if records else "nl")
    how = (
        "candidates from "
        + (
            f"the alignments in {args.alignments}"
            if args.alignments
            else f"the plugin's '{args.method}' aligner"
            if args.method
            else f"{args.similarity} best match inside aligned paragraphs (paragraph threshold "
            f"{args.paragraph_threshold}, sentence threshold {args.sentence_threshold})"
        )
        + "; Amsterdam post-processing: "
        + ", ".join(r.name for r in RULES if r.name not in args.skip)
    )
    table = format_counts(report.counts)
    info = CardInfo(
        args.name,
        args.license,
        sorted({r.lang for r in records}) or ["nl"],
        how,
        args.input,
        tables={"Rows before and after each rule": table},
    )
    inputs = [path for path in (args.input, args.alignments) if path]
    written = export_corpus(
        rows, args.output, formats, info, record_language_pairs(records), overwrite=args.overwrite, inputs=inputs
    )
    print(
        f"documents {report.documents}, aligned paragraph pairs {report.paragraph_pairs}, "
        f"candidate rows {report.candidates}"
    )
    print(table)
    say("wrote " + ", ".join(written))
    return 0
