"""How unsure the CRF is about a document, from its marginals (the `rank` command): the
documents a user reviews first should be those the model aligns with the least confidence, whose
corrections then teach `adapt` the most.

Per simple sentence, the simple->complex direction gives a marginal distribution over "no complex
sentence" and its candidate complex sentences (the CRF's decode_many); a document's score is the mean
over its simple sentences of that distribution's entropy ("entropy", in nats: spread over several
candidates or between a link and none) or of its null marginal ("null": the model expects the
sentence to be unaligned; in a domain the model does not know, similarity is weak everywhere and
the null wins)."""

import numpy as np

from .features import PairInput

SCORES = ("entropy", "null")


def sentence_entropy(marginals: np.ndarray) -> np.ndarray:
    """Entropy (nats) of each row of marginals [n, K+1] (padded candidates have probability 0)."""
    p = np.clip(np.asarray(marginals, dtype=np.float64), 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(p > 0, p * np.log(p), 0.0).sum(axis=1)


def unsureness(aligner, pair: PairInput, score: str = "entropy") -> float:
    """The document's mean per-simple-sentence `score` (SCORES) under the aligner's CRF; 0 for a
    document without simple sentences."""
    if score not in SCORES:
        raise ValueError(f"unknown score {score!r}: choose one of {', '.join(SCORES)}")
    ((_, marg),) = aligner.crf.decode_many([pair.s2c])
    return document_score(marg, score)


def document_score(marginals: np.ndarray, score: str = "entropy") -> float:
    """The mean over simple sentences of `score` of the simple->complex marginals [n, K+1]; 0 for none."""
    if not len(marginals):
        return 0.0
    return float((sentence_entropy(marginals) if score == "entropy" else np.asarray(marginals)[:, 0]).mean())
