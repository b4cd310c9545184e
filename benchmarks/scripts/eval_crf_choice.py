"""Two CRFs and the surer one per document, the recipe of the shipped weights: the shipped recipe (DEplain-web dev only)
and the same with sgc-dev as ordinary gold ("wide", better on domains it never saw, worse in the
DEplain-web CV). Each document is aligned by the wide CRF only when that CRF is surer about it by a
margin: its mean per-simple-sentence entropy (crf/unsure.py, `rank`'s score) lower by at least the
margin than the DEplain-only CRF's. Scored in the DEplain-web dev 5-fold CV (the folds of cv-crf) and
leave one domain out over the 8 domains (the 2 DEplain-web corpora and the 6 Simple German Corpus
websites), for several margins in one run; margin "inf" is the DEplain-only CRF, "wide" the wide one
alone.

    SPACY_SIMALIGN_CACHE=.cache/emb PYTHONPATH=benchmarks/helpers .venv/bin/python benchmarks/scripts/eval_crf_choice.py [--train-seed 1] \\
        [--margins 0,0.02,0.05,0.1,0.2] [--score entropy] [--detail inf,0.1] [--jobs 2] [--json metrics/crf/choice.json]"""

import argparse
import sys
import time
from multiprocessing import Pool
from pathlib import Path

from gold_folds import folds_of, read_gold_pairs
from script_output import add_output_option, run_main, write_json

from spacy_simalign.aligners.crf.aligner import CRFAligner, train_aligner
from spacy_simalign.aligners.crf.choice import wide_is_surer
from spacy_simalign.aligners.crf.train import TrainingSettings, featurize_all
from spacy_simalign.aligners.crf.unsure import SCORES, document_score
from spacy_simalign.evaluation.tally import SHAPES, Tally

ROOT = Path(__file__).resolve().parents[2]
DEPLAIN = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"
SGC = ROOT.parent / "shared" / "data" / "sgc-dev" / "pairs.jsonl"
_STATE = {}  # the forked workers' documents and features


def _decode_both(task):
    """(task name, per test document: index, both CRFs' beads and unsureness) of one fold or domain."""
    name, test, narrow, wide = task
    pool, gold, plain, encoder, seed, score = (_STATE[k] for k in ("pool", "gold", "plain", "encoder", "seed", "score"))
    settings = TrainingSettings(seed=seed)
    crfs = [
        train_aligner([pool[i] for i in idx], encoder=encoder, settings=settings, inputs=[gold[i] for i in idx])
        for idx in (narrow, wide)
    ]
    rows = []
    for i in test:  # CRFAligner.align_input's steps, both CRFs' beads kept for every margin
        decoded = [crf.decoded(plain[i]) for crf in crfs]
        beads = [crf.beads(plain[i], crf.outputs(plain[i], d)) for crf, d in zip(crfs, decoded)]
        unsure = [document_score(d[0][1], score) for d in decoded]
        rows.append((i, beads, unsure))
    return name, rows


def chosen(rows, margin: float):
    """(beads per document, how many went to the wide CRF) at `margin` (inf: none, -inf: all)."""
    picks = [(i, b[1] if wide_is_surer(*u, margin) else b[0]) for i, b, u in rows]
    return picks, sum(wide_is_surer(*u, margin) for _, _, u in rows)


def pooled(pool, picks) -> dict:
    """Tally.figures of the chosen beads `picks` (document index, beads), pooled over the documents."""
    tally = Tally()
    for i, beads in picks:
        tally.add(pool[i], beads)
    return tally.figures()


def figures(pool, picks):
    fig = pooled(pool, picks)
    return fig["link"]["f"], fig["bead_text"]["f"]


