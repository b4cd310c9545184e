"""The adaptation curve of `adapt`: k gold documents of a domain the base weights never
saw given to adapt, scored on the domain's other documents, with the k documents drawn at random
or chosen by `rank` (the base's most unsure first).

Domains: the two corpora of DEplain-web dev (bible, portal = Alumniportal), each from a base trained
on the other corpus only (the shipped weights saw both; the background adapt mixes in is then the
other corpus),
and websites of the Simple German Corpus (../shared/data/sgc-dev), from the shipped DEplain-web CRF
(which never saw SGC) with the shipped training data (DEplain-web dev) as background. Every base is
a pair as shipped (crf/choice.py): that CRF and a wide CRF trained on its data and sgc-dev without
the held-out domain, which adapt keeps beside the adapted CRF (--wide none: the CRF alone, the
curve before the pair was shipped; --wide both: both rows, "/alone" marking the CRF alone). For each draw, the
domain's documents are shuffled with the draw's seed: the first max(ks) are the pool the k
documents come from, the rest the test documents, the same for every k (k = 0: the base); a domain of n documents gets only the k < n. With
`rank`, the pool is the max(ks) documents the base is most unsure about, one pool for every draw
(the draws differ by the training seed only). Each variant is one way of adapting (AdaptSettings):
fine-tuning alone, refitting the combination and bead scorer alone, or both (adapt's default). Pooled link and bead-text F1 over
the test documents, mean over the draws. `--all-others F`: also what adapt gives with every other
document of the domain (F folds by document, each adapted from the base on the other F - 1 folds;
from each base --wide asks for): how far the curve can climb with this CRF.

    cd benchmarks && SPACY_SIMALIGN_CACHE=../.cache/emb spacy project run eval-adapt
    PYTHONPATH=benchmarks/helpers .venv/bin/python benchmarks/scripts/eval_adapt.py [--domains bible,mdr.de] [--ks 0,1,2,4] [--draws 0,1,2] \\
        [--variants both,finetune,refit] [--all-others 4] [--wide keep|none|both] [--json metrics/adapt.json] \\
        [--output metrics/adapt.txt]"""

import argparse
import dataclasses
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gold_folds import BIBLE, PORTAL, read_gold_pairs
from script_output import add_output_option, add_set_option, run_main, write_json

from spacy_simalign.aligners.crf.aligner import DEFAULT_WEIGHTS, CRFAligner, train_aligner
from spacy_simalign.aligners.crf.fine_tuning import AdaptSettings, adapted_aligner, held_out_check
from spacy_simalign.aligners.crf.train import featurize_all
from spacy_simalign.aligners.crf.unsure import unsureness
from spacy_simalign.evaluation.tally import Tally

ROOT = Path(__file__).resolve().parents[2]
DEPLAIN = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"
SGC = ROOT.parent / "shared" / "data" / "sgc-dev" / "pairs.jsonl"
DEPLAIN_DOMAINS = {"bible": BIBLE, "portal": PORTAL}  # held out from a base trained on the other corpus
VARIANTS = {  # AdaptSettings beside the defaults (which are "both")
    "finetune": {"refit": False},
    "refit": {"epochs": 0},
    "both": {},
    "guard": {},  # both, kept only if the held-out check on the k documents (k >= 2) says it helps; else the base
}


