"""Identical sentences in long pairs, where one text occurs many times a side: the 82 DEplain-web dev pairs concatenated
into one complex and one simple side (repeated --repeat times: then every text occurs that often on
each side), aligned by the shipped CRF with `identical = "off"` and with the default; counts the simple
sentences that have an identical complex sentence and end up in n:1 beads, or in a 1:1 bead with an
identical sentence.

    cd benchmarks && SPACY_SIMALIGN_CACHE=../.cache/emb spacy project run check-identical   # --repeat 6
    SPACY_SIMALIGN_CACHE=.cache/emb PYTHONPATH=benchmarks/helpers .venv/bin/python benchmarks/scripts/check_identical.py [--repeat 6]
"""

import argparse
import sys
import time
from pathlib import Path

from script_output import add_output_option, run_main

from spacy_simalign.aligners.crf.aligner import DEFAULT_WEIGHTS, CRFAligner
from spacy_simalign.aligners.crf.identical import normal_form
from spacy_simalign.core.structures import Side
from spacy_simalign.formats.pair_jsonl import read_training_pairs

ROOT = Path(__file__).resolve().parents[2]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument(
        "--data", default=str(ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"), help="DEplain-web dev pair JSONL"
    )
    add_output_option(ap)
    args = ap.parse_args(argv)
    repeat = args.repeat
    pairs = read_training_pairs(args.data)
    complex_texts = [s for _ in range(repeat) for p in pairs for s in p.complex.sentences]
    simple_texts = [s for _ in range(repeat) for p in pairs for s in p.simple.sentences]
    print(len(complex_texts), "x", len(simple_texts))
    complex_forms = {normal_form(s) for s in complex_texts}
    with_twin = [j for j, s in enumerate(simple_texts) if normal_form(s) in complex_forms]
    sides = Side.from_paragraphs([complex_texts]), Side.from_paragraphs([simple_texts])
    for mode in ("off", "unique"):
        aligner = CRFAligner.load(DEFAULT_WEIGHTS, overrides={"identical": mode})
        t0 = time.time()
        bead_of = {j: b for b in aligner.align(*sides) for j in b.simple}
        placed = [bead_of[j] for j in with_twin if j in bead_of]
        merged = sum(len(b.complex) > 1 for b in placed)
        largest = max((len(b.complex) for b in placed), default=0)
        own = sum(
            1
            for j in with_twin
            if j in bead_of
            and len(bead_of[j].complex) == len(bead_of[j].simple) == 1
            and normal_form(complex_texts[bead_of[j].complex[0]]) == normal_form(simple_texts[j])
        )
        print(
            f"{mode}: {len(with_twin)} simple sentences with an identical complex one; in n:1 beads {merged} "
            f"(largest n {largest}); in a 1:1 bead with an identical sentence {own}; {time.time() - t0:.1f} s",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
