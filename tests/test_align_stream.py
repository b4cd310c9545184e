"""Streaming `align`: fixed batches, results in input order with a bounded number of
batches in flight (memory flat in the number of pairs), N local processes writing the
same bytes as one, encoder batching across pairs, and a progress line only when asked."""

import io
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
from conftest import align_cli, numbered_rows, with_fake_encoder

from spacy_simalign.__main__ import main
from spacy_simalign.aligners.methods import method_config
from spacy_simalign.engines import AlignJob, LocalEngine, batches
from spacy_simalign.engines.multiprocess import ProcessEngine
from spacy_simalign.engines.ordered import ordered_results
from spacy_simalign.engines.progress import interactive, progress_bar
from spacy_simalign.engines.work import align_records
from spacy_simalign.formats.pair_jsonl import parse_pair


def job_of(method, batch_size):
    return AlignJob(method_config(method).to_str(), batch_size=batch_size)


def records(deplain_pairs, n):
    return [parse_pair(obj, "dev", k + 1) for k, obj in enumerate(numbered_rows(deplain_pairs, n))]


class CountingStream:
    """An input stream that counts how far the consumer has read."""

    def __init__(self, items):
        self.items, self.pulled = list(items), 0

    def __iter__(self):
        for item in self.items:
            self.pulled += 1
            yield item


def test_batches_are_fixed_by_input_position():
    got = list(batches(range(10), 4))
    assert got == [(0, [0, 1, 2, 3]), (4, [4, 5, 6, 7]), (8, [8, 9])]
    # resuming after 6 done restarts at the batch holding position 6, with the same boundaries
    assert list(batches(range(10), 4, first=6)) == got[1:]
    assert list(batches(range(10), 4, first=8)) == got[2:]
    assert list(batches([], 4)) == []


def test_ordered_results_keep_order_and_bound_the_work_in_flight():
    stream = CountingStream(range(50))
    seen = []
    with ThreadPoolExecutor(4) as pool:
        for k, value in enumerate(ordered_results(lambda x: pool.submit(lambda y: y * y, x), stream, window=3)):
            assert stream.pulled <= k + 3
            seen.append(value)
    assert seen == [x * x for x in range(50)]


def test_local_engine_reads_one_batch_ahead_at_most(deplain_pairs):
    stream = CountingStream(records(deplain_pairs, 9))
    job = job_of("tfidf", 2)
    with LocalEngine() as engine:
        for k, (start, lines) in enumerate(engine.map(job, batches(stream, 2))):
            assert start == 2 * k
            assert stream.pulled <= start + 2 + 1
            assert [json.loads(line)["id"] for line in lines] == [r.id for r in stream.items[start : start + 2]]


@pytest.mark.slow
def test_two_processes_write_the_bytes_of_one(tmp_path, deplain_pairs):
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r.raw) + "\n" for r in records(deplain_pairs, 12)), encoding="utf-8")
    outs = []
    for n in (1, 2):
        out = tmp_path / f"out{n}.jsonl"
        result = align_cli(src, out, "--n-process", str(n))
        assert result.stderr.startswith("aligned 12 of 12 pairs (") and result.stderr.count("\n") == 1, (
            "one summary line and no progress bar when stderr is not a terminal"
        )
        beads = sum(len(json.loads(line)["alignments"]) for line in out.read_text(encoding="utf-8").splitlines())
        assert result.stderr.startswith(f"aligned 12 of 12 pairs ({beads} beads) in ") and beads > 12
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    assert [json.loads(line)["id"] for line in outs[0].decode("utf-8").split("\n") if line] == [
        json.loads(line)["id"] for line in src.read_text(encoding="utf-8").split("\n") if line
    ]


def test_process_engine_bounds_the_batches_in_flight(deplain_pairs):
    """One spawned worker is enough to see the window (2 batches per worker); two are the slow tests'."""
    stream = CountingStream(records(deplain_pairs, 12))
    job = job_of("tfidf", 2)
    with ProcessEngine(1) as engine:
        window = 2 * engine.workers
        starts = []
        for start, lines in engine.map(job, batches(stream, 2)):
            assert stream.pulled <= start + 2 * (window + 1)
            starts.append(start)
    assert starts == list(range(0, 12, 2))


def test_align_records_matches_one_pair_at_a_time(deplain_pairs):
    batch = records(deplain_pairs, 4)
    job = job_of("massalign", 4)
    together = align_records(batch, job)
    alone = [align_records([r], job)[0] for r in batch]
    assert together == alone


