"""Kill-and-resume: `align` killed with SIGKILL mid-run (twice), then `--resume`, must
write exactly the bytes of an uninterrupted run; a torn last line is cut; resuming with
other settings or another input is refused with a clear error."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import numbered_rows

from spacy_simalign.__main__ import main

METHOD = ["--method", "tfidf", "--batch-size", "1"]


def settings_of(method, batch_size):
    """What align records beside a partial output for this method and batch size."""
    from spacy_simalign.aligners.methods import method_config
    from spacy_simalign.engines import AlignJob

    return AlignJob(method_config(method).to_str(), None, batch_size).settings()


def cli(*args):
    return [sys.executable, "-m", "spacy_simalign", "align", *args]


def write_input(path, deplain_pairs, n):
    rows = numbered_rows(deplain_pairs, n)
    # a line separator inside a sentence must not break the line-based resume
    rows[1]["complex"]["paragraphs"][0][0] += "\u2028mit Trenner"
    path.write_bytes(b"".join((json.dumps(r, ensure_ascii=False) + "\n").encode("utf-8") for r in rows))
    return [r["id"] for r in rows]


def complete_lines(path):
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return 0
    return data.count(b"\n")


def run_and_kill(src, out, at_least, extra=()):
    """Start align, SIGKILL it once OUTPUT.partial holds `at_least` more complete lines."""
    partial = out.with_name(out.name + ".partial")
    start_lines = complete_lines(partial)
    proc = subprocess.Popen(cli(str(src), str(out), *METHOD, *extra), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while complete_lines(partial) < start_lines + at_least and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    running = proc.poll() is None
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stderr.close()
    assert running, "align finished before it could be killed: give it more pairs"
    return partial


def write_partial(out, data, method="tfidf", batch_size=1):
    """What a killed run leaves beside OUTPUT: OUTPUT.partial holding `data` and its settings."""
    partial = out.with_name(out.name + ".partial")
    partial.write_bytes(data)
    out.with_name(out.name + ".partial.json").write_text(
        json.dumps({"version": 2, "settings": dict(settings_of(method, batch_size), lang=None)})
    )
    return partial


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory, deplain_pairs):
    folder = tmp_path_factory.mktemp("whole")
    src, out = folder / "in.jsonl", folder / "out.jsonl"
    ids = write_input(src, deplain_pairs, 40)
    assert main(["align", str(src), str(out), *METHOD]) == 0
    return src, out.read_bytes(), ids


@pytest.mark.slow
def test_sigkill_twice_then_resume_gives_the_uninterrupted_bytes(tmp_path, uninterrupted):
    src, expected, ids = uninterrupted
    out = tmp_path / "out.jsonl"
    partial = run_and_kill(src, out, at_least=3)
    assert not out.exists(), "OUTPUT only appears when the run is complete"
    assert 3 <= complete_lines(partial) < len(ids)
    partial = run_and_kill(src, out, at_least=3, extra=["--resume"])
    kept = complete_lines(partial)
    assert 6 <= kept < len(ids)
    assert expected.startswith(partial.read_bytes()[: partial.read_bytes().rfind(b"\n") + 1])
    result = subprocess.run(cli(str(src), str(out), *METHOD, "--resume"), capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert out.read_bytes() == expected
    assert [json.loads(line)["id"] for line in out.read_bytes().split(b"\n") if line] == ids
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]


def test_a_torn_last_line_is_cut_and_redone(tmp_path, uninterrupted, capsys):
    """What a kill in the middle of a write leaves: complete lines, then part of one."""
    src, expected, ids = uninterrupted
    out = tmp_path / "out.jsonl"
    lines = expected.split(b"\n")
    partial = write_partial(out, b"\n".join(lines[:5]) + b"\n" + lines[5][: len(lines[5]) // 2])
    meta = out.with_name(out.name + ".partial.json")
    assert main(["align", str(src), str(out), *METHOD, "--resume"]) == 0, capsys.readouterr().err
    assert out.read_bytes() == expected
    assert not partial.exists() and not meta.exists()


def test_resume_refuses_other_settings_and_other_input(tmp_path, uninterrupted, deplain_pairs, capsys):
    src, expected, ids = uninterrupted
    out = tmp_path / "out.jsonl"
    partial = write_partial(out, b"".join(line + b"\n" for line in expected.split(b"\n")[:2]))
    before = partial.read_bytes()
    assert main(["align", str(src), str(out), "--method", "massalign", "--batch-size", "1", "--resume"]) == 2
    err = capsys.readouterr().err
    assert "cannot resume with other settings" in err and "aligner='spacy-simalign.Tfidf.v1 " in err
    other = tmp_path / "other.jsonl"
    rows = [json.loads(line) for line in src.read_text(encoding="utf-8").split("\n") if line][::-1]
    other.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["align", str(other), str(out), *METHOD, "--resume"]) == 2
    assert "is not from this input" in capsys.readouterr().err
    assert partial.read_bytes() == before and not out.exists()


def test_resume_without_a_partial_output_runs_everything(tmp_path, uninterrupted, capsys):
    src, expected, ids = uninterrupted
    out = tmp_path / "out.jsonl"
    assert main(["align", str(src), str(out), *METHOD, "--resume"]) == 0, capsys.readouterr().err
    assert out.read_bytes() == expected


def test_a_run_without_resume_starts_over(tmp_path, uninterrupted, capsys):
    src, expected, ids = uninterrupted
    out = tmp_path / "out.jsonl"
    partial = out.with_name(out.name + ".partial")
    partial.write_bytes(b'{"id": "stale"}\n')
    assert main(["align", str(src), str(out), *METHOD]) == 0, capsys.readouterr().err
    assert out.read_bytes() == expected and not partial.exists()


def test_two_runs_cannot_write_the_same_output(tmp_path, uninterrupted, capsys):
    import fcntl

    src, expected, ids = uninterrupted
    out = tmp_path / "out.jsonl"
    partial = out.with_name(out.name + ".partial")
    fd = os.open(partial, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert main(["align", str(src), str(out), *METHOD]) == 2
        assert "another align run is writing this output" in capsys.readouterr().err
    finally:
        os.close(fd)
    assert not out.exists()


def test_an_empty_partial_without_settings_starts_over(tmp_path, uninterrupted, capsys):
    """Killed between creating OUTPUT.partial and writing its settings: nothing to keep."""
    src, expected, ids = uninterrupted
    out = tmp_path / "out.jsonl"
    out.with_name(out.name + ".partial").write_bytes(b"")
    assert main(["align", str(src), str(out), *METHOD, "--resume"]) == 0, capsys.readouterr().err
    assert out.read_bytes() == expected


@pytest.mark.slow
def test_crf_resume_from_the_middle_of_a_batch_gives_the_same_bytes(tmp_path, deplain_pairs, capsys):
    """The default aligner encodes a whole batch at once: a resume that starts inside a batch
    re-encodes that batch as the first run did, so the lines after the cut are the same bytes."""
    src = tmp_path / "in.jsonl"
    write_input(src, deplain_pairs, 6)
    whole = tmp_path / "whole.jsonl"
    options = ["--method", "crf", "--batch-size", "4"]
    assert main(["align", str(src), str(whole), *options]) == 0, capsys.readouterr().err
    expected = whole.read_bytes()
    out = tmp_path / "out.jsonl"
    lines = expected.split(b"\n")
    write_partial(out, b"\n".join(lines[:2]) + b"\n" + lines[2][:100], "crf", 4)
    assert main(["align", str(src), str(out), *options, "--resume"]) == 0, capsys.readouterr().err
    assert out.read_bytes() == expected


def test_resume_on_a_complete_output_says_so_and_aligns_nothing(tmp_path, uninterrupted, capsys, monkeypatch):
    src, expected, ids = uninterrupted
    out = tmp_path / "out.jsonl"
    out.write_bytes(expected)
    from spacy_simalign.engines import align_file as module

    def no_engine(*args, **kwargs):
        raise AssertionError("a complete output was aligned again")

    monkeypatch.setattr(module, "make_engine", no_engine)
    assert main(["align", str(src), str(out), *METHOD, "--resume"]) == 0
    err = capsys.readouterr().err.strip()
    assert (
        err == f"{out} is complete: it holds all {len(ids)} pairs of {src}, nothing to resume "
        "(run without --resume to align again)"
    )
    assert out.read_bytes() == expected and sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]


def test_resume_on_an_output_of_another_input_aligns_again(tmp_path, uninterrupted, capsys):
    src, expected, ids = uninterrupted
    out = tmp_path / "out.jsonl"
    out.write_bytes(b"\n".join(expected.split(b"\n")[:-2]) + b"\n")  # one line short
    assert main(["align", str(src), str(out), *METHOD, "--resume"]) == 0
    assert capsys.readouterr().err.startswith(f"aligned {len(ids)} of {len(ids)} pairs (")
    assert out.read_bytes() == expected


def test_sigterm_keeps_the_partial_output_and_says_how_to_resume(tmp_path, uninterrupted):
    src, expected, ids = uninterrupted
    out = tmp_path / "out.jsonl"
    partial = out.with_name(out.name + ".partial")
    proc = subprocess.Popen(
        cli(str(src), str(out), *METHOD), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    while complete_lines(partial) < 2 and proc.poll() is None:
        time.sleep(0.01)
    assert proc.poll() is None, "align finished before it could be stopped: give it more pairs"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err
    lines = err.strip().splitlines()
    assert lines[-2].startswith("note: ") and lines[-2].endswith(
        f"of {len(ids)} pairs are saved in {partial}; run again with --resume to continue"
    ), err
    assert lines[-1] == "error: terminated (SIGTERM)" and "Traceback" not in err
    assert complete_lines(partial) >= 2 and not out.exists()
    assert main(["align", str(src), str(out), *METHOD, "--resume"]) == 0
    assert out.read_bytes() == expected


def interrupt_third_write(monkeypatch, where):
    """Ctrl+C (KeyboardInterrupt) at `where` in the partial output's third batch: once all its
    bytes are in the file, once they are also fsynced (the count not yet taken), or half-way
    through its bytes."""
    from spacy_simalign.engines import resume

    calls = []
    real_write, real_fsync = resume.write_all, os.fsync

    def write_all(fd, data):
        calls.append(fd)
        if len(calls) == 3 and where == "half-written":
            real_write(fd, data[: len(data) // 2])
            raise KeyboardInterrupt
        real_write(fd, data)
        if len(calls) == 3 and where == "written":
            raise KeyboardInterrupt

    def fsync(fd):
        real_fsync(fd)
        if where == "fsynced" and len(calls) == 3 and fd == calls[-1]:
            calls.append(None)  # once
            raise KeyboardInterrupt

    monkeypatch.setattr(resume, "write_all", write_all)
    monkeypatch.setattr(resume.os, "fsync", fsync)


@pytest.mark.parametrize("where, saved", [("written", 3), ("fsynced", 3), ("half-written", 2)])
def test_the_note_on_ctrl_c_counts_what_the_partial_output_holds(
    tmp_path, uninterrupted, capsys, monkeypatch, where, saved
):
    """The signal may land between a batch's write and its count: the note says what the file
    holds, whole lines only, and --resume carries on from there."""
    src, expected, ids = uninterrupted
    out = tmp_path / "out.jsonl"
    partial = out.with_name(out.name + ".partial")
    with monkeypatch.context() as patched:
        interrupt_third_write(patched, where)
        assert main(["align", str(src), str(out), *METHOD]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-2:] == [
        f"note: {saved} of {len(ids)} pairs are saved in {partial}; run again with --resume to continue",
        "error: interrupted",
    ]
    data = partial.read_bytes()
    assert data.endswith(b"\n") and data.count(b"\n") == saved and expected.startswith(data)
    assert main(["align", str(src), str(out), *METHOD, "--resume"]) == 0
    assert out.read_bytes() == expected


EDIT_OPTIONS = ["--method", "tfidf", "--batch-size", "3"]


def cut_to_one_sentence(row):
    """An edit that changes a pair's sentences: cut to one sentence a side (its gold dropped)."""
    row = dict(row, complex={"paragraphs": [[row["complex"]["paragraphs"][0][0]]]})
    row["simple"] = {"paragraphs": [[row["simple"]["paragraphs"][0][0]]]}
    row.pop("gold", None)
    return row


