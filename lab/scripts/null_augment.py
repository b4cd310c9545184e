"""Synthetic "no counterpart" training documents for the CRF: a gold document with the complex
sentences of some beads removed (their simple sentences are left with no counterpart, next to
sentences on the same topic) and sentences of other documents inserted into either side (with no
counterpart, on another topic). DEplain-web has 3% unaligned simple sentences, so a CRF trained on
it never learns the null decision; Wiki-Manual has 42%.

    augmented(pair, rng, drop=0.3, insert_simple=0.1, insert_complex=0.0, donors=[...])"""

import random
from typing import List, Sequence

from spacy_simalign.core.structures import Bead, Side, TrainingPair


def _rebuild(side: Side, keep: Sequence[bool], inserts, rng: random.Random):
    """(new side, old index -> new index) keeping the sentences `keep` marks and inserting, after
    each kept sentence with probability `inserts[0]`, a sentence drawn from `inserts[1]`; empty
    paragraphs dropped."""
    rate, pool = inserts
    paragraphs: List[List[str]] = []
    index = {}
    added: List[int] = []
    n = 0
    for para in side.paragraphs:
        out = []
        for i in para:
            if keep[i]:
                index[i] = n
                out.append(side.sentences[i])
                n += 1
            if pool and rng.random() < rate:
                out.append(rng.choice(pool))
                added.append(n)
                n += 1
        if out:
            paragraphs.append(out)
    return Side.from_paragraphs(paragraphs, side.lang), index


def augmented(
    pair: TrainingPair,
    rng: random.Random,
    drop: float = 0.3,
    insert_simple: float = 0.0,
    insert_complex: float = 0.0,
    donors: Sequence[TrainingPair] = (),
    drop_simple: float = 0.0,
) -> TrainingPair:
    """A copy of `pair` with the complex side of a share `drop` of its beads removed (the simple
    side of a share `drop_simple` of the others) and sentences
    of the `donors` (other documents) inserted after a share of each side's sentences."""
    keep_c = [True] * len(pair.complex)
    keep_s = [True] * len(pair.simple)
    kept_beads = []
    for bead in pair.gold:
        draw = rng.random()
        if draw < drop:
            for c in bead.complex:
                keep_c[c] = False
        elif draw < drop + drop_simple:
            for s in bead.simple:
                keep_s[s] = False
        else:
            kept_beads.append(bead)
    if not kept_beads and pair.gold:  # keep one bead: a document with no link teaches nothing of links
        bead = pair.gold[rng.randrange(len(pair.gold))]
        kept_beads = [bead]
        for c in bead.complex:
            keep_c[c] = True
        for s in bead.simple:
            keep_s[s] = True
    others = [d for d in donors if d.id != pair.id]
    pool_s = [s for d in others for s in d.simple.sentences]
    pool_c = [s for d in others for s in d.complex.sentences]
    complex_side, cmap = _rebuild(pair.complex, keep_c, (insert_complex, pool_c), rng)
    simple_side, smap = _rebuild(pair.simple, keep_s, (insert_simple, pool_s), rng)
    gold = [
        Bead(tuple(cmap[c] for c in b.complex), tuple(smap[s] for s in b.simple), b.score)
        for b in kept_beads
        if all(c in cmap for c in b.complex) and all(s in smap for s in b.simple)
    ]
    return TrainingPair(complex_side, simple_side, gold, None, pair.id + "+null")


def use_relative_null() -> None:
    """Lab only: the null feature log_len replaced by the sentence's best cosine less the median
    best cosine of its side of the document, so that the null score can read "far below this
    document's usual match" rather than an absolute level (which the bible's low cosines break)."""
    import numpy as np

    from spacy_simalign.aligners.crf import features

    original = features.PairFeaturizer._null

    def _null(src, row_max, row_second, best_c3g, best_word, direction, cross):
        g = original(src, row_max, row_second, best_c3g, best_word, direction, cross)
        if len(row_max):
            g[:, 4] = row_max - np.median(row_max)
        return g

    features.PairFeaturizer._null = staticmethod(_null)
