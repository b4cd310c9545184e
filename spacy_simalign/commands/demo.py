"""`demo [PAIRS.jsonl]`: align the bundled example pair (or the first pair of a file) with
the default aligner and print the aligned sentences side by side."""

import os
import shutil
import textwrap
from typing import List

from ..aligners.methods import DEFAULT_SENTENCE_METHOD, SENTENCE_METHODS, method_config
from ..core.terminal_text import safe
from ..formats.pair_jsonl import read_pairs

NAME = "demo"
HELP = "Align the bundled example pair (no download) and print the aligned sentences side by side."
EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "resources", "example-de.jsonl")


def add_arguments(parser):
    parser.add_argument("pairs", nargs="?", default=EXAMPLE, help="pair JSONL (default: the bundled example)")
    parser.add_argument("--method", default=DEFAULT_SENTENCE_METHOD, choices=sorted(SENTENCE_METHODS))
    parser.add_argument("--width", type=int, default=0, help="total width (default: the terminal's)")


def side_by_side(left: str, right: str, width: int, middle: str) -> List[str]:
    """Two texts wrapped in two columns, control characters escaped (terminal.safe)."""
    col = (width - len(middle)) // 2
    a, b = textwrap.wrap(safe(left), col) or [""], textwrap.wrap(safe(right), col) or [""]
    rows = max(len(a), len(b))
    a += [""] * (rows - len(a))
    b += [""] * (rows - len(b))
    return [f"{x:<{col}}{middle if k == 0 else ' ' * len(middle)}{y}" for k, (x, y) in enumerate(zip(a, b))]


def render_text(complex_sents, simple_sents, beads, width: int) -> str:
    """Beads in order of the complex side, with deleted and added sentences marked."""
    lines = []
    aligned_c = {i for b in beads for i in b.complex}
    aligned_s = {j for b in beads for j in b.simple}
    events = [(b.complex[0], 0, b) for b in beads]
    events += [(i, 1, i) for i in range(len(complex_sents)) if i not in aligned_c]
    for key, kind, item in sorted(events, key=lambda e: (e[0], e[1])):
        if kind == 0:
            left = " ".join(complex_sents[i] for i in item.complex)
            right = " ".join(simple_sents[j] for j in item.simple)
            lines += side_by_side(left, right, width, f" |{item.score:4.2f}| ")
        else:
            lines += side_by_side(complex_sents[item], "(deleted)", width, " |    | ")
        lines.append("")
    for j in range(len(simple_sents)):
        if j not in aligned_s:
            lines += side_by_side("(added)", simple_sents[j], width, " |    | ")
    return "\n".join(lines)


def run(args) -> int:
    from ..pipeline.build import alignment_pipeline
    from ..pipeline.doc_pair import pair_from_record, side_of

    width = args.width or min(shutil.get_terminal_size((140, 24)).columns, 160)
    record = next(iter(read_pairs(args.pairs)))
    nlp = alignment_pipeline(record.lang, method_config(args.method).to_str())
    doc = nlp(pair_from_record(nlp, record))
    c, s = side_of(doc, "complex"), side_of(doc, "simple")
    print(
        f"{safe(record.id, newlines=False)} ({record.lang}): {len(c)} complex, {len(s)} simple sentences, "
        f"{len(doc._.beads)} beads, method {args.method}\n"
    )
    print(render_text(c.sentences, s.sentences, doc._.beads, width))
    return 0
