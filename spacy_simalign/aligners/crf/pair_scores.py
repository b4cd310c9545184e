"""The CRF's cosine column from sentence vectors of another encoder: a transformer that learns with
the CRF (pipeline/transformer_link.py) gives each sentence a vector, and the cosine of a candidate
pair's two vectors replaces the fixed encoder's in the pair features ("cos"). The candidates, the
other features and the unaligned scores stay the fixed encoder's and the lexical ones, fixed per
document, so a trained CRF reads the same columns at inference as in training."""

from typing import List, Sequence, Tuple

import numpy as np

from ...core.structures import Bead, Side
from ...similarity.blas_threads import one_blas_thread
from ..protocol import BatchItem, prime_encoder
from .features import FEATURE_INDEX, DirectionInput, PairInput

COS = FEATURE_INDEX["cos"]
Vectors = Tuple[np.ndarray, np.ndarray]  # of the (complex, simple) sentences, one row each


def candidate_cells(x: DirectionInput) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(source rows, candidate slots, target sentences) of the direction's real candidates."""
    rows, ks = np.nonzero(x.cand >= 0)
    return rows, ks, x.cand[rows, ks]


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


def with_cosines(x: DirectionInput, src: np.ndarray, tgt: np.ndarray) -> DirectionInput:
    """The direction with its cosine column computed from the source and target sentences' vectors."""
    rows, ks, cols = candidate_cells(x)
    feats = x.feats.copy()
    feats[rows, ks, COS] = np.einsum("ij,ij->i", unit_rows(src)[rows], unit_rows(tgt)[cols])
    return DirectionInput(x.cand, feats, x.null_feats, x.n_target, x.src_texts, x.tgt_texts, x.src_is_complex, x.gold)


def with_pair_scores(pair: PairInput, vectors: Vectors) -> PairInput:
    """Both directions of the pair with the cosine of the given sentence vectors."""
    complex_vectors, simple_vectors = vectors
    return PairInput(
        with_cosines(pair.s2c, simple_vectors, complex_vectors),
        with_cosines(pair.c2s, complex_vectors, simple_vectors),
        pair.n_complex,
        pair.n_simple,
        pair.langs,
    )


def check_vectors(side: Side, vectors: np.ndarray, name: str) -> None:
    if len(vectors) != len(side):
        raise ValueError(
            f"the {name} side has {len(side)} sentences but {len(vectors)} sentence vectors came from the transformer"
        )


def align_with_vectors(aligner, complex_side: Side, simple_side: Side, paragraph_links, vectors: Vectors) -> List[Bead]:
    """Beads of one pair by the CRF `aligner` whose cosine column is that of `vectors`; a
    translation is aligned as the aligner aligns it (its bead decoder on the fixed encoder)."""
    if not aligner.ready:
        return aligner.align(complex_side, simple_side, paragraph_links)  # its own error
    if not len(complex_side) or not len(simple_side):
        return []
    check_vectors(complex_side, vectors[0], "complex")
    check_vectors(simple_side, vectors[1], "simple")
    if aligner.is_translation(complex_side, simple_side):
        return aligner.bead_dp.align(complex_side, simple_side)
    with one_blas_thread():  # the same bits on any number of BLAS threads
        pair = aligner.featurize(complex_side, simple_side, paragraph_links)
        return aligner.align_input(with_pair_scores(pair, vectors))


def align_batch_with_vectors(aligner, items: Sequence[BatchItem], vectors: Sequence[Vectors]) -> List[List[Bead]]:
    """align_with_vectors for each item of a batch, the fixed encoder primed with the batch's
    sentences as the aligner's own align_batch does (protocol.py)."""
    encoders = {id(e): e for e in aligner.encoders() if hasattr(e, "encode")}
    for encoder in encoders.values():
        prime_encoder(encoder, [side for c, s, _ in items for side in (c, s)])
    try:
        return [align_with_vectors(aligner, c, s, links, v) for (c, s, links), v in zip(items, vectors)]
    finally:
        for encoder in encoders.values():
            clear = getattr(encoder, "clear_cache", None)
            if clear is not None:
                clear()
