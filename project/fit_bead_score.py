"""Fit the learned bead score of the translation decoder (spacy_simalign/aligners/bead_score.py)
on the translation gold, and measure it by leaving documents out.

    .venv/bin/python project/fit_bead_score.py [--weights spacy_simalign/weights/bead_score/translations.json]
        [--lodo] [--json metrics/bead_score.json] [--output metrics/bead_score.txt]

Data: Text+Berg dev (de-fr, 1 article, GPL-2.0), TransRead dev (en-fr, 3 novels, CC BY-SA 4.0),
NTREX news (123 documents in 6 language pairs, CC BY-SA 4.0). Every bead the decoder weighs
(1:1 beads of the band, n:m candidates, skips) has a row of features; the weights are fitted so
that the decoded path comes close to the best path through the gold beads the decoder can reach
(a structured hinge loss, numpy), each corpus weighted the same, starting from and pulled toward
the unlearned score (cosine times length agreement, the 0.075 penalty, the -0.1 skip).

--lodo: the figures of documents never fitted on: Text+Berg by weights fitted on the other two
corpora, each TransRead novel by weights fitted without it, NTREX in 5 folds by document (a
document's six language pairs together). The unlearned decoder (bead_dp.py, BeadDP.v1) gets the
same treatment: its candidate gap and penalty chosen on the fitting documents of each fold.
Use an embedding cache (SPACY_SIMALIGN_CACHE): every run embeds the same strings.
"""

import argparse
import itertools
import os
import pickle
import sys
import time
from pathlib import Path
from typing import Dict, List

import numpy as np
from script_output import add_output_option, run_main, write_json

from spacy_simalign.aligners.bead_evidence import NAMES
from spacy_simalign.aligners.bead_score import WEIGHTS, BeadScoreModel, WeighedBeads, decode_band
from spacy_simalign.aligners.scoring import AlignmentScorer
from spacy_simalign.formats.pairs import read_pairs
from spacy_simalign.similarity.backends import USESimilarity
from spacy_simalign.structures import Bead

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("SIMALIGN_SHARED_DATA", ROOT.parent / "shared" / "data"))
CORPORA = {
    "textberg": [DATA / "textberg-dev-de-fr" / "pairs.jsonl"],
    "transread": [DATA / "transread-dev-en-fr" / "pairs.jsonl"],
    "ntrex": [DATA / "ntrex-news" / f"{p}.jsonl" for p in ("en-de", "en-fr", "en-nl", "de-fr", "de-nl", "fr-nl")],
}
LICENCES = {"textberg": "GPL-2.0", "transread": "CC BY-SA 4.0", "ntrex": "CC BY-SA 4.0"}
WIDEST_GAP = 1.0
GAPS = (0.2,)
V1_GAPS = (0.2, 0.5)
V1_PENALTIES = (0.025, 0.05, 0.075, 0.1, 0.125)
V1_PENALTY, V1_SKIP = 0.075, -0.1  # the unlearned decoder's defaults: the fit starts there
ITERATIONS, RATE, MARGIN, L2, BATCH = 60, 0.02, 0.1, 1.0, 40
NTREX_FOLDS = 5
SKIP = len(NAMES)  # the design matrix's last column: a skipped sentence


def document_key(corpus: str, record_id: str) -> str:
    """NTREX's six files share their documents: ntrex-en-de-bbc.381790 -> bbc.381790."""
    if corpus == "ntrex":
        return record_id.split("-", 3)[3]
    return record_id


