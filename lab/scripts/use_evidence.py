"""What the USE evidence can tell away from home: for the default aligner on the four
simplification corpora (DEplain-web dev, DEplain-web's other corpora, Wiki-Manual dev, sgc-dev),
(1) where USE ranks the gold complex sentence of each linked simple sentence, (2) what the aligner
did with each linked simple sentence (found a counterpart, linked a wrong one, left it unlinked),
and (3) the 10th and 50th percentiles of each predicted link's USE cosine, of its z-score among
all sentence pairs of its document, and of its bead's score, for true links and for the two kinds
of false link (on a simple sentence with no counterpart; with a counterpart elsewhere). Where the
percentiles of true and false links overlap, no floor on that evidence can drop the false links
without the true ones. Wiki-Manual leaves pairs of identical sentences out (Task 1).

    python lab/scripts/use_evidence.py [--shared ../shared/data] [--output FILE]"""

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np
from script_output import add_output_option, run_main

from spacy_simalign.aligners.crf.aligner import make_crf_aligner_v3
from spacy_simalign.formats.pair_jsonl import read_pairs

ROOT = Path(__file__).resolve().parents[2]
CORPORA = {
    "DEplain-web dev": ("deplain-web-dev", False),
    "DEplain-web other corpora": ("deplain-web-domains", False),
    "Wiki-Manual dev": ("wikimanual-dev", True),
    "sgc-dev": ("sgc-dev", False),
}
RANKS = (0, 1, 2, 5, 10)  # the first rank of each bucket of the rank table


def rank_bucket(rank: int) -> int:
    return max(r for r in RANKS if r <= rank)


def corpus_evidence(aligner, path: Path, task1: bool) -> Tuple[Counter, Counter, Dict[str, List[Tuple[float, ...]]]]:
    """(ranks of the gold complex sentence, fates of the linked simple sentences, per link kind
    the (cosine, z in document, bead score) of each predicted link) of one corpus."""
    encoder = aligner.encoder
    ranks: Counter = Counter()
    fates: Counter = Counter()
    links: Dict[str, List[Tuple[float, ...]]] = {
        "true": [],
        "false, no counterpart": [],
        "false, counterpart elsewhere": [],
    }
    for record in read_pairs(str(path)):
        pair = record.training_pair(str(path))
        complex_sents, simple_sents = pair.complex.sentences, pair.simple.sentences
        cos = encoder.encode(simple_sents) @ encoder.encode(complex_sents).T  # [simple, complex]
        mean, std = float(cos.mean()), float(cos.std()) + 1e-9
        gold: Dict[int, set] = {}
        for i, j in pair.links:
            gold.setdefault(j, set()).add(i)
        beads = aligner.align(pair.complex, pair.simple, pair.paragraph_links)
        predicted: Dict[int, set] = {}
        for bead in beads:
            for j in bead.simple:
                predicted.setdefault(j, set()).update(bead.complex)
        for j, complex_ids in gold.items():
            order = list(np.argsort(-cos[j], kind="stable"))
            ranks[rank_bucket(min(order.index(i) for i in complex_ids))] += 1
            found = predicted.get(j, set())
            fates["unlinked" if not found else "found" if found & complex_ids else "wrong"] += 1
        for bead in beads:
            for i in bead.complex:
                for j in bead.simple:
                    if task1 and complex_sents[i].strip() == simple_sents[j].strip():
                        continue
                    kind = (
                        "true"
                        if i in gold.get(j, ())
                        else "false, counterpart elsewhere"
                        if j in gold
                        else "false, no counterpart"
                    )
                    links[kind].append((float(cos[j, i]), (float(cos[j, i]) - mean) / std, bead.score))
    return ranks, fates, links


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", default=str(ROOT.parent / "shared" / "data"), help="the folder of the data sets")
    add_output_option(ap)
    args = ap.parse_args(argv)
    aligner = make_crf_aligner_v3()
    print(
        "| corpus | gold complex sentence's USE rank: 1st / 2nd / 3rd-5th / 6th-10th / later | simple sentences with a counterpart: found / wrong / unlinked |"
    )
    print("|---|---|---|")
    percentiles = []
    for name, (folder, task1) in CORPORA.items():
        ranks, fates, links = corpus_evidence(aligner, Path(args.shared) / folder / "pairs.jsonl", task1)
        linked = sum(ranks.values())
        shares = " / ".join(f"{ranks[r] / linked:.2f}" for r in RANKS)
        print(f"| {name} | {shares} | {fates['found']} / {fates['wrong']} / {fates['unlinked']} |")
        for kind, values in links.items():
            if values:
                p10, p50 = np.percentile(np.array(values), [10, 50], axis=0)
                cells = " | ".join(f"{a:.2f} / {b:.2f}" for a, b in zip(p10, p50))
                percentiles.append(f"| {name} | {kind} | {len(values)} | {cells} |")
    print()
    print(
        "| corpus | predicted link | links | USE cosine p10 / p50 | z in its document p10 / p50 | bead score p10 / p50 |"
    )
    print("|---|---|---|---|---|---|")
    print("\n".join(percentiles))
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
