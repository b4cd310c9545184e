"""Whether `adapt` leaves a user worse off without saying so: k gold documents of a corpus the shipped
weights never learned from given to adapt (as the command runs it: the shipped base, DEplain-web dev
as background, the default settings), the corpus's other documents aligned by the base and by the
adapted weights, both decoding as the default pipeline does; and for k >= 2 what `adapt --check`
says on the k documents, against the sign on the other documents.

Corpora: DEplain-web's other corpora (../shared/data/deplain-web-domains) by sub-corpus, fiction
("Einfache Bücher", k = 1, 2, 3), fairy tales ("Märchen In Leichter Sprache", k = 1, 2) and the BZfE's
health pages (k = 1, 2, 4, 7); Wiki-Manual dev (../shared/data/wikimanual-dev, English, k = 1, 2, 4,
8, 16; link F1 by its Task 1, identical pairs left out). Beside them the development domains that
adapt's settings and the check's verdict are chosen on (A and D, each from a pair of CRFs that never
saw it, as eval_adapt.py's): the bible (k = 1, 2, 4, 8), mdr.de (1, 2, 4, 8), stadt-koeln.de (1, 2, 4)
and lebenshilfe-main-taunus.de (1, 2). For each draw the corpus's documents are
shuffled with the draw's seed (also adapt's training seed): the first k are given to adapt, the
rest are the test documents. A row is the mean over the draws of the pooled figures on the test
documents; "check" counts the draws whose verdict matches the held-out sign (adapted bead-text F1
above the base's); "worse, unsaid" counts the draws where adapting lowered bead-text F1 and nothing
warned (the check said it helps; at k = 1 adapt always says it cannot check). A second table
reads the same checks in other ways (VERDICTS), for choosing the reading on the development domains.

    cd benchmarks && SPACY_SIMALIGN_CACHE=../.cache/emb spacy project run eval-adapt-curve
    PYTHONPATH=benchmarks/helpers .venv/bin/python benchmarks/scripts/eval_adapt_curve.py \\
        [--corpora fiction,fairy,health,wikimanual,bible,mdr.de] [--draws 0,1,2] [--ks 2,4] [--no-check] \\
        [--set repeat=20] [--json F] [--output F] [--tables-from F.json]"""

import argparse
import dataclasses
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

from gold_folds import BIBLE, read_gold_pairs
from script_output import add_output_option, add_set_option, run_main, write_json

