"""The adaptation curve of `adapt` on one gold corpus by document folds: for English, Wiki-Manual dev
(../shared/data/wikimanual-dev, 49 article pairs), scored by its paper's Task 1 protocol.

eval_adapt.py measures the curve on German domains that a base was trained without; this one asks
what a user of another language gets: the shipped weights (DEplain-web CRF with its wide CRF, kept
beside the adapted one as `adapt` keeps it; background DEplain-web dev, adapt's default) adapted on
k gold documents of the corpus, scored on documents adapt did not see. The corpus is cut into F
folds by document (script_options.folds_of, seed --fold-seed: the benchmarks' folds). For each
held-out fold and each draw d, the documents of the other folds are shuffled with random.Random(d):
adapt gets the first k of that order (nested: the k = 2 documents hold the k = 1 one), or all of them (k = all, the draws
differing by the training seed only); adapt's training seed is d. Each document of the corpus is
held out once per draw, so one (k, draw) is one pooled figure over the whole corpus; the table gives
the mean over the draws and their range. k = 0 is the shipped aligner. Every aligner decodes as the
default form (CRFAligner.v3: the word floor of summaries after the CRF; `--form v2`: without). Task 1 (Jiang et al. 2020):
link P/R/F1 with links between identical sentences left out of gold and prediction (`evaluate
--exclude-identical`); link F1 and bead-text F1 are the plain ones. Wiki-Manual's grouping is
CC BY-NC-SA 4.0: weights adapted on it are NonCommercial and are never saved here.

    python -m spacy project run adapt-folds . --vars.run R    # cd benchmarks && spacy project run eval-adapt-wikimanual
    python project/eval_adapt_folds.py GOLD.jsonl [--folds 5] [--only-folds 0] [--ks 0,1,2,4,8,all] \\
        [--draws 0,1,2] [--json metrics/adapt_wikimanual.json] [--output metrics/adapt_wikimanual.md] \\
        [--scores metrics/wikimanual_cv.json]

`--scores` writes the last k's figures (mean over the draws) as the `scores` that project/assemble.py
records as a packaged pipeline's performance: the `wikimanual` workflow's held-out figures of adapt
on every other document, for the pipeline it adapts on all of them."""

import argparse
import dataclasses
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from script_options import add_output_option, add_set_option, folds_of, run_main, write_json

from spacy_simalign.aligners.crf.aligner import DEFAULT_WEIGHTS, CRFAligner
from spacy_simalign.aligners.crf.fine_tuning import AdaptSettings, adapted_aligner, decoding_as_default
from spacy_simalign.aligners.crf.train import featurize_all
from spacy_simalign.aligners.scoring import AlignmentScorer
from spacy_simalign.formats.pair_jsonl import read_pairs

ROOT = Path(__file__).resolve().parent.parent
DEPLAIN = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"
ALL = "all"


def training_pairs(path, lang):
    """The training pairs (sides and gold) of a pair JSONL file with gold."""
    return [record.training_pair(str(path)) for record in read_pairs(str(path), default_lang=lang)]


def scorers():
    """(Task 1 scorer, plain scorer): links without and with the identical pairs, bead-text."""
    return AlignmentScorer(exclude_identical=True), AlignmentScorer()


def figures(task1, plain):
    t, p = task1.scores(), plain.scores()
    return {
        "task1": t["link"],
        "identical_left_out": t["identical_links_left_out"],
        "link": p["link"],
        "bead_text": p["bead_text"],
    }


