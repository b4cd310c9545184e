"""Cross-validation by document, as the CRF evaluations of the benchmarks and the lab run it (cv_crf.py,
eval_crf_domains.py, eval_crf_choice.py, eval_adapt.py, bench_peers.py, the lab's null-training
scripts): the seeded folds, and gold pairs read with the domain each comes from, so that every script
draws the same folds (the user's project's eval_adapt_folds.py too, through project/script_options.py)."""

import random
from typing import List, Tuple

from spacy_simalign.core.structures import TrainingPair
from spacy_simalign.formats.pair_jsonl import read_pairs

PORTAL, BIBLE = "Alumniportal-2020", "bible_verified"  # the two corpora of DEplain-web dev


def folds_of(n: int, k: int, seed: int) -> List[List[int]]:
    """k test folds of the indices 0..n-1: a seeded shuffle dealt out round-robin, each fold sorted."""
    order = list(range(n))
    random.Random(seed).shuffle(order)
    return [sorted(order[f::k]) for f in range(k)]


def read_gold_pairs(path) -> Tuple[List[str], List[TrainingPair]]:
    """(the domain of each pair, its training pair) of a pair JSONL file with gold: the domain is
    the `corpus` field (DEplain-web), else the `website` field (the Simple German Corpus), else "?"."""
    records = list(read_pairs(str(path), default_lang="de"))
    domains = [r.raw.get("corpus", r.raw.get("website", "?")) for r in records]
    return domains, [r.training_pair(str(path)) for r in records]