def test_the_component_encodes_each_batch_in_one_call(deplain_pairs, monkeypatch):
    """nlp.pipe hands the sentence aligner whole batches: it encodes every sentence of a batch in
    one call (from an empty cache), then aligns each pair from those vectors (the default CRF on the
    fake encoder: the calls are counted, not the vectors)."""
    from spacy_simalign.pipeline.build import alignment_pipeline
    from spacy_simalign.pipeline.doc_pair import pair_from_record, side_of

    nlp = alignment_pipeline("de", with_fake_encoder(method_config("crf")).to_str())
    encoder = nlp.get_pipe("simalign_sentence_aligner").aligner.encoder
    calls = []
    encode = encoder._encode_batch
    monkeypatch.setattr(
        encoder, "_encode_batch", lambda texts, lang: calls.append((list(texts), lang)) or encode(texts, lang)
    )
    batch = records(deplain_pairs, 5)
    docs = list(nlp.pipe((pair_from_record(nlp, r) for r in batch), batch_size=3))
    assert all(doc._.beads for doc in docs)
    assert len(calls) == 2 and all(lang == "de" for _, lang in calls)
    for texts, group in zip((calls[0][0], calls[1][0]), (docs[:3], docs[3:])):
        every = [s for d in group for name in ("complex", "simple") for s in side_of(d, name).sentences]
        assert texts == list(dict.fromkeys(every))


@pytest.mark.slow
def test_crf_output_is_the_same_in_one_or_two_processes(tmp_path, deplain_pairs):
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r.raw) + "\n" for r in records(deplain_pairs, 6)), encoding="utf-8")
    outs = []
    for n, size in ((1, 2), (2, 2)):
        out = tmp_path / f"out{n}.jsonl"
        assert (
            main(["align", str(src), str(out), "--method", "crf", "--batch-size", str(size), "--n-process", str(n)])
            == 0
        )
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and outs[0].count(b"\n") == 6


def test_progress_shows_rate_and_eta_only_when_enabled(monkeypatch):
    stream = io.StringIO()
    bar = progress_bar(10, initial=2, stream=stream, enabled=True)
    for _ in range(4):
        bar.update()
    bar.refresh()
    bar.close()
    text = stream.getvalue()
    assert "6/10" in text and "pairs/s" in text and "<" in text  # done/total, rate, elapsed<remaining
    quiet = io.StringIO()
    bar = progress_bar(10, stream=quiet, enabled=False)
    bar.update(10)
    bar.close()
    assert quiet.getvalue() == ""

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("SPACY_SIMALIGN_NO_PROGRESS", raising=False)
    assert interactive(Terminal()) and not interactive(io.StringIO())
    monkeypatch.setenv("CI", "true")
    assert not interactive(Terminal())


def test_bad_engine_options_are_clear_errors(tmp_path, deplain_pairs, capsys):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text(json.dumps(deplain_pairs[0]) + "\n", encoding="utf-8")
    for extra, message in (
        (["--scheduler", "tcp://127.0.0.1:1"], "--scheduler needs --engine dask"),
        (["--n-process", "0"], "--n-process = 0: must be at least 1"),
        (["--batch-size", "0"], "--batch-size = 0: must be at least 1"),
        (["--model", str(tmp_path / "none.pt")], "model not found"),
    ):
        assert main(["align", str(src), str(out), "--method", "tfidf", *extra]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_pipelines_are_rebuilt_past_the_vocab_limit_with_the_same_output(deplain_pairs, monkeypatch):
    """The blank pipeline's vocab grows with every new token; past MAX_VOCAB it is rebuilt,
    which keeps memory flat over long runs and must not change the output."""
    from spacy_simalign.engines import work

    batch = records(deplain_pairs, 3)
    job = job_of("massalign", 1)
    expected = [align_records([r], job)[0] for r in batch]
    built = work.worker_stats().get("pipeline", 0)
    monkeypatch.setattr(work, "MAX_VOCAB", 10)
    got = [align_records([r], job)[0] for r in batch]
    assert got == expected
    assert work.worker_stats()["pipeline"] >= built + 2


def pair_bytes(deplain_pairs, n):
    return b"".join((json.dumps(r, ensure_ascii=False) + "\n").encode("utf-8") for r in numbered_rows(deplain_pairs, n))


def test_align_from_standard_input_and_from_a_pipe(tmp_path, deplain_pairs, monkeypatch, capsys):
    """`cat four.jsonl | align /dev/stdin out.jsonl` (or `align <(cat four.jsonl) ...`) aligns the
    four pairs: a stream cannot be read twice, and a second read would find it empty and write an
    empty output with exit 0. `-` is standard input; a stream is read once (into a spool no crash
    leaves behind), validated whole, then aligned: the same bytes as from the file."""
    import threading

    data = pair_bytes(deplain_pairs, 4)
    src = tmp_path / "four.jsonl"
    src.write_bytes(data)
    options = ["--method", "tfidf"]
    assert main(["align", str(src), str(tmp_path / "file.jsonl"), *options]) == 0
    expected = (tmp_path / "file.jsonl").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["align", "-", str(tmp_path / "stdin.jsonl"), *options]) == 0
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(data))
    writer.start()
    assert main(["align", str(fifo), str(tmp_path / "fifo.jsonl"), *options]) == 0
    writer.join(timeout=30)
    assert "aligned 4 of 4 pairs" in capsys.readouterr().err
    assert (tmp_path / "stdin.jsonl").read_bytes() == expected == (tmp_path / "fifo.jsonl").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "fifo.jsonl",
        "file.jsonl",
        "four.jsonl",
        "pipe",
        "stdin.jsonl",
    ]