@pytest.fixture(scope="module")
def edited(tmp_path_factory, deplain_pairs):
    """An 8-pair input, its output, the same input with pair 5 (line 5) cut, and that one's output."""
    folder = tmp_path_factory.mktemp("edited")
    rows = numbered_rows(deplain_pairs, 8)
    src, changed = folder / "in.jsonl", folder / "changed.jsonl"
    src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    rows[4] = cut_to_one_sentence(rows[4])
    changed.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    outputs = []
    for path in (src, changed):
        out = folder / f"{path.stem}.out.jsonl"
        assert main(["align", str(path), str(out), *EDIT_OPTIONS]) == 0
        outputs.append(out.read_bytes())
    return src, outputs[0], changed, outputs[1], rows[4]["id"]


def test_resume_aligns_again_a_pair_edited_since_the_partial_output(tmp_path, edited, capsys):
    """Killed after 6 lines, pair 5 then cut to one sentence a side: --resume must not keep the old
    line 5 (complex index 42 of a pair of one sentence). Each line records a digest of its pair
    (made_from): the batch of the edited pair is aligned again, the result is the bytes of an
    uninterrupted run on the edited input."""
    src, old, changed, new, pair_id = edited
    out = tmp_path / "out.jsonl"
    old_lines = old.splitlines(keepends=True)
    write_partial(out, b"".join(old_lines[:6]), batch_size=3)
    assert main(["align", str(changed), str(out), *EDIT_OPTIONS, "--resume"]) == 0
    err = capsys.readouterr().err
    assert f"pair '{pair_id}' (line 5) was edited since it was aligned: aligning again from pair 4" in err
    assert out.read_bytes() == new and out.read_bytes() != old


