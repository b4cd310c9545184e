"""The bead decoder (aligners/bead_dp.py) on every translation set at hand, settings side by side,
one table from one run: Text+Berg dev (de-fr, 1 article), TransRead dev (en-fr, 3 novels) and the
six NTREX news pair files (123 documents each, 1:1 gold). Per set and system: strict bead F1 (a
predicted bead counts only if it equals a gold bead), link P/R/F1, the whole time from the
sentences to the beads (a fresh encoder: model load, encoding, decoding), and the strings and
characters the encoder was given.

    PYTHONPATH=benchmarks/helpers .venv/bin/python benchmarks/scripts/eval_translations.py [--variants before,default]
        [--json metrics/translations.json] [--output metrics/translations.txt]

Systems: `before` = the decoder with summed runs (concatenation "sum", which the default's
scoring of candidates as units improves on); `v1` = BeadDP.v1 (make_bead_dp: no anchors);
`default` = BeadDP.v3's defaults (make_bead_dp_v3: shared numbers and marks counted); any other
name in VARIANTS below. bertalign on the same sets and the same USE
vectors is the peer table's (`make bench-peers`, benchmarks/scripts/bench_peers.py). Every set was seen while choosing the settings
(in-sample). Run without SPACY_SIMALIGN_CACHE: with it the times hold almost no encoding.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

from script_output import add_output_option, run_main, write_json

from spacy_simalign.aligners.bead_dp import V1_SETTINGS, make_bead_dp_v3
from spacy_simalign.aligners.scoring import AlignmentScorer
from spacy_simalign.formats.pair_jsonl import read_pairs
from spacy_simalign.similarity.backends import USESimilarity

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"
SETS = {
    "textberg": [DATA / "textberg-dev-de-fr" / "pairs.jsonl"],
    "transread": [DATA / "transread-dev-en-fr" / "pairs.jsonl"],
    **{
        f"ntrex-{p}": [DATA / "ntrex-news" / f"{p}.jsonl"]
        for p in ("en-de", "en-fr", "en-nl", "de-fr", "de-nl", "fr-nl")
    },
}
VARIANTS = {
    "before": {**V1_SETTINGS, "concatenation": "sum", "anchor_weight": 0.0},
    "v1": {**V1_SETTINGS, "anchor_weight": 0.0},
    "default": {},
    "text": {"concatenation": "text"},
}


class CountingEncoder(USESimilarity):
    """USESimilarity that counts the strings (and their characters) it encodes; a new one per run,
    model load included (as bench_peers.run_bertalign's encoder)."""

    def __init__(self):
        super().__init__()
        self.strings = self.chars = 0

    def _encode_missing(self, missing, lang):
        self.strings += len(missing)
        self.chars += sum(len(t) for t in missing)
        return super()._encode_missing(missing, lang)


def load(paths):
    return [record for path in paths for record in read_pairs(str(path))]


def scores(records, preds):
    scorer = AlignmentScorer()
    for record, beads in zip(records, preds):
        scorer.add(record.gold, beads, record.side("complex").sentences, record.side("simple").sentences)
    s = scorer.scores()
    return {"strict": s["bead_text"]["f"], "p": s["link"]["p"], "r": s["link"]["r"], "f": s["link"]["f"]}


def run_ours(records, settings):
    encoder = CountingEncoder()
    aligner = make_bead_dp_v3(encoder, **settings)
    t0 = time.perf_counter()
    preds = [aligner.align(r.side("complex"), r.side("simple")) for r in records]
    seconds = time.perf_counter() - t0
    return dict(scores(records, preds), seconds=seconds, strings=encoder.strings, chars=encoder.chars)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variants", default="before,v1,default", help=f"comma-separated, of: {', '.join(VARIANTS)}")
    ap.add_argument("--sets", default=",".join(SETS), help="comma-separated, of: " + ", ".join(SETS))
    ap.add_argument("--set", action="append", default=[], metavar="NAME=JSON", help="an extra variant")
    ap.add_argument("--json", default=None)
    add_output_option(ap)
    args = ap.parse_args(argv)
    variants = {v: VARIANTS[v] for v in args.variants.split(",") if v}
    for extra in args.set:
        name, _, settings = extra.partition("=")
        variants[name] = json.loads(settings)
    sets = [s for s in args.sets.split(",") if s]
    rows = {}
    for name in sets:
        records = load(SETS[name])
        for variant, settings in variants.items():
            rows.setdefault(variant, {})[name] = run_ours(records, settings)
            print(f"{name} {variant}: {rows[variant][name]}", file=sys.stderr, flush=True)
    cache = os.environ.get("SPACY_SIMALIGN_CACHE")
    print(
        "Bead decoder on the translation sets: strict bead F1 / link F1, whole seconds (encoder included), "
        f"encoded strings (thousand characters); embedding cache {'ON: times hold no encoding' if cache else 'off'}"
    )
    width = 30
    print(f"{'system':12s} | " + " | ".join(f"{s:^{width}s}" for s in sets))
    for system, cells in rows.items():
        line = []
        for s in sets:
            r = cells.get(s)
            line.append(
                f"{'-':^{width}s}"
                if r is None
                else f"{r['strict']:.3f}/{r['f']:.3f} {r['seconds']:6.1f}s {r['strings']:6d} ({r['chars'] / 1000:.0f}k)"
            )
        print(f"{system:12s} | " + " | ".join(line))
    for system, cells in rows.items():
        done = [s for s in sets if s in cells]
        mean = sum(cells[s]["strict"] for s in done) / len(done)
        print(f"mean strict {system}: {mean:.4f} over {', '.join(done)}")
    for variant, settings in variants.items():
        print(f"{variant}: {json.dumps(settings) if settings else 'make_bead_dp_v3 defaults'}")
    print("All sets were seen while choosing the settings: these figures are in-sample.")
    write_json(args.json, rows)
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
