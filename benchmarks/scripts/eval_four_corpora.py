"""The default CRF aligner on the four simplification gold corpora, each held out in turn: what it
scores on a corpus where nothing of it was fitted or chosen.

A DEplain-web dev (the portal and the bible) by 5-fold CV by document (the folds of cv-crf), each
fold's pair of CRFs trained as the shipped ones are: the own CRF on the other folds, the wide CRF
(crf/choice.py) on the other folds and D. B DEplain-web's other corpora (fiction, fairy tales,
health pages) and C Wiki-Manual dev (English) with the shipped weights, trained on A and D. D sgc-dev
with the pair trained without D: the wide CRF's data is then A, the own CRF's, so the pair is the own
CRF alone (same documents, same seed: the same weights, never surer than itself). Each trained model
decodes its held-out documents in every form asked for (v3: the default, with the word floor of
summaries; v2: without it): the forms share the trained models.

Per held-out corpus: pooled link P/R/F1, bead-text F1, for C also Task 1 link F1 (identical pairs
left out), and the errors counted in links: (a) missed gold links, (b) false links on a simple
sentence with no counterpart (in no gold bead), (c) false links on a simple sentence whose
counterpart is elsewhere; and the candidate ceiling, the share of gold links among the CRF's
candidates in either direction (what the CRF could find at best). --grid: decode-time settings
chosen by the protocol, each on the three other corpora and reported on the held-out one.

    cd benchmarks && SPACY_SIMALIGN_CACHE=../.cache/emb python -m spacy project run eval-four-corpora
    SPACY_SIMALIGN_CACHE=.cache/emb PYTHONPATH=benchmarks/helpers .venv/bin/python \\
        benchmarks/scripts/eval_four_corpora.py [--forms v3,v2] [--grid] [--jobs 1] [--json F] [--output F]"""

import argparse
import contextlib
import math
import sys
import time
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from gold_folds import folds_of, read_gold_pairs
from script_output import add_output_option, run_main, write_json
from training_runs import RUN_STATE, map_runs, prepare_runs

