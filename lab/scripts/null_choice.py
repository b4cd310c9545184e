"""The CRF trained with synthetic no-counterpart documents (null_augment.py) as one more candidate
of the per-document choice (crf/choice.py): a document is aligned by the candidate with the lowest
mean per-simple-sentence entropy (unsure.document_score) among those lower than the own CRF's by at
least `margin` nats; the own CRF otherwise. The candidates read the same features.

    python lab/scripts/null_choice.py wm --syn FOLDER [--wide-of FOLDER] [--margins 0.1,0.2] [--paragraphs] [--syn-set k=v] [--syn-alt k=v] [--folds]
    python lab/scripts/null_choice.py cv --drop 0.4 --models DIR [--margins 0.1,0.2] [--syn-set k=v]
    python lab/scripts/null_choice.py lodo --drops 0.2,0.3 --models DIR [--margins 0,0.1] [--syn-set k=v] [--jobs 2]

wm: Wiki-Manual dev Task 1 of the shipped own CRF with, as candidates, the shipped wide CRF, the
CRF in FOLDER, both, or the wide CRF of another weights folder (--paragraphs: with the paragraph
links of JiangWikiParagraphs.v1 given to the featurizer, as the paragraph aligner does). cv: DEplain-web dev 5-fold CV
(cv_null_training.py's folds) of the CRF trained on the training folds, the one trained on them
and their synthetic copies (add), and the choice between the two; the fold models are saved in DIR
and reused when there. lodo: the DEplain-web dev 5-fold CV and leave one domain out over the 8 German domains (the 2 DEplain-web
corpora, the 6 Simple German Corpus websites, as eval_crf_choice.py): per held-out domain the own
CRF (DEplain-web without it), the wide CRF (DEplain-web and sgc-dev without it) and the synthetic
CRF (the own CRF's documents and their synthetic copies), the shipped choice (own + wide at
margin 0.1) beside the three-way choice in which the wide CRF keeps its margin 0.1 and the
synthetic one gets each of --margins (the CV folds' wide CRF: the training folds and sgc-dev); the
6 websites pooled are the leave-one-website-out figure."""

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import numpy as np
from gold_folds import folds_of, read_gold_pairs
from null_augment import augmented
from script_output import add_output_option, run_main
from task1 import prf, task1_links

from spacy_simalign.aligners.crf.aligner import CRFAligner, train_aligner
from spacy_simalign.aligners.crf.choice import WIDE_FOLDER
from spacy_simalign.aligners.crf.training_settings import TrainingSettings
from spacy_simalign.aligners.crf.unsure import document_score
from spacy_simalign.aligners.paragraphs import make_jiang_wiki_paragraphs
from spacy_simalign.aligners.scoring import AlignmentScorer
from spacy_simalign.formats.pair_jsonl import read_pairs, read_training_pairs

ROOT = Path(__file__).resolve().parents[2]
DEPLAIN = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"
WM = str(ROOT.parent / "shared" / "data" / "wikimanual-dev" / "pairs.jsonl")
SGC = str(ROOT.parent / "shared" / "data" / "sgc-dev" / "pairs.jsonl")


class Scored:
    """One document's s2c decodes and scores under each candidate, decoded once."""

    def __init__(self, pair, candidates: Dict[str, CRFAligner]):
        self.pair = pair
        self.cands = candidates
        self.s2c = {n: a.crf.decode_many([pair.s2c]) for n, a in candidates.items()}
        self.score = {n: document_score(d[0][1]) for n, d in self.s2c.items()}
        self._beads = {}

    def choose(self, names: Sequence[str], margin) -> str:
        """names[0] is the own CRF; the others win only by `margin` nats (a dict: each its own)."""
        if isinstance(margin, dict):
            return choose_by(self.score, margin)
        own = self.score[names[0]]
        surer = [n for n in names[1:] if self.score[n] < own - margin]
        return min(surer, key=lambda n: self.score[n]) if surer else names[0]

    def beads(self, name: str):
        if name not in self._beads:
            a = self.cands[name]
            decoded = self.s2c[name] + a.crf.decode_many([self.pair.c2s])
            self._beads[name] = a.beads(self.pair, a.outputs(self.pair, decoded))
        return self._beads[name]


