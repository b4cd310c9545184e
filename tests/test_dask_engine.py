"""The Dask engine: the same lines as the local run, in input order, and each worker builds its
pipeline (the model) once, not once per pair. The default tests use a cluster inside this process
(threads, no worker processes to start); the 2-process LocalCluster of `--engine dask` is the slow tests'."""

import json

import pytest
from conftest import align_cli, numbered_rows, write_jsonl

pytest.importorskip("distributed")

from spacy_simalign.aligners.methods import method_config  # noqa: E402
from spacy_simalign.engines import AlignJob, LocalEngine, batches  # noqa: E402
from spacy_simalign.engines.dask_cluster import DaskEngine  # noqa: E402
from spacy_simalign.engines.work import worker_stats  # noqa: E402
from spacy_simalign.formats.pair_jsonl import read_pairs  # noqa: E402


@pytest.fixture(scope="module")
def pairs_file(tmp_path_factory, deplain_pairs):
    return write_jsonl(tmp_path_factory.mktemp("dask") / "in.jsonl", numbered_rows(deplain_pairs, 14))


@pytest.mark.slow
def test_dask_localcluster_writes_the_local_bytes(tmp_path, pairs_file):
    local, remote = tmp_path / "local.jsonl", tmp_path / "dask.jsonl"
    align_cli(pairs_file, local)
    align_cli(pairs_file, remote, "--engine", "dask", "--n-process", "2")
    assert remote.read_bytes() == local.read_bytes()
    assert local.read_bytes().count(b"\n") == 14


def test_a_cluster_in_this_process_gives_the_local_lines_and_builds_once(pairs_file):
    from distributed import LocalCluster

    job = AlignJob(method_config("massalign").to_str(), batch_size=3)
    built = worker_stats().get("pipeline", 0)
    with LocalEngine() as engine:
        local = [line for _, lines in engine.map(job, batches(read_pairs(str(pairs_file)), 3)) for line in lines]
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        with DaskEngine(cluster.scheduler_address) as engine:
            starts, got = [], []
            for start, lines in engine.map(job, batches(read_pairs(str(pairs_file)), 3)):
                starts.append(start)
                got.extend(lines)
            stats = engine.run_on_workers(worker_stats)
    assert starts == [0, 3, 6, 9, 12] and got == local and len(got) == 14
    # the worker shares this process's cache: at most the local run's pipeline was built, and reused
    assert [s["pipeline"] - built <= 1 for s in stats.values()] == [True]


@pytest.mark.slow
def test_each_worker_builds_the_model_once(pairs_file):
    job = AlignJob(method_config("massalign").to_str(), batch_size=2)
    ids = [r.id for r in read_pairs(str(pairs_file))]
    with DaskEngine(None, n_workers=2) as engine:
        got = []
        for start, lines in engine.map(job, batches(read_pairs(str(pairs_file)), job.batch_size)):
            got.extend(json.loads(line)["id"] for line in lines)
        stats = engine.run_on_workers(worker_stats)
    assert got == ids
    assert len(stats) == 2
    assert sum(s.get("pairs", 0) for s in stats.values()) == len(ids)
    for s in stats.values():
        assert s.get("pipeline", 0) == (1 if s.get("pairs") else 0)


def test_a_cluster_without_workers_is_an_error_not_a_hang(pairs_file):
    """Every worker gone (here: none ever joined): the client stops with a clear error."""
    from distributed import LocalCluster

    from spacy_simalign.core.errors import InputError

    job = AlignJob(method_config("tfidf").to_str(), batch_size=2)
    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster:
        with DaskEngine(cluster.scheduler_address) as engine:
            engine.NO_WORKER_TIMEOUT_S, engine.POLL_S = 1.0, 0.2
            with pytest.raises(InputError, match="has had no worker for 1 s: start workers"):
                list(engine.map(job, batches(read_pairs(str(pairs_file)), job.batch_size)))