def test_resume_on_an_output_of_another_method_is_refused(tmp_path, edited, capsys):
    """`--resume` with another --method (or batch size) on a finished output is refused, not
    reported "complete": the output was not made with the settings asked for."""
    src, old, changed, new, pair_id = edited
    out = tmp_path / "out.jsonl"
    out.write_bytes(old)
    assert main(["align", str(src), str(out), "--method", "intersection", "--batch-size", "3", "--resume"]) == 2
    err = capsys.readouterr().err
    assert "cannot resume: this output was made with other settings" in err and "complete" not in err
    assert main(["align", str(src), str(out), *EDIT_OPTIONS[:2], "--resume"]) == 2  # another batch size
    capsys.readouterr()
    assert out.read_bytes() == old and sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]


def test_resume_on_a_finished_output_of_an_edited_input_aligns_again(tmp_path, edited, capsys):
    src, old, changed, new, pair_id = edited
    out = tmp_path / "out.jsonl"
    out.write_bytes(old)
    assert main(["align", str(changed), str(out), *EDIT_OPTIONS, "--resume"]) == 0
    err = capsys.readouterr().err
    assert f"pair '{pair_id}' (line 5) was edited since it was written: aligning all pairs again" in err
    assert out.read_bytes() == new


def without_sentence_digests(data: bytes) -> bytes:
    """Output lines as an older version wrote them: `made_from` without `sentences`."""
    lines = [json.loads(raw) for raw in data.splitlines()]
    for line in lines:
        del line["made_from"]["sentences"]
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode("utf-8")