def rows_of(names: List[str], extra: List[List[str]], margins: List[float]) -> List[Tuple[str, List[str], float]]:
    rows = [(n, [n], 0.0) for n in names]
    for cands in extra:
        for m in margins:
            rows.append((" + ".join(cands) + f" (margin {m})", cands, m))
    return rows


def lone(aligner: CRFAligner) -> CRFAligner:
    aligner.wide_allowed = False
    return aligner


def wm(a) -> None:
    own = CRFAligner.default()
    cands = {"own": lone(own), "wide": lone(CRFAligner.load(str(Path(own.weights) / WIDE_FOLDER)))}
    extra = [["own", "wide"]]
    if a.syn:
        overrides = {k: json.loads(v) for k, v in (kv.split("=", 1) for kv in a.syn_set)}
        cands["syn"] = lone(CRFAligner.load(a.syn, encoder=own.encoder, overrides=overrides))
        extra += [["own", "syn"], ["own", "wide", "syn"]]
        for kv in a.syn_alt:  # the same CRF with one setting changed, a rival variant of "syn"
            k, v = kv.split("=", 1)
            name = f"syn[{kv}]"
            cands[name] = lone(CRFAligner.load(a.syn, encoder=own.encoder, overrides={**overrides, k: json.loads(v)}))
            extra += [["own", name]]
    if a.wide_of:
        cands["wide2"] = lone(CRFAligner.load(str(Path(a.wide_of) / WIDE_FOLDER), encoder=own.encoder))
        extra += [["own", "wide2"]]
    margins = [float(m) for m in a.margins.split(",")]
    rows = rows_of(list(cands), extra, margins)
    if a.syn:  # the wide CRF at the shipped margin, the synthetic one at each margin
        rows += [(f"own + wide (0.1) + syn ({m:g})", ["own", "wide", "syn"], {"wide": 0.1, "syn": m}) for m in margins]
        rows += [
            (
                f"own + syn ({m:g}) first, then wide (0.1)",
                ["own", "syn", "wide"],
                {"syn": m, "wide": 0.1, "first": True},
            )
            for m in margins
        ]
    counts = {r[0]: [0, 0, 0] for r in rows}
    picks = {r[0]: {} for r in rows}
    per_doc = {r[0]: {} for r in rows}
    paragraphs = make_jiang_wiki_paragraphs() if a.paragraphs else None
    t0 = time.time()
    for rec in read_pairs(WM, default_lang="en"):
        tp = rec.training_pair(WM)
        links = paragraphs.align_paragraphs(tp.complex, tp.simple) if paragraphs else None
        pair = own.featurize(tp.complex, tp.simple, links)
        doc = Scored(pair, cands)
        g = task1_links(rec.raw, [[list(b.complex), list(b.simple)] for b in tp.gold])
        for label, names, m in rows:
            chosen = doc.choose(names, m)
            picks[label][chosen] = picks[label].get(chosen, 0) + 1
            p = task1_links(rec.raw, [[list(b.complex), list(b.simple)] for b in doc.beads(chosen)])
            c = (len(g & p), len(p), len(g))
            per_doc[label][rec.id] = c
            for k in range(3):
                counts[label][k] += c[k]
    for label, *_ in rows:
        p, r, f = prf(*counts[label])
        print(f"WM Task 1 {label}: P {p:.3f} R {r:.3f} F1 {f:.3f}; picks {picks[label]}", flush=True)
    print(f"({time.time() - t0:.0f} s)")
    if a.folds:
        margin_folds(rows, per_doc)


