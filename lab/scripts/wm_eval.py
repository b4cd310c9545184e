"""Task 1 on Wiki-Manual dev (task1.py) of CRF weights folders, aligned in-process as `align`
does with CRFAligner.v2 (the CRFs alone: no word floor of summaries, which the default form adds,
as when docs/crf-experiments.md measured them; the shipped weights too); also the per-simple-sentence null picture (linked share of gold-unaligned and gold-aligned
simple sentences).

    python lab/scripts/wm_eval.py FOLDER|shipped [...] [--no-wide] [--set key=value]"""

import argparse
import json
import sys
import time
from pathlib import Path

from script_output import add_output_option, run_main
from task1 import prf, task1_links

from spacy_simalign.aligners.crf.aligner import DEFAULT_WEIGHTS, CRFAligner
from spacy_simalign.formats.pair_jsonl import read_pairs

WM = str(Path(__file__).resolve().parents[3] / "shared" / "data" / "wikimanual-dev" / "pairs.jsonl")


def evaluate(aligner, path=WM, lang="en"):
    recs = list(read_pairs(path, default_lang=lang))
    per = {}
    un_linked = un = al_linked = al = 0
    t0 = time.time()
    for r in recs:
        tp = r.training_pair(path)
        beads = aligner.align(tp.complex, tp.simple)
        rec = r.raw
        g = task1_links(rec, [[list(b.complex), list(b.simple)] for b in tp.gold])
        p = task1_links(rec, [[list(b.complex), list(b.simple)] for b in beads])
        per[r.id] = (len(g & p), len(p), len(g))
        gold_s = {s for b in tp.gold for s in b.simple}
        pred_s = {s for b in beads for s in b.simple}
        for s in range(len(tp.simple)):
            if s in gold_s:
                al += 1
                al_linked += s in pred_s
            else:
                un += 1
                un_linked += s in pred_s
    secs = time.time() - t0
    return per, (un_linked, un, al_linked, al), secs


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--no-wide", action="store_true")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--relative-null", action="store_true")
    add_output_option(ap)
    a = ap.parse_args(argv)
    if a.relative_null:
        from null_augment import use_relative_null

        use_relative_null()
    overrides = {}
    for kv in a.set:
        k, v = kv.split("=", 1)
        overrides[k] = json.loads(v)
    for folder in a.folders:
        aligner = CRFAligner.load(DEFAULT_WEIGHTS if folder == "shipped" else folder, overrides=overrides)
        if a.no_wide:
            aligner.wide_allowed = False
        per, (ul, u, al_, al), secs = evaluate(aligner)
        p, r, f = prf(*(sum(v[k] for v in per.values()) for k in range(3)))
        print(
            f"{folder}{' no-wide' if a.no_wide else ''} {overrides or ''}: WM Task 1 P {p:.3f} R {r:.3f} F1 {f:.3f}; "
            f"simple linked: gold-unaligned {ul}/{u}, gold-aligned {al_}/{al}; {secs:.1f} s",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
