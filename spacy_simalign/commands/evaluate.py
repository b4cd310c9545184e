"""`evaluate GOLD.jsonl PREDICTED.jsonl [--output scores.json]`: link, bead-text and
paragraph-pair P/R/F1 of an alignment JSONL file against the gold beads of a pair JSONL
file (evaluation.evaluate_files)."""

import json

from ..formats.jsonl import atomic_output
from ..outputs import Paths
from ..terminal import say

NAME = "evaluate"
HELP = "Score predicted alignments against gold: link, bead-text and paragraph-pair P/R/F1."


def add_arguments(parser):
    parser.add_argument("gold", help="pair JSONL with a 'gold' field")
    parser.add_argument("predicted", help="alignment JSONL (output of align)")
    parser.add_argument("--output", default=None, help="also write the scores as JSON here")


def paths(args) -> Paths:
    return Paths(inputs=[args.gold, args.predicted], outputs=[args.output])


def run(args) -> int:
    from ..evaluation.files import evaluate_files, format_table

    scores = evaluate_files(args.gold, args.predicted)
    say(format_table(scores))
    if args.output:
        with atomic_output(args.output) as handle:
            json.dump(scores, handle, indent=2)
    return 0