from spacy_simalign.aligners.crf.aligner import DEFAULT_WEIGHTS, CRFAligner, train_aligner
from spacy_simalign.aligners.crf.fine_tuning import (
    AdaptSettings,
    adapted_aligner,
    decoding_as_default,
    held_out_check,
)
from spacy_simalign.aligners.crf.train import featurize_all
from spacy_simalign.evaluation.tally import Tally

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"
BACKGROUND = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"
# the gold files, by their folder under the shared data (--shared) or DEplain-web dev (--deplain)
DOMAINS, WIKIMANUAL, SGC, DEPLAIN = "deplain-web-domains", "wikimanual-dev", "sgc-dev", "deplain"
# name: (file, which of its documents (by the domain field), the ks, Task 1 scoring)
CORPORA = {
    "fiction": (DOMAINS, lambda d: d == "Einfache Bücher", (1, 2, 3), False),
    "fairy": (DOMAINS, lambda d: d == "Märchen In Leichter Sprache", (1, 2), False),
    "health": (DOMAINS, lambda d: d.startswith("bzfe_"), (1, 2, 4, 7), False),
    "wikimanual": (WIKIMANUAL, lambda d: True, (1, 2, 4, 8, 16), True),
    # the development domains adapt's settings are chosen on (A and D), each from a pair that never saw
    # it: the bible from CRFs trained on the portal (the wide one: and sgc-dev), with the portal as
    # background; an SGC website from the shipped CRF and a wide CRF trained without the website
    "bible": (DEPLAIN, lambda d: d == BIBLE, (1, 2, 4, 8), False),
    "mdr.de": (SGC, lambda d: d == "mdr.de", (1, 2, 4, 8), False),
    "stadt-koeln.de": (SGC, lambda d: d == "stadt-koeln.de", (1, 2, 4), False),
    "lebenshilfe-main-taunus.de": (SGC, lambda d: d == "lebenshilfe-main-taunus.de", (1, 2), False),
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpora", default=",".join(CORPORA), help=f"which of {', '.join(CORPORA)}")
    ap.add_argument("--draws", default="0,1,2", help="seeds of the draws (and of adapt's training)")
    ap.add_argument("--ks", default=None, help="only these k (default: each corpus's)")
    ap.add_argument("--no-check", action="store_true", help="leave out the held-out check (the curve only)")
    add_set_option(ap, "an AdaptSettings value (epochs=10, repeat=20, learn_rate=0.01)")
    ap.add_argument("--shared", default=str(SHARED), help="the shared data folder (deplain-web-domains, ...)")
    ap.add_argument("--deplain", default=str(BACKGROUND), help="DEplain-web dev: the background, and the bible")
    ap.add_argument("--json", default=None, help="also write the figures to this JSON file")
    ap.add_argument("--tables-from", default=None, metavar="JSON", help="only print the tables of an earlier --json")
    add_output_option(ap)
    args = ap.parse_args(argv)
    if args.tables_from:
        results = json.loads(Path(args.tables_from).read_text(encoding="utf-8"))["corpora"]
        print_table(results)
        print_verdicts(results)
        return 0
    names = args.corpora.split(",")
    draws = [int(v) for v in args.draws.split(",")]
    only_ks = None if args.ks is None else {int(k) for k in args.ks.split(",")}
    fixed = dict(args.set)
    t0 = time.time()
    shipped = CRFAligner.load(DEFAULT_WEIGHTS)
    encoder = shipped.encoder
    files = {name: Path(args.shared) / name / "pairs.jsonl" for name in (DOMAINS, WIKIMANUAL, SGC)}
    files[DEPLAIN] = Path(args.deplain)
    deplain_domains, deplain = read_gold_pairs(args.deplain)
    deplain_inputs = featurize_all(shipped, deplain)
    sgc_domains, sgc = read_gold_pairs(files[SGC])
    sgc_inputs = featurize_all(shipped, sgc)
    tmp = tempfile.TemporaryDirectory()

    def pair_folder(name, own, wide_ids):
        """The CRF `own` with a wide CRF trained on DEplain-web dev's documents `wide_ids[0]` and
        sgc-dev's `wide_ids[1]` (choice.py, as shipped), saved under tmp/name."""
        ids_d, ids_s = wide_ids
        wide_pairs = [deplain[i] for i in ids_d] + [sgc[i] for i in ids_s]
        wide_inputs = [deplain_inputs[i] for i in ids_d] + [sgc_inputs[i] for i in ids_s]
        wide = train_aligner(wide_pairs, encoder=encoder, inputs=wide_inputs)
        own.attach_wide(lambda _: wide)
        own.save(Path(tmp.name) / name)
        return str(Path(tmp.name) / name)

    results: Dict[str, List[Dict]] = {}
    for name in names:
        source, member, ks, task1 = CORPORA[name]
        domains, every = read_gold_pairs(files[source])
        pairs = [p for p, d in zip(every, domains) if member(d)]
        gold, plain = featurize_all(shipped, pairs), featurize_all(shipped, pairs, with_gold=False)
        folder, background = DEFAULT_WEIGHTS, deplain_inputs
        all_deplain, all_sgc = range(len(deplain)), range(len(sgc))
        if source == SGC:  # the shipped CRF with a wide CRF trained without the website
            others = [i for i in all_sgc if sgc_domains[i] != name]
            folder = pair_folder(name, CRFAligner.load(DEFAULT_WEIGHTS, encoder=encoder), (all_deplain, others))
        if name == "bible":  # CRFs trained on the portal (the wide one: and sgc-dev), the portal as background
            portal = [i for i in all_deplain if deplain_domains[i] != BIBLE]
            background = [deplain_inputs[i] for i in portal]
            own = train_aligner([deplain[i] for i in portal], encoder=encoder, inputs=background)
            folder = pair_folder(name, own, (portal, all_sgc))
        base = decoding_as_default(CRFAligner.load(folder, encoder=encoder))
        base_beads = [list(base.align_input(x)) for x in plain]
        print(f"{name}: {len(pairs)} documents featurized and aligned by the base ({time.time() - t0:.0f} s)")

        def figures(test, beads):
            """Pooled link F1 (Task 1 for Wiki-Manual) and bead-text F1 of `beads` on the documents `test`."""
            tally = Tally(exclude_identical=task1)
            for i, b in zip(test, beads):
                tally.add(pairs[i], b)
            return f1s(tally.figures())

        rows = results.setdefault(name, [])
        for k in [k for k in ks if only_ks is None or k in only_ks]:
            for draw in draws:
                t1 = time.time()
                order = list(range(len(pairs)))
                random.Random(draw).shuffle(order)
                pick, test = order[:k], order[k:]
                settings = AdaptSettings(**{"seed": draw, **fixed})
                users = ([pairs[i] for i in pick], [gold[i] for i in pick], [plain[i] for i in pick])
                adapted = decoding_as_default(adapted_aligner(folder, *users, background, settings, encoder))
                before = figures(test, [base_beads[i] for i in test])
                after = figures(test, [list(adapted.align_input(plain[i])) for i in test])
                helps, check = None, None
                if k >= 2 and not args.no_check:
                    held_out = held_out_check(folder, *users, background, settings, encoder)
                    helps = held_out.helps
                    check = {"base": f1s(held_out.base), "adapted": f1s(held_out.adapted)}
                    check["documents"] = held_out.documents
                gain = after["bead_text"] - before["bead_text"]
                row = {"k": k, "draw": draw, "test": len(test), "base": before, "adapted": after, "check_helps": helps}
                row["check"] = check
                row["worse_unsaid"] = gain < 0 and helps is True
                rows.append(row)
                verdict = {None: "-", True: "helps", False: "does not help"}[helps]
                print(
                    f"  k={k} draw {draw}: bead-text {before['bead_text']:.3f} -> {after['bead_text']:.3f}, "
                    f"check {verdict} ({time.time() - t1:.0f} s)"
                )
    print_table(results)
    print_verdicts(results)
    print(f"\n{time.time() - t0:.0f} s")
    write_json(args.json, {"draws": draws, "settings": dataclasses.asdict(AdaptSettings(**fixed)), "corpora": results})
    return 0


def f1s(scores: Dict) -> Dict[str, float]:
    """Link and bead-text F1 of pooled scores (Tally.figures(), AlignmentScorer.scores())."""
    return {"link": scores["link"]["f"], "bead_text": scores["bead_text"]["f"]}


# ways the check could turn its figures into "helps" (HeldOutCheck.helps is the first): the pooled
# bead-text F1 above the base's; and link F1 too; and better on more of the documents than worse;
# and worse on none
VERDICTS = {
    "pooled (adapt's)": lambda c, better, worse: c["adapted"]["bead_text"] > c["base"]["bead_text"],
    "and link F1": lambda c, better, worse: c["adapted"]["link"] > c["base"]["link"],
    "and most documents": lambda c, better, worse: better > worse,
    "and no document worse": lambda c, better, worse: worse == 0,
}


def print_verdicts(results: Dict[str, List[Dict]]) -> None:
    """Per corpus, for each way of reading the check (VERDICTS, each with the pooled bead-text F1
    above the base's): the draws with k >= 2 whose verdict matches the held-out sign, and those
    where adapting lowered bead-text F1 while the verdict said it helps."""
    print(f"\n{'check read as':<28}" + "".join(f"{name:>24}" for name in VERDICTS))
    for name, rows in results.items():
        cells = []
        checked = [r for r in rows if r.get("check")]
        for rule in VERDICTS.values():
            agree = unsaid = 0
            for r in checked:
                c, docs = r["check"], r["check"]["documents"]
                better, worse = sum(a > b for _, b, a in docs), sum(a < b for _, b, a in docs)
                helps = VERDICTS["pooled (adapt's)"](c, better, worse) and rule(c, better, worse)
                gain = r["adapted"]["bead_text"] - r["base"]["bead_text"]
                agree += helps == (gain > 0)
                unsaid += helps and gain < 0
            cells.append(f"{agree}/{len(checked)} agree, {unsaid} unsaid")
        print(f"{name:<28}" + "".join(f"{cell:>24}" for cell in cells))


def print_table(results: Dict[str, List[Dict]]) -> None:
    """One line per corpus and k: the means over the draws, the gains and the check's record."""
    print(
        f"\n{'corpus':<11} {'k':>2} {'test':>4}  {'link base':>9} {'adapted':>8}  {'bead-text base':>14} "
        f"{'adapted':>8} {'gain':>7}  {'better':>6}  {'check agrees':>12}  {'worse, unsaid':>13}"
    )
    for name, rows in results.items():
        for k in sorted({r["k"] for r in rows}):
            runs = [r for r in rows if r["k"] == k]

            def mean(side, what, runs=runs):
                return sum(r[side][what] for r in runs) / len(runs)

            gain = mean("adapted", "bead_text") - mean("base", "bead_text")
            better = sum(r["adapted"]["bead_text"] > r["base"]["bead_text"] for r in runs)
            checked = [r for r in runs if r["check_helps"] is not None]
            agree = sum(r["check_helps"] == (r["adapted"]["bead_text"] > r["base"]["bead_text"]) for r in checked)
            agrees = f"{agree}/{len(checked)}" if checked else "cannot"
            unsaid = sum(r["worse_unsaid"] for r in runs)
            print(
                f"{name:<11} {k:>2} {runs[0]['test']:>4}  {mean('base', 'link'):>9.3f} {mean('adapted', 'link'):>8.3f}  "
                f"{mean('base', 'bead_text'):>14.3f} {mean('adapted', 'bead_text'):>8.3f} {gain:>+7.3f}  "
                f"{better:>3}/{len(runs)}  {agrees:>12}  {unsaid:>13}"
            )


if __name__ == "__main__":
    sys.exit(run_main(main))
