"""Statistics of an aligned comparable corpus, as in 20min-XD: per pair the AlignRatio of
each side (share of its sentences in some bead), the Pearson correlation of aligned sentence
lengths in characters, and the Kendall tau of aligned sentence positions (monotonicity); per
corpus the correlation of each with the document similarity, and a histogram of document
similarities (Figure 2 of the paper)."""

import math
from dataclasses import asdict, dataclass
from typing import Dict, List, Optional, Sequence

import numpy as np

from ..core.errors import InputError
from ..core.extras import require
from ..core.structures import Bead

PAIR_STATS = ("align_ratio_source", "align_ratio_target", "length_pearson", "position_kendall")


@dataclass
class PairStats:
    """Statistics of one aligned pair; NaN where undefined (fewer than 2 beads, constant lengths)."""

    id: str
    n_source: int
    n_target: int
    n_beads: int
    align_ratio_source: float
    align_ratio_target: float
    length_pearson: float
    position_kendall: float
    doc_similarity: Optional[float] = None

    def to_json(self) -> Dict:
        return {
            k: (None if isinstance(v, float) and math.isnan(v) else (round(v, 4) if isinstance(v, float) else v))
            for k, v in asdict(self).items()
        }


def _pearson(x: Sequence[float], y: Sequence[float]) -> float:
    a, b = np.asarray(x, float), np.asarray(y, float)
    if len(a) < 2 or _constant(a) or _constant(b):
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def _constant(values: np.ndarray) -> bool:
    """Constant up to rounding (a Kendall tau of 1.0 may come back as 0.9999999999)."""
    return bool(np.ptp(values) <= 1e-9 * max(1.0, float(np.max(np.abs(values)))))


def _kendall(x: Sequence[float], y: Sequence[float]) -> float:
    from scipy.stats import kendalltau

    a, b = np.asarray(x, float), np.asarray(y, float)
    if len(a) < 2 or _constant(a) or _constant(b):
        return float("nan")
    return float(kendalltau(a, b).statistic)


def pair_stats(
    pair_id: str,
    source: Sequence[str],
    target: Sequence[str],
    beads: Sequence[Bead],
    doc_similarity: Optional[float] = None,
) -> PairStats:
    """AlignRatio per side, length Pearson (joined text of each bead side), position Kendall
    (first sentence of each bead side)."""
    aligned_s = {i for b in beads for i in b.complex}
    aligned_t = {j for b in beads for j in b.simple}
    len_s = [sum(len(source[i]) for i in b.complex) for b in beads]
    len_t = [sum(len(target[j]) for j in b.simple) for b in beads]
    pos_s = [min(b.complex) for b in beads if b.complex and b.simple]
    pos_t = [min(b.simple) for b in beads if b.complex and b.simple]
    return PairStats(
        pair_id,
        len(source),
        len(target),
        len(beads),
        len(aligned_s) / len(source) if len(source) else float("nan"),
        len(aligned_t) / len(target) if len(target) else float("nan"),
        _pearson(len_s, len_t),
        _kendall(pos_s, pos_t),
        doc_similarity,
    )


def corpus_correlations(stats: Sequence[PairStats]) -> Dict[str, Dict[str, float]]:
    """Pearson correlation of each pair statistic with the document similarity, over the pairs
    where both are defined; {stat: {"pearson": r, "n": pairs, "mean": mean of the stat}}."""
    out = {}
    for name in PAIR_STATS:
        values = np.array([getattr(s, name) for s in stats], float)
        sims = np.array([np.nan if s.doc_similarity is None else s.doc_similarity for s in stats], float)
        ok = ~np.isnan(values) & ~np.isnan(sims)
        out[name] = {
            "pearson": _pearson(values[ok], sims[ok]),
            "n": int(ok.sum()),
            "mean": float(np.nanmean(values)) if np.any(~np.isnan(values)) else float("nan"),
        }
    return out


def read_aligned(path: str, similarity_field: str = "doc_score") -> List[PairStats]:
    """Pair statistics of every line of an alignment JSONL file that carries both sides'
    sentences (`complex_sentences`, `simple_sentences`, as align-xling writes them)."""
    from ..formats.alignments import read_alignments

    out = []
    for line in read_alignments(path, need_sentences=True):
        sim = line.raw.get(similarity_field)
        if sim is not None and (isinstance(sim, bool) or not isinstance(sim, (int, float))):
            raise InputError(f"'{similarity_field}' must be a number", path, line.line)
        out.append(
            pair_stats(
                line.id,
                line.carried("complex"),
                line.carried("simple"),
                line.beads,
                None if sim is None else float(sim),
            )
        )
    if not out:
        raise InputError("no aligned pairs", path)
    return out


def similarity_label(field: str = "doc_score") -> str:
    """The histogram's axis label: what the drawn number is. `doc_score` is match-docs' score,
    the embeddings' cosine mixed with a lexical signal (by default half of it TF-IDF cosine of the
    texts), not a plain cosine; another field is named as it is."""
    if field == "doc_score":
        return "document similarity: match-docs score x 100 (embedding cosine mixed with TF-IDF by default)"
    return f"document similarity: '{field}' x 100"


def similarity_figure(stats: Sequence[PairStats], field: str = "doc_score", bins: int = 40, title: str = ""):
    """The matplotlib Figure of the histogram of document similarities (x100)."""
    matplotlib = require("docmatch", "matplotlib", "the similarity histogram")

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sims = [100.0 * s.doc_similarity for s in stats if s.doc_similarity is not None]
    if not sims:
        raise InputError(f"no document similarities to draw (pairs lack '{field}')")
    fig, ax = plt.subplots(figsize=(6, 3.5), dpi=120)
    ax.hist(sims, bins=bins, color="#4c72b0", edgecolor="white")
    ax.set_xlabel(similarity_label(field))
    ax.set_ylabel("pairs")
    ax.set_title(title or f"Document similarity of {len(sims)} aligned pairs")
    fig.tight_layout()
    return fig


def similarity_histogram(
    stats: Sequence[PairStats], path: str, bins: int = 40, title: str = "", field: str = "doc_score"
) -> int:
    """Histogram of document similarities (x100) as a PNG; returns the number of pairs drawn."""
    import matplotlib.pyplot as plt

    from ..formats.jsonl import atomic_output

    fig = similarity_figure(stats, field, bins, title)
    try:
        with atomic_output(path, "wb") as handle:
            fig.savefig(handle, format="png")
    finally:
        plt.close(fig)
    return sum(s.doc_similarity is not None for s in stats)


def format_summary(stats: Sequence[PairStats]) -> str:
    corr = corpus_correlations(stats)
    lines = [
        f"{len(stats)} pairs",
        "| statistic          |   mean | Pearson r with doc similarity | pairs |",
        "|--------------------|--------|-------------------------------|-------|",
    ]
    for name, row in corr.items():
        r = "n/a" if math.isnan(row["pearson"]) else f"{row['pearson']:.3f}"
        mean = "n/a" if math.isnan(row["mean"]) else f"{row['mean']:.3f}"
        lines.append(f"| {name:<18} | {mean:>6} | {r:>29} | {row['n']:5d} |")
    return "\n".join(lines)
