"""How often the most similar sentence is the gold one, whole sentences against clauses (issue 24):
for each linked simple sentence, whether the complex sentence of best USE cosine is one of its
gold complex sentences, scoring a complex sentence by the sentence alone or by the best of it
and its clauses (aligners/units.py); and the reverse for each linked complex sentence against
the simple side (merges). Per domain of DEplain-web dev (`corpus`) and for sgc-dev, with the
encoder-call factor of the clauses (texts encoded with them / without).

    SPACY_SIMALIGN_CACHE=.cache/emb .venv/bin/python -m spacy project run eval-clause-ranking
    SPACY_SIMALIGN_CACHE=.cache/emb .venv/bin/python project/eval_clause_ranking.py [--data PATH ...]
"""

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from spacy_simalign.aligners.clauses import clauses
from spacy_simalign.aligners.crf.aligner import CRFAligner
from spacy_simalign.aligners.units import SentenceUnits, best_unit_cosines
from spacy_simalign.evaluation.crossval import read_gold_pairs
from spacy_simalign.evaluation.report import add_output_option, run_main

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
DEFAULT_DATA = [DATA / "deplain-web-dev" / "pairs.jsonl", DATA / "sgc-dev" / "pairs.jsonl"]


def first_is_gold(query: SentenceUnits, target: SentenceUnits, gold, with_clauses: bool):
    """For each query sentence with gold targets: whether its best-scoring target is gold."""
    hits = []
    m = len(target)
    for q, wanted in sorted(gold.items()):
        cols = np.arange(m)
        rows = np.full(m, q)
        if with_clauses:
            scores = best_unit_cosines(query, target, rows, cols)
        else:
            scores = target.sentences @ query.sentences[q]
        hits.append(int(np.argmax(scores)) in wanted)
    return hits


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", action="append", default=None, help="pair JSONL with gold (repeatable)")
    add_output_option(ap)
    args = ap.parse_args(argv)
    encoder = CRFAligner.default().encoder
    hits = defaultdict(lambda: defaultdict(list))  # domain -> kind -> list of bool
    texts = defaultdict(lambda: [set(), set()])  # domain -> (sentences, clauses)
    for path in args.data or DEFAULT_DATA:
        domains, pairs = read_gold_pairs(path)
        for domain, pair in zip(domains, pairs):
            name = Path(path).parent.name
            groups = (f"{name}/{domain}", name)
            sides = []
            for side in (pair.simple, pair.complex):
                emb = np.asarray(encoder.encode(list(side.sentences), side.lang), dtype=np.float32)
                sides.append(SentenceUnits.of(encoder, side.sentences, side.lang, emb))
                for t in groups:
                    texts[t][0].update(side.sentences)
                    texts[t][1].update(c for s in side.sentences for c in clauses(s, side.lang))
            simple, complex_ = sides
            s2c, c2s = defaultdict(set), defaultdict(set)
            for c, s in pair.links:
                s2c[s].add(c)
                c2s[c].add(s)
            for t in groups:
                hits[t]["whole"] += first_is_gold(simple, complex_, s2c, False)
                hits[t]["clauses"] += first_is_gold(simple, complex_, s2c, True)
                hits[t]["whole_rev"] += first_is_gold(complex_, simple, c2s, False)
                hits[t]["clauses_rev"] += first_is_gold(complex_, simple, c2s, True)
    print("gold ranked first (USE cosine): whole sentences / best over the sentence and its clauses")
    head = (
        f"{'domain':40s} {'simple':>7s} {'whole':>6s} {'clauses':>8s}   {'complex':>7s} {'whole':>6s} {'clauses':>8s}"
    )
    print(head + f"   {'encoder texts x':>15s} {'characters x':>12s}")
    for t in sorted(hits, key=lambda d: ("/" not in d, d)):
        h = hits[t]
        sentences, extra = texts[t][0], texts[t][1] - texts[t][0]
        n_sent, n_clause = len(sentences), len(extra)
        chars = (sum(map(len, sentences)) + sum(map(len, extra))) / max(sum(map(len, sentences)), 1)
        print(
            f"{t[:40]:40s} {len(h['whole']):7d} {np.mean(h['whole']):6.3f} {np.mean(h['clauses']):8.3f}   "
            f"{len(h['whole_rev']):7d} {np.mean(h['whole_rev']):6.3f} {np.mean(h['clauses_rev']):8.3f}   "
            f"{(n_sent + n_clause) / max(n_sent, 1):15.2f} {chars:12.2f}"
        )
    print(
        "\nencoder texts x: distinct texts encoded with the clauses over the distinct sentences; characters x:"
        " their characters over the sentences' (the encoder's work grows with the text it reads)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