class Document:
    """One pair's weighed beads and their features, labels and candidate deficits."""

    def __init__(self, corpus: str, record, encoder, max_align=5, top_k=3, window=5):
        self.corpus, self.id, self.key = corpus, record.id, document_key(corpus, record.id)
        src, tgt = record.side("complex"), record.side("simple")
        self.texts = (src.sentences, tgt.sentences)
        self.gold = record.gold
        vectors = (encoder.encode(src.sentences, src.lang), encoder.encode(tgt.sentences, tgt.lang))
        sides = (src, tgt)
        self.weighed = WeighedBeads(
            src,
            tgt,
            vectors,
            lambda texts, side: encoder.encode(texts, sides[side].lang),
            max_align,
            top_k,
            window,
            WIDEST_GAP,
        )
        gold = {(b.complex, b.simple) for b in record.gold}
        self.table: Dict = {}
        rows, labels, deficits = [], [], []

        def record_scores(a, b, i, cols):
            features = self.weighed.features(a, b, i, cols)
            self.table[(a, b, i)] = (cols.copy(), features)
            return features[:, 0]

        self.weighed.decode(record_scores, -0.1)
        deficit_of = {}
        for (t, i), (cols, deficit) in self.weighed.deficits.items():
            a, b = self.weighed.types[t]
            deficit_of[(a, b, i)] = dict(zip(cols.tolist(), deficit.tolist()))
        for (a, b, i), (cols, features) in self.table.items():
            for j, row in zip(cols.tolist(), features):
                rows.append(row)
                labels.append((tuple(range(i - a, i)), tuple(range(j - b, j))) in gold)
                deficits.append(0.0 if a == b == 1 else deficit_of[(a, b, i)][j])
        aligned_src = {k for bead in record.gold for k in bead.complex}
        aligned_tgt = {k for bead in record.gold for k in bead.simple}
        self.skips = (len(src) + len(tgt), len(src) - len(aligned_src) + len(tgt) - len(aligned_tgt))
        self.labels = {
            (a, b, i): np.array([(tuple(range(i - a, i)), tuple(range(j - b, j))) in gold for j in cols.tolist()])
            for (a, b, i), (cols, _) in self.table.items()
        }
        self.sentences = len(src) + len(tgt)
        self.band = self.weighed.band()
        del self.weighed  # closures: the documents are pickled
        self.X = np.array(rows)
        self.y = np.array(labels, dtype=float)
        self.deficit = np.array(deficits)

    def decode(self, vector: np.ndarray, skip: float, gap: float, augment: float = 0.0, tie=None) -> List[Bead]:
        """The best path under the linear score `vector` (plus `augment` on every non-gold bead and
        skip: the margin of the fit; `tie`: scores replaced by gold + tie * score, the oracle path)."""
        values = {}
        for key, (cols, features) in self.table.items():
            value = features @ vector
            if tie is not None:
                value = self.labels[key] + tie * value
            elif augment:
                value = value + augment * ~self.labels[key]
            values[key] = (cols, value)

        def score(a, b, i, cols):
            stored, value = values[(a, b, i)]
            return value[np.searchsorted(stored, cols)]

        beads = decode_band(self.band, score, 0.0 if tie is not None else skip + augment, gap)
        return [Bead(tuple(range(a, b)), tuple(range(c, d))) for a, b, c, d in beads]

    def path_features(self, beads: List[Bead]) -> np.ndarray:
        """The sum of the beads' features, and the number of sentences skipped (the last column)."""
        out = np.zeros(len(NAMES) + 1)
        covered = 0
        for bead in beads:
            a, b, j = len(bead.complex), len(bead.simple), bead.simple[-1] + 1
            cols, features = self.table[(a, b, bead.complex[-1] + 1)]
            out[:SKIP] += features[np.searchsorted(cols, j)]
            covered += a + b
        out[SKIP] = self.sentences - covered
        return out


def load(corpora, encoder) -> List[Document]:
    docs = []
    for corpus in corpora:
        for path in CORPORA[corpus]:
            for record in read_pairs(str(path)):
                docs.append(Document(corpus, record, encoder))
        print(f"{corpus}: {sum(d.corpus == corpus for d in docs)} documents", file=sys.stderr, flush=True)
    return docs


