"""Leave one domain out over 8 domains, before and after training the CRF on the Simple German
Corpus beside DEplain-web (issue 24): the two DEplain-web dev corpora (the `corpus` field:
Alumniportal, bible) and the 6 websites of sgc-dev (the `website` field). For each domain held
out, link and bead-text F1 and per gold bead shape the link recall and exact bead recall on it:

- before: the shipped recipe, DEplain-web only (a DEplain corpus held out: trained on the other
  corpus; a website held out: on all 82 DEplain documents, one model for the 6 websites);
- after: trained on the other 7 domains, the sgc-dev documents as linked-only pairs
  (TrainingPair.linked_only: they teach which sentences go together, not nulls, and calibrate
  neither the combination nor the bead decoder); `--sgc-supervision full` trains on them as
  ordinary gold instead (the ablation: what learning "nothing is unaligned" from them does).

sgc-dev holds only linked sentences, so its held-out figures reward aligning everything; the
DEplain rows are the ones with nulls to find.

    SPACY_SIMALIGN_CACHE=.cache/emb .venv/bin/python -m spacy project run eval-crf-lodo8
    SPACY_SIMALIGN_CACHE=.cache/emb .venv/bin/python project/eval_crf_lodo8.py \
        [--jobs 1] [--skip before] [--sgc-supervision full] [--json out.json] \
        [--set clauses=true] [--set training.linked_only_weight=0.3]
"""

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Dict, List

import numpy as np

from spacy_simalign.evaluation.crossval import read_gold_pairs
from spacy_simalign.evaluation.report import add_output_option, add_set_option, run_main, write_json
from spacy_simalign.evaluation.tally import SHAPES, Tally
from spacy_simalign.evaluation.training_runs import prepare_runs, run_training, split_settings

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
DEPLAIN = DATA / "deplain-web-dev" / "pairs.jsonl"
SGC = DATA / "sgc-dev" / "pairs.jsonl"
STAGES = ("before", "after")


def lodo_jobs(domain: List[str], is_sgc: List[bool], stages, seed: int) -> List:
    """The training runs (name, train indices, test indices, seed): per stage and held-out domain;
    `before` trains on DEplain only, so the websites share one run ("before:sgc")."""
    names = sorted(set(domain), key=lambda d: (is_sgc[domain.index(d)], d))
    jobs = []
    for stage in stages:
        for d in names:
            test = [i for i, x in enumerate(domain) if x == d]
            if stage == "before" and is_sgc[test[0]]:
                continue
            train = [i for i, x in enumerate(domain) if x != d and (stage == "after" or not is_sgc[i])]
            jobs.append((f"{stage}:{d}", train, test, seed))
        if stage == "before" and any(is_sgc):
            sgc = [i for i, s in enumerate(is_sgc) if s]
            jobs.append(("before:sgc", [i for i, s in enumerate(is_sgc) if not s], sgc, seed))
    return jobs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deplain", default=str(DEPLAIN), help="DEplain-web dev pair JSONL (domains: `corpus`)")
    ap.add_argument("--sgc", default=str(SGC), help="sgc-dev pair JSONL (domains: `website`), linked sentences only")
    ap.add_argument(
        "--sgc-supervision",
        choices=("linked-only", "full"),
        default="linked-only",
        help="train on sgc-dev as linked-only pairs (the shipped recipe) or as ordinary gold (the ablation)",
    )
    ap.add_argument("--config", default=None, help="JSON object of CRFAligner config overrides")
    add_set_option(
        ap,
        "an aligner setting (clauses=true) or, as training.KEY, a training setting (training.linked_only_weight=0.3)",
    )
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1, help="training runs in parallel (forked processes)")
    ap.add_argument("--skip", default="", help="comma-separated stages to skip: before, after")
    ap.add_argument("--json", default=None, help="also write the figures to this JSON file")
    add_output_option(ap)
    args = ap.parse_args(argv)
    stages = [s for s in STAGES if s not in set(args.skip.split(","))]
    overrides, training = split_settings(args.set)
    config = {**(json.loads(args.config) if args.config else {}), **overrides}
    t0 = time.time()
    dp_domain, dp_pairs = read_gold_pairs(args.deplain)
    sgc_domain, sgc_pairs = read_gold_pairs(args.sgc, linked_only=args.sgc_supervision == "linked-only")
    pool, domain = dp_pairs + sgc_pairs, dp_domain + sgc_domain
    is_sgc = [False] * len(dp_pairs) + [True] * len(sgc_pairs)
    prepare_runs(pool, config, args.epochs, args.jobs, training)
    jobs = lodo_jobs(domain, is_sgc, stages, args.seed)
    preds = {}
    for name, test, p in run_training(jobs, args.jobs):
        preds.update({(name.split(":")[0], i): beads for i, beads in zip(test, p)})
    names = sorted(set(domain), key=lambda d: (is_sgc[domain.index(d)], d))
    out: Dict = {
        "config": config,
        "training": training,
        "epochs": args.epochs,
        "seed": args.seed,
        "sgc_supervision": args.sgc_supervision,
        "domains": {},
    }
    for d in names:
        docs = [i for i, x in enumerate(domain) if x == d]
        out["domains"][d] = {"docs": len(docs), "sgc": is_sgc[docs[0]]}
        for stage in stages:
            t = Tally()
            for i in docs:
                t.add(pool[i], preds[(stage, i)])
            out["domains"][d][stage] = t.figures()
    print(
        f"config {json.dumps(config, sort_keys=True)}  training {json.dumps(training, sort_keys=True)}  epochs {args.epochs}  seed {args.seed}  "
        f"sgc-dev supervision {args.sgc_supervision}\n"
    )
    head = "".join(f" {s + ' link':>12s} {'bead-text':>9s}" for s in stages)
    print(f"{'held-out domain':28s} {'docs':>4s}{head}")
    for d in names:
        row = out["domains"][d]
        cells = "".join(f" {row[s]['link']['f']:12.3f} {row[s]['bead_text']['f']:9.3f}" for s in stages)
        print(f"{d[:28]:28s} {row['docs']:4d}{cells}")
    out["mean"] = {
        s: {
            "link_f1": float(np.mean([out["domains"][d][s]["link"]["f"] for d in names])),
            "bead_text_f1": float(np.mean([out["domains"][d][s]["bead_text"]["f"] for d in names])),
        }
        for s in stages
    }
    cells = "".join(f" {out['mean'][s]['link_f1']:12.3f} {out['mean'][s]['bead_text_f1']:9.3f}" for s in stages)
    print(f"{'mean of the ' + str(len(names)) + ' domains':28s} {'':4s}{cells}")
    print("\nper gold bead shape: beads, then link recall / exact bead recall per stage")
    print(f"{'held-out domain':28s}" + "".join(f" {s:>22s}" for s in SHAPES))
    for d in names:
        row = out["domains"][d]
        cells = ""
        for s in SHAPES:
            fig = [row[stage]["shapes"][s] for stage in stages]
            cells += f" {fig[0]['beads']:4d} " + " ".join(
                f"{f['link_recall']:.2f}/{f['exact_recall']:.2f}" for f in fig
            )
        print(f"{d[:28]:28s}{cells}")
    print(f"\n{len(pool)} documents ({len(dp_pairs)} DEplain-web, {len(sgc_pairs)} sgc-dev), {time.time() - t0:.0f} s")
    write_json(args.json, out)
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
