"""Other bead scores and decoders for translations, each judged by leaving documents out: the
bead decoder BeadDP.v1 (aligners/bead_dp.py with its candidate rescoring, bead_units.py) replayed
on the three translation sets with one change at a time, to see whether any family of changes
beats v1's setting on documents it was not chosen on. The family "anchors-and-ends" is the change
the package kept (BeadDP.v3, bead_anchors.py: shared numbers and marks, and the same weight taken
from a bead that ends on a colon or semicolon on one side only); "anchors" (numbers and marks
alone), "anchor-kinds", "length-penalty" and "end-weight" were measured beside it and not kept.

    cd lab && SPACY_SIMALIGN_CACHE=../.cache/emb ../.venv/bin/python scripts/eval_bead_decoder_variants.py \\
        [--families max-align,posterior] [--output FILE] [--json FILE]

Each family is a small grid of settings (FAMILIES below). Every setting aligns every document of
Text+Berg dev (de-fr, 1 article), TransRead dev (en-fr, 3 novels) and NTREX (738 one-to-one news
documents); then each held-out part (the article, each novel, 5 NTREX folds by document with a
document's six language pairs in one fold) is aligned by the family's setting that is best on the
other documents, each corpus weighted the same. The family "penalty" is BeadDP.v1's candidate
penalty alone (v1's setting is its 0.075). Strict = bead F1, a predicted bead counts
only if it equals a gold bead; link = F1 of the sentence links."""

import argparse
import itertools
import os
import re
import sys
import unicodedata
from pathlib import Path
from typing import Callable, Dict, List, Sequence, Tuple

import numpy as np
from script_output import add_output_option, run_main, write_json

from spacy_simalign.aligners.band_scores import BandScores, band_cells
from spacy_simalign.aligners.bead_anchors import SharedAnchors, sentence_anchors
from spacy_simalign.aligners.bead_dp import BeadScorer, anchor_path, backtrace, band_around, bead_types, forward, runs
from spacy_simalign.aligners.bead_units import CandidateRescorer, Reversed
from spacy_simalign.aligners.scoring import AlignmentScorer
from spacy_simalign.core.structures import Bead
from spacy_simalign.formats.pair_jsonl import read_pairs
from spacy_simalign.similarity.backends import USESimilarity

REPO = Path(__file__).resolve().parents[2]  # the repository: the lab project is its lab/ folder
DATA = Path(os.environ.get("SIMALIGN_SHARED_DATA", REPO.parent / "shared" / "data"))
NTREX_PAIRS = ("en-de", "en-fr", "en-nl", "de-fr", "de-nl", "fr-nl")
NTREX_FOLDS = 5

# BeadDP.v1's settings (make_bead_dp's defaults) and the neutral value of each change.
V1 = {
    "max_align": 5,
    "top_k": 3,
    "window": 5,
    "skip": -0.1,
    "gap": 0.2,
    "penalty": 0.075,
    "margin_weight": 1.0,  # the neighbour margin, as in v1
    "length_exponent": 1.0,  # the length agreement log2(1 + shorter / longer), as in v1
    "knn": 0,  # > 0: the margin is the mean of each side's k best cosines in the document instead
    "size_weight": 0.0,  # a bead's score times ((a + b) / 2) ** size_weight
    "offset": 0.0,  # subtracted from every bead's score before the size weight
    "bead_cost": 0.0,  # subtracted once from every n:m bead's score
    "temperature": 0.0,  # > 0: posterior decoding at this temperature instead of the best path
    "threshold": 0.0,  # posterior decoding keeps the path of the largest sum of (posterior - threshold)
    "anchor_weight": 0.0,  # added for each anchor a bead's sides share (BeadDP.v3: 0.05)
    "anchor_kinds": "marks",  # the anchors: "marks" (BeadDP.v3's), "names" or "colons" added to them
    "length_penalty": 0.0,  # > 0: the candidate penalty scaled by (the bead's mean sentence length) ** this
    "end_weight": 0.0,  # taken from a bead whose sides end differently: one on : or ;, the other not
    "end_rule": "differ",  # or "each": end_weight taken for each side of a bead that ends on : or ;
}
PENALTIES = (0.075, 0.1)


def grid(**values: Sequence) -> List[Dict]:
    """Every combination of the given settings, the rest as in v1."""
    names = list(values)
    return [dict(V1, **dict(zip(names, combo))) for combo in itertools.product(*values.values())]


