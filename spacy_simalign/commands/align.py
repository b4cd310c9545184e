"""`align INPUT.jsonl OUTPUT.jsonl [--method NAME] [--model PATH] [--lang LANG]`: pair JSONL in,
alignment JSONL out (FORMATS.md), one output line per input line, written atomically."""
from ..formats import alignment_record, atomic_output, dump_line, read_pairs
from ..methods import DEFAULT_SENTENCE_METHOD, SENTENCE_METHODS
from ..pair import pair_from_record, side_of
from ..pipeline import alignment_pipeline

NAME = "align"
HELP = "Align the sentences of each complex/simple pair of a pair JSONL file."


def add_arguments(parser):
    parser.add_argument("input", help="pair JSONL (FORMATS.md)")
    parser.add_argument("output", help="alignment JSONL to write")
    parser.add_argument("--method", default=DEFAULT_SENTENCE_METHOD, choices=sorted(SENTENCE_METHODS),
                        help="sentence aligner (default: crf, the shipped neural CRF)")
    parser.add_argument("--model", default=None, help="trained pipeline folder or CRF weights file")
    parser.add_argument("--lang", default=None, help="language of pairs that have no 'lang' field")


def align_record(record, method: str, model=None):
    """Align one validated PairRecord and return its alignment JSONL object."""
    nlp = alignment_pipeline(record.lang, method, model)
    doc = nlp(pair_from_record(nlp, record))
    out = {}
    for name in ("complex", "simple"):
        if not record.is_presegmented(name):
            out[f"{name}_sentences"] = side_of(doc, name).sentences
    return alignment_record(record.id, doc._.beads, out.get("complex_sentences"), out.get("simple_sentences"))


def run(args) -> int:
    # Validate the whole file first: a bad line is reported before any time is spent aligning.
    for _ in read_pairs(args.input, default_lang=args.lang):
        pass
    with atomic_output(args.output) as handle:
        for record in read_pairs(args.input, default_lang=args.lang):
            handle.write(dump_line(align_record(record, args.method, args.model)))
    return 0