def fit(docs: List[Document], gap: float, seed: int = 0):
    """The weights (vector over NAMES, skip score) of the least margin-rescaled hinge loss of the
    decoded paths against the best reachable gold path (a structured SVM, Adam steps on its
    subgradient, pulled toward the unlearned score by L2), each corpus weighted the same
    (per sentence), NTREX's documents drawn BATCH at a time."""
    start = np.concatenate([v1_vector(V1_PENALTY), [V1_SKIP]])
    w = start.copy()
    corpora = sorted({d.corpus for d in docs})
    by = {c: [d for d in docs if d.corpus == c] for c in corpora}
    sentences = {c: sum(d.sentences for d in by[c]) for c in corpora}
    oracle = {id(d): d.path_features(d.decode(start[:SKIP], 0.0, gap, tie=1e-3)) for d in docs}
    rng = np.random.default_rng(seed)
    m, v, mean = np.zeros_like(w), np.zeros_like(w), np.zeros_like(w)
    for t in range(1, ITERATIONS + 1):
        grad = L2 * (w - start)
        for c in corpora:
            pool = by[c]
            pick = pool if len(pool) <= BATCH else [pool[k] for k in rng.choice(len(pool), BATCH, replace=False)]
            scale = len(pool) / len(pick) / sentences[c] / len(corpora)
            for d in pick:
                grad += scale * (d.path_features(d.decode(w[:SKIP], w[SKIP], gap, MARGIN)) - oracle[id(d)])
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        w = w - RATE * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
        if t > ITERATIONS // 2:
            mean += w
    mean /= ITERATIONS - ITERATIONS // 2
    return mean[:SKIP], float(mean[SKIP])


def v1_vector(penalty: float) -> np.ndarray:
    """The unlearned decoder's score in these features: cosine times length agreement, less the penalty."""
    vector = np.zeros(len(NAMES))
    vector[NAMES.index("cosine_length")] = 1.0
    vector[NAMES.index("extra_sentences")] = -penalty
    return vector


def strict_link(docs: List[Document], preds: List[List[Bead]]):
    scorer = AlignmentScorer()
    for doc, beads in zip(docs, preds):
        scorer.add(doc.gold, beads, *doc.texts)
    s = scorer.scores()
    return s["bead_text"]["f"], s["link"]["f"]


def mean_strict(docs, decode) -> float:
    """Strict F1 per corpus, averaged over the corpora (each counted once)."""
    out = []
    for corpus in sorted({d.corpus for d in docs}):
        mine = [d for d in docs if d.corpus == corpus]
        out.append(strict_link(mine, [decode(d) for d in mine])[0])
    return float(np.mean(out))


def choose_v2(docs):
    """(vector, skip, gap) fitted on `docs`, the gap chosen on them."""
    best = None
    for gap in GAPS:
        vector, skip = fit(docs, gap)
        value = mean_strict(docs, lambda d: d.decode(vector, skip, gap)) if len(GAPS) > 1 else 0.0
        if best is None or value > best[0]:
            best = (value, vector, skip, gap)
    return best[1:]


def choose_v1(docs):
    best = None
    for gap, penalty in itertools.product(V1_GAPS, V1_PENALTIES):
        value = mean_strict(docs, lambda d: d.decode(v1_vector(penalty), -0.1, gap))
        if best is None or value > best[0]:
            best = (value, gap, penalty)
    return best[1:]


def folds(docs: List[Document]):
    """(held-out set name, held-out documents, fitting documents) of the leave-out evaluation."""
    yield "textberg", [d for d in docs if d.corpus == "textberg"], [d for d in docs if d.corpus != "textberg"]
    for key in sorted({d.key for d in docs if d.corpus == "transread"}):
        yield "transread", [d for d in docs if d.key == key], [d for d in docs if d.key != key]
    keys = sorted({d.key for d in docs if d.corpus == "ntrex"})
    rng = np.random.default_rng(0)
    fold_of = dict(zip(keys, rng.permutation(len(keys)) % NTREX_FOLDS))
    for f in range(NTREX_FOLDS):
        held = [d for d in docs if d.corpus == "ntrex" and fold_of[d.key] == f]
        yield "ntrex", held, [d for d in docs if not (d.corpus == "ntrex" and fold_of[d.key] == f)]


