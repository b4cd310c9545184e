"""A full disk during `align`, `evaluate --output` or `render` ends in one line naming the file,
exit 2, not an OSError traceback, and nothing half-written (an existing output untouched, no
temporary copy, no empty OUTPUT.partial from a disk already full);
the pairs `align` had saved stay in OUTPUT.partial and --resume after freeing space writes the
bytes of an uninterrupted run. In-process with the writes made to fail (ENOSPC), and on a real
2 MB tmpfs where the tests run as root (slow)."""

import errno
import json
import os
import shutil
import subprocess
import sys

import pytest
from conftest import DEPLAIN_PAIRS, numbered_rows

from spacy_simalign.__main__ import main
from spacy_simalign.engines import resume
from spacy_simalign.formats import jsonl

OPTIONS = ["--method", "tfidf", "--batch-size", "1"]


def no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


@pytest.fixture(scope="module")
def aligned(tmp_path_factory, deplain_pairs):
    """Six pairs and their output from an uninterrupted run."""
    folder = tmp_path_factory.mktemp("whole")
    src, out = folder / "in.jsonl", folder / "out.jsonl"
    src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in numbered_rows(deplain_pairs, 6)))
    assert main(["align", str(src), str(out), *OPTIONS]) == 0
    return src, out.read_bytes()


def one_line(capsys):
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err.strip()


def test_align_on_a_disk_that_fills_up_keeps_the_saved_pairs_for_resume(tmp_path, aligned, capsys, monkeypatch):
    src, expected = aligned
    out = tmp_path / "out.jsonl"
    calls = []
    real_write_all = resume.write_all

    def fills_up(fd, data):
        calls.append(len(data))
        if len(calls) == 3:  # the third batch: part of it reaches the disk, then no more space
            os.write(fd, data[: len(data) // 2])
            no_space()
        real_write_all(fd, data)

    monkeypatch.setattr(resume, "write_all", fills_up)
    assert main(["align", str(src), str(out), *OPTIONS]) == 2
    partial = out.with_name(out.name + ".partial")
    assert one_line(capsys) == (
        f"error: {out}: cannot write: no space left on device; 2 of 6 pairs are saved in {partial}: "
        "free some space, then run again with --resume to continue"
    )
    assert not out.exists() and partial.read_bytes() == b"".join(expected.splitlines(keepends=True)[:2])
    monkeypatch.undo()
    assert main(["align", str(src), str(out), *OPTIONS, "--resume"]) == 0
    assert out.read_bytes() == expected


def test_align_on_a_full_disk_leaves_no_empty_partial(tmp_path, aligned, capsys, monkeypatch):
    src, _ = aligned
    out = tmp_path / "out.jsonl"
    monkeypatch.setattr(jsonl.tempfile, "mkstemp", no_space)  # not even the settings file fits
    assert main(["align", str(src), str(out), *OPTIONS]) == 2
    assert one_line(capsys).startswith(f"error: {out}.partial.json: cannot write: no space left on device")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["evaluate", "render"])
def test_evaluate_and_render_on_a_full_disk_write_nothing(tmp_path, capsys, monkeypatch, command):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_bytes(DEPLAIN_PAIRS.read_bytes().splitlines(keepends=True)[0])
    out = tmp_path / ("scores.json" if command == "evaluate" else "view.html")
    out.write_text("old\n")
    pred = tmp_path / "pred.jsonl"
    obj = json.loads(pairs.read_text())
    pred.write_text(json.dumps({"id": obj["id"], "alignments": [{"complex": c, "simple": s} for c, s in obj["gold"]]}))
    argv = (
        ["evaluate", str(pairs), str(pred), "--output", str(out)]
        if command == "evaluate"
        else ["render", str(pairs), str(out)]
    )
    monkeypatch.setattr(jsonl.os, "fsync", no_space)
    assert main(argv) == 2
    assert one_line(capsys).endswith(
        f"error: {out}: cannot write: no space left on device (nothing was written; free some space)"
    )
    assert out.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["pairs.jsonl", "pred.jsonl", out.name]
    )


@pytest.fixture()
def tiny_disk(tmp_path):
    """A 2 MB tmpfs (root only: skipped elsewhere)."""
    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("mounting a tmpfs needs root")
    mount = tmp_path / "disk"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    yield mount
    subprocess.run(["umount", str(mount)], check=True)


def fill(folder, leave: int):
    """Fill the disk but for about `leave` bytes; returns the filler file."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)
    size = filler.stat().st_size
    os.truncate(filler, max(0, size - leave))
    return filler


@pytest.mark.slow
def test_on_a_real_full_disk(tiny_disk, tmp_path, deplain_pairs):
    src, whole = tmp_path / "in.jsonl", tmp_path / "whole.jsonl"
    src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in numbered_rows(deplain_pairs, 30)))
    assert main(["align", str(src), str(whole), *OPTIONS]) == 0
    expected = whole.read_bytes()
    assert len(expected) > 4 * 4096
    shutil.copy(src, tiny_disk / "in.jsonl")
    cmd = [sys.executable, "-m", "spacy_simalign", "align", "in.jsonl", "out.jsonl", *OPTIONS]
    filler = fill(tiny_disk, 0)
    proc = subprocess.run(cmd, cwd=tiny_disk, capture_output=True, text=True)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "no space left on device" in proc.stderr
    assert sorted(p.name for p in tiny_disk.iterdir()) == ["filler", "in.jsonl"]  # no empty partial
    filler.unlink()
    filler = fill(tiny_disk, 2 * 4096)  # room for the settings and a few lines (tmpfs pages of 4 kB)
    proc = subprocess.run(cmd, cwd=tiny_disk, capture_output=True, text=True)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "run again with --resume" in proc.stderr and not (tiny_disk / "out.jsonl").exists()
    partial = (tiny_disk / "out.jsonl.partial").read_bytes()
    assert expected.startswith(partial) and partial.endswith(b"\n") and len(partial) < len(expected)
    filler.unlink()
    proc = subprocess.run([*cmd, "--resume"], cwd=tiny_disk, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (tiny_disk / "out.jsonl").read_bytes() == expected
    assert sorted(p.name for p in tiny_disk.iterdir()) == ["in.jsonl", "out.jsonl"]
    filler = fill(tiny_disk, 0)
    for argv in (["render", "in.jsonl", "view.html"], ["evaluate", "in.jsonl", "out.jsonl", "--output", "s.json"]):
        proc = subprocess.run(
            [sys.executable, "-m", "spacy_simalign", *argv], cwd=tiny_disk, capture_output=True, text=True
        )
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert "no space left on device" in proc.stderr
    filler.unlink()
    assert sorted(p.name for p in tiny_disk.iterdir()) == ["in.jsonl", "out.jsonl"]


def test_a_full_disk_met_by_any_writer_is_one_line(tmp_path, capsys, monkeypatch):
    """The net below the writers that name their file: any ENOSPC that reaches the entry point."""
    from spacy_simalign.commands import evaluate

    def run(args):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "x"))

    monkeypatch.setattr(evaluate, "run", run)
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_bytes(DEPLAIN_PAIRS.read_bytes().splitlines(keepends=True)[0])
    assert main(["evaluate", str(pairs), str(pairs)]) == 2
    assert (
        one_line(capsys)
        == f"error: {tmp_path / 'x'}: cannot write: no space left on device (free some space, then run again)"
    )
