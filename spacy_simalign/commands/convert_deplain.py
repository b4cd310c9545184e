"""`convert-deplain PLAN.csv|FOLDER ... OUTPUT.jsonl`: DEplain plan CSV files to pair JSONL with gold."""

from ..core.output_paths import Paths
from ..core.terminal_text import say
from ..formats.deplain import plan_files, read_plan
from ..formats.pair_jsonl import write_pairs

NAME = "convert-deplain"
HELP = "Convert DEplain simplification-plan CSV files (or folders of them) into pair JSONL with gold beads."


def add_arguments(parser):
    parser.add_argument("inputs", nargs="+", help="plan_doc_*.csv files or folders holding them")
    parser.add_argument("output", help="pair JSONL to write")
    parser.add_argument("--lang", default="de")


def paths(args) -> Paths:
    return Paths(inputs=list(args.inputs) + plan_files(args.inputs), outputs=[args.output])


def run(args) -> int:
    files = plan_files(args.inputs)
    write_pairs(args.output, (read_plan(path, lang=args.lang) for path in files))
    say(f"{len(files)} documents written to {args.output}")
    return 0
