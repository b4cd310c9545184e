"""One table of the CRF aligner across domains and languages, for a given CRF config:

1. 5-fold cross-validation by document on DEplain-web dev (the folds of benchmarks/scripts/cv_crf.py,
   gold_folds.py):
   link P/R/F1 and bead-text P/R/F1, mean of folds and pooled, and pooled per corpus;
2. leave one domain out, both ways: train on the 71 Alumniportal documents and test on the
   11 bible documents, and the reverse;
3. from the cross-validated predictions: per gold bead shape (1:1, 1:2, 1:3+, n:m with n >= 2
   complex sentences) the link recall and the exact bead recall, and the share of wrong
   predicted links whose simple sentence is an addition (in no gold bead) or whose complex
   sentence is a deletion;
4. Text+Berg de-fr dev article: the model trained on all DEplain documents (what
   project/train_crf.py ships) and, with --translation-gold, the 2-fold figure by halves of
   the article (cut where no gold bead crosses; each half's model trains on DEplain and the
   other half): link P/R/F1 and strict bead P/R/F1 (a predicted bead counts only if it
   equals a gold bead, Bleualign's "strict").

    cd benchmarks && SPACY_SIMALIGN_CACHE=../.cache/emb spacy project run eval-crf-domains
    SPACY_SIMALIGN_CACHE=.cache/emb PYTHONPATH=benchmarks/helpers .venv/bin/python benchmarks/scripts/eval_crf_domains.py \
        [--config '{"...": ...}'] [--epochs N] [--jobs 2] [--json out.json] [--translation-gold]

Training runs (5 folds, 2 domains, 1 full, 2 halves) are independent; --jobs runs them in
forked processes (same results: every run is seeded)."""

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Dict, List

import numpy as np
from gold_folds import BIBLE, PORTAL, folds_of, read_gold_pairs
from script_output import add_output_option, run_main, write_json
from training_runs import prepare_runs, run_training

from spacy_simalign.core.structures import Bead, Side, TrainingPair
from spacy_simalign.evaluation.tally import SHAPES, Tally

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"
DEPLAIN = DATA / "deplain-web-dev" / "pairs.jsonl"
TEXTBERG = DATA / "textberg-dev-de-fr" / "pairs.jsonl"


