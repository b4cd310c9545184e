"""Translation beads scored by a learned linear model on one scale: every bead the decoder weighs
(1:1, the n:m candidates, the skip) gets the weighted sum of its features (bead_evidence.py:
the embedding cosine beside lengths in characters, numbers, names, cognates, punctuation,
headings, paragraph boundaries and the bead's shape), the log-odds that it is a gold bead.

The beads weighed are those of the unlearned decoder (bead_dp.py): the 1:1 beads of the band
around the anchor path, and the n:m beads whose best complete path under the summed-vector
score comes within `candidate_gap` of the best one (bead_units.py), scored with the vectors of
their joined text. The weights are fitted on translation gold by project/fit_bead_score.py and
kept as JSON in spacy_simalign/weights/bead_score/."""

import json
from pathlib import Path
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from ..errors import InputError
from ..ranges import AT_LEAST_0, AT_LEAST_1, AT_LEAST_2, ranges
from ..registry import aligner_registry
from ..structures import Bead, ParagraphLink, Side
from .band_scores import BandScores
from .bead_dp import anchor_path, backtrace, band_around, bead_scorer, bead_types, forward, runs
from .bead_evidence import NAMES, BeadEvidence
from .bead_units import CandidateRescorer, paths_through
from .protocol import SentenceAlignerBase

WEIGHTS = Path(__file__).resolve().parent.parent / "weights" / "bead_score" / "translations.json"
FIRST_SKIP = -0.1  # the first pass's skip (bead_dp.py's default): it only chooses the candidates


class BeadScoreModel:
    """Weights over bead_evidence.NAMES, and the score of a skipped sentence, on the same scale."""

    def __init__(self, weights: Dict[str, float], skip: float, about: Optional[Dict] = None):
        unknown = set(weights) - set(NAMES)
        if unknown:
            raise InputError(f"bead score weights name unknown features: {', '.join(sorted(unknown))}")
        self.vector = np.array([float(weights.get(name, 0.0)) for name in NAMES])
        self.skip = float(skip)
        self.about = about or {}

    def __call__(self, features: np.ndarray) -> np.ndarray:
        return features @ self.vector

    @classmethod
    def load(cls, path: Union[str, Path] = WEIGHTS) -> "BeadScoreModel":
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            return cls(dict(data["weights"]), float(data["skip"]), data.get("about"))
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise InputError(f"bead score weights {path}: unreadable ({error})") from None

    def save(self, path: Union[str, Path]) -> None:
        data = {
            "weights": {name: round(float(w), 6) for name, w in zip(NAMES, self.vector)},
            "skip": round(self.skip, 6),
            "about": self.about,
        }
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def length_agreement(SL: np.ndarray, TL: np.ndarray, ratio: float, a: int, b: int, i: int, cols: np.ndarray):
    """log2(1 + shorter / longer) of the bead's character lengths, the pair's ratio factored out (bead_dp.py)."""
    a_len, b_len = SL[a - 1, i - 1], TL[b - 1, cols - 1] * ratio
    return np.log2(1 + np.minimum(a_len, b_len) / np.maximum(np.maximum(a_len, b_len), 1e-9))


class WeighedBeads:
    """The beads the learned score weighs for one pair (see the module docstring), their
    features, and the decoding of a path through them by any bead score."""

    def __init__(
        self,
        complex_side: Side,
        simple_side: Side,
        vectors: Tuple[np.ndarray, np.ndarray],
        encode: Callable,
        max_align: int,
        top_k: int,
        window: int,
        candidate_gap: float,
    ):
        src, tgt = vectors
        n, m = len(src), len(tgt)
        src_len = np.array([len(s) for s in complex_side.sentences], dtype=np.float64)
        tgt_len = np.array([len(s) for s in simple_side.sentences], dtype=np.float64)
        self.n, self.m, self.types = n, m, bead_types(max_align)
        S, SL = runs(src, src_len, max_align - 1)
        T, TL = runs(tgt, tgt_len, max_align - 1)
        ratio = float(src_len.sum() / max(tgt_len.sum(), 1.0))
        path = anchor_path(lambda a, b: src[a:b] @ tgt.T, n, m, top_k)
        self.lo, self.hi = band_around(path, n, m, window)
        first = BandScores(bead_scorer(S, T, SL, TL, ratio, True, True), self.lo, self.hi)
        cost, _ = forward(n, m, self.types, self.lo, self.hi, first, FIRST_SKIP)
        best = cost[n, m]
        # each candidate's distance below the best path, as bead_units.py measures it
        self.deficits: Dict[Tuple[int, int], Tuple[np.ndarray, np.ndarray]] = {}
        for key, (cols, through) in paths_through(
            forward, self.types, self.lo, self.hi, first, FIRST_SKIP, cost
        ).items():
            keep = through >= best - candidate_gap
            if keep.any():
                self.deficits[key] = (cols[keep], best - through[keep])
        rescorer = CandidateRescorer((complex_side.sentences, simple_side.sentences), encode, candidate_gap, 0.0)
        S2, T2 = rescorer.joined({key: cols for key, (cols, _) in self.deficits.items()}, self.types, S, T)
        self.single = BandScores(bead_scorer(S, T, SL, TL, ratio, True, False), self.lo, self.hi)
        self.unit = bead_scorer(S2, T2, SL, TL, ratio, True, False)
        self.lengths = (SL, TL, ratio)
        self.runs = (S2, T2)
        self.evidence = BeadEvidence(complex_side, simple_side)

    def features(self, a: int, b: int, i: int, cols: np.ndarray) -> np.ndarray:
        cosine = (self.single if a == b == 1 else self.unit)(a, b, i, cols)
        agreement = length_agreement(*self.lengths, a, b, i, cols)
        return self.evidence.features(a, b, i, cols, cosine, cosine * agreement)

    def decode(self, score: Callable, skip: float, gap: Optional[float] = None) -> List[Tuple[int, int, int, int]]:
        """The best path's beads (complex start, end, simple start, end) under `score(a, b, i, cols)`,
        the n:m beads among the candidates (those within `gap`, if given, of the best path)."""
        return decode_band(self.band(), score, skip, gap)

    def band(self) -> "Band":
        return Band(self.n, self.m, self.types, self.lo, self.hi, self.deficits)

    def bead_cosine(self, a: int, b: int, c: int, d: int) -> float:
        S, T = self.runs
        return float(S[b - a - 1, b - 1] @ T[d - c - 1, d - 1])