FAMILIES: Dict[str, Tuple[str, List[Dict]]] = {
    "penalty": ("the candidate penalty alone (BeadDP.v1)", grid(penalty=(0.05, 0.075, 0.1, 0.125))),
    "max-align": ("beads of up to 6 or 7 sentences", grid(max_align=(6, 7), penalty=PENALTIES)),
    "skip": ("the cost of a sentence left out", grid(skip=(-0.05, -0.15, -0.2), penalty=PENALTIES)),
    "offset": ("an offset taken from every bead's score", grid(offset=(0.1, 0.2), penalty=PENALTIES)),
    "size-weight": (
        "a bead's score weighted by its sentences",
        grid(size_weight=(0.5,), penalty=(0.1, 0.125)) + grid(size_weight=(1.0,), penalty=(0.3, 0.35)),
    ),
    "margin-weight": ("the neighbour margin weighted", grid(margin_weight=(0.5, 1.5), penalty=PENALTIES)),
    "length-exponent": ("the length agreement raised to a power", grid(length_exponent=(0.5, 2.0), penalty=PENALTIES)),
    "knn-margin": (
        "a margin of the 4 best cosines in the document (partly or wholly)",
        grid(knn=(4,), margin_weight=(0.5, 1.0), penalty=PENALTIES),
    ),
    "bead-cost": ("a cost per n:m bead besides the penalty", grid(bead_cost=(0.025, 0.05), penalty=(0.05, 0.075))),
    "posterior": (
        "posterior decoding of the bead marginals",
        grid(temperature=(0.02, 0.05), threshold=(0.0, 0.3), penalty=PENALTIES),
    ),
    "anchors": (
        "shared numbers, ? ! and quote marks",
        grid(anchor_weight=(0.02, 0.05, 0.1), penalty=PENALTIES),
    ),
    "anchors-and-ends": (
        "those, and the same weight taken where a bead ends on : or ; on one side only (BeadDP.v3)",
        [dict(s, end_weight=s["anchor_weight"]) for s in grid(anchor_weight=(0.02, 0.05, 0.1), penalty=PENALTIES)],
    ),
    "anchor-kinds": (
        "shared names, or : and brackets, beside them",
        grid(anchor_kinds=("names", "colons"), anchor_weight=(0.02, 0.05), penalty=PENALTIES),
    ),
    "length-penalty": (
        "the candidate penalty scaled by the bead's sentence length",
        grid(length_penalty=(0.5, 1.0), penalty=(0.075, 0.1, 0.125)),
    ),
    "end-weight": (
        "anchors at 0.05 and an end on : or ; on one side only, or on each side, at its own weight",
        grid(anchor_weight=(0.05,), end_weight=(0.02, 0.05, 0.1), end_rule=("differ", "each"), penalty=PENALTIES),
    ),
}

CAPITALISED = re.compile(r"\b[A-ZÀ-Ý][\w'-]{2,}")


