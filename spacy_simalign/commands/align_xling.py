"""`align-xling`: sentence alignment inside matched cross-lingual document pairs, after the
post-processing filters (same language, near-identical, error page). Input is pair JSONL,
or matches JSONL from match-docs together with --source/--target documents JSONL. Output is
alignment JSONL, one line per kept pair, always with both sides' sentences; dropped pairs
are counted on stderr and written with their reasons to --dropped."""
import sys

from ..errors import InputError
from ..formats import alignment_record, atomic_output, dump_line, read_jsonl, read_pairs

NAME = "align-xling"
HELP = "align sentences of matched cross-lingual document pairs (20min-XD intersection or CRF), with filters"


def add_arguments(parser):
    from ..xling import DEFAULT_SENTENCE_THRESHOLD, XLING_METHODS

    parser.add_argument("input", help="pair JSONL, or matches JSONL when --source and --target are given")
    parser.add_argument("output", help="alignment JSONL to write")
    parser.add_argument("--source", default=None, help="source documents JSONL (input is then matches JSONL)")
    parser.add_argument("--target", default=None, help="target documents JSONL")
    parser.add_argument("--method", choices=XLING_METHODS, default="intersection",
                        help="intersection (20min-XD, default) or crf")
    parser.add_argument("--threshold", type=float, default=DEFAULT_SENTENCE_THRESHOLD,
                        help=f"sentence similarity threshold x100 for intersection (default {DEFAULT_SENTENCE_THRESHOLD:g})")
    parser.add_argument("--model", default=None, help="CRF weights folder (method crf; default: shipped weights)")
    parser.add_argument("--no-filter", action="store_true", help="keep every pair (no post-processing)")
    parser.add_argument("--dropped", default=None, help="write dropped pairs with their reasons here (JSONL)")
    parser.add_argument("--allow-mixed-languages", action="store_true", help="see match-docs")


def pairs_from_matches(args):
    """(id, source Side, target Side, raw texts, extra fields) for each match line."""
    from ..docmatch.documents import read_documents
    from ..xling import side_from_text

    source = {d.id: d for d in read_documents(args.source, args.allow_mixed_languages)}
    target = {d.id: d for d in read_documents(args.target, args.allow_mixed_languages)}
    sides = {}  # a document matched several times (union, best-source) is segmented once

    def side(role, doc):
        if (role, doc.id) not in sides:
            sides[role, doc.id] = side_from_text(doc.text, doc.lang)
        return sides[role, doc.id]

    out = []
    for number, obj in read_jsonl(args.input):
        for key, docs in (("source", source), ("target", target)):
            if not isinstance(obj.get(key), str):
                raise InputError(f"match needs string '{key}'", args.input, number)
            if obj[key] not in docs:
                raise InputError(f"{key} id '{obj[key]}' is not in {getattr(args, key)}", args.input, number)
        s, t = source[obj["source"]], target[obj["target"]]
        extra = {"source": s.id, "target": t.id, "lang": s.lang, "lang_simple": t.lang}
        if isinstance(obj.get("score"), (int, float)):
            extra["doc_score"] = float(obj["score"])
        out.append((f"{s.id}|{t.id}", side("source", s), side("target", t), s.text, t.text, extra))
    return out


def pairs_from_pair_file(path):
    out = []
    for record in read_pairs(path):
        sides, texts = [], []
        for name in ("complex", "simple"):
            side = record.side(name)
            presegmented = record.is_presegmented(name)
            texts.append("\n\n".join(side.paragraph_texts()) if presegmented else record.side_input(name))
            sides.append(side)
        extra = {k: v for k, v in record.raw.items() if k not in ("id", "complex", "simple", "gold")}
        out.append((record.id, sides[0], sides[1], texts[0], texts[1], extra))
    return out


def run(args) -> int:
    from ..xling import XlingAligner, pair_problems

    if (args.source is None) != (args.target is None):
        raise InputError("give both --source and --target (with matches JSONL as input), or neither")
    pairs = pairs_from_matches(args) if args.source else pairs_from_pair_file(args.input)
    aligner = XlingAligner(args.method, args.threshold, crf_model=args.model)
    kept, dropped = [], []
    for pair_id, src, tgt, src_text, tgt_text, extra in pairs:
        reasons = [] if args.no_filter else pair_problems(src_text, tgt_text, src.lang, tgt.lang)
        if reasons:
            dropped.append({"id": pair_id, "reasons": reasons, **extra})
            continue
        beads = aligner.align(src, tgt)
        kept.append(alignment_record(pair_id, beads, src.sentences, tgt.sentences, method=args.method, **extra))
    with atomic_output(args.output) as handle:
        for record in kept:
            handle.write(dump_line(record))
    if args.dropped:
        with atomic_output(args.dropped) as handle:
            for record in dropped:
                handle.write(dump_line(record))
    print(f"{len(kept)} pairs aligned, {len(dropped)} dropped by the filters -> {args.output}", file=sys.stderr)
    return 0
