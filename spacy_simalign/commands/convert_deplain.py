"""`convert-deplain PLAN.csv|FOLDER ... OUTPUT.jsonl`: DEplain plan CSV files to pair JSONL with gold."""
import glob
import os

from ..deplain import read_plan
from ..errors import InputError
from ..formats.jsonl import atomic_output, dump_line

NAME = "convert-deplain"
HELP = "Convert DEplain simplification-plan CSV files (or folders of them) into pair JSONL with gold beads."


def add_arguments(parser):
    parser.add_argument("inputs", nargs="+", help="plan_doc_*.csv files or folders holding them")
    parser.add_argument("output", help="pair JSONL to write")
    parser.add_argument("--lang", default="de")


def run(args) -> int:
    files = []
    for item in args.inputs:
        if os.path.isdir(item):
            files.extend(sorted(glob.glob(os.path.join(item, "*.csv")),
                                key=lambda p: (len(os.path.basename(p)), os.path.basename(p))))
        elif os.path.exists(item):
            files.append(item)
        else:
            raise InputError("no such file or folder", item)
    if not files:
        raise InputError("no CSV files found", " ".join(args.inputs))
    with atomic_output(args.output) as handle:
        for path in files:
            handle.write(dump_line(read_plan(path, lang=args.lang)))
    print(f"{len(files)} documents written to {args.output}")
    return 0