def test_resume_aligns_again_lines_an_older_version_wrote(tmp_path, edited, capsys):
    """Lines that do not record the sentences they aligned (an older version's) could not be told
    stale later: --resume, on a partial output or a finished one, aligns them again, with a note,
    and the result is the bytes of an uninterrupted run."""
    src, old, changed, new, pair_id = edited
    out = tmp_path / "out.jsonl"
    partial = write_partial(out, without_sentence_digests(b"".join(old.splitlines(keepends=True)[:6])), batch_size=3)
    assert main(["align", str(src), str(out), *EDIT_OPTIONS, "--resume"]) == 0
    err = capsys.readouterr().err
    assert f"note: {partial}: line 1 does not record the sentences it aligned" in err and "from pair 1" in err
    assert out.read_bytes() == old
    out.write_bytes(without_sentence_digests(old))
    assert main(["align", str(src), str(out), *EDIT_OPTIONS, "--resume"]) == 0
    assert "an older version wrote it" in capsys.readouterr().err
    assert out.read_bytes() == old


@pytest.mark.parametrize("resume", [False, True])
def test_align_reads_the_input_twice_whether_or_not_it_resumes(tmp_path, edited, capsys, monkeypatch, resume):
    """One pass checks every line before any work (and, when resuming, keeps each pair's id and
    digest), one pass aligns: checking a partial output must not read the input again."""
    from spacy_simalign.engines import align_file
    from spacy_simalign.formats import pair_jsonl

    src, old, changed, new, pair_id = edited
    out = tmp_path / "out.jsonl"
    if resume:
        write_partial(out, b"".join(old.splitlines(keepends=True)[:6]), batch_size=3)
    passes = []
    read = pair_jsonl.read_pairs

    def counted(path, *args, **kwargs):
        passes.append(path)
        return read(path, *args, **kwargs)

    monkeypatch.setattr(pair_jsonl, "read_pairs", counted)
    monkeypatch.setattr(align_file, "read_pairs", counted)
    assert main(["align", str(changed), str(out), *EDIT_OPTIONS, *(["--resume"] if resume else [])]) == 0
    capsys.readouterr()
    assert passes == [str(changed), str(changed)]
    assert out.read_bytes() == new