def print_detail(pool, results, domains, margins, label) -> dict:
    """Per held-out domain, for each of `margins`: link and bead-text F1 and, per gold bead shape,
    link recall / exact bead recall (the 8 domains, each CRF alone and the choice)."""
    names = [label.get(m, f"margin {m:g}") for m in margins]
    print(
        f"\nper held-out domain, {' -> '.join(names)}: link F1, bead-text F1; per gold bead shape (beads): "
        "link recall / exact bead recall"
    )
    out = {}
    for d in domains:
        figs = [pooled(pool, chosen(results[d], m)[0]) for m in margins]
        out[d] = dict(zip(names, figs))
        head = " -> ".join(f"{f['link']['f']:.3f} / {f['bead_text']['f']:.3f}" for f in figs)
        shapes = "; ".join(
            f"{s} ({figs[0]['shapes'][s]['beads']}) "
            + " -> ".join(f"{f['shapes'][s]['link_recall']:.2f}/{f['shapes'][s]['exact_recall']:.2f}" for f in figs)
            for s in SHAPES
            if figs[0]["shapes"][s]["beads"]
        )
        print(f"{d:<28} {head}  |  {shapes}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deplain", default=str(DEPLAIN))
    ap.add_argument("--sgc", default=str(SGC))
    ap.add_argument("--margins", default="0,0.02,0.05,0.1,0.2", help="comma-separated margins in nats")
    ap.add_argument("--score", default="entropy", choices=SCORES)
    ap.add_argument("--train-seed", type=int, default=0, help="both CRFs' training seed (the CV folds stay seed 0's)")
    ap.add_argument("--jobs", type=int, default=2, help="folds and domains trained in parallel (forked processes)")
    ap.add_argument(
        "--detail",
        default="inf,0.1",
        help="margins whose per-domain figures with per-shape recall are printed (inf: DEplain-only; '': none)",
    )
    ap.add_argument("--json", default=None, help="also write the figures to this JSON file")
    add_output_option(ap)
    args = ap.parse_args(argv)
    margins = [float("inf")] + [float(m) for m in args.margins.split(",")] + [float("-inf")]
    t0 = time.time()
    corpus, deplain = read_gold_pairs(args.deplain)
    website, sgc = read_gold_pairs(args.sgc)
    pool, domain = deplain + sgc, corpus + website
    probe = CRFAligner.default()
    _STATE.update(
        pool=pool,
        gold=featurize_all(probe, pool),
        plain=featurize_all(probe, pool, with_gold=False),
        encoder=probe.encoder,
        seed=args.train_seed,
        score=args.score,
    )
    nd, everything = len(deplain), range(len(pool))
    tasks = []
    for f, test in enumerate(folds_of(nd, 5, 0)):
        train = [i for i in range(nd) if i not in set(test)]
        tasks.append((f"cv fold {f + 1}", test, train, train + list(range(nd, len(pool)))))
    for d in dict.fromkeys(domain):
        test = [i for i in everything if domain[i] == d]
        tasks.append((d, test, [i for i in range(nd) if domain[i] != d], [i for i in everything if domain[i] != d]))
    if args.jobs > 1:
        with Pool(args.jobs) as workers:
            results = dict(workers.map(_decode_both, tasks))
    else:
        results = dict(map(_decode_both, tasks))
    folds = [n for n in results if n.startswith("cv fold")]
    domains = [n for n in results if not n.startswith("cv fold")]
    label = {float("inf"): "DEplain-only", float("-inf"): "wide alone"}
    print(f"\nscore {args.score}, training seed {args.train_seed}; bead-text F1 unless marked")
    print(f"{'margin':<13} {'CV link / bead-text':>20} {'wide':>6}  {'8-domain mean':>13}  " + "  ".join(domains))
    out = {"score": args.score, "train_seed": args.train_seed, "margins": {}}
    for m in margins:
        cv_picked = [chosen(results[n], m) for n in folds]
        cv = [figures(pool, picks) for picks, _ in cv_picked]
        cv_link, cv_bt = (sum(x[k] for x in cv) / len(cv) for k in (0, 1))
        cv_wide = sum(wide for _, wide in cv_picked)
        picked = {d: chosen(results[d], m) for d in domains}
        held = {d: figures(pool, picks)[1] for d, (picks, _) in picked.items()}
        mean = sum(held.values()) / len(held)
        name = label.get(m, f"{m:g}")
        print(
            f"{name:<13} {cv_link:>10.3f} / {cv_bt:.3f} {cv_wide:>3}/{nd}  {mean:>13.3f}  "
            + "  ".join(f"{held[d]:.3f} ({picked[d][1]}/{len(results[d])})" for d in domains)
        )
        out["margins"][name] = {
            "cv_link": cv_link,
            "cv_bead_text": cv_bt,
            "cv_wide": cv_wide,
            "lodo_mean": mean,
            **held,
        }
    if args.detail:
        detail = [float(m) for m in args.detail.split(",")]
        out["detail"] = print_detail(pool, results, domains, detail, label)
    print(f"\n{len(pool)} documents, {len(tasks)} folds and domains, 2 CRFs each, {time.time() - t0:.0f} s")
    write_json(args.json, out)
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