def fold(text: str) -> str:
    """Lower case, accents dropped."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).lower()


class KindAnchors(SharedAnchors):
    """SharedAnchors with more kinds of anchor beside BeadDP.v3's numbers and marks: accent-folded
    capitalised tokens ("names"), or colons and opening brackets ("colons")."""

    def __init__(self, complex_sentences, simple_sentences, kind: str):
        self.kind = kind
        super().__init__(complex_sentences, simple_sentences)

    def anchors_of(self, text):  # type: ignore[override]
        found = sentence_anchors(text)
        if self.kind == "names":
            found += ["name:" + fold(t) for t in CAPITALISED.findall(text)]
        elif self.kind == "colons":
            found += [":" for c in text if c == ":"] + ["(" for c in text if c in "(["]
        return found


class LengthScaledRescorer(CandidateRescorer):
    """The candidate rescoring with the penalty of an n:m bead scaled by its sentences' mean length
    against the pair's (each side's mean, the two averaged) to the power `power`."""

    def __init__(self, encode_runs, gap, penalty, power, SL, TL, mean_src, mean_tgt):
        super().__init__(encode_runs, gap, penalty)
        self.power, self.SL, self.TL, self.means = power, SL, TL, (mean_src, mean_tgt)

    def __call__(self, forward, types, lo, hi, score, skip, cost, S, T, make_score):
        S, T, flat, allowed = super().__call__(forward, types, lo, hi, score, skip, cost, S, T, make_score)

        def scaled(a, b, rows, cols):
            value = flat(a, b, rows, cols)
            if a == b == 1:
                return value
            penalty = self.penalty * (a + b - 2)
            relative = (self.SL[a - 1, rows - 1] / a / self.means[0] + self.TL[b - 1, cols - 1] / b / self.means[1]) / 2
            return value + penalty - penalty * np.minimum(relative, 2.0) ** self.power

        return S, T, scaled, allowed


def corpora(data: Path) -> Dict[str, list]:
    """{corpus: its pair records} of the three translation sets."""
    return {
        "textberg": list(read_pairs(str(data / "textberg-dev-de-fr" / "pairs.jsonl"))),
        "transread": list(read_pairs(str(data / "transread-dev-en-fr" / "pairs.jsonl"))),
        "ntrex": [r for p in NTREX_PAIRS for r in read_pairs(str(data / "ntrex-news" / f"{p}.jsonl"))],
    }


def held_out_parts(sets: Dict[str, list]) -> List[Tuple[str, str, List[int]]]:
    """(corpus, part name, record positions) of each held-out part."""
    parts = [("textberg", "the article", list(range(len(sets["textberg"]))))]
    parts += [("transread", r.id, [k]) for k, r in enumerate(sets["transread"])]
    document = [re.sub(r"^ntrex-[a-z]{2}-[a-z]{2}-", "", r.id) for r in sets["ntrex"]]
    fold_of = {key: n % NTREX_FOLDS for n, key in enumerate(sorted(set(document)))}
    for fold in range(NTREX_FOLDS):
        parts.append(("ntrex", f"fold {fold + 1}", [k for k, key in enumerate(document) if fold_of[key] == fold]))
    return parts


def scores(records: Sequence, preds: Sequence) -> Tuple[float, float]:
    """(strict bead F1, link F1), pooled over the records."""
    scorer = AlignmentScorer()
    for record, beads in zip(records, preds):
        scorer.add(record.gold, beads, record.side("complex").sentences, record.side("simple").sentences)
    pooled = scorer.scores()
    return pooled["bead_text"]["f"], pooled["link"]["f"]


class VariantScorer(BeadScorer):
    """BeadDP.v1's bead score (cosine less the neighbour margin, times the length agreement) with
    the margin weighted, the length agreement raised to a power, or a margin of each side's k best
    cosines with the other side's sentences of the document (CSLS-like) instead of the neighbours."""

    def __init__(self, S, T, SL, TL, ratio, src, tgt, settings, anchors=None):
        super().__init__(S, T, SL, TL, ratio, True, True)
        self.settings, self.shared_anchors = settings, anchors
        k = settings["knn"]
        if k:
            self.best_S, self.best_T = self._mean_best(S, tgt, k), self._mean_best(T, src, k)

    @staticmethod
    def _mean_best(R: np.ndarray, other: np.ndarray, k: int) -> np.ndarray:
        """[longest, n]: the mean of each run vector's k largest cosines with the other side's sentences."""
        k = min(k, len(other))
        return np.stack([-np.partition(-(R[a] @ other.T), k - 1, axis=1)[:, :k].mean(axis=1) for a in range(len(R))])

    def __call__(self, a, b, rows, cols):
        self.margin, self.length_penalty = False, False
        cosine = super().__call__(a, b, rows, cols)
        if self.settings["knn"]:
            margin = (self.best_S[a - 1, rows - 1] + self.best_T[b - 1, cols - 1]) / 2
        else:
            self.margin = True
            margin = cosine - super().__call__(a, b, rows, cols)
        weight = self.settings["margin_weight"]
        value = cosine - margin if weight == 1 else cosine - weight * margin
        a_len, b_len = self.SL[a - 1, rows - 1], self.TL[b - 1, cols - 1] * self.ratio
        agreement = np.log2(1 + np.minimum(a_len, b_len) / np.maximum(np.maximum(a_len, b_len), 1e-9))
        value = value * agreement ** self.settings["length_exponent"]
        anchors = self.shared_anchors
        if self.settings["anchor_weight"]:
            value = value + self.settings["anchor_weight"] * anchors.shared(a, b, rows, cols)
        if self.settings["end_weight"]:
            if self.settings["end_rule"] == "differ":
                cut = anchors.ends_differ(rows, cols)
            else:
                cut = anchors.open_ends[0][rows - 1].astype(float) + anchors.open_ends[1][cols - 1]
            value = value - self.settings["end_weight"] * cut
        return value