def time_adapt(sgc: str, site: str, folder: str) -> dict:
    """Wall time and peak RSS of `python -m spacy_simalign adapt` on the first 2 documents of an
    sgc-dev website with its defaults, in a fresh process without the embedding cache (a user's
    first run: the USE model loaded, the background featurized)."""
    lines = [line for line in Path(sgc).read_text(encoding="utf-8").splitlines() if f'"website": "{site}"' in line]
    gold = Path(folder) / "two.jsonl"
    gold.write_text("".join(line + "\n" for line in lines[:2]), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "SPACY_SIMALIGN_CACHE"}
    start = time.time()
    command = [sys.executable, "-m", "spacy_simalign", "adapt", str(gold), str(Path(folder) / "two-crf")]
    subprocess.run(command, check=True, env=env, stderr=subprocess.DEVNULL)
    seconds = time.time() - start
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    load = os.getloadavg()[0]
    print(f"\nadapt on 2 {site} documents (defaults, no embedding cache): {seconds:.0f} s, peak RSS {peak_mib:.0f} MiB")
    print(f"(load average {load:.1f} on {os.cpu_count()} CPUs when it ended)")
    return {
        "documents": 2,
        "website": site,
        "seconds": round(seconds, 1),
        "peak_rss_mib": round(peak_mib),
        "load": load,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--domains", default="bible,mdr.de", help="'bible' and/or sgc-dev websites")
    ap.add_argument("--ks", default="0,1,2,4", help="gold documents given to adapt")
    ap.add_argument("--draws", default="0,1,2", help="seeds of the random draws (and of adapt's training)")
    ap.add_argument("--variants", default="finetune,refit,both", help=f"ways of adapting: {', '.join(VARIANTS)}")
    ap.add_argument("--rank", default="entropy", help="rank's score for the ranked choice ('none': no ranked choice)")
    add_set_option(
        ap,
        "an AdaptSettings value for every variant (epochs=10, repeat=20, learn_rate=0.01)",
    )
    ap.add_argument(
        "--time-adapt",
        default="mdr.de",
        help="time the adapt command on 2 documents of this sgc-dev website ('none': not)",
    )
    ap.add_argument(
        "--sgc-base",
        default=str(DEFAULT_WEIGHTS),
        help="CRF weights folder the SGC websites are adapted from (default: the shipped weights, whose DEplain-web "
        "CRF never saw the SGC; the background is DEplain-web dev); its wide CRF is replaced, see --wide",
    )
    ap.add_argument(
        "--wide",
        default="keep",
        choices=("keep", "none", "both"),
        help="each base as shipped, with a wide CRF (crf/choice.py) trained on its CRF's data and sgc-dev without "
        "the domain, kept by adapt (keep); the base's CRF alone (none); or both rows (both)",
    )
    ap.add_argument("--deplain", default=str(DEPLAIN))
    ap.add_argument("--sgc", default=str(SGC))
    ap.add_argument(
        "--all-others",
        type=int,
        default=0,
        metavar="FOLDS",
        help="also adapt each domain on all its other documents, FOLDS folds by document (0: not)",
    )
    ap.add_argument("--json", default=None, help="also write the figures to this JSON file")
    add_output_option(ap)
    args = ap.parse_args(argv)
    ks = [int(k) for k in args.ks.split(",")]
    draws = [int(v) for v in args.draws.split(",")]
    variants = args.variants.split(",")
    fixed = dict(args.set)
    t0 = time.time()
    corpus, deplain = read_gold_pairs(args.deplain)
    website, sgc = read_gold_pairs(args.sgc)
    pool = deplain + sgc
    probe = CRFAligner.default()
    gold_inputs, plain_inputs = featurize_all(probe, pool), featurize_all(probe, pool, with_gold=False)
    print(f"featurized {len(pool)} documents in {time.time() - t0:.0f} s")

    def adapt_arguments(pick, background, settings):
        """adapted_aligner's (and held_out_check's) arguments after the folder: the documents `pick` as
        user documents (pairs, features with gold, without), `background`, AdaptSettings(**settings)."""
        users = [pool[i] for i in pick], [gold_inputs[i] for i in pick], [plain_inputs[i] for i in pick]
        return (*users, [gold_inputs[i] for i in background], AdaptSettings(**settings))

    def adapt(folder, pick, background, settings):
        """The weights `folder` adapted to the documents `pick`, with `background` (AdaptSettings values)."""
        return adapted_aligner(folder, *adapt_arguments(pick, background, settings), encoder=probe.encoder)

    def guarded(folder, pick, background, settings):
        """adapt's aligner if the held-out check on the documents `pick` says it helps, else the base."""
        if len(pick) >= 2:
            check = held_out_check(folder, *adapt_arguments(pick, background, settings), encoder=probe.encoder)
            if not check.helps:
                return CRFAligner.load(folder, encoder=probe.encoder)
        return adapt(folder, pick, background, settings)

    def scored(aligner, test, tally=None):
        """`tally` (a new one by default) with the aligner's beads of the documents `test` added."""
        tally = Tally() if tally is None else tally
        for i in test:
            tally.add(pool[i], aligner.align_input(plain_inputs[i]))
        return tally

    tmp = tempfile.TemporaryDirectory()
    bases = {}
    results = {}
    sgc_ids = list(range(len(deplain), len(pool)))

    def base_folders(name, narrow, data, held_out):
        """{"keep": the CRF `narrow` with a wide CRF trained on the documents `data` and sgc-dev
        without `held_out` (as shipped), "none": `narrow` alone}, saved under tmp/name."""
        out = {}
        if args.wide in ("none", "both"):
            narrow.attach_wide(None)
            narrow.save(Path(tmp.name) / name / "none")
            out["none"] = str(Path(tmp.name) / name / "none")
        if args.wide in ("keep", "both"):
            t1 = time.time()
            wide_ids = list(data) + [i for i in sgc_ids if i not in set(held_out)]
            wide = train_aligner(
                [pool[i] for i in wide_ids], encoder=probe.encoder, inputs=[gold_inputs[i] for i in wide_ids]
            )
            narrow.attach_wide(lambda _: wide)
            narrow.save(Path(tmp.name) / name / "keep")
            out["keep"] = str(Path(tmp.name) / name / "keep")
            print(f"{name}: wide CRF without it trained in {time.time() - t1:.0f} s")
        return out

    for domain in args.domains.split(","):
        if domain in DEPLAIN_DOMAINS:
            docs = [i for i, c in enumerate(corpus) if c == DEPLAIN_DOMAINS[domain]]
            background = [i for i, c in enumerate(corpus) if c != DEPLAIN_DOMAINS[domain]]
            t1 = time.time()  # the base: the other DEplain corpus only
            narrow = train_aligner(
                [pool[i] for i in background], encoder=probe.encoder, inputs=[gold_inputs[i] for i in background]
            )
            print(f"base without {domain} trained in {time.time() - t1:.0f} s")
        else:
            docs = [len(deplain) + i for i, w in enumerate(website) if w == domain]
            background = list(range(len(deplain)))
            narrow = CRFAligner.load(args.sgc_base, encoder=probe.encoder)
        bases = base_folders(domain, narrow, background, docs)
        domain_ks = [k for k in ks if k < len(docs)]  # at least one test document
        if domain_ks != ks:
            print(
                f"{domain}: {len(docs)} documents, k = {', '.join(str(k) for k in ks if k not in domain_ks)} left out"
            )
        base = CRFAligner.load(next(iter(bases.values())), encoder=probe.encoder)  # rank reads its CRF alone
        choices = {}
        for draw in draws:
            order = list(docs)
            random.Random(draw).shuffle(order)
            choices[("random", draw)] = order
        if args.rank != "none":
            ranked = sorted(docs, key=lambda i: -unsureness(base, plain_inputs[i], args.rank))
            choices.update({("rank", draw): ranked for draw in draws})
        rows = results.setdefault(domain, {})
        for (how, draw), order in choices.items():
            pick, test = order[: max(domain_ks)], order[max(domain_ks) :]
            for k, variant, wide in [
                (k, v, w) for k in domain_ks for v in (variants if k else ["base"]) for w in bases
            ]:
                if k == 0:
                    aligner = CRFAligner.load(bases[wide], encoder=probe.encoder)
                else:
                    settings = {"seed": draw, **fixed, **VARIANTS[variant]}
                    aligner = (guarded if variant == "guard" else adapt)(bases[wide], pick[:k], background, settings)
                fig = scored(aligner, test).figures()
                key = f"{how} k={k} {variant}" + ("" if wide == "keep" else "/alone")
                rows.setdefault(key, []).append(
                    {"draw": draw, "link": fig["link"]["f"], "bead_text": fig["bead_text"]["f"], "test": len(test)}
                )
        for wide in bases if args.all_others > 1 else []:
            tally = Tally()
            for fold in range(args.all_others):
                test = docs[fold :: args.all_others]
                pick = [i for i in docs if i not in test]
                scored(adapt(bases[wide], pick, background, {"seed": 0, **fixed}), test, tally)
            fig = tally.figures()
            n = len(docs) - len(docs) // args.all_others
            rows[f"others k~{n} both" + ("" if wide == "keep" else "/alone")] = [
                {"draw": 0, "link": fig["link"]["f"], "bead_text": fig["bead_text"]["f"], "test": len(docs)}
            ]
        print(f"\n{domain}: {len(docs)} documents; bases {', '.join(bases)} (alone: without a wide CRF); draws {draws}")
        print(f"{'choice':<8} {'k':>2}  {'variant':<15} {'link F1':>8} {'bead-text F1':>13}  test docs")
        for key, runs in rows.items():
            how, k, variant = key.split()
            link = sum(r["link"] for r in runs) / len(runs)
            bt = sum(r["bead_text"] for r in runs) / len(runs)
            print(f"{how:<8} {k[2:]:>2}  {variant:<15} {link:>8.3f} {bt:>13.3f}  {runs[0]['test']}")
    cost = None if args.time_adapt == "none" else time_adapt(args.sgc, args.time_adapt, tmp.name)
    print(f"\n{time.time() - t0:.0f} s")
    settings = dataclasses.asdict(AdaptSettings(**fixed))
    write_json(args.json, {"ks": ks, "draws": draws, "settings": settings, "domains": results, "adapt_cost": cost})
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