def margin_folds(rows, per_doc) -> None:
    """The margin chosen on Wiki-Manual, reported by document folds (wm_folds.py's): for each
    candidate set, the margin with the best pooled F1 on four folds scored on the fifth."""
    ids = sorted(next(iter(per_doc.values())))
    order = list(range(len(ids)))
    random.Random(0).shuffle(order)
    folds = [[ids[i] for i in order[f::5]] for f in range(5)]
    sets = {}
    for label, names, m in rows:
        if len(names) > 1:
            sets.setdefault(tuple(names), []).append((m, label))
    variants = [(n[1], m, label) for n, o in sets.items() if len(n) == 2 and n[1].startswith("syn") for m, label in o]
    groups = [(" + ".join(n), [(m, label) for m, label in o]) for n, o in sets.items()]
    if len({v[0] for v in variants}) > 1:  # the syn variant and the margin chosen together
        groups.append(("own + syn variants", [((n, m), label) for n, m, label in variants]))
    for title, options in groups:
        held, chosen = [0, 0, 0], []
        for test in folds:
            train = [i for i in ids if i not in set(test)]
            m, label = max(options, key=lambda o: prf(*(sum(per_doc[o[1]][d][k] for d in train) for k in range(3)))[2])
            chosen.append(m)
            for k in range(3):
                held[k] += sum(per_doc[label][d][k] for d in test)
        p, r, f = prf(*held)
        print(f"{title}: chosen by fold {chosen}; held-out pooled P {p:.3f} R {r:.3f} F1 {f:.3f}")


def fold_model(path: Path, train, encoder, overrides=None) -> CRFAligner:
    if not (path / "config.json").exists():
        train_aligner(train, {}, settings=TrainingSettings(), encoder=encoder).save(str(path))
    return lone(CRFAligner.load(str(path), encoder=encoder, overrides=overrides or {}))


def cv(a) -> None:
    pairs = list(read_training_pairs(str(DEPLAIN)))
    probe = CRFAligner({})
    tests = [probe.featurize(p.complex, p.simple) for p in pairs]
    margins = [float(m) for m in a.margins.split(",")]
    overrides = {k: json.loads(v) for k, v in (kv.split("=", 1) for kv in a.syn_set)}
    rows = rows_of(["own", "syn"], [["own", "syn"]], margins)
    figs = {r[0]: [] for r in rows}
    t0 = time.time()
    for f, test in enumerate(folds_of(len(pairs), 5, 0)):
        train = [pairs[i] for i in range(len(pairs)) if i not in set(test)]
        rng = random.Random(f)
        syn = [augmented(p, rng, a.drop, 0.0, 0.0, (), 0.0) for p in train]
        both = [x for pair in zip(train, syn) for x in pair]
        base = Path(a.models) / f"fold{f + 1}"
        cands = {
            "own": fold_model(base / "own", train, probe.encoder),
            "syn": fold_model(base / f"add{a.drop}", both, probe.encoder, overrides),
        }
        docs = [Scored(tests[i], cands) for i in test]
        for label, names, m in rows:
            scorer = AlignmentScorer()
            chosen = []
            for i, doc in zip(test, docs):
                name = doc.choose(names, m)
                chosen.append(name)
                scorer.add(pairs[i].gold, doc.beads(name), pairs[i].complex.sentences, pairs[i].simple.sentences)
            s = scorer.scores()
            figs[label].append((s["link"]["f"], s["bead_text"]["f"]))
            n_syn = sum(c != "own" for c in chosen)
            print(
                f"fold {f + 1} {label}: link {s['link']['f']:.3f} bead-text {s['bead_text']['f']:.3f}"
                f" (other CRF chosen for {n_syn}/{len(test)})",
                flush=True,
            )
    for label, *_ in rows:
        lf, bf = np.mean(figs[label], axis=0)
        folds = " / ".join(f"{x[0]:.3f}" for x in figs[label])
        print(f"drop {a.drop} {label}: CV mean link {lf:.3f} bead-text {bf:.3f}; folds link {folds}")
    print(f"({time.time() - t0:.0f} s)")


def _train_job(job):
    """Train and save one LODO model (skipped when saved already): (folder, pair indices, drop or None)."""
    folder, idx, drop = job
    path = Path(folder)
    if (path / "config.json").exists():
        return folder
    pool, encoder = LODO_STATE["pool"], LODO_STATE["encoder"]
    train = [pool[i] for i in idx]
    if drop is not None:
        rng = random.Random(0)
        syn = [augmented(p, rng, drop, 0.0, 0.0, (), 0.0) for p in train]
        train = [x for pair in zip(train, syn) for x in pair]
    train_aligner(train, {}, settings=TrainingSettings(), encoder=encoder).save(str(path))
    return folder