def log_partition(n, m, types, lo, hi, score, skip, allowed, temperature) -> np.ndarray:
    """The log of the summed exp(path score / temperature) of every path from (0, 0) to each
    (i, j) of the band: bead_dp.forward with the best path's max replaced by a sum."""
    total = np.full((n + 1, m + 1), -np.inf)
    total[0, 0] = 0.0
    kinds = np.array([t for t, ab in enumerate(types) if ab != (0, 1)])
    A, B = np.array([types[t][0] for t in kinds]), np.array([types[t][1] for t in kinds])
    ramp = (skip / temperature) * np.arange(m + 1)
    width = int((hi - lo).max()) + 1
    rows, cols, place = band_cells(lo, hi, 0, n + 1)
    values = np.full((len(kinds), n + 1, width), -np.inf)
    for k, t in enumerate(kinds):
        a, b = types[t]
        keep = (rows >= a) & (cols >= b)
        if allowed is not None and a and b and a + b > 2:
            keep[keep] = allowed(t, rows[keep], cols[keep])
        r, c = rows[keep], cols[keep]
        if len(r):
            values[k, r, place[keep]] = (skip if a == 0 or b == 0 else score(a, b, r, c)) / temperature
    for i in range(n + 1):
        js = np.arange(lo[i], hi[i] + 1)
        before = total[np.maximum(i - A, 0)[:, None], np.maximum(js[None, :] - B[:, None], 0)]
        total[i, js] = np.logaddexp(total[i, js], np.logaddexp.reduce(before + values[:, i, : len(js)], axis=0))
        row = np.full(m + 1, -np.inf)
        row[js] = total[i, js]
        total[i, js] = (np.logaddexp.accumulate(row - ramp) + ramp)[js]  # simple sentences left out
    return total


def posterior_path(n, m, types, lo, hi, score, skip, allowed, temperature, threshold) -> np.ndarray:
    """Back pointers of the path of the largest sum of (bead posterior - threshold): the posteriors
    from the forward and backward log partitions, the path by bead_dp.forward on them."""
    ahead = log_partition(n, m, types, lo, hi, score, skip, allowed, temperature)
    reversed_allowed = None
    if allowed is not None:

        def reversed_allowed(t, rows, cols):
            a, b = types[t]
            return allowed(t, n - rows + a, m - cols + b)

    behind = log_partition(
        n, m, types, m - hi[::-1], m - lo[::-1], Reversed(score, n, m), skip, reversed_allowed, temperature
    )[::-1, ::-1]

    def posterior(a, b, rows, cols):
        if not a or not b:
            return np.zeros(len(rows))
        log_p = ahead[rows - a, cols - b] + score(a, b, rows, cols) / temperature + behind[rows, cols] - ahead[n, m]
        return np.where(np.isfinite(log_p), np.exp(np.minimum(log_p, 0.0)), 0.0) - threshold

    return forward(n, m, types, lo, hi, posterior, 0.0, allowed)[1]


class Replay:
    """One encoder for every setting (its cache keeps each string's vector once) and each
    document's sentence vectors and runs, computed once per longest run."""

    def __init__(self):
        self.encoder = USESimilarity()
        self.prepared: Dict[Tuple[str, int], tuple] = {}

    def sides(self, record, longest: int):
        key = (record.id, longest)
        if key not in self.prepared:
            out = []
            for side in (record.side("complex"), record.side("simple")):
                vectors = np.asarray(self.encoder.encode(side.sentences, side.lang), dtype=np.float32)
                lengths = np.array([len(s) for s in side.sentences], dtype=np.float64)
                out.append((side, vectors, lengths, runs(vectors, lengths, longest)))
            self.prepared[key] = tuple(out)
        return self.prepared[key]

    def align(self, record, s: Dict) -> List[Bead]:
        """The beads of one pair under settings `s` (see V1)."""
        (complex_side, src, src_len, (S, SL)), (simple_side, tgt, tgt_len, (T, TL)) = self.sides(
            record, s["max_align"] - 1
        )
        n, m = len(src), len(tgt)
        if not n or not m:
            return []
        types = bead_types(s["max_align"])
        ratio = float(src_len.sum() / max(tgt_len.sum(), 1.0))
        lo, hi = band_around(anchor_path(lambda a, b: src[a:b] @ tgt.T, n, m, s["top_k"]), n, m, s["window"])
        anchors = None
        if s["anchor_weight"] or s["end_weight"]:
            kind = s["anchor_kinds"]
            anchors = (
                SharedAnchors(complex_side.sentences, simple_side.sentences)
                if kind == "marks"
                else KindAnchors(complex_side.sentences, simple_side.sentences, kind)
            )

        def scorer(S, T) -> Callable:
            raw = BandScores(VariantScorer(S, T, SL, TL, ratio, src, tgt, s, anchors), lo, hi)
            return lambda a, b, rows, cols: ((a + b) / 2) ** s["size_weight"] * (raw(a, b, rows, cols) - s["offset"])

        first = scorer(S, T)
        cost, back = forward(n, m, types, lo, hi, first, s["skip"])
        sides = (complex_side, simple_side)

        def encode_runs(spans, side):
            return self.encoder.encode_runs(sides[side].sentences, spans, sides[side].lang)

        if s["length_penalty"]:
            rescorer: CandidateRescorer = LengthScaledRescorer(
                encode_runs, s["gap"], s["penalty"], s["length_penalty"], SL, TL, src_len.mean(), tgt_len.mean()
            )
        else:
            rescorer = CandidateRescorer(encode_runs, s["gap"], s["penalty"])
        _, _, rescored, allowed = rescorer(forward, types, lo, hi, first, s["skip"], cost, S, T, scorer)

        def second(a, b, rows, cols):  # v1's second pass, less the cost of an n:m bead
            return rescored(a, b, rows, cols) - (s["bead_cost"] if a + b > 2 else 0.0)

        if s["temperature"]:
            back = posterior_path(n, m, types, lo, hi, second, s["skip"], allowed, s["temperature"], s["threshold"])
        else:
            back = forward(n, m, types, lo, hi, second, s["skip"], allowed)[1]
        return [Bead(tuple(range(a, b)), tuple(range(c, d)), 1.0) for a, b, c, d in backtrace(back, types)]


