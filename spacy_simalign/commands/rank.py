"""`rank PAIRS.jsonl [--output FILE] [--model PATH] [--score entropy|null]`: the pairs ordered by
how unsure the CRF aligner is about them (aligners/crf/unsure.py), most unsure first, one
`id<TAB>score` line each: review those first (`review`), then `adapt` on them. The score is the
CRF's that adapt fine-tunes (not that of the shipped weights' wide CRF, crf/choice.py)."""

from typing import Optional

from ..core.output_paths import STDOUT, Paths
from ..core.terminal_text import safe
from ..formats.jsonl import atomic_output
from . import crf_weights

NAME = "rank"
HELP = (
    "Order the pairs of a pair JSONL file by how unsure the CRF aligner is about them, most unsure first "
    "(id and score per line): the documents to review first"
)


def add_arguments(parser) -> None:
    from ..aligners.crf.unsure import SCORES

    parser.add_argument("pairs", metavar="PAIRS.jsonl", help="pair JSONL (gold is not needed)")
    parser.add_argument(
        "--output", default=None, metavar="FILE", help="also write the lines to FILE (-: standard output only)"
    )
    parser.add_argument("--model", default=None, metavar="PATH", help="CRF weights folder (default: shipped)")
    parser.add_argument(
        "--score",
        default=SCORES[0],
        choices=SCORES,
        help="mean per simple sentence of the marginals' entropy (default) or null marginal",
    )
    parser.add_argument("--lang", default=None, help="language of pairs that have no 'lang' field")


def paths(args) -> Paths:
    return Paths(inputs=[args.pairs, args.model], outputs=[file_output(args)])


def file_output(args) -> Optional[str]:
    """The file of --output; None for none and for `-`, standard output, where the lines go anyway."""
    return None if args.output == STDOUT else args.output


def run(args) -> int:
    from ..aligners.crf.aligner import CRFAligner
    from ..aligners.crf.unsure import unsureness
    from ..formats.pair_jsonl import read_pairs, validate_pairs
    from ..formats.ranked import ranked_lines

    model = crf_weights(args.model)
    aligner = CRFAligner.load(model)
    validate_pairs(args.pairs, args.lang)
    scored = []
    for record in read_pairs(args.pairs, default_lang=args.lang, unique_ids=False):  # validated above
        complex_side, simple_side = record.side("complex"), record.side("simple")
        value = 0.0
        if len(complex_side) and len(simple_side):
            value = unsureness(aligner, aligner.featurize(complex_side, simple_side), args.score)
        scored.append((value, record.id))
    scored.sort(key=lambda item: -item[0])  # stable: ties keep the file's order
    lines = ranked_lines(scored)
    print("\n".join(safe(line, newlines=False) for line in lines))
    if file_output(args):
        with atomic_output(args.output) as handle:
            handle.write("".join(line + "\n" for line in lines))
    return 0