def test_a_bad_line_on_standard_input_names_it_and_writes_nothing(tmp_path, deplain_pairs, monkeypatch, capsys):
    data = pair_bytes(deplain_pairs, 2) + b'{"id": "x", "lang": }\n'
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["align", "-", str(tmp_path / "out.jsonl"), "--method", "tfidf"]) == 2
    assert capsys.readouterr().err.startswith("error: <stdin>:3: invalid JSON")
    assert list(tmp_path.iterdir()) == []


def children_of(pid):
    """The pids whose parent is `pid` (Linux /proc)."""
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(name))
    return out


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_die_with_a_parent_killed_by_sigkill(tmp_path, deplain_pairs):
    """`--n-process 2` killed with SIGKILL leaves no worker running: each worker holds about 530 MB
    and, orphaned under PID 1, would block on its pipe for good. The workers end with their parent."""
    import signal
    import time

    src = tmp_path / "in.jsonl"
    src.write_bytes(pair_bytes(deplain_pairs, 200))
    out = tmp_path / "out.jsonl"
    cmd = [sys.executable, "-m", "spacy_simalign", "align", str(src), str(out), "--method", "tfidf"]
    proc = subprocess.Popen([*cmd, "--n-process", "2", "--batch-size", "1"], stderr=subprocess.DEVNULL)
    partial = out.with_name(out.name + ".partial")
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        if partial.exists() and partial.read_bytes().count(b"\n") >= 2:
            break
        time.sleep(0.05)
    workers = [pid for pid in children_of(proc.pid) if "spawn_main" in open(f"/proc/{pid}/cmdline").read()]
    assert proc.poll() is None and len(workers) == 2, "align finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(alive(pid) for pid in workers):
        time.sleep(0.05)
    left = [pid for pid in workers if alive(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"workers {left} outlived their parent"


def test_align_parses_its_aligner_config_once(tmp_path, deplain_pairs, monkeypatch, capsys):
    """The run's settings are one object: the [aligner] config text that the output's digest is
    made from is parsed once, and the pipeline is built from that parse, not from the text again."""
    from confection import Config

    from spacy_simalign.core import caches

    src = tmp_path / "pairs.jsonl"
    src.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in deplain_pairs[:2]), encoding="utf-8")
    parses = []
    from_str = Config.from_str

    def counted(self, text, *args, **kwargs):
        if "[aligner]" in text:
            parses.append(text)
        return from_str(self, text, *args, **kwargs)

    caches.drop("pipeline")
    monkeypatch.setattr(Config, "from_str", counted)
    assert main(["align", str(src), str(tmp_path / "out.jsonl"), "--method", "tfidf"]) == 0
    capsys.readouterr()
    assert len(parses) == 1


def test_align_checks_its_paths_once(tmp_path, deplain_pairs, monkeypatch, capsys):
    """The command line checks a command's paths before it runs; align_file, which checks them for
    a caller from Python, does not check them again for the command."""
    from spacy_simalign import __main__ as entry
    from spacy_simalign.engines import align_file

    src = tmp_path / "pairs.jsonl"
    src.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in deplain_pairs[:1]), encoding="utf-8")
    checks = []
    for module in (entry, align_file):
        original = module.check_paths
        monkeypatch.setattr(
            module, "check_paths", lambda paths, _original=original: checks.append(paths) or _original(paths)
        )
    assert main(["align", str(src), str(tmp_path / "out.jsonl"), "--method", "tfidf"]) == 0
    capsys.readouterr()
    assert len(checks) == 1 and str(src) in checks[0].inputs