LODO_STATE: Dict = {}


def choose_by(scores: Dict[str, float], margins: Dict[str, float]) -> str:
    """The own CRF unless another is surer by its own margin; the surest of those (with the key
    "first": the first of them in the dict's order instead)."""
    first = margins.get("first", False)
    surer = [n for n, m in margins.items() if n != "first" and scores[n] < scores["own"] - m]
    if not surer:
        return "own"
    return surer[0] if first else min(surer, key=lambda n: scores[n])


def domain_models(models: Path, domain: str, is_website: bool, drops=()) -> Dict[str, Path]:
    """The folders of lodo's models for a held-out domain: the own CRF (DEplain-web without it: all
    of DEplain-web for a website), the wide one and the synthetic ones of each drop rate."""
    key = "all" if is_website else f"no-{domain}"
    folders = {"own": models / f"own-{key}", "wide": models / f"wide-no-{domain}"}
    folders.update({f"syn{drop}": models / f"syn{drop}-{key}" for drop in drops})
    return folders


def german_pool():
    """(DEplain-web dev's and sgc-dev's training pairs, the domain of each, the websites' domains)."""
    domain, pool = read_gold_pairs(str(DEPLAIN))
    website, sgc = read_gold_pairs(str(SGC))
    return pool + sgc, domain + website, set(website)


def held_out_domains(models: Path, encoder, drops=()):
    """Per held-out domain of the 8, with lodo's saved models: (domain, whether it is a website, its
    test pairs, the candidates named as domain_models names them, each CRF alone)."""
    pool, domain, websites = german_pool()
    for d in dict.fromkeys(domain):
        cands = {
            name: lone(CRFAligner.load(str(folder), encoder=encoder))
            for name, folder in domain_models(models, d, d in websites, drops).items()
        }
        yield d, d in websites, [pool[i] for i in range(len(pool)) if domain[i] == d], cands


