"""`anonymise INPUT OUTPUT --lang LANG`: replace names, organisations, addresses and phone
numbers by placeholders (and sensitive sentences by `xxx xxx xxx`) in sentence-pair rows
(CSV 'Document ID,Complex,Simple' or rows JSONL) or in a plain text file (one text a line)."""

from ..core.output_paths import Paths
from ..core.structures import SUPPORTED_LANGS
from ..corpus.export import delimited_text, read_rows
from ..formats.jsonl import atomic_output, dump_line, iter_lines

NAME = "anonymise"
HELP = "Anonymise a corpus before publishing it: [NAME], [ORGANIZATION], [ADDRESS], [NUMBER], xxx xxx xxx."


def add_arguments(parser):
    parser.add_argument("input", help="rows CSV/JSONL, or a .txt file with one text a line")
    parser.add_argument("output", help="file to write, same kind as the input")
    parser.add_argument("--lang", required=True, choices=SUPPORTED_LANGS)
    parser.add_argument(
        "--allow",
        action="append",
        default=None,
        help="organisation to keep (repeatable); replaces the default allow-list",
    )
    parser.add_argument("--model", default=None, help="installed spaCy pipeline whose NER is used in addition")
    parser.add_argument("--no-ner", action="store_true", help="patterns only, even if a trained pipeline is installed")
    parser.add_argument(
        "--sensitive-pattern",
        action="append",
        default=[],
        help="regular expression: a sentence matching it becomes 'xxx xxx xxx' (repeatable)",
    )


def paths(args) -> Paths:
    return Paths(inputs=[args.input], outputs=[args.output])


def run(args) -> int:
    from ..corpus.anonymise import anonymise_rows, anonymise_texts, anonymiser_pipeline

    config = {"sensitive_patterns": args.sensitive_pattern}
    if args.allow is not None:
        config["allow_list"] = args.allow
    nlp = anonymiser_pipeline(args.lang, args.model, not args.no_ner, config)
    if args.input.endswith(".txt"):
        texts = [line.rstrip("\n") for _, line in iter_lines(args.input)]
        with atomic_output(args.output) as handle:
            for text in anonymise_texts(nlp, texts):
                handle.write(text + "\n")
        print(f"anonymised {len(texts)} lines")
        return 0
    rows = read_rows(args.input)
    out = anonymise_rows(rows, args.lang, nlp)
    changed = sum(a.complex != b.complex or a.simple != b.simple for a, b in zip(rows, out))
    with atomic_output(args.output) as handle:
        if args.output.endswith((".csv", ".CSV")):
            handle.write(delimited_text(out))
        else:
            for row in out:
                handle.write(dump_line(row.to_json()))
    print(f"anonymised {len(rows)} rows, {changed} changed")
    return 0