def textberg_halves(pair: TrainingPair) -> List[TrainingPair]:
    """The article cut in two where no gold bead crosses, as near the middle of the complex side
    as possible; sentences re-indexed in each half."""
    nc, ns = len(pair.complex), len(pair.simple)
    best = None
    for cc in range(1, nc):
        # the simple cut: every bead with complex < cc must have simple < cs, every other >= cs
        left = [b for b in pair.gold if max(b.complex) < cc]
        right = [b for b in pair.gold if min(b.complex) >= cc]
        if len(left) + len(right) != len(pair.gold):
            continue
        lo = max((max(b.simple) + 1 for b in left), default=0)
        hi = min((min(b.simple) for b in right), default=ns)
        if lo > hi:
            continue
        cs = (lo + hi) // 2
        if best is None or abs(cc - nc / 2) < abs(best[0] - nc / 2):
            best = (cc, cs)
    cc, cs = best
    halves = []
    for (c0, c1), (s0, s1), tag in (((0, cc), (0, cs), "a"), ((cc, nc), (cs, ns), "b")):
        gold = [
            Bead(tuple(c - c0 for c in b.complex), tuple(s - s0 for s in b.simple))
            for b in pair.gold
            if c0 <= min(b.complex) < c1
        ]
        halves.append(
            TrainingPair(
                Side.from_paragraphs([pair.complex.sentences[c0:c1]], pair.complex.lang),
                Side.from_paragraphs([pair.simple.sentences[s0:s1]], pair.simple.lang),
                gold,
                id=f"{pair.id}-{tag}",
            )
        )
    return halves


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=None, help="JSON object of CRFAligner config overrides")
    ap.add_argument(
        "--epochs",
        type=int,
        default=None,
        help="CRF training epochs (default: the training default, TrainingSettings.epochs)",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--train-seed",
        type=int,
        default=None,
        help="seed of the training runs only (default: --seed, which also draws the folds)",
    )
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=1, help="training runs in parallel (forked processes)")
    ap.add_argument(
        "--translation-gold",
        action="store_true",
        help="train on the Text+Berg gold too: DEplain runs add the whole article, Text+Berg is "
        "then scored 2-fold by halves",
    )
    ap.add_argument("--skip", default="", help="comma-separated parts to skip: cv, lodo, textberg")
    ap.add_argument("--json", default=None, help="also write the figures to this JSON file")
    ap.add_argument("--predictions", default=None, help="write every run's predicted beads to this JSON file")
    ap.add_argument("--deplain", default=str(DEPLAIN), help="DEplain-web dev pair JSONL")
    ap.add_argument("--textberg", default=str(TEXTBERG), help="Text+Berg de-fr dev pair JSONL")
    add_output_option(ap)
    args = ap.parse_args(argv)
    if args.epochs is None:
        from spacy_simalign.aligners.crf.train import TrainingSettings

        args.epochs = TrainingSettings().epochs
    skip = set(filter(None, args.skip.split(",")))
    config = json.loads(args.config) if args.config else {}
    t0 = time.time()
    corpus, pairs = read_gold_pairs(args.deplain)
    _, (tb,) = read_gold_pairs(args.textberg)
    halves = textberg_halves(tb)
    # one pool of documents, featurized once: DEplain 0..81, Text+Berg whole, half a, half b
    pool = pairs + [tb] + halves
    i_tb, i_ha, i_hb = len(pairs), len(pairs) + 1, len(pairs) + 2
    prepare_runs(pool, config, args.epochs, args.jobs)
    train_seed = args.seed if args.train_seed is None else args.train_seed
    extra = [i_tb] if args.translation_gold else []
    all_dp = list(range(len(pairs)))
    jobs = []
    folds = folds_of(len(pairs), args.folds, args.seed)
    if "cv" not in skip:
        for f, test in enumerate(folds):
            jobs.append((f"fold{f + 1}", [i for i in all_dp if i not in set(test)] + extra, test, train_seed))
    if "lodo" not in skip:
        portal = [i for i in all_dp if corpus[i] == PORTAL]
        bible = [i for i in all_dp if corpus[i] == BIBLE]
        jobs.append(("portal->bible", portal + extra, bible, train_seed))
        jobs.append(("bible->portal", bible + extra, portal, train_seed))
    if "textberg" not in skip:
        jobs.append(("deplain->textberg", all_dp, [i_tb, i_ha, i_hb], train_seed))
        if args.translation_gold:
            jobs.append(("halves b->a", all_dp + [i_hb], [i_ha], train_seed))
            jobs.append(("halves a->b", all_dp + [i_ha], [i_hb], train_seed))
    results = run_training(jobs, args.jobs)
    preds = {name: dict(zip(test, p)) for name, test, p in results}
    out: Dict = {
        "config": config,
        "epochs": args.epochs,
        "seed": args.seed,
        "train_seed": train_seed,
        "translation_gold": args.translation_gold,
    }

    def tally(items):
        t = Tally()
        for i, beads in items:
            t.add(pool[i], beads)
        return t.figures()

    def row(name, fig, note=""):
        lk, bt, st = fig["link"], fig["bead_text"], fig["strict"]
        print(
            f"{name:30s} {fig['docs']:4d} {lk['p']:6.3f} {lk['r']:6.3f} {lk['f']:6.3f}   "
            f"{bt['p']:6.3f} {bt['r']:6.3f} {bt['f']:6.3f}   {st['f']:6.3f} {note}"
        )

    print(
        f"config {json.dumps(config, sort_keys=True)}  epochs {args.epochs}  seed {args.seed}  "
        f"training seed {train_seed}  "
        f"translation gold {'yes' if args.translation_gold else 'no'}"
    )
    print(
        f"\n{'protocol':30s} {'docs':>4s} {'link P':>6s} {'R':>6s} {'F1':>6s}   {'bt P':>6s} {'R':>6s} {'F1':>6s}"
        f"   {'strict':>6s}"
    )
    if "cv" not in skip:
        fold_figs = [tally(preds[f"fold{f + 1}"].items()) for f in range(len(folds))]
        held = {i: b for f in range(len(folds)) for i, b in preds[f"fold{f + 1}"].items()}
        out["cv_folds"] = fold_figs
        out["cv_mean"] = {
            "link_f1": float(np.mean([x["link"]["f"] for x in fold_figs])),
            "bead_text_f1": float(np.mean([x["bead_text"]["f"] for x in fold_figs])),
        }
        out["cv_pooled"] = tally(held.items())
        out["cv_corpus"] = {c: tally((i, b) for i, b in held.items() if corpus[i] == c) for c in (PORTAL, BIBLE)}
        for f, fig in enumerate(fold_figs):
            row(f"CV fold {f + 1}", fig)
        print(
            f"{'CV mean of folds':30s} {'':4s} {'':6s} {'':6s} {out['cv_mean']['link_f1']:6.3f}   {'':6s} {'':6s} "
            f"{out['cv_mean']['bead_text_f1']:6.3f}"
        )
        row("CV pooled", out["cv_pooled"])
        for c, fig in out["cv_corpus"].items():
            row(f"CV held out, {c}", fig)
    if "lodo" not in skip:
        out["portal_to_bible"] = tally(preds["portal->bible"].items())
        out["bible_to_portal"] = tally(preds["bible->portal"].items())
        row("train portal, test bible", out["portal_to_bible"])
        row("train bible, test portal", out["bible_to_portal"])
    if "textberg" not in skip:
        out["textberg"] = tally([(i_tb, preds["deplain->textberg"][i_tb])])
        out["textberg_halves_deplain"] = tally((i, preds["deplain->textberg"][i]) for i in (i_ha, i_hb))
        row("Text+Berg, DEplain model", out["textberg"])
        row("  the same, on the two halves", out["textberg_halves_deplain"])
        if args.translation_gold:
            out["textberg_halves"] = tally(list(preds["halves b->a"].items()) + list(preds["halves a->b"].items()))
            row(
                "Text+Berg, 2-fold by halves",
                out["textberg_halves"],
                f"(halves {len(halves[0].complex)}/{len(halves[0].simple)} + "
                f"{len(halves[1].complex)}/{len(halves[1].simple)})",
            )
    if "cv" not in skip:
        print("\nerror analysis of the CV predictions, by corpus: gold beads, link recall, exact bead recall")
        print(f"{'shape':12s}" + "".join(f" {c[:12]:>26s}" for c in ("all",) + (PORTAL, BIBLE)))
        figs = [out["cv_pooled"]] + [out["cv_corpus"][c] for c in (PORTAL, BIBLE)]
        for s in SHAPES:
            print(
                f"{s:12s}"
                + "".join(
                    f" {f['shapes'][s]['beads']:8d} {f['shapes'][s]['link_recall']:8.3f} "
                    f"{f['shapes'][s]['exact_recall']:8.3f}"
                    for f in figs
                )
            )
        print(
            "wrong links: "
            + ", ".join(
                f"{n} {f['wrong_links']} (simple side added {f['wrong_share_added']:.2f}, "
                f"complex side deleted {f['wrong_share_deleted']:.2f})"
                for n, f in zip(("all", "portal", "bible"), figs)
            )
        )
    if "lodo" not in skip:
        f = out["portal_to_bible"]
        print(
            "portal->bible shapes: "
            + ", ".join(f"{s} {f['shapes'][s]['link_recall']:.3f}/{f['shapes'][s]['exact_recall']:.3f}" for s in SHAPES)
        )
    if "textberg" not in skip:
        for key in ("textberg", "textberg_halves"):
            if key in out:
                f = out[key]
                print(
                    f"{key} shapes: "
                    + ", ".join(
                        f"{s} {f['shapes'][s]['link_recall']:.3f}/{f['shapes'][s]['exact_recall']:.3f}" for s in SHAPES
                    )
                )
    print(f"\n{time.time() - t0:.0f} s")
    write_json(args.json, out)
    if args.predictions:
        Path(args.predictions).write_text(
            json.dumps(
                {
                    name: {
                        str(i): [[list(b.complex), list(b.simple), round(b.score, 4)] for b in beads]
                        for i, beads in p.items()
                    }
                    for name, p in preds.items()
                }
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