def lodo(a) -> None:
    import multiprocessing as mp

    import torch

    torch.set_num_threads(1)
    pool, domain, websites = german_pool()
    nd = sum(d not in websites for d in domain)
    probe = CRFAligner({})
    LODO_STATE.update(pool=pool, encoder=probe.encoder)
    drops = [float(d) for d in a.drops.split(",")]
    models = Path(a.models)
    units = []  # (name, test indices, own CRF's training indices, wide CRF's, model key)
    for f, test in enumerate(folds_of(nd, 5, 0)):
        train = [i for i in range(nd) if i not in set(test)]
        units.append((f"cv fold {f + 1}", test, train, train + list(range(nd, len(pool))), f"fold{f + 1}"))
    for d in dict.fromkeys(domain):
        test = [i for i in range(len(pool)) if domain[i] == d]
        own_idx = [i for i in range(nd) if domain[i] != d]
        units.append((d, test, own_idx, [i for i in range(len(pool)) if domain[i] != d], None))
    jobs, plan = [], {}
    for name, test, own_idx, wide_idx, fold in units:
        if fold:
            plan[name] = {"own": models / f"own-{fold}", "wide": models / f"wide-{fold}"}
            plan[name].update({f"syn{drop}": models / f"syn{drop}-{fold}" for drop in drops})
        else:
            plan[name] = domain_models(models, name, name in websites, drops)
        jobs += [(str(plan[name]["own"]), own_idx, None), (str(plan[name]["wide"]), wide_idx, None)]
        jobs += [(str(plan[name][f"syn{drop}"]), own_idx, drop) for drop in drops]
    jobs = list({j[0]: j for j in jobs}.values())
    t0 = time.time()
    with mp.get_context("fork").Pool(a.jobs) as workers:
        workers.map(_train_job, jobs, chunksize=1)
    print(f"{len(jobs)} models trained or reused ({time.time() - t0:.0f} s)", flush=True)
    overrides = {k: json.loads(v) for k, v in (kv.split("=", 1) for kv in a.syn_set)}
    margins = [float(m) for m in a.margins.split(",")]
    rows = [("own alone", {}), ("own + wide (0.1): shipped", {"wide": 0.1})]
    for drop in drops:
        for m in margins:
            rows.append((f"own + syn{drop} ({m:g})", {f"syn{drop}": m}))
            rows.append((f"own + wide (0.1) + syn{drop} ({m:g})", {"wide": 0.1, f"syn{drop}": m}))
            rows.append(
                (f"own + syn{drop} ({m:g}) first, then wide (0.1)", {f"syn{drop}": m, "wide": 0.1, "first": True})
            )
    held = {r[0]: {} for r in rows}  # per unit: (link F1, bead-text F1)
    picks = {r[0]: [{}, {}] for r in rows}  # CV, leave-one-out
    sgc_pooled = {r[0]: AlignmentScorer() for r in rows}
    for name, test, *_ in units:
        cands = {
            n: lone(CRFAligner.load(str(f), encoder=probe.encoder, overrides=overrides if n.startswith("syn") else {}))
            for n, f in plan[name].items()
        }
        docs = [Scored(probe.featurize(pool[i].complex, pool[i].simple), cands) for i in test]
        in_cv = name.startswith("cv fold")
        for label, ms in rows:
            scorer = AlignmentScorer()
            for i, doc in zip(test, docs):
                chosen = choose_by(doc.score, ms)
                tally = picks[label][0 if in_cv else 1]
                tally[chosen] = tally.get(chosen, 0) + 1
                for sc in [scorer] + ([sgc_pooled[label]] if domain[i] in websites and not in_cv else []):
                    sc.add(pool[i].gold, doc.beads(chosen), pool[i].complex.sentences, pool[i].simple.sentences)
            sc = scorer.scores()
            held[label][name] = (sc["link"]["f"], sc["bead_text"]["f"])
        print(f"{name}: " + "; ".join(f"{label} {held[label][name][1]:.3f}" for label, _ in rows), flush=True)
    folds = [u[0] for u in units if u[0].startswith("cv fold")]
    domains = [u[0] for u in units if not u[0].startswith("cv fold")]
    print(
        "\nCV: mean of the 5 folds, link / bead-text F1; held out: bead-text F1, mean of the 8 domains, the 6 websites pooled"
    )
    print(
        "| candidates (margin) | CV link / bead-text | CV folds, link | 8-domain mean | websites pooled | "
        + " | ".join(domains)
        + " | picks CV; held out |"
    )
    for label, _ in rows:
        cv_link, cv_bt = (np.mean([held[label][f][k] for f in folds]) for k in (0, 1))
        fold_links = " / ".join(f"{held[label][f][0]:.3f}" for f in folds)
        mean = np.mean([held[label][d][1] for d in domains])
        web = sgc_pooled[label].scores()["bead_text"]["f"]
        cells = " | ".join(f"{held[label][d][1]:.3f}" for d in domains)
        print(
            f"| {label} | {cv_link:.3f} / {cv_bt:.3f} | {fold_links} | {mean:.3f} | {web:.3f} | {cells} | {picks[label][0]}; {picks[label][1]} |"
        )
    print(f"({time.time() - t0:.0f} s)")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=("wm", "cv", "lodo"))
    ap.add_argument("--drops", default="0.2,0.3", help="lodo: the synthetic CRFs' drop rates")
    ap.add_argument("--jobs", type=int, default=2, help="lodo: models trained in parallel (forked processes)")
    ap.add_argument("--syn", default=None)
    ap.add_argument("--wide-of", default=None)
    ap.add_argument("--drop", type=float, default=0.4)
    ap.add_argument("--models", default="/tmp/null_choice")
    ap.add_argument("--margins", default="0.1")
    ap.add_argument("--syn-set", action="append", default=[], help="key=value, a setting of the synthetic-data CRF")
    ap.add_argument(
        "--syn-alt", action="append", default=[], help="wm: key=value, the --syn CRF with it as one more candidate"
    )
    ap.add_argument("--folds", action="store_true", help="wm: the margin chosen by document folds")
    ap.add_argument("--paragraphs", action="store_true", help="wm: JiangWikiParagraphs.v1's links first")
    add_output_option(ap)
    a = ap.parse_args(argv)
    {"wm": wm, "cv": cv, "lodo": lodo}[a.what](a)
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
