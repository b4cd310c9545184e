"""Cross-validation by document, as the CRF experiments run it (project/cv_crf.py,
eval_crf_domains.py, eval_crf_adaptation.py, bench_peers.py): the seeded folds, and gold pairs
read with the corpus each comes from, so that every script draws the same folds."""

import random
from typing import List, Tuple

from ..formats.pairs import read_pairs
from ..structures import TrainingPair

PORTAL, BIBLE = "Alumniportal-2020", "bible_verified"  # the two corpora of DEplain-web dev


def folds_of(n: int, k: int, seed: int) -> List[List[int]]:
    """k test folds of the indices 0..n-1: a seeded shuffle dealt out round-robin, each fold sorted."""
    order = list(range(n))
    random.Random(seed).shuffle(order)
    return [sorted(order[f::k]) for f in range(k)]


def read_gold_pairs(path, field: str = "corpus") -> Tuple[List[str], List[TrainingPair]]:
    """(the domain of each pair, its training pair) of a pair JSONL file with gold: the domain is
    the pair's `field` ("corpus" in DEplain-web dev, "website" in sgc-dev; "?" where missing)."""
    records = list(read_pairs(str(path), default_lang="de"))
    return [r.raw.get(field, "?") for r in records], [r.training_pair(str(path)) for r in records]