class Band(NamedTuple):
    """What a decoding needs besides the scores: the sides' sizes, the bead types, the band
    around the anchor path, and the n:m candidates {(type, end row): (end columns, deficits)}."""

    n: int
    m: int
    types: List[Tuple[int, int]]
    lo: np.ndarray
    hi: np.ndarray
    deficits: Dict[Tuple[int, int], Tuple[np.ndarray, np.ndarray]]


def decode_band(band: Band, score: Callable, skip: float, gap: Optional[float] = None):
    """See WeighedBeads.decode."""
    allowed_cols = {
        key: (cols if gap is None else cols[deficit <= gap]) for key, (cols, deficit) in band.deficits.items()
    }

    def allowed(t, i, cols):
        return np.isin(cols, allowed_cols.get((t, i), ()))

    _, back = forward(band.n, band.m, band.types, band.lo, band.hi, score, skip, allowed)
    return backtrace(back, band.types)


def align_scored(weighed: WeighedBeads, model: BeadScoreModel) -> List[Tuple[int, int, int, int, float]]:
    """Beads (complex start, end, simple start, end, cosine) of the best path under `model`."""
    beads = weighed.decode(lambda a, b, i, cols: model(weighed.features(a, b, i, cols)), model.skip)
    return [(a, b, c, d, weighed.bead_cosine(a, b, c, d)) for a, b, c, d in beads]


class BeadScoreAligner(SentenceAlignerBase):
    """Monotone bead alignment of a translation with the learned bead score (see the module
    docstring); paragraph links, if given, are ignored."""

    def __init__(self, similarity=None, model: Optional[BeadScoreModel] = None, **settings):
        if similarity is None:
            from ..similarity.backends import make_use_similarity

            similarity = make_use_similarity()
        self.similarity = similarity
        self.model = model or BeadScoreModel.load()
        self.max_align, self.top_k, self.window = settings["max_align"], settings["top_k"], settings["window"]
        self.candidate_gap = settings["candidate_gap"]
        if self.max_align < 2:
            raise InputError(f"max_align must be at least 2, got {self.max_align}")

    def encoders(self) -> List:
        return [self.similarity]

    def align(
        self, complex: Side, simple: Side, paragraph_links: Optional[Sequence[ParagraphLink]] = None
    ) -> List[Bead]:
        if not len(complex) or not len(simple):
            return []
        sides = (complex, simple)
        vectors = (
            np.asarray(self.similarity.encode(complex.sentences, complex.lang), dtype=np.float32),
            np.asarray(self.similarity.encode(simple.sentences, simple.lang), dtype=np.float32),
        )
        weighed = WeighedBeads(
            complex,
            simple,
            vectors,
            lambda texts, side: self.similarity.encode(texts, sides[side].lang),
            self.max_align,
            self.top_k,
            self.window,
            self.candidate_gap,
        )
        return [
            Bead(tuple(range(a, b)), tuple(range(c, d)), float(min(max(score, 0.0), 1.0)))
            for a, b, c, d, score in align_scored(weighed, self.model)
        ]


@aligner_registry("spacy-simalign.BeadDP.v2")
@ranges(max_align=AT_LEAST_2, top_k=AT_LEAST_1, window=AT_LEAST_0, candidate_gap=AT_LEAST_0)
def make_bead_score(
    similarity=None,
    weights: str = "shipped",
    max_align: int = 5,
    top_k: int = 3,
    window: int = 5,
    candidate_gap: float = 0.2,
) -> BeadScoreAligner:
    """The bead decoder with the learned bead score: weights "shipped" (fitted on Text+Berg dev,
    TransRead dev and NTREX by project/fit_bead_score.py) or a weights JSON file of that script."""
    model = BeadScoreModel.load(WEIGHTS if weights == "shipped" else weights)
    return BeadScoreAligner(
        similarity, model, max_align=max_align, top_k=top_k, window=window, candidate_gap=candidate_gap
    )
