"""Train the CRF aligner's default weights on all DEplain-web dev documents (fixed seed)
and save them where the package ships them (spacy_simalign/weights/crf/).

This script is the one writer of the shipped weights: it saves through the library (CRFAligner.save)
from a checkout, which declares no paths, while every command refuses an output inside the installed
package (core/output_paths.py), so that `adapt` or `align` can never replace them by accident.

    SPACY_SIMALIGN_CACHE=.cache/emb .venv/bin/python project/train_crf.py [--output DIR]

The aligner and its training settings are the [components.sentence_aligner.aligner] block of
configs/crf.cfg (the same block `spacy train configs/crf.cfg` trains), its [...training] block
holding the epochs and learning rates; --set changes a setting of that block, e.g.
`--set training.epochs=10 --set top_k=8`. The steps are CRFAligner.initialize, then
CRFAligner.fit: the trainer that `spacy train` steps through the component's update.

With gold documents of your own domain, train on them beside the DEplain ones (several --data
files are read in turn) and align with `align --model DIR`; how much a few in-domain documents
give: `cd lab && python -m spacy project run eval-crf-adaptation`. Mixed in unweighted, two
documents barely move a CRF trained on 82: `python -m spacy_simalign adapt` fine-tunes the
shipped weights on them instead (docs/adapt.md).

    .venv/bin/python project/train_crf.py --data ../shared/data/deplain-web-dev/pairs.jsonl \
        --data my-gold.jsonl --output my-crf

The shipped weights are two CRFs (crf/choice.py): the one of --data and, with --wide-data, a wide
one trained on the --data files and those as ordinary gold, which aligns the documents it is surer of:

    .venv/bin/python project/train_crf.py --wide-data ../shared/data/sgc-dev/pairs.jsonl
"""

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from script_options import add_set_option  # noqa: E402

from spacy_simalign.aligners.crf.aligner import DEFAULT_WEIGHTS  # noqa: E402
from spacy_simalign.core.config_sections import resolve_section  # noqa: E402
from spacy_simalign.formats.pair_jsonl import read_training_pairs  # noqa: E402

DEFAULT_DATA = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"
DEFAULT_CONFIG = ROOT / "configs" / "crf.cfg"
BLOCK = "components.sentence_aligner.aligner"


def build_aligner(config_path: str, overrides):
    """The untrained aligner of the config's aligner block, with --set overrides."""
    from spacy.util import load_config, registry

    from spacy_simalign.core import registries as _registries  # noqa: F401  (creates the plugin's registries)

    aligner = load_config(config_path, interpolate=True)["components"]["sentence_aligner"]["aligner"]
    # the config holds only the settings that differ from the defaults: fill in the others, so that
    # --set can override any of them
    filled = registry.fill({"aligner": aligner}, validate=False)
    return resolve_section(filled, "aligner", config_path, {f"aligner.{key}": value for key, value in overrides})


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--data",
        action="append",
        default=None,
        help="pair JSONL with gold beads, pre-segmented sides (repeatable; default: the DEplain-web dev pairs)",
    )
    ap.add_argument(
        "--wide-data",
        action="append",
        default=[],
        metavar="PATH",
        help="also train the wide CRF (crf/choice.py) on the --data files and these (repeatable; the shipped "
        "weights: ../shared/data/sgc-dev/pairs.jsonl), saved in the output's wide/",
    )
    ap.add_argument(
        "--wide-margin", type=float, default=0.1, help="with --wide-data: the entropy margin of the choice (nats)"
    )
    ap.add_argument("--output", default=str(DEFAULT_WEIGHTS))
    ap.add_argument("--config", default=str(DEFAULT_CONFIG), help=f"training config with a [{BLOCK}] block")
    add_set_option(
        ap,
        "a setting of the aligner block (training.epochs=10, top_k=8, ...)",
    )
    ap.add_argument(
        "--epochs", type=int, default=None, help="both CRFs' epochs (training.epochs and training.combination_epochs)"
    )
    ap.add_argument("--seed", type=int, default=None, help="training.seed")
    args = ap.parse_args(argv)
    if args.epochs is not None:
        args.set += [("training.epochs", args.epochs), ("training.combination_epochs", args.epochs)]
    if args.seed is not None:
        args.set.append(("training.seed", args.seed))
    pairs = [pair for path in (args.data or [str(DEFAULT_DATA)]) for pair in read_training_pairs(path)]
    t0 = time.time()
    aligner = build_aligner(args.config, args.set)
    log = lambda m: print(m, flush=True)  # noqa: E731
    wide_pairs = [pair for path in args.wide_data for pair in read_training_pairs(path)]
    aligner.initialize(lambda: pairs, log=log, wide_pairs=wide_pairs)  # the wide CRF first, if any
    aligner.fit(pairs, log)
    if wide_pairs:
        aligner.config["wide_margin"] = args.wide_margin
        print(f"wide CRF: trained on {len(pairs) + len(wide_pairs)} documents", flush=True)
    aligner.save(args.output)
    print(
        f"trained on {len(pairs)} documents ({aligner.settings.epochs} epochs) in {time.time() - t0:.0f} s; "
        f"saved to {args.output}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
