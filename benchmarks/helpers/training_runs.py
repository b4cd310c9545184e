"""Independent CRF training runs over one pool of gold documents, featurized once, run in turn or
in forked processes with the same results (every run is seeded): what eval_crf_domains.py trains
its folds and domains with (the lab's eval_crf_adaptation.py too, eval_four_corpora.py its
held-out models), and how cv_crf.py reads its --set options."""

import dataclasses
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from spacy_simalign.aligners.crf.aligner import CRFAligner, train_aligner
from spacy_simalign.aligners.crf.train import TrainingSettings, featurize_all

RUN_STATE: Dict = {}  # what the training runs read (set before forking): pool, config, training, epochs, encoder, *_inputs


def split_settings(items: Sequence[Tuple[str, object]]) -> Tuple[Dict, Dict]:
    """(CRFAligner config overrides, TrainingSettings overrides) of a script's --set KEY=VALUE
    items: `training.KEY` is a training setting (as in train_crf.py), any other KEY an
    aligner setting. An unknown training setting is an error here, before any training."""
    fields = {f.name for f in dataclasses.fields(TrainingSettings)}
    config, training = {}, {}
    for key, value in items:
        if key.startswith("training."):
            name = key.split(".", 1)[1]
            if name not in fields:
                raise ValueError(f"unknown training setting {name!r}: one of {', '.join(sorted(fields))}")
            training[name] = value
        else:
            config[key] = value
    return config, training


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
    return map_runs(_run, jobs, n_jobs)


def map_runs(run: Callable, jobs, n_jobs: int) -> List:
    """`run` (a module-level function reading RUN_STATE) of each of `jobs`, in turn or, with n_jobs
    above 1, in that many forked processes: a script's own kind of run (eval_four_corpora.py)."""
    if n_jobs > 1:
        import multiprocessing as mp

        with mp.get_context("fork").Pool(n_jobs) as workers:
            return workers.map(run, jobs, chunksize=1)
    return [run(j) for j in jobs]