def lodo(docs: List[Document]):
    preds: Dict[str, Dict[str, List]] = {"v1": {}, "v1-default": {}, "v2": {}}
    chosen: Dict[str, List] = {"v1": [], "v2": []}
    held_docs: Dict[str, List[Document]] = {}
    for name, held, rest in folds(docs):
        t0 = time.perf_counter()
        gap1, penalty = choose_v1(rest)
        vector, skip, gap2 = choose_v2(rest)
        held_docs.setdefault(name, []).extend(held)
        preds["v1"].setdefault(name, []).extend(d.decode(v1_vector(penalty), -0.1, gap1) for d in held)
        preds["v1-default"].setdefault(name, []).extend(d.decode(v1_vector(0.075), -0.1, 0.2) for d in held)
        preds["v2"].setdefault(name, []).extend(d.decode(vector, skip, gap2) for d in held)
        chosen["v1"].append({"held": [d.id for d in held][:3], "gap": gap1, "penalty": penalty})
        chosen["v2"].append({"held": [d.id for d in held][:3], "gap": gap2, "skip": skip})
        print(
            f"fold {name} ({len(held)} held): v1 gap {gap1} penalty {penalty}; v2 gap {gap2} "
            f"({time.perf_counter() - t0:.0f} s)",
            file=sys.stderr,
            flush=True,
        )
    table = {
        system: {name: strict_link(held_docs[name], p) for name, p in by_set.items()}
        for system, by_set in preds.items()
    }
    return table, chosen


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weights", default=str(WEIGHTS), help="where the weights fitted on all the data go")
    ap.add_argument("--lodo", action="store_true", help="also the leave-documents-out figures")
    ap.add_argument("--documents", default=None, help="a pickle of the weighed beads: read if there, else written")
    ap.add_argument("--json", default=None)
    add_output_option(ap)
    args = ap.parse_args(argv)
    if args.documents and Path(args.documents).exists():
        with open(args.documents, "rb") as handle:
            docs = pickle.load(handle)
    else:
        docs = load(CORPORA, USESimilarity())
        if args.documents:
            with open(args.documents, "wb") as handle:
                pickle.dump(docs, handle)
    out: Dict = {}
    if args.lodo:
        table, chosen = lodo(docs)
        out["lodo"], out["chosen"] = table, chosen
        print(
            "Leave documents out (Text+Berg: fitted on the others; TransRead: one novel out; "
            f"NTREX: {NTREX_FOLDS} folds by document): strict / link F1"
        )
        print(f"{'system':12s} | " + " | ".join(f"{s:^13s}" for s in CORPORA))
        for system, cells in table.items():
            print(f"{system:12s} | " + " | ".join(f"{cells[s][0]:.3f} / {cells[s][1]:.3f}" for s in CORPORA))
        print(
            "v1 = BeadDP.v1 with gap and penalty chosen per fold; v1-default = its shipped 0.2 / 0.075 "
            "(chosen on Text+Berg and TransRead: in-sample there); v2 = the learned score, gap chosen per fold"
        )
    vector, skip, gap = choose_v2(docs)
    model = BeadScoreModel(
        dict(zip(NAMES, vector.tolist())),
        skip,
        {
            "fitted_on": {c: f"{sum(d.corpus == c for d in docs)} documents ({LICENCES[c]})" for c in CORPORA},
            "candidate_gap": gap,
            "by": "project/fit_bead_score.py",
        },
    )
    model.save(args.weights)
    in_sample = {
        c: strict_link([d for d in docs if d.corpus == c], [d.decode(vector, skip, gap) for d in docs if d.corpus == c])
        for c in CORPORA
    }
    out["in_sample"], out["candidate_gap"] = in_sample, gap
    print(
        f"weights fitted on all ({args.weights}), candidate gap {gap}; in-sample strict / link: "
        + ", ".join(f"{c} {s:.3f} / {f:.3f}" for c, (s, f) in in_sample.items())
    )
    write_json(args.json, out)
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
