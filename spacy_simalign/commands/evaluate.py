"""`evaluate GOLD.jsonl PREDICTED.jsonl [--output scores.json] [--detail] [--exclude-identical]`: link,
bead-text and paragraph-pair P/R/F1 of an alignment JSONL file against the gold beads of a pair JSONL
file (evaluation.evaluate_files); `--detail` adds recall per bead shape and each pair's figures;
`--exclude-identical` scores links by Wiki-Manual's Task 1 protocol, so that figures compare with
the published ones of Jiang et al. (2020), which leave pairs of identical sentences out. Predicted
ids that are not in the gold are left out of the scores, with a note on stderr saying how many."""

import json

from ..core.output_paths import Paths
from ..core.terminal_text import say
from ..formats.jsonl import atomic_output

NAME = "evaluate"
HELP = "Score predicted alignments against gold: link, bead-text and paragraph-pair P/R/F1."


def add_arguments(parser):
    parser.add_argument("gold", help="pair JSONL with a 'gold' field")
    parser.add_argument("predicted", help="alignment JSONL (output of align)")
    parser.add_argument("--output", default=None, help="also write the scores as JSON here")
    parser.add_argument(
        "--detail",
        action="store_true",
        help="also recall per gold bead shape (1:1, 1:2, 1:3+, n:m) and each pair's own link and "
        "bead-text F1, worst first: which documents and shapes to review",
    )
    parser.add_argument(
        "--exclude-identical",
        action="store_true",
        help="Wiki-Manual's Task 1 protocol (Jiang et al. 2020): leave every link between two sentences that are "
        "the same string (surrounding whitespace stripped) out of both gold and prediction in the link figures; "
        "bead-text and paragraph figures are unchanged",
    )


def paths(args) -> Paths:
    return Paths(inputs=[args.gold, args.predicted], outputs=[args.output])


def run(args) -> int:
    from ..evaluation.files import evaluate_files, format_table

    scores = evaluate_files(args.gold, args.predicted, detail=args.detail, exclude_identical=args.exclude_identical)
    unknown = scores["predictions_not_in_gold"]
    if unknown:
        ids = "1 predicted id is" if unknown == 1 else f"{unknown} predicted ids are"
        say(f"note: {args.predicted}: {ids} not in {args.gold}, left out of the scores", err=True)
    say(format_table(scores))
    if args.output:
        with atomic_output(args.output) as handle:
            json.dump(scores, handle, indent=2)
    return 0