from spacy_simalign.aligners.crf.aligner import CRFAligner, make_crf_aligner_v3, train_aligner
from spacy_simalign.aligners.crf.summaries import SUMMARY_WORD_FLOOR
from spacy_simalign.aligners.crf.train import TrainingSettings, featurize_all
from spacy_simalign.aligners.scoring import AlignmentScorer, links_of
from spacy_simalign.similarity.blas_threads import one_blas_thread

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"
# key, default path, what it is, how it is held out
CORPORA = (
    ("A", ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl", "DEplain-web dev", "5-fold CV"),
    ("B", SHARED / "deplain-web-domains" / "pairs.jsonl", "DEplain-web domains", "shipped"),
    ("C", SHARED / "wikimanual-dev" / "pairs.jsonl", "Wiki-Manual dev", "shipped"),
    ("D", SHARED / "sgc-dev" / "pairs.jsonl", "sgc-dev", "trained without D"),
)
FORMS = {"v3": {"summary_word_floor": SUMMARY_WORD_FLOOR}, "v2": {"summary_word_floor": 0.0}}
# the decode-time settings of --grid, each varied alone around v3 (inf wide_margin: no wide CRF)
GRID = {
    "threshold": (0.4, 0.5, 0.6),
    "bead_threshold": (0.4, 0.5, 0.6),
    "link_floor": (0.01, 0.05),
    "wide_margin": (0.0, 0.1, 0.2, math.inf),
    "summary_word_floor": (0.0, 0.2, 0.3, 0.4),
}
V3 = {"threshold": 0.5, "bead_threshold": 0.5, "link_floor": 0.01, "wide_margin": 0.1}


def variants(forms: Sequence[str], grid: bool) -> Dict[str, Dict]:
    """The decodings asked for: label -> settings over v3's (FORMS, and with `grid` one per GRID value)."""
    out = {form: dict(FORMS[form]) for form in forms}
    if grid:
        for name, values in GRID.items():
            for value in values:
                out[f"{name}={value:g}"] = {**FORMS["v3"], name: value}
    return out


@contextlib.contextmanager
def decoding(aligner: CRFAligner, settings: Dict):
    """The aligner (and its wide CRF, which decodes with its own config) with `settings` for a block:
    summary_word_floor is an attribute, wide_margin inf turns the wide CRF off, the rest config."""
    wide = aligner.wide
    parts = [a for a in (aligner, wide) if a is not None]
    saved = [dict(a.config) for a in parts], aligner.summary_word_floor, aligner.wide_allowed
    for name, value in settings.items():
        if name == "summary_word_floor":
            aligner.summary_word_floor = value
        elif name == "wide_margin" and math.isinf(value):
            aligner.wide_allowed = False
        else:
            for a in parts:
                a.config[name] = value
    try:
        yield aligner
    finally:
        for a, config in zip(parts, saved[0]):
            a.config = config
        aligner.summary_word_floor, aligner.wide_allowed = saved[1], saved[2]


def _model(kind, own, wide) -> CRFAligner:
    """The held-out model of a job: the shipped weights (v3's settings), or a fresh pair trained on
    the pool's documents `own` and `wide` (wide None: the own CRF alone), as train_crf.py trains them."""
    if kind == "shipped":
        return make_crf_aligner_v3(similarity=RUN_STATE["encoder"])
    st = RUN_STATE
    settings = TrainingSettings(seed=st["seed"])

    def trained(idx):
        return train_aligner(
            [st["pool"][i] for i in idx],
            epochs=st["epochs"],
            settings=settings,
            encoder=st["encoder"],
            inputs=[st["train_inputs"][i] for i in idx],
        )

    aligner = trained(own)
    if wide is not None:
        pair = trained(wide)
        aligner.attach_wide(lambda _: pair)
    aligner.summary_word_floor = SUMMARY_WORD_FLOOR  # as CRFAligner.v3
    return aligner


def _decode(job):
    """One held-out model: (name, corpus key, document indices, {variant: beads per document})."""
    name, kind, own, wide, key, test = job
    t0 = time.time()
    aligner = _model(kind, own, wide)
    t1 = time.time()
    inputs = RUN_STATE["test_by_corpus"][key]
    out = {}
    with one_blas_thread():  # the bits of the align command
        for label, settings in RUN_STATE["variants"].items():
            with decoding(aligner, settings):
                out[label] = [aligner.align_input(inputs[i]) for i in test]
    print(f"{name}: model {t1 - t0:.0f} s, {len(out)} decodings {time.time() - t1:.0f} s", file=sys.stderr, flush=True)
    return name, key, test, out


def error_classes(pair, beads) -> Tuple[int, int, int, int]:
    """(gold links, (a) missed, (b) false links on a simple sentence in no gold bead, (c) false
    links on a simple sentence whose counterpart is elsewhere) of one document, in links."""
    gold, pred = pair.links, links_of(beads)
    linked = {s for _, s in gold}
    false = pred - gold
    no_counterpart = sum(s not in linked for _, s in false)
    return len(gold), len(gold - pred), no_counterpart, len(false) - no_counterpart


def candidate_hits(pair, x) -> int:
    """How many gold links of a document lie among the CRF's candidates (DirectionInput.cand) of
    the simple->complex or the complex->simple direction."""
    s2c = [set(row[row >= 0].tolist()) for row in x.s2c.cand]
    c2s = [set(row[row >= 0].tolist()) for row in x.c2s.cand]
    return sum(c in s2c[s] or s in c2s[c] for c, s in pair.links)


def figures(key, pairs, preds, ceiling) -> Dict:
    """The row of one held-out corpus and decoding: pooled link and bead-text figures, Task 1 link
    F1 (C), the error classes and the candidate ceiling."""
    scorer, task1 = AlignmentScorer(), AlignmentScorer(exclude_identical=True)
    counts = [0, 0, 0, 0]
    for pair, beads in zip(pairs, preds):
        for scored in (scorer, task1):
            scored.add(pair.gold, beads, pair.complex.sentences, pair.simple.sentences)
        counts = [a + b for a, b in zip(counts, error_classes(pair, beads))]
    s = scorer.scores()
    row = {
        "docs": len(pairs),
        "link": s["link"],
        "bead_text_f": s["bead_text"]["f"],
        "gold_links": counts[0],
        "missed": counts[1],
        "false_no_counterpart": counts[2],
        "false_counterpart_elsewhere": counts[3],
        "candidate_ceiling": round(ceiling, 4),
    }
    if key == "C":
        row["task1_link_f"] = task1.scores()["link"]["f"]
    return row


def print_table(title: str, rows: Dict[str, Dict], held: Dict[str, str]) -> None:
    print(f"\n{title}")
    head = (
        f"{'held out':<28} {'docs':>4} {'link P':>7} {'R':>6} {'F1':>6} {'bead-text':>9} {'Task 1':>7} "
        f"{'gold links':>10} {'(a) missed':>10} {'(b) no cp.':>10} {'(c) elsewh.':>11} {'cand. ceiling':>13}"
    )
    print(head)
    for key, r in rows.items():
        task1 = f"{r['task1_link_f']:.3f}" if "task1_link_f" in r else "-"
        print(
            f"{key + ' ' + held[key]:<28} {r['docs']:>4} {r['link']['p']:>7.3f} {r['link']['r']:>6.3f} "
            f"{r['link']['f']:>6.3f} {r['bead_text_f']:>9.3f} {task1:>7} {r['gold_links']:>10} "
            f"{r['missed']:>10} {r['false_no_counterpart']:>10} {r['false_counterpart_elsewhere']:>11} "
            f"{r['candidate_ceiling']:>13.3f}"
        )


def choice_score(row: Dict) -> float:
    """What --grid maximises on the three other corpora: the mean of pooled link F1 and bead-text F1."""
    return (row["link"]["f"] + row["bead_text_f"]) / 2


def print_grid(results: Dict[str, Dict[str, Dict]], keys: Sequence[str]) -> Dict:
    """Per setting of GRID and held-out corpus: the value chosen on the three others (mean over
    them of choice_score; a tie keeps v3's value), its held-out link / bead-text F1 beside v3's."""
    print(
        "\n--grid: each setting chosen on the three other corpora (mean of their link F1 and bead-text F1), "
        "reported on the held-out one; link F1 / bead-text F1 (C: Task 1 link F1 too)"
    )
    out: Dict = {}
    for name, values in GRID.items():
        default = SUMMARY_WORD_FLOOR if name == "summary_word_floor" else V3[name]
        print(f"\n{name} (v3: {default:g}); per value, held-out link / bead-text of each corpus:")
        for value in values:
            label = f"{name}={value:g}"
            print(
                f"  {value:<6g} "
                + "  ".join(
                    f"{k} {results[k][label]['link']['f']:.3f} / {results[k][label]['bead_text_f']:.3f}" for k in keys
                )
            )
        out[name] = {}
        for held in keys:
            others = [k for k in keys if k != held]
            score = {v: sum(choice_score(results[k][f"{name}={v:g}"]) for k in others) / 3 for v in values}
            best = max(score.values())
            tied = [v for v in values if abs(score[v] - best) < 5e-4]
            chosen = default if default in tied else tied[0]
            row, base = results[held][f"{name}={chosen:g}"], results[held]["v3"]
            tie = f" (tie: {', '.join(f'{v:g}' for v in tied)})" if len(tied) > 1 else ""
            t1 = (
                f", Task 1 {row['task1_link_f']:.3f} against {base['task1_link_f']:.3f}"
                if "task1_link_f" in row
                else ""
            )
            print(
                f"  {held} held out: chosen {chosen:g}{tie}, score on the others {score[chosen]:.3f}; "
                f"held out {row['link']['f']:.3f} / {row['bead_text_f']:.3f} against v3 "
                f"{base['link']['f']:.3f} / {base['bead_text_f']:.3f}{t1}"
            )
            out[name][held] = {"chosen": chosen, "tied": tied, "others_score": score[chosen], "held_out": row}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for key, path, what, _ in CORPORA:
        ap.add_argument(f"--corpus-{key.lower()}", default=str(path), metavar="PATH", help=f"{key}: {what}")
    ap.add_argument("--forms", default="v3,v2", help="comma-separated decoding forms: v3 (the default), v2")
    ap.add_argument("--grid", action="store_true", help="also choose decode-time settings by the protocol")
    ap.add_argument("--train-seed", type=int, default=0, help="the CRFs' training seed (the CV folds stay seed 0's)")
    ap.add_argument(
        "--epochs",
        type=int,
        default=None,
        help="both CRFs' epochs (default: the training default; fewer: a quick check)",
    )
    ap.add_argument("--jobs", type=int, default=1, help="models trained in parallel (forked processes)")
    ap.add_argument("--json", default=None, help="also write the figures to this JSON file")
    add_output_option(ap)
    args = ap.parse_args(argv)
    forms = [f for f in args.forms.split(",") if f]
    unknown = [f for f in forms if f not in FORMS]
    if unknown or not forms:
        ap.error(f"--forms: one or more of {', '.join(FORMS)}")
    if args.grid and "v3" not in forms:
        forms.append("v3")  # the grid's rows stand beside v3's
    t0 = time.time()
    keys = [key for key, *_ in CORPORA]
    held = {key: how for key, _, _, how in CORPORA}
    pairs = {key: read_gold_pairs(getattr(args, f"corpus_{key.lower()}"))[1] for key in keys}
    na = len(pairs["A"])
    pool = pairs["A"] + pairs["D"]  # the training documents: A, then D
    prepare_runs(pool, {}, args.epochs, args.jobs)
    probe = CRFAligner({}, encoder=RUN_STATE["encoder"])
    tests = {"A": RUN_STATE["test_inputs"][:na], "D": RUN_STATE["test_inputs"][na:]}
    tests.update({key: featurize_all(probe, pairs[key], with_gold=False) for key in ("B", "C")})
    RUN_STATE.update(test_by_corpus=tests, seed=args.train_seed, variants=variants(forms, args.grid))
    t_features = time.time() - t0
    jobs = []
    d_docs = list(range(na, len(pool)))
    for f, test in enumerate(folds_of(na, 5, 0)):
        train = [i for i in range(na) if i not in set(test)]
        jobs.append((f"A fold {f + 1}", "trained", train, train + d_docs, "A", test))
    jobs.append(("D", "trained", list(range(na)), None, "D", list(range(len(pairs["D"])))))
    for key in ("B", "C"):
        jobs.append((key, "shipped", None, None, key, list(range(len(pairs[key])))))
    preds: Dict[str, Dict[str, List]] = {k: {v: [None] * len(pairs[k]) for v in RUN_STATE["variants"]} for k in keys}
    for _, key, test, out in map_runs(_decode, jobs, args.jobs):
        for label, beads in out.items():
            for i, b in zip(test, beads):
                preds[key][label][i] = b
    ceiling = {
        key: sum(candidate_hits(p, x) for p, x in zip(pairs[key], tests[key]))
        / max(sum(len(p.links) for p in pairs[key]), 1)
        for key in keys
    }
    results = {
        key: {label: figures(key, pairs[key], preds[key][label], ceiling[key]) for label in RUN_STATE["variants"]}
        for key in keys
    }
    for form in forms:
        print_table(
            f"{form}: each corpus held out (link P/R/F1 pooled over its documents; errors in links)",
            {k: results[k][form] for k in keys},
            held,
        )
    folds = [test for *_, key, test in jobs if key == "A"]
    print()
    for form in forms:
        fold_figs = [figures("A", [pairs["A"][i] for i in t], [preds["A"][form][i] for i in t], 0) for t in folds]
        link = sum(f["link"]["f"] for f in fold_figs) / len(folds)
        bead = sum(f["bead_text_f"] for f in fold_figs) / len(folds)
        results["A"][form]["folds_mean"] = {"link_f": link, "bead_text_f": bead}
        print(
            f"{form}: A's 5 folds, mean of the folds (as cv-crf reports them): link F1 {link:.3f}, bead-text F1 {bead:.3f}"
        )
    out = {"forms": {form: {k: results[k][form] for k in keys} for form in forms}}
    if args.grid:
        out["grid"] = print_grid(results, keys)
    print(
        f"\n{sum(len(p) for p in pairs.values())} documents; features {t_features:.0f} s; "
        f"{len(jobs)} held-out models ({len(jobs) - 2} trained, training seed {args.train_seed}), "
        f"{len(RUN_STATE['variants'])} decodings each; {time.time() - t0:.0f} s in all"
    )
    write_json(args.json, out)
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