def parse_ks(text):
    return [k if k == ALL else int(k) for k in text.split(",")]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("gold", help="pair JSONL with gold (Wiki-Manual dev: ../shared/data/wikimanual-dev/pairs.jsonl)")
    ap.add_argument("--lang", default="en", help="language of pairs without a 'lang' field")
    ap.add_argument("--folds", type=int, default=5, help="folds by document")
    ap.add_argument("--fold-seed", type=int, default=0, help="seed of the folds (script_options.folds_of)")
    ap.add_argument("--only-folds", default=None, help="hold out only these folds (comma-separated; to time one)")
    ap.add_argument("--ks", default="0,1,2,4,8,all", help=f"gold documents given to adapt ('{ALL}': every other one)")
    ap.add_argument("--draws", default="0,1,2", help="seeds of the draws of the k documents and of adapt's training")
    ap.add_argument("--base", default=str(DEFAULT_WEIGHTS), help="CRF weights folder adapted (default: shipped)")
    ap.add_argument("--background", default=str(DEPLAIN), help="the base's training data (adapt's --background)")
    ap.add_argument(
        "--wide",
        default="keep",
        choices=("keep", "none"),
        help="keep the base's wide CRF beside the adapted one, as adapt does (keep), or adapt its CRF alone (none)",
    )
    add_set_option(ap, "an AdaptSettings value (epochs=10, repeat=20, learn_rate=0.01)")
    ap.add_argument(
        "--form",
        choices=("v3", "v2"),
        default="v3",
        help="decode as CRFAligner.v3, the default (the word floor of summaries), or as v2 (without)",
    )
    ap.add_argument("--json", default=None, help="also write the figures to this JSON file")
    ap.add_argument("--scores", default=None, help="write the last k's mean figures for assemble.py --metrics")
    add_output_option(ap)
    args = ap.parse_args(argv)
    ks, draws, fixed = parse_ks(args.ks), [int(d) for d in args.draws.split(",")], dict(args.set)
    t0 = time.time()
    pairs = training_pairs(args.gold, args.lang)
    background = training_pairs(args.background, "de")
    probe = CRFAligner.load(args.base)
    tmp = tempfile.TemporaryDirectory()
    if args.wide == "none":  # the base's CRF alone, saved as a folder of its own
        alone = CRFAligner.load(args.base, encoder=probe.encoder)
        alone.attach_wide(None)
        args.base = str(Path(tmp.name) / "alone")
        alone.save(args.base)
    gold_inputs, plain_inputs = featurize_all(probe, pairs), featurize_all(probe, pairs, with_gold=False)
    background_inputs = featurize_all(probe, background)
    print(f"featurized {len(pairs)} gold and {len(background)} background documents in {time.time() - t0:.0f} s")
    folds = folds_of(len(pairs), args.folds, args.fold_seed)
    held_out = range(args.folds) if args.only_folds is None else [int(f) for f in args.only_folds.split(",")]

    def score(aligner, test, pooled):
        if args.form == "v3":  # else as loaded: the CRF alone, as v2
            decoding_as_default(aligner)
        for i in test:
            beads = aligner.align_input(plain_inputs[i])
            for scorer in pooled:
                scorer.add(pairs[i].gold, beads, pairs[i].complex.sentences, pairs[i].simple.sentences)

    runs = {}  # "k" -> [{"draw", "seconds", pooled figures, "folds": [per-fold figures]}]
    base = CRFAligner.load(args.base, encoder=probe.encoder)
    for k in ks:
        for draw in [None] if k == 0 else draws:
            t1, pooled, per_fold = time.time(), scorers(), []
            for f in held_out:
                test = folds[f]
                if k == 0:
                    aligner = base
                    pick = []
                else:
                    order = [i for i in range(len(pairs)) if i not in set(test)]
                    random.Random(draw).shuffle(order)
                    pick = order if k == ALL else order[:k]
                    settings = AdaptSettings(**{"seed": draw, **fixed})
                    aligner = adapted_aligner(
                        args.base,
                        [pairs[i] for i in pick],
                        [gold_inputs[i] for i in pick] if settings.epochs else [],
                        [plain_inputs[i] for i in pick],
                        background_inputs if settings.epochs else [],
                        settings,
                        probe.encoder,
                    )
                own = scorers()
                score(aligner, test, [*pooled, *own])
                per_fold.append({"fold": f, "adapted_on": [pairs[i].id for i in pick], **figures(*own)})
            run = {"draw": draw, "seconds": round(time.time() - t1, 1), **figures(*pooled), "folds": per_fold}
            runs.setdefault(str(k), []).append(run)
            print(
                f"k={k} draw={draw}: Task 1 link F1 {run['task1']['f']:.3f} (P {run['task1']['p']:.3f} R "
                f"{run['task1']['r']:.3f}), link F1 {run['link']['f']:.3f}, bead-text F1 {run['bead_text']['f']:.3f}, "
                f"{run['seconds']:.0f} s",
                flush=True,
            )
    n_test = sum(len(folds[f]) for f in held_out)
    print(
        f"\n{args.gold}: {len(pairs)} documents, {args.folds} folds by document (seed {args.fold_seed}), held out: "
        f"folds {', '.join(str(f) for f in held_out)} ({n_test} documents); draws {draws}; base {args.base}"
        + (" (its CRF alone: no wide CRF)" if args.wide == "none" else "")
        + f"; decoded as CRFAligner.{args.form}"
    )
    print(f"settings: {dataclasses.asdict(AdaptSettings(**fixed))} (seed = the draw)\n")
    print("| k | Task 1 link F1: mean (range) | Task 1 P / R | link F1 | bead-text F1 | draws | s per draw |")
    print("|---|---|---|---|---|---|---|")
    for k, rows in runs.items():

        def mean(metric, key="f"):
            return statistics.mean(r[metric][key] for r in rows)

        t1 = [r["task1"]["f"] for r in rows]
        spread = f" ({min(t1):.3f}-{max(t1):.3f})" if len(rows) > 1 else ""
        label = "0 (shipped)" if k == "0" else ("all others" if k == ALL else k)
        print(
            f"| {label} | {mean('task1'):.3f}{spread} | {mean('task1', 'p'):.3f} / {mean('task1', 'r'):.3f} | "
            f"{mean('link'):.3f} | {mean('bead_text'):.3f} | {len(rows)} | "
            f"{statistics.mean(r['seconds'] for r in rows):.0f} |"
        )
    print(f"\n{time.time() - t0:.0f} s")
    if args.scores:
        k, rows = list(runs.items())[-1]
        flat = {
            f"align_{name}_{key}": round(statistics.mean(r[metric][key] for r in rows), 4)
            for name, metric in (("task1_link", "task1"), ("link", "link"), ("bead_text", "bead_text"))
            for key in ("p", "r", "f")
        }
        what = (
            f"adapt on {'every other document' if k == ALL else f'{k} other documents'}, {args.folds} folds by "
            f"document of {Path(args.gold).name}, mean of {len(rows)} draw(s); task1_link: identical pairs left out"
        )
        write_json(args.scores, {"scores": flat, "k": k, "documents": n_test, "evaluation": what})
    settings = dataclasses.asdict(AdaptSettings(**fixed))
    write_json(
        args.json,
        {
            "gold": str(args.gold),
            "folds": folds,
            "held_out": list(held_out),
            "fold_seed": args.fold_seed,
            "draws": draws,
            "settings": settings,
            "wide": args.wide,
            "form": args.form,
            "runs": runs,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
