"""`convert-deplain PLAN.csv|FOLDER ... OUTPUT.jsonl`: DEplain plan CSV files to pair JSONL with gold."""

from ..core.output_paths import Paths
from ..core.terminal_text import say
from ..formats.deplain import DocumentMismatch, plan_corpus, plan_files, read_documents, read_plan
from ..formats.pair_jsonl import write_pairs

NAME = "convert-deplain"
HELP = "Convert DEplain simplification-plan CSV files (or folders of them) into pair JSONL with gold beads."


def add_arguments(parser):
    parser.add_argument("inputs", nargs="+", help="plan_doc_*.csv files or folders holding them")
    parser.add_argument("output", help="pair JSONL to write")
    parser.add_argument("--lang", default="de")
    parser.add_argument(
        "--documents",
        default=None,
        help="DEplain's document-level CSV of the same part (B__Document-level_Corpus/.../test.csv): n:m rows are "
        "cut into the document's own sentences, as DEplain's published pairs were (documents it does not fit are "
        "left out, named on stderr); without it they are split at likely sentence ends",
    )
    parser.add_argument("--corpora", default="", help="comma-separated corpus names to keep (the plans' `corpus`)")


def paths(args) -> Paths:
    extra = [args.documents] if args.documents else []
    return Paths(inputs=list(args.inputs) + plan_files(args.inputs) + extra, outputs=[args.output])


def convert(files, lang: str, documents=None, corpora=()):
    """(the pair dicts of the plans of the kept corpora, in file order, the messages of plans left out)."""
    pairs, skipped = [], []
    for path in files:
        if corpora and plan_corpus(path) not in corpora:
            continue
        try:
            pairs.append(read_plan(path, lang=lang, documents=documents))
        except DocumentMismatch as err:
            skipped.append(f"left out: {err}")
    return pairs, skipped


def run(args) -> int:
    files = plan_files(args.inputs)
    documents = read_documents(args.documents) if args.documents else None
    corpora = {c for c in args.corpora.split(",") if c}
    pairs, skipped = convert(files, args.lang, documents, corpora)
    for message in skipped:
        say(message, err=True)
    write_pairs(args.output, pairs)
    say(f"{len(pairs)} documents written to {args.output}" + (f", {len(skipped)} left out" if skipped else ""))
    return 0
