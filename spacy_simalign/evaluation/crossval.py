"""Cross-validation by document, as the CRF experiments run it (project/cv_crf.py,
eval_crf_domains.py, eval_crf_adaptation.py, bench_peers.py): the seeded folds, and gold pairs
read with the corpus each comes from, so that every script draws the same folds."""

import dataclasses
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


def read_gold_pairs(path, linked_only: bool = False) -> Tuple[List[str], List[TrainingPair]]:
    """(the domain of each pair, its training pair) of a pair JSONL file with gold: the domain is
    the `corpus` field (DEplain-web), else the `website` field (the Simple German Corpus), else "?".
    `linked_only`: the file's sides hold only linked sentences (TrainingPair.linked_only)."""
    records = list(read_pairs(str(path), default_lang="de"))
    domains = [r.raw.get("corpus", r.raw.get("website", "?")) for r in records]
    return domains, [dataclasses.replace(r.training_pair(str(path)), linked_only=linked_only) for r in records]
