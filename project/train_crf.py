"""Train the CRF aligner's default weights on all DEplain-web dev documents (fixed seed)
and save them where the package ships them (spacy_simalign/weights/crf/).

    SPACY_SIMALIGN_CACHE=.cache/emb .venv/bin/python project/train_crf.py [--output DIR] [--epochs 20]

With gold documents of your own domain, train on them beside the DEplain ones (several --data
files are read in turn) and align with `align --model DIR`; how much a few in-domain documents
give: project/eval_crf_adaptation.py.

    .venv/bin/python project/train_crf.py --data ../shared/data/deplain-web-dev/pairs.jsonl \
        --data my-gold.jsonl --output my-crf
"""
import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from spacy_simalign.aligners.crf.aligner import DEFAULT_WEIGHTS  # noqa: E402
from spacy_simalign.aligners.crf.train import TrainingSettings, train_aligner  # noqa: E402
from spacy_simalign.formats.pairs import read_training_pairs  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "deplain-web-dev" / "pairs.jsonl"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", action="append", default=None,
                    help="pair JSONL with gold beads, pre-segmented sides (repeatable; default: the DEplain-web dev pairs)")
    ap.add_argument("--output", default=str(DEFAULT_WEIGHTS))
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--config", default=None, help="JSON object of CRFAligner config overrides")
    args = ap.parse_args(argv)
    pairs = [pair for path in (args.data or [str(DEFAULT_DATA)]) for pair in read_training_pairs(path)]
    t0 = time.time()
    # the combination is fitted on a first CRF trained as long as the final one
    settings = TrainingSettings(seed=args.seed)
    aligner = train_aligner(pairs, json.loads(args.config) if args.config else {}, epochs=args.epochs,
                            settings=settings, log=lambda m: print(m, flush=True))
    aligner.save(args.output)
    print(f"trained on {len(pairs)} documents in {time.time() - t0:.0f} s; saved to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
