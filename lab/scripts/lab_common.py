"""What the lab's scripts share: their printed tables also written to `--output FILE` and figures to
`--json FILE` (weasel runs a script without a shell, so without `> FILE`), the seeded folds by
document and the gold read with each document's domain, and seeded CRF training runs over one pool of
documents featurized once (in turn or in forked processes, with the same results). The user's
project (../project/) has its own copies: the two projects do not import each other."""

import argparse
import contextlib
import json
import os
import random
import sys
from typing import Dict, List, Optional, Sequence, Tuple

from spacy_simalign.aligners.crf.aligner import CRFAligner, train_aligner
from spacy_simalign.aligners.crf.train import TrainingSettings, featurize_all
from spacy_simalign.core.structures import TrainingPair
from spacy_simalign.formats.jsonl import atomic_output
from spacy_simalign.formats.pair_jsonl import read_pairs


class _Both:
    """A text stream that writes to two streams (the terminal and the report file). The file is
    flushed at each write: a child forked later (multiprocessing flushes the streams it inherits
    when it ends) then holds no buffered text to write a second time."""

    def __init__(self, first, second):
        self.first, self.second = first, second

    def write(self, text: str) -> int:
        self.second.write(text)
        self.second.flush()
        return self.first.write(text)

    def flush(self) -> None:
        self.first.flush()
        self.second.flush()

    def __getattr__(self, name):  # isatty, encoding, fileno...: the terminal's
        return getattr(self.first, name)


class _Failed(Exception):
    """A script's main returned a non-zero status: its report is not kept."""


@contextlib.contextmanager
def printed_to(path):
    """Inside, what is printed to stdout also goes to `path` (its folder created), which is replaced
    only when the block ends without an error; with `path` None, nothing changes."""
    if not path:
        yield
        return
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with atomic_output(str(path)) as handle, contextlib.redirect_stdout(_Both(sys.stdout, handle)):
        yield


def run_main(main, argv=None) -> int:
    """`main(argv)` of a script whose parser has an `--output FILE` option: what it prints is also
    written to FILE, kept only when main returns 0 (a failed run leaves the old report in place)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    peek = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    peek.add_argument("--output", default=None)
    path = peek.parse_known_args(argv)[0].output
    try:
        with printed_to(path):
            status = main(argv)
            if status and path:
                raise _Failed(status)
    except _Failed as failed:
        return failed.args[0]
    return status


def add_output_option(parser: argparse.ArgumentParser) -> None:
    """The `--output FILE` option that run_main reads."""
    parser.add_argument(
        "--output",
        default=None,
        metavar="FILE",
        help="also write what is printed to FILE (kept only when the run succeeds)",
    )


def write_json(path, value) -> None:
    """A script's `--json FILE` figures: indented JSON, its folder created, the file replaced only
    when whole (nothing half-written if the disk fills)."""
    if not path:
        return
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with atomic_output(str(path)) as handle:
        handle.write(json.dumps(value, indent=2) + "\n")


# -- gold and folds --

PORTAL, BIBLE = "Alumniportal-2020", "bible_verified"  # the two corpora of DEplain-web dev


def folds_of(n: int, k: int, seed: int) -> List[List[int]]:
    """k test folds of the indices 0..n-1: a seeded shuffle dealt out round-robin, each fold sorted."""
    order = list(range(n))
    random.Random(seed).shuffle(order)
    return [sorted(order[f::k]) for f in range(k)]


def read_gold_pairs(path) -> Tuple[List[str], List[TrainingPair]]:
    """(the domain of each pair, its training pair) of a pair JSONL file with gold: the domain is
    the `corpus` field (DEplain-web), else the `website` field (the Simple German Corpus), else "?"."""
    records = list(read_pairs(str(path), default_lang="de"))
    domains = [r.raw.get("corpus", r.raw.get("website", "?")) for r in records]
    return domains, [r.training_pair(str(path)) for r in records]


# -- training runs --

RUN_STATE: Dict = {}  # what the training runs read (set before forking): pool, config, training, epochs, encoder, *_inputs


def _run(job):
    """One training run: (name, train indices into the pool, test indices, training seed) ->
    (name, test indices, predictions)."""
    name, train_idx, test_idx, seed = job
    st = RUN_STATE
    aligner = train_aligner(
        [st["pool"][i] for i in train_idx],
        st["config"],
        epochs=st["epochs"],
        settings=TrainingSettings(**{**st["training"], "seed": seed}),
        encoder=st["encoder"],
        inputs=[st["train_inputs"][i] for i in train_idx],
    )
    preds = [aligner.align_input(st["test_inputs"][i]) for i in test_idx]
    return name, test_idx, preds


def prepare_runs(
    pool: Sequence, config: Dict, epochs: Optional[int], n_jobs: int, training: Optional[Dict] = None
) -> None:
    """Fill RUN_STATE for run_training: the pool's documents featurized once, with and without their
    gold (`training`: TrainingSettings overrides of every run, its seed aside; `epochs` None: the
    training default). With n_jobs above 1, torch gets one thread first: no OpenMP pool in the parent, on which
    forked children would deadlock (training runs on one torch thread anyway, and the features do not
    depend on torch's thread count)."""
    if n_jobs > 1:
        import torch

        torch.set_num_threads(1)
    probe = CRFAligner(config)
    RUN_STATE.update(
        pool=pool,
        config=config,
        training=dict(training or {}),
        epochs=epochs,
        encoder=probe.encoder,
        train_inputs=featurize_all(probe, pool, with_gold=True),
        test_inputs=featurize_all(probe, pool, with_gold=False),
    )


def run_training(jobs, n_jobs: int) -> List:
    """The training runs `jobs` (see _run) on what RUN_STATE holds, in `n_jobs` forked processes when
    above 1 (the same results: every run is seeded)."""
    if n_jobs > 1:
        import multiprocessing as mp

        with mp.get_context("fork").Pool(n_jobs) as workers:
            return workers.map(_run, jobs, chunksize=1)
    return [_run(j) for j in jobs]