def changed(settings: Dict) -> str:
    """The settings that differ from BeadDP.v1's, as name=value."""
    return ", ".join(f"{k}={v}" for k, v in settings.items() if v != V1[k]) or "BeadDP.v1"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DATA), help="the shared data folder (default ../shared/data)")
    ap.add_argument("--families", default=",".join(FAMILIES), help="comma-separated, of: " + ", ".join(FAMILIES))
    ap.add_argument("--json", default=None, help="also write the figures here")
    add_output_option(ap)
    args = ap.parse_args(argv)
    names = [f for f in args.families.split(",") if f]
    unknown = [f for f in names if f not in FAMILIES]
    if unknown:
        print(f"error: unknown family {unknown[0]!r} (one of {', '.join(FAMILIES)})", file=sys.stderr)
        return 2
    sets = corpora(Path(args.data))
    parts = held_out_parts(sets)
    replay = Replay()
    rows, families = [], []
    print("| family | setting | Text+Berg strict / link | TransRead | NTREX |")
    print("|---|---|---|---|---|")
    for family in names:
        _, settings = FAMILIES[family]
        preds = []
        for s in settings:
            preds.append({name: [replay.align(r, s) for r in records] for name, records in sets.items()})
            figures = {name: scores(records, preds[-1][name]) for name, records in sets.items()}
            rows.append({"family": family, "setting": changed(s), "figures": figures})
            cells = " | ".join(f"{f[0]:.3f} / {f[1]:.3f}" for f in figures.values())
            print(f"| {family} | {changed(s)} | {cells} |", flush=True)
        held: Dict[str, Tuple[list, list]] = {name: ([], []) for name in sets}
        chosen = []
        strict: Dict[tuple, float] = {}  # each held-out part asks again for the same documents
        for corpus, _part, positions in parts:
            out = set(positions)

            def fitting(k):  # the mean over corpora of the strict F1 on the documents not held out
                values = []
                for name, records in sets.items():
                    rest = [i for i in range(len(records)) if not (name == corpus and i in out)]
                    if rest:
                        key = (k, name, tuple(rest))
                        if key not in strict:
                            strict[key] = scores([records[i] for i in rest], [preds[k][name][i] for i in rest])[0]
                        values.append(strict[key])
                return sum(values) / len(values)

            best = max(range(len(settings)), key=fitting)
            chosen.append(changed(settings[best]))
            held[corpus][0].extend(sets[corpus][i] for i in positions)
            held[corpus][1].extend(preds[best][corpus][i] for i in positions)
        families.append(
            {
                "family": family,
                "chosen": chosen,
                "held_out": {name: scores(recs, beads) for name, (recs, beads) in held.items()},
            }
        )
    print()
    print("Chosen without the held-out documents (strict / link F1):")
    print()
    print("| family | what changes | Text+Berg | TransRead | NTREX |")
    print("|---|---|---|---|---|")
    for f in families:
        cells = " | ".join(f"{v[0]:.3f} / {v[1]:.3f}" for v in f["held_out"].values())
        print(f"| {f['family']} | {FAMILIES[f['family']][0]} | {cells} |")
    write_json(args.json, {"rows": rows, "families": families})
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
